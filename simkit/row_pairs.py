"""A group-by's totals when each (cluster, group) pair is one row: a plain mean's rows
(every row a cluster), and a game's rows grouped by seat (or by the seat and more), as
a summary-only report asks of every run. Then a pair's m is 1, so its group's c, m, mm
and games are its row count, its ym its y, and its yy the sum of y * y: each row adds to
its group's sums as it comes, with no per-cluster bookkeeping (`cluster_sums`) and no
products folded (`summing.cluster_totals`), which took 1.4-2.5 ms of a Cauldron Master
slice for each such group-by (docs/speed.md, twenty-sixth session).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.grouping import number_rows
from simkit.summing import block_end, block_rows, evaluate


@njit(cache=True, nogil=True)
def row_pair_totals(cluster: np.ndarray, starts: np.ndarray, longest: int, game: np.ndarray,
                    keys: np.ndarray, which: np.ndarray, kept: np.ndarray, lo: np.ndarray,
                    stride: np.ndarray, size: int, ops: np.ndarray, consts: np.ndarray,
                    columns: np.ndarray, kinds: np.ndarray, n_int: int, n_float: int,
                    summed: np.ndarray, worst: np.ndarray, ptr: np.ndarray, term: np.ndarray,
                    coef: np.ndarray, const: np.ndarray, games: int, sizes: int,
                    opened: np.ndarray
                    ) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    """`cluster_sums` of the same arguments (`summing.cluster_totals` without its
    products: the same integers modulo 2^64), when no cluster is `opened` and no group
    has two rows in one cluster: (True, closed, open, first). Else (False, ...): the
    caller sums the pass the general way (a cluster's second row of a group is found as
    it comes, so a pass of larger pairs stops at its first cluster)."""
    n, n_val = cluster.shape[0], ptr.shape[0] - 1
    table, first = np.full(size, -1, np.int64), np.empty(size, np.int64)
    count = np.zeros(size, np.int64)  # each group's rows, so its pairs
    sums = np.zeros((size, 2 * n_val), np.int64)  # per group and value: y, y * y
    seen = np.full(size, -1, np.int64)  # each group's last cluster
    cap = max(block_rows(n_int + n_float), longest)
    ireg, freg = np.zeros((n_int, cap), np.int64), np.zeros((n_float, cap), np.float64)
    gid, ys = np.empty(cap, np.int64), np.zeros((n_val, cap), np.int64)
    no_open = np.zeros((0, 4 + n_val), np.int64)
    single = len(starts) - 1 == n  # every cluster one row (a plain mean, a histogram)
    groups, c = 0, 0
    while c < len(starts) - 1:
        d = block_end(starts, c, cap)  # the block: whole clusters c..d-1, rows a..b-1
        a, b = starts[c], starts[d]
        groups = number_rows(keys, which, kept, lo, stride, table, first, groups, a, b, gid)
        evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
        for j in range(n_val):  # each value's rows: const + its terms (m is 1)
            for i in range(b - a):
                ys[j, i] = const[j]
            for e in range(ptr[j], ptr[j + 1]):
                col, w = ireg[summed[term[e]]], coef[e]
                for i in range(b - a):
                    ys[j, i] += w * col[i]
        for k in range(c, d):
            if opened[starts[k]]:
                return False, no_open, no_open, first[:0]
        for k in range(c, d if not single else c + 1):  # single: the block's rows at once
            for r in range(starts[k], starts[k + 1] if not single else b):
                g = gid[r - a]
                if g < 0:
                    continue
                if not single:
                    if seen[g] == k:  # a pair of two rows: not this path's
                        return False, no_open, no_open, first[:0]
                    seen[g] = k
                count[g] += 1
                for j in range(n_val):
                    y = ys[j, r - a]
                    sums[g, 2 * j] += y
                    sums[g, 2 * j + 1] += y * y
        c = d
    closed = np.zeros((groups * sizes if sizes > 0 else groups, 4 + 3 * n_val), np.int64)
    for g in range(groups):
        key = g * sizes + 1 if sizes > 0 else g
        for i in range(4):  # c, m, mm and games (ROWS: m; ONE, DISTINCT: one a pair)
            closed[key, i] = count[g]
        for j in range(n_val):
            closed[key, 4 + 3 * j] = sums[g, 2 * j]
            closed[key, 5 + 3 * j] = sums[g, 2 * j + 1]
            closed[key, 6 + 3 * j] = sums[g, 2 * j]
    return True, closed, no_open, first[:groups].copy()
