"""The small protocol every game follows, so the engine, CLI and tests stay game-agnostic."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from simkit.cards import load_config
from simkit.config import GameConfig
from simkit.kernels.trace import new_trace, trace_stub
from simkit.players import StrategySpec, registry
from simkit.threads import play_blocks


@dataclass(frozen=True)
class Lineup:
    """Who plays: the run's strategies (one per seat) and how they map to seats.

    `index[s]` is the position in `names` of the strategy in seat s before rotation. When
    the strategies differ, `rotate` is true: they rotate through the seats over each deal.
    """

    names: tuple[str, ...]
    ids: np.ndarray  # int64[len(names)]: kernel ids
    params: np.ndarray  # float64[len(names), MAX_PARAMS]
    resolved_params: tuple[dict[str, float], ...]
    plugins: tuple[tuple[str, str], ...] = ()  # (name, sha256 of its file) per plug-in

    @property
    def n_players(self) -> int:
        return len(self.names)

    @property
    def rotate(self) -> bool:
        """Whether the seats play different strategies (or parameters): they then rotate."""
        return self.period > 1

    @property
    def index(self) -> np.ndarray:
        return np.arange(self.n_players, dtype=np.int64)

    @property
    def period(self) -> int:
        """After how many seats the lineup repeats (A,B,A,B: 2); its number of seats if it
        does not. A deal's rotations past the period replay its first seatings exactly."""
        seats = list(zip(self.names, map(tuple, self.params), strict=True))
        n = len(seats)
        return next(k for k in range(1, n + 1) if n % k == 0 and seats[k:] + seats[:k] == seats)


# A game folder's files that the compiled kernel is not built from.
NOT_KERNEL = frozenset({"__init__.py", "config.py", "log.py", "report.py", "interventions.py",
                        "reference.py"})


class Game(ABC):
    """A game simkit can simulate: its config, compiled rules, strategies and results."""

    name: str  # command-line name, e.g. "cauldron-master"
    title: str  # display name
    module: str  # python module name, e.g. "cauldron_master" (configs/<module>.toml)

    def load_config(self, overrides: tuple[str, ...] = (), path: Any = None) -> GameConfig:
        return load_config(self.module, path=path, overrides=overrides)

    def strategies(self) -> dict[str, StrategySpec]:
        return registry(self.module)

    @abstractmethod
    def compile(self, config: GameConfig) -> Any:
        """Validate `config` and build what the kernel needs (raises ConfigError)."""

    @abstractmethod
    def players(self, compiled: Any) -> list[int]:
        """Supported player counts."""

    @abstractmethod
    def simulate(self, compiled: Any, lineup: Lineup, seed: int, first_game: int,
                 n_games: int) -> dict[str, np.ndarray]:
        """Play games first_game.. into per-(game, seat) columns of shape (n_games, players).

        Must include score, rank, win_share, rounds and strategy (index into lineup.names).
        """

    @abstractmethod
    def play_log(self, compiled: Any, lineup: Lineup, seed: int, game: int) -> str:
        """One game as a readable log."""

    def categories(self, compiled: Any) -> dict[str, list[str]]:
        """Columns holding category codes, with their labels (e.g. recipe card names)."""
        return {}


class Compiled(NamedTuple):
    """A game's compiled rules: kernel tables and display names."""

    tables: Any
    names: Any


class Replay(NamedTuple):
    """One traced game: decisions with their option tables, events, and results."""

    decisions: np.ndarray  # [round, seat, kind, n options, chosen row, first option row]
    options: np.ndarray  # option rows (the game's layout.py), from decisions[:, 5]
    events: np.ndarray  # [round, event, seat, a, b, c] (the game's layout.py EV_*)
    out: tuple  # kernel outputs for this one game (row 0)


def sum_last_axis(a: np.ndarray, dtype: type) -> np.ndarray:
    """a.sum(axis=-1, dtype=dtype) for a short last axis, slice by slice: about 5x faster
    than numpy's reduction over a few contiguous items (it runs on every simulated batch)."""
    total = a[..., 0].astype(dtype)
    for k in range(1, a.shape[-1]):
        total += a[..., k]
    return total


