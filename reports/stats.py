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

__all__ = ["Z", "Z_POWER", "games_needed", "wilson"]

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
