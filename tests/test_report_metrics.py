"""Report metrics against hand-computed values, and intervals against known probabilities."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from reports import metrics
from reports.metrics import Component
from reports.stats import Z_POWER, Z, games_needed, wilson
from tests.report_support import frame, random_frame


def approx(x: float) -> pytest.approx:
    return pytest.approx(x, rel=1e-9, abs=1e-12)


# ------------------------------------------------------------------ interval helpers
def test_wilson_known_values():
    lo, hi = wilson(0.5, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    lo, hi = wilson(0.0, 50)
    assert lo == 0.0 and hi == pytest.approx(0.0714, abs=1e-4)
    assert all(math.isnan(v) for v in wilson(0.5, 0))


def test_games_needed_scales_with_the_square():
    # half-width Z*se = 0.02 now, the line is 0.01 away: four times the games.
    assert games_needed(1000, 0.02 / (Z + Z_POWER), 0.01) == pytest.approx(4000)
    assert games_needed(1000, 0.01, 0.0) == math.inf


# ------------------------------------------------------------------ win share, with ties
TIES = frame([
    [("a", 10, 0.5), ("b", 10, 0.5), ("b", 5, 0.0)],  # a two-way tie
    [("a", 3, 0.0), ("b", 8, 0.5), ("b", 8, 0.5)],
    [("a", 9, 1 / 3), ("b", 9, 1 / 3), ("b", 9, 1 / 3)],  # everyone ties
    [("a", 12, 1.0), ("b", 2, 0.0), ("b", 7, 0.0)],
])


def test_win_share_by_seat_counts_ties_as_shared():
    out = metrics.win_share_by(TIES, "seat")
    per_game = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [1 / 3] * 3, [1.0, 0.0, 0.0]])
    for seat in range(3):
        row = out.row(seat, named=True)
        values = per_game[:, seat]
        se = values.std(ddof=1) / math.sqrt(4)
        assert row["games"] == 4 and row["players"] == 4
        assert row["win_share"] == pytest.approx(values.mean(), rel=1e-6)
        # Wilson's interval on the effective sample size p(1-p)/se^2 (clustered se)
        p = values.mean()
        lo, hi = wilson(p, p * (1 - p) / se ** 2)
        assert row["win_share_lo"] == pytest.approx(lo, rel=1e-6)
        assert row["win_share_hi"] == pytest.approx(hi, rel=1e-6)
    assert out["win_share"].sum() == pytest.approx(1.0, rel=1e-6)  # shares of a game add to 1


def test_strategy_in_two_seats_is_averaged_within_each_game():
    out = metrics.win_share_by(TIES, "strategy")
    b = out.filter(pl.col("strategy") == "b").row(0, named=True)
    per_game = np.array([0.25, 0.5, 1 / 3, 0.0])  # mean of b's two seats in each game
    assert b["games"] == 4 and b["players"] == 8
    assert b["win_share"] == pytest.approx(per_game.mean(), rel=1e-6)
    se = per_game.std(ddof=1) / 2
    p = per_game.mean()
    assert b["win_share_hi"] == pytest.approx(wilson(p, p * (1 - p) / se ** 2)[1], rel=1e-6)
    a = out.filter(pl.col("strategy") == "a").row(0, named=True)
    assert a["win_share"] == pytest.approx((0.5 + 0 + 1 / 3 + 1) / 4, rel=1e-6)


def test_per_game_ties_margins_and_tie_rate():
    games = metrics.per_game(TIES)
    assert games["tie"].to_list() == [True, True, True, False]
    assert games["margin"].to_list() == [0, 0, 0, 5]
    t = metrics.tie_rate(games).row(0, named=True)
    assert t["tie_rate"] == 0.75 and t["games"] == 4
    # One game per deal: the clustered standard error is sqrt(p(1-p)/(n-1)), so Wilson
    # runs on n - 1 effective games.
    lo, hi = wilson(0.75, 3)
    assert (t["tie_rate_lo"], t["tie_rate_hi"]) == (approx(lo), approx(hi))
    length = metrics.summary(games.with_columns(rounds=pl.Series([4, 5, 5, 6])), "rounds")
    assert length["rounds"][0] == 5.0 and length["median"][0] == 5
    assert length["rounds_lo"][0] == pytest.approx(5 - Z * math.sqrt(2 / 3) / 2)


# ------------------------------------------------------------------ paired seat advantage
def test_seat_advantage_is_paired_over_the_rotation_of_a_deal():
    # Two players, strategies rotate: games 2d and 2d+1 are deal d with the seats swapped.
    rotated = frame([
        [("A", 10, 1.0), ("B", 5, 0.0)],  # deal 0: A wins from seat 0...
        [("B", 4, 0.0), ("A", 9, 1.0)],  # ...and from seat 1
        [("A", 7, 0.5), ("B", 7, 0.5)],  # deal 1: a tie...
        [("B", 8, 1.0), ("A", 6, 0.0)],  # ...then B wins from seat 0
        [("A", 8, 1.0), ("B", 6, 0.0)],  # deal 2 is incomplete: left out
    ], deals=[0, 0, 1, 1, 2])
    out = metrics.seat_advantage(rotated)
    seat0 = out.row(0, named=True)
    per_deal = np.array([(1.0 + 0.0) / 2, (0.5 + 1.0) / 2])  # seat 0's mean on each deal
    se = per_deal.std(ddof=1) / math.sqrt(2)
    assert seat0["paired"] and seat0["deals"] == 2 and seat0["games"] == 4
    assert seat0["fair"] == 0.5
    assert seat0["advantage"] == pytest.approx(per_deal.mean() - 0.5)
    assert seat0["advantage_lo"] == pytest.approx(per_deal.mean() - 0.5 - Z * se)
    assert seat0["advantage_hi"] == pytest.approx(per_deal.mean() - 0.5 + Z * se)
    assert out.row(1, named=True)["advantage"] == pytest.approx(-seat0["advantage"])
    assert not seat0["significant"]


def test_seat_advantage_without_rotation_uses_games():
    out = metrics.seat_advantage(TIES)
    assert not out["paired"].any()
    assert out["games"].to_list() == [4, 4, 4]
    assert out["fair"][0] == pytest.approx(1 / 3)


def test_paired_estimate_removes_the_strategy_noise():
    # Strong strategy differences, no seat effect: the paired interval is much narrower
    # than one that ignores the deals.
    rng = np.random.default_rng(3)
    f = random_frame(rng, 4000, 4, strength=[60, 1, 1, 1], rotate=True)
    paired = metrics.seat_advantage(f).row(0, named=True)
    naive = metrics.clustered_mean(f, ["seat"], ["win_share"], cluster="game").row(0, named=True)
    assert paired["advantage_hi"] - paired["advantage_lo"] < 0.5 * (
        naive["win_share_hi"] - naive["win_share_lo"])


@pytest.mark.parametrize(("players", "rotate", "tie_rate"),
                         [(2, False, 0.1), (4, True, 0.0)])
def test_a_fair_game_is_flagged_about_5_percent_of_the_time(players, rotate, tie_rate):
    """Seats that do not matter: seat 0's interval excludes zero in ~5% of runs."""
    rng = np.random.default_rng(2024 + players)
    runs = 400
    strength = [4, 2, 1, 1][:players] if rotate else None
    flags = sum(
        bool(metrics.seat_advantage(random_frame(rng, 400, players, strength, rotate,
                                                 tie_rate))["significant"][0])
        for _ in range(runs))
    rate = flags / runs
    assert 0.015 <= rate <= 0.095, rate  # 5% +- 3 binomial sd over 400 runs


