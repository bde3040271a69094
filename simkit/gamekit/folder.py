"""A game written to the game API (docs/new-game.md), as the engine sees it.

Such a game is a Python package: `__init__.py` with NAME and TITLE; the modules `layout`,
`config`, `rules`, `players` (its strategies), `play` (its results and `bind(globals())`)
and `log`; a `config.toml` beside them; and optionally `options` (its option rows),
`report` (report hooks), `interventions` (what `simkit value` changes) and `targets.toml`
(its balance targets). `FolderGame` turns it into a `Game`; the engine, reports,
sweeps and every command then treat it as they treat the built-in games.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

from simkit.cards import load_config
from simkit.config import GameConfig
from simkit.errors import SimkitError
from simkit.gamekit import with_search
from simkit.gamekit.blame import compile_error_line, shown
from simkit.gamekit.loop import BAD_CHOICE, CHECK_FAILED, NO_OPTION, O_DECISIONS, TOO_MANY
from simkit.games.base import Compiled, KernelGame, Lineup, Replay
from simkit.outputs import allocate, named_columns
from simkit.players import StrategySpec

REQUIRED_MODULES = ("layout", "config", "rules", "players", "play", "log")


class FolderGame(KernelGame):
    """A game from a package written to the game API."""

    def __init__(self, package: ModuleType, name: str, origin: str) -> None:
        self.package = package
        self.folder = Path(package.__file__ or "").parent
        self.origin = origin  # where it came from: an installed package, or a folder
        where = self.folder / "__init__.py"
        for attr in ("NAME", "TITLE"):
            if not isinstance(getattr(package, attr, None), str):
                raise SimkitError(f"{where}: the game API needs {attr} = \"...\" (a string)")
        self.name = name
        self.title = package.TITLE
        self.module = package.__name__
        mods = {m: self._import(m) for m in REQUIRED_MODULES}
        self.layout = mods["layout"]
        self.kernel = mods["play"]
        self.log = mods["log"]
        self.strategy_module = mods["players"]
        for attr in ("N_COLS", "OUTPUTS", "MAX_DECISIONS"):
            if not hasattr(self.layout, attr):
                raise SimkitError(f"{self.folder / 'layout.py'}: the game API needs '{attr}'")
        self.n_cols = self.layout.N_COLS
        if not callable(getattr(mods["config"], "compile_tables", None)):
            raise SimkitError(f"{self.folder / 'config.py'}: the game API needs a function "
                              "compile_tables(config) -> (tables, names)")
        if not callable(getattr(self.log, "format_log", None)):
            raise SimkitError(f"{self.folder / 'log.py'}: the game API needs a function "
                              "format_log(compiled, lineup, replay) -> str")
        self.compile_tables = mods["config"].compile_tables

    def _import(self, module: str) -> ModuleType:
        path = self.folder / f"{module}.py"
        if not path.exists():
            raise SimkitError(f"{path}: missing (a game needs {', '.join(REQUIRED_MODULES)})")
        try:
            return importlib.import_module(f"{self.module}.{module}")
        except SimkitError:
            raise
        except SyntaxError as exc:
            raise SimkitError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from None
        except Exception as exc:  # noqa: BLE001 - any error in the game's code, in one line
            raise SimkitError(f"{path}: importing it failed: {type(exc).__name__}: "
                              f"{exc}") from None

    def compile(self, config: GameConfig) -> Compiled:
        compiled = super().compile(config)
        players = getattr(compiled.names, "players", None)
        if not players or max(players) > self.layout.MAX_PLAYERS or min(players) < 1:
            raise SimkitError(f"{self.folder / 'config.py'}: compile_tables: names.players "
                              f"= {players!r} must be player counts 1..MAX_PLAYERS = "
                              f"{self.layout.MAX_PLAYERS} (layout.py)")
        return compiled

    def optional(self, module: str) -> ModuleType | None:
        """The game's `report` or `interventions` module, if it has one."""
        if not (self.folder / f"{module}.py").exists():
            return None
        return self._import(module)

    # -- config and strategies
    def load_config(self, overrides: tuple[str, ...] = (), path: Any = None) -> GameConfig:
        return load_config(self.name, path=path, overrides=overrides,
                           default=self.folder / "config.toml")

    def strategies(self) -> dict[str, StrategySpec]:
        players = self.strategy_module
        return {spec.name: spec for spec in with_search(players.STRATEGIES, players.ROLLOUT,
                                                        players.PLAYOUT)}

    # -- results
    def new_outputs(self, compiled: Compiled, n_games: int, n_players: int) -> tuple:
        ids = getattr(compiled.names, "ids", {}) or {}
        return allocate(self.layout.OUTPUTS, n_games, n_players,
                        {k: len(v) for k, v in ids.items()})

    def columns(self, compiled: Compiled, out: tuple) -> dict[str, np.ndarray]:
        return named_columns(self.layout.OUTPUTS, out, getattr(compiled.names, "ids", {}) or {})

    def categories(self, compiled: Compiled) -> dict[str, list[str]]:
        return dict(getattr(compiled.names, "categories", {}) or {})

    def simulate(self, compiled: Compiled, lineup: Lineup, seed: int, first_game: int,
                 n_games: int) -> dict[str, np.ndarray]:
        cols = compiling(self, lambda: super(FolderGame, self).simulate(
            compiled, lineup, seed, first_game, n_games))
        check_ended(self, cols["decisions"], seed, first_game)
        return cols

    def replay(self, compiled: Compiled, lineup: Lineup, seed: int, game: int) -> Replay:
        replay = compiling(self, lambda: super(FolderGame, self).replay(compiled, lineup,
                                                                         seed, game))
        check_ended(self, replay.out[O_DECISIONS][:, None], seed, game)
        return replay


