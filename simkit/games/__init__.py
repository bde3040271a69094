"""Registry of games: command-line name -> Game.

The three built-in games; games that installed packages register under the entry-point
group `simkit.games` (`NAME = "package"`, a package written to the game API,
docs/new-game.md); and any such package named by its folder's path (`simkit run ./pig`).
"""

from __future__ import annotations

import difflib
import functools
import importlib
from importlib.metadata import entry_points
from pathlib import Path

from simkit.errors import SimkitError

from .base import Game, Lineup

__all__ = ["Game", "Lineup", "get_game", "game_names", "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "simkit.games"


# The built-in games by name: module and class, imported only when asked for (a command
# about one game does not import, nor load the kernels of, the other two).
BUILTIN = {"cauldron-master": (".cauldron_master", "CauldronMaster"),
           "carnuta": (".carnuta", "Carnuta"), "inori": (".inori", "Inori")}


@functools.cache
def _builtin(name: str) -> Game:
    module, cls = BUILTIN[name]
    game: Game = getattr(importlib.import_module(module, __package__), cls)()
    return game


def _entry_points() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def game_names() -> list[str]:
    """The built-in games, then the plug-in games installed packages register."""
    return [*BUILTIN, *(n for n in sorted(_entry_points()) if n not in BUILTIN)]


def is_folder_token(name: str) -> bool:
    """True for a game named by its folder's path (it holds `/` or starts with `.`)."""
    return "/" in name or name.startswith(".")


@functools.cache
def _plugin(name: str) -> Game:
    from simkit.gamekit.folder import from_entry_point, from_folder

    if is_folder_token(name):
        return from_folder(Path(name))
    return from_entry_point(_entry_points()[name])


def get_game(name: str) -> Game:
    """The game called `name` on the command line; a clear error if there is none."""
    if name in BUILTIN:
        return _builtin(name)
    if is_folder_token(name) or name in _entry_points():
        return _plugin(str(Path(name).resolve()) if is_folder_token(name) else name)
    known = game_names()
    close = difflib.get_close_matches(name.lower().replace("_", "-").replace(" ", "-"),
                                      known, n=1, cutoff=0.6)
    tip = f"did you mean '{close[0]}'? " if close else ""
    raise SimkitError(f"unknown game '{name}'; {tip}known games: {', '.join(known)} "
                      "(or a game folder's path, e.g. ./mygame)")
