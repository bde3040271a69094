"""Write a report: one self-contained report.html, summary.md and the tables as CSV.

report.html has no external references: charts are base64 PNGs and the style is inline,
so it opens offline in any browser and can be mailed as one file. Files are written aside
and renamed into place, so a failed report never leaves a half-written file behind.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from reports.build import Report, build
from reports.cells import cells, minus
from reports.document import Chart, Column, Note, Section, Table
from reports.files import check_report_folder, write_report_files
from reports.hooks import hooks_for
from reports.load import open_run, read_run_manifest
from reports.markdown import md_block, md_code, md_escape, md_next, md_table
from reports.stronger import open_stronger
from reports.targets import FAIL, PASS, load_targets
from reports.value import EXPLAIN, VALUE_HTML, VALUE_MD, VALUE_TABLES, read_value
from reports.value import frame_of as value_frame
from reports.value import sections as value_sections
from simkit import ladders
from simkit.results import REPORT_FILE, REPORT_SUMMARY_FILE
from simkit.words import count, shown

DPI = 110


@dataclass
class Written:
    html: Path
    summary: Path
    tables: list[Path]
    scorecard: pl.DataFrame | None = None  # the verdicts, for the terminal
    answer: str = ""  # the page's first line, for the terminal


def verdict_lines(scorecard: pl.DataFrame) -> list[str]:
    """The scorecard in a few terminal lines: verdict, metric and the deciding estimate
    (a title names the config's components: shown as plain text)."""
    return [shown(f"{r['verdict']:<12}  {r['title']}: {minus(r['estimate'])}")
            for r in scorecard.iter_rows(named=True)]


def answer_html(text: str) -> str:
    """The page's answer line: escaped, `commands` as code (they break anywhere, so that a
    long one wraps on a phone rather than widening the page)."""
    parts = re.split(r"`([^`]*)`", text)
    return "".join(f"<code>{_e(p)}</code>" if i % 2 else _e(p) for i, p in enumerate(parts))


def make_report(run_dir: Path, out_dir: Path | None = None, targets_path: Path | None = None,
                set_targets: Sequence[str] = (), stronger: Path | None = None) -> Written:
    """Report on the run in `run_dir`, written to `out_dir` (default: the run folder); with
    `stronger`, beside that run of the same game and player count (another skill level)."""
    run_dir = Path(run_dir)
    manifest = read_run_manifest(run_dir)  # cheap checks first, then the targets
    targets = load_targets(targets_path, str(manifest["game"]), set_targets)
    run = open_run(run_dir)
    other = open_stronger(Path(stronger), run) if stronger is not None else None
    report = build(run, targets, hooks_for(run.game), other)
    out = Path(out_dir) if out_dir is not None else run_dir
    check_report_folder(out, run_dir)
    return write(report, out)


# ------------------------------------------------------------------ HTML
CSS = """
:root { --ink:#1f2933; --muted:#616e7c; --line:#e4e7eb; --soft:#f5f7fa; --accent:#2f6f9f;
  --pass:#1e7b45; --pass-bg:#e3f4e9; --fail:#b4261a; --fail-bg:#fbe6e3; --unsure:#8a5a00;
  --unsure-bg:#fdf1d6; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  sans-serif; color:var(--ink); background:#fff; }
.wrap { max-width: 1040px; margin: 0 auto; padding: 0 28px; }
header.top { background: #17324d; color: #fff; padding: 30px 0 24px; }
header.top .eyebrow { text-transform: uppercase; letter-spacing: .12em; font-size: 12px;
  color: #9fb3c8; }
header.top h1 { margin: 4px 0 2px; font-size: 30px; font-weight: 650; }
header.top .sub { margin: 0 0 18px; color: #d9e2ec; font-size: 16px; }
dl.facts { display: grid; grid-template-columns: 130px minmax(0, 1fr); gap: 3px 16px;
  margin: 0; font-size: 14px; }
dl.facts dt { color: #9fb3c8; }
/* A long NAME@file strategy or path breaks where it must, not past a phone's edge. */
dl.facts dd { margin: 0; color: #f0f4f8; overflow-wrap: anywhere; }
details.about summary { cursor: pointer; color: #9fb3c8; font-size: 14px; }
details.about[open] summary { margin-bottom: 8px; }
.cmd { margin-top: 14px; background: rgba(255,255,255,.08); border-radius: 6px;
  padding: 10px 12px; font-size: 13px; }
.cmd span { display:block; color:#9fb3c8; font-size:12px; text-transform:uppercase;
  letter-spacing:.08em; margin-bottom:2px; }
.cmd code { color: #fff; word-break: break-all; }
code { font-family: "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
nav.toc { border-bottom: 1px solid var(--line); background: var(--soft); font-size: 14px; }
nav.toc .wrap { padding-top: 10px; padding-bottom: 10px; display: flex; flex-wrap: wrap;
  gap: 4px 20px; }
nav.toc a { color: var(--accent); text-decoration: none; white-space: nowrap; }
main section { padding: 26px 0 8px; border-bottom: 1px solid var(--line); }
h2 { font-size: 22px; margin: 0 0 4px; }
h3 { font-size: 16px; margin: 22px 0 2px; }
p.intro { margin: 0 0 10px; color: var(--muted); font-size: 15px; }
p.explain { margin: 0 0 8px; color: var(--muted); font-size: 13.5px; }
.warn { background: var(--unsure-bg); border: 1px solid #f0c869; border-left: 6px solid #e0a526;
  border-radius: 6px; padding: 14px 18px; margin: 24px 0 0; }
.warn h2 { font-size: 18px; color: #6b4500; }
.warn p { margin: 4px 0 8px; }
.warn ul { columns: 2; column-gap: 28px; margin: 6px 0 4px; padding-left: 18px;
  font-size: 13px; }
.warn li { break-inside: avoid; margin-bottom: 2px; }
.warn .v { color: #6b4500; font-family: "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 12px; }
.note { background: var(--soft); border-left: 4px solid #9fb3c8; padding: 8px 12px;
  font-size: 13.5px; margin: 10px 0; color: #3e4c59; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 14px; font-size: 13.5px; }
th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 2px solid
  var(--line); padding: 6px 8px; font-size: 12.5px; text-transform: uppercase;
  letter-spacing: .03em; }
td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
/* A value and its interval stay whole and wrap apart only where the table must narrow
   (a table with many interval columns then fits a laptop's column without scrolling). */
td.n .v, td .ci { white-space: nowrap; }
td .ci { color: #8794a3; font-size: 12px; margin-left: 5px; display: inline-block; }
tbody tr:hover { background: #fafbfc; }
table.scorecard td { font-size: 14px; }
.pill { display: inline-block; padding: 2px 10px; border-radius: 999px; font-weight: 700;
  font-size: 12px; letter-spacing: .04em; white-space: nowrap; }
.pill.pass { background: var(--pass-bg); color: var(--pass); }
.pill.fail { background: var(--fail-bg); color: var(--fail); }
.pill.unsure { background: var(--unsure-bg); color: var(--unsure); }
.small { font-size: 12.5px; color: var(--muted); }
ul.findings { margin: 6px 0 12px; padding-left: 20px; }
ul.findings li { margin-bottom: 4px; }
figure { margin: 8px 0 18px; }
figure img { max-width: 100%; height: auto; display: block; border: 1px solid var(--line);
  border-radius: 4px; }
figcaption { font-size: 13px; color: var(--muted); margin-top: 4px; }
footer { color: var(--muted); font-size: 12.5px; padding: 18px 0 40px; }
.answer { background: #fff; color: var(--ink); border-left: 6px solid var(--accent);
  border-radius: 6px; padding: 10px 14px; margin: 0 0 16px; font-size: 15.5px; }
.answer.fail { border-left-color: var(--fail); }
.answer.pass { border-left-color: var(--pass); }
.answer code, .next code { overflow-wrap: anywhere; background: var(--soft);
  padding: 0 3px; border-radius: 3px; }
.next { display: block; margin-top: 4px; font-size: 13px; color: var(--ink); }
.scroll { overflow-x: auto; }  /* a wide table scrolls in its box, not the whole page */
@media (max-width: 640px) {  /* phones: one column, narrower margins */
  .wrap { padding: 0 14px; }
  header.top h1 { font-size: 23px; }
  dl.facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dl.facts dd { margin-bottom: 6px; }
  .warn ul { columns: 1; }
  table { font-size: 12.5px; }
}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def png_base64(figure: Any) -> str:
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _breakable(text: Any) -> str:
    """Escaped, with a line-break chance after each / @ _ of a long word (a NAME@file
    strategy, a path): it then wraps rather than widening its table past a laptop's column."""
    return re.sub(r"\S{25,}", lambda m: re.sub(r"([/@_])", r"\1<wbr>", m.group(0)),
                  _e(text))


def _html_table(table: Table, css: str = "") -> str:
    head = "".join(f'<th class="{"n" if c.fmt != "text" else ""}">{_breakable(c.label)}</th>'
                   for c in table.columns)
    body = []
    for row in table.frame.iter_rows(named=True):
        tds = []
        for value, interval, numeric in cells(table, row):
            ci = f'<span class="ci">{_e(interval)}</span>' if interval else ""
            shown = f'<span class="v">{_e(value)}</span>' if numeric else _breakable(value)
            tds.append(f'<td class="{"n" if numeric else ""}">{shown}{ci}</td>')
        body.append("<tr>" + "".join(tds) + "</tr>")
    cls = f' class="{css}"' if css else ""
    return (f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _html_block(block: Any) -> str:
    if isinstance(block, Table):
        return (f"<h3>{_e(block.title)}</h3><p class=\"explain\">{_e(block.explain)}</p>"
                + _html_table(block))
    if isinstance(block, Chart):
        data = png_base64(block.figure)
        alt = block.alt or block.title
        return (f'<figure><img alt="{_e(alt)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{_e(block.explain)}</figcaption></figure>")
    if isinstance(block, Note):
        return f'<div class="note">{_e(block.text)}</div>'
    raise TypeError(f"unknown block {block!r}")


def _verdict_class(verdict: str) -> str:
    return {PASS: "pass", FAIL: "fail"}.get(verdict, "unsure")


def render_html(report: Report) -> str:
    facts = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in report.facts)
    toc = [("scorecard", "Scorecard")]
    if report.placeholders:
        toc.append(("placeholders", "Placeholder data"))
    toc += [(s.key, s.title) for s in report.sections] + [("method", "How to read this")]
    nav = "".join(f'<a href="#{k}">{_e(t)}</a>' for k, t in toc)
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(report.title)}</title><style>{CSS}</style></head><body>",
        f'<header class="top"><div class="wrap"><div class="eyebrow">simkit balance report'
        f'</div><h1>{_e(report.title)}</h1><p class="sub">{_e(report.subtitle)}</p>'
        + _answer_block(report.answer, report.scorecard) +
        # folded, so that the verdict below is on the first screen
        f'<details class="about"><summary>About this run: lineup, seed, config, and the '
        f'command that reproduces it</summary><dl class="facts">{facts}</dl>'
        f'<div class="cmd"><span>Reproduce this run</span>'
        f"<code>{_e(report.command)}</code></div></details></div></header>",
        f'<nav class="toc"><div class="wrap">{nav}</div></nav><main class="wrap">',
    ]
    # The verdict first: the scorecard opens the page, and the placeholder list follows
    # it, its warning visible and the list itself folded (it is long).
    placeholder_block = ""
    if report.placeholders or report.placeholder_notes:
        items = "".join(f'<li>{_e(k)} <span class="v">= {_e(v)}</span></li>'
                        for k, v in report.placeholders)
        notes = "".join(f'<p class="small">{_e(n)}</p>' for n in report.placeholder_notes)
        if report.placeholders:
            placeholder_block = (
                f'<section id="placeholders" class="warn"><h2>&#9888; This run used '
                f"{count(len(report.placeholders), 'placeholder value')}</h2><p>These "
                "numbers are not "
                "from a published source. Results that depend on them describe the "
                "placeholder data, not the published game. Replace them in the config (or "
                "with <code>--set</code>) and run again.</p>"
                f"<details><summary>The {count(len(report.placeholders), 'placeholder value')}"
                f"</summary><ul>{items}</ul>{notes}</details></section>")
        else:
            placeholder_block = f'<section id="placeholders-note" class="note">{notes}</section>'
    rows = []
    for r in report.scorecard.iter_rows(named=True):
        pill = f'<span class="pill {_verdict_class(r["verdict"])}">{_e(r["verdict"])}</span>'
        rows.append(f"<tr><td><strong>{_e(r['title'])}</strong><br>"
                    f'<span class="small">{_e(r["meaning"])}</span></td>'
                    f"<td>{_e(r['target'])}</td><td>{pill}</td>"
                    f"<td>{_e(minus(r['estimate']))}<br><span class=\"small\">"
                    f"{_e(r['detail'])}</span>{_next(r.get('next'))}</td></tr>")
    card = ('<div class="scroll"><table class="scorecard"><thead><tr><th>Metric</th>'
            "<th>Target</th><th>Verdict</th><th>Estimate [95% interval]</th></tr></thead>"
            "<tbody>" + "".join(rows) + "</tbody></table></div>") if rows else (
            '<p class="note">No targets in force.</p>')
    findings = "".join(f"<li>{_e(minus(f))}</li>" for f in report.findings)
    parts.append(
        '<section id="scorecard"><h2>Balance scorecard</h2><p class="intro">Each target is '
        "judged against the 95% interval of its estimate: PASS when the whole interval meets "
        "it, FAIL when the whole interval misses it, NOT YET SURE when more games are needed "
        f"to tell.</p>{card}<p class=\"small\">Targets: {_e(report.targets_source)}</p>"
        f"<h3>At a glance</h3><ul class=\"findings\">{findings}</ul></section>")
    parts.append(placeholder_block)
    for section in report.sections:
        parts.append(_html_section(section))
    parts.append(
        '<section id="method"><h2>How to read this report</h2><p class="intro">What the '
        "numbers are and how far to trust them.</p><ul class=\"findings\">"
        "<li><strong>Win share</strong>: a sole winner scores 1, each of k tied winners 1/k, "
        "everyone else 0; with N players the fair share is 1/N.</li>"
        "<li><strong>Intervals</strong> are 95% confidence intervals. Players of one game, "
        "and games played on one deal, are not independent, so means are taken per deal and "
        "the interval comes from the spread between deals (also for differences between "
        "players with and without a component); proportions use Wilson's interval.</li>"
        "<li><strong>Points</strong> of win share are percentage points: 25% to 28% is +3 "
        "points.</li>"
        "<li><strong>Simulated players</strong> are heuristics, not people: a result says "
        "what happens when these strategies play these rules and this card data.</li>"
        "<li>Every table is also in <code>report_tables/</code> as CSV.</li></ul></section>")
    foot = " · ".join(f"{_e(k)}: {_e(v)}" for k, v in report.footer)
    parts.append(f'</main><footer class="wrap">{foot}</footer></body></html>')
    return "\n".join(parts)