def test_a_real_seat_advantage_is_flagged():
    rng = np.random.default_rng(11)
    f = random_frame(rng, 4000, 2)
    # Seat 0 wins every tenth game outright: +5 points over the fair share on average.
    biased = f.with_columns(win_share=pl.when(pl.col("game") % 10 == 0)
                            .then(1 - pl.col("seat").cast(pl.Float32))
                            .otherwise(pl.col("win_share")))
    row = metrics.seat_advantage(biased).row(0, named=True)
    assert row["significant"] and row["advantage"] > 0.02


# ------------------------------------------------------------------ scores and histograms
def test_score_distribution_and_histogram():
    out = metrics.score_distribution(TIES, "seat")
    s0 = out.row(0, named=True)
    assert (s0["min"], s0["max"], s0["median"]) == (3, 12, 10)  # nearest rank of 3, 9, 10, 12
    assert s0["score"] == pytest.approx((10 + 3 + 9 + 12) / 4)
    hist = metrics.histogram(TIES, "score", "strategy")
    a = hist.filter(pl.col("strategy") == "a")
    assert a["count"].sum() == 4 and a["share"].sum() == pytest.approx(1.0)
    b9 = hist.filter((pl.col("strategy") == "b") & (pl.col("score") == 9)).row(0, named=True)
    assert b9["count"] == 2 and b9["share"] == pytest.approx(2 / 8)


# ------------------------------------------------------------------ components
def _clustered_ratio_influence(y, m, deal):
    """Per-deal influence of the ratio sum(y)/sum(m), computed naively, deal by deal."""
    deals = np.unique(deal)
    yd = np.array([y[deal == d].sum() for d in deals])
    md = np.array([m[deal == d].sum() for d in deals])
    r = yd.sum() / md.sum()
    return r, (yd - r * md) / md.sum()


