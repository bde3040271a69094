"""The balance report on an Inori run: cards, tree spaces and rune kinds as components, and
the points-by-source, economy and colour sections."""

from __future__ import annotations

import polars as pl

from reports.hooks import Context, hooks_for
from reports.load import open_run
from reports.metrics import per_game
from reports.render import make_report
from simkit import engine
from simkit.engine import RunSpec


def test_inori_report_sections_and_components(tmp_path):
    run_dir = tmp_path / "run"
    engine.run(RunSpec("inori", 3, ("planner", "greedy", "random"), 600, 2), run_dir)
    written = make_report(run_dir)
    page = written.html.read_text()
    for anchor in ('id="components"', 'id="points-by-source"', 'id="economy"',
                   'id="colours"'):
        assert anchor in page
    folder = written.tables[0].parent
    names = {t.name for t in written.tables}
    assert {"inori_points_by_source.csv", "inori_economy_by_strategy.csv",
            "inori_tokens_by_colour.csv"} <= names
    sources = pl.read_csv(folder / "inori_points_by_source.csv")
    assert set(sources["strategy"]) == {"planner", "greedy", "random"}
    run = open_run(run_dir)
    ctx = Context(run, run.frame, per_game(run.frame), None, str)
    components = hooks_for("inori").components(ctx)
    kinds = {c.kind for c in components}
    assert kinds == {"Journey card", "Start card", "New Start card", "Great Tree space",
                     "Rune tile kind"}
    assert sum(c.kind == "Great Tree space" for c in components) == 9
