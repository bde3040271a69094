"""Inori played by the shared loop (simkit/gamekit/loop.py, bound at the end): its
scratch, its fused decisions (state_next_fused), its specialised lookahead hooks and its
result columns.

Its rules are written to the game API (docs/new-game.md): `setup` (rules.py),
`next_decision` and `apply_option` (step.py) take pub, hid and cnt, the piles and work
slots being in hid, so the loop's own state hooks play them. The loop's `play_game` and
this file's `playout` are short loops around them, so every rule exists once, in rules.py.
`simulate_batch` plays a range of games (`simkit.threads` gives threads blocks of a batch),
each from its own seed, so results do not depend on thread count or chunk size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simkit.gamekit.binding import bind
from simkit.kernels.jit import grid, njit_with_refcounts
from simkit.kernels.search_tree import SEARCH_PARAMS, new_tree
from simkit.kernels.trace import new_trace_stub
from simkit.outputs import CORE_OUTPUTS, allocate
from simkit.players import players_file, players_of
from simkit.rng import next_u64

from . import layout as _layout  # its Scratch (the loop's name is alike)
from .layout import (CT_CARD_OFFERS, CT_COMPLETED, CT_DONE, CT_DRAWN, CT_FIRST, CT_GAINED,
                     CT_NEUTRAL, CT_NEW_START, CT_PAID, CT_PASSED, CT_RUNE, CT_SRC, CT_TILES,
                     CT_TREE, CT_TURNS, GREEDY, GREEDY_TIES,
                     MAX_OPTIONS, MAX_PLAYERS, N_COLS, O_CARD, O_CARD_OFFERINGS,
                     O_CARDS_COMPLETED, O_MARKERS_PASSED, O_NEUTRAL_PLACED, O_NEW_STARTS_KEPT,
                     O_POINTS, O_RUNE, O_RUNES_DRAWN, O_SEASONS_FIRST, O_TILES_PLACED, O_TOKENS,
                     O_TOKENS_GAINED, O_TOKENS_PAID, O_TREE, O_TURNS, OUTPUTS, PH_OVER, PHASE,
                     PLANNER, PUB_SIZE, R_N_COLOURS, R_N_TREE, R_SEASONS, ROLLOUT_TIES,
                     ROLLOUT_WEIGHTS, RUNE_KINDS, SEASON, SEAT, STEP, STEP_OFFER, STOP_SEASON,
                     HV, MAX_COLOURS, Redeal, RolloutWork, hid_size, hv_of)
from .layout import CT_SIZE, HID_SIZE, KIND, MAX_DECISIONS, PLAYOUT, ROLLOUT, ROUND  # noqa: F401  (the loop's)
from .layout import SOURCES as SCORE_SOURCES
from .options import action_key  # noqa: F401  (the loop's)
from .rules import redeal, setup  # noqa: F401  (the loop's)
from .scoring import final_score, greedy_score, held, points, ranking_key  # noqa: F401
from .step import apply_option, next_decision, next_fused  # noqa: F401  (the loop's)

# The players (strategies/inori.py) are above the kernel: it is handed its `choose` and
# the planner's default weights, which numba compiles as if imported (simkit/players.py).
choose, PLANNER_DEFAULTS, STRATEGIES = players_of("inori", "choose", "PLANNER_DEFAULTS",
                                                  "STRATEGIES")

N_SOURCES = len(SCORE_SOURCES)
N_RUNE_KINDS = len(RUNE_KINDS)


def new_outputs(n_games: int, n_players: int, n_colours: int, n_tree: int,
                n_cards: int) -> tuple:
    """Allocate the per-game result arrays (layout.OUTPUTS), in narrow dtypes."""
    return allocate(OUTPUTS, n_games, n_players,
                    {"colours": n_colours, "sources": N_SOURCES, "trees": n_tree,
                     "rune_kinds": N_RUNE_KINDS, "cards": n_cards})


# ---------------------------------------------------------------- scratch
@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses)."""
    n_cards = t.card.shape[0]
    lookahead_trace = new_trace_stub(N_COLS)
    hid = np.zeros(hid_size(t), np.int64)
    return _layout.Scratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        rngs=np.zeros((MAX_PLAYERS + 1, 1), np.uint64),
        hid=hid,
        hv=hid[HV:HV + MAX_COLOURS],
        cnt=np.zeros((MAX_PLAYERS, CT_DONE + n_cards), np.int64),
        ranking=np.zeros((2, MAX_PLAYERS), np.int64),
        rollout=lookahead_trace,
        search=lookahead_trace,
    )


