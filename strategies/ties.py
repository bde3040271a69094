"""The `ties` parameter every built-in strategy ends with: equally valued options broken
one at random (the seat's stream) or by the first row. The tie-break itself is compiled
with the kernels (simkit/kernels/ties.py), which call it too; re-exported here for the
strategies and plug-ins."""

from __future__ import annotations

from simkit.kernels.ties import TOLERANCE, at_random, contest, may_win, tied

from . import Param

TIES = Param("ties", 0.0, 0.0, 1.0,
             "equally valued options: 0 one at random (the seat's stream), 1 the first row",
             tune=False)

__all__ = ["TIES", "TOLERANCE", "at_random", "contest", "may_win", "tied"]
