"""The arguments of one compiled group-by pass over test rows (`cluster_sums`,
`row_pair_totals` and the first arguments of `cluster_totals`), shared by
tests/test_cluster_sums.py and tests/test_folding.py."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.grouping import group_table, key_ranges
from simkit.programs import loads
from simkit.summing import I64, addresses, cluster_starts


class Pass(NamedTuple):
    args: tuple  # the pass's arguments, in order
    values: list  # each value's (constant, [(summand, coefficient)]), as the reference reads it
    ptr: np.ndarray
    term: np.ndarray
    coef: np.ndarray
    consts: np.ndarray
    size: int  # the group table's size
    sizes: int  # how many cluster sizes are told apart (0: none)


def one_key_pass(cluster, game, key, kept, y, opened, games, by_size, n_sum, const) -> Pass:
    """A pass keyed by `key` (one row), summing y[0] and, with n_sum 2, the value
    const + 2 y[0] - y[1]."""
    values = [(0, [(0, 1)])] + ([(const, [(0, 2), (1, -1)])] if n_sum == 2 else [])
    ptr = np.cumsum([0] + [len(t) for _, t in values]).astype(np.int64)
    term = np.array([t for _, ts in values for t, _ in ts], np.int64)
    coef = np.array([c for _, ts in values for _, c in ts], np.int64)
    consts = np.array([c for c, _ in values], np.int64)
    which = np.zeros(1, np.int64)
    lo, stride, size = group_table(key, which, kept, 1 << 20, key_ranges(key))
    starts, longest = cluster_starts(cluster)
    program = loads(n_sum)
    sizes = longest + 1 if by_size else 0
    args = (cluster, starts, longest, game, key, which, kept, lo, stride, size,
            program.ops, program.consts, addresses(y[:n_sum]), np.full(n_sum, I64, np.int64),
            program.n_int, program.n_float, np.asarray(program.outputs, np.int64),
            np.zeros(n_sum), ptr, term, coef, consts, games, sizes, opened)
    return Pass(args, values, ptr, term, coef, consts, size, sizes)
