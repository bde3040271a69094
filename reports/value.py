"""The causal value report: what each component is worth, from a `simkit value` folder.

Reads OUT/value.json (written by `simkit.valuation.run`); `reports.value_page.write_value_report`
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
from reports.targets import component_margin, load_targets
from simkit import causal
from simkit.errors import SimkitError
from simkit.words import shown

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


def frame_of(data: dict[str, Any], margin: float | None = None) -> pl.DataFrame:
    """The value table, with None (JSON's NaN) as NaN, its verdicts judged against
    `margin` (by default the game's targets' component_effect.margin_points)."""
    frame = pl.DataFrame(data["table"], infer_schema_length=None)
    if "vs_average_se" not in frame.columns:  # a table without what a verdict needs
        return frame
    if margin is None:
        margin = component_margin(load_targets(game=data.get("game")))
    return causal.verdicts(frame, margin)


def verdict_words(margin: float) -> str:
    """What each verdict word means, for the page beside the table."""
    m = f"{margin * 100:g}"
    return (f"Verdicts, against the kind's average over the components seen in play, with "
            f"a margin of {m} points of win share (targets: component_effect.margin_points): "
            f"stronger / weaker: clearly more than {m} points above / below it; about "
            f"average: clearly within {m} points of it (an equivalence test); not yet sure: "
            "neither yet, more games decide; not seen: neutralising it changed no game (it "
            "cannot occur with this player count, or no player uses it), so it is left out "
            "of the average. Each kind's stronger/weaker calls, and its about-average calls, "
            "are controlled by Benjamini-Hochberg at 5%: of the components given such a "
            "call, the expected share given it wrongly is at most 5%; it does not make each "
            "row's call 95% sure.")


def sections(data: dict[str, Any], margin: float | None = None) -> list[Section]:
    """One section per component kind, each with the A/A control row; verdicts against
    `margin` (see `frame_of`)."""
    frame = frame_of(data, margin)
    margin = float(frame["margin"][0]) if "margin" in frame.columns else causal.MARGIN
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
        unsure = part.filter(pl.col("verdict") == causal.UNSURE).height
        unseen = part.filter(pl.col("verdict") == causal.NOT_SEEN)["name"].to_list()
        said = (f"Stronger than the average {kind.lower()} by more than {margin * 100:g} "
                f"points: {', '.join(stronger) or 'none'}. Weaker by more than that: "
                f"{', '.join(weaker) or 'none'}." + (f" Not yet sure: {unsure}." if unsure
                                                      else "")
                + (f" Never changed a game (left out of the average): {', '.join(unseen)}."
                   if unseen else ""))
        chart = interval_bars(shown, label="name",
                              value="vs_average" if len(part) > 1 else "value",
                              title=f"{kind}: worth against the average {kind.lower()}",
                              xlabel="win-share points per touched player", signed=True)
        out.append(Section(
            f"value-{kind.lower().replace(' ', '-')}", f"{plural(kind)}: what each is worth",
            f"Each {kind.lower()} neutralised in turn: {why}",
            [Note(said), Note(verdict_words(margin)),
             Table(f"{plural(kind)}, strongest first", TABLE_EXPLAIN, both, COLUMNS,
                               csv=f"value_{kind.lower().replace(' ', '_')}"),
             Chart(f"{plural(kind)} against their average", "Bars: worth minus the kind's average "
                   "(points of win share), with 95% intervals; the A/A row must cover 0.",
                   chart)]))
    return out


def verdict_lines(data: dict[str, Any], margin: float | None = None) -> list[str]:
    """The verdict in a few terminal lines: per kind, the clear outliers, and the A/A."""
    frame = frame_of(data, margin)
    margin = float(frame["margin"][0]) if "margin" in frame.columns else causal.MARGIN
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
                lines.append(f"{plural(kind)} {verdict} than average by more than "
                             f"{margin * 100:g} points (points): {items}")
        if not part.filter(pl.col("verdict").is_in(["stronger", "weaker"])).height:
            lines.append(f"{plural(kind)}: none clearly stronger or weaker than average by "
                         f"more than {margin * 100:g} points.")
    for r in frame.filter(pl.col("a_a")).iter_rows(named=True):
        lines.append(f"A/A control (true value 0): {r['value'] * 100:+.2f} "
                     f"[{r['value_lo'] * 100:+.2f}, {r['value_hi'] * 100:+.2f}] points: "
                     f"{r['verdict']}.")
    return [shown(line) for line in lines]  # the names come from the config
