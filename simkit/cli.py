"""The `simkit` command line: parses, calls the library, prints. Errors are one line."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from simkit.errors import SimkitError
from simkit.progress import Progress, say_if_compiling
from simkit.stopping import StopRule

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class SimkitGroup(click.Group):
    """Turns library errors into one clear line and a non-zero exit, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        from simkit import slices

        slices.on_wait = lambda: click.echo(
            "\nStopping after the games in play (about a second); Ctrl-C again stops at once.",
            err=True)
        try:
            return super().invoke(ctx)
        except SimkitError as exc:
            raise click.ClickException(str(exc)) from None
        except KeyboardInterrupt:
            if ctx.invoked_subcommand == "tune":  # played in memory
                click.echo("\nInterrupted; nothing was written.", err=True)
            elif ctx.invoked_subcommand == "tournament":
                click.echo("\nInterrupted. Every lineup finished is saved: run the same "
                           "command again to resume.", err=True)
            else:
                click.echo("\nInterrupted. Every finished game is saved: run the same "
                           "command again to resume.", err=True)
            if slices.abandoned:  # a slice still plays in its thread and may never end
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(130)
            sys.exit(130)


@click.group(cls=SimkitGroup, context_settings=CONTEXT)
@click.version_option(package_name="simkit")
def main() -> None:
    """simkit: Monte Carlo balance analysis for tabletop games.

    \b
    Example:
      simkit run cauldron-master --players 4 --strategies planner,greedy,random,greedy \\
          --games 100000 --seed 1 --out runs/first
    """


def _analysis(spec: Any) -> Any:
    """What the reports lend a --summary-only or --until-sure run (the engine never
    imports them): `reports/analysis.py`. None for any other run."""
    if spec.until_sure is None and not spec.summary_only:
        return None
    from reports.analysis import ANALYSIS

    return ANALYSIS


def _summary_text(frame: Any) -> str:
    """summary.csv's table for the terminal: shares in percent, means rounded."""
    shown = frame.to_pandas()
    shown["win_share"] = shown["win_share"].map(lambda x: f"{x * 100:.1f}%")
    shown["mean_score"] = shown["mean_score"].map(lambda x: f"{x:.1f}")
    shown["mean_rounds"] = shown["mean_rounds"].map(lambda x: f"{x:.2f}")
    shown["games"] = shown["games"].map(lambda x: f"{x:,}")
    return shown.rename(columns={"win_share": "win share", "mean_score": "mean score",
                                 "mean_rounds": "mean rounds"}).to_string(index=False)


def _split(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


set_option = click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                          help="Override a config value, e.g. --set supply.size.4=10 "
                               "(repeatable; `simkit show GAME` lists the keys).")
config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False),
                             default=None, help="Use this config file instead of the built-in "
                             "configs/<game>.toml (e.g. with the published card list).")
param_option = click.option("--param", "params", multiple=True, metavar="STRATEGY.PARAM=VALUE",
                            help="Set a strategy parameter, e.g. --param planner.discount=0.5.")
stronger_option = click.option(
    "--stronger", type=click.Path(path_type=Path), default=None, metavar="OTHER_RUN",
    help="Add a section comparing the seat advantage and top component effects with "
         "OTHER_RUN: the same game and player count at another skill level.")
summary_option = click.option("--summary-only", is_flag=True,
                              help="Keep exact totals of what the report reads (summary.json, "
                                   "a few hundred KB) instead of one row per game and seat; "
                                   "for very long runs. `simkit report` works from either.")


@main.command(context_settings=CONTEXT)
def games() -> None:
    """List the games simkit models.  Example: simkit games"""
    from simkit.games import game_names, get_game

    for name in game_names():
        game = get_game(name)
        compiled = game.compile(game.load_config())
        players = ", ".join(map(str, game.players(compiled)))
        click.echo(f"{name:18} {game.title} ({players} players)")


