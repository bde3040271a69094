"""The `simkit` command line: parses, calls the library, prints. Errors are one line."""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from simkit.commands import balance, ladder, runs, studies, studio
from simkit.commands.common import CONTEXT, config_option, set_option
from simkit.errors import SimkitError

# The interpreter's shutdown collects garbage over every object still alive, and numba's
# compiler leaves hundreds of thousands: that took 0.3-0.4 s at the end of every command.
# Frozen objects are skipped. Exit handlers run before that collection, and simkit closes
# its files itself, so nothing waits on it.
atexit.register(gc.freeze)


class SimkitGroup(click.Group):
    """Turns library errors into one clear line and a non-zero exit, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        from simkit import slices
        from simkit.memory import hand_memory_back

        hand_memory_back()

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


@main.command(context_settings=CONTEXT)
def games() -> None:
    """List the games simkit models: the built-in ones, then the plug-in games installed
    packages register (entry points `simkit.games`).  Example: simkit games"""
    from simkit.errors import SimkitError
    from simkit.games import game_names, get_game

    for name in game_names():
        try:
            game = get_game(name)
            compiled = game.compile(game.load_config())
        except SimkitError as exc:  # a broken plug-in: say so, list the rest
            click.echo(f"{name:18} (cannot be loaded: {exc})")
            continue
        players = ", ".join(map(str, game.players(compiled)))
        origin = getattr(game, "origin", "")
        click.echo(f"{name:18} {game.title} ({players} players)"
                   + (f"  [{origin}]" if origin else ""))
    click.echo("A game in a folder: give its path as the game, e.g. "
               "`simkit run examples/pig ...` (docs/new-game.md).")


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


@main.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False),
              required=True, help="Folder for <kind>.csv and cards.xlsx.")
@click.option("--value", "value_dir", type=click.Path(path_type=Path, file_okay=False),
              default=None, metavar="FOLDER",
              help="A `simkit value` folder (or a run folder holding one in RUN/value): add "
                   "each component's causal worth, interval and verdict.")
@set_option
@config_option
def cards(game: str, out_dir: Path, value_dir: Path | None, overrides: tuple[str, ...],
          config_path: str | None) -> None:
    """Write each component kind's table as CSV and as one .xlsx workbook.

    A row per component, a column per field (placeholders named in the `placeholder`
    column and shaded in the workbook). Edit it and play it back with --config FILE
    (cards.xlsx or a kind's .csv): each changed cell becomes a --set.

    \b
    Example:
      simkit cards cauldron-master --out cards
      simkit cards cauldron-master --value runs/cm --out cards
      simkit run cauldron-master --config cards/cards.xlsx --out runs/cm-edited
    """
    from simkit import folders
    from simkit.cards import kinds, write_cards
    from simkit.games import get_game

    g = get_game(game)
    config = g.load_config(overrides, Path(config_path) if config_path else None)
    g.compile(config)  # validate
    if not kinds(config.data):
        raise SimkitError(f"{g.title}'s config has no component kinds (lists of tables with "
                          "ids) to write")
    value = None
    if value_dir is not None:
        from reports.value import VALUE_DIR, read_value

        folder = value_dir / VALUE_DIR if (value_dir / VALUE_DIR / "value.json").is_file() \
            else value_dir
        value = read_value(folder)
        if value.get("game") != g.name:
            raise SimkitError(f"--value {value_dir}: a value run of {value.get('game')}, not "
                              f"{g.name}")
    folders.check_writable(out_dir, folders.CARDS)
    for path in write_cards(config.data, out_dir, value):
        click.echo(f"Wrote {path}")


@main.command(context_settings=CONTEXT)
@click.option("--games", "n_games", type=int, default=400_000, show_default=True,
              help="Games per kernel measurement.")
@click.option("--repeats", type=int, default=3, show_default=True,
              help="Repeats per measurement (the median is shown).")
@click.option("--run-games", type=int, default=1_000_000, show_default=True,
              help="Games in the end-to-end `simkit run` measurement (0 to skip).")
@click.option("--json", "json_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Also write the table as JSON (for a later --compare).")
@click.option("--compare", "before_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, metavar="FILE",
              help="Show each row beside its value in FILE (an earlier --json) and the change.")
@click.option("--game", default=None, metavar="GAME",
              help="Only this game's kernel rows: CPU per game and per decision, 1 and 2 "
                   "threads, the reference.")
def bench(n_games: int, repeats: int, run_games: int, json_path: Path | None,
          before_path: Path | None, game: str | None) -> None:
    """Measure speed: CPU per game and per decision and games/s of each kernel on 1 and 2
    threads, the reference, start-up, and of each game a full run writing every row and a
    --summary-only one against the kernel's pace; marks every target met or not.

    \b
    Example: simkit bench --games 200000 --json bench.json
             simkit bench --game carnuta --repeats 5 --json before.json
             simkit bench --game carnuta --repeats 5 --compare before.json
    """
    from simkit.bench import run_bench
    from simkit.games import get_game

    for flag, value, least in (("--games", n_games, 1), ("--repeats", repeats, 1),
                               ("--run-games", run_games, 0)):
        if value < least:
            raise SimkitError(f"{flag} must be at least {least}, not {value}")
    if game is not None:
        game = get_game(game).name  # an unknown game: one line naming the known ones
    before = None
    if before_path is not None:
        try:
            before = json.loads(before_path.read_text(encoding="utf-8"))
            if not all("measure" in r and "value" in r for r in before["rows"]):
                raise KeyError("measure")
        except OSError as exc:
            raise SimkitError(f"--compare {before_path}: cannot read it ({exc.strerror})") \
                from None
        except (ValueError, KeyError, TypeError):
            raise SimkitError(f"--compare {before_path}: not a table written by "
                              "`simkit bench --json`") from None
    run_bench(n_games=n_games, repeats=repeats, run_games=run_games, echo=click.echo,
              json_path=json_path, game=game, before=before)


@main.command("new-game", context_settings=CONTEXT)
@click.argument("name")
@click.option("--dir", "parent", type=click.Path(file_okay=False, path_type=Path),
              default=Path("."), show_default=True, help="Folder to create the game in.")
def new_game(name: str, parent: Path) -> None:
    """Write a working game folder NAME to start your own game from: a tiny complete
    game (Pig) with its config, players, report hooks, reference and tests. The guide:
    docs/new-game.md.

    Then `simkit check ./mygame`, and `pytest mygame` runs its tests.

    \b
    Example:
      simkit new-game mygame
    """
    from simkit.gamekit.skeleton import new_game as write

    folder = write(name, parent)
    shown = f"./{folder}" if not folder.is_absolute() and not str(folder).startswith(".") \
        else str(folder)
    click.echo(f"Wrote {folder}/ (the Pig skeleton as '{name}'). Next:\n"
               f"  simkit check {shown}\n"
               f"  simkit run {shown} --players 2 --strategies greedy,random --games 20000 "
               f"--out runs/{name} --report\n"
               f"  pytest {folder}\n"
               "Then replace its rules with yours: docs/new-game.md.")


@main.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--games", "n_games", type=int, default=600, show_default=True,
              help="Games per player count.")
@click.option("--here", is_flag=True, hidden=True,
              help="Check in this process (simkit check runs itself so in a child).")
def check(game: str, n_games: int, here: bool) -> None:
    """Check that GAME keeps simkit's game contract: it compiles, every game ends, every
    decision has a legal option, results are deterministic across threads and chunks,
    games replay, every strategy plays, and its conservation check holds in traced games.

    \b
    Example:
      simkit check examples/pig
    """
    if here:
        _check_here(game, n_games)
    else:  # a game that crashes the process is still named (simkit.gamekit.crash)
        _check_in_child(game, n_games)


def _check_in_child(game: str, n_games: int) -> None:
    from simkit.gamekit import crash
    from simkit.games import get_game

    code = crash.check_in_child(game, n_games, click.echo, lambda ln: click.echo(ln, err=True))
    if code >= 0:
        if code:
            raise SystemExit(code)
        return
    how = crash.crash_name(code)
    click.echo(f"The game crashed the check ({how}): nearly always an index past the end of "
               "an array. Replaying it in plain Python to find the line...", err=True)
    where = crash.find_in_plain_python(game, getattr(get_game(game), "folder", None))
    raise SimkitError(
        f"{where} (the compiled game crashed with {how}; found by replaying in plain Python)"
        if where else
        f"{game}: the compiled game crashed with {how}, and the games replayed in plain "
        "Python ran clean: an index past the end of an array in a game not replayed "
        "(docs/new-game.md, section 7)")


def _check_here(game: str, n_games: int) -> None:
    from reports.hooks import hooks_for
    from simkit.engine import build_lineup
    from simkit.games import get_game
    from simkit.progress import say_if_compiling
    from simkit.testing import check_game

    click.echo(f"Checking {game} ({n_games} games per player count)...", err=True)
    hooks_for(game)  # its report.py, if any, imports and names a GameHooks subclass
    found = get_game(game)
    # check plays every strategy, so both variants of the kernel (with lookahead players
    # and without) may compile first: say so rather than sit silent.
    players = max(found.players(found.compile(found.load_config())))
    say_if_compiling(found, [build_lineup(found, [name], players)
                             for name in found.strategies()])
    try:
        check_game(game, n_games=n_games)
    except AssertionError as exc:
        raise SimkitError(str(exc).strip().splitlines()[0]) from None
    click.echo(f"{game}: keeps the game contract.")


for command in (runs.play, runs.run, runs.report, runs.value, studies.sweep, studies.compare,
                studies.tournament, studies.tune, balance.balance, studio.studio,
                ladder.ladder):
    main.add_command(command)

if __name__ == "__main__":
    main()
