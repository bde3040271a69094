"""Pig's rules: setup, the two steps (roll, hold), the end of a turn and of the game.

The rules change only the game state (`pub`, `hid`) and the per-seat counters (`cnt`);
they never ask a player and never write a result. `next_decision` plays the automatic
steps (a turn's first roll) up to the next decision and fills its option table;
`apply_option` applies the option a player chose. The shared loop
(simkit/gamekit/loop.py) calls them for batch play, traced play and lookahead alike.
"""

from simkit.gamekit import jit
from simkit.kernels.trace import record_event
from simkit.rng import randint

from .layout import (
    CT_BEST_TURN,
    CT_BUSTS,
    CT_FACE,
    CT_HOLDS,
    CT_ROLLS,
    CT_TURNS,
    ENDING,
    EV_BUST,
    EV_END,
    EV_HOLD,
    EV_ROLL,
    FA_BUST,
    FA_POINTS,
    FINISH_IMMEDIATE,
    GAME_OVER,
    KIND,
    LAST_FACE,
    N_PLAYERS,
    OPT_ROLL,
    PH_DECIDE,
    PH_OVER,
    PH_START,
    PHASE,
    ROLLS,
    ROUND,
    RU_BAN_FACE,
    RU_BAN_SEAT,
    RU_FINISH,
    RU_GOAL,
    RU_START,
    SCORE,
    SEAT,
    TURN_TOTAL,
)
from .options import fill_options


@jit
def setup(t, n_players, pub, hid, cnt, rng, trace, tracing):
    """A new game: starting scores (compensation.start), seat 0 to roll first."""
    pub[:] = 0
    hid[:] = 0
    cnt[:] = 0
    pub[N_PLAYERS] = n_players
    for s in range(n_players):
        pub[SCORE + s] = t.rules[RU_START + s]
    begin_turn(pub, hid, 0)


@jit
def begin_turn(pub, hid, s):
    """Seat s's turn starts: a fresh turn total, its first roll to come."""
    pub[SEAT] = s
    pub[TURN_TOTAL] = 0
    pub[ROLLS] = 0
    pub[LAST_FACE] = -1
    hid[PHASE] = PH_START


@jit
def roll(t, pub, hid, cnt, rng, trace, tracing):
    """Roll the die: a bust face ends the turn with nothing, any other adds its points."""
    s = pub[SEAT]
    face = randint(rng, t.faces.shape[0])
    pub[ROLLS] += 1
    pub[LAST_FACE] = face
    cnt[s, CT_ROLLS] += 1
    cnt[s, CT_FACE + face] += 1
    record_event(trace, tracing, pub[ROUND], EV_ROLL, s, face, pub[TURN_TOTAL], 0)
    if t.faces[face, FA_BUST]:
        cnt[s, CT_BUSTS] += 1
        record_event(trace, tracing, pub[ROUND], EV_BUST, s, face, pub[TURN_TOTAL], 0)
        end_turn(t, pub, hid)
        return
    if not (s == t.rules[RU_BAN_SEAT] and face == t.rules[RU_BAN_FACE]):
        pub[TURN_TOTAL] += t.faces[face, FA_POINTS]
    hid[PHASE] = PH_DECIDE


@jit
def hold(t, pub, hid, cnt, trace, tracing):
    """Bank the turn total. Reaching the goal ends the game at once ("immediate") or at
    the end of the round ("equal_turns")."""
    s = pub[SEAT]
    banked = pub[TURN_TOTAL]
    pub[SCORE + s] += banked
    cnt[s, CT_HOLDS] += 1
    cnt[s, CT_BEST_TURN] = max(cnt[s, CT_BEST_TURN], banked)
    record_event(trace, tracing, pub[ROUND], EV_HOLD, s, banked, pub[SCORE + s], 0)
    if pub[SCORE + s] >= t.rules[RU_GOAL]:
        if t.rules[RU_FINISH] == FINISH_IMMEDIATE:
            hid[PHASE] = PH_OVER
            record_event(trace, tracing, pub[ROUND], EV_END, s, pub[SCORE + s], 0, 0)
            return
        hid[ENDING] = 1
    end_turn(t, pub, hid)


@jit
def end_turn(t, pub, hid):
    """Play passes clockwise; a new round starts with seat 0, unless the game ends."""
    s = pub[SEAT] + 1
    if s == pub[N_PLAYERS]:
        if hid[ENDING]:
            hid[PHASE] = PH_OVER
            return
        s = 0
        pub[ROUND] += 1
    begin_turn(pub, hid, s)


@jit
def next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing):
    """Play the automatic steps (each turn's first roll) up to the next decision; fill
    its options into `opts` and return how many (GAME_OVER: the game is over)."""
    while True:
        if hid[PHASE] == PH_OVER:
            return GAME_OVER
        if hid[PHASE] == PH_START:
            cnt[pub[SEAT], CT_TURNS] += 1
            roll(t, pub, hid, cnt, rng, trace, tracing)
            continue
        return fill_options(t, n_players, pub, opts)


@jit
def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing):
    """Apply option row `c`: roll again, or hold."""
    if opts[c, KIND] == OPT_ROLL:
        roll(t, pub, hid, cnt, rng, trace, tracing)
    else:
        hold(t, pub, hid, cnt, trace, tracing)


@jit
def points(t, pub, hid, cnt, s):
    """Seat s's score."""
    return pub[SCORE + s]


@jit
def ranking_key(t, n_players, pub, hid, cnt, s):
    """Seat s's place at the end: the higher score wins; equal scores share the win."""
    return pub[SCORE + s]


@jit
def redeal(t, n_players, pub, hid, cnt, seat, rng):
    """Re-sample what `seat` cannot see, for the rollout player: Pig hides nothing (the
    dice to come are the playout's own), so nothing changes."""
    return


@jit
def check(t, n_players, pub, hid, cnt):
    """Conservation, checked after every step of a traced game (simkit check, tests):
    0 if fine; 1 if a seat's rolls by face do not add up to its rolls; 2 if a score fell
    below its start; 3 if a turn total is negative."""
    for s in range(n_players):
        rolled = 0
        for f in range(t.faces.shape[0]):
            rolled += cnt[s, CT_FACE + f]
        if rolled != cnt[s, CT_ROLLS]:
            return 1
        if pub[SCORE + s] < t.rules[RU_START + s]:
            return 2
    if pub[TURN_TOTAL] < 0:
        return 3
    return 0
