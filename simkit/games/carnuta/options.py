"""Carnuta's option tables: the legal options of each decision, one row each, with the
features strategies read (columns: layout.py). Building a table changes nothing in the
game but the caches in `hid`: each seat's score gains are kept until its tableau changes
(its version, hid[VERSION + p]; layout.py)."""

from __future__ import annotations

from numba import njit

from simkit.kernels.jit import njit_without_refcounts

from .layout import (BUILT, CARD_COST, CARD_ICONS, CARD_ING, CARD_KIND, DISPLAY, F1, F2, F3, KIND,
                     MOON_FLIP, MOON_RETURN, N_COLS, N_SLOTS, OPT_DISCARD, OPT_END, OPT_FLIP,
                     OPT_PASS, OPT_PLAY, OPT_RUNES, OPT_SICKLE, OPT_TAKE, OPT_TOKEN, P_HAND,
                     P_HAND_N, P_MOON, P_OPEN, P_PLAYED, P_SICKLES, P_SUN, POINTS, R_BAN_CARD,
                     R_BAN_SEAT, R_BAN_TOKEN, RESERVE, SALT, SLOTS_PER_ROW, SUN, SUN_FLIP,
                     SUN_RETURN, TOKENS, VERSION, A, B, C, gains_of, has_of, memo_of, player_at)
from .scoring import best_gain, can_pay, gain_table, play_gain, unpaid


@njit(cache=True, inline="always")
def set_row(opts, n, kind, a, b, c, points, f1, f2, f3):
    opts[n, KIND] = kind
    opts[n, A] = a
    opts[n, B] = b
    opts[n, C] = c
    opts[n, POINTS] = points
    opts[n, F1] = f1
    opts[n, F2] = f2
    opts[n, F3] = f3


@njit(cache=True, inline="always")
def fresh_gains(cd, pub, hid, p):
    """Seat p's gain table and Salt columns (`gain_table`), rebuilt if its tableau changed
    since they were built."""
    if hid[BUILT + p] != hid[VERSION + p]:
        rebuild_gains(cd, pub, hid, p)
    return gains_of(hid, p), has_of(hid, p)


# rebuild_gains and salt_gain are called, not inlined: the turn loop would copy them at two
# or three places each (tests/test_architecture.py's cap), for work done now and then.
@njit_without_refcounts
def rebuild_gains(cd, pub, hid, p):
    """Seat p's gain table and Salt columns built anew for its tableau's version."""
    gain_table(cd, pub, p, gains_of(hid, p), has_of(hid, p))
    hid[BUILT + p] = hid[VERSION + p]


@njit_without_refcounts
def salt_gain(cd, pub, hid, p, c, cache, has):
    """(best gain, its column) of Salt card c for seat p (`best_gain`), kept in p's memo
    until its tableau changes."""
    memo, version = memo_of(hid, cd.shape[0], p), hid[VERSION + p]
    if memo[3 * c + 2] != version:
        memo[3 * c], memo[3 * c + 1] = best_gain(cd, pub, p, c, cache, has)
        memo[3 * c + 2] = version
    return memo[3 * c], memo[3 * c + 1]


@njit(cache=True, inline="always")
def sickle_rows(pub, p, opts, n):
    """Sickle options (Day row, Night row) if seat p has a Sickle and the row holds cards."""
    if pub[player_at(p, P_SICKLES)] > 0:
        for d in range(2):
            held = 0
            for i in range(SLOTS_PER_ROW):
                if pub[DISPLAY + d * SLOTS_PER_ROW + i] >= 0:
                    held += 1
            if held > 0:
                set_row(opts, n, OPT_SICKLE, d, -1, -1, 0, 0, 0, 0)
                n += 1
    return n


