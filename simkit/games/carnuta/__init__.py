"""Carnuta: the Game adapter between the compiled rules and the shared engine."""

from __future__ import annotations

import numpy as np

from simkit.games.base import Compiled, KernelGame
from simkit.outputs import named_columns

from . import log, play
from .config import compile_tables
from .layout import N_COLS, OUTPUTS, SCORE_KINDS


class Carnuta(KernelGame):
    name = "carnuta"
    title = "Carnuta"
    module = "carnuta"
    kernel = play
    log = log
    n_cols = N_COLS
    compile_tables = staticmethod(compile_tables)

    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        t = compiled.tables
        return play.new_outputs(n_games, n_players, t.n_types, t.n_ingredient_cards)

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Result arrays as named (games, seats) columns."""
        names = compiled.names
        return named_columns(OUTPUTS, out, {
            "ingredients": names.ingredient_ids, "score_kinds": SCORE_KINDS,
            "cards": names.card_ids[: compiled.tables.n_ingredient_cards]})

    def categories(self, compiled: Compiled) -> dict[str, list[str]]:
        return {"starting_card": list(compiled.names.starting_ids)}
