"""The report as data: sections of tables, charts and notes, before any HTML or Markdown.

Metrics and per-game hooks build these blocks; `render.py` turns them into report.html,
summary.md and CSV files. A block carries its one-sentence explanation with it, so no
number reaches the page without saying what it means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import polars as pl

if TYPE_CHECKING:  # matplotlib loads in about half a second: only a chart needs it
    from matplotlib.figure import Figure

# How a column is shown. "ci_*" columns read `<key>`, `<key>_lo` and `<key>_hi`.
#   text: as is;  int: 1,234;  num: 1.23;  pct: 12.3% (from a fraction);
#   pp: +1.2 (percentage points, from a fraction);  ci_pct / ci_pp / ci_num: with interval.
Format = Literal["text", "int", "num", "pct", "pp", "ci_pct", "ci_pp", "ci_num"]


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    fmt: Format = "text"
    digits: int = 1


@dataclass
class Table:
    """A metric table: the raw frame (written to CSV) and how to show it."""

    title: str
    explain: str  # one sentence: what the numbers mean
    frame: pl.DataFrame
    columns: list[Column]
    csv: str | None = None  # file stem for the CSV copy (tables/<csv>.csv)


@dataclass
class Chart:
    title: str
    explain: str
    figure: Figure
    alt: str = ""


@dataclass
class Note:
    text: str
    level: Literal["info", "warn"] = "info"


Block = Table | Chart | Note


@dataclass
class Section:
    key: str  # HTML anchor
    title: str
    intro: str  # one sentence: what this section answers
    blocks: list[Block] = field(default_factory=list)


def csv_tables(sections: list[Section]) -> list[tuple[str, str, pl.DataFrame]]:
    """(csv stem, title, frame) of every table of `sections` that has a CSV name."""
    return [(b.csv, b.title, b.frame) for s in sections for b in s.blocks
            if isinstance(b, Table) and b.csv]
