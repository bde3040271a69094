"""`simkit bench`: speed and memory of the game kernels, measured, never asserted.

Prints one table: kernel games/s on 1 and 2 threads (4 players, greedy in every seat),
the plain-Python reference's games/s and the ratio, time to the first game in a fresh
process with a warm compile cache, and a full `simkit run` of a million games (wall time
and peak memory), also with --summary-only. Figures are medians of `repeats` measurements
taken in this one run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba

from simkit.engine import build_lineup
from simkit.games import get_game

ROOT = Path(__file__).resolve().parent.parent
FIRST_GAME = """
import time
t0 = time.perf_counter()
from simkit.games import get_game
from simkit.engine import build_lineup
g = get_game("cauldron-master"); c = g.compile(g.load_config())
g.simulate(c, build_lineup(g, ["greedy"], 4), 1, 0, 1)
print(time.perf_counter() - t0)
"""


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kernel_rate(strategy: str, threads: int, n_games: int, repeats: int,
                game_name: str = "cauldron-master") -> float:
    game = get_game(game_name)
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, [strategy], 4)
    game.simulate(compiled, lineup, 0, 0, 100)  # compile or load the cache
    numba.set_num_threads(threads)
    try:
        return n_games / _median_time(
            lambda: game.simulate(compiled, lineup, 7, 0, n_games), repeats)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def reference_rate(n_games: int, repeats: int, game_name: str = "cauldron-master"
                   ) -> float | None:
    """Games/s of tests/reference, greedy in 4 seats (a source checkout only)."""
    sys.path.insert(0, str(ROOT))
    try:
        import importlib

        play = importlib.import_module(f"tests.reference.{game_name.replace('-', '_')}").play
    except ImportError:
        return None
    finally:
        sys.path.pop(0)
    if game_name in ("carnuta", "inori"):
        params = [list(build_lineup(get_game(game_name), ["greedy"], 4).params[0])] * 4
        return n_games / _median_time(
            lambda: [play((), 4, 7, g, ["greedy"] * 4, params) for g in range(n_games)],
            repeats)
    return n_games / _median_time(
        lambda: [play((), 4, 7, g, ["greedy"] * 4) for g in range(n_games)], repeats)


def first_game_seconds(repeats: int) -> float:
    """Wall time of a fresh interpreter from start to its first simulated game."""
    cmd = [sys.executable, "-c", FIRST_GAME]
    subprocess.run(cmd, check=True, capture_output=True)  # make sure the cache is warm
    return _median_time(lambda: subprocess.run(cmd, check=True, capture_output=True), repeats)


RUN_AND_REPORT_PEAK = """
import resource, runpy, sys
sys.argv = ["simkit"] + sys.argv[1:]
try:
    runpy.run_module("simkit.cli", run_name="__main__")
except SystemExit as exc:
    if exc.code:
        raise
