"""Interrupted runs resume: no game lost, none counted twice, results as if uninterrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import polars as pl
import pytest

from simkit import engine
from simkit.engine import RunSpec
from simkit.errors import SimkitError
from simkit.results import CHUNK_DIR, RUN_FILE

SPEC = RunSpec("cauldron-master", 3, ("planner", "greedy", "random"), 5000, 77)


class Stop(KeyboardInterrupt):
    pass


def stop_after(slices: int, seen: list[int] | None = None):
    """A progress callback that interrupts (as Ctrl-C would) after `slices` reports."""
    seen = [] if seen is None else seen

    def progress(n: int) -> None:
        seen.append(n)
        if len(seen) == slices:
            raise Stop

    return progress


def saved_games(out) -> int:
    return sum(int(p.stem.split("-")[2]) for p in (out / CHUNK_DIR).glob("*.arrow"))


@pytest.fixture()
def reference_run(cm, tmp_path):
    engine.run(SPEC, tmp_path / "whole", chunk_size=5000)
    return pl.read_parquet(tmp_path / "whole" / "games.parquet")


@pytest.mark.parametrize("stop_at", [1, 3, 7])
def test_interrupt_then_resume_equals_uninterrupted(reference_run, tmp_path, stop_at):
    out = tmp_path / "run"
    seen: list[int] = []
    with pytest.raises(Stop):
        engine.run(SPEC, out, chunk_size=600, progress=stop_after(stop_at, seen))
    assert (out / RUN_FILE).exists() and not (out / "manifest.json").exists()
    assert saved_games(out) == sum(seen) > 0  # every game finished is kept, mid-chunk too
    # A half-written chunk (killed mid-write) is never taken for a finished one.
    (out / CHUNK_DIR / "games-000000004200-000000600.tmp").write_bytes(b"PAR1 torn")
    manifest = engine.run(SPEC, out, chunk_size=1000)  # any chunk size: same games
    assert manifest["resumed"] and manifest["rows"] == 5000 * 3
    assert pl.read_parquet(out / "games.parquet").equals(reference_run)
    # The chunks saved before the interruption are read back from their files, those
    # played now come from memory: the file is still the same byte for byte.
    whole = tmp_path / "whole" / "games.parquet"
    assert (out / "games.parquet").read_bytes() == whole.read_bytes()
    assert not (out / CHUNK_DIR).exists() and not (out / RUN_FILE).exists()


def test_unfinished_different_run_is_refused(cm, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(Stop):
        engine.run(SPEC, out, chunk_size=1000, progress=stop_after(2))
    other = RunSpec("cauldron-master", 3, ("greedy",), 5000, 77)
    with pytest.raises(SimkitError, match="unfinished different run"):
        engine.run(other, out)
    engine.run(other, out, force=True)
    assert pl.read_parquet(out / "games.parquet")["strategy"].unique().to_list() == ["greedy"]


def test_killed_process_resumes(reference_run, tmp_path):
    """SIGKILL at a random moment mid-run, then the same command: identical results."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "simkit.cli", "run", SPEC.game, "--players", "3",
           "--strategies", ",".join(SPEC.strategies), "--games", str(SPEC.games),
           "--seed", str(SPEC.seed), "--out", str(out), "--chunk-size", "250"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        if len(list((out / CHUNK_DIR).glob("*.arrow"))) >= 3 or proc.poll() is not None:
            break
        time.sleep(0.02)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = sum(n for _, n in engine.finished_chunks(out, "games"))
    again = subprocess.run(cmd, check=True, capture_output=True, text=True)
    assert pl.read_parquet(out / "games.parquet").equals(reference_run)
    # It says it resumes, and how far the run had got, before its progress starts.
    if before:
        lines = again.stderr.splitlines()
        said = next(i for i, ln in enumerate(lines) if ln.startswith("Resuming"))
        assert f"{before:,} of {SPEC.games:,} games were played before" in lines[said]
        assert lines[said + 1].startswith(f"{SPEC.game}: {before:,}/")


def test_unwritable_output_is_a_clear_error(cm, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SimkitError, match="cannot write there|not a folder"):
        engine.run(SPEC, blocker / "run")
    with pytest.raises(SimkitError, match="exists and is not a folder"):
        engine.run(SPEC, blocker)


