"""Cauldron Master played by the shared loop (simkit/gamekit/loop.py, bound at the end):
its scratch, the state hooks that reach its deck and offer, its specialised lookahead
hooks and its result columns.

`apply_option` (step.py) applies a chosen option and `next_decision` (step.py) plays the
automatic phases up to the next decision; the loop's `play_game` and this file's round
`playout` are short loops around them, so every rule exists once, in rules.py.
`simulate_batch` plays a range of games (`simkit.threads` gives threads blocks of a
batch), each from its own seed, so results do not depend on thread count or chunk size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simkit.gamekit.binding import bind
from simkit.kernels.search_tree import SEARCH_PARAMS, new_tree
from simkit.kernels.trace import new_trace_stub
from simkit.outputs import CORE_OUTPUTS, allocate
from simkit.players import players_file, players_of
from simkit.rng import randint

from . import layout as _layout
from .layout import (CHOSEN, CT_BONUS, CT_POTIONS, CT_SCORED, CT_SIZE, CT_WITCH, GREEDY,
                     GREEDY_TIES, HID_SIZE, KIND, MAX_COLOURS, MAX_OPTIONS, MAX_PLAYERS, MAX_TYPES,
                     N_COLS, O_CARDS_LEFT, O_POTIONS, O_RECIPE_BONUS, O_RECIPE_CARD, O_SCORED,
                     O_WITCH, OUTPUTS, PHASE, PHASE_WITCH, PUB_SIZE, RECIPE, ROLLOUT_TIES, ROUND,
                     RU_CAULDRONS, SEAT, TOP, A, B, fill_at)
from .layout import MAX_DECISIONS, PLAYOUT, ROLLOUT, SEARCH  # noqa: F401  (the shared loop's names)
from .options import pending_options
from .rules import begin_round, choose_witch, setup
from .scoring import final_score, points, ranking_key  # noqa: F401
from .step import apply_option, next_decision

# The players (strategies/cauldron_master.py) are above the kernel: it is handed its
# `choose`, which numba inlines as if imported (simkit/players.py).
choose, STRATEGIES = players_of("cauldron_master", "choose", "STRATEGIES")

def new_outputs(n_games: int, n_players: int, n_witches: int, n_types: int) -> tuple:
    """Allocate the per-game result arrays (layout.OUTPUTS), in narrow dtypes."""
    return allocate(OUTPUTS, n_games, n_players, {"witches": n_witches, "ingredients": n_types})


# ---------------------------------------------------------------- scratch
# The work arrays' fields are named and explained in layout.py (Scratch, RolloutScratch,
# SearchScratch); numba compiles them as tuples.
@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses)."""
    return _layout.Scratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        deck=np.empty(t.deck.shape[0], np.int64),
        recipe_deck=np.empty(t.recipe.shape[0], np.int64),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        rngs=np.zeros((MAX_PLAYERS + 1, 1), np.uint64),
        ranking=np.zeros((2, MAX_PLAYERS), np.float64),
        colours=np.zeros((2, MAX_COLOURS), np.int64),
        offer=np.zeros(MAX_TYPES, np.int64),
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
        deck=np.empty(t.deck.shape[0], np.int64),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        colours=np.zeros((2, MAX_COLOURS), np.int64),
        offer=np.zeros(MAX_TYPES, np.int64),
        undealt=np.zeros(MAX_TYPES, np.int64),
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
        deck=np.empty(t.deck.shape[0], np.int64),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        colours=np.zeros((2, MAX_COLOURS), np.int64),
        offer=np.zeros(MAX_TYPES, np.int64),
        undealt=np.zeros(MAX_TYPES, np.int64),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        sids=np.zeros(MAX_PLAYERS, np.int64),
        params=np.zeros((MAX_PLAYERS, 12), np.float64),
        ranking=np.zeros((2, MAX_PLAYERS), np.int64),
        trace=new_trace_stub(N_COLS),
        seat=np.zeros(1, np.int64),
    )


# ---------------------------------------------------------------- the state hooks
# How the shared loop reaches the state: pub, hid and cnt as every game's, and the deck,
# the recipe deck and the offer's work arrays that Cauldron Master keeps beside them.
@njit(cache=True, inline="always")
def state_setup(t, n_players, scratch, rng, trace, tracing):
    setup(t, n_players, scratch.pub, scratch.hid, scratch.cnt, scratch.deck,
          scratch.recipe_deck, rng, trace, tracing)


@njit(cache=True, inline="always")
def state_next(t, n_players, scratch, rng, trace, tracing):
    return next_decision(t, n_players, scratch.pub, scratch.hid, scratch.cnt, scratch.deck,
                         scratch.opts, scratch.colours, scratch.offer, trace, tracing)


