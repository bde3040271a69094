"""`simkit ladder`: every balance verdict at every skill level of the game's ladder."""

from __future__ import annotations

from pathlib import Path

import click

from simkit.errors import SimkitError
from simkit.ladder_cost import CostProgress, point_costs
from simkit.progress import say_if_compiling
from simkit.stopping import StopRule
from simkit.words import shown

from .common import CONTEXT, analysis, config_option, set_option, stop_options


@click.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--players", type=int, default=4, show_default=True, help="Number of players.")
@click.option("--games", "n_games", type=int, default=20_000, show_default=True,
              help="Games per point; a rung's own `games` in its ladder caps it (dear rungs).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Master seed, the same for every point (the fields share their deals).")
@click.option("--ladder", "ladder_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="A ladder file (rungs = [...]) instead of the game's own "
                                 "(configs/ladders.toml, or the game folder's ladder.toml).")
@click.option("--up-to", "up_to", default=None, metavar="RUNG",
              help="Stop at this rung: the rungs above it are not played (a dear top, e.g. "
                   "the search player), and the report says a stronger player exists.")
@click.option("--margin", type=float, default=2.0, show_default=True,
              help="The top has converged when doubling its budget gains less than this "
                   "many points of win share (the whole 95% interval).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Ladder folder: a run folder per point, ladder.json, the report.")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
@click.option("--chunk-size", type=int, default=None,
              help="Games per chunk (results never depend on it).")
@click.option("--workers", type=int, default=None,
              help="Play on a local dask cluster of this many worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play on an existing dask.distributed scheduler, e.g. tcp://host:8786.")
@click.option("--no-report", is_flag=True, help="Play only; `simkit report OUT` writes it later.")
@stop_options
@set_option
@config_option
def ladder(game: str, players: int, n_games: int, seed: int, ladder_path: Path | None,
           up_to: str | None, margin: float, out_dir: Path, threads: int | None,
           chunk_size: int | None,
           workers: int | None, scheduler: str | None, no_report: bool, until_sure: bool,
           precision: float | None, targets_path: Path | None, set_targets: tuple[str, ...],
           overrides: tuple[str, ...], config_path: str | None) -> None:
    """Every balance verdict at every skill level: each rung of the game's ladder plays a
    field of its own (its strategy in every seat) on the same deals, each rung plays one
    seat against the rung below, and the top plays its budget doubled against itself.

    The report (OUT/report.html) gives each target's verdict at every rung and across
    skill: "FAIL at every skill level", "PASS at every skill level", "depends on skill"
    (where it flips) or "not yet sure about strong play" (the top has not converged).
    Rerunning the same command skips finished points and resumes a half-played one.

    \b
    Examples:
      simkit ladder cauldron-master --players 4 --games 20000 --seed 1 --out runs/ladder
      simkit ladder examples/pig --players 2 --games 5000 --until-sure --out runs/pig-ladder
    """
    from simkit import engine
    from simkit import ladders as ld

    if precision is not None and not until_sure:
        raise SimkitError("--precision only applies with --until-sure")
    stop = StopRule(precision, targets_path, set_targets) if until_sure else None
    rungs = ld.load_ladder(game, ladder_path)
    spec = ld.LadderSpec(rungs if up_to is None else rungs.up_to(up_to), players, n_games, seed,
                         tuple(overrides), config_path, margin / 100, stop,
                         str(ladder_path) if ladder_path else None)
    used = engine.set_threads(threads)
    engine.check_run_options(chunk_size, workers)
    plan = ld.plan(spec, out_dir)
    total = sum(pt.run.games for pt in plan.points)
    rungs = ", ".join(r.name for r in spec.ladder.rungs)
    click.echo(f"Ladder of {spec.ladder.game} ({rungs}; {spec.ladder.source}): "
               f"{len(plan.points)} points, {total:,} games into {out_dir}.")
    say_if_compiling(plan.prepared[0].game, [x.lineup for x in plan.prepared])
    # A top rung's game costs hundreds of times a heuristic's: the time left weighs each
    # point's games by its cost per game, measured on one deal of each before play.
    costs = point_costs(plan, out_dir)
    games = [pt.run.games for pt in plan.points]
    click.echo(f"About {_cpu(sum(g * c for g, c in zip(games, costs, strict=True)))} of CPU "
               "to play (each point's cost per game, measured on its first deals: "
               + ", ".join(f"{pt.name} {_per_game(c)}" for pt, c in
                           zip(plan.points, costs, strict=True) if c) + ").")
    playing = [plan.points[0].name]

    with CostProgress(games, costs, f"{spec.ladder.game} ladder",
                      threads=used * (workers or 1)) as bar:
        def next_point(point: object, manifest: object) -> None:
            later = [p for p in plan.points if p.index > getattr(point, "index", 0)]
            playing[0] = later[0].name if later else "done"
            bar.at(later[0].index if later else len(plan.points) - 1)

        record = ld.run_ladder(plan, out_dir, threads=threads, chunk_size=chunk_size,
                               progress=lambda n: bar.update(n, playing[0]),
                               on_point=next_point, analysis=analysis(spec),
                               workers=workers, scheduler=scheduler)
    t = record["timing"]
    click.echo(f"Played in {t['seconds']:.1f} s.")
    if not no_report:
        report_ladder(out_dir, None, targets_path, set_targets)


def _per_game(seconds: float) -> str:
    return f"{seconds * 1e6:.2g} µs" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


def _cpu(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def report_ladder(folder: Path, out_dir: Path | None = None, targets: Path | None = None,
                  set_targets: tuple[str, ...] = ()) -> None:
    """Write the ladder report and print each target's verdict across skill."""
    from reports.ladder import make_ladder_report, not_played
    from simkit.ladders import read_ladder

    written, verdicts = make_ladder_report(folder, out_dir, targets, set_targets)
    click.echo(f"Wrote the ladder report {written.html}.")
    for r in verdicts.iter_rows(named=True):
        click.echo(shown(f"  {r['title']}: {r['across']}. {r['detail']}"))
    left_out = not_played(read_ladder(folder) or {})
    if left_out:
        click.echo(left_out)
