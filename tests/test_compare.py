"""`simkit compare`: paired differences over shared deals, and clear errors."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from reports.compare import compare_runs, paired_difference
from reports.stats import Z
from simkit import engine
from simkit.cli import main
from simkit.errors import SimkitError

CHANGE = "ingredients.spider_venom.scores=[1,3,7,11]"  # one point more for 3 or 4 cards


def _run(root, name, games=400, seed=11, overrides=(), strategies=("random",), players=3):
    out = root / name
    engine.run(engine.RunSpec("cauldron-master", players, strategies, games, seed,
                              tuple(overrides)), out, chunk_size=games)
    return out


@pytest.fixture(scope="module")
def runs(cm, tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    return root, _run(root, "a"), _run(root, "b", overrides=[CHANGE])


def test_pairing_detects_a_small_scoring_change_with_few_games(runs):
    _, a, b = runs
    c = compare_runs(a, b)
    row = c.frame.filter(c.frame["metric"] == "Mean score").row(0, named=True)
    # The change can only add points: the paired interval sees it after 400 games (though
    # not yet REAL once the false discovery rate over all rows is controlled: z = 2.0)...
    assert row["diff"] > 0 and row["diff_lo"] > 0
    # ...while the unpaired interval (two independent runs) cannot tell it from zero,
    assert row["unpaired_lo"] < 0 < row["unpaired_hi"]
    # and would need far more games to: games ~ n (Z se / diff)^2.
    se_paired = (row["diff_hi"] - row["diff_lo"]) / (2 * Z)
    se_unpaired = (row["unpaired_hi"] - row["unpaired_lo"]) / (2 * Z)
    needed_paired = 400 * (Z * se_paired / row["diff"]) ** 2
    needed_unpaired = 400 * (Z * se_unpaired / row["diff"]) ** 2
    assert needed_paired <= 400 < 100 * needed_paired < needed_unpaired
    # Random players ignore the scores: the games themselves are identical.
    length = c.frame.filter(c.frame["metric"] == "Game length (rounds)").row(0, named=True)
    assert length["diff"] == 0 and not length["real"]


def test_paired_difference_of_identical_runs_is_zero(runs):
    from reports.load import open_run

    _, a, _ = runs
    f = open_run(a).frame
    d = paired_difference(f, f, "score", ["seat"])
    assert d.height == 3 and (d["diff"] == 0).all() and (d["diff_se"] == 0).all()
    assert (d["unpaired_se"] > 0).all()
    assert all(math.isfinite(x) for x in d["a"])


def test_mismatched_runs_are_refused(runs):
    root, a, _ = runs
    for name, kw, what in [("seed", {"seed": 12}, "different seeds"),
                           ("games", {"games": 300}, "different numbers of games"),
                           ("players", {"players": 4}, "different player counts")]:
        other = _run(root, f"other-{name}", **kw)
        with pytest.raises(SimkitError, match=what):
            compare_runs(a, other)
    with pytest.raises(SimkitError, match="no such folder"):
        compare_runs(a, root / "missing")


def test_cli_compare(runs, tmp_path):
    _, a, b = runs
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Mean score" in result.output and "REAL" in result.output
    assert (tmp_path / "compare.csv").exists() and (tmp_path / "compare.md").exists()
    bad = CliRunner().invoke(main, ["compare", str(a), str(tmp_path)])
    assert bad.exit_code != 0 and "Error" in bad.output and "Traceback" not in bad.output


def test_chance_alone_rarely_makes_a_row_real():
    """With 25 rows and nothing changed, "the 95% interval excludes zero" flags at least one
    row in about 72% of comparisons; after the false discovery rate control, about 5%."""
    from reports.compare import real_after_fdr
    from reports.stats import Z

    rng = np.random.default_rng(11)
    any_real = any_naive = 0
    for _ in range(400):
        d = rng.normal(0, 1, 25)
        frame = pl.DataFrame({"diff": d, "diff_lo": d - Z, "diff_hi": d + Z})
        any_real += any(real_after_fdr(frame))
        any_naive += bool((np.abs(d) > Z).any())
    assert any_naive / 400 > 0.6 and any_real / 400 <= 0.08
    big = pl.DataFrame({"diff": [10.0, 0.1], "diff_lo": [10 - Z, 0.1 - Z],
                        "diff_hi": [10 + Z, 0.1 + Z]})
    assert real_after_fdr(big) == [True, False]


def test_an_exact_tie_is_not_real_whatever_its_rounding():
    """25% against 25% summed in another order differs by 5e-17 with no spread: no
    difference at all, not a certain one. A real difference without spread stays real."""
    from reports.compare import real_after_fdr

    frame = pl.DataFrame({"diff": [5.5e-17, 0.02, 0.0], "diff_lo": [5.5e-17, 0.02, 0.0],
                          "diff_hi": [5.5e-17 + 1e-17, 0.02, 0.0]})
    assert real_after_fdr(frame) == [False, True, False]


def test_float_rounding_with_a_spread_is_not_real():
    """The same win shares summed by another grouping differ by about 1e-10, with a spread
    of the same order: an all-greedy "win share by strategy" row read REAL at +0.00. A
    small difference measured with a small spread stays real."""
    from reports.compare import real_after_fdr

    frame = pl.DataFrame({"a": [0.25, 0.25], "b": [0.25, 0.251],
                          "diff": [1.2e-10, 1e-3], "diff_lo": [1e-11, 9.9e-4],
                          "diff_hi": [2.3e-10, 1.01e-3]})
    assert real_after_fdr(frame) == [False, True]


def _naive_paired(fa: pl.DataFrame, fb: pl.DataFrame, value: str, by: str) -> dict:
    """The paired difference per group written out in plain Python (the module's formula)."""
    out = {}
    for g in sorted({str(x) for x in fa[by]} | {str(x) for x in fb[by]}):
        sides = []
        for f in (fa, fb):
            y: dict[int, float] = {}
            m: dict[int, int] = {}
            for d, v, k in zip(f["deal"], f[value], f[by], strict=True):
                if str(k) == g:
                    y[d] = y.get(d, 0.0) + float(v)
                    m[d] = m.get(d, 0) + 1
            sides.append((y, m))
        deals = sorted(set(sides[0][0]) | set(sides[1][0]))
        (ya, ma), (yb, mb) = sides
        mean_a, mean_b = sum(ya.values()) / sum(ma.values()), sum(yb.values()) / sum(mb.values())
        e = [(yb.get(d, 0) - mean_b * mb.get(d, 0)) / sum(mb.values())
             - (ya.get(d, 0) - mean_a * ma.get(d, 0)) / sum(ma.values()) for d in deals]
        c = len(deals)
        out[g] = (mean_b - mean_a, math.sqrt(c / (c - 1) * sum(x * x for x in e)), c)
    return out


def test_paired_difference_matches_a_plain_python_reference(runs):
    from reports.load import open_run

    _, a, b = runs
    fa, fb = open_run(a).frame, open_run(b).frame
    # A deal only one side played (B's first 40 games dropped) counts on its side alone.
    fb = fb.filter(pl.col("game") >= 40)
    d = paired_difference(fa, fb, "score", ["seat"])
    naive = _naive_paired(fa, fb, "score", "seat")
    assert d["seat"].to_list() == sorted(naive)
    for r in d.iter_rows(named=True):
        diff, se, deals = naive[r["seat"]]
        assert r["deals"] == deals
        assert r["diff"] == pytest.approx(diff, rel=1e-12, abs=1e-12)
        assert r["diff_se"] == pytest.approx(se, rel=1e-9)


def test_paired_difference_is_the_same_bytes_every_call(runs):
    # polars' parallel group-by summed the floats in a varying order, so identical reruns
    # of `simkit compare` differed in a last digit (3 hashes in 6 reruns).
    from reports import metrics
    from reports.load import open_run

    _, a, b = runs
    fa, fb = open_run(a).frame, open_run(b).frame
    # 20,000 deals (the size that showed it): the runs' 400 deals copied under new numbers.
    fa, fb = (pl.concat([f.with_columns(pl.col("deal") + 400 * k) for k in range(50)])
              for f in (fa, fb))
    ga, gb = (metrics.per_game(f).with_columns(pl.col("tie").cast(pl.Float64))
              for f in (fa, fb))
    for f, g, value, by in [(fa, fb, "win_share", ["seat"]), (ga, gb, "tie", None)]:
        first = paired_difference(f, g, value, by)
        for _ in range(8):
            again = paired_difference(f, g, value, by)
            assert again.equals(first, null_equal=True)  # every float equal to the last bit
