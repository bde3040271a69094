"""The `simkit` command line: parses, calls the library, prints. Errors are one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from simkit.errors import SimkitError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class SimkitGroup(click.Group):
    """Turns library errors into one clear line and a non-zero exit, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SimkitError as exc:
            raise click.ClickException(str(exc)) from None
        except KeyboardInterrupt:
            click.echo("\nInterrupted. Every finished chunk of games is saved: run the same "
                       "command again to resume.", err=True)
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
    """List a game's strategies and their parameters.  Example: simkit strategies cauldron-master"""
    from simkit.games import get_game

    for spec in get_game(game).strategies().values():
        click.echo(f"{spec.name:10} {spec.summary}")
        for p in spec.params:
            click.echo(f"    {p.name} = {p.default:g}  [{p.lo:g}, {p.hi:g}]  {p.doc}")


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

    spec = RunSpec(game, players, tuple(_split(strategy_list)), max(game_index + 1, 1), seed,
                   overrides, params, config_path)
    p = prepare(spec)
    if game_index < 0:
        raise SimkitError(f"--game-index must be 0 or more, not {game_index}")
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
@click.option("--report", "with_report", is_flag=True,
              help="Write the balance report (OUT/report.html) right after the run.")
@set_option
@param_option
@config_option
def run(game: str, strategy_list: str, players: int, seed: int, n_games: int, out_dir: Path,
        threads: int | None, chunk_size: int | None, force: bool, workers: int | None,
        scheduler: str | None, with_report: bool,
        overrides: tuple[str, ...], params: tuple[str, ...], config_path: str | None) -> None:
    """Simulate many games and write one row per game and seat to OUT/games.parquet.

    When the strategies differ they rotate through the seats over the same deals. Each
    chunk of games is saved as it finishes: an interrupted run, started again with the
    same command, plays only the missing games.
    Example: simkit run cauldron-master --players 4 --strategies planner,greedy,random,greedy
    --games 1000000 --seed 1 --out runs/cm
    """
    from simkit import engine

    spec = engine.RunSpec(game, players, tuple(_split(strategy_list)), n_games, seed,
                          overrides, params, config_path)
    prepared = engine.prepare(spec)  # every input error surfaces before any work starts
    engine.set_threads(threads)
    chunk_size = engine.DEFAULT_CHUNK if chunk_size is None else chunk_size
    engine.check_run_options(chunk_size, workers)
    engine.check_output(out_dir, prepared, force)
    label = f"{game}: {n_games:,} games"
    with click.progressbar(length=n_games, label=label, file=sys.stderr,
                           show_pos=True) as bar:
        manifest = engine.run(spec, out_dir, threads=threads, chunk_size=chunk_size, force=force,
                              progress=bar.update, prepared=prepared, scheduler=scheduler,
                              workers=workers)
    if manifest.get("skipped"):
        click.echo(f"{out_dir} already holds this exact run; nothing to do.")
    elif manifest.get("resumed"):
        click.echo(f"Finished the interrupted run: {manifest['rows']:,} rows in "
                   f"{out_dir / 'games.parquet'}.")
    else:
        rate = n_games / max(manifest["elapsed_seconds"], 1e-9)
        click.echo(f"Wrote {manifest['rows']:,} rows to {out_dir / 'games.parquet'} "
                   f"in {manifest['elapsed_seconds']:.1f} s ({rate:,.0f} games/s).")
    click.echo(engine.summary_frame(out_dir).to_pandas().to_string(index=False))
    if manifest["config"]["placeholders"]:
        click.echo(f"Note: this run used {len(manifest['config']['placeholders'])} placeholder "
                   "values (see `simkit show " + game + "`); not the published card data.")
    if with_report:
        _report(out_dir)


def _report(run_dir: Path, out_dir: Path | None = None, targets: Path | None = None,
            set_targets: tuple[str, ...] = ()) -> None:
    import time

    from reports import make_report

    started = time.perf_counter()
    written = make_report(run_dir, out_dir, targets, set_targets)
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
def report(run_dir: Path, out_dir: Path | None, targets: Path | None,
           set_targets: tuple[str, ...]) -> None:
    """Write a run's balance report: report.html, summary.md and CSV tables.

    The report opens with a scorecard of balance targets (PASS / FAIL / NOT YET SURE),
    then win shares, seat advantage, scores, game endings, component value and the
    game's own sections, every estimate with its 95% interval.
    Example: simkit report runs/demo
    """
    _report(run_dir, out_dir, targets, set_targets)


@main.command(context_settings=CONTEXT)
@click.option("--games", "n_games", type=int, default=400_000, show_default=True,
              help="Games per kernel measurement.")
@click.option("--repeats", type=int, default=3, show_default=True,
              help="Repeats per measurement (the median is shown).")
@click.option("--run-games", type=int, default=1_000_000, show_default=True,
              help="Games in the end-to-end `simkit run` measurement (0 to skip).")
def bench(n_games: int, repeats: int, run_games: int) -> None:
    """Measure speed: kernel games/s on 1 and 2 threads, the reference, start-up, a full run.

    Example: simkit bench --games 200000
    """
    from simkit.bench import run_bench

    run_bench(n_games=n_games, repeats=repeats, run_games=run_games, echo=click.echo)


if __name__ == "__main__":
    main()
