"""The tournament report: ratings, win share and the win matrix as tables, a heat map, CSV.

Input is the record `simkit.tournaments.record` builds (also written as tournament.json),
so the page can be rebuilt from that file alone. Files: tournament.html (self-contained,
the renderer of the balance report), tournament.md, ratings.csv and win_matrix.csv.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from reports.charts import interval_bars, win_heat_map  # noqa: E402
from reports.document import Chart, Column, Note, Section, Table  # noqa: E402
from reports.files import atomic_write  # noqa: E402
from reports.markdown import md_sections, md_table  # noqa: E402
from reports.page import command_html, escape, facts_html, page, section_html  # noqa: E402
from reports.paths import shown_config
from simkit.results import write_csv  # noqa: E402

HTML_FILE = "tournament.html"
MD_FILE = "tournament.md"
RATINGS_CSV = "ratings.csv"
MATRIX_CSV = "win_matrix.csv"


def frames(rec: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(ratings, win matrix) as frames, the CSV files' contents."""
    ratings = pl.DataFrame(rec["standings"]).select(
        "place", "strategy", "mu", "sigma", "ordinal", "win_share", "win_share_lo",
        "win_share_hi", "seats_played")
    matrix = pl.DataFrame(rec["win_matrix"])
    return ratings, matrix


def sections(rec: dict[str, Any]) -> list[Section]:
    ratings, matrix = frames(rec)
    names = [s["name"] for s in rec["strategies"]]
    fair = 1.0 / rec["players"]
    share = np.full((len(names), len(names)), np.nan)
    for row in rec["win_matrix"]:
        share[names.index(row["strategy"]), names.index(row["opponent"])] = row["ahead"]
    order = [names.index(r["strategy"]) for r in rec["standings"]]
    ordered = [names[i] for i in order]
    wide = pl.DataFrame({"strategy": ordered} | {
        f"vs {names[j]}": [share[i, j] for i in order] for j in order})
    standings = Section("ratings", "Ratings", "Who is strongest: each strategy's "
                        "Plackett-Luce rating from every game's finishing order.", [
        Note(f"Ranked at {rec['players']} players only. A ranking can change with the player "
             "count (a strategy clearly ahead at 3 players may be level at 4): give "
             "`--players` every count the game is played at (e.g. `--players 2,3,4`) and "
             "player_counts.md flags each pair whose order reverses, before calling a "
             "strategy the strongest.",
             "warn"),
        Table("Ratings and win share", "Rated with openskill's Plackett-Luce model over every "
              "game in a fixed order; ordinal = mu - 3 sigma ranks the strategies; win share "
              f"is per seat played (fair share {fair:.1%}), with its 95% interval over deals.",
              ratings, [Column("place", "#", "int"), Column("strategy", "Strategy"),
                        Column("ordinal", "Ordinal", "num", 2), Column("mu", "mu", "num", 2),
                        Column("sigma", "sigma", "num", 2),
                        Column("win_share", "Win share", "ci_pct"),
                        Column("seats_played", "Seats played", "int")], csv=None),
        Chart("Win share by strategy", "Win share per seat played with its 95% interval; the "
              "dashed line is the fair share.",
              interval_bars(ratings, label="strategy", value="win_share",
                            title="Win share by strategy", xlabel="win share (%)",
                            reference=fair, reference_label=f"fair share {fair:.0%}",
                            unit="%")),
    ])
    matrix_section = Section("matrix", "Win matrix", "Head to head: how often each strategy "
                             "finished ahead of each other one in the games they shared.", [
        Chart("Win matrix", "Each cell: the share of games the row strategy finished ahead "
              "of the column strategy (ties count 1/2); blue above 50%, red below.",
              win_heat_map(ordered, share[np.ix_(order, order)], "Row ahead of column (%)")),
        Table("Win matrix", "Share of comparisons in which the row strategy finished ahead "
              "of the column strategy (ties 1/2), over every game both played.",
              wide, [Column("strategy", "Strategy")] + [
                  Column(f"vs {n}", f"vs {n}", "pct") for n in ordered]),
        Table("Every pair with its interval", "The same shares with 95% intervals "
              "clustered by deal (every lineup plays every deal, so games on a deal are "
              "dependent); comparisons counts seat pairs.",
              matrix.sort("strategy", "opponent"),
              [Column("strategy", "Strategy"), Column("opponent", "Opponent"),
               Column("ahead", "Ahead", "ci_pct"), Column("comparisons", "Comparisons", "int"),
               Column("deals", "Deals", "int")]),
    ])
    lineups = pl.DataFrame({"lineup": [", ".join(x) for x in rec["lineups"]]})
    design = Section("design", "How it was played", "Which lineups played and how.", [
        Note(f"{len(rec['lineups'])} lineups of {rec['players']} seats, each over the same "
             f"{rec['deals']:,} deals ({rec['games_per_lineup']:,} games per lineup, "
             f"{rec['games']:,} in all). Within a deal the lineup rotates through the seats, "
             "so every strategy sits in every seat."),
        Table("Lineups", "Every lineup played, seat 0 first before rotation.", lineups,
              [Column("lineup", "Lineup")]),
    ])
    if rec["config"]["placeholders"]:
        design.blocks.append(Note(f"This tournament used {len(rec['config']['placeholders'])} "
                                  "placeholder config values: results describe the "
                                  "placeholder data, not the published game.", "warn"))
    return [standings, matrix_section, design]


