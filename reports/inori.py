"""Inori report hooks: every card (completed), Great Tree space (used) and Rune tile kind
(played) as a component, and the sections an Inori designer asks about (where the points
come from, the token and rune economy, the colours players end with)."""

from __future__ import annotations

import polars as pl

from reports.document import Column, Section, Table
from reports.hooks import Context, GameHooks, register
from reports.load import Run
from reports.metrics import Component, clustered_mean

SOURCES = (("card_effects", "Card effects"), ("tree_effects", "Tree effects"),
           ("completed_cards", "Completed cards"), ("new_start_cards", "New Start cards"),
           ("majorities", "Majorities"))
RUNE_KINDS = (("gain", "Favor tokens"), ("move_to_colour", "Move to a colour"),
              ("move_from_colour", "Move from a colour"), ("occupied", "Occupied space"))
ECONOMY = [
    ("tokens_gained", "Tokens gained"), ("tokens_paid", "Tokens paid"),
    ("runes_drawn", "Runes drawn"), ("runes_played", "Runes played"),
    ("tiles_placed", "Altar tiles placed"), ("neutral_placed", "Neutral markers placed"),
    ("card_offerings", "Offerings to cards"), ("tree_offerings", "Offerings to the tree"),
    ("cards_completed", "Cards completed"), ("markers_passed", "Markers lost (no offering)"),
    ("seasons_first", "Seasons as first player"),
]
CARD_KINDS = (("cards", "Journey card"), ("start_cards", "Start card"),
              ("new_start_cards", "New Start card"))


def _entries(run: Run, table: str) -> dict[str, str]:
    return {str(e["id"]): str(e.get("name", e["id"]))
            for e in run.resolved.get(table, []) if isinstance(e, dict) and "id" in e}


@register("inori")
class InoriHooks(GameHooks):
    length_unit = "seasons"
    seat_note = "Seat 0 is the first player of the first season."
    summary_ready = True

    def components(self, ctx: Context) -> list[Component]:
        cols = set(ctx.columns)
        out = []
        for table, kind in CARD_KINDS:
            for c, name in _entries(ctx.run, table).items():
                if f"card_{c}" in cols:
                    out.append(Component(kind, c, name, pl.col(f"card_{c}") > 0, "completed"))
        for ts, name in _entries(ctx.run, "tree").items():
            if f"tree_{ts}" in cols:
                out.append(Component("Great Tree space", ts, name, pl.col(f"tree_{ts}") > 0,
                                     "offered to"))
        for kind, label in RUNE_KINDS:
            if f"rune_{kind}" in cols:
                out.append(Component("Rune tile kind", kind, label, pl.col(f"rune_{kind}") > 0,
                                     "played"))
        return out

    def sections(self, ctx: Context) -> list[Section]:
        cols = set(ctx.columns)
        out = []
        sources = [(f"points_{k}", label) for k, label in SOURCES if f"points_{k}" in cols]
        if sources:
            table = clustered_mean(ctx.source, ["strategy"], [k for k, _ in sources])
            out.append(Section(
                "points-by-source", "Where the points come from",
                "Points per player and game from card effects, Great Tree effects, completed "
                "cards at the season ends, incomplete New Start cards and the final "
                "majorities.",
                [Table("Points by source and strategy",
                       "Mean points per player and game, with 95% intervals.", table,
                       [Column("strategy", "Strategy"), Column("players", "Players", "int")]
                       + [Column(k, label, "ci_num", 1) for k, label in sources],
                       csv="inori_points_by_source")]))
        economy = [(k, label) for k, label in ECONOMY if k in cols]
        if economy:
            table = clustered_mean(ctx.source, ["strategy"], [k for k, _ in economy])
            out.append(Section(
                "economy", "Tokens, runes and offerings",
                "How each strategy gains and spends Favor tokens and Rune tiles, and where it "
                "puts its offering markers, per player and game.",
                [Table("Economy by strategy", "Mean per player and game, with 95% intervals.",
                       table,
                       [Column("strategy", "Strategy"), Column("players", "Players", "int")]
                       + [Column(k, label, "ci_num", 2) for k, label in economy],
                       csv="inori_economy_by_strategy")]))
        colours = [(f"tokens_{x}", name) for x, name in _entries(ctx.run, "colours").items()
                   if f"tokens_{x}" in cols]
        if colours:
            table = clustered_mean(ctx.source, ["strategy"], [k for k, _ in colours])
            out.append(Section(
                "colours", "Favor tokens held at the end",
                "The colours players end the game with: they score the majorities of the "
                "colours whose Altar tiles are on the Great Tree.",
                [Table("Tokens held at the end, by colour and strategy",
                       "Mean per player and game, with 95% intervals.", table,
                       [Column("strategy", "Strategy"), Column("players", "Players", "int")]
                       + [Column(k, label, "ci_num", 2) for k, label in colours],
                       csv="inori_tokens_by_colour")]))
        return out
