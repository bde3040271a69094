"""`simkit.folding`: a one-key pass's products folded over blocks whose pairs are their
clusters (laid straight from the registers) give the totals of the general path."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit import compiled_totals
from simkit.cluster_sums import cluster_sums
from simkit.compiled_totals import products
from simkit.summing import DISTINCT, ONE, ROWS, cluster_totals
from tests.pass_support import one_key_pass


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 5), st.integers(8200, 12000),
       st.sampled_from([ROWS, ONE, DISTINCT]), st.sampled_from([1, 2]),
       st.integers(-3, 3), st.sampled_from(["regular", "odd cluster", "filtered", "split",
                                            "two groups"]))
def test_products_over_regular_blocks_are_the_general_totals(seed, m0, rows, games,
                                                             n_sum, const, twist):
    """Clusters of m0 rows (a game's seats), past a first block of 4,096 rows, some
    blocks broken (a cluster of other size, a row filtered out, a split deal, a second
    group): `cluster_totals` with the values' products gives `cluster_sums`' totals,
    open rows and groups (the general path, checked against a plain-Python reference in
    tests/test_cluster_sums.py), the same integers modulo 2^64 (values near 2^40, so
    products wrap)."""
    rng = np.random.default_rng(seed)
    clusters = rows // m0
    sizes = np.full(clusters, m0)
    if twist == "odd cluster":
        sizes[rng.integers(clusters // 2, clusters)] = m0 + 1
    cluster = np.repeat(np.arange(clusters), sizes).astype(np.int64)
    n = len(cluster)
    game = cluster.copy()
    key = np.zeros((1, n), np.int64)
    if twist == "two groups":
        key[0, rng.integers(n // 2, n)] = 1
    kept = np.ones(n, np.bool_)
    if twist == "filtered":
        kept[rng.integers(n // 2, n)] = False
    opened = np.zeros(n, np.bool_)
    if twist == "split":
        opened[cluster == cluster[-1]] = True
    y = [rng.integers(-2 ** 40, 2 ** 40, n, dtype=np.int64),
         rng.integers(-9, 10, n, dtype=np.int64)]
    made = one_key_pass(cluster, game, key, kept, y, opened, games, False, n_sum, const)
    args = made.args
    with patch.object(compiled_totals, "PRODUCTS", 100.0):  # products even for 2 values
        folded_by = products(made.ptr.tolist(), made.term.tolist(), made.coef.tolist(),
                             made.consts.tolist(), n_sum)
    assert len(folded_by[0])
    folded = cluster_totals(*args, *folded_by)
    assert all(np.array_equal(a, b) for a, b in zip(folded, cluster_sums(*args), strict=True))
