"""From answer to action: the current state as patch.toml (its --set arguments) and as
a whole config, the `simkit run` command that plays it, its full report, and the play
log of one game behind a figure."""

from __future__ import annotations

import copy
from pathlib import Path

from simkit import tomlwrite
from simkit.balancing import change_text
from simkit.config import apply_override, flatten, parse_value
from simkit.errors import SimkitError
from simkit.paramfile import write_text_atomic
from simkit.prepare import RunSpec
from simkit.studio.session import Session, State

PATCH_FILE = "patch.toml"
CONFIG_FILE = "config.toml"
RUN_FOLDER = "current"  # the current state's run and report, inside --out


def command(session: Session, games: int, out: str = "runs/studio") -> str:
    """The `simkit run` command that plays the current state's games."""
    s = session.setup
    return RunSpec(s.game, s.players, s.strategies, games, s.seed,
                   s.overrides + session.current.items, s.params,
                   s.config_path).command(out) + " --report"


def needs_folder(session: Session) -> Path:
    if session.folder is None:
        raise SimkitError("nothing is written without a folder: start the studio with "
                          "--out DIR to save the change or write a report")
    return session.folder


def save(session: Session) -> list[Path]:
    """patch.toml and config.toml (the whole config with the change) into --out."""
    folder = needs_folder(session)
    state = session.current
    base = session.baseline.config
    before = dict(flatten(base.data))
    changed = {}
    for key, item in state.changes.items():
        value = parse_value(item.partition("=")[2].strip())
        changed[key] = value
        before.setdefault(key, None)
    patch = change_text(session.setup.game, changed, before, "simkit studio", CONFIG_FILE)
    data = copy.deepcopy(base.data)
    for item in state.items:
        apply_override(data, item)
    title = session.baseline.game.title
    own = ", ".join(session.setup.overrides)
    header = (f"{title}: the config as edited in `simkit studio` (from {base.source}"
              f"{', with ' + own if own else ''}).\nChanged: "
              f"{', '.join(state.items) or 'nothing'}.")
    write_text_atomic(folder / PATCH_FILE, patch)
    write_text_atomic(folder / CONFIG_FILE, tomlwrite.document(data, header))
    return [folder / PATCH_FILE, folder / CONFIG_FILE]


def write_report(session: Session, games: int) -> Path:
    """Play the current state's first `games` games as `simkit run` does (into
    --out/current, replacing the report of an earlier state) and write its report."""
    from reports import make_report
    from simkit import engine

    folder = needs_folder(session) / RUN_FOLDER
    spec = session.setup.spec(session.current.items, games)
    engine.run(spec, folder, force=True)
    return make_report(folder).html


def play_log(session: Session, state: State, game: int) -> str:
    """One game of `state` (by its index: the same deal as the baseline's game)."""
    p = session.prepared(state)
    if not 0 <= game < 2**63:
        raise SimkitError(f"game index must be 0 or more, not {game}")
    return p.game.play_log(p.compiled, p.lineup, p.spec.seed, game)
