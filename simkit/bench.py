"""`simkit bench`: speed and memory of the game kernels, measured, never asserted.

Prints one table: kernel games/s on 1 and 2 threads (4 players, greedy in every seat),
its CPU per decision, the plain-Python reference's games/s and the ratio, time to the
first game in a fresh process with a warm compile cache, and a full `simkit run` of a
million games of each game (wall time from the interpreter's start, against the kernel's
2-thread rate, and peak memory), writing every row and with --summary-only (after a tiny
summary-only run that compiles the reduction, as the kernel is warmed before it is
timed). Figures are medians of `repeats` measurements taken in this one run.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.ladders import load_ladder
from simkit.threads import using

ROOT = Path(__file__).resolve().parent.parent
FIRST_GAME = """
from simkit.games import get_game
from simkit.engine import build_lineup
g = get_game("cauldron-master"); c = g.compile(g.load_config())
g.simulate(c, build_lineup(g, ["greedy"], 4), 1, 0, 1)
print("played", flush=True)
"""


def _median_time(fn: Callable[[], object], repeats: int,
                 clock: Callable[[], float] = time.perf_counter) -> float:
    return statistics.median(times[0] for times in alternated([fn], repeats, clock))


def alternated(fns: Sequence[Callable[[], object]], repeats: int,
               clock: Callable[[], float] = time.perf_counter) -> list[list[float]]:
    """Seconds of each of `fns` in `repeats` rounds, one call of each per round, in turn:
    [[round 1's times], [round 2's] ...]. A ratio of two figures is then taken round by
    round (`ratio`): the load a shared machine puts on a round falls on both."""
    rounds = []
    for _ in range(repeats):
        times = []
        for fn in fns:
            start = clock()
            fn()
            times.append(clock() - start)
        rounds.append(times)
    return rounds


def ratio(rounds: list[list[float]], slow: int, fast: int) -> float:
    """The median over rounds of time[slow] / time[fast]: how many times quicker `fast` is."""
    return statistics.median(r[slow] / r[fast] for r in rounds)


def simulator(game_name: str, strategy: str, threads: int, n_games: int
              ) -> Callable[[], object]:
    """A call that simulates n_games of 4 players of `strategy` on `threads` threads (its
    kernel compiled or loaded from the cache first)."""
    game = get_game(game_name)
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, [strategy], 4)
    game.simulate(compiled, lineup, 0, 0, 100)  # compile or load the cache

    def play() -> None:
        with using(threads):
            game.simulate(compiled, lineup, 7, 0, n_games)
    return play


def _simulate_seconds(game_name: str, strategy: str, threads: int, n_games: int,
                      repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Median seconds (by `clock`) of simulating n_games, 4 players of `strategy`."""
    return _median_time(simulator(game_name, strategy, threads, n_games), repeats, clock)


def kernel_rate(strategy: str, threads: int, n_games: int, repeats: int,
                game_name: str = "cauldron-master") -> float:
    """Games per second of wall time."""
    return n_games / _simulate_seconds(game_name, strategy, threads, n_games, repeats)


def cpu_per_game(game_name: str, n_games: int, repeats: int) -> float:
    """CPU microseconds per game on one thread, 4 greedy players: the steadiest figure on a
    shared machine (time spent waiting for a core is not counted)."""
    return 1e6 / n_games * _simulate_seconds(game_name, "greedy", 1, n_games, repeats,
                                             time.process_time)


def decisions_per_game(game_name: str, strategy: str = "greedy", games: int = 20) -> float:
    """Decisions a game of 4 players of `strategy` takes on average, every one counted
    (one of a single option too: the kernel builds its table all the same), over the
    first `games` games of seed 7 (those the speed rows play)."""
    game = get_game(game_name)
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, [strategy], 4)
    return sum(len(game.replay(compiled, lineup, 7, g).decisions)
               for g in range(games)) / games


# A +-1-point seat verdict at 4 players (a win share's 95% half-width of 0.01 over games
# whose seats' win shares spread about as the measured ones do): 7,200 games.
VERDICT_GAMES = 7200


def search_cost(game_name: str, n_games: int) -> tuple[float, float]:
    """The top of the game's ladder (configs/ladders.toml: the search player, Carnuta's
    with its tuned planner playing the playouts) in every seat, 4 players, one thread: CPU
    seconds per game and per decision of a searching seat (a decision of one option is
    taken without searching and not counted)."""
    game = get_game(game_name)
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, [load_ladder(game_name).top.strategy], 4)
    game.simulate(compiled, lineup, 0, 0, 1)  # compile or load the cache
    start = time.process_time()
    with using(1):
        game.simulate(compiled, lineup, 7, 0, n_games)
    per_game = (time.process_time() - start) / n_games
    decisions = 0
    for g in range(min(n_games, 4)):
        replay = game.replay(compiled, lineup, 7, g)
        decisions += int((replay.decisions[:, 3] > 1).sum())
    return per_game, per_game * min(n_games, 4) / max(decisions, 1)


