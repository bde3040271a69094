"""The compiled pieces of a summary-only run's reduction (`simkit.summing`,
`simkit.grouping`) against polars, which they stand in for."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.grouping import group_ids, key_ranges
from simkit.summing import cluster_starts, whole_units


@settings(deadline=None)  # the first call loads the compiled function
@given(st.lists(st.tuples(st.integers(-120, 120), st.sampled_from([0.0, 1e-9, -1e-7, 4e-4,
                                                                      -2e-3, 0.3, 0.5])),
                max_size=40))
def test_whole_units_round_and_measure_as_polars_does(values):
    """`summing.whole_units` (a win share's summand, rounded in compiled code) gives
    polars's rounded integers and the largest distance `totals._check_whole` measures,
    wherever the values are whole (the only rows ever summed)."""
    x = np.array([k + d for k, d in values], np.float64)
    units, worst = whole_units(x)
    series = pl.Series(x)
    want = (series - series.round()).abs().max()
    assert worst == pytest.approx(0.0 if want is None else want, abs=1e-12)
    whole = np.abs(x - np.round(x)) <= 1e-3
    assert units[whole].tolist() == series.round().cast(pl.Int64).to_numpy()[whole].tolist()
    assert np.isnan(whole_units(np.array([1.0, np.nan]))[1])


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 2), st.sampled_from([-10**6, 0]),
                          st.booleans()), max_size=30),
       st.sampled_from([(0,), (1,), (0, 1), (2,), (1, 2), ()]), st.sampled_from([5, 10**7]))
def test_group_ids_number_the_kept_rows_groups_by_first_appearance(rows, which, limit):
    """`grouping.group_ids` over the slice's key ranges gives each kept row the number of
    its key codes' first appearance among kept rows (a plain-Python reference), the same
    whether its table spans all rows' codes or, past `limit`, only the kept rows'; and
    nothing when even the kept rows' would exceed it."""
    keys = np.array([[r[k] for r in rows] for k in range(3)], np.int64).reshape(3, len(rows))
    kept = np.array([r[3] for r in rows], np.bool_)
    gid, first = group_ids(keys, np.array(which, np.int64), kept, limit, key_ranges(keys))
    seen: dict[tuple[int, ...], int] = {}
    want = [-1 if not r[3] else seen.setdefault(tuple(r[k] for k in which), len(seen))
            for r in rows]
    spans = [max((r[k] for r in rows if r[3]), default=0)
             - min((r[k] for r in rows if r[3]), default=0) + 1 for k in which]
    if np.prod(spans, dtype=np.int64) > limit:  # the kept rows' codes span too far
        assert len(gid) == 0
        return
    assert gid.tolist() == want
    assert first.tolist() == [want.index(g) for g in range(len(seen))]


@settings(deadline=None)
@given(st.lists(st.integers(0, 3), max_size=30))
def test_cluster_starts_are_the_runs_of_equal_clusters(steps):
    """`summing.cluster_starts`: each run's first row, the row count, the longest run."""
    cluster = np.cumsum(np.array(steps, np.int64))
    starts, longest = cluster_starts(cluster)
    want = [r for r in range(len(cluster)) if r == 0 or cluster[r] != cluster[r - 1]]
    assert starts.tolist() == ([*want, len(cluster)] if len(cluster) else [0])
    assert longest == max(np.diff(starts), default=0)


def test_group_ids_fall_back_to_the_kept_rows_range():
    """A row left out by the filter with a far code does not push the group-by out of
    compiled code: the table then spans the kept rows' codes only."""
    keys = np.array([[0, 10**6, 1, 0]], np.int64)
    kept = np.array([True, False, True, True])
    gid, first = group_ids(keys, np.array([0], np.int64), kept, 10, key_ranges(keys))
    assert (gid.tolist(), first.tolist()) == ([0, -1, 1, 0], [0, 2])
    far = np.array([True, True, False, False])  # the kept rows' codes span too far
    assert len(group_ids(keys, np.array([0], np.int64), far, 10, key_ranges(keys))[0]) == 0


@settings(deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=12), st.integers(0, 3),
       st.integers(0, 3), st.integers(1, 4))
def test_short_end_deals_from_the_steps_are_polars_group_bys(deal_games, cut_a, cut_b, seats):
    """`totals._short_end_deals` (the deals cut short at a slice's ends, from the deal and
    game columns' steps) gives what the polars group-by gives, slices cut anywhere."""
    from simkit.totals import _short_deals, _short_end_deals

    games = [(d, g) for d, n in enumerate(deal_games, start=5) for g in range(n)]
    start = min(cut_a, len(games) - 1)
    games = games[start:max(start + 1, len(games) - cut_b)]  # a slice holds a game or more
    rows = pl.DataFrame({"deal": [d for d, _ in games for _ in range(seats)],
                         "game": [d * 10 + g for d, g in games for _ in range(seats)]})
    steps = {c: np.diff(rows[c].to_numpy()) for c in ("deal", "game")}
    assert _short_end_deals(rows["deal"], steps, 4) == _short_deals(rows, 4)


@pytest.mark.parametrize("seed", range(2))
def test_rows_numbered_before_the_pass_give_the_same_totals(seed, monkeypatch):
    """Past `compiled_totals._NUMBERED` a pass reads the groups `group_ids` numbered
    beforehand as its one key, instead of numbering them as it goes: the totals are
    still polars's (tests/test_summary.py's queries of every kind, which otherwise are
    numbered in the pass)."""
    from simkit import compiled_totals, grouping
    from tests.test_summary import test_compiled_sums_of_every_kind_of_query_equal_polars

    calls = []

    def numbered(*args):
        calls.append(1)
        return group_ids(*args)

    monkeypatch.setattr(compiled_totals, "_NUMBERED", 0)
    monkeypatch.setattr(grouping, "group_ids", numbered)
    test_compiled_sums_of_every_kind_of_query_equal_polars(seed, 1.0, monkeypatch)
    assert calls


@settings(deadline=None)
@given(st.integers(2, 5), st.lists(st.lists(st.tuples(st.integers(-5, 5),
                                                      st.sampled_from([0.0, 0.25, 0.5, 1.0])),
                                            min_size=5, max_size=5), min_size=1, max_size=30))
def test_game_rows_of_whole_games_are_the_group_bys(seats, games):
    """`summary.game_rows` of rows as simkit writes them (each game's seats together,
    read a seat at a time) gives the top and second score, the margin and the tie of
    the polars group-by it stands in for, ties of scores included."""
    from simkit.summary import game_rows
    rows = [(g, g // 3, 7 + g, seat, score, share)
            for g, game in enumerate(games) for seat, (score, share) in enumerate(game[:seats])]
    frame = pl.DataFrame(rows, schema=["game", "deal", "rounds", "seat", "score", "win_share"],
                         orient="row")
    fast = game_rows(frame).collect()
    slow = game_rows(frame.lazy()).collect().sort("game").select(fast.columns)
    assert fast.equals(slow)
