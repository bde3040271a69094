"""`simkit.ladder` (`simkit ladder` from Python): every balance verdict at every skill
level. Apart from simkit/api.py, to keep each module short; both take their arguments
through simkit/api_args.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from simkit.api import RunResult, open_run
from simkit.api_args import (
    Overrides,
    as_path,
    bar_update,
    out_folder,
    say_compiling,
    set_args,
    stop_rule,
    target_args,
)


@dataclass
class LadderResult:
    """A skill ladder played (`simkit ladder`): every rung's field, the climb and the
    convergence point, each a run folder in `folder`."""

    folder: Path
    record: dict[str, Any]  # ladder.json: the rungs and what each point plays

    @property
    def points(self) -> dict[str, RunResult]:
        """Each point's run (field_<i>_<rung>, climb_<i>_<rung>, budget_x2) by name."""
        return {p["name"]: open_run(self.folder / p["name"]) for p in self.record["points"]}

    def verdicts(self, targets: str | Path | None = None,
                 set_targets: Mapping[str, float] | None = None) -> pl.DataFrame:
        """One row per balance target: its verdict at every rung and across skill
        ("FAIL at every skill level", "depends on skill", ...); writes the report too."""
        return self._report(targets, set_targets)[1]

    def report(self, targets: str | Path | None = None,
               set_targets: Mapping[str, float] | None = None) -> Path:
        """Write the ladder report into the folder; returns report.html."""
        return self._report(targets, set_targets)[0].html

    def _report(self, targets: str | Path | None,
                set_targets: Mapping[str, float] | None) -> tuple[Any, pl.DataFrame]:
        from reports.ladder import make_ladder_report

        return make_ladder_report(self.folder, None, as_path(targets), target_args(set_targets))

    def __repr__(self) -> str:
        rungs = ", ".join(r["name"] for r in self.record["rungs"])
        return (f"LadderResult({self.record['game']}, rungs {rungs}, "
                f"folder {str(self.folder)!r})")


def ladder(game: str, *, players: int = 4, games: int = 20_000, seed: int = 0,
           ladder: str | Path | None = None, up_to: str | None = None, margin: float = 2.0,
           until_sure: bool = False, precision: float | None = None,
           targets: str | Path | None = None, set_targets: Mapping[str, float] | None = None,
           set: Overrides = None, config: str | Path | None = None,
           out: str | Path | None = None, threads: int | None = None,
           chunk_size: int | None = None, workers: int | None = None,
           scheduler: str | None = None, progress: bool = True) -> LadderResult:
    """Every balance verdict at every skill level (`simkit ladder`): each rung of the
    game's ladder (or the `ladder` file's) in every seat on the same deals, each rung
    against the one below, the top with its budget doubled. `margin` in points; `up_to`
    stops at that rung (the stronger ones are not played)."""
    from contextlib import nullcontext

    from reports.analysis import ANALYSIS
    from simkit import engine
    from simkit import ladders as ld
    from simkit.ladder_cost import CostProgress, point_costs

    stop = stop_rule(until_sure, precision, targets, set_targets)
    rungs = ld.load_ladder(game, as_path(ladder))
    spec = ld.LadderSpec(rungs if up_to is None else rungs.up_to(up_to), players, games, seed,
                         set_args(set), None if config is None else str(config),
                         margin / 100, stop, None if ladder is None else str(ladder))
    used = engine.set_threads(threads)
    engine.check_run_options(chunk_size, workers)
    folder = out_folder(out, "ladder")
    plan = ld.plan(spec, folder)
    say_compiling(progress, plan.prepared[0].game, [x.lineup for x in plan.prepared])
    games = [pt.run.games for pt in plan.points]
    label = f"{spec.ladder.game} ladder"
    with (CostProgress(games, point_costs(plan, folder), label, threads=used * (workers or 1))
          if progress
          else nullcontext(None)) as bar:  # the time left weighs each point's cost
        ld.run_ladder(plan, folder, threads=threads, chunk_size=chunk_size,
                      progress=bar_update(bar), analysis=ANALYSIS,
                      on_point=None if bar is None else
                      (lambda pt, _: bar.at(pt.index + 1)),
                      workers=workers, scheduler=scheduler)
    return LadderResult(folder, ld.read_ladder(folder) or {})


__all__ = ["LadderResult", "ladder"]
