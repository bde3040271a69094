"""Cauldron Master's scoring: what a potion is worth (score table and recipe bonus), each
seat's final score (with its seat compensation) and how the seats rank at the end. Pure
functions of the state: the rules, the option tables and the lookahead all score through
them."""

from __future__ import annotations

from numba import njit

from .layout import (CT_POTIONS, HECATE, MAX_PLAYERS, MAX_RECIPES, N_PLAYERS, RE_BONUS, RE_CTOTAL,
                     RE_NCOUNT, RE_NLEN, RE_NTYPE, RE_SIZE, RECIPE, RU_COLOURS, RU_COMP, RU_EXACT,
                     RU_HALF, RU_TIE_BREAK, SCORE, TIE_HECATE, TIE_POTIONS, TY_COLOUR, TY_SCORE,
                     cauldron_at)


@njit(cache=True, inline="always")
def potion_points(t, pub, p, k, extra):
    """Score-table points of cauldron k of seat p, plus one card of type `extra` (-1: none)."""
    base = cauldron_at(p, k, 0)
    pts = 0
    for x in range(t.types.shape[0]):
        n = pub[base + x] + (1 if x == extra else 0)
        if n > 0:
            pts += t.types[x, TY_SCORE + n]
    return pts


@njit(cache=True, inline="always")
def colour_counts(t, pub, p, k, counts):
    """Cards of each colour in cauldron k of seat p, into `counts`."""
    base = cauldron_at(p, k, 0)
    for c in range(t.rules[RU_COLOURS]):
        counts[c] = 0
    for x in range(t.types.shape[0]):
        counts[t.types[x, TY_COLOUR]] += pub[base + x]


@njit(cache=True, inline="always")
def recipe_fits(t, pub, card, j, p, k, extra, counts, size):
    """Does recipe j of recipe card `card` match cauldron k of seat p (+ card `extra`, -1:
    none)?

    `counts` are the cauldron's colour counts without `extra`; `size` its cards with it.
    A recipe matches if the potion holds its specific ingredients and, per colour, at
    least as many cards as its icons and ingredients of that colour need ("contains"),
    and with options.recipe_match = "exact" nothing else. The bonus is not looked at.
    """
    need = t.recipe[card, j, RE_SIZE]
    if size < need or (t.rules[RU_EXACT] and size != need):
        return False
    base = cauldron_at(p, k, 0)
    for i in range(t.recipe[card, j, RE_NLEN]):
        x = t.recipe[card, j, RE_NTYPE + i]
        if pub[base + x] + (1 if x == extra else 0) < t.recipe[card, j, RE_NCOUNT + i]:
            return False
    for c in range(t.rules[RU_COLOURS]):
        plus = 1 if extra >= 0 and t.types[extra, TY_COLOUR] == c else 0
        if counts[c] + plus < t.recipe[card, j, RE_CTOTAL + c]:
            return False
    return True


@njit(cache=True, inline="always")
def best_recipe(t, pub, p, k, extra, counts, size):
    """(place on the card, bonus) of the recipe of seat p's card with the highest bonus
    that matches cauldron k (+ card `extra`, -1: none), the first among equal bonuses;
    (-1, 0) if none matches (`recipe_fits`). A recipe with bonus 0 never scores."""
    card = pub[RECIPE + p]
    best = -1
    best_bonus = 0
    for j in range(MAX_RECIPES):
        bonus = t.recipe[card, j, RE_BONUS]
        if bonus > best_bonus and recipe_fits(t, pub, card, j, p, k, extra, counts, size):
            best = j
            best_bonus = bonus
    return best, best_bonus


@njit(cache=True, inline="always")
def recipe_points(t, pub, p, k, extra, counts, size):
    """Best single recipe bonus seat p's card gives cauldron k (+ card `extra`, -1: none):
    `best_recipe`'s bonus, 0 if no recipe matches."""
    return best_recipe(t, pub, p, k, extra, counts, size)[1]


@njit(cache=True, inline="always")
def final_score(t, pub, s):
    """Seat s's final score: its Spell Points (incomplete cauldrons score nothing) plus its
    seat compensation (compensation.points; 0 in the published game). Never part of
    `pub`, so no strategy sees it during the game."""
    return pub[SCORE + s] + t.rules[RU_COMP + s]


@njit(cache=True, inline="always")
def points(t, pub, hid, cnt, s):
    """Seat s's score column at the end, as the game API asks: `final_score`."""
    return final_score(t, pub, s)


@njit(cache=True, inline="always")
def ranking_key(t, n_players, pub, hid, cnt, s):
    """What ranks seat s at the end: its final score (final_score) plus its half point of
    compensation (compensation.half, 0 or 1: counted as 2 x score + half, so it only breaks
    ties on the final score), then by options.tie_break: the potions brewed
    ("most_potions"), or the Favour of Hecate ("hecate": its holder, then the nearest seat
    clockwise, as for initiative ties). With every half 0 the order is final score, then
    tie-break, as without it."""
    doubled = 2 * final_score(t, pub, s) + t.rules[RU_HALF + s]
    rule = t.rules[RU_TIE_BREAK]
    if rule == TIE_POTIONS:
        return doubled * 256 + cnt[s, CT_POTIONS]
    if rule == TIE_HECATE:
        n = pub[N_PLAYERS]
        return doubled * 256 + MAX_PLAYERS - (s - pub[HECATE] + n) % n
    return doubled * 256
