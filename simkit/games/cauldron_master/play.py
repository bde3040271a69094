"""Cauldron Master played by the shared loop (simkit/gamekit/loop.py, bound at the end),
written to the game API: its whole state is in `pub`, `hid` and `cnt` (layout.py), its
rules are `setup`, `redeal` (rules.py), `next_decision` and `apply_option` (step.py) and
the ranking (scoring.py), in the API's signatures, so the loop's own state hooks play it.

This file adds what the API leaves to a game: its result columns (`results`), which
decisions the rollout player plays out (`rollout_decides`: witches), a row's move for the
search tree (`action_key`, options.py), and the lookahead hooks that keep its players'
published play: both re-deal through `redeal`, the rollout player plays out from the
round's start with its seat's own stream, and the search player has the earlier seats'
secret witches chosen again by its policy (docs/decisions.md says why these stay).
`simulate_batch` plays a range of games (`simkit.threads` gives threads blocks of a
batch), each from its own seed, so results do not depend on thread count or chunk size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simkit.gamekit.binding import bind
from simkit.gamekit.scratch import Scratch
from simkit.kernels.search_tree import SEARCH_PARAMS, new_tree
from simkit.kernels.trace import new_trace_stub
from simkit.outputs import CORE_OUTPUTS, allocate
from simkit.players import players_file, players_of

from . import layout as _layout
from .layout import (CT_BONUS, CT_POTIONS, CT_SCORED, CT_SIZE, CT_WITCH, GREEDY, GREEDY_TIES,
                     HID_SIZE, MAX_OPTIONS, MAX_PLAYERS, N_COLS, O_CARDS_LEFT, O_POTIONS,
                     O_RECIPE_BONUS, O_RECIPE_CARD, O_SCORED, O_WITCH, OUTPUTS, PHASE,
                     PHASE_WITCH, PUB_SIZE, RECIPE, ROLLOUT_TIES, ROUND, RU_CAULDRONS, SEAT, TOP,
                     A, fill_at)
from .layout import CHOSEN, KIND, MAX_DECISIONS, PLAYOUT, ROLLOUT, SEARCH  # noqa: F401
from .options import action_key, pending_options  # noqa: F401
from .rules import begin_round, choose_witch, redeal, setup  # noqa: F401
from .scoring import final_score, points, ranking_key  # noqa: F401
from .step import apply_option, next_decision

# The players (strategies/cauldron_master.py) are above the kernel: it is handed its
# `choose`, which numba inlines as if imported (simkit/players.py).
choose, STRATEGIES = players_of("cauldron_master", "choose", "STRATEGIES")

def new_outputs(n_games: int, n_players: int, n_witches: int, n_types: int) -> tuple:
    """Allocate the per-game result arrays (layout.OUTPUTS), in narrow dtypes."""
    return allocate(OUTPUTS, n_games, n_players, {"witches": n_witches, "ingredients": n_types})


# ---------------------------------------------------------------- scratch
# The loop's scratch (simkit/gamekit/scratch.py) with this game's lookahead work arrays
# (layout.RolloutScratch, SearchScratch); numba compiles them as tuples.
@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses)."""
    return Scratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        rngs=np.zeros((MAX_PLAYERS + 1, 1), np.uint64),
        ranking=np.zeros((2, MAX_PLAYERS), np.float64),
        rollout=new_rollout_scratch(t),
        search=new_search_scratch(t),
    )


@njit(cache=True)
def new_rollout_scratch(t):
    """Work arrays of the rollout player, apart from the game's so a playout never
    touches it."""
    return _layout.RolloutScratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        total=np.zeros(MAX_OPTIONS, np.float64),
        ranking=np.zeros((2, MAX_PLAYERS), np.int64),
        trace=new_trace_stub(N_COLS),
        sids=np.full(MAX_PLAYERS, GREEDY, np.int64),
        params=np.ones((MAX_PLAYERS, GREEDY_TIES + 1), np.float64),  # ties: rollout_work
    )


@njit(cache=True)
def new_search_scratch(t):
    """Work arrays of the search player, apart from the game's and the rollout player's."""
    return _layout.SearchScratch(
        tree=new_tree(MAX_PLAYERS, MAX_OPTIONS),
        pub=np.zeros(PUB_SIZE, np.int32),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        sids=np.zeros(MAX_PLAYERS, np.int64),
        params=np.zeros((MAX_PLAYERS, 12), np.float64),
        ranking=np.zeros((2, MAX_PLAYERS), np.int64),
        trace=new_trace_stub(N_COLS),
        seat=np.zeros(1, np.int64),
    )


