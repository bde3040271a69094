"""Carnuta played by the shared loop (simkit/gamekit/loop.py, bound at the end), written
to the game API: its state is `pub`, `hid` (its piles and option caches in it) and `cnt`
(layout.py), its `setup`, `redeal` (rules.py), `next_decision` and `apply_option`
(step.py) and ranking (scoring.py) take the API's signatures, and the loop's own state
hooks play it. This file adds its result columns, which decisions the lookahead players
decide and what a traced decision records, and its specialised lookahead hooks.

`apply_option` (step.py) applies a chosen option and `next_decision` (step.py) plays the
automatic steps up to the next decision; the loop's `play_game` and this file's `playout`
are short loops around them, so every rule exists once, in rules.py.
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
from simkit.rng import next_u64

from .layout import (CT_BEST, CT_COLUMN, CT_DISCARDED, CT_DOUBLES, CT_FLIPPED, CT_KIND,
                     CT_PAID_FLIP, CT_PLAYED, CT_RETURNED, CT_RUNES_TAKEN, CT_SALTS, CT_SICKLES,
                     CT_SIZE, CT_START_POINTS, CT_TOKEN, CT_TOKENS, CT_TRIGGERED, CT_TURNS,
                     GAIN_SIZE, GAME_OVER, GREEDY, GREEDY_TIES, KIND, MAX_HAND, MAX_OPTIONS,
                     MAX_PLAYERS, MAX_TYPES, N_COLS, O_BEST_INGREDIENT_POINTS, O_BONUS_TOKENS,
                     O_CARD, O_CARDS_DISCARDED, O_CARDS_PLAYED, O_DOUBLES, O_PLAYED, O_POINTS,
                     O_RUNES_FLIPPED, O_RUNES_PAID_FLIP, O_RUNES_RETURNED, O_RUNES_TAKEN,
                     O_SALTS, O_SICKLES_USED, O_START_POINTS, O_STARTING_CARD, O_TOKEN,
                     O_TRIGGERED_END, O_TURNS, OUTPUTS, P_CARDS, P_HAND, P_HAND_N, P_MOON,
                     P_N_CARDS, P_SUN, PLANNER, PUB_SIZE, R_N_ING_CARDS, R_N_TYPES, ROLLOUT_TIES,
                     ROLLOUT_WEIGHTS, SCORE_KINDS, SEAT, STEP, STEP_ACTION, A, B, C, Redeal,
                     RolloutWork, SearchWork, cols_of, hid_size, player_at)
from .layout import HID_SIZE, MAX_DECISIONS, PLAYOUT, ROLLOUT, ROUND, SEARCH  # noqa: F401  (the loop's)
from .rules import fresh_caches, redeal
from .rules import setup  # noqa: F401  (the shared loop's)
from .scoring import best_gain, final_score, gain_table, greedy_score, score_key
from .scoring import points, ranking_key  # noqa: F401  (the shared loop's names)
from .step import apply_option, next_decision

# The players (strategies/carnuta.py) are above the kernel: it is handed its `choose`, and
# the playouts' policies (their default weights, the planner's values), which numba
# compiles as if imported (simkit/players.py).
choose, STRATEGIES, GREEDY_DEFAULTS, PLANNER_DEFAULTS, planner_values, hand_value = \
    players_of("carnuta", "choose", "STRATEGIES", "GREEDY_DEFAULTS", "PLANNER_DEFAULTS",
               "planner_values", "hand_value")


def new_outputs(n_games: int, n_players: int, n_types: int, n_cards: int) -> tuple:
    """Allocate the per-game result arrays (layout.OUTPUTS), in narrow dtypes."""
    return allocate(OUTPUTS, n_games, n_players,
                    {"ingredients": n_types, "score_kinds": len(SCORE_KINDS), "cards": n_cards})


# ---------------------------------------------------------------- scratch
# The loop's scratch (simkit/gamekit/scratch.py): the state is the API's pub, hid and cnt
# (the piles and option caches in hid, layout.py), so the loop's own state hooks play it.
@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses); the
    rollout player builds its arrays per decision (`rollout_work`), the search player
    keeps its tree here."""
    return Scratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        hid=np.zeros(hid_size(t), np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        rngs=np.zeros((MAX_PLAYERS + 1, 1), np.uint64),
        ranking=np.zeros((2, MAX_PLAYERS), np.int64),
        rollout=None,
        search=new_tree(MAX_PLAYERS, MAX_OPTIONS),
    )