def render_html(rec: dict[str, Any], secs: list[Section]) -> str:
    facts = [("Game", rec["title"]), ("Players", rec["players"]),
             ("Strategies", ", ".join(s["name"] for s in rec["strategies"])),
             ("Games", f"{rec['games']:,}"), ("Seed", rec["seed"]),
             ("Config", f"{shown_config(rec['config']['source'])} "
                        f"(hash {rec['config']['hash']})"),
             ("Rating", rec["rating"]["model"])]
    lead = ('<p class="sub">Every strategy in every seat over the same deals</p>'
            + facts_html(facts) + command_html("Reproduce this tournament", rec["command"]))
    footer = (f'{escape(rec["rating"]["order"])}. Tables as CSV: {RATINGS_CSV}, '
              f"{MATRIX_CSV}.")
    return page(f"{rec['title']} tournament", "simkit tournament", lead,
                [section_html(s) for s in secs],
                nav=[(f"#{s.key}", s.title) for s in secs], footer=footer)


def render_markdown(rec: dict[str, Any], secs: list[Section]) -> str:
    out = [f"# {rec['title']} tournament", "",
           f"{rec['players']} players; {rec['games']:,} games; seed {rec['seed']}; "
           f"rating: {rec['rating']['model']}. Charts: `{HTML_FILE}`.", "",
           "Reproduce:", "", "```sh", rec["command"], "```"]
    out += md_sections(secs)
    return "\n".join(out) + "\n"


def standings_text(rec: dict[str, Any]) -> str:
    """The ratings and the win matrix as plain text, for the terminal."""
    secs = sections(rec)
    tables = [b for s in secs[:2] for b in s.blocks if isinstance(b, Table)]
    return "\n\n".join(md_table(t) for t in tables[:2])


def write_report(rec: dict[str, Any], out: Path) -> list[Path]:
    """Write the CSVs, tournament.md and tournament.html into `out`."""
    ratings, matrix = frames(rec)
    secs = sections(rec)
    for name, frame in ((RATINGS_CSV, ratings), (MATRIX_CSV, matrix)):
        write_csv(frame, out / name)  # atomic
    atomic_write(out / MD_FILE, render_markdown(rec, secs))
    atomic_write(out / HTML_FILE, render_html(rec, secs))
    return [out / n for n in (HTML_FILE, MD_FILE, RATINGS_CSV, MATRIX_CSV)]