print("PEAK_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def full_run(n_games: int, summary_only: bool = False) -> tuple[float, float]:
    """Wall seconds and peak MB of `simkit run` for n_games (4 players, greedy).

    The run reports its own peak resident memory, so other child processes of this one
    (a dask cluster, say) cannot inflate it.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", RUN_AND_REPORT_PEAK, "run", "cauldron-master",
               "--players", "4", "--strategies", "greedy", "--games", str(n_games),
               "--seed", "1", "--out", str(Path(tmp) / "run")]
        cmd += ["--summary-only"] if summary_only else []
        start = time.perf_counter()
        done = subprocess.run(cmd, check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - start
    peak_kb = int(done.stderr.rsplit("PEAK_KB", 1)[1].split()[0])
    return seconds, peak_kb / 1024


def engine_seconds(n_games: int, chunk_size: int, workers: int | None = None) -> float:
    """Wall seconds of engine.run (simulate, write chunks, merge) into a temporary folder."""
    from simkit.engine import RunSpec, run

    spec = RunSpec("cauldron-master", 4, ("greedy",), n_games, 3)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run(spec, Path(tmp) / "run", chunk_size=chunk_size, workers=workers)
        return time.perf_counter() - start


def run_bench(n_games: int, repeats: int, run_games: int, echo: Callable[[str], None]) -> None:
    rows: list[tuple[str, str, str]] = []

    def row(what: str, value: str, target: str = "") -> None:
        rows.append((what, value, target))
        echo(f"  measured: {what}: {value}")

    echo(f"Cauldron Master, 4 players; medians of {repeats}; {n_games:,} games per measure")
    rates = {}
    for threads in (1, 2):
        rates[threads] = kernel_rate("greedy", threads, n_games, repeats)
        target = ">= 250,000" if threads == 2 else ""
        row(f"kernel greedy, {threads} thread(s) [games/s]", f"{rates[threads]:,.0f}", target)
    for strategy in ("random", "planner"):
        rate = kernel_rate(strategy, 2, n_games // 4, repeats)
        row(f"kernel {strategy}, 2 threads [games/s]", f"{rate:,.0f}")
    row("2 threads / 1 thread", f"{rates[2] / rates[1]:.2f}x")
    ref = reference_rate(max(50, n_games // 2000), repeats)
    if ref is None:
        row("reference [games/s]", "n/a (no tests/reference in this install)")
    else:
        row("reference greedy, plain Python [games/s]", f"{ref:,.0f}")
        row("kernel 2 threads / reference", f"{rates[2] / ref:,.0f}x", ">= 100x")
    echo("Carnuta, 4 players, greedy")
    carnuta = {th: kernel_rate("greedy", th, n_games // 8, repeats, "carnuta") for th in (1, 2)}
    row("carnuta kernel greedy, 1 thread [games/s]", f"{carnuta[1]:,.0f}")
    row("carnuta kernel greedy, 2 threads [games/s]", f"{carnuta[2]:,.0f}", ">= 50,000")
    ref = reference_rate(max(20, n_games // 20000), repeats, "carnuta")
    if ref is not None:
        row("carnuta reference, plain Python [games/s]", f"{ref:,.0f}")
        row("carnuta kernel 2 threads / reference", f"{carnuta[2] / ref:,.0f}x", ">= 100x")
    echo("Inori, 4 players, greedy")
    inori = {th: kernel_rate("greedy", th, n_games // 8, repeats, "inori") for th in (1, 2)}
    row("inori kernel greedy, 1 thread [games/s]", f"{inori[1]:,.0f}")
    row("inori kernel greedy, 2 threads [games/s]", f"{inori[2]:,.0f}", ">= 100,000")
    row("inori kernel planner, 2 threads [games/s]",
        f"{kernel_rate('planner', 2, n_games // 16, repeats, 'inori'):,.0f}")
    ref = reference_rate(max(20, n_games // 20000), repeats, "inori")
    if ref is not None:
        row("inori reference, plain Python [games/s]", f"{ref:,.0f}")
        row("inori kernel 2 threads / reference", f"{inori[2] / ref:,.0f}x", ">= 100x")
    row("first game, fresh process, warm cache [s]", f"{first_game_seconds(repeats):.2f}",
        "< 1.5")
    few, many = engine_seconds(n_games, n_games), engine_seconds(n_games, n_games // 32)
    row("overhead per extra chunk [ms]", f"{(many - few) / 31 * 1000:.1f}",
        "chunks of 1e5+ games: < 2% each")
    threaded = engine_seconds(n_games, n_games // 4)
    clustered = engine_seconds(n_games, n_games // 4, workers=2)
    row(f"engine.run {n_games:,} games, 2 threads [games/s]", f"{n_games / threaded:,.0f}")
    row(f"engine.run {n_games:,} games, --workers 2 [games/s]", f"{n_games / clustered:,.0f}",
        "incl. cluster start-up")
    if run_games:
        seconds, peak = full_run(run_games)
        row(f"simkit run {run_games:,} games, wall [s]", f"{seconds:.1f}",
            "< 10 (1e6 games, once compiled)")
        row("simkit run peak memory [MB]", f"{peak:,.0f}", "< 500")
        seconds, peak = full_run(run_games, summary_only=True)
        row(f"simkit run --summary-only {run_games:,} games, wall [s]", f"{seconds:.1f}")
        row("simkit run --summary-only peak memory [MB]", f"{peak:,.0f}",
            "< 1,000, flat in the games")
    width = max(len(r[0]) for r in rows)
    echo("")
    echo(f"{'measure':{width}}  {'value':>14}  target")
    for what, value, target in rows:
        echo(f"{what:{width}}  {value:>14}  {target}")
