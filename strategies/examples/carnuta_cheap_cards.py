"""A Carnuta plug-in strategy (README, "Your own strategies").

    simkit run carnuta --players 3 --games 20000 --seed 1 --out runs/cheap \
        --strategies strategies/examples/carnuta_cheap_cards.py:cheap_cards,greedy,random

Option table and `pub`: simkit/games/carnuta/layout.py.
"""

from simkit.games.carnuta.layout import (
    F1,
    F3,
    KIND,
    OPT_DISCARD,
    OPT_PLAY,
    OPT_RUNES,
    OPT_TAKE,
    OPT_TOKEN,
    POINTS,
    B,
)
from simkit.rng import randint


def cheap_cards(opts, n, pub, params, state):
    """Play the best-scoring card; otherwise take a card it can pay for now, cheapest
    first (then most points); otherwise take runes. Ties are broken at random, with the
    seat's own random stream, so runs stay reproducible."""
    best = 0
    best_score = -1.0e300
    ties = 0
    for i in range(n):
        kind = opts[i, KIND]
        if kind == OPT_PLAY:
            score = 1000.0 + opts[i, POINTS]
        elif kind == OPT_TAKE and opts[i, F1] == 1:
            score = 500.0 - 10.0 * opts[i, F3] + opts[i, POINTS]
        elif kind == OPT_RUNES:
            score = 100.0 + opts[i, B]
        elif kind == OPT_DISCARD:
            score = -float(opts[i, POINTS])
        elif kind == OPT_TOKEN:
            score = float(opts[i, POINTS])
        else:  # unpayable cards, flips, sickles, end of turn, pass
            score = 0.0
        if score > best_score:
            best_score = score
            best = i
            ties = 1
        elif score == best_score:
            ties += 1
            if randint(state, ties) == 0:  # each tied row equally likely
                best = i
    return best
