"""Cauldron Master's option tables: the legal options of each decision, one row each, with
the features strategies read (columns: layout.py). Building a table changes no state (it
works in hid's work slots only)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (COUNTS, FREE, GAIN, KIND, LIMITS_LEFT, MAX_COLOURS, MAX_RECIPES, MAX_TYPES,
                     N_COLS, OFFER, OPT_CARD, OPT_RECIPE, OPT_STOP, OPT_WITCH, PHASE, PHASE_WITCH,
                     PICKS_LEFT, POINTS, RECIPE, RE_BONUS, RU_BAN_SEAT, RU_BAN_TYPE, RU_BAN_WITCH,
                     RU_CAP, RU_CAULDRONS, RU_COLOURS, RU_COMPULSORY, SAME, SEAT, SUPPLY, TAKEN,
                     TY_COLOUR, TY_ORDER, TY_SCORE, WITCH_NOW, WI_INIT, WI_LIMIT, WI_MAX, A, B,
                     cauldron_at, fill_at, hand_at)
from .scoring import colour_counts, potion_points, recipe_fits, recipe_points


@njit(cache=True, inline="always")
def pending_options(t, pub, hid, opts):
    """The options of the decision `pub` waits for: seat pub[SEAT]'s witch (phase 1) or its
    next card (phase 3; none when its witch may take nothing more). Works in hid's work
    slots (layout.py); reads nothing else of it."""
    offer = hid[OFFER:OFFER + MAX_TYPES]
    if pub[PHASE] == PHASE_WITCH:
        return witch_options(t, pub, pub[SEAT], opts, hid[LIMITS_LEFT:LIMITS_LEFT + MAX_COLOURS],
                             offer)
    return card_options(t, pub, pub[SEAT], pub[WITCH_NOW], opts,
                        hid[COUNTS:COUNTS + MAX_COLOURS], offer)


@njit(cache=True, inline="always")
def witch_options(t, pub, p, opts, rem, offer):
    """Phase 1 options for seat p: each witch in hand, with what it could take right now."""
    n_offer = 0  # types in the supply, most valuable first (branch-free: fewer mispredictions)
    banned = t.rules[RU_BAN_TYPE] if p == t.rules[RU_BAN_SEAT] else -1
    for i in range(t.types.shape[0]):
        x = t.types[i, TY_ORDER]
        offer[n_offer] = x
        n_offer += (pub[SUPPLY + x] > 0) & (x != banned)
    free = 0
    for k in range(t.rules[RU_CAULDRONS]):
        free += t.rules[RU_CAP + k] - pub[fill_at(p, k)]
    n = 0
    for w in range(t.witch.shape[0]):
        if pub[hand_at(p, w)] == 0:
            continue
        for c in range(t.rules[RU_COLOURS]):
            rem[c] = t.witch[w, WI_LIMIT + c]
        limit = min(t.witch[w, WI_MAX], free)
        if p == t.rules[RU_BAN_SEAT] and w == t.rules[RU_BAN_WITCH]:
            limit = 0  # blanked for this seat (restricted play): it takes nothing
        taken = 0
        value = 0
        for i in range(n_offer):
            if taken >= limit:
                break
            x = offer[i]
            c = t.types[x, TY_COLOUR]
            m = max(0, min(pub[SUPPLY + x], rem[c], limit - taken))
            taken += m
            rem[c] -= m
            value += m * t.types[x, TY_SCORE + 1]
        opts[n, KIND] = OPT_WITCH
        opts[n, A] = w
        opts[n, B] = t.witch[w, WI_INIT]
        opts[n, POINTS] = taken
        opts[n, GAIN] = value
        opts[n, SAME] = 0
        opts[n, FREE] = 0
        n += 1
    return n


@njit(cache=True, inline="always")
def card_options(t, pub, p, w, opts, counts, offer):
    """Phase 3 options for seat p playing witch w: each (cauldron, ingredient) it may take."""
    n = 0
    n_offer = 0  # types in the supply that this witch may still take (branch-free)
    banned = t.rules[RU_BAN_TYPE] if p == t.rules[RU_BAN_SEAT] else -1
    blank = p == t.rules[RU_BAN_SEAT] and w == t.rules[RU_BAN_WITCH]  # takes nothing
    for x in range(t.types.shape[0]):
        c = t.types[x, TY_COLOUR]
        offer[n_offer] = x
        n_offer += ((pub[SUPPLY + x] > 0) & (pub[TAKEN + c] < t.witch[w, WI_LIMIT + c])
                    & (x != banned) & (not blank))
    if pub[PICKS_LEFT] > 0 and n_offer > 0:
        for k in range(t.rules[RU_CAULDRONS]):
            fill = pub[fill_at(p, k)]
            if fill >= t.rules[RU_CAP + k]:
                continue
            completes = fill + 1 == t.rules[RU_CAP + k]
            base_points = 0
            if completes:
                base_points = potion_points(t, pub, p, k, -1)
                colour_counts(t, pub, p, k, counts)
            for i in range(n_offer):
                x = offer[i]
                same = pub[cauldron_at(p, k, x)] + 1
                gain = t.types[x, TY_SCORE + same] - t.types[x, TY_SCORE + same - 1]
                points = 0
                if completes:
                    points = base_points + gain + recipe_points(t, pub, p, k, x, counts, fill + 1)
                opts[n, KIND] = OPT_CARD
                opts[n, A] = x
                opts[n, B] = k
                opts[n, POINTS] = points
                opts[n, GAIN] = gain
                opts[n, SAME] = same
                opts[n, FREE] = t.rules[RU_CAP + k] - fill - 1
                n += 1
    if n > 0 and not t.rules[RU_COMPULSORY]:
        opts[n, KIND] = OPT_STOP
        opts[n, A] = -1
        opts[n, B] = -1
        for col in range(POINTS, N_COLS):
            opts[n, col] = 0
        n += 1
    return n


@njit(cache=True, inline="always")
def recipe_options(t, pub, p, k, opts, counts, size):
    """Phase 4 options for seat p's full cauldron k (`counts`: its colour counts, `size`:
    its cards): each recipe of p's card that matches it and is worth a bonus, by its
    place on the card (options.recipe_choice = "player" asks when there are two or more)."""
    card = pub[RECIPE + p]
    points = potion_points(t, pub, p, k, -1)
    n = 0
    for j in range(MAX_RECIPES):
        bonus = t.recipe[card, j, RE_BONUS]
        if bonus > 0 and recipe_fits(t, pub, card, j, p, k, -1, counts, size):
            opts[n, KIND] = OPT_RECIPE
            opts[n, A] = j
            opts[n, B] = k
            opts[n, POINTS] = points + bonus
            opts[n, GAIN] = bonus
            opts[n, SAME] = 0
            opts[n, FREE] = 0
            n += 1
    return n


@njit(cache=True, inline="always")
def action_key(t, opts, i):
    """Row i's move, for the search player's tree (the game API's `action_key`): its kind,
    witch or ingredient type and cauldron (or recipe), without the columns that change
    with what the seat cannot see."""
    row = opts[i]
    return (np.int64(row[KIND]) * 64 + row[A] + 1) * 64 + row[B] + 1
