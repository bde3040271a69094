"""Carnuta: the Game adapter between the kernel and the shared engine."""

from __future__ import annotations

import numpy as np

from simkit.games.base import Compiled, KernelGame, sum_last_axis

from . import kernel, log
from .config import compile_tables
from .layout import N_COLS, SCORE_KINDS


class Carnuta(KernelGame):
    name = "carnuta"
    title = "Carnuta"
    module = "carnuta"
    kernel = kernel
    log = log
    n_cols = N_COLS
    compile_tables = staticmethod(compile_tables)

    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        t = compiled.tables
        return kernel.new_outputs(n_games, n_players, t.n_types, t.n_ingredient_cards)

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Kernel outputs as named (games, seats) columns."""
        names = compiled.names
        cols = {
            "strategy": out[4],
            "score": out[0],
            "rank": out[1],
            "win_share": out[2],
            "rounds": np.broadcast_to(out[3][:, None], out[0].shape),
            "starting_card": out[5],
            "start_points": out[22],
            "cards_played": out[6],
            "doubles": out[8],
            "salts": out[9],
            "bonus_tokens": sum_last_axis(out[10], np.uint8),
            "sickles_used": out[11],
            "runes_taken": out[12],
            "runes_flipped": out[13],
            "runes_paid_flip": out[14],
            "runes_returned": out[15],
            "triggered_end": out[18],
            "turns": out[19],
            "cards_discarded": out[20],
            "best_ingredient_points": out[21],
        }
        for x, ident in enumerate(names.ingredient_ids):
            cols[f"played_{ident}"] = out[7][:, :, x]
        for x, ident in enumerate(names.ingredient_ids):
            cols[f"token_{ident}"] = out[10][:, :, x]
        for k, kind in enumerate(SCORE_KINDS):
            cols[f"points_{kind}"] = out[16][:, :, k]
        for c, ident in enumerate(names.card_ids[: compiled.tables.n_ingredient_cards]):
            cols[f"card_{ident}"] = out[17][:, :, c]
        return cols

    def categories(self, compiled: Compiled) -> dict[str, list[str]]:
        return {"starting_card": list(compiled.names.starting_ids)}
