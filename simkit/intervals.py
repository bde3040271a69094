"""The interval helpers every layer shares (reports, the value estimator, tournaments)."""

from __future__ import annotations

import math
from typing import Any

Z = 1.959963984540054  # two-sided 95%


def wilson(p: float, n: float) -> tuple[float, float]:
    """Wilson 95% interval for a proportion `p` observed over (effective) sample size `n`."""
    if n <= 0 or not math.isfinite(p):
        return (math.nan, math.nan)
    z2 = Z * Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo = 0.0 if p <= 0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1 else min(1.0, centre + half)
    return (lo, hi)


def ratio(c: int, m: Any, mm: Any, y: Any, yy: Any, ym: Any,
          scale: int) -> tuple[float, float | None]:
    """The ratio mean sum(y) / sum(m) over `c` clusters and its cluster-robust standard
    error, from the totals of a `Query` (`scale` divides y; 0: y holds inexact floats).

    With integer totals the residual sum m^2 sum_d (y_d - mean m_d)^2 =
    yy m^2 - 2 y ym m + y^2 mm is exact, so the same games give the same numbers however
    they were chunked and merged.
    """
    div = scale or 1
    if not m:
        return math.nan, None
    mean = y / (m * div)
    if c < 2:
        return mean, None
    resid = max(yy * m * m - 2 * y * ym * m + y * y * mm, 0)
    return mean, math.sqrt(resid * c / (c - 1)) / (m * m) / div
