"""Registry of games: command-line name -> Game."""

from __future__ import annotations

from simkit.errors import SimkitError

from .base import Game, Lineup

__all__ = ["Game", "Lineup", "get_game", "game_names"]


def _games() -> dict[str, Game]:
    from .carnuta import Carnuta
    from .cauldron_master import CauldronMaster
    from .inori import Inori

    games: list[Game] = [CauldronMaster(), Carnuta(), Inori()]
    return {g.name: g for g in games}


def game_names() -> list[str]:
    return list(_games())


def get_game(name: str) -> Game:
    """The game called `name` on the command line; a clear error if there is none."""
    games = _games()
    if name not in games:
        raise SimkitError(f"unknown game '{name}'; known games: {', '.join(games)}")
    return games[name]
