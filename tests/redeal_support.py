"""What the games' `redeal` tests share (tests/test_*_redeal.py): the kernels' random
streams, a walk to a mid-game decision by the rules themselves, and the check that a
built-in is written to the game API."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

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


# The game API's signatures (docs/new-game.md section 4), as a built-in's play module has them.
API = {"setup": "t, n_players, pub, hid, cnt, rng, trace, tracing",
       "next_decision": "t, n_players, pub, hid, cnt, opts, rng, trace, tracing",
       "apply_option": "t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing",
       "redeal": "t, n_players, pub, hid, cnt, seat, rng",
       "ranking_key": "t, n_players, pub, hid, cnt, s", "points": "t, pub, hid, cnt, s",
       "action_key": "t, opts, i"}


def check_written_to_the_api(play: ModuleType, loops: tuple[str, ...],
                             own: tuple[str, ...] = ()) -> None:
    """`play`'s rules have the API's signatures (but the hooks in `own`, the game's own
    where the loop's default would play other games), and its hooks named in `loops` are
    the shared loop's (gamekit/loop.py), not the game's."""
    for name, args in API.items():
        if name not in own:
            params = inspect.signature(getattr(play, name).py_func).parameters
            assert ", ".join(params) == args, name
    for name in loops:
        code = getattr(play, name).py_func.__code__
        assert Path(code.co_filename).name == "loop.py", name
