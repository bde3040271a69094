"""What a ladder's points cost, so its time left is right when the top rung's games are
50 times a heuristic's.

Before the ladder plays, each unfinished point plays its first deals (a game per seat each)
in memory, after a first game that compiles its players, timed in CPU seconds: its cost
per game (one deal of a dear point; a cheap one plays more, up to a thousand, until the
timing is not the call's overhead).
`CostProgress` counts games as the bar always has, but its rate and time left count cost:
the work left is the games left of each point times that point's cost per game, and the
pace is the cost done per second of wall time so far (which also takes in threads and a
busy machine). Nothing here is written: a point's results are the engine's alone.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from simkit.progress import Progress, _duration

PROBE_SECONDS = 0.02  # a probe plays deals (4 times more each try) until it takes this
PROBE_MAX_DEALS = 1024  # ...or this many deals: a cheap game's call overhead averaged out


def point_costs(plan: Any, out: Path) -> list[float]:
    """CPU seconds a game of each point of `plan` (a prepared sweep plan) costs, measured
    on its first deals (one for a dear point, up to PROBE_MAX_DEALS for a cheap one); 0
    for a point already finished in `out` (it plays nothing)."""
    costs = []
    for pt, p in zip(plan.points, plan.prepared, strict=True):
        if (out / pt.name / "manifest.json").is_file():
            costs.append(0.0)
            continue
        p.game.simulate(p.compiled, p.lineup, p.spec.seed, 0, 1)  # compiles, if need be
        deals = 1
        while True:
            n = deals * p.spec.players
            start = time.process_time()
            p.game.simulate(p.compiled, p.lineup, p.spec.seed, 0, n)
            seconds = time.process_time() - start
            if seconds >= PROBE_SECONDS or deals >= PROBE_MAX_DEALS:
                break
            deals *= 4
        costs.append(max(seconds, 1e-9) / n)
    return costs


class CostProgress(Progress):
    """A progress bar over points of unequal cost: `at(i)` names the point in play,
    `update(n)` counts its games; the time left weighs each game by its point's cost."""

    def __init__(self, games: Sequence[int], costs: Sequence[float], label: str,
                 stream: IO[str] | None = None) -> None:
        self.games, self.costs = list(games), list(costs)
        self.point = 0
        self.cost_total = sum(g * c for g, c in zip(self.games, self.costs, strict=True))
        self.cost_done = 0.0
        self.cost_base = 0.0
        super().__init__(sum(self.games), label, stream)

    def at(self, index: int) -> None:
        with self.lock:
            self.point = min(index, len(self.costs) - 1)

    def update(self, n: int, note: str = "") -> None:
        with self.lock:
            if self.base is None and n > 0:  # the rate starts here, as Progress's does
                self.cost_base = self.cost_done + n * self.costs[self.point]
            self.cost_done += n * self.costs[self.point]
        super().update(n, note)

    def left(self) -> float | None:
        """Seconds left at the cost pace so far (None before any is measured)."""
        if self.base is None:
            return None
        elapsed = time.perf_counter() - self.base[0]
        paced = self.cost_done - self.cost_base
        if paced <= 0 or elapsed <= 0:
            return None
        return max(self.cost_total - self.cost_done, 0.0) / (paced / elapsed)

    def line(self) -> str:
        text = (f"{self.label}: {self.done:,}/{self.total:,} {self.unit} "
                f"({self.cost_done / self.cost_total if self.cost_total else 0:.0%} of the "
                "cost)")
        if self.base is not None:
            elapsed = time.perf_counter() - self.base[0]
            played = self.done - self.base[1]
            if played > 0 and elapsed > 0:
                text += f", {played / elapsed:,.0f} {self.unit}/s"
        left = self.left()
        if left is not None and self.done < self.total:
            text += f", {_duration(left)} left"
        return text + (f" [{self.note}]" if self.note else "")