@main.command(context_settings=CONTEXT)
@click.argument("game")
def strategies(game: str) -> None:
    """List a game's strategies and their parameters, then the plug-ins installed packages
    register for it (entry points `simkit.strategies`, read but not compiled).

    Example: simkit strategies cauldron-master
    """
    from simkit import plugins
    from simkit.games import get_game

    builtin = get_game(game).strategies()
    def show_params(params: Any) -> None:
        for p in params:
            click.echo(f"    {p.name} = {p.default:g}  [{p.lo:g}, {p.hi:g}]  {p.doc}".rstrip())

    for spec in builtin.values():
        click.echo(f"{spec.name:10} {spec.summary}")
        show_params(spec.params)
    for item in plugins.list_entry_points(game):
        if item.problem is not None:
            click.echo(f"{item.name:10} plug-in, cannot be used: {item.problem} "
                       f"[{item.origin}]")
            continue
        hidden = "  (not used: the built-in of that name wins)" if item.name in builtin else ""
        click.echo(f"{item.name:10} plug-in: {item.summary or 'no docstring'}{hidden}")
        click.echo(f"    from {item.origin}")
        show_params(item.params)


@main.command(context_settings=CONTEXT)
@click.argument("game")
@set_option
@config_option
def show(game: str, overrides: tuple[str, ...], config_path: str | None) -> None:
    """Print a game's resolved config, one KEY = VALUE per line, marking placeholders.

    Every key printed can be given to --set.  Example: simkit show cauldron-master
    """
    from simkit.config import flatten
    from simkit.games import get_game

    g = get_game(game)
    config = g.load_config(overrides, Path(config_path) if config_path else None)
    g.compile(config)  # validate
    marks = set(config.placeholders())
    click.echo(f"# {g.title}: {config.source}  (hash {config.hash})")
    click.echo("# PLACEHOLDER marks values not from a published source.")
    for key, value in flatten(config.data):
        mark = any(key == m or key.startswith(m + ".") for m in marks)
        click.echo(f"{key} = {json.dumps(value)}" + ("   # PLACEHOLDER" if mark else ""))


def stop_options(f: Any) -> Any:
    """--until-sure and the balance targets it (and --report) judge against."""
    f = click.option("--set-target", "set_targets", multiple=True,
                     metavar="METRIC.SETTING=VALUE",
                     help="Override a target for --until-sure and --report (repeatable).")(f)
    f = click.option("--targets", "targets_path",
                     type=click.Path(path_type=Path, dir_okay=False), default=None,
                     help="Balance targets for --until-sure and --report "
                          "(default: configs/targets.toml).")(f)
    f = click.option("--precision", type=float, default=None,
                     help="With --until-sure: stop when every seat-advantage and strategy "
                          "win-share interval is within this share, e.g. 0.01 = ±1 point.")(f)
    return click.option("--until-sure", is_flag=True,
                        help="Play in rounds (10,000 games, doubling, up to --games) and stop "
                             "once every balance-target verdict is decided (or, with "
                             "--precision, every interval is narrow enough); valid under "
                             "repeated looks.")(f)


def _lineup_options(f: Any) -> Any:
    f = click.option("--strategies", "strategy_list", default="greedy", show_default=True,
                     help="Comma-separated strategy per seat (seat 0 first), or one for all.")(f)
    f = click.option("--players", type=int, default=4, show_default=True,
                     help="Number of players.")(f)
    f = click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")(f)
    return f


@main.command(context_settings=CONTEXT)
@click.argument("game")
@_lineup_options
@click.option("--game-index", type=int, default=0, show_default=True,
              help="Which game of the run (seed, index) to replay.")
@set_option
@param_option
@config_option
def play(game: str, strategy_list: str, players: int, seed: int, game_index: int,
         overrides: tuple[str, ...], params: tuple[str, ...], config_path: str | None) -> None:
    """Play one game and print it as a readable log.

    Any game of a run can be replayed from its seed and index.
    Example: simkit play cauldron-master --players 3 --strategies planner,greedy,random --seed 7
    """
    from simkit.engine import RunSpec, prepare

    if not 0 <= game_index < 2**63:
        raise SimkitError(f"--game-index must be between 0 and 2**63-1, not {game_index}")
    spec = RunSpec(game, players, tuple(_split(strategy_list)), game_index + 1, seed,
                   overrides, params, config_path)
    p = prepare(spec)
    say_if_compiling(p.game, traced=True)
    click.echo(p.game.play_log(p.compiled, p.lineup, seed, game_index))


