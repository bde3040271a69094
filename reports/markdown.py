"""Markdown for the pages' text versions (summary.md, value.md): names from a config shown
as written, never read as markup, and tables of a report's `Table` blocks."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from reports.cells import cells
from reports.document import Note, Section, Table
from simkit.words import ESCAPE, shown


def md_escape(text: str) -> str:
    """Text that may hold names from a config as one line of Markdown text, shown as
    written and never read as markup: raw HTML (`<script>`) and entities, a link's
    end (`[x](javascript:...)`, `[x]: url`), a pipe that would end a table cell, a newline that
    would end a table row or start a heading, and terminal escapes (ANSI colours) and
    other control bytes, which are dropped."""
    text = shown(text)
    text = (text.replace("\\", "\\\\").replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace("|", "\\|"))
    return re.sub(r"\](?=[(\[:])", r"\\]", text)  # a link's or a link definition's ]


def md_code(text: str) -> str:
    """Text as one inline code span (a command, a config value): control bytes dropped,
    fenced by more backticks than it holds in a row."""
    text = shown(text)
    fence = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if text.startswith("`") or text.endswith("`") \
        else f"{fence}{text}{fence}"


def md_block(text: str) -> list[str]:
    """A command as a fenced shell block, fenced by more backticks than it holds."""
    text = "\n".join(shown(line) for line in ESCAPE.sub("", str(text)).split("\n"))
    fence = "`" * max(3, max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    return [f"{fence}sh", text, fence]


def md_table(table: Table) -> str:
    head = "| " + " | ".join(md_escape(c.label) for c in table.columns) + " |"
    sep = "|" + "|".join("---:" if c.fmt != "text" else "---" for c in table.columns) + "|"
    lines = [head, sep]
    for row in table.frame.iter_rows(named=True):
        shown_cells = [md_escape(v + (" " + i if i else "")) for v, i, _ in cells(table, row)]
        lines.append("| " + " | ".join(shown_cells) + " |")
    return "\n".join(lines)


def md_next(step: str | None) -> str:
    return " " + md_escape(step) if step else ""


def md_sections(sections: Sequence[Section], e: Callable[[str], str] = str) -> list[str]:
    """The sections as Markdown lines: each a heading and its intro, its tables under
    their own headings with their explanations, its notes in italics (charts are on the
    page only). `e` escapes text from a config (`md_escape`)."""
    out: list[str] = []
    for s in sections:
        out += ["", f"## {e(s.title)}", "", e(s.intro)]
        for b in s.blocks:
            if isinstance(b, Table):
                out += ["", f"### {e(b.title)}", "", e(b.explain), "", md_table(b)]
            elif isinstance(b, Note):
                out += ["", f"_{e(b.text)}_"]
    return out
