"""An Inori plug-in strategy (README, "Your own strategies").

    simkit run inori --players 3 --games 20000 --seed 1 --out runs/hoarder \
        --strategies strategies/examples/inori_hoarder.py:hoarder,greedy,random

Option table and `pub`: simkit/games/inori/layout.py.
"""

from simkit.games.inori.layout import (
    F1,
    F2,
    F4,
    KIND,
    OPT_BLOCK,
    OPT_CARD,
    OPT_COLOUR,
    OPT_NO_RUNE,
    OPT_PASS,
    OPT_RUNE,
    OPT_TILE,
    OPT_TREE,
    POINTS,
)


def hoarder(opts, n, pub, params, state):
    """Hoard Favor tokens of the colours it already collects, for the majorities: an
    offering is worth its points, 2 per token it gives, 3 if it completes a card, and a
    little more the more tokens of that colour it holds; take the colour held most."""
    best = 0
    best_score = -1.0e300
    for i in range(n):
        kind = opts[i, KIND]
        if kind in (OPT_CARD, OPT_TREE, OPT_TILE):
            score = opts[i, POINTS] + 2.0 * opts[i, F1] + 3.0 * opts[i, F2] + 0.25 * opts[i, F4]
        elif kind == OPT_COLOUR:
            score = float(opts[i, POINTS])
        elif kind == OPT_RUNE:
            score = 2.0 * opts[i, F1]
        elif kind in (OPT_NO_RUNE, OPT_PASS):
            score = 0.5
        elif kind == OPT_BLOCK:
            score = -3.0 * opts[i, POINTS] - opts[i, F2]  # do not block own cards
        else:  # moves, New Start cards: the first row
            score = -float(i)
        if score > best_score:
            best_score = score
            best = i
    return best
