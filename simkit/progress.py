"""Progress of long work: games done of a total, games/s and the time left.

On a terminal one line is redrawn, at most twice a second; off a terminal (a log file,
CI, a notebook's captured stderr) a plain line is written every `LOG_EVERY` seconds, so
a long run never sits silent. The rate (and so the time left) counts from the first
update: not a first run's compile, nor a resumed run's earlier games.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any

REDRAW_EVERY = 0.5  # seconds between two redraws on a terminal
LOG_EVERY = 5.0  # seconds between two lines off a terminal


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """Call `update(n)` as games finish; use as a context manager (it ends the line)."""

    def __init__(self, total: int, label: str, stream: IO[str] | None = None,
                 done: int = 0, unit: str = "games") -> None:
        self.total, self.label, self.unit = max(total, 1), label, unit
        self.stream = stream if stream is not None else sys.stderr
        self.done = self.before = done  # `before`: done earlier, not in the rate
        self.started = time.perf_counter()
        # The rate counts from the first update on: the first slice carries a first run's
        # compile, and a resumed run's first update the games found already done.
        self.base: tuple[float, int] | None = None
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.shown = 0.0
        self.note = ""
        self.lock = threading.Lock()  # a slice's games may be counted from another thread
        self._show(force=True)

    def update(self, n: int, note: str = "") -> None:
        with self.lock:
            self.done = min(self.done + n, self.total)
            if note:
                self.note = note
            if self.base is None and n > 0:  # an empty update (nothing saved yet) would
                self.base = (time.perf_counter(), self.done)  # start the rate before a compile
                return  # nor shown: a first run's "4/200,000 (0%)", with no rate yet
            self._show()

    def line(self) -> str:
        """The progress as one line of text."""
        since, counted = self.base if self.base is not None else (time.perf_counter(),
                                                                  self.done)
        elapsed = time.perf_counter() - since
        played = self.done - counted
        text = (f"{self.label}: {self.done:,}/{self.total:,} {self.unit} "
                f"({self.done / self.total:.0%})")
        if played > 0 and elapsed > 0:
            rate = played / elapsed
            text += f", {rate:,.0f} {self.unit}/s"
            left = self.time_left(rate)
            if self.done < self.total and left is not None:
                text += f", {_duration(left)} left"
        return text + (f" [{self.note}]" if self.note else "")

    def time_left(self, rate: float) -> float | None:
        """Seconds left at `rate` units a second (a bar whose units differ in cost, e.g.
        a ladder's points, says otherwise: simkit/ladder_cost.py)."""
        return (self.total - self.done) / rate

    def _show(self, force: bool = False) -> None:
        now = time.perf_counter()
        every = REDRAW_EVERY if self.tty else LOG_EVERY
        if not force and now - self.shown < every:
            return
        self.shown = now
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line())
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        with self.lock:
            elapsed = time.perf_counter() - self.started
            played = self.done - self.before
            rate = f", {played / elapsed:,.0f} {self.unit}/s" if played and elapsed > 0 else ""
            end = (f"{self.label}: {self.done:,}/{self.total:,} {self.unit} in "
                   f"{_duration(elapsed)}{rate}")
            self.stream.write(("\r\x1b[2K" if self.tty else "") + end + "\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            self.close()
        else:  # interrupted or failed: end the redrawn line, say where it stopped
            with self.lock:
                self.stream.write(("\r\x1b[2K" if self.tty else "") + self.line() + "\n")
                self.stream.flush()


def say_if_compiling(game: Any, lineups: Any = (), stream: IO[str] | None = None) -> bool:
    """Say so before the first game when it will compile the game's kernel for one of
    `lineups` (none given: a lineup without a lookahead player), so a first run (seconds
    to minutes, depending on the game) never sits silent. Returns whether it will."""
    needs = getattr(game, "needs_compile", lambda lineup=None: False)
    # One lineup per compiled variant, so a sweep of many points reads the cache index twice
    # at most, not once per point.
    variant = getattr(game, "lookahead", lambda lineup: None)
    one_each = {variant(lineup): lineup for lineup in lineups} or {None: None}
    missing = [v for v, lineup in one_each.items() if needs(lineup)]
    if missing:
        # The variant with lookahead players is compiled the first time a lineup has one,
        # which may be long after the game's first run.
        what, when = ((" for lookahead players", "first such run only") if None not in missing
                      else ("", "first run only"))
        stream = stream if stream is not None else sys.stderr
        stream.write(f"Compiling the {game.title} kernel{what} ({when}; later runs load it "
                     "from the cache in under a second)...\n")
        stream.flush()
    return bool(missing)


def say_if_compiling_totals(stream: IO[str] | None = None) -> bool:
    """Say so before the first game when a summary-only run will compile the reductions
    that sum its chunks (`simkit.summing`: after an install or an update of them), which
    takes about half a minute. Returns whether it will."""
    from simkit.summing import reductions_cached

    if reductions_cached():
        return False
    stream = stream if stream is not None else sys.stderr
    stream.write("Compiling the summary's totals (first summary-only run after an install or "
                 "an update only; later runs load them from the cache)...\n")
    stream.flush()
    return True
