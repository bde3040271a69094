"""The work in flight: the current state's games played beside the baseline's in
looks of doubling size, its figures published after each, until every verdict is
decided or the game budget is spent. A new edit stops it at once: the page never waits
for it (its last slice or figures finish in the background and are dropped)."""

from __future__ import annotations

import io
import threading

from reports.targets import Targets
from simkit.progress import say_if_compiling
from simkit.studio.figures import View, view
from simkit.studio.games import Games
from simkit.studio.session import Session, State

FIRST_SLICE = 1_000  # games of the first look: figures within a fraction of a second
GROWTH = 2  # each look holds twice the games of the last (as --until-sure's rounds)


class Live:
    """Plays the session's current state; `latest` is its newest view (`version` counts
    every change the page shows, so it knows when to draw again)."""

    def __init__(self, session: Session, targets: Targets) -> None:
        self.session = session
        self.targets = targets
        self.base = Games(session.baseline)
        self.latest: View | None = None
        self.state: State | None = None
        self.version = 0
        self.error: str | None = None
        self.note: str | None = None  # e.g. that the kernel is compiling
        # Stop when every paired seat difference is within +-this many points, rather
        # than when the verdicts are decided (benchmarks/studio_latency.py).
        self.until_points: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._publishing = threading.Lock()
        self._changed: dict[tuple[str, ...], Games] = {}  # a state's games, kept for undo

    def start(self) -> None:
        """Play the session's current state (the one in flight is stopped)."""
        self.cancel(wait=False)
        state = self.session.current
        changed = self.base if not state.changes else self._games(state)
        with self._publishing:
            self.state, self.error, self.note, self.latest = state, None, None, None
            self._stop = stop = threading.Event()
            self.version += 1
        self._thread = threading.Thread(target=self._play, args=(state, changed, stop),
                                        name="simkit-studio", daemon=True)
        self._thread.start()

    def rebase(self, targets: Targets) -> None:
        """The session's baseline changed: its games and the edits' are played anew."""
        self.cancel(wait=False)
        self.targets = targets
        self.base = Games(self.session.baseline)
        self._changed.clear()
        self.latest = None
        self.start()

    def cancel(self, wait: bool = True) -> None:
        """Stop the work in flight; with `wait`, until its thread has ended (a slice
        and a look's figures at most)."""
        self._stop.set()
        if wait and self._thread is not None:
            self._thread.join()

    def wait(self, timeout: float | None = None) -> None:
        """Until the current state's games stop (decided, or the budget spent)."""
        if self._thread is not None:
            self._thread.join(timeout)

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
            said = io.StringIO()
            if say_if_compiling(changed.p.game, [changed.p.lineup], said):
                self._say(said.getvalue().strip(), stop)
            while not stop.is_set():
                self.base.grow(n)
                changed.grow(n)
                n = min(self.base.played, changed.played)  # whole deals
                look += 1
                latest = view(self.base, changed, n, look, self.targets)
                self._publish(latest, stop)  # before the last look's report sections
                enough = (latest.decided if self.until_points is None
                          else latest.widest_points <= self.until_points)
                if enough or n >= budget:
                    break
                n = min(budget, n * GROWTH)
            else:
                return
            latest = view(self.base, changed, n, look, self.targets, final=True)
            if self._publish(latest, stop):
                self.session.record(state, latest.outcome())
        except Exception as exc:  # shown on the page; the baseline and history stay
            with self._publishing:
                if not stop.is_set():
                    self.error = f"{type(exc).__name__}: {exc}"
                    self.version += 1

    def _say(self, note: str, stop: threading.Event) -> None:
        with self._publishing:
            if not stop.is_set():
                self.note = note
                self.version += 1

    def _publish(self, latest: View, stop: threading.Event) -> bool:
        """Show `latest`, unless a newer state has taken over since it was started."""
        with self._publishing:
            if stop.is_set():
                return False
            self.latest, self.note = latest, None
            self.version += 1
            return True
