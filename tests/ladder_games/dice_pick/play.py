"""Dice Pick's play: its result column, then simkit's shared loop compiled in."""

from simkit.gamekit import jit
from simkit.gamekit.binding import bind

from .layout import (  # noqa: F401 - the loop reads these names from this module
    CT_DICE,
    CT_SIZE,
    HID_SIZE,
    KIND,
    MAX_DECISIONS,
    MAX_OPTIONS,
    MAX_PLAYERS,
    N_COLS,
    O_DICE,
    OUTPUTS,
    PUB_SIZE,
    ROUND,
    SEAT,
)
from .players import PLAYOUT, ROLLOUT, STRATEGIES, choose  # noqa: F401
from .rules import (  # noqa: F401
    apply_option,
    check,
    next_decision,
    points,
    ranking_key,
    redeal,
    setup,
)


@jit
def results(t, n_players, pub, hid, cnt, out, g):
    for s in range(n_players):
        out[O_DICE][g, s] = cnt[s, CT_DICE]


bind(globals())