def compiling(game: FolderGame, run: Callable[[], Any]) -> Any:
    """`run()`, with numba's failure to compile the game's code said in one line: the
    file and line of the game's code it stopped at, and numba's first line; and an
    exception the game's code raised, by the file, line and function that raised it."""
    try:
        return run()
    except numba.core.errors.NumbaError as exc:
        raise SimkitError(compile_error_line(game.folder, vars(game.kernel),
                                             str(exc))) from None
    except SimkitError:
        raise
    except Exception as exc:
        line = raised_line(game, exc)
        if line is None:  # not raised by the game's code: simkit's own, shown in full
            raise
        raise SimkitError(line) from None


def raised_line(game: FolderGame, exc: BaseException) -> str | None:
    """`file:line: function raised Type: message` for an exception raised in the game's
    folder (compiled code names the raising line as a frame of its own), else None."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or Path(frames[-1].filename).resolve().parent != game.folder:
        return None
    last = frames[-1]
    return (f"{shown(last.filename)}:{last.lineno}: {last.name} raised "
            f"{type(exc).__name__}: {' '.join(str(exc).split())}")


def check_ended(game: FolderGame, decisions: np.ndarray, seed: int, first_game: int) -> None:
    """One clear line if the loop stopped a game that broke the contract."""
    layout = game.layout
    failed = decisions[:, 0] <= CHECK_FAILED
    if failed.any():
        g = int(np.flatnonzero(failed)[0])
        raise SimkitError(f"{game.folder / 'rules.py'}: check returned "
                          f"{CHECK_FAILED - int(decisions[g, 0])} (a conservation check "
                          f"failed) in game {first_game + g} of seed {seed}, played traced")
    d = decisions[:, 0]
    chose = np.flatnonzero((d < TOO_MANY) & (d > CHECK_FAILED))
    if chose.size:
        g = int(chose[0])
        sid = BAD_CHOICE - int(d[g])
        name = next((spec.name for spec in game.strategy_module.STRATEGIES if spec.sid == sid),
                    f"plug-in {-sid}" if sid < 0 else f"id {sid}")
        raise SimkitError(f"{game.folder / 'players.py'}: choose: strategy {name} chose a "
                          f"row outside 0..n - 1 of the option table, in game "
                          f"{first_game + g} of seed {seed}, played traced (a batch "
                          "run plays row 0 instead)")
    where = f"{game.folder / 'rules.py'}: next_decision"
    for bad, problem in (
            (d == NO_OPTION, "offered no legal option (returned 0; it returns GAME_OVER = "
                             "-1 at the end)"),
            (d == TOO_MANY, f"returned more rows than MAX_OPTIONS = {layout.MAX_OPTIONS} "
                            "(layout.py)"),
            (decisions[:, 0] >= layout.MAX_DECISIONS,
             f"did not end the game within MAX_DECISIONS = {layout.MAX_DECISIONS} "
             "decisions (layout.py): a game that never ends, or a limit too low")):
        found = np.flatnonzero(bad)
        if found.size:
            raise SimkitError(f"{where} {problem}, in game {first_game + int(found[0])} "
                              f"of seed {seed}")


def from_entry_point(ep: Any) -> FolderGame:
    """The game an installed package registers under `simkit.games`."""
    where = f"game entry point {ep.name} = {ep.value}"
    try:
        package = ep.load()
    except SimkitError:
        raise
    except Exception as exc:  # noqa: BLE001 - any error in the user's package is reported
        raise SimkitError(f"{where}: loading it failed: {type(exc).__name__}: {exc}") from None
    dist = getattr(ep, "dist", None)
    origin = f"plug-in from {dist.name} {dist.version}" if dist else f"plug-in {ep.value}"
    return FolderGame(package, ep.name, origin)


def from_folder(folder: Path) -> FolderGame:
    """The game whose package is the folder `folder` (its path is its name)."""
    folder = folder.resolve()
    init = folder / "__init__.py"
    if not init.exists():
        raise SimkitError(f"{folder}: not a game folder (no __init__.py; "
                          "`simkit new-game NAME` writes one)")
    name = folder.name
    if not name.isidentifier():
        raise SimkitError(f"{folder}: a game folder's name must be a Python name "
                          "(letters, digits, _)")
    existing = sys.modules.get(name)
    if existing is not None and Path(getattr(existing, "__file__", "") or "") != init:
        raise SimkitError(f"{folder}: a module called '{name}' is already loaded from "
                          f"{getattr(existing, '__file__', '?')}; rename the folder")
    if existing is None:
        spec = importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        try:
            spec.loader.exec_module(package)
        except Exception as exc:  # noqa: BLE001 - any error in the user's package
            del sys.modules[name]
            raise SimkitError(f"{init}: importing it failed: {type(exc).__name__}: "
                              f"{exc}") from None
    else:
        package = existing
    return FolderGame(package, str(folder), f"folder {folder}")
