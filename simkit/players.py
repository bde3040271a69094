"""The players' contract: a strategy's parameters, its spec, and where a built-in game's
players are found.

A game's players module defines `STRATEGIES` (a list of `StrategySpec`) and an @njit
`choose(sid, opts, n, pub, tables, params, rng) -> row` that the game's kernel calls
at every decision: `opts[:n]` is the option table, `pub` the public state (see the game's
layout.py), `params` the seat's float parameter vector, `rng` its random stream.
Built-in strategies are selected by integer id and inlined, so kernels cache. A negative
id is a plug-in strategy compiled apart, called by address (simkit/plugins.py).

The players sit above the engine (strategies/ for the built-in games, a game folder's
players.py for the others): simkit reaches a built-in game's by name (`builtin_players`)
and hands the kernel the names it plays with (`players_of`), never importing
strategies/.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from simkit.errors import SimkitError

# The package of the built-in games' players, looked up by name: it sits above simkit.
BUILTIN_PLAYERS = "strategies"

MAX_PARAMS = 12


@dataclass(frozen=True)
class Param:
    """A tunable strategy parameter with its default and allowed range."""

    name: str
    default: float
    lo: float
    hi: float
    doc: str
    tune: bool = True  # False: a rule, not a weight (`ties`); `simkit tune` keeps its value


def policy_weights(params: tuple[Param, ...], policy: int = 1) -> tuple[Param, ...]:
    """A lookahead player's copies of its playout policy's parameters (same names, defaults
    and ranges), so a tuned policy is a parameter file like any other strategy's; `policy`
    is the value of its `policy` parameter that plays them."""
    return tuple(Param(p.name, p.default, p.lo, p.hi, f"policy {policy}: {p.doc}", p.tune)
                 for p in params)


@dataclass(frozen=True)
class StrategySpec:
    """A built-in strategy: its name, kernel id, one-line description and parameters."""

    name: str
    sid: int
    summary: str
    params: tuple[Param, ...] = ()

    def vector(self, values: dict[str, float] | None = None) -> np.ndarray:
        """The parameter vector, defaults overridden by `values` (range-checked)."""
        values = dict(values or {})
        vec = np.zeros(MAX_PARAMS, np.float64)
        for i, p in enumerate(self.params):
            v = values.pop(p.name, p.default)
            if not p.lo <= v <= p.hi:
                raise SimkitError(
                    f"strategy '{self.name}': parameter {p.name} = {v} is out of range "
                    f"[{p.lo}, {p.hi}]"
                )
            vec[i] = v
        if values:
            known = ", ".join(p.name for p in self.params) or "none"
            raise SimkitError(
                f"strategy '{self.name}' has no parameter '{next(iter(values))}'; known: {known}"
            )
        return vec

    def resolved(self, values: dict[str, float] | None = None) -> dict[str, float]:
        """Parameter name -> value after overrides, for the manifest."""
        vec = self.vector(values)
        return {p.name: float(vec[i]) for i, p in enumerate(self.params)}


def search_strategy(sid: int, policies: list[StrategySpec], playout: int,
                    iterations: float = 256.0, prior: float = 0.0) -> StrategySpec:
    """The search player (simkit/kernels/search.py) of a game whose heuristic strategies
    are `policies`, its playouts played by strategy id `playout` by default: its budget,
    exploration, horizon, policy and the policy's head start (`prior`), then the default
    policy's weights (as many as fit).
    `simkit tune` keeps the budget and the policy (more iterations always look better; a
    policy is a pick, not a weight) and tunes the rest."""
    from simkit.kernels.search_tree import (  # numba: only when a game asks
        MAX_ITERATIONS,
        SEARCH_PARAMS,
    )

    default = next((p for p in policies if p.sid == playout), None)
    if default is None:
        raise SimkitError(f"search: the playout strategy id {playout} is not one of the "
                          "game's heuristics")
    names = ", ".join(f"{p.sid} {p.name}" for p in policies)
    own = (
        Param("iterations", iterations, 1.0, float(MAX_ITERATIONS),
              "re-deals searched per decision (its budget)", tune=False),
        Param("explore", 0.7, 0.0, 10.0, "UCB exploration constant"),
        Param("horizon", 0.0, 0.0, 1000.0,
              "decisions each playout plays past the tree (0: to the end)"),
        Param("policy", float(playout), 0.0, float(max(p.sid for p in policies)),
              f"strategy the playouts play ({names})", tune=False),
        Param("prior", prior, 0.0, 1.0,
              "value the policy's own move is given in advance at every node: another "
              "move's playouts must beat it by more"),
    )
    weights = policy_weights(default.params, default.sid)[:MAX_PARAMS - SEARCH_PARAMS]
    return StrategySpec("search", sid,
                        f"searches a tree of its information sets over re-deals, playing "
                        f"out with {default.name} players", (*own, *weights))


def builtin_players(module: str) -> ModuleType:
    """The players module of the built-in game `module` (strategies/<module>.py), found by
    name as a game folder's players.py is found by path (simkit/gamekit/folder.py)."""
    return importlib.import_module(f"{BUILTIN_PLAYERS}.{module}")


def registry(module: str) -> dict[str, StrategySpec]:
    """The built-in strategies of the game whose players module is `module`."""
    return {spec.name: spec for spec in builtin_players(module).STRATEGIES}



def players_of(module: str, *names: str) -> tuple[Any, ...]:
    """`names` of the built-in game `module`'s players, for its kernel (play.py:
    `choose, = players_of("cauldron_master", "choose")`): numba compiles a kernel's
    globals as constants and inlines their functions, so they play as if imported; the
    kernels stay below the players. One clear error names a missing one."""
    players = builtin_players(module)
    missing = [name for name in names if not hasattr(players, name)]
    if missing:
        raise SimkitError(f"{players.__file__}: the game's kernel needs '{missing[0]}'")
    return tuple(getattr(players, name) for name in names)


def players_file(module: str) -> str:
    """The file of the built-in game `module`'s players (a source of its kernel's cache)."""
    return str(Path(builtin_players(module).__file__))