# Which decisions the lookahead players decide, and what a traced decision records: the
# game's own (the loop's defaults would search every decision and record the first row's
# kind, which would change the rollout and search players' games and the log).
@njit(cache=True, inline="always")
def rollout_decides(t, n_players, scratch):
    """The rollout player plays out actions only (the end of its turn is its policy's)."""
    return scratch.pub[STEP] == STEP_ACTION


@njit(cache=True, inline="always")
def search_decides(t, n_players, scratch):
    """The search player searches actions only (the end of its turn is its policy's)."""
    return scratch.pub[STEP] == STEP_ACTION


@njit(cache=True, inline="always")
def decision_kind(t, scratch):
    """A traced decision's kind is its step (STEP_*): the log and the reference read it."""
    return scratch.pub[STEP]


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
# actions only; a decision's `state` is a layout.Decision.
@njit(cache=True)
def playout(t, n_players, pub, hid, cnt, rng, opts, sid, prm, horizon, trace):
    """Play on from the pending decision of `pub` with every seat played by strategy `sid`
    (weights `prm`) until the game ends (and is scored) or `horizon` round ends have passed
    (0: no limit). `rng` stands for the deal stream (reveals after a rebuilt deck) and for
    the strategies' own. Returns the number of round ends played. `play_game`'s loop
    without the lookahead, tracing or results (the game's end is GAME_OVER)."""
    start = pub[ROUND]
    while True:
        n = next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, False)
        if n == GAME_OVER:
            return pub[ROUND] - start + 1
        if horizon > 0 and pub[ROUND] - start >= horizon:
            return horizon
        c = ask(sid, opts, n, pub, t, prm, rng)
        apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, False)


@njit(cache=True, inline="always")
def new_redeal(t, state, sid, prm):
    """A re-deal's arrays (layout.Redeal) for the decision `state`, with the policy `sid`
    and `prm`. The counters the rules keep in a re-deal are never read, so they start
    from whatever was left."""
    return Redeal(  # its fields: layout.Redeal
        pub=np.empty_like(state.pub),
        hid=np.empty_like(state.hid),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        sid=sid,
        prm=prm,
        trace=new_trace_stub(N_COLS),
    )


@njit(cache=True, inline="always")
def rollout_work(t, n_players, state, params):
    """The playouts' arrays (the game's own are never touched) and policy: `params[3]` 0
    greedy with its default weights, 1 the planner with the weights in
    `params[ROLLOUT_WEIGHTS:]`."""
    sid = np.full(1, GREEDY, np.int64)
    prm = GREEDY_DEFAULTS.copy()
    prm[GREEDY_TIES] = params[ROLLOUT_TIES]  # the planner's is in its slice of params
    if params[3] >= 0.5:
        sid[0] = PLANNER
        prm = params[ROLLOUT_WEIGHTS:ROLLOUT_WEIGHTS + PLANNER_DEFAULTS.shape[0]].copy()
    work = RolloutWork(  # its fields: layout.RolloutWork
        redeal=new_redeal(t, state, sid, prm),
        deal_hid=np.empty_like(state.hid),
        rng=np.zeros(1, np.uint64),
        rows=np.empty((MAX_OPTIONS, N_COLS), np.int32),
        seed=np.zeros(1, np.uint64),
    )
    return work, np.zeros(MAX_OPTIONS, np.float64), np.zeros((2, MAX_PLAYERS), np.int64)


