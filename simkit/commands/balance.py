"""`simkit balance`: the command over simkit/balancing.py (the search) and the reports
(targets, the verification runs' scorecards, the balance report)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from simkit.words import shown

from .common import CONTEXT, config_option, param_option, set_option, split


@click.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--tune", "tune", multiple=True, required=True, metavar="KEY=LO..HI|A|B",
              help="A config key to search (repeatable): a range of numbers LO..HI, or "
                   "values A|B|C; any key --set takes, list elements too "
                   "(compensation.points.1=0..10).")
@click.option("--players", type=int, default=4, show_default=True, help="Number of players.")
@click.option("--strategies", "strategy_list", default=None,
              help="Comma-separated strategy per seat (seat 0 first), or one for all, in "
                   "place of a rung (default: --rung strongest).")
@click.option("--rung", default=None, metavar="NAME|strongest",
              help="Judge candidates at this rung of the game's skill ladder (its strategy "
                   "in every seat; docs/ladder.md). 'strongest' (the default without "
                   "--strategies): the strongest rung whose budget doubled gains under "
                   "--margin, checked from the top down.")
@click.option("--ladder-run", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="A finished `simkit ladder` folder of this game: --rung strongest reuses "
                   "its check of the top rung.")
@click.option("--check-games", type=int, default=4_000, show_default=True,
              help="Games of each rung's convergence check for --rung strongest (capped by "
                   "a rung's own `games`).")
@click.option("--margin", type=float, default=2.0, show_default=True,
              help="--rung strongest: a rung has converged when doubling its budget gains "
                   "less than this many points of win share (the whole 95% interval).")
@click.option("--budget", type=int, required=True,
              help="Games the search may play (the verification's are extra).")
@click.option("--games-per-candidate", type=int, default=None,
              help="Games per candidate on the first rung (default: budget / 100).")
@click.option("--verify-games", type=int, default=20_000, show_default=True,
              help="Fresh games played by the winner and by the original config.")
@click.option("--rung-games", type=int, default=2_000, show_default=True,
              help="Fresh games the winner and the original play at every rung of the "
                   "game's skill ladder (capped by a rung's own `games`); 0: not judged "
                   "at every rung.")
@click.option("--targets", "targets_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Balance targets (default: configs/targets.toml).")
@click.option("--set-target", "set_targets", multiple=True, metavar="METRIC.SETTING=VALUE",
              help="Override a target (repeatable), e.g. seat_advantage.max_points=2.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Folder for the result (resumable).")
@click.option("--threads", type=int, default=None, help="Threads to play on (default: all cores).")
@click.option("--force", is_flag=True, help="Replace a different balance search in --out.")
@set_option
@param_option
@config_option
def balance(game: str, tune: tuple[str, ...], players: int, strategy_list: str | None,
            rung: str | None, ladder_run: Path | None, check_games: int, margin: float,
            budget: int,
            games_per_candidate: int | None, verify_games: int, rung_games: int,
            targets_path: Path | None,
            set_targets: tuple[str, ...], seed: int, out_dir: Path, threads: int | None,
            force: bool, overrides: tuple[str, ...], params: tuple[str, ...],
            config_path: str | None) -> None:
    """Search config keys for a change where every balance target passes, smallest
    change first; then play the winner and the original on fresh deals and judge both,
    in the searched lineup and at every rung of the game's skill ladder (docs/ladder.md):
    a change that passes for one skill level and fails for another says so.

    \b
    Without --strategies the candidates are judged at the strongest converged rung
    (--rung strongest: docs/balance.md says why and what it costs).

    \b
    Example:
      simkit balance examples/pig --players 2 --strategies greedy \\
          --tune compensation.start.1=0..15 --budget 100000 --seed 1 --out runs/balance
      simkit balance examples/pig --players 2 --rung rollout --rung-games 1000 \\
          --tune compensation.start.1=0..15 --budget 100000 --seed 1 --out runs/balance-rollout
    """
    from reports.targets import load_targets
    from simkit import balancing as bal
    from simkit import engine
    from simkit.balance_study import judged_with, run_balance

    targets = load_targets(targets_path, game, set_targets)
    strategies, strongest = judged_with(
        game, None if strategy_list is None else tuple(split(strategy_list)), rung, margin,
        check_games, ladder_run, click.echo)
    spec = bal.BalanceSpec(game, players, strategies, tune, budget, seed,
                           targets.settings, overrides, params, config_path,
                           games_per_candidate, verify_games, rung_games, strongest)
    engine.set_threads(threads)
    command = shlex.join(["simkit", "balance", *sys.argv[2:]])
    result, verified, files = run_balance(spec, targets, out_dir, force, command, click.echo,
                                          ladder_run=ladder_run)
    click.echo(result["verdict"])
    for row in verified["after"].iter_rows(named=True):
        click.echo(shown(f"  {row['verdict']:13} {row['title']}: {row['estimate']}"))
    if result.get("rungs"):
        for r in result["rungs"]:
            verdicts = ", ".join(f"{m} {v}" for m, v in r["after"].items()
                                 if m in bal.SEARCHED)
            click.echo(f"  {r['rung'] + ' players':22} {verdicts}")
        click.echo(result["across_sentence"])
    elif result["changes"]:  # judged at one skill level: the ladder judges it at all of them
        from simkit.ladders import verify_command

        click.echo("Judged with " + verify_command(spec, result["changes"], out_dir))
    click.echo(f"Wrote {', '.join(str(f) for f in files)}.")