def test_component_effects_match_a_hand_computed_clustered_interval():
    rng = np.random.default_rng(7)
    f = random_frame(rng, 600, 4).with_columns(
        card=pl.Series(rng.integers(0, 3, 2400)),
        bonus=pl.Series(rng.integers(0, 5, 2400)))
    comps = [Component("Card", f"c{k}", f"Card {k}", pl.col("card") == k, "had",
                       pl.col("bonus"), "bonus") for k in range(3)]
    comps.append(Component("Card", "rare", "Rare card", pl.col("game") < 5, "had"))
    out = metrics.component_effects(f, comps)
    assert out.height == 4
    assert out["name"][-1] == "Rare card" and not out["compared"][-1]  # 20 players: too few
    assert math.isnan(out["effect"][-1])
    sizes = out.filter(pl.col("compared"))["effect"].abs().to_list()
    assert sizes == sorted(sizes, reverse=True)
    row = out.filter(pl.col("key") == "c1").row(0, named=True)
    had = f["card"].to_numpy() == 1
    deal = f["deal"].to_numpy()
    c = len(np.unique(deal))
    w = f["win_share"].to_numpy().astype(float)
    s = f["score"].to_numpy().astype(float)
    for key, values in (("effect", w), ("score_effect", s)):
        r1, e1 = _clustered_ratio_influence(values * had, had.astype(float), deal)
        r0, e0 = _clustered_ratio_influence(values * ~had, (~had).astype(float), deal)
        se = math.sqrt(c / (c - 1) * ((e1 - e0) ** 2).sum())
        assert row[key] == pytest.approx(r1 - r0, abs=1e-9)
        assert (row[f"{key}_lo"], row[f"{key}_hi"]) == (
            pytest.approx(r1 - r0 - Z * se, abs=1e-9), pytest.approx(r1 - r0 + Z * se, abs=1e-9))
    bonus = f["bonus"].to_numpy().astype(float)
    rx, ex = _clustered_ratio_influence(bonus * had, had.astype(float), deal)
    assert row["extra"] == pytest.approx(rx)
    assert row["extra_hi"] - row["extra"] == pytest.approx(
        Z * math.sqrt(c / (c - 1) * (ex ** 2).sum()))
    assert row["players_with"] == had.sum() and row["share_with"] == pytest.approx(had.mean())


def test_proportion_intervals_stay_inside_0_1():
    f = pl.DataFrame({"players": [50, 50], "clusters": [50, 50], "x": [1.0, 0.3],
                      "x_se": [0.0, 0.065]})
    out = metrics.as_proportion(f, "x")
    assert out["x_hi"][0] == 1.0 and 0.9 < out["x_lo"][0] < 1.0
    lo, hi = wilson(0.3, 0.3 * 0.7 / 0.065 ** 2)
    assert (out["x_lo"][1], out["x_hi"][1]) == (approx(lo), approx(hi))


def test_a_share_without_spread_is_exact_not_widened():
    """A strategy in every seat takes 1/N of every game: its share has no spread, and its
    interval is the share itself (Wilson's on the deal count said 25% [24.4, 25.6])."""
    f = pl.DataFrame({"players": [4000], "clusters": [1000], "x": [0.25], "x_se": [0.0]})
    out = metrics.as_proportion(f, "x")
    assert out["x_lo"][0] == out["x_hi"][0] == 0.25
    rng = np.random.default_rng(2)
    frame = random_frame(rng, 400, 4, strength=[1, 1, 1, 1], rotate=False)
    frame = frame.with_columns(strategy=pl.lit("greedy"))
    row = metrics.win_share_by(frame, "strategy").row(0, named=True)
    assert row["win_share"] == approx(0.25) and row["win_share_lo"] == row["win_share_hi"]


@pytest.mark.parametrize("tie_rate", [0.0, 0.3])
def test_wins_draws_and_losses_by_seat_count_every_game(tie_rate):
    rng = np.random.default_rng(11)
    rows = random_frame(rng, 600, 3, tie_rate=tie_rate)
    out = metrics.outcomes_by(rows, "seat").sort("seat")
    for r in out.iter_rows(named=True):
        mine = rows.filter(pl.col("seat") == r["seat"])["win_share"].to_list()
        assert r["won"] == pytest.approx(sum(s == 1 for s in mine) / len(mine))
        assert r["drew"] == pytest.approx(sum(0 < s < 1 for s in mine) / len(mine))
        assert r["won"] + r["drew"] + r["lost"] == pytest.approx(1.0)
        assert r["drew_lo"] <= r["drew"] <= r["drew_hi"]
    assert (out["drew"].sum() > 0) == (tie_rate > 0)


def test_a_report_with_draws_has_the_wins_draws_losses_table(tmp_path_factory):
    from tests.report_support import reported_run

    run, written = reported_run(tmp_path_factory)
    ties = metrics.tie_rate(metrics.per_game(pl.read_parquet(run / "games.parquet")))
    has = "Wins, draws and losses by seat" in written.html.read_text()
    assert has == (ties["tie_rate"][0] > 0)
