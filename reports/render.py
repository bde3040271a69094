"""Write a run's balance report: report.html, summary.md and the tables as CSV.

report.html is drawn in the page shell of `reports.page` (self-contained: it opens offline
in any browser and can be mailed as one file). Files are written aside
and renamed into place, so a failed report never leaves a half-written file behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from reports.build import Report, build
from reports.cells import minus
from reports.document import csv_tables
from reports.files import check_report_folder, write_report_files
from reports.hooks import hooks_for
from reports.load import open_run, read_run_manifest
from reports.markdown import md_block, md_code, md_escape, md_next, md_sections
from reports.page import (
    about_html,
    answer_html,
    answer_line,
    command_html,
    escape,
    facts_html,
    page,
    section_html,
    tone_of,
    verdict_class,
)
from reports.stronger import open_stronger
from reports.targets import load_targets
from simkit.results import REPORT_FILE, REPORT_SUMMARY_FILE
from simkit.words import count, shown


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


def render_html(report: Report) -> str:
    toc = [("scorecard", "Scorecard")]
    if report.placeholders:
        toc.append(("placeholders", "Placeholder data"))
    toc += [(s.key, s.title) for s in report.sections] + [("method", "How to read this")]
    lead = (f'<p class="sub">{escape(report.subtitle)}</p>'
            + answer_line(report.answer, _tone(report.scorecard))
            + about_html("About this run: lineup, seed, config, and the command that "
                         "reproduces it", facts_html(report.facts)
                         + command_html("Reproduce this run", report.command)))
    parts = []
    # The verdict first: the scorecard opens the page, and the placeholder list follows
    # it, its warning visible and the list itself folded (it is long).
    placeholder_block = ""
    if report.placeholders or report.placeholder_notes:
        items = "".join(f'<li>{escape(k)} <span class="v">= {escape(v)}</span></li>'
                        for k, v in report.placeholders)
        notes = "".join(f'<p class="small">{escape(n)}</p>' for n in report.placeholder_notes)
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
        pill = f'<span class="pill {verdict_class(r["verdict"])}">{escape(r["verdict"])}</span>'
        rows.append(f"<tr><td><strong>{escape(r['title'])}</strong><br>"
                    f'<span class="small">{escape(r["meaning"])}</span></td>'
                    f"<td>{escape(r['target'])}</td><td>{pill}</td>"
                    f"<td>{escape(minus(r['estimate']))}<br><span class=\"small\">"
                    f"{escape(r['detail'])}</span>{_next(r.get('next'))}</td></tr>")
    card = ('<div class="scroll"><table class="scorecard"><thead><tr><th>Metric</th>'
            "<th>Target</th><th>Verdict</th><th>Estimate [95% interval]</th></tr></thead>"
            "<tbody>" + "".join(rows) + "</tbody></table></div>") if rows else (
            '<p class="note">No targets in force.</p>')
    findings = "".join(f"<li>{escape(minus(f))}</li>" for f in report.findings)
    parts.append(
        '<section id="scorecard"><h2>Balance scorecard</h2><p class="intro">Each target is '
        "judged against the 95% interval of its estimate: PASS when the whole interval meets "
        "it, FAIL when the whole interval misses it, NOT YET SURE when more games are needed "
        f"to tell.</p>{card}<p class=\"small\">Targets: {escape(report.targets_source)}</p>"
        f"<h3>At a glance</h3><ul class=\"findings\">{findings}</ul></section>")
    parts.append(placeholder_block)
    for section in report.sections:
        parts.append(section_html(section))
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
    foot = " · ".join(f"{escape(k)}: {escape(v)}" for k, v in report.footer)
    return page(report.title, "simkit balance report", lead, parts,
                nav=[(f"#{k}", t) for k, t in toc], footer=foot)


def _tone(card: pl.DataFrame | None) -> str:
    """The answer's colour: the worst verdict it sums up."""
    return tone_of(set(card["verdict"].to_list()) if card is not None and card.height
                   else set())


def _next(step: str | None) -> str:
    return f'<span class="next">{answer_html(step)}</span>' if step else ""


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
    out += md_sections(report.sections, e)
    out += ["", "---", ""] + [f"{e(k)}: {e(v)}  " for k, v in report.footer]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ files
def tables_of(report: Report) -> list[tuple[str, str, pl.DataFrame]]:
    """(csv stem, title, frame) for the scorecard and every table with a CSV name."""
    return [("scorecard", "Balance scorecard", report.scorecard), *csv_tables(report.sections)]


def write(report: Report, out: Path) -> Written:
    """Write report.html, summary.md and report_tables/*.csv into `out`."""
    paths = write_report_files(out, [(REPORT_SUMMARY_FILE, render_markdown(report)),
                                     (REPORT_FILE, render_html(report))], tables_of(report))
    return Written(out / REPORT_FILE, out / REPORT_SUMMARY_FILE, paths, report.scorecard,
                   report.answer)
