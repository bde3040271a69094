"""What a half-played Inori game is worth to each seat: how the search player judges a
playout it cut short (play.search_end; `search.horizon`), in points."""

from __future__ import annotations

import numpy as np

from simkit.kernels.jit import njit_with_refcounts

from .layout import CARD_COLOUR, N_SLOTS, S_CARD, SEASON, slot_at
from .scoring import end_game, final_score, free_spaces, held, score_card, seats_on_card


@njit_with_refcounts
def outlook(t, n_players, pub, ended, cnt, done, trace, weight, values):
    """values[q]: seat q's final score if the game ended now (every card scored as the
    season's end would, then the majorities: the rules' own score_card and end_game, played
    on `ended`, a copy of `pub`; `cnt` and `done` take their counts) plus `weight` times
    the tokens it holds of the colour of each incomplete card it is on, over 1 + the card's
    free spaces (the planner's odds that a card completes, as its colour_values)."""
    ended[:] = pub
    season = pub[SEASON]
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        if c >= 0:
            score_card(t, ended, n_players, i, c, cnt, done, trace, False, season)
    end_game(t, ended, n_players, cnt, trace, False)
    for q in range(n_players):
        values[q] = final_score(t, ended, q)
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        free = free_spaces(t, pub, i)
        if c < 0 or free == 0:
            continue
        seats = seats_on_card(t, pub, i)
        x = t.card[c, CARD_COLOUR]
        for q in range(n_players):
            if seats >> (q + 1) & 1:
                values[q] += weight * held(pub, q, x) / (1.0 + free)


@njit_with_refcounts
def judge(t, n_players, pub, ended, cnt, done, trace, weight, values, keys, points):
    """The seats ranked by `outlook` (keys in 1/1024 points), and their points rounded;
    `weight` is the planner's `complete_weight` (the search's policy's if it is the planner,
    else the planner's default: play.search_end)."""
    outlook(t, n_players, pub, ended, cnt, done, trace, weight, values)
    for q in range(n_players):
        keys[q] = np.int64(values[q] * 1024.0)
        points[q] = np.int64(values[q] + 0.5)