@njit(cache=True, inline="always")
def state_apply(t, n_players, scratch, c, rng, trace, tracing):
    apply_option(t, n_players, scratch.pub, scratch.hid, scratch.cnt, scratch.opts, c, trace,
                 tracing)


@njit(cache=True, inline="always")
def state_decision(scratch, work):
    return _layout.Decision(scratch.pub, scratch.hid, scratch.cnt, scratch.deck, work)


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
# `apply_option`, `next_decision` and `ask`, as the game does, so it plans with exactly
# the rules the game is played by: it lives with them, below the players. It chooses
# witches only; a decision's `state` is a layout.Decision whose `work` is the
# RolloutScratch.
@njit(cache=True)
def playout(t, n_players, pub, hid, cnt, deck, sids, params, rng, seat, first_witch, horizon,
            rs):
    """Play on from the start of round pub[ROUND] (`pub`, `hid`, `cnt`, and `deck` from
    hid[TOP] on), seat s playing strategy sids[s] with params[s], except that in the first
    round seat `seat` plays witch `first_witch` (-1: its strategy's). Stops at the end of the
    game or after `horizon` rounds (0: no limit). Updates the state in place; returns the
    rounds played. The shared loop's `play_game` without the lookahead, tracing or results."""
    opts, colours, offer, trace = rs.opts, rs.colours, rs.offer, rs.trace
    start = pub[ROUND]
    begin_round(pub, n_players, start)
    c = -1
    while True:
        if c >= 0:
            apply_option(t, n_players, pub, hid, cnt, opts, c, trace, False)
        n = next_decision(t, n_players, pub, hid, cnt, deck, opts, colours, offer, trace,
                          False)
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
def rollout_candidates(t, n_players, state, opts, n, params, rng, work, cand, head):
    """Every witch of `opts[:n]`. The seat sees `pub` (no other seat's choice this round)
    and of the real deck only how many cards of each type are undealt (deck[top:] as
    counts: every dealt card is face up), never their order."""
    hid, deck, undealt = state.hid, state.deck, work.undealt
    undealt[:] = 0
    for i in range(hid[TOP], deck.shape[0]):
        undealt[deck[i]] += 1
    for i in range(n):
        cand[i] = i
    return n


@njit(cache=True, inline="always")
def rollout_deal(t, n_players, state, work, rng):
    """The undealt cards in a canonical order (by type), then shuffled with the seat's
    stream: the deal depends only on how many of each type are left."""
    rdeck, undealt = work.deck, work.undealt
    m = 0
    for x in range(t.types.shape[0]):
        for _j in range(undealt[x]):
            rdeck[m] = x
            m += 1
    for i in range(m - 1, 0, -1):
        j = randint(rng, i + 1)
        rdeck[i], rdeck[j] = rdeck[j], rdeck[i]


@njit(cache=True, inline="always")
def rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work, keys, pts):
    """The round played from its start with the seat's witch `opts[cand[i]]`, then the
    rest of the game (or `params[1]` rounds), every seat greedy with weights 1 and 1
    (ties: the rollout player's); keys and points as at the end of the game (seat
    compensation included)."""
    pub, cnt = state.pub, state.cnt
    rpub, rdeck, rhid, rcnt = work.pub, work.deck, work.hid, work.cnt
    rpub[:] = pub
    rcnt[:] = cnt
    rhid[TOP] = 0
    playout(t, n_players, rpub, rhid, rcnt, rdeck, work.sids, work.params, rng, pub[SEAT],
            opts[cand[i], A], np.int64(params[1] + 0.5), work)
    for s in range(n_players):
        pts[s] = final_score(t, rpub, s)
        keys[s] = ranking_key(t, n_players, rpub, rhid, rcnt, s)


# ---------------------------------------------------------------- search player
# The search player's hooks (simkit/kernels/search.py, bound below): a decision's `state`
# is a layout.Decision whose `work` is the SearchScratch. It decides every decision of its seat.
@njit(cache=True, inline="always")
def search_work(t, n_players, state, params):
    """The re-deal's arrays, tree and ranking; the playouts' policy (`params[3]`, with the
    parameters after the search's own); what the seat knows of the deck: how many
    cards of each type are undealt (every dealt card is face up), never their order."""
    hid, deck, ss = state.hid, state.deck, state.work
    policy = np.int64(params[3] + 0.5)
    for s in range(n_players):
        ss.sids[s] = policy
        for k in range(params.shape[0] - SEARCH_PARAMS):
            ss.params[s, k] = params[k + SEARCH_PARAMS]
    ss.seat[0] = state.pub[SEAT]
    undealt = ss.undealt
    undealt[:] = 0
    for i in range(hid[TOP], deck.shape[0]):
        undealt[deck[i]] += 1
    return ss, ss.tree, ss.ranking


