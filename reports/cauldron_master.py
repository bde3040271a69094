"""Cauldron Master report hooks: witches, recipe cards and ingredients as components, and
the sections a Cauldron Master designer asks about (witch use, the Favour of Hecate,
recipe bonuses, cards left unbrewed).

The results hold per-player counts, not the round-by-round witch choices, so "which witch
when" is read from what the counts do show: in a game shorter than the hand of witches,
the witch a player never used is the one they were saving for last.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from reports import metrics
from reports.document import Chart, Column, Note, Section, Table
from reports.hooks import Context, GameHooks, register
from reports.load import Run
from reports.metrics import MIN_GROUP, Component, as_proportion, clustered_mean


def _names(run: Run, table: str) -> dict[str, str]:
    return {str(e["id"]): str(e.get("name", e["id"]))
            for e in run.resolved.get(table, []) if isinstance(e, dict) and "id" in e}


def _witches(ctx: Context) -> list[tuple[str, str]]:
    """(id, name) of the witches in this run's results, in config order."""
    names = _names(ctx.run, "witches")
    return [(w, names.get(w, w)) for w in names if f"witch_{w}" in ctx.columns]


def _label_column(frame: pl.DataFrame, key: str, names: dict[str, str],
                  new: str = "name") -> pl.DataFrame:
    return frame.with_columns(pl.col(key).cast(pl.String).replace_strict(
        names, default=pl.col(key).cast(pl.String)).alias(new))


def _recipes(card: dict[str, Any], ingredients: dict[str, str]) -> str:
    """A recipe card's recipes in words: "2 Spider Venom + 1 Frog's Blood: +2; ..."."""
    out = []
    for recipe in card.get("recipes", []):
        need = [f"{n} {ingredients.get(x, x)}" for x, n in recipe.get("ingredients", {}).items()]
        need += [f"{n} {colour}" for colour, n in recipe.get("colours", {}).items()]
        out.append(f"{' + '.join(need)}: +{recipe.get('bonus', '?')}")
    return "; ".join(out)


