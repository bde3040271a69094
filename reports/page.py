"""One page shell for every report kind: the style, the header, the table of contents,
the sections and the footer of a self-contained HTML page.

Every page simkit writes (report.html, compare.html, value.html, a sweep's, a ladder's, a
tournament's, a balance search's) is drawn here, so they look alike and a change of style
is made once. No external references: charts are base64 PNGs and the style is inline, so a
page opens offline and can be mailed as one file.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Sequence
from typing import Any

from reports.cells import cells
from reports.document import Chart, Note, Section, Table
from reports.targets import FAIL, PASS

DPI = 110

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


def escape(text: Any) -> str:
    return html.escape(str(text), quote=True)


def png_base64(figure: Any) -> str:
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def answer_html(text: str) -> str:
    """The page's answer line: escaped, `commands` as code (they break anywhere, so that a
    long one wraps on a phone rather than widening the page)."""
    parts = re.split(r"`([^`]*)`", text)
    return "".join(f"<code>{escape(p)}</code>" if i % 2 else escape(p)
                   for i, p in enumerate(parts))


def answer_line(answer: str, tone: str = "") -> str:
    """The answer under the title, coloured "pass" or "fail" (or neither)."""
    if not answer:
        return ""
    tone = f" {tone}" if tone else ""
    return f'<p id="answer" class="answer{tone}">{answer_html(answer)}</p>'


def tone_of(verdicts: set[str]) -> str:
    """"fail" when any verdict fails, "pass" when all pass, else no colour."""
    return "fail" if FAIL in verdicts else "pass" if verdicts == {PASS} else ""


def verdict_class(verdict: str) -> str:
    return {PASS: "pass", FAIL: "fail"}.get(verdict, "unsure")


def facts_html(facts: Sequence[tuple[Any, Any]]) -> str:
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<dl class="facts">{dl}</dl>'


def command_html(label: str, command: str) -> str:
    return f'<div class="cmd"><span>{escape(label)}</span><code>{escape(command)}</code></div>'


def about_html(summary: str, inside: str) -> str:
    """Folded under the answer, so that the verdict is on the first screen."""
    return f'<details class="about"><summary>{escape(summary)}</summary>{inside}</details>'


def breakable(text: Any) -> str:
    """Escaped, with a line-break chance after each / @ _ of a long word (a NAME@file
    strategy, a path): it then wraps rather than widening its table past a laptop's column."""
    return re.sub(r"\S{25,}", lambda m: re.sub(r"([/@_])", r"\1<wbr>", m.group(0)),
                  escape(text))


def plain_table(head: Sequence[str], rows: Sequence[Sequence[Any]], css: str = "") -> str:
    """A table of text cells, as given (escaped)."""
    cls = f' class="{css}"' if css else ""
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return (f'<div class="scroll"><table{cls}><thead><tr>{th}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def table_html(table: Table, css: str = "") -> str:
    head = "".join(f'<th class="{"n" if c.fmt != "text" else ""}">{breakable(c.label)}</th>'
                   for c in table.columns)
    body = []
    for row in table.frame.iter_rows(named=True):
        tds = []
        for value, interval, numeric in cells(table, row):
            ci = f'<span class="ci">{escape(interval)}</span>' if interval else ""
            shown = f'<span class="v">{escape(value)}</span>' if numeric else breakable(value)
            tds.append(f'<td class="{"n" if numeric else ""}">{shown}{ci}</td>')
        body.append("<tr>" + "".join(tds) + "</tr>")
    cls = f' class="{css}"' if css else ""
    return (f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def block_html(block: Any) -> str:
    if isinstance(block, Table):
        return (f"<h3>{escape(block.title)}</h3><p class=\"explain\">{escape(block.explain)}</p>"
                + table_html(block))
    if isinstance(block, Chart):
        data = png_base64(block.figure)
        alt = block.alt or block.title
        return (f'<figure><img alt="{escape(alt)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{escape(block.explain)}</figcaption></figure>")
    if isinstance(block, Note):
        return f'<div class="note">{escape(block.text)}</div>'
    raise TypeError(f"unknown block {block!r}")


def section_html(section: Section) -> str:
    """One report section (`simkit studio` shows them live, beside the page)."""
    blocks = "".join(block_html(b) for b in section.blocks)
    return (f'<section id="{escape(section.key)}"><h2>{escape(section.title)}</h2>'
            f'<p class="intro">{escape(section.intro)}</p>{blocks}</section>')


def page(title: str, eyebrow: str, lead: str, body: Sequence[str], *,
         nav: Sequence[tuple[str, str]] = (), footer: str = "", heading: str = "") -> str:
    """A whole page: `title` as its title and heading under the `eyebrow` (what kind of
    page, if any), `lead` (HTML: subtitle, answer, facts) in the header, `nav` as (href, label)
    links, `body` (HTML: the sections) and `footer` (HTML); `heading`, if given, is the
    heading in place of the title."""
    links = "".join(f'<a href="{escape(href)}">{escape(label)}</a>' for href, label in nav)
    toc = f'<nav class="toc"><div class="wrap">{links}</div></nav>' if nav else ""
    foot = f'<footer class="wrap">{footer}</footer>' if footer else ""
    kind = f'<div class="eyebrow">{escape(eyebrow)}</div>' if eyebrow else ""
    h1 = f"<h1>{escape(heading or title)}</h1>"
    return "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f'<header class="top"><div class="wrap">{kind}{h1}{lead}</div></header>',
        f'{toc}<main class="wrap">', *body, f"</main>{foot}</body></html>"])