@njit(cache=True, inline="always")
def search_deal(t, n_players, state, opts, n, work, rng):
    """The decision's state with the undealt cards shuffled anew (from their counts) and,
    while witches are chosen, the earlier seats' secret witches chosen again by the
    playout policy: the seat never sees either."""
    rpub, rdeck, rhid, rcnt, undealt, ropts = work.pub, work.deck, work.hid, work.cnt, \
        work.undealt, work.opts
    rpub[:] = state.pub
    rhid[:] = state.hid
    rcnt[:] = state.cnt
    m = 0
    for x in range(t.types.shape[0]):
        for _j in range(undealt[x]):
            rdeck[m] = x
            m += 1
    for i in range(m - 1, 0, -1):
        j = randint(rng, i + 1)
        rdeck[i], rdeck[j] = rdeck[j], rdeck[i]
    rhid[TOP] = 0
    seat = rpub[SEAT]
    if rpub[PHASE] == PHASE_WITCH:
        for q in range(seat):
            rpub[SEAT] = q
            k = pending_options(t, rpub, ropts, work.colours, work.offer)
            c = ask(work.sids[q], ropts, k, rpub, t, work.params[q], rng)
            choose_witch(rhid, q, ropts[c, A])
        rpub[SEAT] = seat
        for q in range(seat, n_players):
            rhid[CHOSEN + q] = 0
    ropts[:n] = opts[:n]


@njit(cache=True, inline="always")
def search_seat(t, work):
    return work.pub[SEAT]


@njit(cache=True, inline="always")
def search_key(t, work, i):
    """A row's move: its kind, witch or ingredient type and cauldron (or recipe)."""
    row = work.opts[i]
    return (np.int64(row[KIND]) * 64 + row[A] + 1) * 64 + row[B] + 1


@njit(cache=True, inline="always")
def search_apply(t, n_players, work, i, rng):
    apply_option(t, n_players, work.pub, work.hid, work.cnt, work.opts, i, work.trace, False)


@njit(cache=True, inline="always")
def search_next(t, n_players, work, rng):
    """The next decision of the re-deal the tree has a node for. Another seat's witch is
    chosen by the playout policy, off the tree: a node would let it answer the searching
    seat's secret witch (or let the searching seat answer its own), which the rules hide."""
    while True:
        n = next_decision(t, n_players, work.pub, work.hid, work.cnt, work.deck, work.opts,
                          work.colours, work.offer, work.trace, False)
        s = work.pub[SEAT]
        if n == 0 or work.pub[PHASE] != PHASE_WITCH or s == work.seat[0]:
            return n
        c = ask(work.sids[s], work.opts, n, work.pub, t, work.params[s], rng)
        apply_option(t, n_players, work.pub, work.hid, work.cnt, work.opts, c, work.trace,
                     False)


@njit(cache=True, inline="always")
def search_prefer(t, n_players, work, n, rng):
    """The policy's own row of the pending decision (of the seat to play)."""
    s = work.pub[SEAT]
    return ask(work.sids[s], work.opts, n, work.pub, t, work.params[s], rng)


@njit(cache=True, inline="always")
def search_values(t, n_players, work, n, values):
    """No values: the tree widens to a random untried move after the policy's own."""
    return False


@njit(cache=True, inline="always")
def search_playout(t, n_players, work, params, rng):
    """On from the state reached, every seat playing the policy, to the end of the game or
    for `params[2]` decisions."""
    rpub, rdeck, rhid, rcnt, ropts = work.pub, work.deck, work.hid, work.cnt, work.opts
    horizon = np.int64(params[2] + 0.5)
    steps = 0
    while horizon == 0 or steps < horizon:
        n = next_decision(t, n_players, rpub, rhid, rcnt, rdeck, ropts, work.colours,
                          work.offer, work.trace, False)
        if n <= 0:
            return
        s = rpub[SEAT]
        c = ask(work.sids[s], ropts, n, rpub, t, work.params[s], rng)
        apply_option(t, n_players, rpub, rhid, rcnt, ropts, c, work.trace, False)
        steps += 1


@njit(cache=True, inline="always")
def search_end(t, n_players, work, keys, pts):
    for s in range(n_players):
        pts[s] = final_score(t, work.pub, s)
        keys[s] = ranking_key(t, n_players, work.pub, work.hid, work.cnt, s)


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
bind(globals(), outputs=CORE_OUTPUTS, sources=(Path(players_file("cauldron_master")),))
