"""The work in flight: the current state's games played beside the baseline's in
slices, its figures published after each, until every verdict is decided or the game
budget is spent. A new edit cancels it between two slices."""

from __future__ import annotations

import threading
from collections.abc import Callable

from reports.targets import Targets
from simkit.studio.figures import View, view
from simkit.studio.games import Games
from simkit.studio.session import Session, State

FIRST_SLICE = 1_000  # games of the first look: figures within a fraction of a second
GROWTH = 2  # a look holds at most this many times the games of the last


class Live:
    """Plays the session's current state; `latest` is its newest view (`version` counts
    them, so a page knows when to draw again)."""

    def __init__(self, session: Session, targets: Targets,
                 on_error: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.targets = targets
        self.base = Games(session.baseline)
        self.latest: View | None = None
        self.state: State | None = None
        self.version = 0
        self.error: str | None = None
        self.on_error = on_error
        # Stop when every paired seat difference is within +-this many points, rather
        # than when the verdicts are decided (benchmarks/studio_latency.py).
        self.until_points: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._changed: dict[tuple[str, ...], Games] = {}  # a state's games, kept for undo

    def start(self) -> None:
        """Play the session's current state (stopping the one in flight first)."""
        self.cancel()
        state = self.session.current
        self.state, self.error, self._stop = state, None, threading.Event()
        changed = self.base if not state.changes else self._games(state)
        self._thread = threading.Thread(target=self._play, args=(state, changed, self._stop),
                                        name="simkit-studio", daemon=True)
        self._thread.start()

    def rebase(self, targets: Targets) -> None:
        """The session's baseline changed: its games and the edits' are played anew."""
        self.cancel()
        self.targets = targets
        self.base = Games(self.session.baseline)
        self._changed.clear()
        self.latest = None
        self.start()

    def cancel(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()  # within a slice (SLICE_SECONDS)
            self._thread = None

    def _games(self, state: State) -> Games:
        if state.items not in self._changed:
            if len(self._changed) >= 8:  # a few recent states' games, not every one's
                self._changed.pop(next(iter(self._changed)))
            self._changed[state.items] = Games(self.session.prepared(state))
        return self._changed[state.items]

    def _play(self, state: State, changed: Games, stop: threading.Event) -> None:
        budget = self.session.setup.budget
        n, look = min(FIRST_SLICE, budget), 0
        try:
            while not stop.is_set():
                self.base.grow(n)
                changed.grow(n)
                n = min(self.base.played, changed.played)  # whole deals
                look += 1
                done = n >= budget
                latest = view(self.base, changed, n, look, self.targets)
                enough = (latest.decided if self.until_points is None
                          else latest.widest_points <= self.until_points)
                self._publish(latest, stop)  # before the last look's report sections
                if enough or done:
                    break
                n = min(budget, n * GROWTH)  # doubling looks, as --until-sure's
            else:
                return
            latest = view(self.base, changed, n, look, self.targets, final=True)
            if self._publish(latest, stop):
                self.session.record(state, latest.outcome())
        except Exception as exc:  # shown on the page; the baseline and history stay
            self.error = f"{type(exc).__name__}: {exc}"
            self.version += 1
            if self.on_error is not None:
                self.on_error(self.error)

    def _publish(self, latest: View, stop: threading.Event) -> bool:
        if stop.is_set():
            return False
        self.latest = latest
        self.version += 1
        return True
