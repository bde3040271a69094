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

from reports.render import Written, make_report

__all__ = ["Written", "make_report"]
