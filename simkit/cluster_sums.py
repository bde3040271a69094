"""A group-by's totals over rows that come cluster by cluster, without products of
summands (`summing.cluster_totals` without its `products`): each row adds to its
group's sums as it comes, one row of sums per group, folded and reset when its cluster
ends. `cluster_totals` sums a block's rows into (cluster, group) pairs instead, in a
pass per summand and another per pair, which its products' fold needs; without
products this is about 0.89 of its time for Cauldron Master's passes (docs/speed.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.grouping import number_rows
from simkit.summing import ONE, ROWS, block_rows, evaluate


@njit(cache=True, nogil=True)
def cluster_sums(cluster: np.ndarray, starts: np.ndarray, longest: int, game: np.ndarray,
                 keys: np.ndarray, which: np.ndarray, kept: np.ndarray, lo: np.ndarray,
                 stride: np.ndarray, size: int, ops: np.ndarray, consts: np.ndarray,
                 columns: np.ndarray, kinds: np.ndarray, n_int: int, n_float: int,
                 summed: np.ndarray, worst: np.ndarray, ptr: np.ndarray, term: np.ndarray,
                 coef: np.ndarray, const: np.ndarray, games: int, sizes: int,
                 opened: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`summing.cluster_totals` of the same arguments with no products: the same
    (closed, open, first), the open rows in the same order (cluster by cluster, each
    cluster's groups as they first come)."""
    n, n_sum, n_val = cluster.shape[0], summed.shape[0], ptr.shape[0] - 1
    table, first = np.full(size, -1, np.int64), np.empty(size, np.int64)
    closed = np.zeros((size * sizes if sizes > 0 else size, 4 + 3 * n_val), np.int64)
    acc = np.zeros((size, n_sum), np.int64)  # the current cluster's sums by group
    acc1 = np.zeros(size, np.int64)  # the same, of a one-summand pass (no index per row)
    distinct = games != ROWS and games != ONE
    rows_of, games_of = np.zeros(size, np.int64), np.zeros(size, np.int64)
    last, touched = np.full(size, -1, np.int64), np.empty(max(longest, 1), np.int64)
    open_rows = 0  # the split deals' rows: at most one group each
    for c in range(len(starts) - 1):
        if opened[starts[c]]:
            open_rows += starts[c + 1] - starts[c]
    out_open, k_open = np.zeros((open_rows, 4 + n_val), np.int64), 0
    cap = max(block_rows(n_int + n_float), longest)
    ireg, freg = np.zeros((n_int, cap), np.int64), np.zeros((n_float, cap), np.float64)
    gid = np.empty(cap, np.int64)
    groups, c = 0, 0
    while c < len(starts) - 1:
        a, d = starts[c], c + 1  # the block: whole clusters c..d-1, rows a..b-1
        while d < len(starts) - 1 and starts[d + 1] - a <= cap:
            d += 1
        b = starts[d]
        groups = number_rows(keys, which, kept, lo, stride, table, first, groups, a, b, gid)
        evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
        col = ireg[summed[0]] if n_sum == 1 else ireg[0]
        for k in range(c, d):
            t = 0
            for r in range(starts[k], starts[k + 1]):
                g = gid[r - a]
                if g < 0:
                    continue
                if rows_of[g] == 0:
                    touched[t] = g
                    t += 1
                rows_of[g] += 1
                if distinct and game[r] != last[g]:
                    games_of[g] += 1
                    last[g] = game[r]
                if n_sum == 1:
                    acc1[g] += col[r - a]
                else:
                    for s in range(n_sum):
                        acc[g, s] += ireg[summed[s], r - a]
            split = opened[starts[k]]
            for i in range(t):  # the cluster's groups, in the order they came
                g = touched[i]
                m = rows_of[g]
                n_games = m if games == ROWS else 1 if games == ONE else games_of[g]
                key = g * sizes + m if sizes > 0 else g
                if split:
                    out_open[k_open, 0], out_open[k_open, 1] = cluster[starts[k]], g
                    out_open[k_open, 2], out_open[k_open, 3] = m, n_games
                else:
                    closed[key, 0] += 1
                    closed[key, 1] += m
                    closed[key, 2] += m * m
                    closed[key, 3] += n_games
                for j in range(n_val):
                    y = const[j] * m
                    for e in range(ptr[j], ptr[j + 1]):
                        y += coef[e] * (acc1[g] if n_sum == 1 else acc[g, term[e]])
                    if split:
                        out_open[k_open, 4 + j] = y
                    else:
                        closed[key, 4 + 3 * j] += y
                        closed[key, 5 + 3 * j] += y * y
                        closed[key, 6 + 3 * j] += y * m
                k_open += 1 if split else 0
                rows_of[g], games_of[g], last[g], acc1[g] = 0, 0, -1, 0
                for s in range(n_sum if n_sum > 1 else 0):  # not a slice: a view a group
                    acc[g, s] = 0
        c = d
    used = groups * sizes if sizes > 0 else groups
    return closed[:used].copy(), out_open[:k_open].copy(), first[:groups].copy()
