"""Ties between equally valued options: one of them uniformly at random, or the first row.

Every built-in strategy (and the kernels where they choose for a strategy, e.g. a greedy
seat's fused option tables) keeps its best row with `contest`, one option row at a time.
Drawn at random, a tie is settled reservoir style: the k-th row found equal to the best
replaces it with probability 1/k, so each of the tied rows is kept with probability 1/k
overall, and the seat's stream is drawn only when a tie occurs (a game without ties
plays as with the first-row rule). Scores are computed in floating point, so "equal"
is equal to TOLERANCE relative to the score: two sums of the same terms in another order
differ in the last bits.
"""

from __future__ import annotations

from numba import njit

from simkit.rng import randint

TOLERANCE = 1e-9  # relative: scores this close are equal


@njit(cache=True, inline="always")
def at_random(ties: float) -> bool:
    """True when the `ties` parameter asks for ties drawn at random (0), not the first row."""
    return ties < 0.5


@njit(cache=True, inline="always")
def tied(score, best_score):
    """True when `score` equals `best_score` (to TOLERANCE relative)."""
    return abs(score - best_score) <= TOLERANCE * (1.0 + abs(score))


@njit(cache=True, inline="always")
def may_win(score, best_score, random_ties):
    """False when a row of this score cannot become the choice (callers skip costly work)."""
    if random_ties:
        return score > best_score or tied(score, best_score)
    return score > best_score


@njit(cache=True, inline="always")
def contest(score, best_score, seen, random_ties, rng):
    """A row of value `score` against the best so far (`best_score`, found `seen` times).
    Returns (the row is the choice now, the best score, how often it was found). With
    `random_ties` a row equal to the best replaces it with probability 1/seen (drawn from
    `rng`); otherwise only a higher score does (the first row among equals stays)."""
    if random_ties:
        if tied(score, best_score):
            seen += 1
            return randint(rng, seen) == 0, best_score, seen
        if score > best_score:
            return True, score, 1
        return False, best_score, seen
    if score > best_score:
        return True, score, 1
    return False, best_score, seen
