"""Shared fixtures: the Cauldron Master game compiled once per test session."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game


@pytest.fixture(scope="session")
def cm():
    """(game, compiled) for the built-in Cauldron Master config; warms the kernels once."""
    game = get_game("cauldron-master")
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["greedy", "planner", "random"], 3)
    game.simulate(compiled, lineup, 0, 0, 8)
    game.replay(compiled, lineup, 0, 0)
    return game, compiled


@pytest.fixture(scope="session")
def cm_ids(cm):
    """Ingredient, witch and recipe-card id -> index."""
    names = cm[1].names
    index = {n: i for i, n in enumerate(names.ingredient_ids)}
    index |= {n: i for i, n in enumerate(names.witch_ids)}
    index |= {n: i for i, n in enumerate(names.recipe_ids)}
    return index


def as_rows(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Copy every column (they may be views of kernel buffers)."""
    return {k: np.array(v) for k, v in columns.items()}
