"""Carnuta report hooks: every card, starting card and Bonus Ingredient token as a
component, and the sections a Carnuta designer asks about (the rune economy and the
Sickle, points by scoring kind)."""

from __future__ import annotations

import polars as pl

from reports.document import Column, Section, Table
from reports.hooks import Context, GameHooks, register
from reports.load import Run
from reports.metrics import Component, clustered_mean

SCORE_KINDS = ("set3", "set2", "each", "two_types", "own", "flat5", "flat2")
RUNE_COLUMNS = [
    ("runes_taken", "Runes taken"), ("runes_flipped", "Runes flipped (action)"),
    ("runes_paid_flip", "Runes flipped to pay"), ("runes_returned", "Runes returned to pay"),
    ("sickles_used", "Sickles used"), ("bonus_tokens", "Bonus tokens"),
    ("cards_played", "Cards played"), ("turns", "Turns"),
]


def _names(run: Run, table: str) -> dict[str, str]:
    return {str(e["id"]): str(e.get("name", e["id"]))
            for e in run.resolved.get(table, []) if isinstance(e, dict) and "id" in e}


@register("carnuta")
class CarnutaHooks(GameHooks):
    seat_note = "Seat 0 is the first player (the Ancestor)."
    summary_ready = True

    def components(self, ctx: Context) -> list[Component]:
        cols = set(ctx.columns)
        out = []
        if "starting_card" in cols:
            present = set(ctx.present("starting_card"))
            for c, name in _names(ctx.run, "starting_cards").items():
                if c in present:
                    extra = pl.col("start_points") if "start_points" in cols else None
                    out.append(Component("Starting card", c, name,
                                         pl.col("starting_card") == c, "were dealt", extra,
                                         "points from the starting card", dealt=True))
        for c, name in _names(ctx.run, "cards").items():
            if f"card_{c}" in cols:
                out.append(Component("Card", c, name, pl.col(f"card_{c}") > 0, "played"))
        for x, name in _names(ctx.run, "ingredients").items():
            if f"token_{x}" in cols:
                out.append(Component("Bonus token", x, name, pl.col(f"token_{x}") > 0, "took"))
        return out

    def sections(self, ctx: Context) -> list[Section]:
        cols = set(ctx.columns)
        out = []
        runes = [(k, label) for k, label in RUNE_COLUMNS if k in cols]
        if runes:
            table = clustered_mean(ctx.source, ["strategy"], [k for k, _ in runes])
            out.append(Section(
                "runes", "Rune economy and the Sickle",
                "How each strategy gets and spends its runes, and how often it uses its two "
                "Sickles, per player and game.",
                [Table("Runes, Sickles and tokens by strategy",
                       "Mean per player and game, with 95% intervals.", table,
                       [Column("strategy", "Strategy"), Column("players", "Players", "int")]
                       + [Column(k, label, "ci_num", 2) for k, label in runes],
                       csv="carnuta_runes_by_strategy")]))
        kinds = [k for k in SCORE_KINDS if f"points_{k}" in cols]
        if kinds:
            values = [f"points_{k}" for k in kinds]
            table = clustered_mean(ctx.source, ["strategy"], values)
            out.append(Section(
                "scoring-kinds", "Points by scoring kind",
                "Which kinds of scoring card the points come from, per player and game.",
                [Table("Points by scoring kind and strategy",
                       "Mean points per player and game from each scoring kind.", table,
                       [Column("strategy", "Strategy"), Column("players", "Players", "int")]
                       + [Column(v, k.replace("_", " "), "ci_num", 1)
                          for v, k in zip(values, kinds, strict=True)],
                       csv="carnuta_points_by_kind")]))
        return out
