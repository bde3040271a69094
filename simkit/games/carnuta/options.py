"""Carnuta's option tables: the legal options of each decision, one row each, with the
features strategies read (columns: layout.py). Building a table changes nothing in the
game; each seat's score gains are cached until its tableau changes (`ver`)."""

from __future__ import annotations

from numba import njit

from . import layout as L
from .scoring import best_gain, can_pay, gain_table, play_gain, unpaid


@njit(cache=True, inline="always")
def set_row(opts, n, kind, a, b, c, points, f1, f2, f3):
    opts[n, L.KIND] = kind
    opts[n, L.A] = a
    opts[n, L.B] = b
    opts[n, L.C] = c
    opts[n, L.POINTS] = points
    opts[n, L.F1] = f1
    opts[n, L.F2] = f2
    opts[n, L.F3] = f3


@njit(cache=True, inline="always")
def fresh_gains(cd, pub, p, cache, has, ver):
    """Rebuild seat p's gain table (`gain_table`) if its tableau changed since it was built."""
    if ver[p, 1] != ver[p, 0]:
        gain_table(cd, pub, p, cache, has)
        ver[p, 1] = ver[p, 0]


@njit(cache=True, inline="always")
def sickle_rows(pub, p, opts, n):
    """Sickle options (Day row, Night row) if seat p has a Sickle and the row holds cards."""
    if pub[L.player_at(p, L.P_SICKLES)] > 0:
        for d in range(2):
            held = 0
            for i in range(L.SLOTS_PER_ROW):
                if pub[L.DISPLAY + d * L.SLOTS_PER_ROW + i] >= 0:
                    held += 1
            if held > 0:
                set_row(opts, n, L.OPT_SICKLE, d, -1, -1, 0, 0, 0, 0)
                n += 1
    return n


@njit(cache=True, inline="always")
def action_options(cd, take_choose, flip_some, pub, p, opts, cache, has, ver, memo,
                   banned):
    """The action step: take, play, take runes, flip runes, sickle; pass if no action.
    Card `banned` (-1: none) is not offered to take (restricted play, `simkit value`)."""
    base = L.player_at(p, 0)
    sun = pub[base + L.P_SUN]
    moon = pub[base + L.P_MOON]
    fresh_gains(cd, pub, p, cache, has, ver)
    n = 0
    # Take a Card: any of the 8 visible cards.
    for s in range(L.N_SLOTS):
        c = pub[L.DISPLAY + s]
        if c < 0 or c == banned:
            continue
        if cd[c, L.CARD_KIND] != L.SALT:
            col = cd[c, L.CARD_ING]
            g = play_gain(cd, pub, p, c, col, cache)
        else:  # a Salt's best column, kept until p's tableau changes
            if memo[p, c, 2] != ver[p, 0]:
                memo[p, c, 0], memo[p, c, 1] = best_gain(cd, pub, p, c, cache, has)
                memo[p, c, 2] = ver[p, 0]
            g, col = memo[p, c, 0], memo[p, c, 1]
        set_row(opts, n, L.OPT_TAKE, s, c, col, g, 1 if can_pay(cd, c, sun, moon) else 0,
                unpaid(cd, c, sun, moon), cd[c, L.CARD_ICONS])
        n += 1
    # Play a Card: a card in hand whose cost the runes can pay; Salt onto a played column.
    played = pub[base + L.P_PLAYED]
    for h in range(pub[base + L.P_HAND_N]):
        c = pub[base + L.P_HAND + h]
        if not can_pay(cd, c, sun, moon):
            continue
        flips = cd[c, L.CARD_COST + L.SUN_FLIP] + cd[c, L.CARD_COST + L.MOON_FLIP]
        returns = cd[c, L.CARD_COST + L.SUN_RETURN] + cd[c, L.CARD_COST + L.MOON_RETURN]
        if cd[c, L.CARD_KIND] == L.SALT:
            for x in range(has.shape[0]):
                if has[x]:
                    set_row(opts, n, L.OPT_PLAY, h, c, x, play_gain(cd, pub, p, c, x, cache),
                            flips, returns, played + 1)
                    n += 1
        else:
            x = cd[c, L.CARD_ING]
            set_row(opts, n, L.OPT_PLAY, h, c, x, play_gain(cd, pub, p, c, x, cache), flips,
                    returns, played + 1)
            n += 1
    # Take Runes: fill empty unlocked spaces with one type from the reserve.
    empty = pub[base + L.P_OPEN] - sun - moon
    for side in range(2):
        m = min(empty, pub[L.RESERVE + side])
        if m <= 0:
            continue
        if take_choose:
            for k in range(1, m + 1):
                set_row(opts, n, L.OPT_RUNES, side, k, -1, 0, 0, 0, 0)
                n += 1
        else:
            set_row(opts, n, L.OPT_RUNES, side, m, -1, 0, 0, 0, 0)
            n += 1
    # Flip Runes: to all Suns / all Moons ("some": any number showing the other side).
    for side in range(2):
        other = moon if side == L.SUN else sun
        if other <= 0:
            continue
        if flip_some:
            for k in range(1, other + 1):
                set_row(opts, n, L.OPT_FLIP, side, sun + moon, k, 0, 0, 0, 0)
                n += 1
        else:
            set_row(opts, n, L.OPT_FLIP, side, sun + moon, other, 0, 0, 0, 0)
            n += 1
    if n == 0:
        set_row(opts, n, L.OPT_PASS, -1, -1, -1, 0, 0, 0, 0)
        n += 1
    return sickle_rows(pub, p, opts, n)