@njit(cache=True, inline="always")
def rollout_decides(t, n_players, scratch):
    """The rollout player plays out witch choices only (the rest of its turn is its
    strategy's, with its parameters): its playouts start from the round's start."""
    return scratch.pub[PHASE] == PHASE_WITCH


# ---------------------------------------------------------------- decisions
@njit(cache=True, inline="always")
def ask(sid, opts, n, pub, t, params, rng):
    """Ask a strategy for an option row; an out-of-range answer falls back to row 0."""
    chosen = choose(sid, opts, n, pub, t, params, rng)
    if chosen < 0 or chosen >= n:
        return 0
    return chosen


# ---------------------------------------------------------------- rollout player
# The rollout player (simkit/kernels/rollout.py, bound below) plays forward with
# `apply_option`, `next_decision` and `ask`, as the game does, so it plans with
# exactly the rules the game is played by. It chooses witches only; a decision's `state`
# is the loop's Decision whose `work` is the RolloutScratch. Every rollout re-deals with
# `redeal` and the seat's own stream, and its candidates play on from that deal one after
# the other on that stream (not on copies of one seed, as the loop's rollout_play does):
# the published rollout player's play, kept bit for bit.
@njit(cache=True)
def playout(t, n_players, pub, hid, cnt, sids, params, rng, seat, first_witch, horizon, rs):
    """Play on from the start of round pub[ROUND] (`pub`, `hid`, `cnt`: the deck from
    hid[TOP] on), seat s playing strategy sids[s] with params[s], except that in the first
    round seat `seat` plays witch `first_witch` (-1: its strategy's). Stops at the end of the
    game or after `horizon` rounds (0: no limit). Updates the state in place; returns the
    rounds played. The shared loop's `play_game` without the lookahead, tracing or results."""
    opts, trace = rs.opts, rs.trace
    start = pub[ROUND]
    begin_round(pub, n_players, start)
    c = -1
    while True:
        if c >= 0:
            apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, False)
        n = next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, False)
        if n <= 0:
            return pub[ROUND] - start + 1
        if horizon > 0 and pub[ROUND] - start >= horizon:
            return horizon
        s = pub[SEAT]
        c = ask(sids[s], opts, n, pub, t, params[s], rng)
        if s == seat and pub[PHASE] == PHASE_WITCH and pub[ROUND] == start:
            for i in range(n):
                if opts[i, A] == first_witch:
                    c = i


@njit(cache=True, inline="always")
def rollout_work(t, n_players, state, params):
    """The playouts' arrays, sums and ranking, kept in the game's scratch
    (`new_rollout_scratch`); the playouts' greedy players break ties as the rollout
    player does (its `ties`)."""
    rs = state.work
    rs.params[:, GREEDY_TIES] = params[ROLLOUT_TIES]
    return rs, rs.total, rs.ranking


@njit(cache=True, inline="always")
def rollout_deal(t, n_players, state, work, rng):
    """The decision's hidden state, re-dealt by `redeal` with the seat's own stream."""
    work.hid[:] = state.hid
    redeal(t, n_players, state.pub, work.hid, state.cnt, state.pub[SEAT], rng)


@njit(cache=True, inline="always")
def rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work, keys, pts):
    """The round played from its start with the seat's witch `opts[cand[i]]`, then the
    rest of the game (or `params[1]` rounds), every seat greedy with weights 1 and 1
    (ties: the rollout player's), from the dealt deck; keys and points as at the end of
    the game (seat compensation included)."""
    pub, cnt = state.pub, state.cnt
    rpub, rhid, rcnt = work.pub, work.hid, work.cnt
    rpub[:] = pub
    rcnt[:] = cnt
    rhid[TOP] = state.hid[TOP]
    playout(t, n_players, rpub, rhid, rcnt, work.sids, work.params, rng, pub[SEAT],
            opts[cand[i], A], np.int64(params[1] + 0.5), work)
    for s in range(n_players):
        pts[s] = final_score(t, rpub, s)
        keys[s] = ranking_key(t, n_players, rpub, rhid, rcnt, s)


# ---------------------------------------------------------------- search player
# The search player's hooks (simkit/kernels/search.py, bound below): a decision's `state`
# is the loop's Decision whose `work` is the SearchScratch. It decides every decision of
# its seat; the loop's search_apply, search_prefer, search_values and search_end serve.
@njit(cache=True, inline="always")
def search_work(t, n_players, state, params):
    """The re-deal's arrays, tree and ranking; the playouts' policy (`params[3]`, with the
    parameters after the search's own); the searching seat."""
    ss = state.work
    policy = np.int64(params[3] + 0.5)
    for s in range(n_players):
        ss.sids[s] = policy
        for k in range(params.shape[0] - SEARCH_PARAMS):
            ss.params[s, k] = params[k + SEARCH_PARAMS]
    ss.seat[0] = state.pub[SEAT]
    return ss, ss.tree, ss.ranking


