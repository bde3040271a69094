"""Commands that play games of one lineup: `play`, `run`, `report`, `value`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import click

from simkit import folders
from simkit.errors import SimkitError
from simkit.progress import Progress, say_if_compiling, say_if_compiling_totals
from simkit.stopping import StopRule
from simkit.words import count, shown

from .common import (
    CONTEXT,
    analysis,
    config_option,
    lineup_options,
    param_option,
    set_option,
    split,
    stop_options,
    stronger_option,
    summary_option,
    summary_text,
)


@click.command(context_settings=CONTEXT)
@click.argument("game")
@lineup_options
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
    spec = RunSpec(game, players, tuple(split(strategy_list)), game_index + 1, seed,
                   overrides, params, config_path)
    p = prepare(spec)
    say_if_compiling(p.game, [p.lineup])
    click.echo(p.game.play_log(p.compiled, p.lineup, seed, game_index))


@click.command(context_settings=CONTEXT)
@click.argument("game")
@lineup_options
@click.option("--games", "n_games", type=int, default=100_000, show_default=True,
              help="Number of games.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Run folder for games.parquet, manifest.json and summary.csv.")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
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
    if with_report:  # a report folder it would refuse: before any game is played
        from reports.files import check_tables_folder

        check_tables_folder(out_dir / "report_tables")
    rule = (StopRule(precision, targets_path, set_targets) if until_sure else None)
    spec = engine.RunSpec(game, players, tuple(split(strategy_list)), n_games, seed,
                          overrides, params, config_path, rule, summary_only)
    prepared = engine.prepare(spec)  # every input error surfaces before any work starts
    compiles: list[bool] = []

    with contextlib.ExitStack() as bar:  # the bar ends as the run does (finished or not)
        def started(state: str, before: int) -> Callable[[int], None]:
            """Told by the engine once the folder is claimed, before any game."""
            compiles.append(say_if_compiling(prepared.game, [prepared.lineup]))
            if summary_only:
                compiles.append(say_if_compiling_totals())
            if before:
                click.echo(f"Resuming the interrupted run in {out_dir}: {before:,} of "
                           f"{n_games:,} games were played before.", err=True)
            return bar.enter_context(Progress(n_games, game, done=before)).update

        manifest = engine.run(spec, out_dir, threads=threads, chunk_size=chunk_size,
                              force=force, prepared=prepared, scheduler=scheduler,
                              workers=workers, analysis=analysis(spec), started=started)
    what = (f"the totals of {manifest['games']:,} games" if manifest.get("summary_only")
            else f"{manifest['rows']:,} rows")
    where = out_dir / engine.results_file(prepared)
    if manifest.get("skipped"):
        click.echo(f"{out_dir} already holds this exact run; nothing to do.")
    elif manifest.get("resumed"):
        click.echo(f"Finished the interrupted run: {what} in {where}.")
    else:
        rate = manifest["games"] / max(manifest["elapsed_seconds"], 1e-9)
        first = ", the first compile included" if any(compiles) else ""
        click.echo(f"Wrote {what} to {where} "
                   f"in {manifest['elapsed_seconds']:.1f} s ({rate:,.0f} games/s{first}).")
    click.echo(summary_text(engine.summary_frame(out_dir)))
    if manifest["config"]["placeholders"]:
        from reports.hooks import used_placeholders

        used = len(used_placeholders(manifest))  # counted as the report counts them
        own = getattr(prepared.game, "folder", None) is not None  # a designer's own game
        click.echo(f"Note: this run used {count(used, 'placeholder value')} (see `simkit "
                   f"show {game}`); " + ("values its config marks as placeholders." if own
                                         else "not the published card data."))
    if prepared.lineup.rotate and prepared.lineup.period < players:
        click.echo(f"Note: this lineup repeats every {prepared.lineup.period} seats, so a "
                   f"deal's {players} rotations hold only {prepared.lineup.period} different "
                   "seatings: the others replay them game for game (the intervals, taken "
                   "over deals, stay honest). A lineup that does not repeat gets more out "
                   "of the same games.")
    if manifest.get("stopping"):
        stop = manifest["stopping"]
        click.echo(f"--until-sure: stopped after {manifest['games']:,} of at most "
                   f"{n_games:,} games, {stop['looks']} looks: {stop['reason']}.")
    if with_report:
        from reports.files import report_is_current

        if (manifest.get("skipped") and not (targets_path or set_targets or stronger)
                and report_is_current(out_dir, str(manifest["game"]))):
            said_current(out_dir, manifest)
        else:
            report_run(out_dir, targets=targets_path, set_targets=set_targets,
                       stronger=stronger)


def said_current(run_dir: Path, manifest: dict) -> None:
    """A rerun with nothing to do: the report stands; its verdicts, as written."""
    import polars as pl

    from reports.answer import balance_answer, whose_play
    from reports.render import verdict_lines

    card = pl.read_csv(run_dir / "report_tables" / "scorecard.csv", infer_schema_length=None)
    if card.height:
        click.echo("Balance scorecard:")
        for line in verdict_lines(card):
            click.echo(f"  {line}")
        if "next" in card.columns:
            click.echo(shown(balance_answer(card.with_columns(pl.col("next").fill_null("")),
                                            whose_play(manifest))))
    click.echo(f"The balance report {run_dir / 'report.html'} is up to date (`simkit report "
               f"{run_dir}` writes it again).")


def report_run(run_dir: Path, out_dir: Path | None = None, targets: Path | None = None,
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
    if written.answer:
        click.echo(shown(written.answer))
    click.echo(f"Wrote the balance report {written.html} ({written.summary.name}, "
               f"{len(written.tables)} CSV tables in {written.tables[0].parent.name}/) "
               f"in {time.perf_counter() - started:.1f} s.")


@click.command(context_settings=CONTEXT)
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
        from reports.value_page import write_value_report

        html, _ = write_value_report(run_dir)
        click.echo(f"Wrote the value report {html}.")
        return
    if (run_dir / "ladder.json").is_file():
        from .ladder import report_ladder

        if stronger is not None:
            raise SimkitError(f"--stronger: {run_dir} is a skill ladder; give a single run "
                              "folder")
        report_ladder(run_dir, out_dir, targets, set_targets)
        return
    if run_dir.is_dir() and read_sweep(run_dir) is not None:
        if stronger is not None:
            raise SimkitError(f"--stronger: {run_dir} is a sweep; give a single run folder")
        report_sweep(run_dir, out_dir, targets, set_targets)
        return
    # Locked while it reads the run and writes its report: a run started meanwhile into
    # the folder (--force) would leave a report of another run beside its results.
    with folders.locked(run_dir) if (run_dir / "manifest.json").is_file() \
            else contextlib.nullcontext():
        report_run(run_dir, out_dir, targets, set_targets, stronger)


@click.command(context_settings=CONTEXT)
@click.argument("game", metavar="GAME|RUN_FOLDER")
@lineup_options
@click.option("--games", "n_games", type=int, default=20_000, show_default=True,
              help="Games as configured (at most, with --precision); each is also played "
                   "once per component valued.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Folder for value.json, value.html, value.md and the CSV tables "
                   "(required with a game; with a run folder, RUN_FOLDER/value).")
@click.option("--rung", default=None, metavar="NAME",
              help="Value at this rung of the game's skill ladder (docs/ladder.md): its "
                   "strategy in every seat, in place of --strategies.")
@click.option("--ladder", "over_ladder", is_flag=True,
              help="Value at every rung of the game's skill ladder, one value run per rung "
                   "on the same deals (OUT/rung_<i>_<rung>/), and name the components "
                   "whose verdict changes with skill (OUT/value_ladder.md).")
@click.option("--kind", "kinds", multiple=True,
              help="Value only this component kind, e.g. --kind 'Recipe card' (repeatable).")
@click.option("--component", "components", multiple=True, metavar="ID",
              help="Value only this component (its id in the config; repeatable).")
@click.option("--precision", type=float, default=None,
              help="Play in rounds (10,000 games, doubling, up to --games) until every "
                   "value interval is within this share, e.g. 0.01 = ±1 point.")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
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
          out_dir: Path | None, rung: str | None, over_ladder: bool, kinds: tuple[str, ...],
          components: tuple[str, ...], precision: float | None, threads: int | None,
          chunk_size: int, force: bool,
          workers: int | None, scheduler: str | None, overrides: tuple[str, ...],
          params: tuple[str, ...], config_path: str | None) -> None:
    """What each component is worth: play the same deals with it neutralised.

    Every deal is played as configured and once per component with that one component
    neutralised (same shuffles and draws); a component's value is the win share its
    players lose. Verdicts control the false discovery rate within each kind; an A/A
    control row checks the method. Writes OUT/value.html. Resumable after an interrupt.
    Given a run folder in place of a game, it plays with that run's game, config, lineup
    and seed into RUN_FOLDER/value, and the run's balance report judges its components
    by what they make you win.

    \b
    Example:
      simkit value runs/cm --games 20000
      simkit value carnuta --players 4 --strategies greedy --kind Card \\
          --precision 0.01 --games 400000 --out runs/carnuta-value
      simkit value examples/pig --players 2 --ladder --games 4000 --out runs/pig-value
    """
    from reports.value import VALUE_DIR
    from simkit.rerun import refuse_with_run, run_folder, settings_of

    run_dir = run_folder(game)
    if run_dir is not None:
        ctx = click.get_current_context()
        given = [f"--{name.replace('_list', '').replace('_', '-')}"
                 for name in ("players", "strategy_list", "seed", "overrides", "params",
                              "config_path", "rung")
                 if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
        refuse_with_run([g.replace("--overrides", "--set").replace("--params", "--param")
                         .replace("--config-path", "--config") for g in given], run_dir)
        from simkit.results import read_json

        manifest = read_json(run_dir / "manifest.json")
        if manifest is None:
            raise SimkitError(f"{run_dir}/manifest.json: not readable; run the run's command "
                              "again")
        run = settings_of(manifest)
        game, players, seed = run.game, run.players, run.seed
        strategy_list = ",".join(run.strategies)
        overrides, params, config_path = run.overrides, run.params, run.config_path
        out_dir = out_dir if out_dir is not None else run_dir / VALUE_DIR
    elif out_dir is None:
        raise SimkitError("--out is required with a game (with a run folder in place of the "
                          "game, the value run goes into RUN_FOLDER/value)")

    if over_ladder:
        if run_dir is not None or rung is not None or ctx_given("strategy_list"):
            raise SimkitError("--ladder values at every rung of the game's ladder: give a "
                              "game, without a run folder, --rung or --strategies")
        from reports.value_ladder import write_value_ladder
        from simkit.ladders import check_ladder, load_ladder, slug

        ladder = load_ladder(game)
        check_ladder(ladder, players)
        rung_folders = []
        for i, r in enumerate(ladder.rungs):
            click.echo(f"Rung {r.name} ({r.strategy} in every seat):", err=True)
            folder = out_dir / f"rung_{i}_{slug(r.name)}"
            _value_once(game, players, r.strategy, min(n_games, r.games or n_games), seed,
                        overrides, params, config_path, kinds, components, precision,
                        folder, threads, chunk_size, force, workers, scheduler)
            rung_folders.append((r.name, folder))
        page, changed = write_value_ladder(out_dir, rung_folders)
        click.echo(changed)
        click.echo(f"Wrote the value ladder {page}.")
        return
    if rung is not None:
        from simkit.ladders import rung_named

        strategy_list = rung_named(game, rung).strategy
    _value_once(game, players, strategy_list, n_games, seed, overrides, params, config_path,
                kinds, components, precision, out_dir, threads, chunk_size, force, workers,
                scheduler)
    if run_dir is not None and out_dir == run_dir / VALUE_DIR:
        if (run_dir / "report.html").is_file():  # the run's report judges by it now
            with folders.locked(run_dir):
                report_run(run_dir)
        else:
            click.echo(f"`simkit report {run_dir}` adds it to the run's balance report.")


def ctx_given(name: str) -> bool:
    """Whether the command line gave option `name` (not its default)."""
    ctx = click.get_current_context()
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


def _value_once(game: str, players: int, strategy_list: str, n_games: int, seed: int,
                overrides: tuple[str, ...], params: tuple[str, ...], config_path: str | None,
                kinds: tuple[str, ...], components: tuple[str, ...], precision: float | None,
                out_dir: Path, threads: int | None, chunk_size: int, force: bool,
                workers: int | None, scheduler: str | None) -> None:
    """One value run into `out_dir` with its report and verdict lines."""
    from reports.value import verdict_lines
    from reports.value_page import write_value_report
    from simkit import engine
    from simkit import valuation as value_lib

    spec = value_lib.ValueSpec(game, players, tuple(split(strategy_list)), n_games, seed,
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
    say_if_compiling(p.base.game, [p.base.lineup])
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
        click.echo(line)  # plain text already (reports.value.verdict_lines)
    click.echo(f"Wrote the value report {html}.")


def verdict_table(csv: Path) -> str:
    """A sweep's verdicts by point (report_tables/sweep_verdicts.csv), in the sweep's order
    of the varied values, as text."""
    import polars as pl

    frame = pl.read_csv(csv)
    metrics = [c for c in frame.columns if c in ("seat_advantage", "component_effect",
                                                  "tie_rate", "game_length")]
    rows = [["point", *(m.replace("_", " ") for m in metrics), "passed"]]
    rows += [[shown(r["values"]), *(str(r[m]) for m in metrics),
              f"{r['passed']} of {len(metrics)}"]
             for r in frame.sort("point").iter_rows(named=True)]  # by the swept value
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
                     for r in rows)


def report_sweep(sweep_dir: Path, out_dir: Path | None = None, targets: Path | None = None,
                  set_targets: tuple[str, ...] = ()) -> None:
    import time

    from reports.sweep import make_sweep_report

    started = time.perf_counter()
    written = make_sweep_report(sweep_dir, out_dir, targets, set_targets)
    click.echo(f"Wrote the sweep report {written.html} ({written.summary.name}, "
               f"{len(written.tables)} CSV tables) in {time.perf_counter() - started:.1f} s.")
    verdicts = next((t for t in written.tables if t.name == "sweep_verdicts.csv"), None)
    if verdicts is not None:  # the verdicts in the terminal too, as `run --report` prints
        click.echo(verdict_table(verdicts))