@main.command(context_settings=CONTEXT)
@click.argument("game")
@_lineup_options
@click.option("--games", "n_games", type=int, default=100_000, show_default=True,
              help="Number of games.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Run folder for games.parquet, manifest.json and summary.csv.")
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--chunk-size", type=int, default=None,
              help="Games per chunk (results never depend on it).")
@click.option("--force", is_flag=True, help="Replace a different run already in --out.")
@click.option("--workers", type=int, default=None,
              help="Play on a local dask cluster of this many worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play on an existing dask.distributed scheduler, e.g. tcp://host:8786.")
@stop_options
@click.option("--report", "with_report", is_flag=True,
              help="Write the balance report (OUT/report.html) right after the run.")
@stronger_option
@summary_option
@set_option
@param_option
@config_option
def run(game: str, strategy_list: str, players: int, seed: int, n_games: int, out_dir: Path,
        threads: int | None, chunk_size: int | None, force: bool, workers: int | None,
        scheduler: str | None, until_sure: bool, precision: float | None,
        targets_path: Path | None, set_targets: tuple[str, ...], with_report: bool,
        stronger: Path | None, summary_only: bool, overrides: tuple[str, ...],
        params: tuple[str, ...], config_path: str | None) -> None:
    """Simulate many games and write one row per game and seat to OUT/games.parquet.

    When the strategies differ they rotate through the seats over the same deals. Each
    chunk of games is saved as it finishes: an interrupted run, started again with the
    same command, plays only the missing games.
    Example: simkit run cauldron-master --players 4 --strategies planner,greedy,random,greedy
    --games 1000000 --seed 1 --out runs/cm
    """
    from simkit import engine

    if precision is not None and not until_sure:
        raise SimkitError("--precision only applies with --until-sure")
    if stronger is not None:
        if not with_report:
            raise SimkitError("--stronger only applies with --report")
        from reports.stronger import check_stronger

        check_stronger(stronger, game, players)  # before any game is played
    rule = (StopRule(precision, targets_path, set_targets) if until_sure else None)
    spec = engine.RunSpec(game, players, tuple(_split(strategy_list)), n_games, seed,
                          overrides, params, config_path, rule, summary_only)
    prepared = engine.prepare(spec)  # every input error surfaces before any work starts
    engine.set_threads(threads)
    chunk_size = engine.DEFAULT_CHUNK if chunk_size is None else chunk_size
    engine.check_run_options(chunk_size, workers)
    done = engine.check_output(out_dir, prepared, force) == "done"
    if not done:
        say_if_compiling(prepared.game)
    with contextlib.nullcontext(None) if done else Progress(n_games, game) as bar:
        manifest = engine.run(spec, out_dir, threads=threads, chunk_size=chunk_size, force=force,
                              progress=None if bar is None else bar.update, prepared=prepared,
                              scheduler=scheduler, workers=workers, analysis=_analysis(spec))
    what = (f"the totals of {manifest['games']:,} games" if manifest.get("summary_only")
            else f"{manifest['rows']:,} rows")
    where = out_dir / engine.results_file(prepared)
    if manifest.get("skipped"):
        click.echo(f"{out_dir} already holds this exact run; nothing to do.")
    elif manifest.get("resumed"):
        click.echo(f"Finished the interrupted run: {what} in {where}.")
    else:
        rate = manifest["games"] / max(manifest["elapsed_seconds"], 1e-9)
        click.echo(f"Wrote {what} to {where} "
                   f"in {manifest['elapsed_seconds']:.1f} s ({rate:,.0f} games/s).")
    click.echo(_summary_text(engine.summary_frame(out_dir)))
    if manifest["config"]["placeholders"]:
        from reports.hooks import used_placeholders

        used = len(used_placeholders(manifest))  # counted as the report counts them
        click.echo(f"Note: this run used {used} placeholder values (see `simkit show {game}`); "
                   "not the published card data.")
    if manifest.get("stopping"):
        stop = manifest["stopping"]
        click.echo(f"--until-sure: stopped after {manifest['games']:,} of at most "
                   f"{n_games:,} games, {stop['looks']} looks: {stop['reason']}.")
    if with_report:
        _report(out_dir, targets=targets_path, set_targets=set_targets, stronger=stronger)


