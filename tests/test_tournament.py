"""`simkit tournament`: lineups, the win matrix's counting, ratings on a constructed case with
a known order, a real tournament with a known order, determinism, files and errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from simkit import tournaments as tn
from simkit.cli import main
from simkit.errors import SimkitError

ORDER = ("random", "greedy", "planner")  # Carnuta, 2 players: planner > greedy > random


@pytest.fixture(scope="module")
def carnuta_result():
    plan = tn.plan(tn.TournamentSpec("carnuta", 2, ORDER, 600, 5))
    return tn.play(plan)


def _strip(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("elapsed_seconds", "created")}


def test_lineups_cover_every_strategy_evenly():
    assert tn.lineups_of(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert len(tn.lineups_of(5, 3)) == 10
    # Fewer strategies than seats: every multiset using each strategy at least once.
    assert tn.lineups_of(2, 4) == [(0, 0, 0, 1), (0, 0, 1, 1), (0, 1, 1, 1)]
    seats = np.bincount(np.ravel(tn.lineups_of(3, 4)), minlength=3)
    assert len(set(seats.tolist())) == 1  # no strategy holds more seats overall


def test_pair_counting_by_hand():
    """Two deals of a 3-seat game: ahead counts 2, a tie 1 (ties are halves), per deal."""
    totals = tn.Totals(3, 3)
    tid = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2], [1, 2, 0], [2, 0, 1]])
    rank = np.array([[1, 2, 3], [1, 1, 3], [2, 1, 3], [3, 2, 1], [1, 2, 3], [1, 2, 2]])
    share = np.zeros_like(rank)
    pair_y, pair_m, _, _ = tn._accumulate(totals, tid, rank, share, 2)
    y = pair_y.reshape(3, 3, 2)
    m = pair_m.reshape(3, 3, 2)
    assert m[0, 1].tolist() == [3, 3] and m[0, 0].tolist() == [0, 0]
    # Deal 0: 0 ahead of 1 in games 0 and 2, behind in game 1; 1 and 2 tie in game 1.
    assert y[0, 1, 0] == 2 + 0 + 2 and y[1, 0, 0] == 2
    assert y[1, 2, 0] == 2 + 1 + 0
    # Deal 1: 0 behind 1 in games 3 and 4, tied in game 5.
    assert y[0, 1, 1] == 0 + 0 + 1
    assert (y[0, 1] + y[1, 0] == 2 * m[0, 1]).all()  # each comparison shares 2 points


def test_ratings_recover_a_constructed_order():
    """0 always finishes ahead of 1, 1 ahead of 2, in every seat: the ratings say so."""
    ratings = tn.Ratings(3)
    seatings = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    for _ in range(30):
        for seats in seatings:
            ratings.update(seats, [t + 1 for t in seats])
    mu = [r[0] for r in ratings.table()]
    assert mu[0] > mu[1] > mu[2]
    # A strategy in two seats (fewer strategies than seats) gets one averaged rating.
    twice = tn.Ratings(2)
    for _ in range(20):
        twice.update((0, 0, 1), [1, 2, 3])
        twice.update((1, 0, 0), [3, 1, 2])
    assert twice.table()[0][0] > twice.table()[1][0]


def test_known_order_in_ratings_and_matrix(carnuta_result):
    standings = carnuta_result.standings()
    assert [r["strategy"] for r in standings] == ["planner", "greedy", "random"]
    ahead = {(r["strategy"], r["opponent"]): r for r in carnuta_result.matrix()}
    for better, worse in (("planner", "greedy"), ("greedy", "random"), ("planner", "random")):
        assert ahead[(better, worse)]["ahead_lo"] > 0.5, (better, worse)
        assert ahead[(better, worse)]["ahead"] + ahead[(worse, better)]["ahead"] == \
            pytest.approx(1.0)
        assert ahead[(better, worse)]["comparisons"] == 600  # one per game of that lineup
        assert ahead[(better, worse)]["deals"] == 300
    shares = {r["strategy"]: r["win_share"] for r in standings}
    assert shares["planner"] > shares["greedy"] > shares["random"]


def test_deterministic_and_independent_of_chunking(carnuta_result):
    again = tn.play(tn.plan(tn.TournamentSpec("carnuta", 2, ORDER, 600, 5)), chunk_deals=7)
    assert again.ratings == carnuta_result.ratings
    assert again.matrix() == carnuta_result.matrix()
    assert again.standings() == carnuta_result.standings()
    other = tn.play(tn.plan(tn.TournamentSpec("carnuta", 2, ORDER, 600, 6)))
    assert other.ratings != carnuta_result.ratings


def test_fewer_strategies_than_seats():
    result = tn.play(tn.plan(tn.TournamentSpec("carnuta", 4, ("random", "greedy"), 80, 1)))
    assert len(result.plan.lineups) == 3 and result.plan.total_games == 240
    ahead = {(r["strategy"], r["opponent"]): r for r in result.matrix()}
    # aaab: 3 comparisons a game, aabb: 4, abbb: 3 -> 80 * 10
    assert ahead[("greedy", "random")]["comparisons"] == 800
    assert ahead[("greedy", "random")]["ahead"] > 0.5
    assert result.standings()[0]["strategy"] == "greedy"


def test_cli_writes_every_file_and_refuses_a_different_tournament(cm, tmp_path):
    runner = CliRunner()
    out = tmp_path / "tour"
    args = ["tournament", "cauldron-master", "--players", "2", "--strategies",
            "random,greedy,planner", "--games", "100", "--seed", "2", "--out", str(out)]
    result = runner.invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "3 lineups x 100 games" in result.output and "Ordinal" in result.output
    for name in ("tournament.json", "tournament.html", "tournament.md", "ratings.csv",
                 "win_matrix.csv"):
        assert (out / name).exists(), name
    record = json.loads((out / "tournament.json").read_text())
    assert record["command"].startswith("simkit tournament cauldron-master --players 2")
    assert record["games"] == 300 and len(record["win_matrix"]) == 6
    ratings = pl.read_csv(out / "ratings.csv")
    assert ratings.columns[:5] == ["place", "strategy", "mu", "sigma", "ordinal"]
    matrix = pl.read_csv(out / "win_matrix.csv")
    assert {"strategy", "opponent", "ahead", "ahead_lo", "ahead_hi"} <= set(matrix.columns)
    page = (out / "tournament.html").read_text()
    assert page.count("data:image/png;base64,") == 2 and "Win matrix" in page
    assert "http" not in page.replace(record["command"], "")  # self-contained
    again = runner.invoke(main, args, catch_exceptions=False)
    assert "nothing to do" in again.output
    changed = [*args[:9], "3", *args[10:]]  # another seed
    refused = runner.invoke(main, changed, catch_exceptions=False)
    assert refused.exit_code == 1 and "different tournament" in refused.output
    forced = runner.invoke(main, [*changed, "--force"], catch_exceptions=False)
    assert forced.exit_code == 0
    assert json.loads((out / "tournament.json").read_text())["seed"] == 3


@pytest.mark.parametrize("strategies, players, message", [
    ("greedy", 2, "at least 2 strategies"),
    ("greedy,greedy", 2, "greedy more than once"),
    ("greedy,nobody", 2, "unknown strategy 'nobody'"),
    ("greedy,random", 9, "not 9"),
    ("greedy,planner@missing.toml", 2, "missing.toml: no such file"),
])
def test_bad_input_is_one_clear_line(cm, tmp_path, strategies, players, message):
    result = CliRunner().invoke(main, ["tournament", "cauldron-master", "--players",
                                       str(players), "--strategies", strategies, "--games",
                                       "10", "--out", str(tmp_path / "t")])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_plan_rejects_bad_numbers():
    with pytest.raises(SimkitError, match="--games must be at least 1"):
        tn.plan(tn.TournamentSpec("carnuta", 2, ORDER, 0, 1))
    with pytest.raises(SimkitError, match="--chunk-size"):
        tn.play(tn.plan(tn.TournamentSpec("carnuta", 2, ORDER, 2, 1)), chunk_deals=0)


RESUME = ["tournament", "carnuta", "--players", "2", "--strategies", "random,greedy,planner",
          "--games", "300", "--seed", "4", "--chunk-size", "40"]  # 150 deals: 4 chunks x 3
FINAL = ("tournament.json", "win_matrix.csv", "ratings.csv", "tournament.md", "tournament.html")


def _interrupt_after(monkeypatch, calls: int) -> list[int]:
    """Make tournament's lineup simulation raise KeyboardInterrupt on call `calls` + 1;
    returns the list counting the calls that played."""
    played: list[int] = []
    real = tn._simulate

    def simulate(p, index, d0, cd, slicers=None):
        if len(played) == calls:
            raise KeyboardInterrupt
        played.append(index)
        return real(p, index, d0, cd, slicers)

    monkeypatch.setattr(tn, "_simulate", simulate)
    return played


@pytest.mark.parametrize("stop_after, resume_chunk", [(2, "40"), (4, "40"), (6, "40"),
                                                     (7, "25")])
def test_interrupted_tournament_resumes_to_the_same_bytes(tmp_path, monkeypatch, stop_after,
                                                          resume_chunk):
    """Stopped in the first chunk (after 2 lineup-chunks), mid-chunk (after 4: chunk 2's
    first lineup is saved), at a chunk boundary (6) or resumed with another --chunk-size:
    no game is lost or played twice, and the files equal an uninterrupted run's byte for
    byte."""
    runner = CliRunner()
    out = tmp_path / "tour"  # the same folder (it is in the command tournament.json holds)
    whole = runner.invoke(main, [*RESUME, "--out", str(out)], catch_exceptions=False)
    assert whole.exit_code == 0, whole.output
    out.rename(tmp_path / "whole")
    with monkeypatch.context() as m:
        first = _interrupt_after(m, stop_after)
        stopped = runner.invoke(main, [*RESUME, "--out", str(out)])
    assert stopped.exit_code == 130 and len(first) == stop_after
    assert "run the same command again to resume" in stopped.output
    assert not (out / "tournament.json").exists()
    assert (out / tn.PROGRESS_FILE).exists()
    # Another tournament into the unfinished folder is refused, naming the command.
    other = runner.invoke(main, [*RESUME[:-3], "5", *RESUME[-2:], "--out", str(out)])
    assert other.exit_code == 1
    assert "holds an unfinished different tournament (simkit tournament carnuta" in other.output
    with monkeypatch.context() as m:
        second = _interrupt_after(m, 10 ** 6)
        args = [*RESUME[:-1], resume_chunk, "--out", str(out)]
        resumed = runner.invoke(main, args, catch_exceptions=False)
    assert resumed.exit_code == 0, resumed.output
    # 80 games per lineup and chunk; another chunk size replays the unfinished chunk.
    before = 80 * (stop_after if resume_chunk == "40" else stop_after // 3 * 3)
    assert f"Resuming: {before:,} of 900 games were played before." in resumed.output
    assert f"Played {900 - before:,} games" in resumed.output
    if resume_chunk == "40":
        assert len(first) + len(second) == 12  # 4 chunks x 3 lineups, each played once
    for name in FINAL:
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert not (out / tn.PROGRESS_FILE).exists() and not (out / tn.PARTS_DIR).exists()
    timing = json.loads((out / tn.TIMING_FILE).read_text())
    assert timing["sessions"] == 2 and timing["elapsed_seconds"] > 0
    again = runner.invoke(main, args, catch_exceptions=False)
    assert "nothing to do" in again.output



def test_ctrl_c_inside_a_lineups_chunk_keeps_its_finished_deals(tmp_path, monkeypatch):
    """Ctrl-C in the middle of a lineup's chunk: the deals it finished are saved and not
    played again; the resumed tournament has the bytes of an uninterrupted one."""
    from simkit import slices

    runner = CliRunner()
    out = tmp_path / "tour"
    assert runner.invoke(main, [*RESUME, "--out", str(out)]).exit_code == 0
    out.rename(tmp_path / "whole")
    played: list[int] = []

    class Tiny(slices.Slicer):  # slices of one deal; Ctrl-C during the 50th
        def __init__(self, play, *a, **k):
            def counted(first, n):
                played.append(n)
                if len(played) == 50:
                    raise KeyboardInterrupt
                return play(first, n)
            super().__init__(counted, *a, **k)
            self.seconds = 1e-12
            self.min_slice = self.size = self.step  # one deal

    with monkeypatch.context() as m:
        m.setattr(tn, "Slicer", Tiny)
        stopped = runner.invoke(main, [*RESUME, "--out", str(out)])
    assert stopped.exit_code == 130, stopped.output
    heads = sorted(p.name for p in (out / tn.PARTS_DIR).glob("*_first_*.npz"))
    assert heads == ["deals_0_40_lineup_1_first_9.npz"]  # 49 slices: 40 + 9 deals
    resumed = runner.invoke(main, [*RESUME, "--out", str(out)], catch_exceptions=False)
    assert "Resuming: 98 of 900 games were played before." in resumed.output
    for name in FINAL:
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name


def test_a_killed_tournament_process_resumes(tmp_path):
    """A real `simkit tournament` process killed (SIGKILL) once it has saved progress; the
    same command finishes it with the bytes of an uninterrupted run."""
    args = ["tournament", "carnuta", "--players", "2", "--strategies",
            "random,greedy,planner", "--games", "6000", "--seed", "9", "--chunk-size", "50"]
    out = tmp_path / "tour"
    runner = CliRunner()
    assert runner.invoke(main, [*args, "--out", str(out)]).exit_code == 0
    out.rename(tmp_path / "whole")
    exe = Path(sys.executable).with_name("simkit")
    proc = subprocess.Popen([str(exe), *args, "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (out / tn.PROGRESS_FILE).exists() and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    if proc.returncode == 0:
        pytest.skip("the tournament finished before it could be killed")
    assert not (out / "tournament.json").exists()
    resumed = runner.invoke(main, [*args, "--out", str(out)], catch_exceptions=False)
    assert resumed.exit_code == 0 and "Resuming: " in resumed.output
    for name in FINAL:
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name


def test_force_replaces_an_unfinished_tournament(tmp_path, monkeypatch):
    out = tmp_path / "tour"
    runner = CliRunner()
    with monkeypatch.context() as m:
        _interrupt_after(m, 2)
        assert runner.invoke(main, [*RESUME, "--out", str(out)]).exit_code == 130
    assert list((out / tn.PARTS_DIR).iterdir())  # the first two lineups of chunk 1 saved
    other = [*RESUME[:-3], "5", *RESUME[-2:], "--out", str(out), "--force"]
    result = runner.invoke(main, other, catch_exceptions=False)
    assert result.exit_code == 0 and "Resuming" not in result.output
    assert json.loads((out / "tournament.json").read_text())["seed"] == 5
    assert not (out / tn.PROGRESS_FILE).exists() and not (out / tn.PARTS_DIR).exists()
