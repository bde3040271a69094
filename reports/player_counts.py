"""Does a tournament's order hold across player counts? The comparison page of
`simkit tournament --players 2,3,4` (player_counts.md, .html and .csv in OUT).

Judged per pair of strategies from each count's win matrix: the share of comparisons in
which one finished ahead of the other (ties 1/2) with its 95% interval clustered by deal
(`Result.matrix`). At a count the pair is "clear" when the interval excludes 50%, else
"level". A pair REVERSES when it is clear one way at one count and clear the other way at
another: both signs clear, so a reversal is named only on evidence at both counts (a
false one needs two wrong-signed clear intervals, about 0.025^2 per pair and two counts).
A pair clear at some counts and level at others FADES: said, not flagged.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import polars as pl

from reports.document import Column, Note, Section, Table
from reports.files import atomic_write
from reports.markdown import md_block, md_escape, md_sections
from reports.page import command_html, escape, facts_html, page, section_html
from simkit.results import write_csv

MD_FILE = "player_counts.md"
HTML_FILE = "player_counts.html"
CSV_FILE = "player_counts.csv"


def _side(lo: float, hi: float) -> int:
    """+1: the first strategy clearly ahead; -1: clearly behind; 0: level (or unknown)."""
    return 1 if lo > 0.5 else -1 if hi < 0.5 else 0


def pair_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per pair and count: the first strategy's share ahead of the second, its
    interval and which side is clearly ahead, with the pair's verdict across counts."""
    names = [s["name"] for s in records[0]["strategies"]]
    rows = []
    for a, b in itertools.combinations(names, 2):
        per = []
        for rec in records:
            cell = next(r for r in rec["win_matrix"]
                        if r["strategy"] == a and r["opponent"] == b)
            per.append({"strategy": a, "opponent": b, "players": rec["players"],
                        "ahead": cell["ahead"], "ahead_lo": cell["ahead_lo"],
                        "ahead_hi": cell["ahead_hi"], "deals": cell["deals"],
                        "side": _side(cell["ahead_lo"], cell["ahead_hi"])})
        sides = {r["side"] for r in per}
        verdict = ("reverses" if {1, -1} <= sides else "fades" if 0 in sides and len(sides) > 1
                   else "holds" if sides != {0} else "level")
        for r in per:
            r["verdict"] = verdict
        rows += per
    return rows


def _leader(r: dict[str, Any]) -> str:
    share = r["ahead"] if r["side"] > 0 else 1 - r["ahead"]
    lo, hi = ((r["ahead_lo"], r["ahead_hi"]) if r["side"] > 0
              else (1 - r["ahead_hi"], 1 - r["ahead_lo"]))
    first, second = ((r["strategy"], r["opponent"]) if r["side"] > 0
                     else (r["opponent"], r["strategy"]))
    return (f"{first} ahead of {second} at {r['players']} players "
            f"({share:.1%} [{lo:.1%}, {hi:.1%}])")


