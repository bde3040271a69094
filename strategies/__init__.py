"""Heuristic players, one module per game, and their registry.

A game's module defines `STRATEGIES` (a list of `StrategySpec`) and an @njit
`choose(sid, opts, n, pub, tables, params, rng) -> row` that the game's kernel calls
at every decision: `opts[:n]` is the option table, `pub` the public state (see the game's
layout.py), `params` the seat's float parameter vector, `rng` its random stream.
Built-in strategies are selected by integer id and inlined, so kernels cache. A negative
id is a plug-in strategy compiled apart, called by address (simkit/plugins.py).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from simkit.errors import SimkitError

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


def registry(module: str) -> dict[str, StrategySpec]:
    """The built-in strategies of the game whose strategy module is `module`."""
    mod = importlib.import_module(f"strategies.{module}")
    return {spec.name: spec for spec in mod.STRATEGIES}


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
