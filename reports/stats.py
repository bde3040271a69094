"""Small, dependency-free interval helpers shared by the metrics and the scorecard.

Every interval in the report is a two-sided 95% interval:
- means of clustered rows (players in one game, games on one deal) use the cluster-robust
  ratio estimator: mean = sum(y) / sum(m) over clusters, with the standard error from the
  cluster totals (`reports.metrics.ratio`, from exact sums);
- proportions use Wilson's interval on the effective sample size (so clustering widens it
  the same way it widens a mean);
- differences between two groups use Welch's interval.
"""

from __future__ import annotations

import math

Z = 1.959963984540054  # two-sided 95%

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom (beyond: normal).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: float) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom (normal above 30)."""
    if not math.isfinite(df) or df > 1000:
        return Z
    if df > 30:
        return Z + 2.4 / df  # within 0.003 of the exact value
    if df < 1:
        return _T975[0]
    lo = int(math.floor(df))
    if lo >= 30:
        return _T975[29]
    frac = df - lo
    return _T975[lo - 1] * (1 - frac) + _T975[lo] * frac


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


def welch(m1: float, v1: float, n1: float, m2: float, v2: float,
          n2: float) -> tuple[float, float, float]:
    """Difference m1 - m2 with Welch's 95% interval: (difference, lo, hi).

    `v1`, `v2` are sample variances. NaN if either group has fewer than two members.
    """
    if n1 < 2 or n2 < 2:
        return (math.nan, math.nan, math.nan)
    a, b = v1 / n1, v2 / n2
    se2 = a + b
    diff = m1 - m2
    if se2 <= 0:
        return (diff, diff, diff)
    df = se2 * se2 / (a * a / (n1 - 1) + b * b / (n2 - 1)) if (a > 0 or b > 0) else math.inf
    half = t975(df) * math.sqrt(se2)
    return (diff, diff - half, diff + half)


Z_POWER = 0.8416212335729143  # one-sided 80%: the chance the games needed do decide


def games_needed(n: float, se: float, distance: float) -> float:
    """Games to decide, with about 80% probability, a verdict whose estimate lies
    `distance` from the line, its standard error `se` now, over `n` games:
    n * ((Z + Z_POWER) se / distance)^2. (Shrinking the interval to the distance alone,
    n (Z se / distance)^2, decides only about half the time: the estimate moves too.)
    Infinite when the estimate sits on the line."""
    if distance <= 0 or not math.isfinite(se):
        return math.inf
    return n * ((Z + Z_POWER) * se / distance) ** 2
