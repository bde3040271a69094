"""The small protocol every game follows, so the engine, CLI and tests stay game-agnostic."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.config import GameConfig, load_config
from strategies import StrategySpec, registry


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

    @property
    def n_players(self) -> int:
        return len(self.names)

    @property
    def rotate(self) -> bool:
        return len(set(zip(self.names, map(tuple, self.params), strict=True))) > 1

    @property
    def index(self) -> np.ndarray:
        return np.arange(self.n_players, dtype=np.int64)


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
