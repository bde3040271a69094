"""The "does it hold for stronger players" section: `simkit report RUN --stronger OTHER`."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from reports import make_report, metrics
from reports.analysis import ANALYSIS
from reports.hooks import hooks_for
from reports.load import Run, open_run
from reports.stronger import CHANGES, FLIPS, NO_CHANGE, stronger_section, verdict
from reports.targets import load_targets
from simkit import engine
from simkit.cli import main
from tests.report_support import small_run

STRONG = ("planner", "planner", "planner", "planner")
_MADE: dict[tuple, Path] = {}


def made(tmp_path_factory: pytest.TempPathFactory, game: str, players: int,
         strategies: tuple[str, ...], games: int, summary_only: bool = False) -> Path:
    """A small real run, simulated once per session."""
    key = (game, players, strategies, games, summary_only)
    if key not in _MADE:
        out = tmp_path_factory.mktemp("stronger") / "run"
        engine.run(engine.RunSpec(game, players, strategies, games, 5,
                                  summary_only=summary_only), out, analysis=ANALYSIS)
        _MADE[key] = out
    return _MADE[key]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    weak = small_run(tmp_path_factory)  # planner, greedy, random, greedy; 2,000 games
    strong = made(tmp_path_factory, "cauldron-master", 4, STRONG, 2000)
    return weak, strong


def _advantages(path: Path) -> list[str]:
    """The seat advantages of a run as the report prints them (e.g. '+1.2')."""
    seats = metrics.seat_advantage(open_run(path).source)
    return [f"{v * 100:+.1f}".replace("-", "\u2212") for v in seats["advantage"]]


def test_section_shows_both_runs(runs, tmp_path):
    weak, strong = runs
    written = make_report(weak, tmp_path / "out", stronger=strong)
    text = written.summary.read_text()
    assert "Does it hold for stronger players?" in text
    section = text.split("Does it hold for stronger players?")[1].split("\n## ")[0]
    for value in _advantages(weak) + _advantages(strong):
        assert value in section
    assert str(strong) in section and str(weak) in section
    seat_rows = [line for line in section.splitlines() if line.startswith("| 1st player")]
    # both runs' intervals and the difference's
    assert len(seat_rows) == 1 and seat_rows[0].count("[") == 5
    csv = pl.read_csv(tmp_path / "out" / "report_tables" / "stronger_seat_advantage.csv")
    assert csv.height == 4
    assert {"advantage", "advantage_b", "change", "verdict"} <= set(csv.columns)
    assert set(csv["verdict"]) <= {FLIPS, CHANGES, NO_CHANGE}
    assert csv["paired"].all()  # both runs keep their rows: the seats paired deal by deal
    comps = pl.read_csv(tmp_path / "out" / "report_tables" / "stronger_components.csv")
    assert 1 <= comps.height <= 5
    assert {"effect", "effect_b"} <= set(comps.columns)
    assert "stronger" in (tmp_path / "out" / "report.html").read_text()
    # without --stronger there is no such section
    plain = make_report(weak, tmp_path / "plain")
    assert "Does it hold for stronger players?" not in plain.summary.read_text()


def test_summary_only_other_run_gives_the_same_numbers(runs, tmp_path_factory, tmp_path):
    weak, strong = runs
    summary = made(tmp_path_factory, "cauldron-master", 4, STRONG, 2000, summary_only=True)
    rows = make_report(weak, tmp_path / "rows", stronger=strong)
    summ = make_report(weak, tmp_path / "summ", stronger=summary)
    for name in ("stronger_seat_advantage.csv", "stronger_components.csv"):
        a = pl.read_csv(rows.tables[0].parent / name)
        b = pl.read_csv(summ.tables[0].parent / name)
        if name.startswith("stronger_seat"):  # the estimates agree; only rows pair deals
            assert a["paired"].all() and not b["paired"].any()
            a, b = (f.select("seat", "advantage", "advantage_lo", "advantage_b",
                             "advantage_b_hi", "change") for f in (a, b))
            assert_frame_equal(a, b, check_exact=False, rel_tol=1e-9)  # float rounding
            continue
        assert a.equals(b), name
    # and as the main run
    main_summary = make_report(summary, tmp_path / "main", stronger=weak)
    assert "Does it hold for stronger players?" in main_summary.summary.read_text()


def _with_component(run: Run, column: str, had: pl.Expr) -> Run:
    assert run.frame is not None
    frame = run.frame.with_columns(had.cast(run.frame.schema[column]).alias(column))
    return Run(run.path, run.manifest, frame)


def test_a_flipped_component_effect_changes(runs):
    weak, _ = runs
    run = open_run(weak)
    hooks = hooks_for(run.game)
    targets = load_targets(None, run.game)
    witch = next(c for c in run.frame.columns if c.startswith("witch_"))
    # Constructed: the witch goes with winning in one run and with losing in the other.
    good = _with_component(run, witch, pl.col("win_share") > 0)
    bad = _with_component(run, witch, pl.col("win_share") == 0)
    section = stronger_section(good, bad, targets, hooks)
    table = next(b for b in section.blocks if getattr(b, "csv", "") == "stronger_components")
    row = table.frame.filter(pl.col("key") == witch.removeprefix("witch_")).row(0, named=True)
    assert row["effect_lo"] > 0 and row["effect_b_hi"] < 0
    assert row["verdict"] == FLIPS
    notes = " ".join(b.text for b in section.blocks if hasattr(b, "text"))
    assert "Component effects flip" in notes
    # The same run against itself: no change anywhere (a paired difference of exactly 0)
    same = stronger_section(run, run, targets, hooks)
    for block in same.blocks:
        if hasattr(block, "frame"):
            assert set(block.frame["verdict"]) == {NO_CHANGE}


@pytest.mark.parametrize("a,b,paired,expected", [
    ((0.05, 0.03, 0.07), (0.04, 0.02, 0.06), (), NO_CHANGE),  # independent, close
    ((0.00, -0.02, 0.02), (0.01, -0.01, 0.03), (), NO_CHANGE),  # neither clear
    ((0.05, 0.03, 0.07), (-0.05, -0.07, -0.03), (), FLIPS),  # opposite sides, real
    ((0.10, 0.08, 0.12), (0.03, 0.01, 0.05), (), CHANGES),  # same sign, far apart
    ((0.02, 0.01, 0.03), (0.00, -0.02, 0.02), (), NO_CHANGE),  # clear in one run only
    ((float("nan"),) * 3, (0.0, -0.01, 0.01), (), NO_CHANGE),  # not estimated
    # overlapping intervals, but on the same deals the difference is real: the overlap
    # rule read this as "holds"
    ((0.05, 0.03, 0.07), (0.04, 0.02, 0.06), (-0.015, -0.005), CHANGES),
])
def test_verdict(a, b, paired, expected):
    assert verdict(*a, *b, *paired) == expected


def _cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _one_error_line(result, message: str) -> None:
    assert result.exit_code != 0
    out = result.output.strip()
    assert out.startswith("Error:") and "\n" not in out and message in out, out


def test_cli_report_with_stronger(runs, tmp_path):
    weak, strong = runs
    result = _cli("report", str(weak), "--out", str(tmp_path / "r"), "--stronger", str(strong))
    assert result.exit_code == 0, result.output
    assert "Does it hold" in (tmp_path / "r" / "summary.md").read_text()
    result = _cli("run", "cauldron-master", "--players", "4", "--strategies", "greedy",
                  "--games", "200", "--seed", "5", "--out", str(tmp_path / "g"), "--report",
                  "--stronger", str(strong))
    assert result.exit_code == 0, result.output
    assert "Does it hold" in (tmp_path / "g" / "summary.md").read_text()


def test_errors(runs, tmp_path_factory, tmp_path):
    weak, _ = runs
    out = str(tmp_path / "r")
    _one_error_line(_cli("report", str(weak), "--out", out, "--stronger",
                         str(tmp_path / "nowhere")), "no such folder")
    carnuta = made(tmp_path_factory, "carnuta", 4, ("greedy",), 200)
    _one_error_line(_cli("report", str(weak), "--out", out, "--stronger", str(carnuta)),
                    "a carnuta run, but this run is cauldron-master")
    three = made(tmp_path_factory, "cauldron-master", 3, ("greedy",), 300)
    _one_error_line(_cli("report", str(weak), "--out", out, "--stronger", str(three)),
                    "3 players, but this run has 4")
    _one_error_line(_cli("run", "cauldron-master", "--players", "4", "--strategies", "greedy",
                         "--games", "100", "--out", str(tmp_path / "x"), "--stronger",
                         str(weak)), "--stronger only applies with --report")
    _one_error_line(_cli("run", "cauldron-master", "--players", "3", "--strategies", "greedy",
                         "--games", "100", "--out", str(tmp_path / "x"), "--report",
                         "--stronger", str(weak)), "4 players, but this run has 3")
    assert not (tmp_path / "x" / "games.parquet").exists()  # refused before playing
