"""Pig's play: its own result columns, then simkit's shared loop compiled in.

`bind(globals())` compiles simkit/gamekit/loop.py here, with the names it needs (listed
in docs/new-game.md) taken from this module: it defines `simulate_batch` (batch and traced
play), `play_game`, `playout` and `rollout_choice` (the rollout player).
"""

from simkit.gamekit import jit
from simkit.gamekit.binding import bind

from .layout import (  # noqa: F401 - the loop reads these names from this module
    CT_BEST_TURN,
    CT_BUSTS,
    CT_FACE,
    CT_HOLDS,
    CT_ROLLS,
    CT_SIZE,
    CT_TURNS,
    HID_SIZE,
    KIND,
    MAX_DECISIONS,
    MAX_OPTIONS,
    MAX_PLAYERS,
    N_COLS,
    O_BEST_TURN,
    O_BUSTS,
    O_HOLDS,
    O_ROLLED,
    O_ROLLS,
    O_TURNS,
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
    """Copy a finished game's counters into row g of the game's own result columns (the
    loop writes strategy, score, rank, win_share, rounds and decisions)."""
    for s in range(n_players):
        out[O_TURNS][g, s] = cnt[s, CT_TURNS]
        out[O_ROLLS][g, s] = cnt[s, CT_ROLLS]
        out[O_BUSTS][g, s] = cnt[s, CT_BUSTS]
        out[O_HOLDS][g, s] = cnt[s, CT_HOLDS]
        out[O_BEST_TURN][g, s] = cnt[s, CT_BEST_TURN]
        for f in range(t.faces.shape[0]):
            out[O_ROLLED][g, s, f] = cnt[s, CT_FACE + f]


bind(globals())
