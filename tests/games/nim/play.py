"""Nim's play: its result column, then simkit's shared loop compiled in."""

from simkit.gamekit import jit
from simkit.gamekit.binding import bind

from .layout import (  # noqa: F401 - the loop reads these names from this module
    CT_MOVES,
    CT_SIZE,
    HID_SIZE,
    KIND,
    MAX_DECISIONS,
    MAX_OPTIONS,
    MAX_PLAYERS,
    N_COLS,
    O_MOVES,
    OUTPUTS,
    PUB_SIZE,
    ROUND,
    SEAT,
)
from .players import PLAYOUT, ROLLOUT, STRATEGIES, choose  # noqa: F401
from .rules import apply_option, next_decision, points, ranking_key, redeal, setup  # noqa: F401


@jit
def results(t, n_players, pub, hid, cnt, out, g):
    for s in range(n_players):
        out[O_MOVES][g, s] = cnt[s, CT_MOVES]


bind(globals())
