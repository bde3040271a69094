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
from simkit.summing import DISTINCT, ONE, ROWS, block_end, block_rows, evaluate

# A block's (cluster, group) pairs are summed into a table of every group by every cluster
# of the block when there are at most this many groups (a witch count, cards left): its
# fold is then a vectorised pass per group, not a few scattered adds per pair.
DENSE_GROUPS = 8


@njit(cache=True, nogil=True)
def fold_dense(rows_in: np.ndarray, part: np.ndarray, t: int, groups: int, games: int,
               ptr: np.ndarray, term: np.ndarray, coef: np.ndarray, const: np.ndarray,
               ys: np.ndarray, closed: np.ndarray) -> None:
    """A block's t clusters' pairs, laid as rows_in[g, i] (rows of group g in its i-th
    cluster) and part[s, g, i] (their summand s's sum), into `closed` (`cluster_sums`'
    c, m, mm, games, then y, yy, ym a value), and the table zeroed for the next block.
    An empty slot adds 0 to every sum but c and games: its m and y are 0."""
    for g in range(groups):
        m_row = rows_in[g]
        pairs, m_sum, mm_sum = np.int64(0), np.int64(0), np.int64(0)
        for i in range(t):
            m = m_row[i]
            pairs += 1 if m > 0 else 0
            m_sum += m
            mm_sum += m * m
        closed[g, 0] += pairs
        closed[g, 1] += m_sum
        closed[g, 2] += mm_sum
        closed[g, 3] += m_sum if games == ROWS else pairs
        for j in range(ptr.shape[0] - 1):
            w = const[j]
            for i in range(t):
                ys[i] = w * m_row[i]
            for e in range(ptr[j], ptr[j + 1]):
                col, w = part[term[e], g], coef[e]
                for i in range(t):
                    ys[i] += w * col[i]
            y_sum, yy_sum, ym_sum = np.int64(0), np.int64(0), np.int64(0)
            for i in range(t):
                y = ys[i]
                y_sum += y
                yy_sum += y * y
                ym_sum += y * m_row[i]
            closed[g, 4 + 3 * j] += y_sum
            closed[g, 5 + 3 * j] += yy_sum
            closed[g, 6 + 3 * j] += ym_sum
        m_row[:t] = 0
        for s in range(part.shape[0]):
            part[s, g, :t] = 0


@njit(cache=True, nogil=True)
def _splits(opened: np.ndarray, starts: np.ndarray, c: int, d: int) -> bool:
    """Whether any of clusters c..d-1 is a split deal's (kept apart, pair by pair)."""
    k = c
    while k < d and not opened[starts[k]]:
        k += 1
    return k < d


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
    # Few groups, each pair's games its rows or one: the blocks without a split deal
    # are summed into a table of group by cluster (`fold_dense`).
    dense = size <= DENSE_GROUPS and sizes == 0 and games != DISTINCT
    rows_in = np.zeros((size if dense else 0, cap), np.int64)
    part = np.zeros((n_sum, size if dense else 0, cap), np.int64)
    ys = np.empty(cap if dense else 0, np.int64)
    groups, c = 0, 0
    while c < len(starts) - 1:
        d = block_end(starts, c, cap)  # the block: whole clusters c..d-1, rows a..b-1
        a, b = starts[c], starts[d]
        groups = number_rows(keys, which, kept, lo, stride, table, first, groups, a, b, gid)
        evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
        col = ireg[summed[0]] if n_sum == 1 else ireg[0]
        if dense and not _splits(opened, starts, c, d):
            for k in range(c, d):
                for r in range(starts[k], starts[k + 1]):
                    g = gid[r - a]
                    if g < 0:
                        continue
                    rows_in[g, k - c] += 1
                    for s in range(n_sum):
                        part[s, g, k - c] += ireg[summed[s], r - a]
            fold_dense(rows_in, part, d - c, groups, games, ptr, term, coef, const, ys,
                       closed)
            c = d
            continue
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