def reference_player(n_games: int, game_name: str = "cauldron-master"
                     ) -> Callable[[], object] | None:
    """A call that plays n_games of tests/reference, greedy in 4 seats (None outside a
    source checkout)."""
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
        return lambda: [play((), 4, 7, g, ["greedy"] * 4, params) for g in range(n_games)]
    return lambda: [play((), 4, 7, g, ["greedy"] * 4) for g in range(n_games)]


def first_game_seconds(repeats: int) -> float:
    """Wall time from starting a fresh interpreter to its first simulated game: until the
    child says it has played, not until it has exited (its shutdown is not the wait)."""
    cmd = [sys.executable, "-c", FIRST_GAME]
    subprocess.run(cmd, check=True, capture_output=True)  # make sure the cache is warm
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True) as child:
            assert child.stdout is not None
            said = child.stdout.readline()
            times.append(time.perf_counter() - start)
        if said.strip() != "played" or child.returncode:
            raise RuntimeError(f"the first-game measurement failed: {said!r}")
    return statistics.median(times)


# The run's own peak: Linux's VmHWM belongs to the process's memory since its exec, while
# getrusage's ru_maxrss starts at the parent's size when it forked (this bench's, which
# holds the kernels it measured: every game's run read the bench's 629 MB once).
RUN_AND_REPORT_PEAK = """
import resource, runpy, sys
sys.argv = ["simkit"] + sys.argv[1:]
try:
    runpy.run_module("simkit.cli", run_name="__main__")
except SystemExit as exc:
    if exc.code:
        raise
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):  # not Linux
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("PEAK_KB", peak, file=sys.stderr)
"""


WARM_SUMMARY_GAMES = 2000  # enough to call every compiled pass of a summary-only run


def full_run(n_games: int, summary_only: bool = False, game: str = "cauldron-master"
             ) -> tuple[float, float, float]:
    """Wall seconds and peak MB of `simkit run` for n_games (4 players, greedy), from the
    interpreter's start to its exit, and the seconds the run itself took (its manifest's
    `elapsed_seconds`: play and writing, without start-up).

    The run reports its own peak resident memory, so other child processes of this one
    (a dask cluster, say) cannot inflate it.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", RUN_AND_REPORT_PEAK, "run", game,
               "--players", "4", "--strategies", "greedy", "--games", str(n_games),
               "--seed", "1", "--out", str(Path(tmp) / "run")]
        cmd += ["--summary-only"] if summary_only else []
        start = time.perf_counter()
        done = subprocess.run(cmd, check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        elapsed = json.loads((Path(tmp) / "run" / "manifest.json").read_text()
                             )["elapsed_seconds"]
    peak_kb = int(done.stderr.rsplit("PEAK_KB", 1)[1].split()[0])
    return seconds, peak_kb / 1024, elapsed


def engine_seconds(n_games: int, chunk_size: int, workers: int | None = None) -> float:
    """Wall seconds of engine.run (simulate, write chunks, merge) into a temporary folder."""
    from simkit.engine import RunSpec, run

    spec = RunSpec("cauldron-master", 4, ("greedy",), n_games, 3)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run(spec, Path(tmp) / "run", chunk_size=chunk_size, workers=workers)
        return time.perf_counter() - start


@dataclass
class Row:
    """One measured figure, its unit, and the target it is held to (if any)."""

    measure: str
    value: float
    unit: str = ""  # "games/s", "x", "s", "MB", "ms"
    target: tuple[str, float] | None = None  # (">=" or "<", threshold)
    note: str = ""

    @property
    def met(self) -> bool | None:
        if self.target is None or not math.isfinite(self.value):
            return None
        op, limit = self.target
        return self.value >= limit if op == ">=" else self.value < limit

    def shown(self) -> str:
        """The value at its unit's precision. A value held to a target is rounded down, so
        that what is shown never reads as met when it is not (1.8975x against >= 1.9 shows
        1.89x, not 1.90x)."""
        if not math.isfinite(self.value):
            return "n/a"
        digits = {"s": 2, "ratio": 2, "us": 1}.get(self.unit, 0)
        if self.unit == "x" and self.value < 10:
            digits = 2
        value = self.value
        if self.target is not None:
            # (the 1e-9: 0.29 * 100 is 28.999999999999996 in floating point)
            value = math.floor(value * 10**digits + 1e-9) / 10**digits
        return f"{value:,.{digits}f}" + ("x" if self.unit == "x" else "")

    def target_text(self) -> str:
        if self.target is None:
            return self.note
        op, limit = self.target
        limit_text = f"{limit:g}" if limit < 10 else f"{limit:,.0f}"
        verdict = {True: "met", False: "NOT MET"}.get(self.met, "")
        return f"{op} {limit_text} {verdict}" + (f" ({self.note})" if self.note else "")


def table_text(rows: list[Row], before: dict[str, Any] | None = None) -> list[str]:
    """The table `simkit bench` prints: measure, value, target and whether it is met;
    with `before` (an earlier `--json` table), that run's value and the change too."""
    width = max(len(f"{r.measure} [{r.unit}]") for r in rows)
    old = {} if before is None else {r["measure"]: r["value"] for r in before["rows"]}
    then = ""
    if before is not None:
        then = f"  {'before':>14}  {'change':>7}"
        if before.get("commit"):
            width = max(width, len(f"(before: commit {before['commit']})"))
    out = [f"{'measure':{width}}  {'value':>14}{then}  target"]
    if before is not None and before.get("commit"):
        out.insert(0, f"(before: commit {before['commit']})")
    for r in rows:
        name = f"{r.measure} [{r.unit}]" if r.unit else r.measure
        if before is not None:
            was = Row(r.measure, math.nan if old.get(r.measure) is None
                      else float(old[r.measure]), r.unit)
            change = (f"{r.value / was.value - 1:+.0%}" if math.isfinite(r.value)
                      and math.isfinite(was.value) and was.value else "")
            then = f"  {was.shown():>14}  {change:>7}"
        out.append(f"{name:{width}}  {r.shown():>14}{then}  {r.target_text()}")
    met = [r.met for r in rows if r.met is not None]
    out.append(f"targets met: {sum(met)} of {len(met)}")
    return out


