"""Cauldron Master: the Game adapter between the kernel and the shared engine."""

from __future__ import annotations

import numpy as np

from simkit.games.base import Compiled, KernelGame

from . import kernel, log
from .config import compile_tables
from .layout import N_COLS


class CauldronMaster(KernelGame):
    name = "cauldron-master"
    title = "Cauldron Master"
    module = "cauldron_master"
    kernel = kernel
    log = log
    n_cols = N_COLS
    compile_tables = staticmethod(compile_tables)

    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        names = compiled.names
        return kernel.new_outputs(n_games, n_players, len(names.witches), len(names.ingredients))

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Kernel outputs as named (games, seats) columns."""
        names = compiled.names
        cols = {
            "strategy": out[4],
            "score": out[0],
            "rank": out[1],
            "win_share": out[2],
            "rounds": np.broadcast_to(out[3][:, None], out[0].shape),
            "recipe_card": out[5],
            "potions": out[6],
            "recipe_bonus": out[7],
            "cards_left": out[8],
        }
        for w, ident in enumerate(names.witch_ids):
            cols[f"witch_{ident}"] = out[9][:, :, w]
        for x, ident in enumerate(names.ingredient_ids):
            cols[f"scored_{ident}"] = out[10][:, :, x]
        return cols

    def categories(self, compiled: Compiled) -> dict[str, list[str]]:
        return {"recipe_card": list(compiled.names.recipe_ids)}
