"""strategies/ties.py in plain Python, written from its documentation: the best row; equal
rows (to 1e-9 relative) settled at random, the k-th equal row taking the place with one
draw of randint(k), unless `ties` is 1 (the first row)."""

from __future__ import annotations

from collections.abc import Sequence

from simkit.rng import PyStream


def best_row(scores: Sequence[float], ties: float, stream: PyStream) -> int:
    best, best_score, seen = 0, -1e300, 0
    for i, score in enumerate(scores):
        if ties < 0.5 and abs(score - best_score) <= 1e-9 * (1.0 + abs(score)):
            seen += 1
            if stream.randint(seen) == 0:
                best = i
        elif score > best_score:
            best, best_score, seen = i, score, 1
    return best


def compiled_choice(planner, opts, n: int, pub, tables, vec, stream: PyStream) -> int:
    """A compiled strategy function's choice, drawing its ties from `stream` (advanced as
    the kernel advances the seat's stream)."""
    import numpy as np

    state = np.array([stream.state], np.uint64)
    chosen = int(planner(opts, n, pub, tables, vec, state))
    stream.state = int(state[0])
    return chosen