# ---------------------------------------------------------------- the state hooks
# The shared loop's own state_setup, state_apply and state_decision play Inori (rules.setup,
# step.apply_option: the game API's); its decisions come fused where they can be.
@njit(cache=True, inline="always")
def state_next_fused(t, n_players, scratch, sids, params, rng, trace, tracing):
    """The next decision, and whether its table holds only a greedy seat's choice, in
    row 0 (step.next_fused, a measured specialisation of next_decision: fused while
    building it; never in a traced game, whose trace records whole tables)."""
    return next_fused(t, n_players, scratch.pub, scratch.hid, scratch.cnt, scratch.opts, rng,
                      trace, tracing, sids, params, scratch.rngs, not tracing, scratch.hv)


@njit(cache=True, inline="always")
def decision_kind(t, scratch):
    """The kind a trace records for a decision: its step (STEP_*)."""
    return scratch.pub[STEP]


@njit(cache=True, inline="always")
def rollout_decides(t, n_players, scratch):
    """The rollout player plays out offerings only (its rune and effect decisions are its
    policy's, with its parameters)."""
    return scratch.pub[STEP] == STEP_OFFER


# ---------------------------------------------------------------- decisions
# The loop's own `ask`, which this file's hooks call before `bind` brings the loop's.
@njit(cache=True, inline="always")
def ask(sid, opts, n, pub, t, params, rng):
    """Ask a strategy for an option row; an out-of-range answer falls back to row 0."""
    chosen = choose(sid, opts, n, pub, t, params, rng)
    if chosen < 0 or chosen >= n:
        return 0
    return chosen


# ---------------------------------------------------------------- rollout player
# The rollout player's hooks (simkit/kernels/rollout.py; it chooses offerings by the
# game's own steps), with the rules, below the players. `state`: the loop's Decision, its
# `work` the game's trace (never recorded into).
@njit_with_refcounts
def playout(t, n_players, pub, hid, cnt, opts, rngs, sids, params, horizon, trace):
    """Play on from the pending state of `pub` and `hid`, seat s by strategy sids[s]
    (weights params[s]), until the game ends (majorities scored) or `horizon` season ends
    have passed (0: no limit); `rngs`' one row stands for every stream. Returns the season
    ends played. The shared loop's `play_game` without the lookahead, tracing or
    results."""
    start = pub[SEASON]
    hid[STOP_SEASON] = start + horizon if horizon > 0 else t.rules[R_SEASONS]
    while True:
        n, fz = next_fused(t, n_players, pub, hid, cnt, opts, rngs[0], trace, False, sids,
                           params, rngs, True, hv_of(hid))
        if n <= 0:
            return pub[SEASON] - start + (1 if hid[PHASE] == PH_OVER else 0)
        s = pub[SEAT]
        c = 0 if fz else ask(sids[s], opts, n, pub, t, params[s], rngs[0])
        apply_option(t, n_players, pub, hid, cnt, opts, c, rngs[0], trace, False)


@njit(cache=True, inline="always")
def new_redeal(t, state, sids, prms):
    """A re-deal's arrays (layout.Redeal) for the decision `state`, with the policy `sids`
    and `prms`."""
    n_cards = t.card.shape[0]
    return Redeal(  # its fields: layout.Redeal
        pub=np.empty_like(state.pub),
        hid=np.empty_like(state.hid),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        cnt=np.zeros((MAX_PLAYERS, CT_DONE + n_cards), np.int64),
        sids=sids,
        params=prms,
        trace=state.work,
    )


@njit(cache=True, inline="always")
def rollout_work(t, n_players, state, params):
    """The playouts' arrays and policy (`params[3]` 0: greedy, weights 1; 1: the planner,
    weights `params[ROLLOUT_WEIGHTS:]`). A playout's counters are never read."""
    prm = np.ones(PLANNER_DEFAULTS.shape[0], np.float64)
    prm[GREEDY_TIES] = params[ROLLOUT_TIES]
    sids = np.full(MAX_PLAYERS, GREEDY, np.int64)
    if params[3] >= 0.5:
        sids[:] = PLANNER
        prm[:] = params[ROLLOUT_WEIGHTS:ROLLOUT_WEIGHTS + prm.shape[0]]
    prms = np.empty((MAX_PLAYERS, prm.shape[0]), np.float64)
    for q in range(MAX_PLAYERS):
        prms[q] = prm
    work = RolloutWork(  # its fields: layout.RolloutWork
        redeal=new_redeal(t, state, sids, prms),
        deal_hid=np.empty_like(state.hid),
        seed=np.zeros(1, np.uint64),
        rngs=np.zeros((1, 1), np.uint64),
        rows=np.empty((MAX_OPTIONS, N_COLS), np.int32),
    )
    return work, np.zeros(MAX_OPTIONS, np.float64), np.zeros((2, MAX_PLAYERS), np.int64)


