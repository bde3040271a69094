"""The lookahead pieces every game's rollout player (simkit/kernels/rollout.py) shares:
what a playout is worth, and what a seat may know of a hidden pile."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def playout_value(keys, points, seat, n_players):
    """What a playout is worth to `seat` (every game's rollout player scores its playouts
    so): its win share by `keys` (higher ranks first, equal keys share the win) plus 0.001
    per point of `points` over the best other seat."""
    better = 0
    level = 0
    best_other = -(1 << 30)
    for q in range(n_players):
        if q == seat:
            continue
        better += keys[q] > keys[seat]
        level += keys[q] == keys[seat]
        best_other = max(best_other, points[q])
    value = 0.001 * (points[seat] - best_other)
    if better == 0:
        value += 1.0 / (level + 1)
    return value


@njit(cache=True)
def canonical(src, lo, hi, dst):
    """dst[:hi - lo] = the cards src[lo:hi] sorted: what a lookahead player may know of a
    hidden pile is its contents, not its order. Returns hi - lo."""
    m = max(hi - lo, 0)
    dst[:m] = np.sort(src[lo:lo + m])
    return m
