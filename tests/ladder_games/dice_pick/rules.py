"""Dice Pick's rules: each seat in turn takes one die or two and rolls them."""

from simkit.gamekit import jit
from simkit.kernels.trace import record_event
from simkit.rng import randint

from .layout import (
    CT_DICE,
    CT_TWO,
    DICE,
    EV_ROLL,
    GAME_OVER,
    KIND,
    N_PLAYERS,
    OPT_ONE,
    OPT_TWO,
    PH_DECIDE,
    PH_OVER,
    PHASE,
    ROLLED,
    RU_START,
    SCORE,
    SEAT,
    SEEN,
)


@jit
def setup(t, n_players, pub, hid, cnt, rng, trace, tracing):
    pub[:] = 0
    hid[:] = 0
    cnt[:] = 0
    pub[N_PLAYERS] = n_players
    for s in range(n_players):
        pub[SCORE + s] = t.rules[RU_START + s]
    hid[PHASE] = PH_DECIDE


@jit
def next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing):
    if hid[PHASE] == PH_OVER:
        return GAME_OVER
    for row, kind, dice in ((0, OPT_ONE, 1), (1, OPT_TWO, 2)):
        opts[row, KIND] = kind
        opts[row, DICE] = dice
        opts[row, SEEN] = pub[ROLLED]
    return 2


@jit
def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing):
    """Roll the chosen dice; the next seat decides, or the game is over."""
    s = pub[SEAT]
    for _ in range(opts[c, DICE]):
        face = randint(rng, 6) + 1
        pub[SCORE + s] += face
        cnt[s, CT_DICE] += 1
        record_event(trace, tracing, 0, EV_ROLL, s, face, pub[SCORE + s], 0)
    if opts[c, KIND] == OPT_TWO:
        cnt[s, CT_TWO] += 1
    pub[ROLLED] += 1
    if s + 1 == n_players:
        hid[PHASE] = PH_OVER
    else:
        pub[SEAT] = s + 1


@jit
def points(t, pub, hid, cnt, s):
    return pub[SCORE + s]


@jit
def ranking_key(t, n_players, pub, hid, cnt, s):
    return pub[SCORE + s]


@jit
def redeal(t, n_players, pub, hid, cnt, seat, rng):
    """Nothing is hidden (the dice to come are the playout's own)."""
    return


@jit
def check(t, n_players, pub, hid, cnt):
    for s in range(n_players):
        if pub[SCORE + s] < t.rules[RU_START + s] + cnt[s, CT_DICE]:
            return 1
    return 0
