"""`simkit.cluster_sums` (a pass without products, summed group by group as a cluster's
rows come) and `simkit.row_pairs` (pairs of one row) against a plain-Python reference
and `summing.cluster_totals`' pairs."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit import compiled_totals
from simkit.cluster_sums import DENSE_GROUPS, cluster_sums
from simkit.compiled_totals import products
from simkit.row_pairs import row_pair_totals
from simkit.summing import DISTINCT, ONE, ROWS, cluster_starts, cluster_totals
from tests.pass_support import one_key_pass

_ROW = st.tuples(st.integers(0, 3), st.integers(-2, 2), st.integers(-50, 50),
                 st.integers(-9, 9), st.booleans(), st.booleans())  # step, key, y0, y1, kept, game+


def _reference(cluster, game, key, kept, y, opened, games, sizes, values):
    """Each kept row's group by its key's first appearance; per cluster and group its
    rows m, games and summands' sums; values const * m + sum coef * sum; closed clusters
    summed per key (group, or group and size), open ones listed as they come."""
    number: dict[int, int] = {}
    for r in range(len(key)):
        if kept[r]:
            number.setdefault(int(key[r]), len(number))
    width = len(number) * sizes if sizes else len(number)
    closed = [[0] * (4 + 3 * len(values)) for _ in range(width)]
    out_open = []
    ends = [r for r in range(1, len(cluster)) if cluster[r] != cluster[r - 1]]
    for a, b in zip([0, *ends], [*ends, len(cluster)], strict=True):
        pairs: dict[int, list[int]] = {}
        for r in range(a, b):
            if kept[r]:
                pairs.setdefault(number[int(key[r])], []).append(r)
        for g, rows in pairs.items():
            m = len(rows)
            n_games = {ROWS: m, ONE: 1, DISTINCT: len({int(game[r]) for r in rows})}[games]
            ys = [const * m + sum(c * sum(int(y[t][r]) for r in rows) for t, c in terms)
                  for const, terms in values]
            if opened[a]:
                out_open.append([int(cluster[a]), g, m, n_games, *ys])
                continue
            row = closed[g * sizes + m if sizes else g]
            for i, v in enumerate((1, m, m * m, n_games)):
                row[i] += v
            for j, v in enumerate(ys):
                row[4 + 3 * j] += v
                row[5 + 3 * j] += v * v
                row[6 + 3 * j] += v * m
    return closed, out_open, sorted(number.values(), key=lambda g: g)


@settings(deadline=None, max_examples=150)
@given(st.lists(_ROW, min_size=1, max_size=40), st.sampled_from([ROWS, ONE, DISTINCT]),
       st.booleans(), st.sampled_from([(False, False), (True, False), (False, True),
                                       (True, True)]),
       st.sampled_from([1, 2]), st.integers(-3, 3), st.booleans())
def test_cluster_sums_are_the_plain_sums_and_the_pairs(rows, games, by_size, split, n_sum,
                                                        const, wide):
    """Clusters of any size, kept rows or not, deals split at either end, one or two
    summands, values of one term or a combination with a constant, grouped by group or
    by group and size, keys of a table of at most 5 entries or up to 17: `cluster_sums`
    gives the reference's totals, open rows and groups, and `cluster_totals`' (its
    pairs) arrays."""
    _check_cluster_sums(rows, games, by_size, split, n_sum, const, wide)


@settings(deadline=None, max_examples=150)
@given(st.lists(_ROW, min_size=1, max_size=60), st.sampled_from([ROWS, ONE]),
       st.sampled_from([1, 2]), st.integers(-3, 3), st.booleans())
def test_few_groups_are_summed_group_by_cluster(rows, games, n_sum, const, many):
    """The same where a pass's table has at most `DENSE_GROUPS` entries, no deal splits
    and a pair's games are its rows or one: the blocks summed into a table of group by
    cluster and folded a group at a time (`fold_dense`); repeated past 4,096 rows, the
    rows are several blocks (`block_rows`), so the table is reset between them."""
    copies = 4200 // len(rows) + 1 if many else 1
    _check_cluster_sums(rows * copies, games, False, (False, False), n_sum, const, False)


def _check_cluster_sums(rows, games, by_size, split, n_sum, const, wide):
    cluster = np.cumsum([r[0] for r in rows]).astype(np.int64)
    game = np.cumsum([r[0] + r[5] for r in rows]).astype(np.int64)
    key = np.array([[r[1] * (4 if wide else 1) for r in rows]], np.int64)
    kept = np.array([r[4] or i == 0 for i, r in enumerate(rows)])
    y = [np.array([r[2] for r in rows], np.int64), np.array([r[3] for r in rows], np.int64)]
    opened = np.zeros(len(rows), np.bool_)
    opened[cluster == cluster[0]] = split[0]
    opened[cluster == cluster[-1]] |= split[1]
    made = one_key_pass(cluster, game, key, kept, y, opened, games, by_size, n_sum, const)
    args, values, sizes = made.args, made.values, made.sizes
    assert made.size <= DENSE_GROUPS or wide  # keys of 5 values: the table group by cluster
    closed, out_open, first = cluster_sums(*args)
    want_closed, want_open, groups = _reference(cluster, game, key[0], kept, y, opened,
                                                games, sizes, values)
    assert closed.tolist() == want_closed
    assert out_open.tolist() == want_open
    assert len(first) == len(groups) and all(kept[first])
    assert [int(key[0, r]) for r in first] == list(dict.fromkeys(
        int(key[0, r]) for r in range(len(rows)) if kept[r]))
    empty = np.zeros(0, np.int64)
    pairs = cluster_totals(*args, np.zeros((0, 2), np.int64), np.zeros(1, np.int64), empty,
                           empty, np.zeros(1, np.int64), empty, empty)
    assert all(np.array_equal(a, b) for a, b in zip(pairs, (closed, out_open, first),
                                                    strict=True))


@settings(deadline=None, max_examples=150)
@given(st.lists(_ROW, min_size=1, max_size=40), st.sampled_from([ROWS, ONE, DISTINCT]),
       st.booleans(), st.booleans(), st.booleans(), st.sampled_from([1, 2]),
       st.integers(-3, 3))
def test_row_pairs_are_the_plain_sums_when_each_pair_is_a_row(rows, games, by_size, seats,
                                                              split, n_sum, const):
    """Clusters of any size, keyed by the row's place in its cluster (a seat: every
    (cluster, group) pair one row) or by any key: `row_pair_totals` takes the pass
    exactly when no kept pair has two rows and no deal is split, and then gives the
    reference's totals and groups, `cluster_sums`' arrays, and `cluster_totals`' with
    the values' products (the same integers modulo 2^64)."""
    cluster = np.cumsum([r[0] for r in rows]).astype(np.int64)
    game = np.cumsum([r[0] + r[5] for r in rows]).astype(np.int64)
    starts, _ = cluster_starts(cluster)
    place = np.arange(len(rows)) - np.repeat(starts[:-1], np.diff(starts))
    key = np.array([place if seats else [r[1] for r in rows]], np.int64)
    kept = np.array([r[4] or i == 0 for i, r in enumerate(rows)])
    y = [np.array([r[2] for r in rows], np.int64), np.array([r[3] for r in rows], np.int64)]
    opened = np.zeros(len(rows), np.bool_)
    opened[cluster == cluster[-1]] = split
    made = one_key_pass(cluster, game, key, kept, y, opened, games, by_size, n_sum, const)
    args, values, sizes = made.args, made.values, made.sizes
    ok, *got = row_pair_totals(*args)
    kept_pairs = [(int(cluster[r]), int(key[0, r])) for r in range(len(rows)) if kept[r]]
    assert ok == (len(set(kept_pairs)) == len(kept_pairs) and not split)
    if not ok:
        return
    want_closed, want_open, groups = _reference(cluster, game, key[0], kept, y, opened,
                                                games, sizes, values)
    assert got[0].tolist() == want_closed and got[1].tolist() == want_open == []
    assert len(got[2]) == len(groups)
    assert all(np.array_equal(a, b) for a, b in zip(got, cluster_sums(*args), strict=True))
    with patch.object(compiled_totals, "PRODUCTS", 100.0):  # products even for 2 values
        folded_by = products(made.ptr.tolist(), made.term.tolist(), made.coef.tolist(),
                             made.consts.tolist(), n_sum)
    assert len(folded_by[0])
    folded = cluster_totals(*args, *folded_by)
    assert all(np.array_equal(a, b) for a, b in zip(got, folded, strict=True))
