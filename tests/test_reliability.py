"""Nothing lost, nothing outside touched: a catalogue of bad inputs, concurrent starts,
kills and full disks at every file write, symbolic links, Ctrl-C within a second."""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from simkit import engine, folders
from simkit.cli import main
from simkit.engine import RunSpec
from simkit.errors import SimkitError
from simkit.results import CHUNK_DIR, check_coverage
from tests.catalogue import CATALOGUE, make_fixtures

SPEC = RunSpec("cauldron-master", 3, ("planner", "greedy", "random"), 3000, 5)


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


# ------------------------------------------------------------------ the catalogue
@pytest.fixture(scope="module")
def scratch(tmp_path_factory, cm):
    t = tmp_path_factory.mktemp("catalogue")
    run = t / "_run"
    r = cli("run", "cauldron-master", "--games", "40", "--out", str(run), "--report")
    assert r.exit_code == 0, r.output
    make_fixtures(t, run)
    return t


def test_the_catalogue_is_long():
    assert len(CATALOGUE) >= 100
    assert len({cid for cid, _, _ in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize("cid,args,expect", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_bad_input_is_one_error_line(scratch, cid, args, expect):
    r = cli(*[a.replace("{t}", str(scratch)) for a in args])
    errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
    assert r.exit_code not in (0, None), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    assert len(errors) == 1 and expect in errors[0], r.output
    # nothing written, and nothing that is not simkit's touched
    for out in ("o", "s", "tt", "v", "p.toml"):
        assert not (scratch / out).exists() or not any((scratch / out).iterdir())
    assert (scratch / "notes" / "mine.txt").read_text() == "the user's own file"
    assert (scratch / "elsewhere" / "keep.csv").exists()
    assert sorted(p.name for p in (scratch / "nonrun").iterdir()) == ["data.csv"]


# ------------------------------------------------------------------ locks
def test_two_runs_into_one_folder_one_refuses_and_nothing_is_lost(cm, tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "simkit.cli", "run", "cauldron-master", "--players", "4",
           "--strategies", "planner", "--games", "24000", "--chunk-size", "2000",
           "--out", str(out)]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    second = subprocess.run(cmd, capture_output=True, text=True)
    out1, err1 = first.communicate(timeout=300)
    codes = sorted([first.returncode, second.returncode])
    outputs = err1 + second.stderr
    if codes == [0, 0]:  # the first had finished (or not started) before the second
        assert "already holds this exact run" in out1 + second.stdout
    else:
        assert codes == [0, 1]
        assert "is being written by another simkit process (pid" in outputs
        assert socket.gethostname() in outputs
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["games"] == 24000 and manifest["rows"] == 96000
    import polars as pl

    games = pl.read_parquet(out / "games.parquet")["game"]
    assert games.n_unique() == 24000 and games.max() == 23999


def hold_lock(folder) -> subprocess.Popen:
    """Another process holding `folder`'s lock (for a minute, or until killed)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from simkit.folders import locked\n"
         "with locked(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(60)",
         str(folder)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_live_lock_is_refused_naming_its_owner(cm, tmp_path):
    out = tmp_path / "run"
    holder = hold_lock(out)
    try:
        with pytest.raises(SimkitError, match=f"another simkit process \\(pid {holder.pid} on"):
            engine.run(SPEC, out)
        # The command refuses before it prints anything else (no progress line first).
        cli = subprocess.run([sys.executable, "-m", "simkit.cli", "run", SPEC.game,
                              "--players", str(SPEC.players), "--strategies",
                              ",".join(SPEC.strategies), "--games", str(SPEC.games),
                              "--out", str(out)], capture_output=True, text=True)
        assert cli.returncode == 1 and cli.stdout == ""
        assert cli.stderr.startswith("Error: ") and "another simkit process" in cli.stderr
    finally:
        holder.kill()
        holder.wait()
    engine.run(SPEC, out)
    # A report takes the lock too: a run replacing the folder meanwhile would leave a
    # report of another run beside its results.
    holder = hold_lock(out)
    try:
        rep = subprocess.run([sys.executable, "-m", "simkit.cli", "report", str(out)],
                             capture_output=True, text=True)
        assert rep.returncode == 1 and "another simkit process" in rep.stderr
        assert not (out / "report.html").exists()
    finally:
        holder.kill()
        holder.wait()
    # killed: its lock file stays, but nobody holds it, so the next run takes it over
    assert (out / folders.LOCK_FILE).exists()
    assert engine.run(SPEC, out)["games"] == SPEC.games
    assert not (out / folders.LOCK_FILE).exists()


def test_chunks_that_overlap_or_leave_a_gap_are_never_merged():
    check_coverage([(0, 10), (10, 5)], 15)
    with pytest.raises(SimkitError, match="overlap at game 5"):
        check_coverage([(0, 10), (5, 10)], 15)
    with pytest.raises(SimkitError, match="leave a gap at game 10"):
        check_coverage([(0, 10), (12, 3)], 15)
    with pytest.raises(SimkitError, match="hold 10 games, not 15"):
        check_coverage([(0, 10)], 15)


# ------------------------------------------------------------------ kills and full disks
class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, no handler sees it."""


@pytest.fixture(scope="module")
def reference(tmp_path_factory, cm):
    out = tmp_path_factory.mktemp("ref") / "run"
    engine.run(SPEC, out, chunk_size=3000)
    return {n: (out / n).read_bytes() for n in ("games.parquet", "summary.csv")}


def _count_writes(tmp_path) -> int:
    calls = [0]
    real = os.replace

    def counting(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    os.replace = counting
    try:
        engine.run(SPEC, tmp_path / "count", chunk_size=700)
    finally:
        os.replace = real
    return calls[0]


@pytest.mark.parametrize("fault", ["kill", "disk full"])
def test_a_fault_at_every_file_write_then_rerun_gives_the_same_bytes(cm, tmp_path, reference,
                                                                     monkeypatch, fault):
    writes = _count_writes(tmp_path)
    assert writes >= 8  # chunks, run.json, games.parquet, summary.csv, manifest.json
    real = os.replace
    for k in range(1, writes + 1):
        out = tmp_path / f"run{k}"
        calls = [0]

        def faulty(*a, _k=k, _calls=calls, **kw):
            _calls[0] += 1
            if _calls[0] == _k:
                if fault == "kill":
                    raise Killed
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(*a, **kw)

        monkeypatch.setattr(os, "replace", faulty)
        expected = Killed if fault == "kill" else SimkitError
        with pytest.raises(expected):
            engine.run(SPEC, out, chunk_size=700)
        monkeypatch.setattr(os, "replace", real)
        (out / folders.LOCK_FILE).unlink(missing_ok=True)  # as a killed process leaves it
        engine.run(SPEC, out, chunk_size=1100)  # the same command, another chunk size
        for name, data in reference.items():
            assert (out / name).read_bytes() == data, (k, name)
        assert sorted(p.name for p in out.iterdir()) == ["games.parquet", "manifest.json",
                                                          "summary.csv"], k


# ------------------------------------------------------------------ --force and links
def test_force_replaces_only_simkit_files(cm, tmp_path):
    out = tmp_path / "run"
    engine.run(SPEC, out, chunk_size=1000)
    (out / "my_notes.txt").write_text("mine")
    (out / "report_tables").mkdir()
    (out / "report_tables" / "my_table.csv").write_text("a\n1\n")
    other = RunSpec("cauldron-master", 3, ("greedy",), 600, 5)
    engine.run(other, out, force=True)
    assert (out / "my_notes.txt").read_text() == "mine"
    assert (out / "report_tables" / "my_table.csv").exists()  # not listed as the report's
    assert json.loads((out / "manifest.json").read_text())["games"] == 600


@pytest.mark.parametrize("sub", [CHUNK_DIR, "report_tables"])
def test_force_never_follows_a_symlinked_subfolder(cm, tmp_path, sub):
    out = tmp_path / "run"
    engine.run(SPEC, out, chunk_size=1000)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "games-000000000000-000001000.parquet").write_text("not simkit's")
    (elsewhere / "scorecard.csv").write_text("not simkit's")
    shutil.rmtree(out / sub, ignore_errors=True)
    (out / sub).symlink_to(elsewhere)
    other = RunSpec("cauldron-master", 3, ("greedy",), 600, 5)
    with pytest.raises(SimkitError, match="is a symbolic link"):
        engine.run(other, out, force=True)
    assert sorted(p.name for p in elsewhere.iterdir()) == [
        "games-000000000000-000001000.parquet", "scorecard.csv"]


def test_report_out_replaces_its_own_tables_and_refuses_a_strangers_folder(cm, tmp_path):
    run = tmp_path / "run"
    engine.run(SPEC, run, chunk_size=1000)
    dest = tmp_path / "rep"
    assert cli("report", str(run), "--out", str(dest)).exit_code == 0
    index = (dest / "report_tables" / "index.csv").read_text().splitlines()
    assert index[0] == "file,title" and len(index) > 3
    assert cli("report", str(run), "--out", str(dest)).exit_code == 0  # its own: replaced
    (dest / "report_tables" / "mine.csv").write_text("x\n")
    r = cli("report", str(run), "--out", str(dest))
    assert r.exit_code == 1 and "holds files simkit did not write (mine.csv)" in r.output
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "summary.md").write_text("my own summary")
    r = cli("report", str(run), "--out", str(stranger))
    assert r.exit_code == 1 and "holds no simkit report" in r.output
    # `run --report` asks before it plays: the run in the folder is not replaced first.
    (run / "report_tables").mkdir(exist_ok=True)
    (run / "report_tables" / "mine.csv").write_text("x\n")
    before = (run / "games.parquet").read_bytes()
    r = cli("run", SPEC.game, "--players", "3", "--games", "700", "--out", str(run),
            "--report", "--force")
    assert r.exit_code == 1 and "holds files simkit did not write (mine.csv)" in r.output
    assert (run / "games.parquet").read_bytes() == before
    assert (stranger / "summary.md").read_text() == "my own summary"


# ------------------------------------------------------------------ Ctrl-C
def test_ctrl_c_stops_within_about_a_second_and_keeps_the_games(cm, tmp_path):
    """One chunk of a million planner games: Ctrl-C must not wait for the chunk."""
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit.cli", "run", "cauldron-master", "--players", "4",
         "--strategies", "planner", "--games", "1000000", "--chunk-size", "1000000",
         "--threads", "1", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not (out / "run.json").exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(2.0)  # playing now
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    waited = time.perf_counter() - sent
    assert proc.returncode == 130, err
    assert "Interrupted" in err and "Traceback" not in err
    assert waited < 2.5, waited  # a slice is about half a second
    kept = [p for p in (out / CHUNK_DIR).glob("games-*.arrow")]
    assert len(kept) == 1 and kept[0].name.startswith("games-000000000000-")
    assert int(kept[0].stem.split("-")[2]) > 0
    assert not (out / folders.LOCK_FILE).exists()


def test_games_parquet_is_the_same_bytes_whatever_the_chunks(cm, tmp_path, reference):
    for size in (250, 999, 3000):
        out = tmp_path / f"c{size}"
        engine.run(SPEC, out, chunk_size=size)
        assert (out / "games.parquet").read_bytes() == reference["games.parquet"], size


def _games_file_bytes(table) -> bytes:
    """games.parquet's bytes for `table`, written as GamesFile writes them."""
    import io

    from simkit.results import ROW_GROUP, parquet_writer

    sink = io.BytesIO()
    writer = parquet_writer(sink, table.schema)
    for start in range(0, table.num_rows, ROW_GROUP):
        writer.write_table(table.slice(start, ROW_GROUP), row_group_size=ROW_GROUP)
    writer.close()
    return sink.getvalue()


def test_games_parquet_is_the_same_bytes_in_another_process(cm, tmp_path):
    """A strategy in two seats is one dictionary entry: listed twice, Arrow filled the
    repeated entry's bytes with whatever its memory held, so two runs of the same seed,
    each in its own process, wrote different files."""
    files = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        subprocess.run([sys.executable, "-m", "simkit.cli", "run", "cauldron-master",
                        "--players", "3", "--strategies", "planner,greedy,planner",
                        "--games", "500", "--seed", "5", "--out", str(out)],
                       check=True, capture_output=True)
        files.append((out / "games.parquet").read_bytes())
    assert files[0] == files[1]


def test_arrow_columns_built_from_buffers_equal_pyarrows_own():
    """results.numbers / texts / named build columns without `pa.array` (which imports
    pandas): they must equal what pyarrow's own conversion gives, booleans included."""
    import numpy as np
    import pyarrow as pa

    from simkit.results import named, numbers, texts

    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64,
                  np.bool_):
        for n in (0, 1, 7, 8, 9, 1000):
            values = (rng.integers(-100, 100, n) > 0 if dtype is np.bool_
                      else rng.integers(-100, 100, n).astype(dtype))
            assert numbers(values).equals(pa.array(values)), (dtype, n)
            assert numbers(values[::3]).equals(pa.array(values[::3])), (dtype, n)
    names = ["greedy", "", "planner", "Ärger", "greedy"]
    assert texts(names).equals(pa.array(names, type=pa.string()))
    column = named(np.array([0, 4, 2, 3, 1, 4], np.int64), names)
    assert column.to_pylist() == ["greedy", "greedy", "planner", "Ärger", "", "greedy"]
    assert column.dictionary.to_pylist() == ["greedy", "", "planner", "Ärger"]


def test_games_parquet_is_the_same_bytes_whatever_the_slices(cm):
    """A chunk's slices (timed, so different in every run) go into the file as record
    batches of their own, unjoined: the bytes are those of the chunk in one piece."""
    from simkit.results import long_table, long_table_of_slices

    p = engine.prepare(SPEC)
    whole = p.game.simulate(p.compiled, p.lineup, SPEC.seed, 0, 3000)
    categories = p.game.categories(p.compiled)
    names = list(p.lineup.names)
    cuts = [0, 1, 700, 1024, 2999, 3000]
    slices = [{k: v[a:b] for k, v in whole.items()} for a, b in itertools.pairwise(cuts)]
    table = long_table_of_slices(slices, 0, p.lineup.rotate, names, categories)
    assert table.column("game").num_chunks == len(slices)
    one = long_table(whole, 0, p.lineup.rotate, names, categories)
    assert table.equals(one)
    assert _games_file_bytes(table) == _games_file_bytes(one)


# ------------------------------------------------------------------ slices
def _fake_play(first: int, n: int):
    import numpy as np

    g = np.arange(first, first + n, dtype=np.int64)
    return {"score": np.stack([g * 3, g * 5], axis=1), "rounds": g % 7}


def test_slices_join_to_the_same_columns_whatever_their_sizes():
    import numpy as np
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from simkit.slices import Slicer

    @settings(max_examples=60, deadline=None)
    @given(first=st.integers(0, 10**6), n=st.integers(1, 500), step=st.sampled_from([1, 2, 4]),
           seconds=st.floats(1e-7, 1e-3), min_slice=st.integers(1, 9))
    def check(first, n, step, seconds, min_slice):
        n = n * step
        slicer = Slicer(_fake_play, min_slice, step=step)
        slicer.seconds = seconds  # tiny budgets: many slices of varied sizes
        got = slicer.chunk(first, n)
        want = _fake_play(first, n)
        assert all(np.array_equal(got[k], want[k]) for k in want)

    check()


def test_an_interrupt_between_slices_keeps_exactly_the_games_played():
    import numpy as np

    from simkit.slices import Interrupted, Slicer

    told: list[int] = []

    def progress(k: int) -> None:
        told.append(k)
        if len(told) == 3:
            raise KeyboardInterrupt

    slicer = Slicer(_fake_play, 2, progress=progress)
    slicer.seconds = 1e-9  # every slice is the smallest
    with pytest.raises(Interrupted) as stop:
        slicer.chunk(100, 50)
    assert stop.value.done == sum(told) == 6
    assert np.array_equal(stop.value.columns["rounds"], _fake_play(100, 6)["rounds"])
    assert isinstance(stop.value.cause, KeyboardInterrupt)


def test_a_plug_in_stuck_in_a_loop_stops_at_the_second_ctrl_c(cm, tmp_path):
    stuck = tmp_path / "stuck.py"
    stuck.write_text("def choose(opts, n, pub, params, state):\n    i = 0\n"
                     "    while i >= 0:\n        i = (i + 1) % 1000\n    return 0\n")
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit.cli", "run", "cauldron-master", "--games", "1000",
         "--strategies", f"{stuck}:choose", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not (out / "run.json").exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    time.sleep(1.5)
    assert proc.poll() is None  # the first Ctrl-C waits for the slice in play...
    proc.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    _, err = proc.communicate(timeout=30)  # ...the second does not
    assert proc.returncode == 130 and time.perf_counter() - sent < 3
    assert "Ctrl-C again stops at once" in err and "Traceback" not in err
    assert (out / "run.json").exists()  # the same command resumes


def test_damaged_partial_files_are_one_line_with_a_way_forward(tmp_path):
    """A value chunk that is not a zip (killed mid-write, a full disk), and a sweep record
    without points: one line each, never a traceback; the value chunk is removed so that
    the same command plays its games again."""
    from reports.sweep import sweep_record
    from simkit import valuation

    bad = tmp_path / "value-000000000000-000004000.npz"
    bad.write_bytes(b"PK\x03\x04 torn")
    with pytest.raises(SimkitError, match="could not be read .*removed; rerun the same command"):
        valuation._load([bad], 3)
    assert not bad.exists()
    (tmp_path / "sweep.json").write_text("{}")
    with pytest.raises(SimkitError, match="not a readable sweep record"):
        sweep_record(tmp_path)


def test_ctrl_c_gives_up_a_long_slice_at_its_next_stop_point():
    """A value run's slice plays the game once per component; on Ctrl-C it stops at the
    next call instead of playing them all (a dear player's slice took a dozen seconds)."""
    import _thread
    import threading
    import time

    import numpy as np

    from simkit.slices import Interrupted, Slicer, stop_point

    calls: list[int] = []

    def play(first: int, n: int) -> dict:
        for _ in range(100):  # a slice of 100 "kernel calls" of 10 ms each
            stop_point()
            calls.append(first)
            time.sleep(0.01)
        return _fake_play(first, n)

    threading.Timer(0.2, _thread.interrupt_main).start()
    with pytest.raises(Interrupted) as stop:
        Slicer(play, 4).chunk(4, 8)
    assert len(calls) < 100  # given up at a stop point, not played to the end
    assert stop.value.done == 0 and stop.value.columns is None  # its games: dropped
    calls.clear()
    got = Slicer(play, 4).chunk(0, 4)  # the next slice plays to its end again
    assert len(calls) == 100 and np.array_equal(got["rounds"], _fake_play(0, 4)["rounds"])