@register("cauldron-master")
class CauldronMasterHooks(GameHooks):
    seat_note = ("Seat 0 is the first player, who holds the Favour of Hecate in round 1; "
                 "the Favour passes to the left every round.")
    summary_ready = True

    def components(self, ctx: Context) -> list[Component]:
        cols = ctx.columns
        out = [Component("Witch", w, name, pl.col(f"witch_{w}") > 0, "used")
               for w, name in _witches(ctx)]
        if "recipe_card" in cols:
            present = set(ctx.present("recipe_card"))
            for r, name in _names(ctx.run, "recipe_cards").items():
                if r in present:
                    out.append(Component(
                        "Recipe card", r, name, pl.col("recipe_card") == r,
                        "were dealt", pl.col("recipe_bonus") if "recipe_bonus" in cols else None,
                        "recipe bonus points", dealt=True))
        for x, name in _names(ctx.run, "ingredients").items():
            if f"scored_{x}" in cols:
                out.append(Component("Ingredient", x, name, pl.col(f"scored_{x}") > 0,
                                     "brewed", pl.col(f"scored_{x}"), "cards brewed"))
        return out

    def placeholders(self, run: Run) -> tuple[list[tuple[str, str]], list[str]]:
        shown, notes = super().placeholders(run)
        cards = {str(c.get("id")): c for c in run.resolved.get("recipe_cards", [])
                 if isinstance(c, dict)}
        ingredients = _names(run, "ingredients")
        options = run.resolved.get("options", {})
        unused = {str(w["id"]): str(w.get("name", w["id"])) for w in run.resolved.get(
            "witches", []) if isinstance(w, dict) and w.get("optional")
            and not options.get("amateur_witch", False)}
        keys = run.manifest["config"].get("placeholders") or []
        kept = []
        for key, item in zip(keys, shown, strict=True):
            parts = key.split(".")
            if len(parts) >= 2 and parts[0] == "witches" and parts[1] in unused:
                note = (f"{unused[parts[1]]} (optional witch): placeholder values, not used "
                        "in this run (options.amateur_witch = false).")
                if note not in notes:
                    notes.append(note)
                continue
            if len(parts) == 2 and parts[0] == "recipe_cards" and parts[1] in cards:
                item = (item[0], _recipes(cards[parts[1]], ingredients))
            kept.append(item)
        return kept, notes

    def sections(self, ctx: Context) -> list[Section]:
        cols = ctx.columns
        # Per-strategy means used by two sections, in one pass.
        values = {v: pl.col(v) for v in ("recipe_bonus", "cards_left", "potions") if v in cols}
        per_strategy = None
        if values:
            if "cards_left" in cols:
                values["none_left"] = pl.col("cards_left") == 0
            per_strategy = clustered_mean(ctx.source, ["strategy"], values)
            if "none_left" in values:
                per_strategy = as_proportion(per_strategy, "none_left")
        out = []
        if _witches(ctx):
            out.append(self._witch_section(ctx))
        out.append(self._hecate_section(ctx))
        if per_strategy is not None and "recipe_card" in cols and "recipe_bonus" in cols:
            out.append(self._recipe_section(ctx, per_strategy))
        if per_strategy is not None and "cards_left" in cols:
            out.append(self._leftover_section(ctx, per_strategy))
        return out

    # ------------------------------------------------------------------ witches
    def _witch_section(self, ctx: Context) -> Section:
        from reports import charts  # matplotlib, loaded only to draw

        witches = _witches(ctx)
        src = ctx.source
        hand = len(witches)
        # Asked whatever the data (a summary-only run keeps what the report asks for).
        means = clustered_mean(src, ["strategy"],
                               {w: pl.col(f"witch_{w}") == 0 for w, _ in witches},
                               where=pl.col("rounds") < hand)
        lengths = metrics.histogram(src.games, "rounds")
        blocks: list[Any] = []
        if int(means["players"].sum()) >= MIN_GROUP:
            for w, _ in witches:
                means = as_proportion(means, w)
            rows = []
            for r in means.iter_rows(named=True):
                for w, name in witches:
                    rows.append({"witch": name, "strategy": r["strategy"], "unused": r[w],
                                 "unused_lo": r[f"{w}_lo"], "unused_hi": r[f"{w}_hi"],
                                 "players": r["players"]})
            long = pl.DataFrame(rows)
            present = means["strategy"].to_list()
            wide = long.pivot("strategy", index="witch", values=["unused", "unused_lo",
                                                                 "unused_hi"])
            wide = wide.rename({f"unused_{s}": s for s in present} |
                               {f"unused_lo_{s}": f"{s}_lo" for s in present} |
                               {f"unused_hi_{s}": f"{s}_hi" for s in present})
            players = dict(zip(present, means["players"].to_list(), strict=True))
            wide = wide.with_columns(pl.lit(n).alias(f"{s}_players") for s, n in players.items())
            share_short = (lengths.filter(pl.col("rounds") < hand)["count"].sum()
                           / lengths["count"].sum())
            blocks += [
                Table("Witch left unused in short games",
                      f"In games that ended before the hand of {hand} witches was spent "
                      f"({share_short:.1%} of games), the share of players who never used each "
                      "witch, by strategy: the witch kept for later, or one whose small haul "
                      "would have made the game last longer.",
                      wide, [Column("witch", "Witch"),
                             *[Column(s, f"{s} ({n:,} players)", "ci_pct")
                               for s, n in players.items()]],
                      csv="witch_unused_in_short_games"),
                Chart("Witch left unused in short games",
                      "Bars show, for each strategy, how often each witch was the one left "
                      "unused in a short game, with 95% intervals.",
                      charts.grouped_bars(long, category="witch", group="strategy",
                                          value="unused", order=present,
                                          title="Witch left unused in short games",
                                          xlabel="witch", ylabel="share of players (%)")),
            ]
        else:
            blocks.append(Note(f"No game ended before the hand of {hand} witches was spent, "
                               "so the results cannot show which witch players save."))
        rows = []
        for w, name in witches:
            # Each use count as a subgroup of all players, its interval over every deal.
            by_times = clustered_mean(src, [f"witch_{w}"], ["win_share"],
                                      all_clusters=True).drop("clusters")
            by_times = as_proportion(by_times, "win_share", degenerate_only=True)
            total = int(by_times["players"].sum())
            for r in by_times.filter(pl.col("players") >= MIN_GROUP).iter_rows(named=True):
                k = r[f"witch_{w}"]
                rows.append({"witch": name, "times": int(k), "used": f"used {k}×",
                             "players": r["players"], "share": r["players"] / total,
                             "win_share": r["win_share"], "win_share_lo": r["win_share_lo"],
                             "win_share_hi": r["win_share_hi"]})
        counts = pl.DataFrame(rows)
        blocks += [
            Table("Win share by times each witch was used",
                  "Players grouped by how often they used a witch in the game; groups of fewer "
                  f"than {MIN_GROUP} players are left out.",
                  counts, [Column("witch", "Witch"), Column("times", "Times used", "int"),
                           Column("players", "Players", "int"),
                           Column("share", "Share of players", "pct"),
                           Column("win_share", "Win share", "ci_pct")],
                  csv="witch_use_counts"),
            Chart("Win share by times used",
                  "Win share of players by how often they used each witch, with 95% intervals; "
                  "the dashed line is the fair share.",
                  charts.grouped_bars(counts, category="witch", group="used", value="win_share",
                                      title="Win share by times each witch was used",
                                      xlabel="witch", ylabel="win share (%)",
                                      reference=1 / ctx.n_players, reference_label="fair share",
                                      order=sorted(set(counts["used"].to_list())))),
        ]
        return Section("witches", "Witches: which, and when",
                       "Every player holds one of each witch and gets them back only when the "
                       "hand is spent; the results count how often each player used each "
                       "witch (not in which round), so this section shows which witches go "
                       "unused and how using a witch more or less often goes with winning.",
                       blocks)

    # ------------------------------------------------------------------ Hecate
    def _hecate_section(self, ctx: Context) -> Section:
        from reports import charts  # matplotlib, loaded only to draw

        src, n = ctx.source, ctx.n_players
        games = metrics.histogram(src.games, "rounds")
        lengths = games.filter(pl.col("count") >= max(MIN_GROUP, 0.01 * games["count"].sum())
                               )["rounds"].to_list()
        # Grouped by length, then the rare lengths dropped: the same as dropping them first.
        by_len = clustered_mean(src, ["rounds", "seat"], ["win_share"]).filter(
            pl.col("rounds").is_in(lengths))
        by_len = as_proportion(by_len, "win_share", degenerate_only=True).with_columns(
            label=pl.col("seat").map_elements(ctx.seat_label, return_dtype=pl.String),
            favour=((pl.col("rounds").cast(pl.Int64) - pl.col("seat").cast(pl.Int64) - 1)
                    // n + 1).clip(0, None))
        by_strategy = as_proportion(clustered_mean(src, ["seat", "strategy"], ["win_share"]),
                                    "win_share", degenerate_only=True).with_columns(
            label=pl.col("seat").map_elements(ctx.seat_label, return_dtype=pl.String))
        strategies = sorted(set(by_strategy["strategy"].to_list()))
        blocks: list[Any] = [
            Table("Win share by seat and game length",
                  "The Favour of Hecate starts with the first player and passes left each "
                  "round, so in longer games the first seats hold it more often; 'Favour' is "
                  "how many rounds the seat held it (game lengths under 1% of games are left "
                  "out).",
                  by_len, [Column("rounds", "Rounds", "int"), Column("label", "Seat"),
                           Column("favour", "Favour (rounds)", "int"),
                           Column("games", "Games", "int"),
                           Column("win_share", "Win share", "ci_pct")],
                  csv="hecate_seat_by_length"),
            Table("Win share by seat and strategy",
                  "How each strategy fares in each seat: a seat effect that differs between "
                  "strategies shows which kind of play the turn order rewards.",
                  by_strategy, [Column("label", "Seat"), Column("strategy", "Strategy"),
                                Column("games", "Games", "int"),
                                Column("win_share", "Win share", "ci_pct")],
                  csv="seat_by_strategy"),
            Chart("Win share by seat and strategy",
                  "Win share of each strategy in each seat, with 95% intervals; the dashed "
                  "line is the fair share.",
                  charts.grouped_bars(by_strategy, category="label", group="strategy",
                                      value="win_share", order=strategies,
                                      title="Win share by seat and strategy", xlabel="seat",
                                      ylabel="win share (%)", reference=1 / n,
                                      reference_label="fair share")),
        ]
        return Section("hecate", "The Favour of Hecate and the first seat",
                       "When two players pick witches of equal initiative the holder of the "
                       "Favour of Hecate acts first; this section shows whether holding it, "
                       "and sitting early, pays.", blocks)

    # ------------------------------------------------------------------ recipes
    def _recipe_section(self, ctx: Context, by_strategy: pl.DataFrame) -> Section:
        from reports import charts  # matplotlib, loaded only to draw

        names = _names(ctx.run, "recipe_cards")
        by_card = clustered_mean(ctx.source, ["recipe_card"],
                                 ["recipe_bonus", "win_share", "score"])
        by_card = as_proportion(by_card, "win_share", degenerate_only=True)
        by_card = _label_column(by_card, "recipe_card", names).sort("recipe_bonus",
                                                                    descending=True)
        blocks: list[Any] = [
            Table("Recipe bonus by recipe card",
                  "Points each recipe card added through its bonuses, per player dealt it, with "
                  "that player's win share and mean score.",
                  by_card, [Column("name", "Recipe card"), Column("players", "Players", "int"),
                            Column("recipe_bonus", "Bonus points", "ci_num", 2),
                            Column("win_share", "Win share", "ci_pct"),
                            Column("score", "Mean score", "ci_num")],
                  csv="recipe_bonus_by_card"),
            Chart("Recipe bonus by recipe card",
                  "Mean bonus points per player dealt each card, with 95% intervals.",
                  charts.interval_bars(by_card, label="name", value="recipe_bonus", scale=1,
                                       title="Recipe bonus points by recipe card",
                                       xlabel="mean recipe bonus (points per player)",
                                       digits=2)),
            Table("Recipe bonus by strategy",
                  "How much each strategy earns from its recipe card.",
                  by_strategy, [Column("strategy", "Strategy"),
                                Column("players", "Players", "int"),
                                Column("recipe_bonus", "Bonus points", "ci_num", 2)],
                  csv="recipe_bonus_by_strategy"),
        ]
        return Section("recipes", "Recipe cards and their bonuses",
                       "Recipe cards are dealt at random, so differences between cards are "
                       "differences in the cards themselves.", blocks)

    # ------------------------------------------------------------------ leftovers
    def _leftover_section(self, ctx: Context, by_strategy: pl.DataFrame) -> Section:
        from reports import charts  # matplotlib, loaded only to draw

        src = ctx.source
        hist = metrics.histogram(src, "cards_left", "strategy")
        by_left = as_proportion(clustered_mean(src, ["cards_left"], ["win_share"]).filter(
            pl.col("players") >= MIN_GROUP), "win_share", degenerate_only=True)
        cols = [Column("strategy", "Strategy"), Column("players", "Players", "int"),
                Column("cards_left", "Cards left", "ci_num", 2),
                Column("none_left", "Nothing left", "ci_pct")]
        if "potions" in by_strategy.columns:
            cols.append(Column("potions", "Potions brewed", "ci_num", 2))
        blocks: list[Any] = [
            Table("Cards left unbrewed by strategy",
                  "Ingredient cards still in unfinished cauldrons at the end, which score "
                  "nothing, and potions brewed, per player.",
                  by_strategy, cols, csv="cards_left_by_strategy"),
            Chart("Cards left unbrewed",
                  "The share of players ending with each number of unbrewed cards, by "
                  "strategy.",
                  charts.distribution_lines(hist, group="strategy", value="cards_left",
                                            title="Cards left unbrewed at the end",
                                            xlabel="cards in unfinished cauldrons")),
            Table("Win share by cards left",
                  "Win share of players by how many cards they left unbrewed.",
                  by_left, [Column("cards_left", "Cards left", "int"),
                            Column("players", "Players", "int"),
                            Column("win_share", "Win share", "ci_pct")],
                  csv="win_share_by_cards_left"),
        ]
        return Section("leftovers", "Cards left unbrewed",
                       "Cards in a cauldron that is not full at the end are wasted; this shows "
                       "how much each strategy wastes and what it costs.", blocks)
