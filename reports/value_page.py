"""A `simkit value` folder's page: value.html and value.md (with value_tables/ as CSV).

The answer and the components outside their target (across kinds) first, then each kind's
section (`reports.value`), then what the numbers measure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from reports.document import Column, Note, Section, Table, csv_tables
from reports.files import write_report_files
from reports.markdown import md_block, md_escape, md_table
from reports.page import about_html, answer_line, command_html, escape, page, section_html
from reports.targets import FAIL, PASS, load_targets
from reports.value import EXPLAIN, VALUE_HTML, VALUE_MD, VALUE_TABLES, read_value
from reports.value import frame_of as value_frame
from reports.value import sections as value_sections
from simkit import ladders
from simkit.words import count


def _value_method(data: dict[str, Any]) -> str:
    m = data.get("method", {})
    return (f"Estimate: {m.get('estimate', '')}. Intervals: {m.get('interval', '')}. "
            "Verdicts: each kind's section says what each verdict word means and the "
            "margin it is judged against.")


def _outside_section(judged: pl.DataFrame, limit: float, top: int = 8) -> Section:
    """The components outside the component target, across kinds (or, when none is, the
    largest few), before the kinds' own tables."""
    outside = judged.filter(pl.col("target") != PASS)
    shown = outside if outside.height else judged.head(top)
    pts = f"±{limit * 100:g} points"
    return Section(
        "outside", "Outside the target" if outside.height else "Largest components",
        f"Every kind together: components whose worth against their kind's average is "
        f"outside the component target ({pts}, configs/targets.toml) or not yet sure, "
        "largest first." if outside.height else
        f"No component is outside the component target ({pts}); the largest, every kind "
        "together.",
        [Table("Components against the target", "Target: the whole 95% interval of 'vs "
               f"average' within {pts} (PASS), wholly outside it (FAIL), or neither yet "
               "(NOT YET SURE).", shown,
               [Column("name", "Component"), Column("kind", "Kind"),
                Column("target", "Target"), Column("vs_average", "vs average (points)",
                                                   "ci_pp"),
                Column("value", "Worth (points)", "ci_pp"), Column("verdict", "Verdict")],
               csv="value_outside_target")])


def write_value_report(folder: Path) -> tuple[Path, Path]:
    """Write value.html and value.md into `folder`: the answer and the components outside
    their target (across kinds) first, then each kind, then what the numbers measure."""
    from reports.answer import judged_components, value_answer, whose_play

    folder = Path(folder)
    data = read_value(folder)
    limit = (load_targets(None, str(data["game"])).settings.get("component_effect", {})
             .get("max_points", 5.0)) / 100
    judged = judged_components(value_frame(data), limit)
    answer = value_answer(judged, limit, whose_play(data), str(data["game"]))
    secs = [_outside_section(judged, limit), *value_sections(data)]
    title = f"{data['title']}: what each component is worth"
    lineup = ", ".join(s["name"] for s in data["strategies"])
    sub = (f"Worth to {ladders.whose_play(data['game'], [s['name'] for s in data['strategies']])}. "
           f"{data['players']} players ({lineup}); {data['games']:,} games as configured, "
           f"{data['kernel_games']:,} games played in all; seed {data['seed']}")
    tone = "fail" if judged.height and judged["target"][0] == FAIL else "pass"
    lead = (f'<p class="sub">{escape(sub)}</p>' + answer_line(answer, tone)
            + about_html("The command that reproduces this run",
                         command_html("Reproduce this run", data["command"])))
    html_parts = []
    e = md_escape
    md = [f"# {e(title)}", "", e(sub), "", f"**{e(answer)}**", "", *md_block(data["command"])]
    for s in secs:
        html_parts.append(section_html(s))
        md += ["", f"## {e(s.title)}", "", e(s.intro)]
        for b in s.blocks:
            if isinstance(b, Table):
                md += ["", md_table(b)]
            elif isinstance(b, Note):
                md += ["", e(b.text)]
    html_parts.append(
        f'<section id="what"><h2>What this measures</h2><p class="intro">{escape(EXPLAIN)}</p>'
        f'<p class="small">{escape(_value_method(data))}</p></section>')
    md += ["", "## What this measures", "", e(EXPLAIN), "", e(_value_method(data))]
    if data.get("config", {}).get("placeholders"):
        n = len(data["config"]["placeholders"])
        note = (f"This run used {count(n, 'placeholder value')} (see `simkit show "
                f"{data['game']}`): "
                "values describe the placeholder data, not the published game.")
        html_parts.append(f'<p class="note">{escape(note)}</p>')
        md += ["", f"_{e(note)}_"]
    page_text = page(title, "simkit value report", lead, html_parts)
    write_report_files(folder, [(VALUE_MD, "\n".join(md) + "\n"), (VALUE_HTML, page_text)],
                       csv_tables(secs), VALUE_TABLES)
    return folder / VALUE_HTML, folder / VALUE_MD