@njit(cache=True, inline="always")
def rollout_candidates(t, n_players, state, opts, n, params, rng, work, cand, head):
    """The `params[2]` best offerings of `opts[:n]` by greedy's score, the policy's own
    choice always among them."""
    if n <= 1:
        cand[0] = 0
        return 0
    k = min(n, max(1, np.int64(params[2] + 0.5)))
    scores = np.empty(n, np.float64)
    for i in range(n):
        scores[i] = -greedy_score(opts, i, 1.0, 1.0, 1.0, 1.0)
    best = np.argsort(scores, kind="mergesort")[:k]
    # The policy's own choice is always tried.
    pick = ask(work.redeal.sids[0], opts, n, state.pub, t, work.redeal.params[0], rng)
    if not (best == pick).any():
        best[k - 1] = pick
    cand[:k] = np.sort(best)
    rows = work.rows
    for i in range(k):
        rows[i] = opts[cand[i]]
    return k


@njit(cache=True, inline="always")
def rollout_deal(t, n_players, state, work, rng):
    """The hidden piles re-dealt (rules.redeal) with the seat's stream, then a seed for the
    reshuffles, random ties and strategies' draws of the playouts: in this order, not the
    loop's (seed first), which would move the rollout player's games. redeal reads and
    writes nothing of `pub` and `cnt` here."""
    deal = work.deal_hid
    deal[:] = state.hid
    redeal(t, n_players, state.pub, deal, work.redeal.cnt, state.pub[SEAT], rng)
    work.seed[0] = next_u64(rng)


@njit(cache=True, inline="always")
def rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work, keys, pts):
    """The offering cand[i] with the policy's effect decisions, then the rest of the game
    (or `params[1]` season ends) with every seat played by the policy; keys by
    `ranking_key`, when cut short too."""
    r = work.redeal
    trace = state.work
    rpub, rhid, rr, ropts, rcnt = r.pub, r.hid, work.rngs, r.opts, r.cnt
    rpub[:] = state.pub
    rhid[:] = work.deal_hid  # the piles too
    rr[0, 0] = work.seed[0]
    ropts[:k] = work.rows[:k]
    apply_option(t, n_players, rpub, rhid, rcnt, ropts, i, rr[0], trace, False)
    playout(t, n_players, rpub, rhid, rcnt, ropts, rr, r.sids, r.params,
            np.int64(params[1] + 0.5), trace)
    for q in range(n_players):
        pts[q] = final_score(t, rpub, q)
        keys[q] = ranking_key(t, n_players, rpub, rhid, rcnt, q)


# ---------------------------------------------------------------- search player
# The search player's hooks (simkit/kernels/search.py, bound below): a decision's `state`
# is the rollout player's. It decides every decision of its seat. Its `work` is a Redeal,
# whose fields the loop's search_seat, search_key (options.action_key), search_apply,
# search_next, search_prefer, search_values and search_end read as they read theirs. Its
# arrays are made once per decision, as the rollout player's are: Inori's per-thread
# scratch is handed to the loop as views without reference counts, which a tree of arrays
# would have to join.
@njit(cache=True, inline="always")
def search_work(t, n_players, state, params):
    """The re-deals' arrays (a layout.Redeal) and tree; the policy (`params[3]`, with the
    weights after the search's own)."""
    k = PLANNER_DEFAULTS.shape[0]
    sids = np.full(MAX_PLAYERS, np.int64(params[3] + 0.5), np.int64)
    prms = np.empty((MAX_PLAYERS, k), np.float64)
    for q in range(MAX_PLAYERS):
        prms[q] = params[SEARCH_PARAMS:SEARCH_PARAMS + k]
    work = new_redeal(t, state, sids, prms)
    return work, new_tree(MAX_PLAYERS, MAX_OPTIONS), np.zeros((2, MAX_PLAYERS), np.int64)


