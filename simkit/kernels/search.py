"""The search player, written once for every game: information-set Monte Carlo tree search.

This file is a template, not an importable module: `simkit.kernels.templates.bind_search`
compiles it into a game's `play.py` namespace (as rollout.py), where these hooks are the
game's own:

    search_work(t, n_players, state, params) -> (work, tree, ranking)
        the determinization's arrays (its state, option table, policy), the tree
        (simkit/kernels/search_tree.new_tree) and a playout's ranking keys and points
        (2 x MAX_PLAYERS), kept in the game's per-thread scratch; sets the playout policy
        from `params` (the search's own first five, then the policy's weights)
    search_deal(t, n_players, state, opts, n, work, rng)
        a copy of the decision's state with everything the seat cannot see re-dealt (and
        other seats' secret choices re-chosen) from `rng`, its options opts[:n] pending
    search_seat(t, work) -> the seat deciding in the determinization
    search_key(t, work, i) -> int64: the action identity of row i of the pending decision
        (the same move in every re-deal)
    search_apply(t, n_players, work, i, rng)   play row i
    search_next(t, n_players, work, rng) -> n  play on to the next decision and list its
        options (n <= 0: the game is over)
    search_prefer(t, n_players, work, n, rng) -> the playout policy's own row of the
        pending decision (of the seat to play)
    search_playout(t, n_players, work, params, rng)   play on with the policy to the end,
        or for `params[2]` decisions
    search_end(t, n_players, work, keys, points)   the ranking keys and points reached

Each iteration re-deals, descends the tree of the seat's information sets by UCB over
availability counts (Cowling, Powley & Whitehouse 2012, open loop as in TAG: a node is a
sequence of moves, whatever chance did between them), adds one node, plays out with the
policy and backs up every seat's value (`playout_value`). A node widens progressively
(search_tree.width: 1 + sqrt(its visits) moves tried), the policy's own move first, then
the untried move the policy values most (`search_values`; at random without), so a
decision of 100 options spends a small budget on few moves rather than one noisy playout
each; the policy's own move starts `params[4]` ahead (as the rollout player's `prior`:
with few noisy playouts, the best-looking of several moves is often only the luckiest).
The budget is a number of iterations, so a decision is the same at any thread count.
A search stops early once its most-visited move leads every other by more than the
iterations left (`settled`): the choice and the seat's stream are those of the whole
budget, only cheaper.
Line numbers in numba errors are this file's.
"""
# ruff: noqa: F821  (the game's hooks arrive when `bind_search` compiles this)

import numpy as np
from numba import types
from numba.extending import overload

from simkit.kernels.jit import keep_alive, uncounted
from simkit.kernels.lookahead import playout_value
from simkit.kernels.search_tree import (
    AVAIL,
    MAX_ITERATIONS,
    PATH,
    ROOT_KEYS,
    ROW_VALUES,
    SEAT_VALUE,
    STREAM,
    VISITS,
    add_child,
    back_up,
    child,
    clear,
    most_visited,
    settled,
    ucb,
    width,
)
from simkit.rng import next_u64, randint


def search_choice(t, n_players, seat, state, opts, n, params, rng):
    """The search player's choice for `seat`: the row of `opts[:n]` searched most in
    `params[0]` iterations (exploration constant `params[1]`). A single option is taken
    without searching."""
    if n <= 1:
        return 0
    t, state = uncounted(t), uncounted(state)  # read at every step (jit.uncounted)
    owned = search_work(t, n_players, state, params)
    work, tree, ranking = uncounted(owned)
    iterations = min(max(np.int64(params[0] + 0.5), 1), MAX_ITERATIONS)
    explore, prior = params[1], params[4]
    clear(tree)
    path, stream, seat_value, values = tree[PATH], tree[STREAM], tree[SEAT_VALUE], \
        tree[ROW_VALUES]
    path[0] = 0
    for it in range(iterations):
        stream[0] = next_u64(rng)
        search_deal(t, n_players, state, opts, n, work, stream)
        if it == 0:
            for i in range(n):
                tree[ROOT_KEYS][i] = search_key(t, work, i)
        node, depth, m, fresh = 0, 1, n, False
        while True:
            s = search_seat(t, work)
            # UCB over the tried moves offered here (each counts as available); one
            # untried move (at random among them) kept in case the node may widen
            row, pick, key, untried, tried, best = -1, -1, np.int64(0), 0, 0, -np.inf
            for i in range(m):
                k = search_key(t, work, i)
                c = child(tree, node, k)
                if c < 0:
                    untried += 1
                    if untried == 1 or randint(stream, untried) == 0:
                        row = i
                else:
                    tried += 1
                    tree[AVAIL][c] += 1
                    score = ucb(tree, c, s, explore)
                    if score > best:
                        best, pick = score, i
            if untried > 0 and tried < width(tree[VISITS][node]):
                # widen: the policy's own move first, then the untried one it values
                # most, else the untried one drawn above
                own = search_prefer(t, n_players, work, m, stream)
                head = 0.0
                if child(tree, node, search_key(t, work, own)) < 0:
                    row, head = own, prior
                elif search_values(t, n_players, work, m, values):
                    best = -np.inf
                    for i in range(m):
                        if values[i] > best and child(tree, node, search_key(t, work, i)) < 0:
                            row, best = i, values[i]
                c = add_child(tree, node, search_key(t, work, row), head)
                search_apply(t, n_players, work, row, stream)
                if c >= 0:
                    path[depth] = c
                    depth += 1
                fresh = True
                break
            key = search_key(t, work, pick)
            search_apply(t, n_players, work, pick, stream)
            node = child(tree, node, key)
            path[depth] = node
            depth += 1
            m = search_next(t, n_players, work, stream)
            if m <= 0:
                break
        if fresh:
            search_playout(t, n_players, work, params, stream)
        search_end(t, n_players, work, ranking[0], ranking[1])
        for q in range(n_players):
            seat_value[q] = playout_value(ranking[0], ranking[1], q, n_players)
        back_up(tree, depth, n_players)
        left = iterations - 1 - it
        if left > 0 and settled(tree, left):
            # no move can overtake the most-visited one in the iterations left, so they
            # would not change the choice; their draws are still taken from the seat's
            # stream, so every later decision is the one the full search leads to
            for _ in range(left):
                next_u64(rng)
            break
    choice = most_visited(tree, n, seat)
    keep_alive(owned)  # the views above are of its arrays
    return choice


def searched(lookahead, t, n_players, seat, state, opts, n, params, rng):
    """`search_choice`, compiled only into the kernel variant whose `lookahead` is an
    integer (a seat plays the search player); 0 in the others, which never ask it."""


@overload(searched)
def _searched(lookahead, t, n_players, seat, state, opts, n, params, rng):
    if isinstance(lookahead, types.Integer):
        def impl(lookahead, t, n_players, seat, state, opts, n, params, rng):
            return search_choice(t, n_players, seat, state, opts, n, params, rng)
    else:
        def impl(lookahead, t, n_players, seat, state, opts, n, params, rng):
            return 0
    return impl
