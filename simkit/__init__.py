"""simkit: Monte Carlo balance analysis for tabletop games.

From Python: `simkit.run`, `sweep`, `compare`, `tournament`, `tune`, `value`,
`balance`, `ladder` and `open_run` (`simkit/api.py`, guide in `docs/python.md`). They are loaded on
first use, so `import simkit` stays quick.
"""

from __future__ import annotations

from typing import Any

from simkit.version import __version__

_API = ("run", "sweep", "compare", "tournament", "tune", "value", "balance", "ladder",
        "open_run", "RunResult", "SweepResult", "CompareResult", "TournamentResult",
        "TuneResult", "ValueResult", "BalanceResult", "LadderResult")


def __getattr__(name: str) -> Any:
    if name in ("ladder", "LadderResult"):  # simkit/api_ladder.py
        from simkit import api_ladder

        return getattr(api_ladder, name)
    if name in _API:
        from simkit import api

        return getattr(api, name)
    raise AttributeError(f"module 'simkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])


__all__ = ["__version__", *_API]
