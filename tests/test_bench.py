"""`simkit bench`: every target marked met or not, and the table as JSON. Nothing here
asserts a timing: the figures are whatever this machine measures."""

from __future__ import annotations

import json
import math
import statistics

import pytest
from click.testing import CliRunner

from simkit.bench import Row, table_json, table_text
from simkit.cli import main


def test_targets_are_marked_met_or_not():
    rows = [Row("kernel 2 threads / reference", 1500.0, "x", (">=", 1000)),
            Row("2 threads / 1 thread", 1.7, "x", (">=", 1.9)),
            Row("first game", 0.8, "s", ("<", 1.0)),
            Row("reference", math.nan, "games/s"),
            Row("a figure without a target", 12.0, "ms")]
    assert [r.met for r in rows] == [True, False, True, None, None]
    text = "\n".join(table_text(rows))
    assert ">= 1,000 met" in text and ">= 1.9 NOT MET" in text and "< 1 met" in text
    assert "targets met: 2 of 3" in text and "n/a" in text
    data = table_json(rows, {"games": 1})
    assert [r["met"] for r in data["rows"]] == [True, False, True, None, None]
    assert data["rows"][3]["value"] is None and "numba" in data["versions"]


def test_a_value_shown_never_reads_as_met_when_it_is_not():
    """Shown at two decimals, 1.8975x would read 1.90x beside ">= 1.9 NOT MET"."""
    close = Row("2 threads / 1 thread", 1.8975, "x", (">=", 1.9))
    assert not close.met and close.shown() == "1.89x"
    assert Row("first game", 0.9995, "s", ("<", 1.0)).shown() == "0.99"
    assert Row("2 threads / 1 thread", 1.9049, "x", (">=", 1.9)).shown() == "1.90x"
    assert Row("2 threads / 1 thread", 1.9, "x", (">=", 1.9)).shown() == "1.90x"  # met
    assert Row("first game", 0.29, "s", ("<", 1.0)).shown() == "0.29"
    assert Row("kernel / reference", 999.6, "x", (">=", 1000)).shown() == "999x"
    assert Row("a figure without a target", 1.8975, "x").shown() == "1.90x"


