"""The two interval helpers every layer shares (reports, the value estimator, tournaments)."""

from __future__ import annotations

import math

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
