"""What the games' `redeal` tests share (tests/test_*_redeal.py): the kernels' random
streams, and a walk to a mid-game decision by the rules themselves."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def tables_by_config(game_name: str, overrides: dict[str, tuple[str, ...]]) -> dict:
    """The game's compiled tables under each named set of config overrides."""
    from simkit.games import get_game

    game = get_game(game_name)
    return {k: game.compile(game.load_config(o)).tables for k, o in overrides.items()}


def stream(seed: int, k: int) -> np.ndarray:
    """Stream k of a seed, as the kernels take it."""
    from simkit.rng import py_stream_state

    return np.array([py_stream_state(seed, k)], np.uint64)


def walk(next_decision: Callable[[], int], apply_option: Callable[[int], None], seed: int,
         steps: int, game_over: int) -> int | None:
    """Play `steps` decisions of a set-up game with uniformly random rows (numpy's
    generator seeded `seed`): `next_decision()` plays to the next decision and returns its
    option count (`game_over` once the game is over), `apply_option(c)` applies row c.
    Returns the pending decision's option count, or None if the game ended first."""
    pick = np.random.default_rng(seed)
    for step in range(steps + 1):
        n = next_decision()
        if n == game_over:
            return None
        if step == steps:
            return n
        apply_option(int(pick.integers(n)))
    return None