def test_the_bench_command_writes_its_table_as_json(cm, tmp_path):
    out = tmp_path / "bench.json"
    r = CliRunner().invoke(main, ["bench", "--games", "2000", "--repeats", "1",
                                  "--run-games", "0", "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    names = [row["measure"] for row in data["rows"]]
    for game in ("carnuta", "inori"):
        assert f"{game} kernel 2 threads / reference" in names
        assert f"{game} CPU per decision, 1 thread" in names
        assert f"{game} search in every seat, +-1-point verdict on 2 cores" in names
    per_decision = next(row for row in data["rows"]
                        if row["measure"] == "CPU per decision, 1 thread")
    assert per_decision["unit"] == "ns" and 0 < per_decision["value"] < 1000 * next(
        row["value"] for row in data["rows"] if row["measure"] == "CPU per game, 1 thread")
    assert not any(row["measure"].endswith("/ reference") and row["target"]
                   for row in data["rows"])  # the 1,000x target is withdrawn
    verdict = next(row for row in data["rows"]
                   if row["measure"] == "search in every seat, +-1-point verdict on 2 cores")
    per_game = next(row["value"] for row in data["rows"]
                    if row["measure"] == "search in every seat, CPU per game, 1 thread")
    assert verdict["target"] == ["<", 15] and verdict["value"] == per_game * 7200 / 2 / 60
    assert "kernel 2 threads / reference" in names and data["settings"]["games"] == 2000
    marked = [row for row in data["rows"] if row["target"] is not None]
    assert marked and all(row["met"] in (True, False) for row in marked)
    assert "targets met:" in r.output


def test_bench_of_one_game_measures_only_that_kernel(cm, tmp_path):
    """`--game` is the quick before/after of one kernel: its rows only, CPU per game first."""
    out = tmp_path / "one.json"
    r = CliRunner().invoke(main, ["bench", "--game", "cauldron-master", "--games", "2000",
                                  "--repeats", "1", "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    names = [row["measure"] for row in data["rows"]]
    assert names[0] == "CPU per game, 1 thread" and data["rows"][0]["unit"] == "us"
    assert data["rows"][0]["value"] > 0
    assert not any(n.startswith(("carnuta", "inori", "first game", "simkit run")) for n in names)
    assert data["settings"]["game"] == "cauldron-master"
    bad = CliRunner().invoke(main, ["bench", "--game", "chess"])
    assert bad.exit_code != 0 and "unknown game 'chess'" in bad.output


def test_a_table_compared_with_an_earlier_one_shows_the_change(tmp_path):
    before = table_json([Row("kernel 2 threads / reference", 800.0, "x", (">=", 1000)),
                         Row("first game", 1.2, "s", ("<", 1.0))], {"games": 1})
    assert before["commit"] is None or isinstance(before["commit"], str)
    before["commit"] = "abc1234"
    rows = [Row("kernel 2 threads / reference", 1000.0, "x", (">=", 1000)),
            Row("first game", 0.9, "s", ("<", 1.0)),
            Row("new row", 5.0, "ms")]
    text = table_text(rows, before)
    assert text[0] == "(before: commit abc1234)"
    line = next(x for x in text if x.startswith("kernel 2 threads"))
    assert "800x" in line and "+25%" in line and "met" in line
    line = next(x for x in text if x.startswith("first game"))
    assert "1.20" in line and "-25%" in line
    assert "n/a" in next(x for x in text if x.startswith("new row"))


def test_a_compare_file_that_is_not_a_bench_table_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": [1, 2]}')
    r = CliRunner().invoke(main, ["bench", "--game", "cauldron-master", "--compare", str(bad)])
    assert r.exit_code != 0
    assert r.output.strip().splitlines()[-1].endswith(
        f"--compare {bad}: not a table written by `simkit bench --json`")
    missing = CliRunner().invoke(main, ["bench", "--compare", str(tmp_path / "none.json")])
    assert missing.exit_code != 0 and "cannot read it" in missing.output


def test_a_ratio_is_taken_round_by_round_so_a_change_in_load_falls_on_both():
    """A shared machine's load changes while the bench runs. Two figures measured one after
    the other read that change as a change in their ratio; measured in turn, round by
    round, both carry it and the ratio stays true."""
    from simkit.bench import alternated, ratio

    now = [0.0]
    calls = [0]

    def work(cost: float):
        def fn() -> None:
            calls[0] += 1
            slow = 3.0 if calls[0] > 6 else 1.0  # the machine slows 3x halfway through
            now[0] += cost * slow
        return fn

    one, two = work(2.0), work(1.0)  # a 2nd thread that truly adds 2x
    rounds = alternated([one, two], 6, clock=lambda: now[0])
    assert [len(r) for r in rounds] == [2] * 6
    assert ratio(rounds, 0, 1) == 2.0
    # Measured one after the other (the way the bench did), the slowdown hits only the
    # second figure, and the 2nd thread seems to add less than 1x.
    now[0], calls[0] = 0.0, 0
    firsts = [r[0] for r in alternated([one], 6, clock=lambda: now[0])]
    seconds = [r[0] for r in alternated([two], 6, clock=lambda: now[0])]
    assert statistics.median(firsts) / statistics.median(seconds) < 1.0


def test_the_run_rows_hold_summary_only_runs_to_the_kernels_pace(monkeypatch):
    """Every game gets a --summary-only row: its pace over the kernel's 2 threads measured
    just before and after it, held to 0.9, and its peak memory, held under 500 MB, after a
    tiny summary-only run that warms the reduction; a run writing every row is measured
    but held to no pace (games.parquet's encoding)."""
    from simkit import bench

    paces = iter([100.0, 300.0] * 6)  # the kernel's seconds before and after each run
    monkeypatch.setattr(bench, "_median_time", lambda fn, repeats, clock=None: next(paces))
    monkeypatch.setattr(bench, "alternated", lambda fns, repeats: [[2.0, 1.0, 500.0]])
    monkeypatch.setattr(bench, "simulator", lambda *a: (lambda: None))
    monkeypatch.setattr(bench, "reference_player", lambda *a: (lambda: None))
    monkeypatch.setattr(bench, "cpu_per_game", lambda *a: 10.0)
    monkeypatch.setattr(bench, "decisions_per_game", lambda *a: 40.0)
    monkeypatch.setattr(bench, "kernel_rate", lambda *a: 1.0)
    monkeypatch.setattr(bench, "search_cost", lambda *a: (1.0, 0.01))
    monkeypatch.setattr(bench, "first_game_seconds", lambda repeats: 0.5)
    monkeypatch.setattr(bench, "engine_seconds", lambda *a, **k: 1.0)
    runs = []

    def full_run(n, summary_only=False, game="cauldron-master"):
        runs.append((game, summary_only, n))
        return (5.0, 300.0, 4.0) if summary_only else (4.0, 350.0, 3.0)
    monkeypatch.setattr(bench, "full_run", full_run)
    table = bench.run_bench(1000, 1, 100, lambda line: None)
    rows = {r.measure: r for r in table}
    assert len(rows) == len(table)  # every measure named once (--compare pairs them by name)
    # Each timed summary-only run follows a tiny one that compiles the reduction (the
    # users' steady case, as the kernel is warmed before it is timed).
    assert runs == [run for g in bench.SHARE for run in (
        (g, False, 100), (g, True, bench.WARM_SUMMARY_GAMES), (g, True, 100))]
    for game in bench.SHARE:
        prefix = "" if game == "cauldron-master" else f"{game} "
        pace = rows[f"{prefix}simkit run --summary-only / kernel 2 threads"]
        kernel = ((1000 // bench.SHARE[game]) / 100 + (1000 // bench.SHARE[game]) / 300) / 2
        assert pace.value == pytest.approx(100 / 5.0 / kernel)
        assert pace.target == (">=", 0.9)
        assert rows[f"{prefix}simkit run --summary-only peak memory"].target == ("<", 500)
        assert rows[f"{prefix}simkit run / kernel 2 threads"].target is None
        assert rows[f"{prefix}CPU per decision, 1 thread"].value == pytest.approx(250.0)
