"""A slice's groups numbered by their key codes, for the compiled sums of a summary-only
run (`simkit.summing`): each key column's range, the table over the codes' combinations,
and each kept row's group in order of first appearance. Plain arrays, no dataframe."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def key_ranges(keys: np.ndarray) -> np.ndarray:
    """Each key column's smallest and largest code over all rows (key columns x rows ->
    key columns x 2): read once per slice, for every group-by of its columns."""
    out = np.zeros((keys.shape[0], 2), np.int64)
    for k in range(keys.shape[0]):
        if keys.shape[1] == 0:
            continue
        a = b = keys[k, 0]
        for r in range(1, keys.shape[1]):  # min and max, not tests: the loop vectorises
            a = min(a, keys[k, r])
            b = max(b, keys[k, r])
        out[k, 0], out[k, 1] = a, b
    return out


@njit(cache=True, nogil=True)
def group_table(keys: np.ndarray, which: np.ndarray, kept: np.ndarray, limit: int,
                ranges: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The table that numbers the groups of key columns `which` of `keys` (key columns x
    rows, int64): each key's lowest code and stride, and its size, over the codes' ranges
    of all rows (`key_ranges`), or of the `kept` rows when that table would exceed
    `limit` entries (the groups are the same either way); size -1 when that one would
    too (the caller then groups another way)."""
    n_keys, n = which.shape[0], keys.shape[1]
    lo, stride, size = np.zeros(n_keys, np.int64), np.ones(n_keys, np.int64), 1
    for k in range(n_keys):
        span = ranges[which[k], 1] - ranges[which[k], 0] + 1
        lo[k] = ranges[which[k], 0]
        stride[k] = size
        if span > limit or size * span > limit:
            size = -1
            break
        size *= span
    if size > 0:
        return lo, stride, size
    size = 1
    for k in range(n_keys):  # the kept rows' ranges
        a, b = np.int64(0), np.int64(-1)
        for r in range(n):
            if kept[r]:
                v = keys[which[k], r]
                if b < a:
                    a, b = v, v
                elif v < a:
                    a = v
                elif v > b:
                    b = v
        lo[k] = a
        stride[k] = size
        span = b - a + 1 if b >= a else 1
        if span > limit or size * span > limit:
            return lo, stride, -1
        size *= span
    return lo, stride, size


@njit(cache=True, nogil=True)
def number_rows(keys: np.ndarray, which: np.ndarray, kept: np.ndarray, lo: np.ndarray,
                stride: np.ndarray, table: np.ndarray, first: np.ndarray, groups: int,
                a: int, b: int, gid: np.ndarray) -> int:
    """Rows a..b-1 numbered by their key codes' first appearance into gid[:b - a] (-1
    for a row not kept), through `table` (`group_table`'s, -1 where no group yet; a new
    group's first row goes to `first`); returns the groups numbered so far."""
    n_keys = which.shape[0]
    for r in range(a, b):
        if not kept[r]:
            gid[r - a] = -1
            continue
        code = 0
        for k in range(n_keys):
            code += (keys[which[k], r] - lo[k]) * stride[k]
        g = table[code]
        if g < 0:
            g = groups
            table[code] = g
            first[g] = r
            groups += 1
        gid[r - a] = g
    return groups


@njit(cache=True, nogil=True)
def group_ids(keys: np.ndarray, which: np.ndarray, kept: np.ndarray, limit: int,
              ranges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each kept row's group (0, 1, ... in order of first appearance; -1 if not kept) of
    key columns `which` of `keys`, and each group's first row, through `group_table`'s
    table (empty arrays if none): what `cluster_totals` numbers a block at a time."""
    lo, stride, size = group_table(keys, which, kept, limit, ranges)
    if size < 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    n = keys.shape[1]
    gid = np.empty(n, np.int64)
    first = np.empty(min(n, size), np.int64)
    groups = number_rows(keys, which, kept, lo, stride, np.full(size, -1, np.int64), first,
                         0, 0, n, gid)
    return gid, first[:groups].copy()  # not a view keeping n rows alive
