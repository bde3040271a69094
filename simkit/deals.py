"""Means over games clustered by deal, from exact integer totals (tournament and tune).

Games played on one deal are dependent (same cards; in a tournament, every lineup plays
deal d), so a mean is a ratio sum(y) / sum(m) over deals and its standard error comes from
the per-deal totals (`simkit.intervals.ratio`). Totals are kept as Python integers (the
caller scales fractional outcomes, e.g. ties counted 1/2, by a common denominator), so
the result is the same however the games were chunked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.intervals import Z, ratio, wilson


@dataclass
class DealTotals:
    """Sums over deals of m_d, m_d^2, y_d, y_d^2 and y_d m_d (y scaled by `scale`)."""

    scale: int
    c: int = 0
    m: int = 0
    mm: int = 0
    y: int = 0
    yy: int = 0
    ym: int = 0

    def add(self, y: np.ndarray, m: np.ndarray) -> None:
        """Add per-deal totals (integer arrays, one entry per deal with m > 0 counted)."""
        keep = m > 0
        y, m = y[keep].astype(np.int64), m[keep].astype(np.int64)
        self.c += int(keep.sum())
        self.m += int(m.sum())
        self.mm += int((m * m).sum())
        self.y += int(y.sum())
        self.yy += int((y * y).sum())
        self.ym += int((y * m).sum())

    def mean(self) -> tuple[float, float | None]:
        """The mean and its cluster-robust standard error (None with fewer than 2 deals)."""
        return ratio(self.c, self.m, self.mm, self.y, self.yy, self.ym, self.scale)

    def share(self) -> tuple[float, float, float]:
        """A proportion with its 95% interval: Wilson's on the effective sample size, as
        the balance report does."""
        p, se = self.mean()
        if not self.m:
            return (p, float("nan"), float("nan"))
        n_eff = p * (1 - p) / se ** 2 if se and 0 < p < 1 else self.c
        lo, hi = wilson(p, n_eff)
        return (p, lo, hi)

    def difference(self) -> tuple[float, float, float]:
        """A mean that is a difference (y may be negative) with its normal 95% interval."""
        p, se = self.mean()
        half = Z * se if se is not None else float("nan")
        return (p, p - half, p + half)
