"""Pig's report hooks: how each strategy's turns go (simkit's report does the rest)."""

from __future__ import annotations

from reports.document import Column, Section, Table
from reports.hooks import Context, GameHooks
from reports.metrics import clustered_mean

TURN_COLUMNS = [("turns", "Turns"), ("rolls", "Rolls"), ("busts", "Busts"),
                ("holds", "Holds"), ("best_turn", "Best turn")]


class PigHooks(GameHooks):
    seat_note = "Seat 0 rolls first."
    summary_ready = True  # reads only ctx.source and ctx.columns

    def sections(self, ctx: Context) -> list[Section]:
        cols = [(k, label) for k, label in TURN_COLUMNS if k in ctx.columns]
        if not cols:
            return []
        table = clustered_mean(ctx.source, ["strategy"], [k for k, _ in cols])
        return [Section(
            "turns", "Turns, busts and holds",
            "How each strategy pushes its luck: turns, rolls, busts and holds per player "
            "and game, and its best banked turn.",
            [Table("Turns by strategy", "Mean per player and game, with 95% intervals.",
                   table, [Column("strategy", "Strategy"), Column("players", "Players", "int")]
                   + [Column(k, label, "ci_num", 2) for k, label in cols],
                   csv="pig_turns_by_strategy")])]


HOOKS = PigHooks
