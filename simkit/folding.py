"""A one-key pass's products of summands folded into its totals (`summing.cluster_totals`
with products, the card values' pass): a block's closed pairs laid summand by summand,
so each product is a dot product over them, which vectorises; a block whose pairs are
its clusters (a game's four seats, all of the one group) laid straight from the
program's registers, with no pairs. int64 arithmetic modulo 2^64: the same integers in
any order."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fold_products(part: np.ndarray, pairs: np.ndarray, rows: np.ndarray, m0: int,
                  products: np.ndarray, n_plain: int, by_summand: np.ndarray,
                  lin: np.ndarray, quad: np.ndarray) -> None:
    """Closed `pairs` of a block, all of one key, into its summands' sums and m (`lin`)
    and their `products` (`quad`; those with m as x * (m - m0)): their partial sums laid
    summand by summand first, so each product is a dot product over the pairs, which
    vectorises (pair by pair, each product was two scattered loads and a store)."""
    n_sum = part.shape[1]
    t = pairs.shape[0]
    for s in range(n_sum):  # written in order: a pair at a time strides by the rows
        for i in range(t):
            by_summand[s, i] = part[pairs[i], s]
    ragged = False  # a pair of other than m0 rows: the products with m have a part
    for i in range(t):
        by_summand[n_sum, i] = rows[pairs[i]]
        by_summand[n_sum + 1, i] = rows[pairs[i]] - m0
        ragged |= rows[pairs[i]] != m0
    fold_laid(by_summand, t, ragged, products, n_plain, lin, quad)


@njit(cache=True, nogil=True)
def fold_laid(by_summand: np.ndarray, t: int, ragged: bool, products: np.ndarray,
              n_plain: int, lin: np.ndarray, quad: np.ndarray) -> None:
    """`fold_products` of t pairs laid out (summand by summand, then m, then m - m0)."""
    n_sum = by_summand.shape[0] - 2
    for s in range(n_sum + 1):
        total = np.int64(0)
        for i in range(t):
            total += by_summand[s, i]
        lin[s] += total
    for q in range(products.shape[0] if ragged else n_plain):  # indices, not row views
        a, b = products[q, 0], products[q, 1] if q < n_plain else n_sum + 1
        total = np.int64(0)
        for i in range(t):
            total += by_summand[a, i] * by_summand[b, i]
        quad[q] += total


@njit(cache=True, nogil=True)
def regular(gid: np.ndarray, starts: np.ndarray, c: int, d: int, m0: int,
            opened: np.ndarray) -> bool:
    """Whether clusters c..d-1 (a block) are each m0 rows of group 0, none opened: a
    one-key pass's usual block (a game's seats), whose pairs are its clusters."""
    for k in range(c, d):
        if starts[k + 1] - starts[k] != m0 or opened[starts[k]]:
            return False
    return not np.any(gid[:starts[d] - starts[c]])


@njit(cache=True, nogil=True)
def lay_regular(ireg: np.ndarray, summed: np.ndarray, t: int, m0: int,
                by_summand: np.ndarray) -> None:
    """A `regular` block's t clusters' summand sums laid out as `fold_products` lays
    its pairs', straight from the registers: no pairs, no scattered adds through them."""
    n_sum = summed.shape[0]
    for s in range(n_sum):
        col = ireg[summed[s]]
        if m0 == 4:  # a game's four seats: a fixed stride, which vectorises
            for i in range(t):
                by_summand[s, i] = col[4 * i] + col[4 * i + 1] + col[4 * i + 2] + col[4 * i + 3]
            continue
        for i in range(t):
            by_summand[s, i] = col[i * m0]
        for j in range(1, m0):
            for i in range(t):
                by_summand[s, i] += col[i * m0 + j]
    by_summand[n_sum, :t] = m0
    by_summand[n_sum + 1, :t] = 0
