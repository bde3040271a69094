"""Running sweeps: every point equals a standalone run, resume, refusal, the sweep report."""

from __future__ import annotations

import json

import polars as pl
import pytest
from click.testing import CliRunner

from simkit import engine
from simkit import sweeps as sweep
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.results import CHUNK_DIR

GAMES = 900
BASE = dict(players=3, strategies=["planner", "greedy", "random"], games=GAMES, seed=21)
VARY = ["supply.size.3=9,11", "param:planner.discount=0.1,0.5"]


class Stop(KeyboardInterrupt):
    pass


def stop_after(chunks: int, chunk: int = 300):
    """Interrupt (as Ctrl-C would) once `chunks` chunks' worth of games are played."""
    seen = []

    def progress(n: int) -> None:
        seen.append(n)
        if sum(seen) >= chunks * chunk:
            raise Stop

    return progress


def _spec(**kw):
    return sweep.make_spec("cauldron-master", vary=kw.pop("vary", VARY), **(BASE | kw))


def _frames(out, points):
    return {p.name: pl.read_parquet(out / p.name / "games.parquet") for p in points}


@pytest.fixture(scope="module")
def whole(cm, tmp_path_factory):
    """A 2x2 sweep played without interruption."""
    out = tmp_path_factory.mktemp("sweep") / "whole"
    p = sweep.plan(_spec())
    record = sweep.run_sweep(p, out, chunk_size=300)
    return out, p, record


def test_every_point_equals_a_standalone_run(whole, tmp_path):
    out, p, record = whole
    assert [pt["status"] for pt in record["points"]] == ["played"] * 4
    assert (out / sweep.SWEEP_FILE).exists()
    for pt in p.points:
        alone = tmp_path / pt.name
        spec = engine.RunSpec("cauldron-master", 3, ("planner", "greedy", "random"), GAMES, 21,
                              pt.run.overrides, pt.run.params)
        engine.run(spec, alone, chunk_size=GAMES)
        assert pl.read_parquet(alone / "games.parquet").equals(
            pl.read_parquet(out / pt.name / "games.parquet")), pt.name
        manifest = json.loads((out / pt.name / "manifest.json").read_text())
        assert manifest["identity"] == json.loads((alone / "manifest.json").read_text())[
            "identity"]
    # The points really differ, and they share their deals (common random numbers).
    frames = _frames(out, p.points)
    first, *rest = frames.values()
    assert all(not f.equals(first) for f in rest)
    assert all(f["deal"].equals(first["deal"]) for f in rest)


