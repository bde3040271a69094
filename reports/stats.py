"""Small, dependency-free interval helpers shared by the metrics and the scorecard.

Every interval in the report is a two-sided 95% interval:
- means of clustered rows (players in one game, games on one deal) use the cluster-robust
  ratio estimator: mean = sum(y) / sum(m) over clusters, with the standard error from the
  cluster totals (`simkit.intervals.ratio`, from exact sums);
- proportions use Wilson's interval on the effective sample size (so clustering widens it
  the same way it widens a mean);
- a difference between players with and without a component is two ratio means of one
  set of deals, its interval also clustered (`reports.metrics.component_effects`).
"""

from __future__ import annotations

import math

from simkit.intervals import Z, wilson

__all__ = ["Z", "Z_POWER", "clear_in_family", "clear_largest", "games_needed", "p_value", "wilson"]

Z_POWER = 0.8416212335729143  # one-sided 80%: the chance the games needed do decide


def games_needed(n: float, se: float, distance: float, z: float = Z) -> float:
    """Games to decide, with about 80% probability, a verdict whose estimate lies
    `distance` from the line, its standard error `se` now, over `n` games, judged by
    intervals of `z` standard errors (Z; more under family control):
    n * ((z + Z_POWER) se / distance)^2. (Shrinking the interval to the distance alone,
    n (Z se / distance)^2, decides only about half the time: the estimate moves too.)
    Infinite when the estimate sits on the line."""
    if distance <= 0 or not math.isfinite(se):
        return math.inf
    return n * ((z + Z_POWER) * se / distance) ** 2


def p_value(est: float, lo: float, hi: float) -> float:
    """Two-sided p-value of "no difference" from an estimate and its 95% normal
    interval (NaN when there is none)."""
    se = (hi - lo) / (2 * Z)
    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0:
        return math.nan
    return math.erfc(abs(est) / se / math.sqrt(2))


def clear_in_family(estimates: list[tuple[float, float, float]], q: float = 0.05) -> list[bool]:
    """Which of a family of (estimate, lo, hi) differ clearly from zero with the family's
    false discovery rate held at `q` (Benjamini-Hochberg): a table of many rows, where a
    row "clear" at 95% on its own would be found among identical ones by chance."""
    ps = [p_value(*e) for e in estimates]
    found = sorted((p, i) for i, p in enumerate(ps) if math.isfinite(p))
    m, cut = len(found), -1.0
    for k, (p, _) in enumerate(found, start=1):
        if p <= q * k / m:
            cut = p
    return [math.isfinite(p) and p <= cut for p in ps]


def clear_largest(estimates: list[tuple[float, float, float]], q: float = 0.05) -> bool:
    """Whether the largest of a family of (estimate, lo, hi) differs clearly from zero,
    picked as the largest of them: at level q / n (Bonferroni, the first step of Holm's
    method), so a page naming the largest of n is wrong at most q of the time."""
    ps = [p_value(*e) for e in estimates]
    largest = max(range(len(estimates)), key=lambda i: abs(estimates[i][0]), default=None)
    return largest is not None and math.isfinite(ps[largest]) and \
        ps[largest] <= q / len(estimates)