def answer(records: list[dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    """The page's one line: the reversals (each with its evidence), or that none was found."""
    ns = [str(r["players"]) for r in records]
    counts = ", ".join(ns[:-1]) + " and " + ns[-1]
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        pairs.setdefault((r["strategy"], r["opponent"]), []).append(r)
    flips = [ps for ps in pairs.values() if ps[0]["verdict"] == "reverses"]
    if not flips:
        fades = sum(ps[0]["verdict"] == "fades" for ps in pairs.values())
        faded = (f"; {fades} of {len(pairs)} pairs are clear at some counts and level at "
                 "others" if fades else "")
        return (f"No pair of strategies reverses its order between {counts} players{faded}.")
    said = []
    for ps in flips:
        up = next(r for r in ps if r["side"] > 0)
        down = next(r for r in ps if r["side"] < 0)
        said.append(f"{_leader(up)} but {_leader(down)}")
    return (f"The order REVERSES with the player count for {len(flips)} of {len(pairs)} "
            f"pairs: {'; '.join(said)}. Call a strategy the strongest only at the counts "
            "where it is ahead.")


def sections(records: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[Section]:
    frame = pl.DataFrame(rows).drop("side")
    places = pl.DataFrame([{"strategy": s["strategy"], "players": rec["players"],
                            "place": s["place"], "win_share": s["win_share"],
                            "win_share_lo": s["win_share_lo"],
                            "win_share_hi": s["win_share_hi"]}
                           for rec in records for s in rec["standings"]])
    flagged = frame.filter(pl.col("verdict") == "reverses")
    pairs = Section("pairs", "Head to head at each count", "Which pairs change order with "
                    "the player count: the share of games the first strategy finished ahead "
                    "of the second, at each count.", [
        Note("A pair reverses when its 95% interval (clustered by deal) lies above 50% at one "
             "count and below 50% at another; it fades when it is clear at some counts and "
             "level (the interval holds 50%) at others.", "info"),
        Table("Every pair at every count", "Share of comparisons in which the strategy "
              "finished ahead of the opponent (ties 1/2), with its 95% interval clustered by "
              "deal; the verdict is the pair's across every count.",
              frame.sort("verdict", "strategy", "opponent", "players"),
              [Column("strategy", "Strategy"), Column("opponent", "Opponent"),
               Column("players", "Players", "int"), Column("ahead", "Ahead", "ci_pct"),
               Column("deals", "Deals", "int"), Column("verdict", "Verdict")]),
    ])
    if flagged.height:
        pairs.blocks.insert(0, Note(f"{flagged.height // len(records)} pair(s) reverse their "
                                    "order between player counts.", "warn"))
    standings = Section("places", "Places at each count", "Each strategy's rating place and "
                        "win share per seat played at each count (fair share 1/players).", [
        Table("Places by player count", "Place by Plackett-Luce ordinal at that count and "
              "win share per seat played with its 95% interval over deals.",
              places.sort("strategy", "players"),
              [Column("strategy", "Strategy"), Column("players", "Players", "int"),
               Column("place", "Place", "int"), Column("win_share", "Win share", "ci_pct")]),
    ])
    return [pairs, standings]


def render_markdown(records: list[dict[str, Any]], command: str, line: str,
                    secs: list[Section]) -> str:
    e = md_escape
    first = records[0]
    out = [f"# {e(first['title'])} tournament by player count", "",
           f"**{e(line)}**", "",
           f"Players {', '.join(str(r['players']) for r in records)}, seed {first['seed']}, "
           f"{first['games_per_lineup']:,} games per lineup at each count (rounded up to whole "
           "deals); each count's own tournament is in its players-N folder.", "",
           "Reproduce:", "", *md_block(command)]
    out += md_sections(secs, e)
    return "\n".join(out) + "\n"


def render_html(records: list[dict[str, Any]], command: str, line: str,
                secs: list[Section]) -> str:
    first = records[0]
    counts = ", ".join(str(r["players"]) for r in records)
    lead = (f'<p class="sub"><strong>{escape(line)}</strong></p>'
            + facts_html([("Players", counts), ("Seed", first["seed"])])
            + command_html("Reproduce", command))
    return page(f"{first['title']} tournament by player count", "simkit tournament", lead,
                [section_html(s) for s in secs],
                nav=[(f"players-{r['players']}/tournament.html", f"{r['players']} players")
                     for r in records], footer=f"Table as CSV: {CSV_FILE}.")


def write_report(records: list[dict[str, Any]], out: Path, command: str) -> str:
    """Write player_counts.md, .html and .csv into `out`; returns the answer line."""
    rows = pair_rows(records)
    line = answer(records, rows)
    secs = sections(records, rows)
    write_csv(pl.DataFrame(rows), out / CSV_FILE)
    atomic_write(out / MD_FILE, render_markdown(records, command, line, secs))
    atomic_write(out / HTML_FILE, render_html(records, command, line, secs))
    return line