def table_json(rows: list[Row], settings: dict[str, Any]) -> dict[str, Any]:
    """The table as JSON, for a before/after comparison (`simkit bench --json FILE`)."""
    from simkit.results import versions

    return {"settings": settings, "commit": source_commit(), "versions": versions(),
            "rows": [{"measure": r.measure, "value": r.value if math.isfinite(r.value)
                      else None, "unit": r.unit,
                      "target": None if r.target is None else list(r.target),
                      "met": r.met, "note": r.note} for r in rows]}


def source_commit() -> str | None:
    """The git commit of the simkit source measured ("+changes" when its files differ from
    it), so a saved table says which code it measured; None outside a git checkout."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():  # an installed copy: git would name an unrelated repo
        return None
    try:
        done = subprocess.run(["git", "-C", str(root), "describe", "--always",
                               "--dirty=+changes"], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


SHARE = {"cauldron-master": 1, "carnuta": 8, "inori": 8}  # fewer games of the longer games


def run_bench(n_games: int, repeats: int, run_games: int, echo: Callable[[str], None],
              json_path: Path | None = None, game: str | None = None,
              before: dict[str, Any] | None = None) -> list[Row]:
    """Measure and print the table; `game` limits it to that game's kernel rows (a quick
    before/after comparison of one kernel); `before`, an earlier `--json` table, adds its
    values and the change to each row."""
    rows: list[Row] = []

    def row(measure: str, value: float | None, unit: str = "",
            target: tuple[str, float] | None = None, note: str = "") -> None:
        rows.append(Row(measure, math.nan if value is None else float(value), unit, target,
                        note))
        shown = rows[-1].shown()  # a ratio shows its own "x"
        echo(f"  measured: {measure}: {shown}" + (f" {unit}" if unit != "x" else ""))

    echo(f"4 players, greedy unless named; medians of {repeats}")
    kernel2: dict[str, tuple[Callable[[], object], int]] = {}  # the 2-thread call, games
    for name in [game] if game else list(SHARE):
        n = max(1, n_games // SHARE[name])
        prefix = "" if name == "cauldron-master" else f"{name} "
        echo(f"{name}: {n:,} games per measure")
        per_game = cpu_per_game(name, n, repeats)
        row(f"{prefix}CPU per game, 1 thread", per_game, "us")
        row(f"{prefix}CPU per decision, 1 thread", per_game * 1000 / decisions_per_game(name),
            "ns", note="greedy; every decision counted")
        # 1 thread, 2 threads and the reference in turn, and each ratio taken round by
        # round: measured one after the other, a change in the machine's load between
        # them read as a change in the ratio (a 2nd thread "adding" 1.5x, a run "faster"
        # than its kernel).
        two = simulator(name, "greedy", 2, n)
        kernel2[name] = (two, n)
        ref_games = (max(50, n_games // 2000) if name == "cauldron-master"
                     else max(20, n_games // 20000))
        reference = reference_player(ref_games, name)
        rounds = alternated([simulator(name, "greedy", 1, n), two]
                            + ([reference] if reference else []), repeats)
        row(f"{prefix}kernel greedy, 1 thread", n / statistics.median(r[0] for r in rounds),
            "games/s")
        row(f"{prefix}kernel greedy, 2 threads", n / statistics.median(r[1] for r in rounds),
            "games/s")
        if name == "cauldron-master":
            for strategy in ("random", "planner"):
                row(f"kernel {strategy}, 2 threads",
                    kernel_rate(strategy, 2, n // 4, repeats), "games/s")
        row(f"{prefix}2 threads / 1 thread", ratio(rounds, 0, 1), "x", (">=", 1.9))
        row(f"{prefix}reference, plain Python", None if reference is None else
            ref_games / statistics.median(r[2] for r in rounds), "games/s")
        row(f"{prefix}kernel 2 threads / reference", None if reference is None else
            ratio(rounds, 2, 1) * n / ref_games, "x")
        per_game, per_decision = search_cost(name, max(2, n_games // (20000 * SHARE[name])))
        row(f"{prefix}search in every seat, CPU per decision, 1 thread", per_decision * 1000,
            "ms")
        row(f"{prefix}search in every seat, CPU per game, 1 thread", per_game, "s",
            note=f"the ladder's top, {load_ladder(name).top.strategy}")
        row(f"{prefix}search in every seat, +-1-point verdict on 2 cores",
            per_game * VERDICT_GAMES / 2 / 60, "min", ("<", 15),
            f"{VERDICT_GAMES:,} games")
    if game:
        return _finish(rows, echo, json_path, before, {"games": n_games, "repeats": repeats,
                                                "game": game})
    row("first game, fresh process, warm cache", first_game_seconds(repeats), "s", ("<", 1.0))
    few, many = engine_seconds(n_games, n_games), engine_seconds(n_games, n_games // 32)
    row("overhead per extra chunk", (many - few) / 31 * 1000, "ms")
    threaded = engine_seconds(n_games, n_games // 4)
    clustered = engine_seconds(n_games, n_games // 4, workers=2)
    row(f"engine.run {n_games:,} games, 2 threads", n_games / threaded, "games/s")
    row(f"engine.run {n_games:,} games, --workers 2", n_games / clustered, "games/s",
        note="incl. cluster start-up")
    if run_games:
        for name in SHARE:
            prefix = "" if name == "cauldron-master" else f"{name} "
            echo(f"{name}: simkit run of {run_games:,} games")
            # The kernel's pace just before and just after the run, not minutes earlier.
            two, n = kernel2[name]
            before_run = n / _median_time(two, repeats)
            seconds, peak, elapsed = full_run(run_games, game=name)
            kernel = (before_run + n / _median_time(two, repeats)) / 2
            row(f"{prefix}simkit run {run_games:,} games, wall", seconds, "s")
            row(f"{prefix}simkit run / kernel 2 threads", run_games / seconds / kernel,
                "ratio", note="the kernel measured just before and after")
            row(f"{prefix}  the same without start-up", run_games / elapsed / kernel,
                "ratio", note="play, write, merge and summary only")
            row(f"{prefix}simkit run peak memory", peak, "MB", ("<", 400))
            # A tiny summary-only run first compiles the reduction's kernels if their
            # code changed since this checkout last ran them, as the kernel is warmed
            # before it is timed: the row measures a user's steady case, not a compile.
            full_run(WARM_SUMMARY_GAMES, summary_only=True, game=name)
            before_run = n / _median_time(two, repeats)
            seconds, peak, elapsed = full_run(run_games, summary_only=True, game=name)
            kernel = (before_run + n / _median_time(two, repeats)) / 2
            row(f"{prefix}simkit run --summary-only {run_games:,} games, wall", seconds, "s")
            row(f"{prefix}simkit run --summary-only / kernel 2 threads",
                run_games / seconds / kernel, "ratio", (">=", 0.9),
                "the kernel measured just before and after")
            row(f"{prefix}  --summary-only without start-up", run_games / elapsed / kernel,
                "ratio", note="play and the totals only; the reduction compiled beforehand")
            row(f"{prefix}simkit run --summary-only peak memory", peak, "MB", ("<", 500),
                "flat in the games")
    return _finish(rows, echo, json_path, before, {"games": n_games, "repeats": repeats,
                                            "run_games": run_games})


def _finish(rows: list[Row], echo: Callable[[str], None], json_path: Path | None,
            before: dict[str, Any] | None, settings: dict[str, Any]) -> list[Row]:
    """Print the table, and write it as JSON if asked."""
    echo("")
    for line in table_text(rows, before):
        echo(line)
    if json_path is not None:
        json_path.write_text(json.dumps(table_json(rows, settings), indent=2) + "\n")
        echo(f"Wrote {json_path}.")
    return rows
