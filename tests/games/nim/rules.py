"""Nim's rules: a pile, takes of 1..max_take, the last stone wins."""

from simkit.gamekit import jit
from simkit.rng import randint

from .layout import (
    GAME_OVER,
    KIND,
    N_PLAYERS,
    OPT_TAKE,
    PILE,
    ROUND,
    RU_MAX_TAKE,
    RU_PILE,
    RU_SPREAD,
    SEAT,
    TAKE,
    TAKEN,
    WINNER,
)


@jit
def setup(t, n_players, pub, hid, cnt, rng, trace, tracing):
    pub[:] = 0
    hid[:] = 0
    cnt[:] = 0
    pub[N_PLAYERS] = n_players
    pub[PILE] = t.rules[RU_PILE] + randint(rng, t.rules[RU_SPREAD])
    pub[WINNER] = -1


@jit
def next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing):
    if pub[PILE] == 0:
        return GAME_OVER
    n = min(t.rules[RU_MAX_TAKE], pub[PILE])
    for i in range(n):
        opts[i, KIND] = OPT_TAKE
        opts[i, TAKE] = i + 1
    return n


@jit
def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing):
    s = pub[SEAT]
    pub[PILE] -= opts[c, TAKE]
    pub[TAKEN + s] += opts[c, TAKE]
    cnt[s, 0] += 1
    if pub[PILE] == 0:
        pub[WINNER] = s
        return
    pub[SEAT] = (s + 1) % n_players
    if pub[SEAT] == 0:
        pub[ROUND] += 1


@jit
def ranking_key(t, n_players, pub, hid, cnt, s):
    return 1 if pub[WINNER] == s else 0


@jit
def points(t, pub, hid, cnt, s):
    return pub[TAKEN + s]


@jit
def redeal(t, n_players, pub, hid, cnt, seat, rng):
    return