@njit(cache=True, inline="always")
def rollout_candidates(t, n_players, state, opts, n, params, rng, work, cand, head):
    """The action: the `params[2]` best rows of `opts[:n]` by the policy's own values, so
    the policy's own choice is always among them, and it starts `params[4]` ahead per
    rollout (another action must beat it by that much: with few noisy playouts, the
    best-looking of many actions is often only the luckiest).

    The seat sees `pub` (hands are public: every card in one was taken face up), the
    counters, and of the Day and Night piles only their contents (`rollout_deal`)."""
    if n <= 1:
        cand[0] = 0
        return 0
    sid, prm = work.redeal.sid[0], work.redeal.prm
    k = min(n, max(1, np.int64(params[2] + 0.5)))
    values = np.empty(n, np.float64)
    if sid == PLANNER:
        planner_values(opts, n, state.pub, t, prm, values)
    else:
        for i in range(n):
            values[i] = greedy_score(opts, i, prm)
    cand[:k] = np.sort(np.argsort(-values, kind="mergesort")[:k])
    if k == 1:
        return 0
    own = np.argmax(values)
    rows = work.rows
    for i in range(k):
        rows[i] = opts[cand[i]]
        if cand[i] == own:
            head[i] = params[4]
    return k


@njit(cache=True, inline="always")
def rollout_deal(t, n_players, state, work, rng):
    """The decision's piles re-dealt by `redeal` with the seat's stream (every candidate
    plays this deal), and a seed for the reveals after a rebuilt deck and the strategies'
    draws. redeal reads and writes nothing of `pub` and `cnt` here."""
    work.deal_hid[:] = state.hid
    redeal(t, n_players, state.pub, work.deal_hid, work.redeal.cnt, state.pub[SEAT], rng)
    work.seed[0] = next_u64(rng)


@njit(cache=True, inline="always")
def rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work, keys, pts):
    """The action cand[i], then the rest of the game (or `params[1]` round ends) with every
    seat played by the policy; keys by the rules' ranking (final score with the seat
    compensation, then the tiebreak)."""
    r = work.redeal
    rpub, rhid, rcnt, rr, ropts, trace = r.pub, r.hid, r.cnt, work.rng, r.opts, r.trace
    rpub[:] = state.pub
    rhid[:] = work.deal_hid  # the piles too
    fresh_caches(t, rhid)
    rr[0] = work.seed[0]
    ropts[:k] = work.rows[:k]
    apply_option(t, n_players, rpub, rhid, rcnt, ropts, i, rr, trace, False)
    playout(t, n_players, rpub, rhid, rcnt, rr, ropts, r.sid[0], r.prm,
            np.int64(params[1] + 0.5), trace)
    cols = cols_of(rhid)
    for q in range(n_players):
        pts[q], best = final_score(t, rpub, q, cols)
        keys[q] = score_key(t, q, pts[q], best)


# ---------------------------------------------------------------- search player
# The search player's hooks (simkit/kernels/search.py, bound below): a decision's `state`
# is the loop's Decision, its `work` the tree. It searches actions, as the rollout player
# does; the end of a turn (Sickle, discards, tokens) is its policy's, at the table and in
# its tree (search_next plays it off the tree): a node per discard would spread a small
# budget over moves that matter little.
@njit(cache=True, inline="always")
def search_work(t, n_players, state, params):
    """The re-deals' arrays (a layout.Redeal, in a layout.SearchWork) and the policy
    (`params[3]` with the weights after the search's own)."""
    prm = np.zeros(8, np.float64)
    prm[:params.shape[0] - SEARCH_PARAMS] = params[SEARCH_PARAMS:]
    work = SearchWork(  # its fields: layout.SearchWork
        redeal=new_redeal(t, state, np.full(1, np.int64(params[3] + 0.5), np.int64), prm),
        cut_short=np.zeros(1, np.int64),
        hand_cache=np.zeros(GAIN_SIZE, np.int64),
        hand_has=np.zeros(MAX_TYPES, np.int64),
        hand=np.zeros(MAX_HAND, np.int64),
        hand_gains=np.zeros(MAX_HAND, np.float64),
    )
    return work, state.work, np.zeros((2, MAX_PLAYERS), np.int64)


