"""The causal value report: what each component is worth, from a `simkit value` folder.

Reads OUT/value.json (written by `simkit.value.run`) and writes OUT/value.html (one
self-contained page) and OUT/value.md. One section per component kind: a table sorted from
strongest to weakest against the kind's average, and a chart of the same with intervals,
each beside the A/A control row, which must show about zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from reports.charts import interval_bars
from reports.document import Chart, Column, Note, Section, Table
from reports.render import CSS, _atomic_write, _e, _html_section, _md_table
from simkit.errors import SimkitError

VALUE_HTML, VALUE_MD, VALUE_TABLES = "value.html", "value.md", "value_tables"

EXPLAIN = (
    "\"Players who had it won more\" is an association: a strong player seeks out a card, so "
    "the card looks strong. \"It makes you win more\" is a cause. simkit measures the cause by "
    "playing every deal twice: as configured, and with this one component neutralised, all "
    "else equal (the same shuffles and draws, so only the change and what players do about "
    "it differ). Value is the win share the touched players lose when it is neutralised; "
    "\"vs average\" compares that with the kind's average component.")

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
        why = data.get("why", {}).get(kind, "")
        stronger = part.filter(pl.col("verdict") == "stronger")["name"].to_list()
        weaker = part.filter(pl.col("verdict") == "weaker")["name"].to_list()
        said = (f"Stronger than the average {kind.lower()}: {', '.join(stronger) or 'none'}. "
                f"Weaker: {', '.join(weaker) or 'none'}.")
        chart = interval_bars(both, label="name", value="vs_average" if len(part) > 1 else "value",
                              title=f"{kind}: worth against the average {kind.lower()}",
                              xlabel="win-share points per touched player", signed=True)
        out.append(Section(
            f"value-{kind.lower().replace(' ', '-')}", f"{plural(kind)}: what each is worth",
            f"Each {kind.lower()} neutralised in turn: {why}",
            [Note(said), Table(f"{plural(kind)}, strongest first", EXPLAIN, both, COLUMNS,
                               csv=f"value_{kind.lower().replace(' ', '_')}"),
             Chart(f"{plural(kind)} against their average", "Bars: worth minus the kind's average "
                   "(points of win share), with 95% intervals; the A/A row must cover 0.",
                   chart)]))
    return out


def _method(data: dict[str, Any]) -> str:
    m = data.get("method", {})
    return (f"Estimate: {m.get('estimate', '')}. Intervals: {m.get('interval', '')}. "
            f"Verdicts: {m.get('multiplicity', '')}; \"stronger\" and \"weaker\" are the "
            "components whose difference from their kind's average survives that control, "
            "so about 1 in 20 of them may be called wrongly, not 1 in 20 of every row.")


def write_value_report(folder: Path) -> tuple[Path, Path]:
    """Write value.html and value.md into `folder`."""
    folder = Path(folder)
    data = read_value(folder)
    secs = sections(data)
    title = f"{data['title']}: what each component is worth"
    lineup = ", ".join(s["name"] for s in data["strategies"])
    sub = (f"{data['players']} players ({lineup}); {data['games']:,} deals-games as "
           f"configured, {data['kernel_games']:,} games played in all; seed {data['seed']}")
    html_parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f'<header class="top"><div class="wrap"><div class="eyebrow">simkit value report'
        f'</div><h1>{_e(title)}</h1><p class="sub">{_e(sub)}</p><div class="cmd">'
        f"<span>Reproduce this run</span><code>{_e(data['command'])}</code></div></div>"
        '</header><main class="wrap">',
        f'<section id="what"><h2>What this measures</h2><p class="intro">{_e(EXPLAIN)}</p>'
        f'<p class="small">{_e(_method(data))}</p></section>']
    md = [f"# {title}", "", sub, "", "```sh", data["command"], "```", "", EXPLAIN, "",
          _method(data)]
    for s in secs:
        html_parts.append(_html_section(s))
        md += ["", f"## {s.title}", "", s.intro]
        for b in s.blocks:
            if isinstance(b, Table):
                md += ["", _md_table(b)]
            elif isinstance(b, Note):
                md += ["", b.text]
    if data.get("config", {}).get("placeholders"):
        n = len(data["config"]["placeholders"])
        note = (f"This run used {n} placeholder values (see `simkit show {data['game']}`): "
                "values describe the placeholder data, not the published game.")
        html_parts.append(f'<p class="note">{_e(note)}</p>')
        md += ["", f"_{note}_"]
    html_parts.append("</main></body></html>")
    _atomic_write(folder / VALUE_HTML, "\n".join(html_parts))
    _atomic_write(folder / VALUE_MD, "\n".join(md) + "\n")
    tables = folder / VALUE_TABLES
    if tables.is_symlink() or (tables.exists() and not tables.is_dir()):
        raise SimkitError(f"{tables}: not a folder simkit made; remove it and run again")
    tables.mkdir(exist_ok=True)
    for s in secs:
        for b in s.blocks:
            if isinstance(b, Table) and b.csv:
                b.frame.write_csv(tables / f"{b.csv}.csv")
    return folder / VALUE_HTML, folder / VALUE_MD


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
