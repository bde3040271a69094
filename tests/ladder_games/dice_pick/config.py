"""Dice Pick's config -> tables."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.config import GameConfig, Reader

from . import layout as L


class Tables(NamedTuple):
    rules: np.ndarray  # int64[RU_SIZE]


class Names(NamedTuple):
    players: list[int]

    @property
    def ids(self) -> dict[str, list[str]]:
        return {}


def compile_tables(config: GameConfig) -> tuple[Tables, Names]:
    r = Reader(config)
    players = r.get("game.players")
    if (not isinstance(players, list) or not players
            or not all(isinstance(p, int) and 2 <= p <= L.MAX_PLAYERS for p in players)):
        raise r.error("game.players", players, f"expected a list of counts 2..{L.MAX_PLAYERS}")
    start = r.get("compensation.start")
    if (not isinstance(start, list) or len(start) != L.MAX_PLAYERS
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 100
                       for v in start)):
        raise r.error("compensation.start", start, f"expected {L.MAX_PLAYERS} head starts")
    rules = np.zeros(L.RU_SIZE, np.int64)
    rules[L.RU_START:L.RU_START + L.MAX_PLAYERS] = start
    return Tables(rules), Names(sorted(players))
