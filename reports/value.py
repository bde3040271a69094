"""The causal value report: what each component is worth, from a `simkit value` folder.

Reads OUT/value.json (written by `simkit.valuation.run`); `reports.render.write_value_report`
writes OUT/value.html (one self-contained page) and OUT/value.md from these sections, and
`reports.build` adds them to the balance report of a run that holds RUN/value. One section
per component kind: a table sorted from strongest to weakest against the kind's average,
and a chart of the same with intervals, each beside the A/A control row, which must show
about zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from reports.charts import interval_bars
from reports.document import Chart, Column, Note, Section, Table
from simkit.errors import SimkitError

VALUE_HTML, VALUE_MD, VALUE_TABLES = "value.html", "value.md", "value_tables"

EXPLAIN = (
    "\"Players who had it won more\" is an association: a strong player seeks out a card, so "
    "the card looks strong. \"It makes you win more\" is a cause. simkit measures the cause by "
    "playing every deal twice: as configured, and with this one component neutralised, all "
    "else equal (the same shuffles and draws, so only the change and what players do about "
    "it differ). Value is the win share the touched players lose when it is neutralised; "
    "\"vs average\" compares that with the kind's average component.")

TABLE_EXPLAIN = (
    "Worth: the win share (and points) these players lose when it is neutralised, as "
    "configured minus neutralised, on the same deals. vs average: that worth minus the "
    "average worth of its kind, which the verdict reads. The A/A row (no change, fresh "
    "deals) must cover 0: it checks the comparison for a shift, not the width of the "
    "intervals (unpaired, its own is wider).")

COLUMNS = [
    Column("name", "Component"),
    Column("verdict", "Verdict"),
    Column("vs_average", "vs average (points)", "ci_pp"),
    Column("value", "Worth (win-share points)", "ci_pp"),
    Column("score", "Worth (points scored)", "ci_num"),
    Column("win_configured", "Win share of these players", "pct"),
    Column("players", "Players", "int"),
]


def plural(kind: str) -> str:
    """"Witch" -> "Witches", "Recipe card" -> "Recipe cards"."""
    return kind + ("es" if kind.endswith(("ch", "sh", "s", "x")) else "s")


def read_value(folder: Path) -> dict[str, Any]:
    """value.json of a finished `simkit value` folder (one clear line when it is not)."""
    path = Path(folder) / "value.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimkitError(f"{folder}: no value.json (not a finished `simkit value` run)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != "value" or "table" not in data:
        raise SimkitError(f"{path}: not a simkit value result")
    return data


VALUE_DIR = "value"  # a run folder's value result: RUN/value/value.json


def value_for(run_path: Path, manifest: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The `simkit value` result kept in RUN/value for this run, and a note: (None, why)
    when there is none, or it is of another game, player count, lineup or config."""
    folder = Path(run_path) / VALUE_DIR
    if not (Path(run_path) / "manifest.json").is_file() or not (folder / "value.json").is_file():
        return None, ""  # not a finished run folder (e.g. a run judged while it plays)
    try:
        data = read_value(folder)
    except SimkitError as exc:
        return None, f"{folder}: not used ({exc})."
    lineup = [s["name"] for s in manifest.get("strategies", [])]
    theirs = [s["name"] for s in data.get("strategies", [])]
    same = (data.get("game") == manifest.get("game")
            and data.get("players") == manifest.get("players") and theirs == lineup
            and data.get("config", {}).get("hash") == manifest.get("config", {}).get("hash"))
    if not same:
        return None, (f"{folder} holds a value run of another game, player count, lineup or "
                      "config; not used. Run `simkit value` with this run's options into it.")
    return data, f"Causal worth from {folder} ({data['games']:,} games as configured)."


def frame_of(data: dict[str, Any]) -> pl.DataFrame:
    """The value table, with None (JSON's NaN) as NaN."""
    return pl.DataFrame(data["table"], infer_schema_length=None)


def sections(data: dict[str, Any]) -> list[Section]:
    """One section per component kind, each with the A/A control row."""
    frame = frame_of(data)
    aa = frame.filter(pl.col("a_a"))
    out = []
    for kind in frame.filter(~pl.col("a_a"))["kind"].unique(maintain_order=True):
        part = (frame.filter(pl.col("kind") == kind)
                .sort("vs_average", descending=True, nulls_last=True))
        both = pl.concat([part, aa], how="diagonal_relaxed")
        # the chart shows the A/A row's own value (its true value, and average, is 0)
        shown = both.with_columns(
            [pl.when(pl.col("a_a")).then(pl.col(c.replace("vs_average", "value")))
             .otherwise(pl.col(c)).alias(c)
             for c in ("vs_average", "vs_average_lo", "vs_average_hi")])
        why = data.get("why", {}).get(kind, "")
        stronger = part.filter(pl.col("verdict") == "stronger")["name"].to_list()
        weaker = part.filter(pl.col("verdict") == "weaker")["name"].to_list()
        said = (f"Stronger than the average {kind.lower()}: {', '.join(stronger) or 'none'}. "
                f"Weaker: {', '.join(weaker) or 'none'}.")
        chart = interval_bars(shown, label="name",
                              value="vs_average" if len(part) > 1 else "value",
                              title=f"{kind}: worth against the average {kind.lower()}",
                              xlabel="win-share points per touched player", signed=True)
        out.append(Section(
            f"value-{kind.lower().replace(' ', '-')}", f"{plural(kind)}: what each is worth",
            f"Each {kind.lower()} neutralised in turn: {why}",
            [Note(said), Table(f"{plural(kind)}, strongest first", TABLE_EXPLAIN, both, COLUMNS,
                               csv=f"value_{kind.lower().replace(' ', '_')}"),
             Chart(f"{plural(kind)} against their average", "Bars: worth minus the kind's average "
                   "(points of win share), with 95% intervals; the A/A row must cover 0.",
                   chart)]))
    return out


def verdict_lines(data: dict[str, Any]) -> list[str]:
    """The verdict in a few terminal lines: per kind, the clear outliers, and the A/A."""
    frame = frame_of(data)
    lines = []
    for kind in frame.filter(~pl.col("a_a"))["kind"].unique(maintain_order=True):
        part = frame.filter(pl.col("kind") == kind).sort("vs_average", descending=True,
                                                         nulls_last=True)
        for verdict in ("stronger", "weaker"):
            rows = part.filter(pl.col("verdict") == verdict)
            if rows.height:
                items = ", ".join(f"{r['name']} {r['vs_average'] * 100:+.1f} "
                                  f"[{r['vs_average_lo'] * 100:+.1f}, "
                                  f"{r['vs_average_hi'] * 100:+.1f}]"
                                  for r in rows.iter_rows(named=True))
                lines.append(f"{plural(kind)} {verdict} than average (points): {items}")
        if not part.filter(pl.col("verdict").is_in(["stronger", "weaker"])).height:
            lines.append(f"{plural(kind)}: none clearly stronger or weaker than average.")
    for r in frame.filter(pl.col("a_a")).iter_rows(named=True):
        lines.append(f"A/A control (true value 0): {r['value'] * 100:+.2f} "
                     f"[{r['value_lo'] * 100:+.2f}, {r['value_hi'] * 100:+.2f}] points: "
                     f"{r['verdict']}.")
    return [line.replace("-", "\u2212") if False else line for line in lines]