def _report(run_dir: Path, out_dir: Path | None = None, targets: Path | None = None,
            set_targets: tuple[str, ...] = (), stronger: Path | None = None) -> None:
    import time

    from reports import make_report
    from reports.render import verdict_lines

    started = time.perf_counter()
    written = make_report(run_dir, out_dir, targets, set_targets, stronger)
    if written.scorecard is not None and written.scorecard.height:
        click.echo("Balance scorecard:")
        for line in verdict_lines(written.scorecard):
            click.echo(f"  {line}")
    click.echo(f"Wrote the balance report {written.html} ({written.summary.name}, "
               f"{len(written.tables)} CSV tables in {written.tables[0].parent.name}/) "
               f"in {time.perf_counter() - started:.1f} s.")


@main.command(context_settings=CONTEXT)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Write the report here instead of into RUN_DIR.")
@click.option("--targets", "targets", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Balance targets file (default: configs/targets.toml).")
@click.option("--set-target", "set_targets", multiple=True, metavar="METRIC.SETTING=VALUE",
              help="Override a target, e.g. --set-target seat_advantage.max_points=2 "
                   "(repeatable).")
@stronger_option
def report(run_dir: Path, out_dir: Path | None, targets: Path | None,
           set_targets: tuple[str, ...], stronger: Path | None) -> None:
    """Write a run's balance report: report.html, summary.md and CSV tables.

    The report opens with a scorecard of balance targets (PASS / FAIL / NOT YET SURE),
    then win shares, seat advantage, scores, game endings, component value and the
    game's own sections, every estimate with its 95% interval.
    Example: simkit report runs/cm
    """
    from simkit.sweeps import read_sweep

    if (run_dir / "value.json").is_file() and not (run_dir / "manifest.json").exists():
        from reports.render import write_value_report

        html, _ = write_value_report(run_dir)
        click.echo(f"Wrote the value report {html}.")
        return
    if run_dir.is_dir() and read_sweep(run_dir) is not None:
        if stronger is not None:
            raise SimkitError(f"--stronger: {run_dir} is a sweep; give a single run folder")
        _sweep_report(run_dir, out_dir, targets, set_targets)
        return
    _report(run_dir, out_dir, targets, set_targets, stronger)


@main.command(context_settings=CONTEXT)
@click.argument("game")
@_lineup_options
@click.option("--games", "n_games", type=int, default=20_000, show_default=True,
              help="Games as configured (at most, with --precision); each is also played "
                   "once per component valued.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Folder for value.json, value.html, value.md and the CSV tables.")
@click.option("--kind", "kinds", multiple=True,
              help="Value only this component kind, e.g. --kind 'Recipe card' (repeatable).")
@click.option("--component", "components", multiple=True, metavar="ID",
              help="Value only this component (its id in the config; repeatable).")
@click.option("--precision", type=float, default=None,
              help="Play in rounds (10,000 games, doubling, up to --games) until every "
                   "value interval is within this share, e.g. 0.01 = ±1 point.")
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--chunk-size", type=int, default=20_000, show_default=True,
              help="Games per saved chunk (results never depend on it).")
@click.option("--force", is_flag=True, help="Replace a different value run already in --out.")
@click.option("--workers", type=int, default=None,
              help="Play on a local dask cluster of this many worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play on an existing dask.distributed scheduler, e.g. tcp://host:8786.")