def _answer_block(answer: str, card: pl.DataFrame | None = None) -> str:
    """The answer line, coloured by the worst verdict it sums up."""
    if not answer:
        return ""
    verdicts = set(card["verdict"].to_list()) if card is not None and card.height else set()
    tone = " fail" if FAIL in verdicts else " pass" if verdicts == {PASS} else ""
    return f'<p id="answer" class="answer{tone}">{answer_html(answer)}</p>'


def _next(step: str | None) -> str:
    return f'<span class="next">{answer_html(step)}</span>' if step else ""


def _html_section(section: Section) -> str:
    blocks = "".join(_html_block(b) for b in section.blocks)
    return (f'<section id="{_e(section.key)}"><h2>{_e(section.title)}</h2>'
            f'<p class="intro">{_e(section.intro)}</p>{blocks}</section>')


# ------------------------------------------------------------------ Markdown
def render_markdown(report: Report) -> str:
    e = md_escape
    out = [f"# {e(report.title)}", "", f"{e(report.subtitle)}. Charts: `report.html`; every "
           "table as CSV: `report_tables/`.", ""]
    if report.answer:
        out += [f"**{e(report.answer)}**", ""]
    out += [f"- **{e(k)}**: {e(v)}" for k, v in report.facts]
    out += ["", "Reproduce this run:", "", *md_block(report.command), ""]
    out += ["## Balance scorecard", "",
            "| Metric | Target | Verdict | Estimate [95% interval] | Detail |",
            "|---|---|---|---|---|"]
    for r in report.scorecard.iter_rows(named=True):
        out.append(f"| {md_escape(r['title'])} | {md_escape(r['target'])} | "
                   f"**{r['verdict']}** | {md_escape(minus(r['estimate']))} | "
                   f"{md_escape(r['detail'])}{md_next(r.get('next'))} |")
    out += ["", f"Targets: {e(report.targets_source)}", "", "## At a glance", ""]
    out += [f"- {e(minus(f))}" for f in report.findings]
    if report.placeholders:  # after the verdict, as on the page
        out += ["", f"> **Warning: this run used {len(report.placeholders)} placeholder "
                "values**, not from a published source. Results that depend on them describe "
                "the placeholder data, not the published game.", ">"]
        out += [f"> - {e(k)} = {md_code(v)}" for k, v in report.placeholders]
        out += [f"> - {e(n)}" for n in report.placeholder_notes]
    for section in report.sections:
        out += ["", f"## {e(section.title)}", "", e(section.intro)]
        for block in section.blocks:
            if isinstance(block, Table):
                out += ["", f"### {e(block.title)}", "", e(block.explain), "",
                        md_table(block)]
            elif isinstance(block, Note):
                out += ["", f"_{e(block.text)}_"]
    out += ["", "---", ""] + [f"{e(k)}: {e(v)}  " for k, v in report.footer]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ files
