"""`simkit run --until-sure`: play in rounds until the balance verdicts are decided.

After each round (10,000 games, then doubling up to --games) the run so far is judged
(by the judgement the caller hands the engine: `reports/analysis.py`): with the targets,
until no scorecard verdict is NOT YET SURE; with `--precision P`, until every
seat-advantage and strategy win-share interval is at most P wide on each side.
Looking repeatedly at a growing sample makes naive 95% intervals wrong far more often
than 5% of the time, so look k uses a wider interval, at level 1 - alpha_k with
alpha_k = alpha / (k (k+1)): these sum to alpha over any number of looks, so the chance
of any wrong verdict stays at most alpha (a Bonferroni alpha-spending rule, valid
whatever the stopping time; conservative).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

from simkit.errors import SimkitError

ALPHA = 0.05
FIRST_LOOK = 10_000
Z95 = NormalDist().inv_cdf(0.975)
METHOD = "alpha spending over looks, alpha_k = 0.05 / (k (k+1)), doubling rounds"


def look_z(k: int, alpha: float = ALPHA) -> float:
    """Two-sided z for look k (1-based) under alpha_k = alpha / (k (k+1))."""
    return NormalDist().inv_cdf(1 - alpha / (k * (k + 1)) / 2)


def schedule(max_games: int, first: int = FIRST_LOOK) -> list[int]:
    """Game counts at which to look: first, 2 first, 4 first, ... and max_games last."""
    looks, n = [], min(first, max_games)
    while n < max_games:
        looks.append(n)
        n *= 2
    return looks + [max_games]


@dataclass(frozen=True)
class StopRule:
    """When to stop: decided targets (`precision` None) or intervals this narrow."""

    precision: float | None = None
    targets: Path | None = None
    set_targets: tuple[str, ...] = ()

    def describe(self) -> str:
        return "targets" if self.precision is None else f"precision={self.precision:g}"

    def check(self) -> None:
        """Fail early on a bad precision (the targets are checked by the judge that
        reads them: `reports/analysis.py`)."""
        if self.precision is not None and not 0 < self.precision < 1:
            raise SimkitError(f"--precision must be between 0 and 1 (a share, e.g. 0.01 for "
                              f"1 point), not {self.precision}")
