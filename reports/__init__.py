"""Balance reports: `simkit report RUN_DIR` turns a run's results into report.html,
summary.md and CSV tables.

Layers, each usable on its own:
- `load`: open and validate a run folder;
- `metrics`: pure functions, results frame -> metric frames with 95% intervals;
- `targets`: the balance scorecard (configs/targets.toml);
- `charts`: metric frame -> matplotlib Figure;
- `hooks` + one module per game (`cauldron_master`): the game-specific components and
  sections;
- `build`: metrics and hooks -> a `Report` of sections; `render`: `Report` -> files.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Written", "make_report"]


def __getattr__(name: str) -> Any:
    """`make_report` and `Written` load the renderer (and matplotlib, about half a second)
    on first use: a run that only asks `reports.hooks` a question at its end, or a summary-only
    run's analysis, does not wait for them."""
    if name in __all__:
        from reports import render

        return getattr(render, name)
    raise AttributeError(f"module 'reports' has no attribute {name!r}")
