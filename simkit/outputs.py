"""A game's result columns, declared once in its layout and allocated and named from there.

A game's `layout.py` lists its outputs as `Output`s in column order; the position of each
in that list is the index its `play.py` writes (`out[O_SCORE]`), and the adapter names the
arrays with `named_columns`. An output is per game, per seat, or per seat and component
(one column per component: `witch` becomes `witch_<id>` for each witch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

GAME, SEAT = "game", "seat"


class Output(NamedTuple):
    """One result array: its name, dtype, and what it is per (GAME, SEAT, or the name of a
    component list: one column per component, named `<name>_<id>`)."""

    name: str
    dtype: type
    per: str = SEAT


# The result columns every game's kernel writes first, in this order (seating and ranking:
# simkit/kernels/seating.py); the engine, summaries and reports read them by name. A
# game's OUTPUTS begins with them.
CORE_OUTPUTS = (
    Output("strategy", np.int8),  # index into the run's strategy list
    Output("score", np.int16),
    Output("rank", np.int8),  # 1 = best, ties share
    Output("win_share", np.float32),
    Output("rounds", np.int16, GAME),  # rounds played (Inori: seasons)
)


def allocate(outputs: Sequence[Output], n_games: int, n_players: int,
             sizes: Mapping[str, int]) -> tuple:
    """Zeroed result arrays for `n_games` games; `sizes` gives each component list's length."""
    arrays = []
    for o in outputs:
        if o.per == GAME:
            shape: tuple[int, ...] = (n_games,)
        elif o.per == SEAT:
            shape = (n_games, n_players)
        else:
            shape = (n_games, n_players, sizes[o.per])
        arrays.append(np.zeros(shape, o.dtype))
    return tuple(arrays)


def named_columns(outputs: Sequence[Output], out: tuple,
                  ids: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
    """The arrays as named (games, seats) columns, in declaration order; `ids` gives each
    component list's ids."""
    n_games, n_players = out[[o.per for o in outputs].index(SEAT)].shape
    cols: dict[str, np.ndarray] = {}
    for o, a in zip(outputs, out, strict=True):
        if o.per == GAME:
            cols[o.name] = np.broadcast_to(a[:, None], (n_games, n_players))
        elif o.per == SEAT:
            cols[o.name] = a
        else:
            for k, ident in enumerate(ids[o.per]):
                cols[f"{o.name}_{ident}"] = a[:, :, k]
    return cols
