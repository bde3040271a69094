"""Cauldron Master: the Game adapter between the kernel and the shared engine."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.config import GameConfig
from simkit.games.base import Game, Lineup
from simkit.kernels import new_trace

from . import kernel
from .config import Names, Tables, compile_tables
from .layout import N_COLS


class Compiled(NamedTuple):
    tables: Tables
    names: Names


class Replay(NamedTuple):
    """One traced game: decisions with their option tables, events, and results."""

    decisions: np.ndarray  # [round, seat, kind, n options, chosen row, first option row]
    options: np.ndarray  # option rows (layout.py), indexed from decisions[:, 5]
    events: np.ndarray  # [round, event, seat, a, b, c] (layout.py EV_*)
    out: tuple  # kernel outputs for this one game (row 0)


class CauldronMaster(Game):
    name = "cauldron-master"
    title = "Cauldron Master"
    module = "cauldron_master"

    def compile(self, config: GameConfig) -> Compiled:
        return Compiled(*compile_tables(config))

    def players(self, compiled: Compiled) -> list[int]:
        return compiled.names.players

    def _outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        names = compiled.names
        return kernel.new_outputs(n_games, n_players, len(names.witches), len(names.ingredients))

    def simulate(self, compiled: Compiled, lineup: Lineup, seed: int, first_game: int,
                 n_games: int) -> dict[str, np.ndarray]:
        out = self._outputs(compiled, n_games, lineup.n_players)
        kernel.simulate_batch(compiled.tables, lineup.n_players, np.uint64(seed), first_game,
                              lineup.index, lineup.rotate, lineup.ids, lineup.params, out)
        return self.columns(compiled, out)

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

    def replay(self, compiled: Compiled, lineup: Lineup, seed: int, game: int) -> Replay:
        """Replay game `game` of a run, with every decision and event recorded."""
        out = self._outputs(compiled, 1, lineup.n_players)
        trace = new_trace(N_COLS)
        kernel.play_traced(compiled.tables, lineup.n_players, np.uint64(seed), game,
                           lineup.index, lineup.rotate, lineup.ids, lineup.params, out, trace)
        n_dec, n_opt, n_ev = (int(v) for v in trace[3])
        return Replay(trace[0][:n_dec], trace[1][:n_opt], trace[2][:n_ev], out)

    def play_log(self, compiled: Compiled, lineup: Lineup, seed: int, game: int) -> str:
        from .log import format_log

        return format_log(compiled, lineup, self.replay(compiled, lineup, seed, game))
