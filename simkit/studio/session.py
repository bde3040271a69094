"""The studio's session: the baseline (the config as loaded, with its players), the
edits tried and their outcomes, and which one is shown.

Each state tried is the whole set of `--set` arguments on top of the baseline, so undo,
reset and going back to any earlier edit are a choice of state, never a replay. With an
output folder the session is kept in DIR/studio.json (written after every change, so a
closed tab, a reload or a restarted studio finds it); without, it lives in the server's
memory and nothing is written.
"""

from __future__ import annotations

import json
import shlex
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simkit import folders
from simkit.errors import SimkitError
from simkit.paramfile import write_text_atomic
from simkit.prepare import Prepared, RunSpec, option_args, prepare

STATE_FILE = "studio.json"
_SAVING = threading.Lock()
DEFAULT_BUDGET = 200_000  # games per edit, at most, when the verdicts stay undecided


@dataclass(frozen=True)
class Setup:
    """What the baseline is: the game, its players, deals and config."""

    game: str
    players: int = 4
    strategies: tuple[str, ...] = ("greedy",)
    seed: int = 0
    overrides: tuple[str, ...] = ()  # the baseline's own --set arguments
    params: tuple[str, ...] = ()
    config_path: str | None = None
    budget: int = DEFAULT_BUDGET
    targets: str | None = None
    set_targets: tuple[str, ...] = ()

    def spec(self, changes: tuple[str, ...] = (), games: int | None = None) -> RunSpec:
        """The run of the baseline with `changes` on top (later --set wins)."""
        return RunSpec(self.game, self.players, self.strategies, games or self.budget,
                       self.seed, self.overrides + changes, self.params, self.config_path)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def command(self, out: Path | None) -> str:
        """The `simkit studio` command that starts (or resumes) this baseline."""
        parts = ["simkit", "studio", self.game, "--players", str(self.players),
                 "--strategies", ",".join(self.strategies), "--seed", str(self.seed),
                 "--budget", str(self.budget)]
        parts += option_args(self.config_path, self.overrides, self.params, None)
        if self.targets:
            parts += ["--targets", self.targets]
        for item in self.set_targets:
            parts += ["--set-target", item]
        return shlex.join(parts + (["--out", str(out)] if out is not None else []))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Setup:
        tuples = {k: tuple(v) for k, v in data.items() if isinstance(v, list)}
        return cls(**(dict(data) | tuples))


def setup_of_run(folder: Path, budget: int = DEFAULT_BUDGET) -> Setup:
    """The baseline a run folder played: its game, lineup, seed and config."""
    from simkit.results import read_manifest

    m = read_manifest(folder)
    if m is None:
        raise SimkitError(f"{folder}: not a simkit run folder (no manifest.json)")
    params = tuple(f"{s['name']}.{k}={v!r}" for s in m["strategies"]
                   for k, v in (s.get("params") or {}).items())
    source = m["config"].get("source")
    own = source is not None and Path(source).name.replace("_", "-") == f"{m['game']}.toml"
    return Setup(m["game"], int(m["players"]), tuple(s["name"] for s in m["strategies"]),
                 int(m["seed"]), tuple(m["config"].get("overrides") or ()),
                 tuple(dict.fromkeys(params)), None if own else source, budget)


@dataclass
class State:
    """One state tried: its `--set` arguments on top of the baseline, what it changed
    in words, and its outcome once played (figures' summary: verdicts, flips, games)."""

    changes: dict[str, str]  # key -> the --set argument
    label: str
    outcome: dict[str, Any] | None = None

    @property
    def items(self) -> tuple[str, ...]:
        return tuple(self.changes.values())


@dataclass
class Session:
    """The baseline and the states tried; `at` is the one shown (0: the baseline)."""

    setup: Setup
    baseline: Prepared
    folder: Path | None = None
    states: list[State] = field(default_factory=list)
    at: int = 0
    trail: list[int] = field(default_factory=list)  # states shown before, for undo

    @classmethod
    def open(cls, setup: Setup, folder: Path | None) -> Session:
        """The session of `setup`, resumed from `folder` if it holds one of the same
        baseline; a folder holding anything else is refused."""
        baseline = prepare(setup.spec())
        session = cls(setup, baseline, folder, [State({}, "baseline")])
        if folder is None:
            return session
        if folders.check_writable(folder, folders.STUDIO) == "ours":
            session._resume(folder / STATE_FILE)
        session.save()
        return session

    def _resume(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text())
            setup = Setup.from_dict(data["setup"])
            states = [State(dict(s["changes"]), s["label"], s.get("outcome"))
                      for s in data["states"]]
            at, trail = int(data["at"]), [int(i) for i in data["trail"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SimkitError(f"{path}: cannot be read ({exc}); remove it to start a new "
                              "session in this folder") from None
        if setup != self.setup:
            raise SimkitError(f"--out {path.parent} holds a studio session of another "
                              f"baseline; resume it with `{setup.command(path.parent)}`, "
                              "or choose another folder")
        if not states or not 0 <= at < len(states):
            raise SimkitError(f"{path}: not a studio session; remove it to start anew")
        self.states, self.at, self.trail = states, at, trail

    def rebase(self, setup: Setup) -> None:
        """Start again from another baseline (players, seed or targets changed): checked
        first, so a refused one changes nothing; the states tried so far are dropped,
        since they were measured against the old baseline."""
        baseline = prepare(setup.spec())  # SimkitError: refused
        self.setup, self.baseline = setup, baseline
        self.states, self.at, self.trail = [State({}, "baseline")], 0, []
        self.save()

    def save(self) -> None:
        """studio.json, whole (the page's requests and the live thread both save)."""
        if self.folder is None:
            return
        with _SAVING:
            data = {"setup": self.setup.as_dict(), "at": self.at, "trail": self.trail,
                    "states": [asdict(s) for s in self.states]}
            write_text_atomic(self.folder / STATE_FILE, json.dumps(data, indent=1) + "\n")

    @property
    def current(self) -> State:
        return self.states[self.at]

    def prepared(self, state: State | None = None) -> Prepared:
        """The run of `state` (the current one): checked as `simkit run` checks it."""
        state = state or self.current
        if not state.changes:
            return self.baseline
        return prepare(self.setup.spec(state.items))

    def edit(self, key: str, item: str, label: str) -> State:
        """Add `item` (a --set argument for `key`) to the current state: the new state
        is checked first, so a bad edit raises and changes nothing."""
        changes = dict(self.current.changes)
        changes.pop(key, None)
        changes[key] = item
        candidate = State(changes, label)
        prepare(self.setup.spec(candidate.items))  # SimkitError: refused, nothing changed
        return self._show(self._add(candidate))

    def _add(self, state: State) -> int:
        for i, s in enumerate(self.states):
            if s.changes == state.changes:
                return i
        self.states.append(state)
        return len(self.states) - 1

    def _show(self, index: int) -> State:
        if index != self.at:
            self.trail.append(self.at)
            self.at = index
        self.save()
        return self.current

    def go(self, index: int) -> State:
        """Show an earlier state again (from the history)."""
        if not 0 <= index < len(self.states):
            raise SimkitError(f"no state {index} in this session's history")
        return self._show(index)

    def reset(self) -> State:
        return self._show(0)

    def undo(self) -> State:
        if self.trail:
            self.at = self.trail.pop()
            self.save()
        return self.current

    def record(self, state: State, outcome: dict[str, Any]) -> None:
        """Keep what `state` came to (the history shows it)."""
        state.outcome = outcome
        self.save()