def tables_of(report: Report) -> list[tuple[str, str, pl.DataFrame]]:
    """(csv stem, title, frame) for the scorecard and every table with a CSV name."""
    out = [("scorecard", "Balance scorecard", report.scorecard)]
    for section in report.sections:
        out += [(b.csv, b.title, b.frame) for b in section.blocks
                if isinstance(b, Table) and b.csv]
    return out


def write(report: Report, out: Path) -> Written:
    """Write report.html, summary.md and report_tables/*.csv into `out`."""
    paths = write_report_files(out, [(REPORT_SUMMARY_FILE, render_markdown(report)),
                                     (REPORT_FILE, render_html(report))], tables_of(report))
    return Written(out / REPORT_FILE, out / REPORT_SUMMARY_FILE, paths, report.scorecard,
                   report.answer)


# ------------------------------------------------------------------ comparison page
def render_compare_html(c: Any, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """`simkit compare`'s table as a page (the same rows as compare.md)."""
    title = f"{c.game}: comparison of two runs"
    facts = [("A", f"{c.a} ({c.a_label})"), ("B", f"{c.b} ({c.b_label})"),
             ("Games", f"{c.games:,} each, seed {c.seed}: the same deals")]
    dl = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts)
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(minus(x))}</td>" for x in r) + "</tr>"
                   for r in rows)
    return "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        '<header class="top"><div class="wrap"><div class="eyebrow">simkit comparison</div>'
        f'<h1>{_e(title)}</h1>{_compare_answer(c)}<dl class="facts">{dl}</dl></div></header>',
        f'<main class="wrap">{_before_after_html(c.scorecards)}'
        '<section id="compare"><h2>Metric by metric</h2>'
        '<p class="intro">B minus A for every metric, with its 95% interval paired by deal '
        "(the same deals in both runs make it much narrower than the unpaired one); "
        "<em>real</em> marks differences that survive the false-discovery-rate control "
        "(Benjamini-Hochberg, 5%).</p>"
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        "</table></div></section></main></body></html>"])