@set_option
@param_option
@config_option
def value(game: str, strategy_list: str, players: int, seed: int, n_games: int,
          out_dir: Path, kinds: tuple[str, ...], components: tuple[str, ...],
          precision: float | None, threads: int | None, chunk_size: int, force: bool,
          workers: int | None, scheduler: str | None, overrides: tuple[str, ...],
          params: tuple[str, ...], config_path: str | None) -> None:
    """What each component is worth: play the same deals with it neutralised.

    Every deal is played as configured and once per component with that one component
    neutralised (same shuffles and draws); a component's value is the win share its
    players lose. Verdicts control the false discovery rate within each kind; an A/A
    control row checks the method. Writes OUT/value.html. Resumable after an interrupt.
    Played into a run folder (--out RUN/value, with the run's options), it joins that
    run's balance report.

    \b
    Example:
      simkit value carnuta --players 4 --strategies greedy --kind Card \\
          --precision 0.01 --games 400000 --out runs/carnuta-value
    """
    from reports.render import write_value_report
    from reports.value import verdict_lines
    from simkit import engine
    from simkit import valuation as value_lib

    spec = value_lib.ValueSpec(game, players, tuple(_split(strategy_list)), n_games, seed,
                               overrides, params, config_path, kinds, components, precision)
    if n_games < 1:
        raise SimkitError(f"--games must be at least 1, not {n_games}")
    p = value_lib.plan(spec)  # every input error before any game is played
    engine.set_threads(threads)
    engine.check_run_options(chunk_size, workers)
    value_lib.check_folder(out_dir, p, force)
    per = len(p.interventions) + 1
    label = (f"{game}: {len(value_lib.components(p)) - 1} components + A/A, "
             f"{n_games:,} games x {per}")
    click.echo(label, err=True)
    say_if_compiling(p.base.game)
    with Progress(n_games * per, game, unit="kernel games") as bar:
        result = value_lib.run(p, out_dir, chunk_size=chunk_size, force=force,
                               progress=bar.update, scheduler=scheduler, workers=workers)
    if result.get("skipped"):
        click.echo(f"{out_dir} already holds this exact value run; nothing to do.")
    else:
        rate = result["kernel_games"] / max(result["elapsed_seconds"], 1e-9)
        click.echo(f"Played {result['games']:,} games x {per} in "
                   f"{result['elapsed_seconds']:.1f} s ({rate:,.0f} games/s).")
    if result.get("stopping"):
        click.echo(f"--precision: {result['stopping']['reason']} after {result['games']:,} "
                   "games.")
    html, _ = write_value_report(out_dir)

    for line in verdict_lines(result):
        click.echo(line)
    click.echo(f"Wrote the value report {html}.")


def _sweep_report(sweep_dir: Path, out_dir: Path | None = None, targets: Path | None = None,
                  set_targets: tuple[str, ...] = ()) -> None:
    import time

    from reports.sweep import make_sweep_report

    started = time.perf_counter()
    written = make_sweep_report(sweep_dir, out_dir, targets, set_targets)
    click.echo(f"Wrote the sweep report {written.html} ({written.summary.name}, "
               f"{len(written.tables)} CSV tables) in {time.perf_counter() - started:.1f} s.")


@main.command(context_settings=CONTEXT)
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
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
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
                        strategies=_split(strategy_list) if strategy_list else None,
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
    chunk_size = engine.DEFAULT_CHUNK if chunk_size is None else chunk_size
    engine.check_run_options(chunk_size, None)
    sw.check_sweep_folder(out_dir, plan)
    total = len(plan.points) * spec.games
    click.echo(f"Sweep of {len(plan.points)} points x {spec.games:,} games into {out_dir}.")
    say_if_compiling(plan.prepared[0].game)
    with Progress(total, spec.game) as bar:
        record = sw.run_sweep(plan, out_dir, threads=threads, chunk_size=chunk_size,
                              progress=bar.update, analysis=_analysis(spec))
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
        _sweep_report(out_dir, targets=targets_path, set_targets=set_targets)


@main.command(context_settings=CONTEXT)
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


@main.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--players", type=int, default=4, show_default=True, help="Seats per game.")
@click.option("--strategies", "strategy_list", required=True,
              help="Comma-separated strategies to rank (at least 2; NAME@params.toml works).")
