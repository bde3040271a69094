"""Carnuta: the Game adapter between the kernel and the shared engine."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.config import GameConfig
from simkit.games.base import Game, Lineup
from simkit.kernels import new_trace

from . import kernel
from .config import Names, Tables, compile_tables
from .layout import N_COLS, SCORE_KINDS


class Compiled(NamedTuple):
    tables: Tables
    names: Names


class Replay(NamedTuple):
    """One traced game: decisions with their option tables, events, and results."""

    decisions: np.ndarray  # [round, seat, step, n options, chosen row, first option row]
    options: np.ndarray  # option rows (layout.py), indexed from decisions[:, 5]
    events: np.ndarray  # [round, event, seat, a, b, c] (layout.py EV_*)
    out: tuple  # kernel outputs for this one game (row 0)


class Carnuta(Game):
    name = "carnuta"
    title = "Carnuta"
    module = "carnuta"

    def compile(self, config: GameConfig) -> Compiled:
        return Compiled(*compile_tables(config))

    def players(self, compiled: Compiled) -> list[int]:
        return compiled.names.players

    def _outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        t = compiled.tables
        return kernel.new_outputs(n_games, n_players, t.n_types, t.n_ingredient_cards)

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
            "starting_card": out[5],
            "start_points": out[22],
            "cards_played": out[6],
            "doubles": out[8],
            "salts": out[9],
            "bonus_tokens": out[10].sum(axis=2, dtype=np.uint8),
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
