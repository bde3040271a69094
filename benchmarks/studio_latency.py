"""How fast the studio answers an edit (docs/studio.md), per built-in game, warm:

- first figures: from an edit to the first updated figures on the page's data (the
  first look: both configs' first games played and every figure computed), for a
  heuristic lineup (planner, greedy, random, greedy);
- +-2 points: from an edit to the first look at which every paired seat difference's
  95% interval is within +-2 points, for four greedy players.

Each game's kernel is compiled and its baseline's figures computed before the clock
starts (the studio does that while the page opens). Not a test: the numbers depend on
the machine. Run: .venv/bin/python benchmarks/studio_latency.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from reports.targets import load_targets
from simkit.games import BUILTIN
from simkit.studio.live import Live
from simkit.studio.session import Session, Setup

# Two what-ifs per game: the 4th player starts with a point (every built-in game has the
# key; docs/balance.md), and a rule value that changes every game.
POINT = "compensation.points=[0, 0, 0, 1]"
RULE = {"cauldron-master": "supply.size.4=10", "carnuta": "track.end_cards=10",
        "inori": "tree.altar_points.amount=6"}
HEURISTIC = ("planner", "greedy", "random", "greedy")
GREEDY = ("greedy",)


def measure(game: str, edit: str, strategies: tuple[str, ...], until_points: float | None,
            repeats: int) -> tuple[list[float], int]:
    """(seconds per repeat to the moment measured, games at that moment)."""
    targets = load_targets(None, game)
    session = Session.open(Setup(game, 4, strategies, 0, budget=400_000), None)
    live = Live(session, targets)
    live.start()  # compiles, plays and judges the baseline
    live.wait()
    key = edit.partition("=")[0]
    times, games = [], 0
    for i in range(repeats):
        live.cancel()
        live._changed.clear()  # each repeat plays the edit from its first game
        live.until_points = until_points
        seen = live.version
        started = time.perf_counter()
        session.edit(key, edit, edit)
        live.start()
        while True:
            v = live.latest
            if live.version != seen and v is not None and v.changed and (
                    until_points is None or v.widest_points <= until_points or v.final):
                break
            time.sleep(0.002)
        times.append(time.perf_counter() - started)
        games = v.games
        session.reset()
        if i == repeats - 1:
            live.cancel()
    return times, games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--games", nargs="*", default=sorted(BUILTIN))
    args = ap.parse_args()
    print(f"{'game':16} {'edit':32} {'first figures (s)':>18} {'+-2 points (s)':>15} "
          f"{'games':>8}")
    for game in args.games:
        for edit in (POINT, RULE[game]):
            first, _ = measure(game, edit, HEURISTIC, None, args.repeats)
            close, games = measure(game, edit, GREEDY, 2.0, args.repeats)
            print(f"{game:16} {edit:32} {statistics.median(first):18.2f} "
                  f"{statistics.median(close):15.2f} {games:8,}", flush=True)


if __name__ == "__main__":
    main()
