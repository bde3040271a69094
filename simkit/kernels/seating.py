"""Seating a run's strategies: each game's seed and which strategy sits where (rotated over
shared deals), and the ranking every game ends with."""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.rng import game_seed


@njit(cache=True)
def seat_buffers(n_players, strategy_params):
    """The (strategy ids, strategy parameters) arrays prepare_game fills, one per thread."""
    return (np.empty(n_players, np.int64),
            np.empty((n_players, strategy_params.shape[1]), np.float64))


@njit(cache=True)
def prepare_game(n_players, master_seed, game, lineup, rotate, strategy_ids, strategy_params,
                 strategy_out, row, sids, params):
    """Seed of game `game` of a run; fills each seat's strategy id and params into sids
    and params (seat_buffers: reused across games, not allocated per game).

    When `rotate`, the run's strategies rotate through the seats over each deal: games
    n*d .. n*d + n-1 share deal d (common random numbers), game n*d + r shifting by r.
    Writes each seat's strategy index into strategy_out[row].
    """
    deal = game // n_players if rotate else game
    shift = game % n_players if rotate else 0
    for s in range(n_players):
        index = lineup[(s + shift) % n_players]
        sids[s] = strategy_ids[index]
        params[s] = strategy_params[index]
        strategy_out[row, s] = index
    return game_seed(np.uint64(master_seed), np.uint64(deal))


@njit(cache=True, inline="always")
def rank_seats(keys, n_players, rank, share):
    """The end of every game: rank[s] = 1 + seats with a higher key (equal keys share a
    rank), and share[s] = 1/k of the win for each of the k seats ranked first."""
    winners = 0
    for s in range(n_players):
        better = 0
        for q in range(n_players):
            if keys[q] > keys[s]:
                better += 1
        rank[s] = better + 1
        if better == 0:
            winners += 1
    for s in range(n_players):
        share[s] = np.float32(1.0 / winners) if rank[s] == 1 else np.float32(0.0)
