"""Carnuta scoring and rune-cost helpers, shared by the kernel and the strategies.

Scoring lines (rule text, "Scoring"): set3 / set2 = points per set of the listed
ingredients; each / two_types = points per ingredient of the listed types; own = points
per ingredient of the card's column (itself included); flat5 / flat2 = flat points.
Counts are a player's column counts in `pub` (Double 2, Salt 1, Bonus tokens 1).
"""

from __future__ import annotations

from numba import njit

from .layout import (CARD_AMOUNT, CARD_COST, CARD_ING, CARD_KIND, CARD_MULT, CARD_POINTS,
                     CARD_SALT_BASE, CARD_SCORE, CARD_SCORE_ING, CARD_SCORE_N, CT_BEST, CT_SCORE,
                     EACH, F1, FLAT2, FLAT5, KIND, MAX_TYPES, MOON_FLIP, MOON_RETURN, OPT_DISCARD,
                     OPT_FLIP, OPT_PLAY, OPT_RUNES, OPT_SICKLE, OPT_TAKE, OPT_TOKEN, OWN, P_CARDS,
                     P_COLUMN, P_COUNT, P_N_CARDS, POINTS, R_COMP, R_HALF, R_N_TYPES, R_TIE_BEST,
                     SALT, SUN_FLIP, SUN_RETURN, TWO_TYPES, B, player_at)


@njit(cache=True, inline="always")
def count_of(pub, cb, x, ex, en):
    """Ingredients of type x at count base cb, plus en if x == ex."""
    return pub[cb + x] + (en if x == ex else 0)


@njit(cache=True, inline="always")
def card_points(cd, pub, cb, c, col, ex, en):
    """Points of card c in column col, counts from pub[cb:] plus en of type ex."""
    k = cd[c, CARD_SCORE]
    pts = cd[c, CARD_POINTS]
    if k == FLAT5 or k == FLAT2:  # noqa: SIM109 (numba: a tuple test is slow)
        return pts
    if k == OWN:
        return pts * count_of(pub, cb, col, ex, en)
    n = cd[c, CARD_SCORE_N]
    if k == EACH or k == TWO_TYPES:  # noqa: SIM109
        s = 0
        for i in range(n):
            s += count_of(pub, cb, cd[c, CARD_SCORE_ING + i], ex, en)
        return pts * s
    # SET3 / SET2: one set per copy of every listed ingredient (a set may repeat one).
    sets = 1 << 30
    for i in range(n):
        v = count_of(pub, cb, cd[c, CARD_SCORE_ING + i], ex, en) // cd[c, CARD_MULT + i]
        if v < sets:
            sets = v
    return pts * sets


@njit(cache=True)
def tableau_points(cd, pub, p, ex, en):
    """Score of seat p's tableau with en more ingredients of type ex (en = 0: as is)."""
    cb = player_at(p, P_COUNT)
    base = player_at(p, 0)
    total = 0
    for i in range(pub[base + P_N_CARDS]):
        total += card_points(cd, pub, cb, pub[base + P_CARDS + i], pub[base + P_COLUMN + i],
                             ex, en)
    return total


@njit(cache=True)
def gain_table(cd, pub, p, cache, has):
    """Before a decision: cache[3 * x + a] = what seat p's tableau gains from a more
    ingredients of type x (a = 1, 2; layout.GAIN_SIZE), and has[x] = 1 if column x holds
    a card a Salt may be stacked on (an ingredient card; the starting card by
    options.salt_on_starting_card).

    One pass over the tableau: linear lines (each, two_types, own) add points * a, set
    lines the difference in complete sets.
    """
    base = player_at(p, 0)
    cb = base + P_COUNT
    for x in range(has.shape[0]):
        has[x] = 0
        cache[3 * x] = 0
        cache[3 * x + 1] = 0
        cache[3 * x + 2] = 0
    for i in range(pub[base + P_N_CARDS]):
        c = pub[base + P_CARDS + i]
        col = pub[base + P_COLUMN + i]
        if cd[c, CARD_SALT_BASE]:
            has[col] = 1
        k = cd[c, CARD_SCORE]
        pts = cd[c, CARD_POINTS]
        if k == FLAT5 or k == FLAT2:  # noqa: SIM109 (numba: a tuple test is slow)
            continue
        if k == OWN:
            cache[3 * col + 1] += pts
            cache[3 * col + 2] += 2 * pts
        elif k == EACH or k == TWO_TYPES:  # noqa: SIM109
            for j in range(cd[c, CARD_SCORE_N]):
                x = cd[c, CARD_SCORE_ING + j]
                cache[3 * x + 1] += pts
                cache[3 * x + 2] += 2 * pts
        else:
            # Sets: complete sets now, and with a more of each listed ingredient.
            n = cd[c, CARD_SCORE_N]
            now = 1 << 30
            for j in range(n):
                v = pub[cb + cd[c, CARD_SCORE_ING + j]] // cd[c, CARD_MULT + j]
                if v < now:
                    now = v
            for j in range(n):
                x = cd[c, CARD_SCORE_ING + j]
                seen = False
                for q in range(j):
                    seen = seen or cd[c, CARD_SCORE_ING + q] == x
                if seen:
                    continue  # a repeated ingredient: counted once
                for a in range(1, 3):
                    sets = 1 << 30
                    for q in range(n):
                        y = cd[c, CARD_SCORE_ING + q]
                        v = (pub[cb + y] + (a if y == x else 0)) // cd[c, CARD_MULT + q]
                        if v < sets:
                            sets = v
                    cache[3 * x + a] += pts * (sets - now)


