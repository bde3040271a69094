"""What a game's hooks see of a run, and the component effects they name (shared by the
report's builder and the stronger-run comparison)."""

from __future__ import annotations

import polars as pl

from reports import metrics
from reports.hooks import Context, GameHooks
from reports.load import Run
from reports.source import MissingQuery
from reports.targets import Targets


def context(run: Run, targets: Targets, hooks: GameHooks) -> Context:
    """What the game's hooks see. Hooks that are not `summary_ready` get the per-game frame
    too (they may read it); on a summary-only run they are not asked at all."""
    frame = run.frame
    games = (metrics.per_game(frame) if frame is not None and not hooks.summary_ready
             else None)
    return Context(run, frame, games, targets, hooks.seat_label, run.source)


def game_hooks_apply(run: Run, hooks: GameHooks) -> bool:
    """Whether the game's components and sections can be computed for `run`."""
    return hooks.summary_ready or not run.source.summary_only


def components_of(run: Run, hooks: GameHooks, ctx: Context,
                  missing: list[str] | None = None) -> pl.DataFrame:
    """The component effects (none for hooks that cannot read a summary-only run, or when
    the summary lacks what they ask: then the reason is added to `missing`)."""
    found = hooks.components(ctx) if game_hooks_apply(run, hooks) else []
    try:
        return metrics.component_effects(run.source, found)
    except MissingQuery as exc:
        if missing is None:
            raise
        missing.append(f"Component value: {exc}.")
        return metrics.component_effects(run.source, [])
