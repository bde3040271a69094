"""Heuristic players, one module per built-in game.

A game's module defines `STRATEGIES` (a list of `StrategySpec`) and an @njit `choose`
that the game's kernel calls at every decision; the contract (`Param`, `StrategySpec`,
the search player's spec) is simkit's, in simkit/players.py, and is re-exported here for
the players' modules and plug-ins. simkit finds a game's module by name
(`simkit.players.builtin_players`); it never imports this package.
"""

from simkit.players import (
    MAX_PARAMS,
    Param,
    StrategySpec,
    policy_weights,
    registry,
    search_strategy,
)

__all__ = ["MAX_PARAMS", "Param", "StrategySpec", "policy_weights", "registry",
           "search_strategy"]