@pytest.mark.parametrize("stop_at", [2, 3, 7])  # in point 0; its last chunk; in point 2
def test_resume_after_interruption_is_identical(whole, tmp_path, stop_at):
    out_whole, p, _ = whole
    out = tmp_path / "sweep"
    with pytest.raises(Stop):
        sweep.run_sweep(sweep.plan(_spec()), out, chunk_size=300, progress=stop_after(stop_at))
    record = json.loads((out / sweep.SWEEP_FILE).read_text())
    assert not record["finished"]
    half = [pt for pt in p.points if (out / pt.name / CHUNK_DIR).exists()]
    assert len(half) == 1  # one point was left half-played
    record = sweep.run_sweep(sweep.plan(_spec()), out, chunk_size=200)  # any chunk size
    assert record["finished"] and record["resumed"]
    statuses = [pt["status"] for pt in record["points"]]
    assert "resumed" in statuses
    assert (statuses.count("done before") == (stop_at - 1) // 3)
    whole_frames, frames = _frames(out_whole, p.points), _frames(out, p.points)
    assert all(frames[k].equals(whole_frames[k]) for k in whole_frames)
    again = sweep.run_sweep(sweep.plan(_spec()), out)  # a third time: nothing to do
    assert {pt["status"] for pt in again["points"]} == {"done before"}


def test_changed_spec_into_the_same_folder_is_refused(whole):
    out, _, _ = whole
    for changed in (_spec(vary=["supply.size.3=9,10", "param:planner.discount=0.1,0.5"]),
                    _spec(seed=22), _spec(vary=VARY[:1])):
        with pytest.raises(SimkitError, match="holds a different sweep"):
            sweep.run_sweep(sweep.plan(changed), out)


def test_a_folder_that_is_not_a_sweep_is_refused(cm, tmp_path):
    (tmp_path / "x.txt").write_text("mine")
    with pytest.raises(SimkitError, match="holds no simkit sweep"):
        sweep.run_sweep(sweep.plan(_spec(games=10)), tmp_path)


def test_sweep_report_heat_maps_and_single_run_report(whole, tmp_path):
    from reports import make_report
    from reports.sweep import make_sweep_report

    out, p, _ = whole
    written = make_sweep_report(out, tmp_path / "rep")
    page = written.html.read_text()
    assert "Where every target passes" in page and "Targets passed" in page
    assert page.count("data:image/png;base64") >= 8  # heat maps
    verdicts = pl.read_csv(tmp_path / "rep" / "report_tables" / "sweep_verdicts.csv")
    assert verdicts.height == 4
    order = list(zip((~verdicts["all_pass"]).to_list(), (-verdicts["passed"]).to_list(),
                     strict=True))
    assert order == sorted(order)  # every target passing first, then the most passed
    length = pl.read_csv(tmp_path / "rep" / "report_tables" / "sweep_game_length.csv")
    assert length.height == 4 and (length["estimate_lo"] <= length["estimate"]).all()
    single = make_report(out / p.points[0].name, tmp_path / "single")  # points are runs
    assert "balance report" in single.html.read_text()


def test_cli_sweep_spec_file_then_report(cm, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "cauldron-master"\nplayers = 3\nstrategies = ["greedy"]\n'
                    'games = 100000\nseed = 3\n[vary]\n"supply.size.3" = "9..11"\n')
    out = tmp_path / "sw"
    runner = CliRunner()
    result = runner.invoke(main, ["sweep", str(spec), "--games", "300", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "sweep overhead" in result.output
    record = json.loads((out / sweep.SWEEP_FILE).read_text())
    assert record["games_per_point"] == 300 and len(record["points"]) == 3
    again = runner.invoke(main, ["sweep", str(spec), "--games", "300", "--out", str(out)])
    assert "nothing to do" in again.output
    refused = runner.invoke(main, ["sweep", str(spec), "--games", "400", "--out", str(out)])
    assert refused.exit_code != 0 and "different sweep" in refused.output
    rep = runner.invoke(main, ["report", str(out)])
    assert rep.exit_code == 0 and "sweep report" in rep.output, rep.output
    # The verdicts by point in the terminal too: a header, then one line per point.
    lines = rep.output.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("point "))
    assert "seat advantage" in lines[head] and lines[head].endswith("passed")
    assert len(lines[head + 1:]) == 3 and all(" of " in ln for ln in lines[head + 1:])
    # in the order of the swept value, whichever passes more targets
    assert [ln.split()[2] for ln in lines[head + 1:]] == ["9", "10", "11"]
    html = (out / "report.html").read_text()
    assert "supply.size.3" in html and "against supply.size.3" in html
    bad = runner.invoke(main, ["sweep", "cauldron-master", "--vary", "supply.size.3=9..7",
                               "--out", str(tmp_path / "bad")])
    assert bad.exit_code != 0 and "is empty" in bad.output and "Traceback" not in bad.output


def test_killed_sweep_process_resumes(whole, tmp_path):
    """SIGKILL the `simkit sweep` process mid-sweep, then the same command: identical."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out_whole, p, _ = whole
    out = tmp_path / "sweep"
    cmd = [sys.executable, "-m", "simkit.cli", "sweep", "cauldron-master", "--vary", VARY[0],
           "--vary", VARY[1], "--players", "3", "--strategies", "planner,greedy,random",
           "--games", str(GAMES), "--seed", "21", "--out", str(out), "--chunk-size", "150"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if len(list(out.glob(f"*/{CHUNK_DIR}/*.arrow"))) >= 2 or (
                out / p.points[1].name / "manifest.json").exists():
            break
        time.sleep(0.01)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    subprocess.run(cmd, check=True, capture_output=True)
    whole_frames, frames = _frames(out_whole, p.points), _frames(out, p.points)
    assert all(frames[k].equals(whole_frames[k]) for k in whole_frames)