def test_resume_with_changed_config_is_refused(cm, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(Stop):
        engine.run(SPEC, out, chunk_size=1000, progress=stop_after(1))
    changed = RunSpec(SPEC.game, SPEC.players, SPEC.strategies, SPEC.games, SPEC.seed,
                      ("supply.size.3=9",))
    with pytest.raises(SimkitError, match="unfinished different run"):
        engine.run(changed, out)


def test_a_failed_merge_leaves_no_half_written_file(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from simkit import engine, results

    spec = engine.RunSpec("cauldron-master", 4, ("greedy",), 400, 1)
    out = tmp_path / "run"
    real = pq.ParquetWriter.write_table
    calls = {"n": 0}

    def full_disk(self, table, *a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real(self, table, *a, **k)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full_disk)
    monkeypatch.setattr(results, "ROW_GROUP", 300)  # a merge of several row groups
    with pytest.raises(engine.SimkitError, match="cannot write results"):
        engine.run(spec, out, chunk_size=100)
    assert not (out / (results.GAMES_FILE + ".partial")).exists()
    assert results.finished_chunks(out)  # the chunks stay for the rerun
    monkeypatch.setattr(pq.ParquetWriter, "write_table", real)
    assert engine.run(spec, out, chunk_size=100)["games"] == 400


@pytest.mark.parametrize("summary_only", [False, True])
def test_a_damaged_saved_chunk_is_removed_and_its_games_played_again(reference_run, tmp_path,
                                                                     summary_only):
    """A chunk truncated on disk: the rerun says so in one line and removes it (it is
    simkit's own partial file); the next rerun plays its games again and ends as an
    uninterrupted run. (Before, the error asked for --force, which resumed the same
    chunks and failed the same way: the folder was stuck.)"""
    from dataclasses import replace

    from reports.analysis import ANALYSIS
    spec = replace(SPEC, summary_only=summary_only)
    out = tmp_path / "run"
    seen: list[int] = []

    def progress(n: int) -> None:  # Ctrl-C once three chunks are saved
        seen.append(n)
        if sum(seen) >= 1800:
            raise Stop

    with pytest.raises(Stop):
        engine.run(spec, out, chunk_size=600, progress=progress, analysis=ANALYSIS)
    chunk = sorted((out / CHUNK_DIR).glob("*-000000600.*"))[1]
    chunk.write_bytes(chunk.read_bytes()[:20])
    with pytest.raises(SimkitError, match="could not be read .*so it was removed; rerun the "
                                          "same command"):
        engine.run(spec, out, chunk_size=600, analysis=ANALYSIS)
    assert not chunk.exists()
    engine.run(spec, out, chunk_size=600, analysis=ANALYSIS)
    if not summary_only:
        assert pl.read_parquet(out / "games.parquet").equals(reference_run)


def test_a_chunk_being_reduced_survives_a_ctrl_c_that_polars_takes_as_its_own():
    """polars stops its query on Ctrl-C in whatever thread runs it: the summary-only
    writer's reduction is carried to the end (the chunk's games are kept), and a Ctrl-C
    pressed three times over still stops it."""
    from simkit.engine import _reduced
    calls = []

    def flaky(rows):
        calls.append(rows)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return "totals"

    assert _reduced(flaky, "rows") == "totals" and calls == ["rows", "rows"]

    def stubborn(rows):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _reduced(stubborn, "rows")


def test_a_finished_run_with_damaged_results_is_not_taken_for_done(reference_run, tmp_path):
    """games.parquet truncated after the run: the same command says so (it said 'nothing
    to do' and --force did nothing), --force plays the run again; a torn summary.csv is
    written again from the results."""
    whole = tmp_path / "whole"
    (whole / "summary.csv").write_text("")
    assert engine.run(SPEC, whole)["skipped"]
    assert engine.summary_frame(whole).height > 0
    data = (whole / "games.parquet").read_bytes()
    (whole / "games.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(SimkitError, match="games.parquet cannot be read .*pass --force to "
                                          "play the run again"):
        engine.run(SPEC, whole)
    assert not engine.run(SPEC, whole, force=True).get("skipped")
    assert pl.read_parquet(whole / "games.parquet").equals(reference_run)
