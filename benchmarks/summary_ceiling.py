"""How close a summary-only run could come to the kernel's pace (issue 51), per game.

Three figures over the kernel's 2-thread pace (`simkit bench`'s, measured just before
and just after), for one `simkit run GAME --players 4 --strategies greedy --seed 1
--summary-only` of N games:

- the run itself, from the interpreter's start to its exit (the bench's row);
- the same without start-up (its manifest's elapsed seconds);
- the same run with its chunks neither reduced nor written, from the interpreter's start
  to the end of play: the pace no reduction, however cheap, can beat (start-up, the
  report's planning, the slices and the threads that play them).

The third is what says whether a target is for the reduction to reach. Not a test: the
numbers depend on the machine. The reduction's kernels are compiled first (a 2,000-game
run), as in `simkit bench`.

Example:
    .venv/bin/python benchmarks/summary_ceiling.py --game cauldron-master --games 1000000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simkit.bench import SHARE, WARM_SUMMARY_GAMES, _median_time, full_run, simulator

# A run whose chunks are played as usual but neither reduced nor written; it exits as
# soon as play ends, saying so.
UNREDUCED = """
import os, sys, threading
from simkit.cli import main
import simkit.engine as engine

nothing = engine.Aggregate(1, 0, [])
reduced = engine._reduced

def skip(reducer, rows):  # the report's planning (its own thread) still runs
    planning = threading.current_thread().name.startswith("simkit-plan")
    return reduced(reducer, rows) if planning else nothing

def played(*args, **kwargs):
    play(*args, **kwargs)
    print("PLAYED", file=sys.stderr, flush=True)
    os._exit(0)

engine._reduced, engine.write_aggregate = skip, lambda *args: None
play, engine._play_and_save = engine._play_and_save, played
sys.argv = ["simkit"] + sys.argv[1:]
main()
"""


def unreduced_seconds(game: str, n_games: int) -> float:
    """Seconds from a fresh interpreter's start to the end of play of a summary-only run
    whose chunks are not reduced."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", UNREDUCED, "run", game, "--players", "4", "--strategies",
             "greedy", "--games", str(n_games), "--seed", "1", "--summary-only", "--out",
             str(Path(tmp) / "r")],
            capture_output=True, text=True)
        wall = time.perf_counter() - started
        if "PLAYED" not in done.stderr:
            raise SystemExit(done.stderr.strip().splitlines()[-1])
    return wall


def measure(game: str, n_games: int, repeats: int) -> dict[str, float]:
    """The three paces of `game` over its kernel's, and the kernel's games/s."""
    n = 200_000 // SHARE[game]
    two = simulator(game, "greedy", 2, n)
    full_run(WARM_SUMMARY_GAMES, summary_only=True, game=game)
    before = n / _median_time(two, repeats)
    seconds, peak, elapsed = full_run(n_games, summary_only=True, game=game)
    bare = unreduced_seconds(game, n_games)
    kernel = (before + n / _median_time(two, repeats)) / 2
    return {"kernel games/s": kernel, "summary-only": n_games / seconds / kernel,
            "without start-up": n_games / elapsed / kernel,
            "without its reduction": n_games / bare / kernel, "peak MB": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=list(SHARE),
                        help="a game (again for more; default: all three)")
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3, help="kernel timings each side")
    args = parser.parse_args()
    for game in args.game or list(SHARE):
        print(game, json.dumps({k: round(v, 3) for k, v in
                                measure(game, args.games, args.repeats).items()}), flush=True)


if __name__ == "__main__":
    main()
