"""`simkit balance`: the command over simkit/balancing.py (the search) and the reports
(targets, the verification runs' scorecards, the balance report)."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from pathlib import Path

import click

from simkit.errors import SimkitError
from simkit.progress import Progress, say_if_compiling

from .common import CONTEXT, config_option, param_option, set_option, split


@click.command(context_settings=CONTEXT)
@click.argument("game")
@click.option("--tune", "tune", multiple=True, required=True, metavar="KEY=LO..HI|A|B",
              help="A config key to search (repeatable): a range of numbers LO..HI, or "
                   "values A|B|C; any key --set takes, list elements too "
                   "(compensation.points.1=0..10).")
@click.option("--players", type=int, default=4, show_default=True, help="Number of players.")
@click.option("--strategies", "strategy_list", default="greedy", show_default=True,
              help="Comma-separated strategy per seat (seat 0 first), or one for all.")
@click.option("--budget", type=int, required=True,
              help="Games the search may play (the verification's are extra).")
@click.option("--games-per-candidate", type=int, default=None,
              help="Games per candidate on the first rung (default: budget / 40).")
@click.option("--verify-games", type=int, default=20_000, show_default=True,
              help="Fresh games played by the winner and by the original config.")
@click.option("--targets", "targets_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Balance targets (default: configs/targets.toml).")
@click.option("--set-target", "set_targets", multiple=True, metavar="METRIC.SETTING=VALUE",
              help="Override a target (repeatable), e.g. seat_advantage.max_points=2.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Folder for the result (resumable).")
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--force", is_flag=True, help="Replace a different balance search in --out.")
@set_option
@param_option
@config_option
def balance(game: str, tune: tuple[str, ...], players: int, strategy_list: str, budget: int,
            games_per_candidate: int | None, verify_games: int, targets_path: Path | None,
            set_targets: tuple[str, ...], seed: int, out_dir: Path, threads: int | None,
            force: bool, overrides: tuple[str, ...], params: tuple[str, ...],
            config_path: str | None) -> None:
    """Search config keys for a change where every balance target passes, smallest
    change first; then play the winner and the original on fresh deals and judge both.

    \b
    Example:
      simkit balance examples/pig --players 2 --strategies greedy \\
          --tune compensation.start.1=0..15 --budget 100000 --seed 1 --out runs/balance
    """
    from reports.balance import write_balance
    from reports.build import scorecard_only
    from reports.load import open_run
    from reports.targets import load_targets
    from simkit import balancing as bal
    from simkit import engine
    from simkit.folders import BALANCE, RUN, check_writable, kind_of, locked, remove_owned

    targets = load_targets(targets_path, game, set_targets)
    spec = bal.BalanceSpec(game, players, tuple(split(strategy_list)), tune, budget, seed,
                           targets.settings, overrides, params, config_path,
                           games_per_candidate, verify_games)
    search = bal.prepare(spec)
    engine.set_threads(threads)
    state = check_writable(out_dir, BALANCE)
    command = shlex.join(["simkit", "balance", *sys.argv[2:]])
    with locked(out_dir):
        manifest_path = out_dir / "balance.json"
        if state == "ours":
            old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
            if old.get("spec") != json.loads(json.dumps(spec.as_dict())):
                if not force:
                    raise SimkitError(f"--out {out_dir} holds another balance search; "
                                      "use --force to replace it, or another folder")
                remove_owned(out_dir, BALANCE)
                for label in ("before", "after"):  # its verification runs
                    run_dir = out_dir / f"verify_{label}"
                    if kind_of(run_dir) is RUN:
                        remove_owned(run_dir, RUN)
                        with contextlib.suppress(OSError):
                            run_dir.rmdir()
        out_dir.mkdir(parents=True, exist_ok=True)
        log = out_dir / "balance_log.jsonl"
        search.cache = bal.read_log(log)
        search.log = log
        bal.write_manifest(manifest_path, spec, command, None)
        resumed = len(search.cache)
        click.echo(f"Balancing {search.game.title}, {players} players "
                   f"({', '.join(spec.strategies)}): {len(search.knobs)} key(s) "
                   f"({'; '.join(k.describe() for k in search.knobs)}); up to "
                   f"{search.first_rung} candidates x {search.per:,} games, the best "
                   f"raced on more, within {budget:,} games"
                   + (f" ({resumed} evaluations from the log)" if resumed else "") + ".")
        say_if_compiling(search.game)
        with Progress(budget, f"{game} balance") as bar:
            outcome = bal.search(search, progress=lambda n, what: bar.update(n, what))
        winner = outcome.ranked[0]
        click.echo(f"Verifying the winner and the original on {verify_games:,} fresh games "
                   "each...")
        verified = {}
        for label, values in (("before", search.start), ("after", winner.values)):
            run_spec = engine.RunSpec(game, players, spec.strategies, verify_games,
                                      bal.verify_seed(seed), search.overrides(values), params,
                                      config_path)
            folder = out_dir / f"verify_{label}"
            with Progress(verify_games, f"{game} {label}") as bar:
                engine.run(run_spec, folder, force=True, progress=bar.update)
            verified[label] = scorecard_only(open_run(folder), targets)
        result = bal.result(search, outcome, verified)
        bal.write_manifest(manifest_path, spec, command, result)
        files = write_balance(out_dir, search, outcome, verified, result, targets.source)
    click.echo(result["verdict"])
    for row in verified["after"].iter_rows(named=True):
        click.echo(f"  {row['verdict']:13} {row['title']}: {row['estimate']}")
    click.echo(f"Wrote {', '.join(str(f) for f in files)}.")