class KernelGame(Game):
    """A game whose rules are a kernel module with the standard entry points.

    The kernel module provides `simulate_batch` (the same signature for
    every game); the subclass says how to allocate its outputs, name its columns and
    format a log.
    """

    kernel: Any  # the game's kernel module
    n_cols: int  # width of its option table
    log: Any  # the game's log module, with format_log(compiled, lineup, replay)
    compile_tables: Any  # staticmethod: GameConfig -> (tables, names)

    def compile(self, config: GameConfig) -> Compiled:
        return Compiled(*self.compile_tables(config))

    @abstractmethod
    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        """The kernel's per-game result arrays."""

    @abstractmethod
    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Kernel outputs as named (games, seats) columns."""

    def players(self, compiled: Compiled) -> list[int]:
        return compiled.names.players

    def lookahead(self, lineup: Lineup) -> bool | int | None:
        """The kernel's `lookahead` argument, whose type picks the variant numba compiles:
        None when no seat plays a lookahead player (no playouts compiled), 1 when a seat
        plays the search player (its tree search compiled too), else True (the rollout
        player's playouts alone)."""
        if np.isin(lineup.ids, getattr(self.kernel, "SEARCHING", ())).any():
            return 1
        return True if np.isin(lineup.ids, self.kernel.LOOKAHEAD).any() else None

    def needs_compile(self, lineup: Lineup | None = None) -> bool:
        """Whether the first game of `lineup` (by default one without a lookahead player)
        will compile the kernel: no numba cache on disk for that variant, or one older than
        a source of the game. Callers say so while it happens."""
        fn = self.kernel.simulate_batch
        # The kernel is compiled once per type of its last argument, `lookahead`.
        kind = None if lineup is None else self.lookahead(lineup)
        variant = {type(None): "none", bool: "bool", int: "int64"}[type(kind)]
        if any(str(sig[-1]) == variant for sig in getattr(fn, "signatures", ())):
            return False  # compiled in this process already
        try:
            cache = fn._cache._cache_file
            index = Path(cache._index_path)
            source = Path(self.kernel.__file__)
            if getattr(self.kernel, "COMPILED_IN", None):
                newest = 0.0  # a stale cache was dropped at import already
                # (simkit.gamekit.cache)
            else:  # the kernel's files of the game's folder (its rules, options ...): an
                # edit to one recompiles; its log, report or config do not
                newest = max((f.stat().st_mtime for f in source.parent.glob("*.py")
                              if f.name not in NOT_KERNEL), default=0.0)
            if not index.exists() or index.stat().st_mtime < newest:
                return True
            return not any(str(key[0][-1]) == variant for key in cache._load_index())
        except Exception:  # numba's private cache API changed: at worst no message
            return False

    def simulate(self, compiled: Compiled, lineup: Lineup, seed: int, first_game: int,
                 n_games: int) -> dict[str, np.ndarray]:
        out = self.new_outputs(compiled, n_games, lineup.n_players)
        trace, lookahead = trace_stub(self.n_cols), self.lookahead(lineup)

        def play(start: int, stop: int) -> None:  # games start .. stop - 1 of the batch
            self.kernel.simulate_batch(compiled.tables, lineup.n_players, np.uint64(seed),
                                       first_game + start, lineup.index, lineup.rotate,
                                       lineup.ids, lineup.params,
                                       tuple(a[start:stop] for a in out), trace, False,
                                       lookahead)

        play_blocks(play, n_games)
        return self.columns(compiled, out)

    def replay(self, compiled: Compiled, lineup: Lineup, seed: int, game: int) -> Replay:
        """Replay game `game` of a run, with every decision and event recorded."""
        out = self.new_outputs(compiled, 1, lineup.n_players)
        trace = new_trace(self.n_cols)
        # The batch kernel itself, one game, tracing: nothing more to compile than a run.
        self.kernel.simulate_batch(compiled.tables, lineup.n_players, np.uint64(seed), game,
                                   lineup.index, lineup.rotate, lineup.ids, lineup.params, out,
                                   trace, True, self.lookahead(lineup))
        n_dec, n_opt, n_ev = (int(v) for v in trace.counts)
        return Replay(trace.decisions[:n_dec], trace.options[:n_opt], trace.events[:n_ev], out)

    def play_log(self, compiled: Compiled, lineup: Lineup, seed: int, game: int) -> str:
        replay = self.replay(compiled, lineup, seed, game)
        return self.log.format_log(compiled, lineup, replay)
