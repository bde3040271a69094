"""The game API (docs/new-game.md): what a game written to it uses from simkit.

- `jit`: the decorator for every function of a game's rules, options, players and results;
- `binding.bind`: compiles simkit's one play loop (`loop.py`) into the game's play.py;
- `folder.FolderGame`: the game as the engine sees it; `skeleton`: `simkit new-game`;
- `LOOP_OUTPUTS`: the result columns the loop writes, first in a game's OUTPUTS.
"""

from __future__ import annotations

import numba
import numpy as np

from simkit.outputs import CORE_OUTPUTS, GAME, Output

# The result columns the shared play loop writes, a game's OUTPUTS begins with them:
# every game's five, then the decisions taken (negative: the game was stopped; loop.py).
LOOP_OUTPUTS = (*CORE_OUTPUTS, Output("decisions", np.int32, GAME))


def jit(fn):
    """Compile a game function with numba: cached on disk, and without reference counting,
    as the shared play loop runs (counting cost the built-in games up to 40% of their time,
    simkit/kernels/jit.py). So a game function must not create arrays: it works in the
    state arrays it is given (layout.py), and numba says "NRT required but not enabled"
    at the line that tries."""
    return numba.njit(cache=True, _nrt=False)(fn)


def with_search(strategies: list, rollout: int, playout: int) -> list:
    """A game's strategies with the search player every game gets (simkit.players.search_strategy)
    added as `search`, its id the next free one, playing out with the strategy the
    rollout player's playouts play (`PLAYOUT`) unless the game names its own `search`."""
    from simkit.players import search_strategy

    if any(spec.name == "search" for spec in strategies):
        return list(strategies)
    return [*strategies, search_strategy(1 + max(spec.sid for spec in strategies),
                                         [s for s in strategies if s.sid != rollout],
                                         playout)]