def _compare_answer(c: Any) -> str:
    if not c.answer:
        return ""
    verdicts = set(c.scorecards["verdict_b"].to_list()) if c.scorecards is not None else set()
    tone = " fail" if FAIL in verdicts else " pass" if verdicts == {PASS} else ""
    return f'<p id="answer" class="answer{tone}">{answer_html(c.answer)}</p>'


def _before_after_html(cards: pl.DataFrame | None) -> str:
    """The two scorecards, target by target: A's verdict, B's, and what changed."""
    if cards is None or not cards.height:
        return ""
    rows = []
    for r in cards.iter_rows(named=True):
        sides = []
        for side in ("a", "b"):
            v = r[f"verdict_{side}"] or ""
            sides.append(f'<td><span class="pill {_verdict_class(v)}">{_e(v)}</span><br>'
                         f'<span class="small">{_e(minus(r[f"estimate_{side}"] or ""))}'
                         "</span></td>")
        rows.append(f"<tr><td><strong>{_e(r['title'])}</strong><br><span class=\"small\">"
                    f"{_e(r['target'])}</span></td>{''.join(sides)}<td>{_e(r['change'])}</td>"
                    "</tr>")
    return ('<section id="scorecards"><h2>Scorecard before and after</h2><p class="intro">'
            "Each balance target judged on A (before) and on B (after), as in the balance "
            "report.</p><div class=\"scroll\"><table class=\"scorecard\"><thead><tr>"
            "<th>Target</th><th>A (before)</th><th>B (after)</th><th>Change</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div></section>")


