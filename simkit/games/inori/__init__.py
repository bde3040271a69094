"""Inori: the Game adapter between the compiled rules and the shared engine."""

from __future__ import annotations

import numpy as np

from simkit.games.base import Compiled, KernelGame, sum_last_axis
from simkit.outputs import named_columns

from . import log, play
from .config import compile_tables
from .layout import N_COLS, O_RUNE, O_TREE, OUTPUTS, RUNE_KINDS, SOURCES


class Inori(KernelGame):
    name = "inori"
    title = "Inori"
    module = "inori"
    kernel = play
    log = log
    n_cols = N_COLS
    compile_tables = staticmethod(compile_tables)

    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        t = compiled.tables
        return play.new_outputs(n_games, n_players, t.n_colours, t.tree.shape[0],
                                t.card.shape[0])

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        """Result arrays as named (games, seats) columns, with the totals of Rune tiles
        played and of tree offerings."""
        names = compiled.names
        cols = named_columns(OUTPUTS, out, {
            "sources": SOURCES, "colours": names.colour_ids, "trees": names.tree_ids,
            "rune_kinds": RUNE_KINDS, "cards": names.card_ids})
        cols["runes_played"] = sum_last_axis(out[O_RUNE], np.uint8)
        cols["tree_offerings"] = sum_last_axis(out[O_TREE], np.uint16)
        return cols
