"""The rollout player, written once for every game: the one lookahead over the rules.

This file is a template, not an importable module: `simkit.kernels.templates.bind_rollout`
compiles it into a game's `play.py` namespace (as open_spiel's one MCTS evaluator serves
every game through clone + apply), where these hooks are the game's own:

    rollout_work(t, n_players, state, params)   -> (work, total, ranking)
        the playouts' arrays and policy; a sum per option row (float64, MAX_OPTIONS) and
        a playout's ranking keys and points (int64, 2 x MAX_PLAYERS), kept in the game's
        scratch where it has one
    rollout_candidates(t, n_players, state, opts, n, params, rng, work, cand, head) -> k
        the rows worth playing out, cand[:k], with what the seat may know of hidden
        piles noted in `work`; each row's head start per rollout in head[:k] (0: none).
        k == 0: cand[0] is the choice, without playouts.
    rollout_deal(t, n_players, state, work, rng)
        re-deal what the seat cannot see, with the seat's own stream
    rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work, keys, points)
        from the dealt state, candidate i of k, then the rest of the game (or the horizon)
        with every seat played by the policy; the end's ranking keys and points

`state` is the game's own tuple of the arrays a decision is made from. The hooks play with
the game's `apply_option`, `next_decision` and `ask`, so the rollout player plans with
exactly the rules the game is played by. Line numbers in numba errors are this file's.
"""
# ruff: noqa: F821  (the game's hooks arrive when `bind_rollout` compiles this)

import numpy as np

from simkit.kernels.jit import keep_alive, uncounted
from simkit.kernels.lookahead import playout_value


def rollout_choice(t, n_players, seat, state, opts, n, params, rng):
    """The rollout player's choice for `seat`: the row of `opts[:n]` whose playouts score
    best. Each of `params[0]` rollouts re-deals what the seat cannot see and plays every
    candidate forward on that same deal (common random numbers, so candidates are compared
    on equal luck). A playout's value is the seat's win share plus 0.001 per point of
    margin over the best other seat (`playout_value`); the best total wins, a candidate's
    head start counted once per rollout (ties: the earlier row)."""
    t, state = uncounted(t), uncounted(state)  # read at every step (jit.uncounted)
    cand = np.zeros(n, np.int64)
    head = np.zeros(n, np.float64)
    owned = rollout_work(t, n_players, state, params)
    work, total, ranking = uncounted(owned)
    total[:n] = 0.0
    k = rollout_candidates(t, n_players, state, opts, n, params, rng, work, cand, head)
    if k == 0:
        return cand[0]
    n_rollouts = max(1, np.int64(params[0] + 0.5))
    for _ in range(n_rollouts):
        rollout_deal(t, n_players, state, work, rng)
        for i in range(k):
            rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work,
                         ranking[0], ranking[1])
            total[i] += playout_value(ranking[0], ranking[1], seat, n_players)
    for i in range(k):
        total[i] += head[i] * n_rollouts
    best = 0
    for i in range(1, k):
        if total[i] > total[best]:
            best = i
    keep_alive(owned)  # the views above are of its arrays
    return cand[best]