@njit(cache=True, inline="always")
def play_gain(cd, pub, p, c, col, cache):
    """Score gain of seat p playing card c into column col (cost ignored; after gain_table)."""
    a = cd[c, CARD_AMOUNT]
    return cache[3 * col + a] + card_points(cd, pub, player_at(p, P_COUNT), c, col, col, a)


@njit(cache=True)
def best_gain(cd, pub, p, c, cache, has):
    """(best gain, its column) of playing card c now; Salt picks its best column."""
    if cd[c, CARD_KIND] != SALT:
        x = cd[c, CARD_ING]
        return play_gain(cd, pub, p, c, x, cache), x
    best = -(1 << 30)
    col = -1
    for x in range(has.shape[0]):
        if has[x]:
            g = play_gain(cd, pub, p, c, x, cache)
            if g > best:
                best = g
                col = x
    if col < 0:
        return 0, -1
    return best, col


@njit(cache=True, inline="always")
def can_pay(cd, c, sun, moon):
    """Each icon is paid by a different rune showing its side."""
    return (sun >= cd[c, CARD_COST + SUN_FLIP] + cd[c, CARD_COST + SUN_RETURN]
            and moon >= cd[c, CARD_COST + MOON_FLIP] + cd[c, CARD_COST + MOON_RETURN])


@njit(cache=True, inline="always")
def unpaid(cd, c, sun, moon):
    """Cost icons seat's runes cannot cover now."""
    return (max(0, cd[c, CARD_COST + SUN_FLIP] + cd[c, CARD_COST + SUN_RETURN] - sun)
            + max(0, cd[c, CARD_COST + MOON_FLIP] + cd[c, CARD_COST + MOON_RETURN] - moon))




@njit(cache=True)
def final_score(t, pub, s, cols):
    """Seat s's final score (its cards' points plus its seat compensation,
    compensation.points: 0 in the published game) and its most points in one ingredient
    (the tiebreaker); cols[:MAX_TYPES] gets the points per column, cols[MAX_TYPES + i] its
    i-th card's (neither includes the compensation)."""
    cd = t.card
    base = player_at(s, 0)
    for x in range(MAX_TYPES):
        cols[x] = 0
    total = 0
    for i in range(pub[base + P_N_CARDS]):
        c = pub[base + P_CARDS + i]
        col = pub[base + P_COLUMN + i]
        pts = card_points(cd, pub, base + P_COUNT, c, col, -1, 0)
        cols[MAX_TYPES + i] = pts
        total += pts
        cols[col] += pts
    best = 0
    for x in range(t.rules[R_N_TYPES]):
        best = max(best, cols[x])
    return total + t.rules[R_COMP + s], best


@njit(cache=True, inline="always")
def points(t, pub, hid, cnt, s):
    """Seat s's final score, as final scoring recorded it (rules.final_scoring)."""
    return cnt[s, CT_SCORE]


@njit(cache=True, inline="always")
def ranking_key(t, n_players, pub, hid, cnt, s):
    """What ranks seat s at the end of the game: `score_key` of the final score and most
    points in one ingredient that final scoring recorded."""
    return score_key(t, s, cnt[s, CT_SCORE], cnt[s, CT_BEST])


@njit(cache=True, inline="always")
def score_key(t, s, total, best):
    """What ranks seat s at the end: its final score `total` plus its half point of
    compensation (compensation.half, 0 or 1: counted as 2 x total + half, so it only breaks
    ties on the final score), then (options.tie_break) its most points in one ingredient.
    With every half 0 the order is score, then tie-break, as without it."""
    doubled = 2 * total + t.rules[R_HALF + s]
    return doubled * 4096 + (best if t.rules[R_TIE_BEST] else 0)


# ---------------------------------------------------------------- worth of a row
# greedy's value of an option row from its own columns: the rollout player ranks its
# candidates by it (play.py); greedy plays by the same values, written out
# (strategies/carnuta.py; tests/test_strategies.py checks they agree).
@njit(cache=True, inline="always")
def greedy_score(opts, i, params):
    """greedy's value of option row i (the rollout player ranks its candidates by it)."""
    kind = opts[i, KIND]
    if kind == OPT_PLAY:
        score = params[0] * opts[i, POINTS] + 0.5
    elif kind == OPT_TAKE:
        score = params[1] * opts[i, POINTS] * (1.0 if opts[i, F1] else 0.5)
    elif kind == OPT_RUNES:
        score = params[2] * opts[i, B]
    elif kind == OPT_FLIP:
        score = 0.05
    elif kind == OPT_SICKLE:
        score = -1.0
    elif kind == OPT_DISCARD:
        score = -float(opts[i, POINTS])
    elif kind == OPT_TOKEN:
        score = float(opts[i, POINTS])
    else:  # end of turn, pass
        score = 0.0
    return score
