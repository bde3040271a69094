"""The balance report on a Carnuta run: cards, starting cards and tokens as components,
and the rune-economy and scoring-kind sections."""

from __future__ import annotations

import polars as pl

from reports.hooks import hooks_for
from reports.render import make_report
from simkit import engine
from simkit.engine import RunSpec


def test_carnuta_report_sections_and_components(tmp_path):
    run_dir = tmp_path / "run"
    engine.run(RunSpec("carnuta", 3, ("planner", "greedy", "random"), 600, 2), run_dir)
    written = make_report(run_dir)
    page = written.html.read_text()
    for anchor in ('id="components"', 'id="runes"', 'id="scoring-kinds"'):
        assert anchor in page
    names = {t.name for t in written.tables}
    assert {"carnuta_runes_by_strategy.csv", "carnuta_points_by_kind.csv"} <= names
    runes = pl.read_csv(written.tables[0].parent / "carnuta_runes_by_strategy.csv")
    assert set(runes["strategy"]) == {"planner", "greedy", "random"}
    from reports.hooks import Context
    from reports.load import open_run
    from reports.metrics import per_game

    run = open_run(run_dir)
    ctx = Context(run, run.frame, per_game(run.frame), None, str)
    kinds = {c.kind for c in hooks_for("carnuta").components(ctx)}
    assert kinds == {"Starting card", "Card", "Bonus token"}