@njit(cache=True, inline="always")
def action_options(cd, take_choose, flip_some, pub, hid, p, opts, banned):
    """The action step: take, play, take runes, flip runes, sickle; pass if no action.
    Card `banned` (-1: none) is not offered to take (restricted play, `simkit value`)."""
    base = player_at(p, 0)
    sun = pub[base + P_SUN]
    moon = pub[base + P_MOON]
    cache, has = fresh_gains(cd, pub, hid, p)
    n = 0
    # Take a Card: any of the 8 visible cards.
    for s in range(N_SLOTS):
        c = pub[DISPLAY + s]
        if c < 0 or c == banned:
            continue
        if cd[c, CARD_KIND] != SALT:
            col = cd[c, CARD_ING]
            g = play_gain(cd, pub, p, c, col, cache)
        else:  # a Salt's best column, kept until p's tableau changes
            g, col = salt_gain(cd, pub, hid, p, c, cache, has)
        set_row(opts, n, OPT_TAKE, s, c, col, g, 1 if can_pay(cd, c, sun, moon) else 0,
                unpaid(cd, c, sun, moon), cd[c, CARD_ICONS])
        n += 1
    # Play a Card: a card in hand whose cost the runes can pay; Salt onto a played column.
    played = pub[base + P_PLAYED]
    for h in range(pub[base + P_HAND_N]):
        c = pub[base + P_HAND + h]
        if not can_pay(cd, c, sun, moon):
            continue
        flips = cd[c, CARD_COST + SUN_FLIP] + cd[c, CARD_COST + MOON_FLIP]
        returns = cd[c, CARD_COST + SUN_RETURN] + cd[c, CARD_COST + MOON_RETURN]
        if cd[c, CARD_KIND] == SALT:
            for x in range(has.shape[0]):
                if has[x]:
                    set_row(opts, n, OPT_PLAY, h, c, x, play_gain(cd, pub, p, c, x, cache),
                            flips, returns, played + 1)
                    n += 1
        else:
            x = cd[c, CARD_ING]
            set_row(opts, n, OPT_PLAY, h, c, x, play_gain(cd, pub, p, c, x, cache), flips,
                    returns, played + 1)
            n += 1
    # Take Runes: fill empty unlocked spaces with one type from the reserve.
    empty = pub[base + P_OPEN] - sun - moon
    for side in range(2):
        m = min(empty, pub[RESERVE + side])
        if m <= 0:
            continue
        if take_choose:
            for k in range(1, m + 1):
                set_row(opts, n, OPT_RUNES, side, k, -1, 0, 0, 0, 0)
                n += 1
        else:
            set_row(opts, n, OPT_RUNES, side, m, -1, 0, 0, 0, 0)
            n += 1
    # Flip Runes: to all Suns / all Moons ("some": any number showing the other side).
    for side in range(2):
        other = moon if side == SUN else sun
        if other <= 0:
            continue
        if flip_some:
            for k in range(1, other + 1):
                set_row(opts, n, OPT_FLIP, side, sun + moon, k, 0, 0, 0, 0)
                n += 1
        else:
            set_row(opts, n, OPT_FLIP, side, sun + moon, other, 0, 0, 0, 0)
            n += 1
    if n == 0:
        set_row(opts, n, OPT_PASS, -1, -1, -1, 0, 0, 0, 0)
        n += 1
    return sickle_rows(pub, p, opts, n)


@njit(cache=True, inline="always")
def banned_card(t, s):
    """The card seat s may not take (restricted play), or -1."""
    return t.rules[R_BAN_CARD] if s == t.rules[R_BAN_SEAT] else -1


@njit(cache=True, inline="always")
def banned_token(t, s):
    """The Bonus Ingredient token seat s may not take (restricted play), or -1."""
    return t.rules[R_BAN_TOKEN] if s == t.rules[R_BAN_SEAT] else -1


@njit(cache=True, inline="always")
def discard_options(cd, pub, hid, p, opts):
    """End of turn, over the hand limit: one row per card in hand."""
    base = player_at(p, 0)
    sun = pub[base + P_SUN]
    moon = pub[base + P_MOON]
    cache, has = fresh_gains(cd, pub, hid, p)
    n = 0
    for h in range(pub[base + P_HAND_N]):
        c = pub[base + P_HAND + h]
        if cd[c, CARD_KIND] != SALT:
            g = play_gain(cd, pub, p, c, cd[c, CARD_ING], cache)
        else:
            g = salt_gain(cd, pub, hid, p, c, cache, has)[0]
        set_row(opts, n, OPT_DISCARD, h, c, -1, g, 1 if can_pay(cd, c, sun, moon) else 0, 0,
                cd[c, CARD_ICONS])
        n += 1
    return n


@njit(cache=True, inline="always")
def token_options(cd, pub, hid, p, opts, banned):
    """A bonus space: one row per Bonus Ingredient token type in the centre, but `banned`
    (-1: none; restricted play, `simkit value`)."""
    n = 0
    cache, has = fresh_gains(cd, pub, hid, p)
    for x in range(has.shape[0]):
        if pub[TOKENS + x] > 0 and x != banned:
            set_row(opts, n, OPT_TOKEN, x, -1, -1, cache[3 * x + 1], 0, 0, 0)
            n += 1
    return n


@njit(cache=True, inline="always")
def end_options(pub, p, opts):
    """After both actions (options.sickle_after_actions): end the turn (row 0), or a Sickle
    on a row; none if seat p cannot use a Sickle."""
    n = sickle_rows(pub, p, opts, 0)
    if n == 0:
        return 0
    for i in range(n, 0, -1):
        for col in range(N_COLS):
            opts[i, col] = opts[i - 1, col]
    set_row(opts, 0, OPT_END, -1, -1, -1, 0, 0, 0, 0)
    return n + 1