@njit(cache=True, inline="always")
def search_deal(t, n_players, state, opts, n, work, rng):
    """The decision's state with its piles re-dealt by `redeal`."""
    r = work.redeal
    r.pub[:] = state.pub
    r.hid[:] = state.hid  # the piles too
    redeal(t, n_players, r.pub, r.hid, r.cnt, r.pub[SEAT], rng)
    fresh_caches(t, r.hid)
    r.opts[:n] = opts[:n]
    work.cut_short[0] = 0


@njit(cache=True, inline="always")
def search_seat(t, work):
    return work.redeal.pub[SEAT]


@njit(cache=True, inline="always")
def search_key(t, work, i):
    """A row's move: its kind and the card, runes or token it names."""
    row = work.redeal.opts[i]
    return (((np.int64(row[KIND]) * 1024 + row[A] + 1) * 1024 + row[B] + 1) * 1024
            + row[C] + 1)


@njit(cache=True, inline="always")
def search_apply(t, n_players, work, i, rng):
    r = work.redeal
    apply_option(t, n_players, r.pub, r.hid, r.cnt, r.opts, i, rng, r.trace, False)


@njit(cache=True, inline="always")
def search_next(t, n_players, work, rng):
    """The next action of the re-deal: the end of a turn is played by the policy."""
    r = work.redeal
    while True:
        n = next_decision(t, n_players, r.pub, r.hid, r.cnt, r.opts, rng, r.trace, False)
        if n == GAME_OVER or r.pub[STEP] == STEP_ACTION:
            return n
        search_apply(t, n_players, work, search_prefer(t, n_players, work, n, rng), rng)


@njit(cache=True, inline="always")
def search_prefer(t, n_players, work, n, rng):
    """The policy's own row of the pending decision."""
    r = work.redeal
    return ask(r.sid[0], r.opts, n, r.pub, t, r.prm, rng)


@njit(cache=True, inline="always")
def search_values(t, n_players, work, n, values):
    """The policy's values of the pending rows (the rollout player tries the best of
    these), so the tree widens to the policy's next-best action, not a random one."""
    r = work.redeal
    sid, prm, opts = r.sid[0], r.prm, r.opts
    if sid == PLANNER:
        planner_values(opts, n, r.pub, t, prm, values)
        return True
    if sid == GREEDY:
        for i in range(n):
            values[i] = greedy_score(opts, i, prm)
        return True
    return False


@njit(cache=True, inline="always")
def search_playout(t, n_players, work, params, rng):
    """On from the state reached, every seat playing the policy, to the end of the game or
    for `params[2]` actions."""
    horizon = np.int64(params[2] + 0.5)
    steps = 0
    while horizon == 0 or steps < horizon:
        n = search_next(t, n_players, work, rng)
        if n == GAME_OVER:
            return
        search_apply(t, n_players, work, search_prefer(t, n_players, work, n, rng), rng)
        steps += 1
    work.cut_short[0] = 1


