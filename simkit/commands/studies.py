"""Commands that compare: `sweep`, `compare`, `tournament`, `tune`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from simkit.errors import SimkitError
from simkit.progress import Progress, say_if_compiling
from simkit.stopping import StopRule
from simkit.words import count

from .common import (
    CONTEXT,
    analysis,
    config_option,
    param_option,
    set_option,
    split,
    stop_options,
    summary_option,
)
from .runs import report_sweep


@click.command(context_settings=CONTEXT)
@click.argument("target", metavar="GAME|SPEC.toml")
@click.option("--vary", "vary", multiple=True, metavar="KEY=VALUES",
              help="A key to vary and its values: a list (supply.size.4=8,10,12), a range "
                   "(supply.size.4=8..12, param:planner.discount=0.1..0.5:0.1). KEY is any "
                   "--set key, or param:STRATEGY.PARAM. Repeat for a grid.")
@click.option("--zip", "zipped", is_flag=True, default=None,
              help="Pair the i-th values of every --vary key instead of forming a grid.")
@click.option("--players", type=int, default=None, help="Number of players [spec, else 4].")
@click.option("--strategies", "strategy_list", default=None,
              help="Comma-separated strategy per seat, or one for all [spec, else greedy].")
@click.option("--games", "n_games", type=int, default=None,
              help="Games per point [spec, else 100000].")
@click.option("--seed", type=int, default=None,
              help="Master seed, the same for every point [spec, else 0].")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Sweep folder: one run folder per point, and sweep.json.")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
@click.option("--chunk-size", type=int, default=None,
              help="Games per chunk (results never depend on it).")
@click.option("--max-points", type=int, default=None,
              help="Refuse sweeps with more points than this unless --yes [spec, else 50].")
@click.option("--yes", is_flag=True, help="Run a sweep with more points than --max-points.")
@stop_options
@click.option("--report", "with_report", is_flag=True,
              help="Write the sweep report (OUT/report.html) right after the sweep.")
@summary_option
@set_option
@param_option
@config_option
def sweep(target: str, vary: tuple[str, ...], zipped: bool | None, players: int | None,
          strategy_list: str | None, n_games: int | None, seed: int | None, out_dir: Path,
          threads: int | None, chunk_size: int | None, max_points: int | None, yes: bool,
          until_sure: bool, precision: float | None, targets_path: Path | None,
          set_targets: tuple[str, ...], with_report: bool, summary_only: bool,
          overrides: tuple[str, ...], params: tuple[str, ...],
          config_path: str | None) -> None:
    """Run a what-if sweep: one run per value (or grid of values) of config keys or strategy
    parameters, every point on the same deals (same seed), so differences are paired.

    Each point is a normal run folder inside OUT. Rerunning the same command skips finished
    points and resumes a half-played one. Options given here override the spec file's.

    \b
    Examples:
      simkit sweep cauldron-master --vary supply.size.4=8..12 --players 4 \\
          --strategies planner,greedy,random,greedy --games 100000 --seed 1 --out runs/supply
      simkit sweep configs/sweeps/cauldron_master.toml --out runs/sweep --games 20000
    """
    from simkit import engine
    from simkit import sweeps as sw

    spec = sw.make_spec(target, vary=vary, zipped=zipped, players=players,
                        strategies=split(strategy_list) if strategy_list else None,
                        games=n_games, seed=seed, overrides=overrides, params=params,
                        config_path=config_path, max_points=max_points)
    if precision is not None and not until_sure:
        raise SimkitError("--precision only applies with --until-sure")
    if until_sure:
        spec = sw.replace(spec, until_sure=StopRule(precision, targets_path, set_targets))
    if summary_only:
        spec = sw.replace(spec, summary_only=True)
    plan = sw.plan(spec, yes=yes)  # every point validated before any game is played
    engine.set_threads(threads)
    engine.check_run_options(chunk_size, None)
    sw.check_sweep_folder(out_dir, plan)
    total = len(plan.points) * spec.games
    click.echo(f"Sweep of {len(plan.points)} points x {spec.games:,} games into {out_dir}.")
    say_if_compiling(plan.prepared[0].game, [x.lineup for x in plan.prepared])
    with Progress(total, spec.game) as bar:
        record = sw.run_sweep(plan, out_dir, threads=threads, chunk_size=chunk_size,
                              progress=bar.update, analysis=analysis(spec))
    done_before = sum(p["status"] == "done before" for p in record["points"])
    t = record["timing"]
    if done_before == len(plan.points):
        click.echo(f"{out_dir} already holds this exact sweep; nothing to do.")
    else:
        note = f" ({done_before} were already done)" if done_before else ""
        click.echo(f"Played {len(plan.points) - done_before} points{note} in {t['seconds']:.1f} s; "
                   f"sweep overhead beyond the runs {t['overhead_seconds']:.2f} s "
                   f"({t['overhead_share'] * 100:.1f}%).")
    for p in record["points"]:
        click.echo(f"  {p['name']}")
    if with_report:
        report_sweep(out_dir, targets=targets_path, set_targets=set_targets)


@click.command(context_settings=CONTEXT)
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Also write the comparison here: compare.csv, compare.md and compare.html.")
@click.option("--components", "top_components", type=int, default=5, show_default=True,
              help="How many component effects to compare (largest first).")
def compare(run_a: Path, run_b: Path, out_dir: Path | None, top_components: int) -> None:
    """Compare two runs of the same game and seed: each metric's paired difference B - A.

    Both runs share their deals, so each difference is taken deal by deal and its 95%
    interval is far narrower than two separate runs would give. "REAL" marks differences
    whose interval excludes zero after false-discovery-rate control over all the rows.
    Example: simkit compare runs/supply/00_supply.size.4=8 runs/supply/04_supply.size.4=12
    """
    from reports.compare import compare_runs, render_text, write_compare

    if top_components < 0:
        raise SimkitError(f"--components must be 0 or more, not {top_components}")

    result = compare_runs(run_a, run_b, top_components=top_components)
    click.echo(render_text(result))
    if out_dir is not None:
        for path in write_compare(result, out_dir):
            click.echo(f"Wrote {path}")


@click.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--players", "player_counts", default="4", show_default=True,
              help="Seats per game; several counts as 2,3,4 play the tournament at each and "
                   "flag a pair of strategies whose order reverses between counts.")
@click.option("--strategies", "strategy_list", required=True,
              help="Comma-separated strategies to rank (at least 2; NAME@params.toml works).")
@click.option("--games", "n_games", type=int, default=10_000, show_default=True,
              help="Games per lineup (rounded up to whole deals).")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Folder for tournament.json/.html/.md, ratings.csv and win_matrix.csv "
                   "(with several counts: a players-N folder each and player_counts.md/.html).")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
@click.option("--chunk-size", "chunk_deals", type=int, default=None,
              help="Deals per chunk (results never depend on it).")
@click.option("--force", is_flag=True, help="Replace a different tournament already in --out.")
@set_option
@config_option
def tournament(game: str, player_counts: str, strategy_list: str, n_games: int, seed: int,
               out_dir: Path, threads: int | None, chunk_deals: int | None, force: bool,
               overrides: tuple[str, ...], config_path: str | None) -> None:
    """Rank strategies: every lineup of them plays the same deals, each strategy in every
    seat; prints Plackett-Luce ratings and the win matrix, and writes them with intervals.

    Progress is saved in OUT as each lineup finishes a chunk of deals: an interrupted
    tournament, started again with the same command, plays only what is missing.

    With several counts (--players 2,3,4), each count is such a tournament in OUT/players-N,
    and player_counts.md/.html name each pair whose order reverses between counts.

    \b
    Examples:
      simkit tournament cauldron-master --players 3 --strategies random,greedy,planner \\
          --games 20000 --seed 1 --out runs/tour
      simkit tournament cauldron-master --players 2,3,4 --strategies random,greedy,planner \\
          --games 20000 --seed 1 --out runs/tours
    """
    from reports import player_counts as pc_report
    from simkit import engine
    from simkit import player_counts as pc
    from simkit import tournaments as tn

    counts = pc.parse_counts(player_counts)
    spec = tn.TournamentSpec(game, counts[0], tuple(split(strategy_list)), n_games, seed,
                             overrides, config_path)
    plans = pc.plans(spec, counts)
    engine.set_threads(threads)
    chunk_deals = tn.DEFAULT_CHUNK_DEALS if chunk_deals is None else chunk_deals
    if len(plans) == 1:
        _play_tournament(plans[0], out_dir, chunk_deals, force)
        return
    command = pc.command(spec, counts, str(out_dir))

    def play_one(plan: Any, folder: Path) -> dict[str, Any]:
        click.echo(f"At {plan.spec.players} players:")
        return _play_tournament(plan, folder, chunk_deals, force)

    def write(records: list[dict[str, Any]], out: Path) -> None:
        click.echo(pc_report.write_report(records, out, command))
        click.echo(f"Wrote {out / pc_report.HTML_FILE} and {out / pc_report.MD_FILE}.")

    pc.run(plans, out_dir, chunk_deals, force, play_one, write)


def _play_tournament(plan: Any, out_dir: Path, chunk_deals: int,
                     force: bool) -> dict[str, Any]:
    """Play (or resume, or find done) one tournament into `out_dir`, with progress and its
    standings on the terminal; returns its record."""
    from reports.tournament import standings_text, write_report
    from simkit import tournaments as tn

    bars: list[Progress] = []
    n_games = plan.spec.games

    def started(state: str, done: int) -> Any:
        rounded = (f", --games {n_games:,} rounded up to whole deals"
                   if plan.games_per_lineup != n_games else "")
        click.echo(f"{count(len(plan.lineups), 'lineup')} x {plan.games_per_lineup:,} games "
                   f"({plan.total_games:,} games{rounded}) into {out_dir}.")
        if state == "resume":
            click.echo(f"Resuming: {done:,} of {plan.total_games:,} games were played "
                       "before.")
        say_if_compiling(plan.game, plan.lineups)
        bars.append(Progress(plan.total_games, f"{plan.spec.game} tournament", done=done))
        return bars[-1].update

    record, state, done = tn.run(plan, out_dir, chunk_deals, force, started, write_report)
    for bar in bars:
        bar.close()
    if state == "done":
        click.echo(f"{out_dir} already holds this exact tournament; nothing to do.")
    else:
        elapsed = json.loads((out_dir / tn.TIMING_FILE).read_text())["elapsed_seconds"]
        click.echo(f"Played {plan.total_games - done:,} games ({elapsed:.1f} s of play in "
                   f"all); wrote {out_dir / 'tournament.html'} and the tables as CSV.")
    click.echo(standings_text(record))
    return record


@click.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--strategy", "strategy", required=True,
              help="The strategy to tune: a built-in NAME or a plug-in FILE.py:FUNCTION "
                   "with declared parameters; NAME@start.toml starts from (and is compared "
                   "with) that file's parameters.")
@click.option("--against", "against", required=True,
              help="Comma-separated opponents, one per other seat (NAME@params.toml works).")
@click.option("--budget", type=int, required=True, help="Games the search may play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--out", "out_file", type=click.Path(path_type=Path), required=True,
              help="The parameter file to write, e.g. tuned.toml.")
@click.option("--population", type=int, default=None,
              help="Candidates per generation (default: CMA-ES's 4 + 3 ln d).")
@click.option("--games-per-candidate", type=int, default=None,
              help="Games per candidate and generation (default: about 20 generations).")
@click.option("--eval-games", type=int, default=10_000, show_default=True,
              help="Fresh games measuring tuned against untuned.")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
@set_option
@config_option
def tune(game: str, strategy: str, against: str, budget: int, seed: int, out_file: Path,
         population: int | None, games_per_candidate: int | None, eval_games: int,
         threads: int | None, force: bool, overrides: tuple[str, ...],
         config_path: str | None) -> None:
    """Tune a strategy's parameters (CMA-ES) to maximise its win share against opponents,
    then measure tuned against untuned on fresh deals; writes a parameter file that
    --strategies NAME@FILE uses.

    Example: simkit tune carnuta --strategy planner --against greedy --budget 100000
    --seed 1 --out tuned.toml
    """
    from simkit import engine
    from simkit import tuning as tu

    spec = tu.TuneSpec(game, strategy, tuple(split(against)), budget, seed, population,
                       games_per_candidate, eval_games, overrides, config_path)
    setup = tu.prepare(spec)
    engine.set_threads(threads)
    done = None if force else tu.same_tune(out_file, setup)
    if done is not None:
        click.echo(f"{out_file} already holds this exact tune; nothing to do. Parameters:")
        for name, value in done["params"].items():
            click.echo(f"    {name} = {value:g}")
        return
    seen = tu.check_out(out_file, force)
    click.echo(f"Tuning {setup.name} ({len(setup.strategy.params)} parameters) at "
               f"{setup.players} players, against {', '.join(spec.against)} (parameters "
               f"tuned at one player count may play worse at another): "
               f"{setup.generations} generations x "
               f"{setup.population} candidates x {setup.games_per_candidate:,} games, then "
               f"3 x {setup.eval_games:,} fresh games.")
    total = setup.search_games + 3 * setup.eval_games
    say_if_compiling(setup.game, [setup.base])
    with Progress(total, f"{game} tune") as bar:
        outcome = tu.search(setup, progress=lambda n, what: bar.update(n, what))
    tu.write(outcome, out_file, seen)
    ev = outcome.evaluation
    click.echo(f"Wrote {out_file} in {outcome.elapsed:.1f} s. Parameters:")
    for p in setup.strategy.params:
        click.echo(f"    {p.name} = {outcome.params[p.name]:g}  (untuned "
                   f"{setup.start[p.name]:g})")
    click.echo(f"On {ev['games']:,} fresh games against {', '.join(spec.against)} "
               f"(95% intervals):")
    for key, what in (("tuned", "tuned  "), ("untuned", "untuned")):
        click.echo(f"    win share {what} {ev[key]:.3f} [{ev[key + '_lo']:.3f}, "
                   f"{ev[key + '_hi']:.3f}]")
    click.echo(f"    difference {ev['difference']:+.3f} [{ev['difference_lo']:+.3f}, "
               f"{ev['difference_hi']:+.3f}] (paired by deal)")
    click.echo(f"Tuned against {setup.players - 1} untuned: win share {ev['head_to_head']:.3f} "
               f"[{ev['head_to_head_lo']:.3f}, {ev['head_to_head_hi']:.3f}] "
               f"(fair share {ev['fair_share']:.3f}).")