@njit(cache=True, inline="always")
def search_deal(t, n_players, state, opts, n, work, rng):
    """The decision's state with the hidden piles dealt anew (rules.redeal): the loop's
    search_deal, but for the re-deal's cnt, which it leaves as it is."""
    work.pub[:] = state.pub
    work.hid[:] = state.hid
    redeal(t, n_players, work.pub, work.hid, work.cnt, state.pub[SEAT], rng)
    work.opts[:n] = opts[:n]


@njit(cache=True, inline="always")
def search_playout(t, n_players, work, params, rng):
    """On from the state reached, every seat playing the policy, to the end of the game or
    for `params[2]` decisions: the loop's search_playout with greedy seats' tables fused
    (step.next_fused), as the loop's `playout` is this file's (its horizon in seasons)."""
    pub, hid, cnt, opts, trace = work.pub, work.hid, work.cnt, work.opts, work.trace
    srngs = grid(rng, 0, 1, rng.shape[0])  # the iteration's stream stands for every seat's
    horizon = np.int64(params[2] + 0.5)
    steps = 0
    while horizon == 0 or steps < horizon:
        n, fz = next_fused(t, n_players, pub, hid, cnt, opts, rng, trace, False, work.sids,
                           work.params, srngs, True, hv_of(hid))
        if n <= 0:
            return
        s = pub[SEAT]
        c = 0 if fz else ask(work.sids[s], opts, n, pub, t, work.params[s], rng)
        apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, False)
        steps += 1


# ---------------------------------------------------------------- results
@njit(cache=True, inline="always")
def results(t, n_players, pub, hid, cnt, out, g):
    """Copy a finished game's state and counters into row g of the game's own result
    arrays (the loop writes score, rank, win share and rounds)."""
    n_col = t.rules[R_N_COLOURS]
    n_tree = t.rules[R_N_TREE]
    n_cards = t.card.shape[0]
    for p in range(n_players):
        for x in range(n_col):
            out[O_TOKENS][g, p, x] = held(pub, p, x)
        for k in range(N_SOURCES):
            out[O_POINTS][g, p, k] = cnt[p, CT_SRC + k]
        for ts in range(n_tree):
            out[O_TREE][g, p, ts] = cnt[p, CT_TREE + ts]
        for k in range(N_RUNE_KINDS):
            out[O_RUNE][g, p, k] = cnt[p, CT_RUNE + k]
        for c in range(n_cards):
            out[O_CARD][g, p, c] = cnt[p, CT_DONE + c]
        out[O_RUNES_DRAWN][g, p] = cnt[p, CT_DRAWN]
        out[O_CARDS_COMPLETED][g, p] = cnt[p, CT_COMPLETED]
        out[O_SEASONS_FIRST][g, p] = cnt[p, CT_FIRST]
        out[O_MARKERS_PASSED][g, p] = cnt[p, CT_PASSED]
        out[O_TILES_PLACED][g, p] = cnt[p, CT_TILES]
        out[O_TURNS][g, p] = cnt[p, CT_TURNS]
        out[O_TOKENS_PAID][g, p] = cnt[p, CT_PAID]
        out[O_TOKENS_GAINED][g, p] = cnt[p, CT_GAINED]
        out[O_NEUTRAL_PLACED][g, p] = cnt[p, CT_NEUTRAL]
        out[O_NEW_STARTS_KEPT][g, p] = cnt[p, CT_NEW_START]
        out[O_CARD_OFFERINGS][g, p] = cnt[p, CT_CARD_OFFERS]


# ---------------------------------------------------------------- the shared loop
# play_game, simulate_batch (simkit/kernels/batch.py: the batch and traced entry), `ask`,
# the rollout and search players over the hooks above; the result files predate the loop's
# `decisions` column, so the loop leaves it out. The kernel's cache is dropped when a file
# it is built from changes, the players' file included (simkit/gamekit/cache.py).
# numba's second optimisation of play_game inside the batch's library (a coin toss per
# kernel, simkit/kernels/as_compiled.py) is kept: with the rules in the API's signatures,
# skipping it measured Inori's CPU per game 1.15 of main's, keeping it 1.03 (it was the
# other way round when the rules took the piles as arguments: skipping it then saved 10%).
bind(globals(), outputs=CORE_OUTPUTS, sources=(Path(players_file("inori")),),
     reoptimise_batch=True)
