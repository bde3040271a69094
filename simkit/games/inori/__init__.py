"""Inori: the Game adapter between the kernel and the shared engine."""

from __future__ import annotations

import numpy as np

from simkit.games.base import Compiled, KernelGame, sum_last_axis

from . import kernel, log
from .config import compile_tables
from .layout import N_COLS, RUNE_KINDS, SOURCES


class Inori(KernelGame):
    name = "inori"
    title = "Inori"
    module = "inori"
    kernel = kernel
    log = log
    n_cols = N_COLS
    compile_tables = staticmethod(compile_tables)

    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        t = compiled.tables
        return kernel.new_outputs(n_games, n_players, t.n_colours, t.tree.shape[0],
                                  t.card.shape[0])

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Kernel outputs as named (games, seats) columns."""
        names = compiled.names
        cols = {
            "strategy": out[4],
            "score": out[0],
            "rank": out[1],
            "win_share": out[2],
            "rounds": np.broadcast_to(out[3][:, None], out[0].shape),
            "cards_completed": out[10],
            "runes_drawn": out[9],
            "runes_played": sum_last_axis(out[8], np.uint8),
            "seasons_first": out[12],
            "markers_passed": out[13],
            "tiles_placed": out[14],
            "turns": out[15],
            "tokens_paid": out[16],
            "tokens_gained": out[17],
            "neutral_placed": out[18],
            "new_starts_kept": out[19],
            "card_offerings": out[20],
            "tree_offerings": sum_last_axis(out[7], np.uint16),
        }
        for k, source in enumerate(SOURCES):
            cols[f"points_{source}"] = out[6][:, :, k]
        for x, ident in enumerate(names.colour_ids):
            cols[f"tokens_{ident}"] = out[5][:, :, x]
        for ts, ident in enumerate(names.tree_ids):
            cols[f"tree_{ident}"] = out[7][:, :, ts]
        for k, kind in enumerate(RUNE_KINDS):
            cols[f"rune_{kind}"] = out[8][:, :, k]
        for c, ident in enumerate(names.card_ids):
            cols[f"card_{ident}"] = out[11][:, :, c]
        return cols
