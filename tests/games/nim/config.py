"""Nim's config -> the kernel's rule table."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.config import GameConfig, Reader

from . import layout as L


class Tables(NamedTuple):
    rules: np.ndarray  # int64[RU_SIZE]


class Names(NamedTuple):
    players: list[int]


def compile_tables(config: GameConfig) -> tuple[Tables, Names]:
    r = Reader(config)
    rules = np.zeros(L.RU_SIZE, np.int64)
    rules[L.RU_PILE] = r.int("game.pile", 1, 1000)
    rules[L.RU_SPREAD] = r.int("game.spread", 1, 100)
    rules[L.RU_MAX_TAKE] = r.int("game.max_take", 1, L.MAX_TAKE)
    return Tables(rules), Names(sorted(r.get("game.players")))
