"""`simkit studio`: the live what-if page (simkit/studio/)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import click

from simkit.errors import SimkitError

from .common import CONTEXT, config_option, lineup_options, param_option, set_option, split

LOOPBACK = "127.0.0.1"


@click.command(context_settings=CONTEXT)
@click.argument("game")
@lineup_options
@set_option
@param_option
@config_option
@click.option("--budget", type=int, default=None,
              help="Games per edit at most, when the verdicts stay undecided "
                   "[default: 200,000].")
@click.option("--targets", "targets_path", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Balance targets (default: configs/targets.toml).")
@click.option("--set-target", "set_targets", multiple=True, metavar="METRIC.SETTING=VALUE",
              help="Override a target (repeatable).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Keep the session here (studio.json: the edits tried survive a restart), "
                   "and save patch.toml, config.toml and the full report here. Without it "
                   "nothing is written.")
@click.option("--port", type=int, default=8765, show_default=True, help="Port to listen on.")
@click.option("--host", default=LOOPBACK, show_default=True,
              help="Address to listen on; another than 127.0.0.1 needs --allow-remote and "
                   "is then protected by a token in the URL.")
@click.option("--allow-remote", is_flag=True,
              help="Allow a --host other than 127.0.0.1 (others on the network can reach it).")
@click.option("--no-browser", is_flag=True, help="Print the address; do not open a browser.")
def studio(game: str, strategy_list: str, players: int, seed: int,
           overrides: tuple[str, ...], params: tuple[str, ...], config_path: str | None,
           budget: int | None, targets_path: Path | None, set_targets: tuple[str, ...],
           out: Path | None, port: int, host: str, allow_remote: bool,
           no_browser: bool) -> None:
    """Change a number, watch the verdicts move: a local web page that plays each edit of
    GAME's config on the baseline's deals and shows the scorecard, seat advantage and win
    shares, baseline, changed and their paired difference, as games arrive.

    GAME is a built-in game, a game folder, or a run folder (its game, players, seed and
    config become the baseline).

    \b
    Example:
      simkit studio cauldron-master --players 4 --strategies greedy --out studio/cm
      simkit studio runs/demo --no-browser --port 8800
    """
    from reports.targets import load_targets
    from simkit.studio.serve import serve
    from simkit.studio.session import DEFAULT_BUDGET, Session, Setup, setup_of_run

    if host != LOOPBACK and not allow_remote:
        raise SimkitError(f"--host {host}: the studio listens on 127.0.0.1 only, unless you "
                          "also pass --allow-remote (it is then protected by a token)")
    _check_host(host)
    if budget is not None and budget < 1:
        raise SimkitError(f"--budget must be at least 1, not {budget}")
    budget = budget or DEFAULT_BUDGET
    if (Path(game) / "manifest.json").is_file():
        setup = setup_of_run(Path(game), budget)
    else:
        setup = Setup(game, players, tuple(split(strategy_list)), seed, overrides, params,
                      config_path, budget)
    setup = Setup(**(setup.as_dict() | {
        "targets": None if targets_path is None else str(targets_path),
        "set_targets": set_targets}))
    targets = load_targets(targets_path, setup.game, set_targets)
    session = Session.open(setup, out)
    serve(session, targets, host, port, open_browser=not no_browser)


def _check_host(host: str) -> None:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost":
            raise SimkitError(f"--host {host}: not an IP address") from None