@njit(cache=True, inline="always")
def search_end(t, n_players, work, keys, pts):
    """The ranking reached. A playout cut short (`horizon`) ranks the seats as the planner
    values a hand: its points so far plus `hand_weight` times what each card in its hand
    would score, `discount` for each rune it is short of paying it (the policy's weights
    if it is the planner, else the planner's defaults), in 1/1024 points: a half-played
    game's tableau alone misjudges it (measured in docs/strategies.md)."""
    r = work.redeal
    pub, cols = r.pub, cols_of(r.hid)
    for q in range(n_players):
        pts[q], best = final_score(t, pub, q, cols)
        keys[q] = score_key(t, q, pts[q], best)
    if work.cut_short[0] == 0:
        return
    discount, weight = PLANNER_DEFAULTS[0], PLANNER_DEFAULTS[1]
    if r.sid[0] == PLANNER:
        discount, weight = r.prm[0], r.prm[1]
    cache, has, hand, gains = work.hand_cache, work.hand_has, work.hand, work.hand_gains
    for q in range(n_players):
        gain_table(t.card, pub, q, cache, has)
        n_hand = pub[player_at(q, P_HAND_N)]
        for h in range(n_hand):
            hand[h] = pub[player_at(q, P_HAND + h)]
            gains[h] = best_gain(t.card, pub, q, hand[h], cache, has)[0]
        value = pts[q] + weight * hand_value(t.card, hand, gains, n_hand, -1,
                                                pub[player_at(q, P_SUN)],
                                                pub[player_at(q, P_MOON)], discount)
        keys[q] = np.int64(value * 1024.0)
        pts[q] = np.int64(value + 0.5)


# ---------------------------------------------------------------- results
@njit(cache=True, inline="always")
def results(t, n_players, pub, hid, cnt, out, g):
    """Copy a finished game's counters into row g of the game's own result arrays (the
    loop writes score, rank, win share and rounds)."""
    n_ing = t.rules[R_N_ING_CARDS]
    for s in range(n_players):
        base = player_at(s, 0)
        out[O_STARTING_CARD][g, s] = pub[base + P_CARDS] - n_ing  # the tableau's first
        out[O_START_POINTS][g, s] = cnt[s, CT_START_POINTS]
        out[O_CARDS_PLAYED][g, s] = cnt[s, CT_PLAYED]
        out[O_DOUBLES][g, s] = cnt[s, CT_DOUBLES]
        out[O_SALTS][g, s] = cnt[s, CT_SALTS]
        out[O_BONUS_TOKENS][g, s] = cnt[s, CT_TOKENS]
        out[O_SICKLES_USED][g, s] = cnt[s, CT_SICKLES]
        out[O_RUNES_TAKEN][g, s] = cnt[s, CT_RUNES_TAKEN]
        out[O_RUNES_FLIPPED][g, s] = cnt[s, CT_FLIPPED]
        out[O_RUNES_PAID_FLIP][g, s] = cnt[s, CT_PAID_FLIP]
        out[O_RUNES_RETURNED][g, s] = cnt[s, CT_RETURNED]
        out[O_TRIGGERED_END][g, s] = cnt[s, CT_TRIGGERED]
        out[O_TURNS][g, s] = cnt[s, CT_TURNS]
        out[O_CARDS_DISCARDED][g, s] = cnt[s, CT_DISCARDED]
        out[O_BEST_INGREDIENT_POINTS][g, s] = cnt[s, CT_BEST]
        for x in range(t.rules[R_N_TYPES]):
            out[O_PLAYED][g, s, x] = cnt[s, CT_COLUMN + x]
            out[O_TOKEN][g, s, x] = cnt[s, CT_TOKEN + x]
        for k in range(len(SCORE_KINDS)):
            out[O_POINTS][g, s, k] = cnt[s, CT_KIND + k]
        for i in range(1, pub[base + P_N_CARDS]):  # the cards played from hand
            out[O_CARD][g, s, pub[base + P_CARDS + i]] = 1


# ---------------------------------------------------------------- the shared loop
# play_game, simulate_batch (simkit/kernels/batch.py: the batch and traced entry), the
# rollout and search players over the hooks above; the result files predate the loop's
# `decisions` column, so the loop leaves it out. The kernel's cache is dropped when a file
# it is built from changes, the players' file included (simkit/gamekit/cache.py).
bind(globals(), outputs=CORE_OUTPUTS, sources=(Path(players_file("carnuta")),))
