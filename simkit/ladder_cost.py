"""What a ladder's points cost, so its time left is right when the top rung's games are
50 times a heuristic's.

Before the ladder plays, each unfinished point plays its first deals (a game per seat each)
in memory, after a first game that compiles its players, timed in CPU seconds: its cost
per game (one deal of a dear point; a cheap one plays more, up to a thousand, until the
timing is not the call's overhead).
`CostProgress` counts games as the bar always has, but its time left counts cost: the
games left of each point times that point's time per game, modelled as its kernel cost
times a speed plus a per-game overhead, both read from the points played so far (which
takes in threads and a busy machine). Nothing here is written: a point's results are the
engine's alone.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from simkit.progress import Progress

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
    `update(n)` counts its games; the time left weighs each point's games by its cost.

    A game of point i takes about `speed` x cost_i + `overhead` seconds of wall time: the
    kernel's CPU cost spread over the threads, and what every game costs besides (its
    rows written), which is most of a heuristic's time and nothing beside a search
    player's. Both are read from the points played so far: the overhead from the cheapest
    (within ten times the cheapest cost), the speed from the dearest point timed, when its
    kernel outweighs the overhead (1 / threads until then).
    """

    def __init__(self, games: Sequence[int], costs: Sequence[float], label: str,
                 stream: IO[str] | None = None, threads: int = 1) -> None:
        self.games, self.costs = list(games), list(costs)
        self.point = 0
        self.speed0 = 1.0 / max(threads, 1)
        # per point: [wall time its counting started, games then, games now, time now]
        self.spans: dict[int, list[float]] = {}
        self.counted = [0] * len(self.games)  # games of each point counted so far
        super().__init__(sum(self.games), label, stream)

    def at(self, index: int) -> None:
        with self.lock:
            self.point = min(index, len(self.costs) - 1)
            now = time.perf_counter()
            self.spans.setdefault(self.point, [now, self.counted[self.point], 0.0, now])

    def update(self, n: int, note: str = "") -> None:
        with self.lock:
            i, now = self.point, time.perf_counter()
            if n > 0 and i not in self.spans:  # the first point: from its first slice on,
                self.spans[i] = [now, self.counted[i] + n, 0.0, now]  # not its compile
            self.counted[i] = min(self.counted[i] + n, self.games[i])
            if i in self.spans:
                self.spans[i][2:] = [self.counted[i], now]
        super().update(n, note)

    def model(self) -> tuple[float, float]:
        """(speed, overhead): wall seconds per CPU-second of kernel cost, and per game."""
        seen = [(self.costs[i], (t - t0) / (g - g0)) for i, (t0, g0, g, t) in
                self.spans.items() if g > g0 and t > t0]
        if not seen:
            return self.speed0, 0.0
        cheapest = min(c for c, _ in seen)
        light = sorted(w - self.speed0 * c for c, w in seen if c <= 10 * cheapest)
        overhead = max(light[len(light) // 2], 0.0)
        c, w = max(seen)  # the dearest point timed: its kernel shows the machine's speed
        if self.speed0 * c <= overhead:  # ...unless its rows cost more than its kernel
            return self.speed0, overhead
        return max(w - overhead, 0.0) / c, overhead

    def time_left(self, rate: float) -> float | None:
        """Seconds left by the cost model (None before a point has been timed)."""
        if not any(g > g0 for _, g0, g, _ in self.spans.values()):
            return None
        speed, overhead = self.model()
        return sum((g - done) * (speed * c + overhead) for g, done, c in
                   zip(self.games, self.counted, self.costs, strict=True))