@njit(cache=True, inline="always")
def banned_card(t, s):
    """The card seat s may not take (restricted play), or -1."""
    return t.rules[L.R_BAN_CARD] if s == t.rules[L.R_BAN_SEAT] else -1


@njit(cache=True, inline="always")
def banned_token(t, s):
    """The Bonus Ingredient token seat s may not take (restricted play), or -1."""
    return t.rules[L.R_BAN_TOKEN] if s == t.rules[L.R_BAN_SEAT] else -1


@njit(cache=True, inline="always")
def discard_options(cd, pub, p, opts, cache, has, ver, memo):
    """End of turn, over the hand limit: one row per card in hand."""
    base = L.player_at(p, 0)
    sun = pub[base + L.P_SUN]
    moon = pub[base + L.P_MOON]
    fresh_gains(cd, pub, p, cache, has, ver)
    n = 0
    for h in range(pub[base + L.P_HAND_N]):
        c = pub[base + L.P_HAND + h]
        if cd[c, L.CARD_KIND] != L.SALT:
            g = play_gain(cd, pub, p, c, cd[c, L.CARD_ING], cache)
        else:
            if memo[p, c, 2] != ver[p, 0]:
                memo[p, c, 0], memo[p, c, 1] = best_gain(cd, pub, p, c, cache, has)
                memo[p, c, 2] = ver[p, 0]
            g = memo[p, c, 0]
        set_row(opts, n, L.OPT_DISCARD, h, c, -1, g, 1 if can_pay(cd, c, sun, moon) else 0, 0,
                cd[c, L.CARD_ICONS])
        n += 1
    return n


@njit(cache=True, inline="always")
def token_options(cd, pub, p, opts, cache, has, ver, banned):
    """A bonus space: one row per Bonus Ingredient token type in the centre, but `banned`
    (-1: none; restricted play, `simkit value`)."""
    n = 0
    fresh_gains(cd, pub, p, cache, has, ver)
    for x in range(has.shape[0]):
        if pub[L.TOKENS + x] > 0 and x != banned:
            set_row(opts, n, L.OPT_TOKEN, x, -1, -1, cache[x, 1], 0, 0, 0)
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
        for col in range(L.N_COLS):
            opts[i, col] = opts[i - 1, col]
    set_row(opts, 0, L.OPT_END, -1, -1, -1, 0, 0, 0, 0)
    return n + 1