@njit(cache=True, inline="always")
def search_deal(t, n_players, state, opts, n, work, rng):
    """The decision's state re-dealt by `redeal` and, while witches are chosen, the earlier
    seats' secret witches chosen again by the playout policy: the seat never sees either."""
    rpub, rhid, rcnt, ropts = work.pub, work.hid, work.cnt, work.opts
    rpub[:] = state.pub
    rhid[:] = state.hid
    rcnt[:] = state.cnt
    seat = rpub[SEAT]
    redeal(t, n_players, rpub, rhid, rcnt, seat, rng)
    if rpub[PHASE] == PHASE_WITCH:
        for q in range(seat):
            rpub[SEAT] = q
            k = pending_options(t, rpub, rhid, ropts)
            c = ask(work.sids[q], ropts, k, rpub, t, work.params[q], rng)
            choose_witch(rhid, q, ropts[c, A])
        rpub[SEAT] = seat
        for q in range(seat, n_players):
            rhid[CHOSEN + q] = 0
    ropts[:n] = opts[:n]


@njit(cache=True, inline="always")
def search_next(t, n_players, work, rng):
    """The next decision of the re-deal the tree has a node for. Another seat's witch is
    chosen by the playout policy, off the tree: a node would let it answer the searching
    seat's secret witch (or let the searching seat answer its own), which the rules hide."""
    while True:
        n = next_decision(t, n_players, work.pub, work.hid, work.cnt, work.opts, rng,
                          work.trace, False)
        s = work.pub[SEAT]
        if n == 0 or work.pub[PHASE] != PHASE_WITCH or s == work.seat[0]:
            return n
        c = ask(work.sids[s], work.opts, n, work.pub, t, work.params[s], rng)
        apply_option(t, n_players, work.pub, work.hid, work.cnt, work.opts, c, rng,
                     work.trace, False)


@njit(cache=True, inline="always")
def search_playout(t, n_players, work, params, rng):
    """On from the state reached, every seat playing the policy, to the end of the game or
    for `params[2]` decisions (`playout` above is the rollout player's, by rounds)."""
    rpub, rhid, rcnt, ropts = work.pub, work.hid, work.cnt, work.opts
    horizon = np.int64(params[2] + 0.5)
    steps = 0
    while horizon == 0 or steps < horizon:
        n = next_decision(t, n_players, rpub, rhid, rcnt, ropts, rng, work.trace, False)
        if n <= 0:
            return
        s = rpub[SEAT]
        c = ask(work.sids[s], ropts, n, rpub, t, work.params[s], rng)
        apply_option(t, n_players, rpub, rhid, rcnt, ropts, c, rng, work.trace, False)
        steps += 1


# ---------------------------------------------------------------- results
@njit(cache=True, inline="always")
def results(t, n_players, pub, hid, cnt, out, g):
    """Copy a finished game's state and counters into row g of the game's own result
    arrays (the loop writes score, rank, win share and rounds)."""
    for s in range(n_players):
        left = 0
        for k in range(t.rules[RU_CAULDRONS]):
            left += pub[fill_at(s, k)]
        out[O_CARDS_LEFT][g, s] = left
        out[O_POTIONS][g, s] = cnt[s, CT_POTIONS]
        out[O_RECIPE_CARD][g, s] = pub[RECIPE + s]
        out[O_RECIPE_BONUS][g, s] = cnt[s, CT_BONUS]
        for w in range(t.witch.shape[0]):
            out[O_WITCH][g, s, w] = cnt[s, CT_WITCH + w]
        for x in range(t.types.shape[0]):
            out[O_SCORED][g, s, x] = cnt[s, CT_SCORED + x]


# ---------------------------------------------------------------- the shared loop
# play_game, simulate_batch (simkit/kernels/batch.py: the batch and traced entry), the
# rollout and search players over the hooks above; the result files predate the loop's
# `decisions` column, so the loop leaves it out. The kernel's cache is dropped when a file
# it is built from changes, the players' file included (simkit/gamekit/cache.py).
# The batch runs play_game as play_game's own compile left it: numba's second optimisation
# of it inside the batch's library cost this game about 5% (simkit/kernels/as_compiled.py).
bind(globals(), outputs=CORE_OUTPUTS, sources=(Path(players_file("cauldron_master")),),
     reoptimise_batch=False)
