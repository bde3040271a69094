"""A table's cells as text: a value in its format, an interval, and the minus sign the
pages print (HTML, Markdown and the terminal show the same figures)."""

from __future__ import annotations

import math
from typing import Any

from reports.document import Table


def missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and not math.isfinite(v))


def minus(text: str) -> str:
    return text.replace("-", "\u2212")


def fmt_value(v: Any, fmt: str, digits: int = 1) -> str:
    """A single value as shown in a table ('—' when there is none)."""
    if missing(v):
        return "—"
    if fmt == "int":
        return f"{round(float(v)):,}"
    if fmt in ("num", "ci_num"):
        return minus(f"{_unsigned_zero(float(v), digits):,.{digits}f}")
    if fmt in ("pct", "ci_pct"):
        return minus(f"{_unsigned_zero(float(v) * 100, digits):.{digits}f}%")
    if fmt in ("pp", "ci_pp"):
        return minus(f"{_unsigned_zero(float(v) * 100, digits):+.{digits}f}")
    return str(v)


def _unsigned_zero(x: float, digits: int) -> float:
    """x, with a value that rounds to zero shown as 0 rather than -0."""
    return round(x, digits) + 0.0


def fmt_interval(lo: Any, hi: Any, fmt: str, digits: int = 1) -> str:
    if missing(lo) or missing(hi):
        return ""
    scale = 100.0 if fmt in ("ci_pct", "ci_pp") else 1.0
    lo, hi = (_unsigned_zero(float(x) * scale, digits) for x in (lo, hi))
    return minus(f"[{lo:.{digits}f}, {hi:.{digits}f}]")


def cells(table: Table, row: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(value, interval, numeric) per column."""
    out = []
    for c in table.columns:
        v = row.get(c.key)
        interval = ""
        if c.fmt.startswith("ci_"):
            interval = fmt_interval(row.get(f"{c.key}_lo"), row.get(f"{c.key}_hi"), c.fmt,
                                    c.digits)
        out.append((fmt_value(v, c.fmt, c.digits), interval, c.fmt != "text"))
    return out
