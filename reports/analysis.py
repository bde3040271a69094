"""What the balance report lends a run: the queries a --summary-only run keeps, and the
--until-sure judgement. Handed to the engine by its caller (the CLI, the Python API), so
the engine never imports the reports (`simkit.engine.Analysis`).

`--until-sure` judges after each look (`simkit/stopping.py` for the looks and their
widened intervals): with the targets, until no scorecard verdict is NOT YET SURE; with
`--precision P`, until every seat-advantage and strategy win-share interval is at most P
wide on each side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from reports.build import scorecard_only, widened
from reports.load import Run
from reports.metrics import seat_advantage, win_share_by
from reports.plan import summary_plan
from reports.source import SummarySource
from reports.targets import load_targets
from simkit.engine import Analysis, Judge
from simkit.stopping import Z95, StopRule, look_z
from simkit.summary import Aggregate


def until_sure_judge(rule: StopRule, game: str) -> Judge:
    """The judgement of `rule` for a run of `game`; a bad targets file fails here, before
    any game is played."""
    targets = None if rule.precision is not None else load_targets(rule.targets, game,
                                                                   rule.set_targets)

    def judge(results: pl.DataFrame | Aggregate, stub: dict[str, Any],
              look: int) -> tuple[bool, str]:
        """(stop?, why) after `look` looks at the games so far: their rows, or for a
        summary-only run their totals."""
        if isinstance(results, pl.DataFrame):
            run = Run(Path("."), stub, results)
        else:
            run = Run(Path("."), stub, None, None,
                      SummarySource(results, int(stub["players"])))
        factor = look_z(look) / Z95
        if targets is not None:
            card = scorecard_only(run, targets, widen=factor)
            open_ = card.filter(pl.col("verdict") == "NOT YET SURE")["metric"].to_list()
            if open_:
                return False, "undecided: " + ", ".join(open_)
            return True, "every scorecard verdict decided"
        assert rule.precision is not None
        widest = 0.0
        for table, est in ((seat_advantage(run.source), "advantage"),
                           (win_share_by(run.source, "strategy"), "win_share")):
            w = widened(table, est, factor)
            widest = max(widest, float((w[f"{est}_hi"] - w[est]).max()),
                         float((w[est] - w[f"{est}_lo"]).max()))
        if widest <= rule.precision:
            return True, f"every interval within ±{rule.precision:g}"
        return False, f"widest interval ±{widest:.4f}"

    return judge


ANALYSIS = Analysis(queries=summary_plan, judge=until_sure_judge)