# ------------------------------------------------------------------ value report
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
    html_parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f'<header class="top"><div class="wrap"><div class="eyebrow">simkit value report'
        f'</div><h1>{_e(title)}</h1><p class="sub">{_e(sub)}</p>'
        f'<p id="answer" class="answer {tone}">{answer_html(answer)}</p>'
        '<details class="about"><summary>The command that reproduces this run</summary>'
        f'<div class="cmd"><span>Reproduce this run</span><code>{_e(data["command"])}</code>'
        "</div></details></div></header>",
        '<main class="wrap">']
    e = md_escape
    md = [f"# {e(title)}", "", e(sub), "", f"**{e(answer)}**", "", *md_block(data["command"])]
    for s in secs:
        html_parts.append(_html_section(s))
        md += ["", f"## {e(s.title)}", "", e(s.intro)]
        for b in s.blocks:
            if isinstance(b, Table):
                md += ["", md_table(b)]
            elif isinstance(b, Note):
                md += ["", e(b.text)]
    html_parts.append(
        f'<section id="what"><h2>What this measures</h2><p class="intro">{_e(EXPLAIN)}</p>'
        f'<p class="small">{_e(_value_method(data))}</p></section>')
    md += ["", "## What this measures", "", e(EXPLAIN), "", e(_value_method(data))]
    if data.get("config", {}).get("placeholders"):
        n = len(data["config"]["placeholders"])
        note = (f"This run used {count(n, 'placeholder value')} (see `simkit show "
                f"{data['game']}`): "
                "values describe the placeholder data, not the published game.")
        html_parts.append(f'<p class="note">{_e(note)}</p>')
        md += ["", f"_{e(note)}_"]
    html_parts.append("</main></body></html>")
    tables = [(b.csv, b.title, b.frame) for s in secs for b in s.blocks
              if isinstance(b, Table) and b.csv]
    write_report_files(folder, [(VALUE_MD, "\n".join(md) + "\n"),
                                (VALUE_HTML, "\n".join(html_parts))], tables, VALUE_TABLES)
    return folder / VALUE_HTML, folder / VALUE_MD


def section_html(section: Section) -> str:
    """One report section as report.html draws it (`simkit studio` shows them live)."""
    return _html_section(section)
