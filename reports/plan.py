"""What a summary-only run keeps: every query the balance report asks of a run's results.

The list is not written down by hand: the report is built once over a small planning
sample of the run's own games, through a `Recorder` that notes each query the generic
sections, the scorecard and the game's summary-ready hooks ask (`GameHooks.summary_ready`:
their queries do not depend on the data). Each chunk of the real run is then reduced to
the exact totals of exactly those queries (`simkit/summary.py`), so a report over the
merged totals finds everything it asks for, and a change to the report needs no second
list kept in step with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from reports.source import Recorder, RowsSource
from simkit.summary import CSV_QUERY, Query

# Enough games for every section to run its course (complete deals, short games...); the
# queries do not depend on which games these are.
PLAN_GAMES = 1200


def report_queries(manifest: dict[str, Any], sample: pl.DataFrame) -> list[Query]:
    """Every query a report on a summary-only run with this manifest asks, found by
    building the report over `sample` (results rows of the same game and lineup)."""
    from reports.build import build
    from reports.charts import undrawn
    from reports.hooks import hooks_for
    from reports.load import Run
    from reports.targets import load_targets

    recorder = Recorder(RowsSource(sample))
    run = Run(Path("."), manifest, None, None, recorder)
    game = str(manifest["game"])
    with undrawn():  # the queries are all it wants of the report
        build(run, load_targets(None, game), hooks_for(game))
    return [*recorder.seen.values(), CSV_QUERY]


def summary_plan(prepared: Any) -> list[Query]:
    """The queries to keep for a prepared run (`simkit.engine.Prepared`)."""
    from simkit.engine import manifest_stub
    from simkit.results import long_table

    p = prepared
    columns = p.game.simulate(p.compiled, p.lineup, p.spec.seed, 0, PLAN_GAMES)
    sample = pl.from_arrow(long_table(columns, 0, p.lineup.rotate, list(p.lineup.names),
                                      p.game.categories(p.compiled)))
    assert isinstance(sample, pl.DataFrame)
    return report_queries(manifest_stub(p), sample)
