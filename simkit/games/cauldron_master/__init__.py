"""Cauldron Master: the Game adapter between the compiled rules and the shared engine."""

from __future__ import annotations

import numpy as np

from simkit.games.base import Compiled, KernelGame
from simkit.outputs import named_columns

from . import log, play
from .config import compile_tables
from .layout import N_COLS, OUTPUTS


class CauldronMaster(KernelGame):
    name = "cauldron-master"
    title = "Cauldron Master"
    module = "cauldron_master"
    kernel = play
    log = log
    n_cols = N_COLS
    compile_tables = staticmethod(compile_tables)

    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        names = compiled.names
        return play.new_outputs(n_games, n_players, len(names.witches), len(names.ingredients))

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Result arrays as named (games, seats) columns."""
        names = compiled.names
        return named_columns(OUTPUTS, out, {"witches": names.witch_ids,
                                            "ingredients": names.ingredient_ids})

    def categories(self, compiled: Compiled) -> dict[str, list[str]]:
        return {"recipe_card": list(compiled.names.recipe_ids)}