@click.option("--games", "n_games", type=int, default=10_000, show_default=True,
              help="Games per lineup (rounded up to whole deals).")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Folder for tournament.json/.html/.md, ratings.csv and win_matrix.csv.")
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--chunk-size", "chunk_deals", type=int, default=None,
              help="Deals per chunk (results never depend on it).")
@click.option("--force", is_flag=True, help="Replace a different tournament already in --out.")
@set_option
@config_option
def tournament(game: str, players: int, strategy_list: str, n_games: int, seed: int,
               out_dir: Path, threads: int | None, chunk_deals: int | None, force: bool,
               overrides: tuple[str, ...], config_path: str | None) -> None:
    """Rank strategies: every lineup of them plays the same deals, each strategy in every
    seat; prints Plackett-Luce ratings and the win matrix, and writes them with intervals.

    Progress is saved in OUT as each lineup finishes a chunk of deals: an interrupted
    tournament, started again with the same command, plays only what is missing.

    Example: simkit tournament cauldron-master --players 3 --strategies random,greedy,planner
    --games 20000 --seed 1 --out runs/tour
    """
    from reports.tournament import standings_text, write_report
    from simkit import engine
    from simkit import tournaments as tn

    spec = tn.TournamentSpec(game, players, tuple(_split(strategy_list)), n_games, seed,
                             overrides, config_path)
    plan = tn.plan(spec)
    engine.set_threads(threads)
    chunk_deals = tn.DEFAULT_CHUNK_DEALS if chunk_deals is None else chunk_deals
    bars: list[Progress] = []

    def started(state: str, done: int) -> Any:
        click.echo(f"{len(plan.lineups)} lineups x {plan.games_per_lineup:,} games "
                   f"({plan.total_games:,} games) into {out_dir}.")
        if state == "resume":
            click.echo(f"Resuming: {done:,} of {plan.total_games:,} games were played "
                       "before.")
        say_if_compiling(plan.game)
        bars.append(Progress(plan.total_games, f"{game} tournament", done=done))
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


@main.command(context_settings=CONTEXT)
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
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
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

    spec = tu.TuneSpec(game, strategy, tuple(_split(against)), budget, seed, population,
                       games_per_candidate, eval_games, overrides, config_path)
    setup = tu.prepare(spec)
    engine.set_threads(threads)
    tu.check_out(out_file, force)
    click.echo(f"Tuning {setup.name} ({len(setup.strategy.params)} parameters) against "
               f"{', '.join(spec.against)}: {setup.generations} generations x "
               f"{setup.population} candidates x {setup.games_per_candidate:,} games, then "
               f"3 x {setup.eval_games:,} fresh games.")
    total = setup.search_games + 3 * setup.eval_games
    say_if_compiling(setup.game)
    with Progress(total, f"{game} tune") as bar:
        outcome = tu.search(setup, progress=lambda n, what: bar.update(n, what))
    tu.write(outcome, out_file)
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


@main.command(context_settings=CONTEXT)
@click.option("--games", "n_games", type=int, default=400_000, show_default=True,
              help="Games per kernel measurement.")
@click.option("--repeats", type=int, default=3, show_default=True,
              help="Repeats per measurement (the median is shown).")
@click.option("--run-games", type=int, default=1_000_000, show_default=True,
              help="Games in the end-to-end `simkit run` measurement (0 to skip).")
@click.option("--json", "json_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Also write the table as JSON (compare two with any diff).")
def bench(n_games: int, repeats: int, run_games: int, json_path: Path | None) -> None:
    """Measure speed: kernel games/s on 1 and 2 threads, the reference, start-up, a full run;
    marks every target met or not.

    Example: simkit bench --games 200000 --json bench.json
    """
    from simkit.bench import run_bench

    for flag, value, least in (("--games", n_games, 1), ("--repeats", repeats, 1),
                               ("--run-games", run_games, 0)):
        if value < least:
            raise SimkitError(f"{flag} must be at least {least}, not {value}")
    run_bench(n_games=n_games, repeats=repeats, run_games=run_games, echo=click.echo,
              json_path=json_path)


if __name__ == "__main__":
    main()
