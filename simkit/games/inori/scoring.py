"""Inori scoring, pure: what the board holds (markers on cards), what an effect is worth
and the final ranking. The season-end card scores and the end-game majorities change the
state, so they are rules (rules.score_card, rules.end_game), counted with these queries.

Shared by the rules and the option tables (which show each option's worth), so a point is
counted one way everywhere.
"""

from __future__ import annotations

from numba import njit

from simkit.kernels.jit import njit_without_refcounts

from .layout import (CARD_COLOUR, CARD_N_SPACES, EF_DISTINCT, EF_FEWEST, EF_GAIN, EF_PER_COLOUR,
                     EF_PER_TOKEN, EF_RUNE, F1, F2, F3, F4, KIND, MAX_PLAYERS, MAX_SPACES,
                     OPT_BLOCK, OPT_CARD, OPT_COLOUR, OPT_MOVE, OPT_PASS, OPT_RUNE, OPT_TILE,
                     OPT_TREE, POINTS, P_SCORE, P_TOKENS, RUNE_GAIN, R_ALTAR_COST, R_ALTAR_REPEAT,
                     R_COMP, R_COST_RETURN, R_HALF, R_N_COLOURS, R_OCC_ANY_COUNT, R_WIN_TIE,
                     SP_AMOUNT, SP_COLOUR, SP_COLOUR2, SP_EFFECT, SUPPLY, S_CARD, S_OCC, S_OCC2,
                     TE_ANY, TE_BLOCK, TE_POINTS, TE_RUNE_TOKEN, TE_TILE_POINTS, TE_TILE_TOKENS,
                     TR_AMOUNT, TR_AMOUNT2, TR_EFFECT, TR_ROOT, T_TILE, T_TOKENS, WIN_MOST_TOKENS,
                     C, player_at, slot_at, space_col, tree_at)


# ---------------------------------------------------------------- the board
@njit_without_refcounts
def held(pub, p, x):
    """Favor tokens of colour x that seat p holds."""
    return pub[player_at(p, P_TOKENS + x)]


@njit_without_refcounts
def taken_places(pub, sb):
    """Spaces holding a marker on the card of the slot starting at pub[sb]. Counts over
    all MAX_SPACES places (those past a card's spaces always hold -1: setup and every
    season end clear them), so the loop has a fixed length and no exit to mispredict."""
    taken = 0
    for s in range(MAX_SPACES):
        taken += 1 if pub[sb + S_OCC + s] >= 0 else 0
    return taken


@njit_without_refcounts
def free_spaces(t, pub, i):
    """Free spaces of the card in slot i (0 for an empty slot)."""
    c = pub[slot_at(i, S_CARD)]
    if c < 0:
        return 0
    return t.card[c, CARD_N_SPACES] - taken_places(pub, slot_at(i, 0))


@njit_without_refcounts
def seats_on_card(t, pub, i):
    """Bit p + 1 set when seat p has a marker on the card in slot i (bit 0 means nothing:
    any empty place sets it; bit NEUTRAL + 1: a neutral marker). One pass, not per seat."""
    c = pub[slot_at(i, S_CARD)]
    m = 0
    for s in range(t.card[c, CARD_N_SPACES]):
        m |= (1 << (pub[slot_at(i, S_OCC + s)] + 1)) | (pub[slot_at(i, S_OCC2 + s)] << 1)
    return m


@njit_without_refcounts
def on_card(t, pub, i, p):
    """1 if seat p has a marker on the card in slot i."""
    c = pub[slot_at(i, S_CARD)]
    for s in range(t.card[c, CARD_N_SPACES]):
        if pub[slot_at(i, S_OCC + s)] == p or (pub[slot_at(i, S_OCC2 + s)] >> p) & 1:
            return 1
    return 0


@njit_without_refcounts
def lowest_seat(mask):
    """The lowest seat whose bit is set in `mask` (further markers: S_OCC2), -1 if none."""
    for q in range(MAX_PLAYERS):
        if (mask >> q) & 1:
            return q
    return -1


@njit_without_refcounts
def may_join(t, occ, extra, p):
    """Whether an "occupied" Rune lets seat p join a space whose first piece is `occ` and
    whose further markers are the seats of bit mask `extra`: it is occupied, by no marker
    of p's, and (options.occupied_count = "one") by one piece only."""
    if occ < 0 or occ == p or (extra >> p) & 1:
        return False
    return extra == 0 or t.rules[R_OCC_ANY_COUNT] == 1


@njit_without_refcounts
def needs_tile(t, pub, ts):
    """True for an Altar space without its tile: an offering there chooses the tile first
    (the effect may name its colour)."""
    return t.tree[ts, TR_ROOT] == 0 and pub[tree_at(ts, T_TILE)] < 0


# ---------------------------------------------------------------- what an effect is worth
@njit(cache=True, inline="always")
def holdings(pub, p, n_col, hv):
    """Copy seat p's tokens into hv; returns (colours held, most held, colours at most)."""
    distinct = 0
    most = 0
    base = player_at(p, P_TOKENS)
    for y in range(n_col):  # counts and maxima, not branches: holdings change every turn
        h = pub[base + y]
        hv[y] = h
        distinct += 1 if h > 0 else 0
        most = max(most, h)
    ties = 0
    if most > 0:
        for y in range(n_col):
            ties += 1 if hv[y] == most else 0
    return distinct, most, ties


@njit(cache=True, inline="always")
def card_row(cd, pub, hv, ret, c, s, paid, runes_left, distinct, most, ties):
    """(points, tokens, runes, tokens of the card's colour) of space s of card c, for the
    seat whose holdings are hv (holdings(): distinct, most, ties), after paying one token
    of colour `paid` (-1: nothing; `ret`: paid tokens go back to the supply)."""
    base = space_col(s, 0)
    return space_row(cd[c, base + SP_EFFECT], cd[c, base + SP_AMOUNT],
                     cd[c, base + SP_COLOUR], cd[c, base + SP_COLOUR2], cd[c, CARD_COLOUR],
                     pub, hv, ret and paid >= 0, paid, runes_left, distinct, most, ties)


@njit(cache=True, inline="always")
def space_row(e, k, x, x2, own, pub, hv, r, paid, runes_left, distinct, most, ties):
    """card_row of a card space given its effect e, amount k, colours x and x2, and its
    card's colour; r: a token of colour `paid` goes back to the supply.

    Hot: every offering row. The counts after paying are adjusted, not recounted."""
    points = 0
    tokens = 0
    runes = 0
    if e == EF_GAIN:
        tokens = min(k, pub[SUPPLY + x] + (1 if r and paid == x else 0))
    elif e == EF_FEWEST:
        tokens = k
    elif e == EF_RUNE:
        runes = min(k, runes_left)
    elif e == EF_DISTINCT:
        points = k * (distinct - (1 if r and hv[paid] == 1 else 0))
    elif e == EF_PER_TOKEN:
        count = hv[x] - (1 if r and paid == x else 0)
        if x2 >= 0:
            count += hv[x2] - (1 if r and paid == x2 else 0)
        points = k * count
    elif e == EF_PER_COLOUR:  # a point per listed colour held (after paying)
        held_x = hv[x] - (1 if r and paid == x else 0)
        count = 1 if held_x > 0 else 0
        if x2 >= 0:
            count += 1 if hv[x2] - (1 if r and paid == x2 else 0) > 0 else 0
        points = k * count
    else:  # EF_MAJORITY: paying from a sole largest holding lowers it by one
        points = k * (most - 1 if r and hv[paid] == most and ties == 1 else most)
    f4 = hv[own] - (1 if r and paid == own else 0)
    if e == EF_GAIN and x == own:
        f4 += tokens
    return points, tokens, runes, f4


@njit(cache=True, inline="always")
def tree_row(tr, rules, pub, hv, ts, colour, paid, runes_left):
    """(points, tokens, runes, tokens of `colour`) of an offering to tree space ts with tile
    colour `colour` (-1: none), after paying the Altar cost in `paid` (-1: nothing)."""
    cost = rules[R_ALTAR_COST] if paid >= 0 else 0
    dec = cost if rules[R_COST_RETURN] else 0
    after = 0
    supply = 0
    if colour >= 0:
        after = hv[colour] - dec
        supply = pub[SUPPLY + colour] + dec
    e = tr[ts, TR_EFFECT]
    k = tr[ts, TR_AMOUNT]
    points = 0
    tokens = 0
    runes = 0
    fixed = 0
    if pub[tree_at(ts, T_TILE)] < 0 or rules[R_ALTAR_REPEAT]:
        if e == TE_ANY:
            tokens = k
        elif e == TE_POINTS:
            points = k
        elif e == TE_RUNE_TOKEN:
            runes = min(k, runes_left)
            fixed = min(tr[ts, TR_AMOUNT2], supply)
        elif e == TE_TILE_POINTS:
            points = k * after
        elif e == TE_BLOCK:
            fixed = min(tr[ts, TR_AMOUNT2], supply)
        elif e == TE_TILE_TOKENS:
            fixed = min(k, supply)
        else:  # TE_ROOT
            tb = tree_at(ts, T_TOKENS)
            tokens = (1 if pub[tb] >= 0 else 0) + (1 if pub[tb + 1] >= 0 else 0)
    return points, tokens + fixed, runes, (after + fixed) if colour >= 0 else 0

# ---------------------------------------------------------------- the ranking
@njit_without_refcounts
def final_score(t, pub, p):
    """Seat p's final score, which ranks the seats: its points (the rules add every point
    as it is scored) plus its seat compensation (compensation.points; 0 in the published
    game). The compensation is never in `pub`, so no strategy sees it during the game."""
    return pub[player_at(p, P_SCORE)] + t.rules[R_COMP + p]


@njit_without_refcounts
def points(t, pub, hid, cnt, s):
    """Seat s's score column: its final score (the game API's `points`)."""
    return final_score(t, pub, s)


@njit_without_refcounts
def ranking_key(t, n_players, pub, hid, cnt, s):
    """What ranks seat s at the end: its final score plus its half point of compensation
    (compensation.half, 0 or 1), as 2 x final score + half, so the half point only breaks
    ties on the final score (which stays whole points). No other tie-break: equal keys
    share the win, unless options.win_tie = "most_tokens": then the Favor tokens held
    (at most 90) break them. With every half 0 the order is the final score's, as without
    it."""
    doubled = 2 * final_score(t, pub, s) + t.rules[R_HALF + s]
    if t.rules[R_WIN_TIE] == WIN_MOST_TOKENS:
        tokens = 0
        for x in range(t.rules[R_N_COLOURS]):
            tokens += held(pub, s, x)
        return doubled * 256 + tokens
    return doubled


# ---------------------------------------------------------------- worth of a row
# greedy's value of an option row from its own columns: the option tables call it
# for a greedy seat (options.py), the rollout player's candidates are ranked by it and
# greedy plays by it (strategies/inori.py).
@njit_without_refcounts
def offering_value(points, tokens, completes, runes, own, paid, w_token, w_rune, w_complete,
                   w_cost):
    """greedy's value of an offering (or Altar tile) row from its columns: POINTS, F1..F4
    and C (the colour paid, -1: none). The kernel also calls it while building the
    offering table for a greedy seat (simkit/games/inori/options.py, `put_offer`)."""
    score = (points + w_token * tokens + w_rune * runes + w_complete * completes * own)
    if paid >= 0:
        score -= w_cost
    return score


@njit_without_refcounts
def rune_value(kind, tokens, w_token):
    """greedy's value of playing a Rune tile of this kind that gives `tokens` tokens
    (playing none: 0). The kernel also calls it in a greedy seat's Rune step
    (simkit/games/inori/options.py, `rune_rows`)."""
    return w_token * tokens if kind == RUNE_GAIN else -1.0


@njit_without_refcounts
def greedy_score(opts, i, w_token, w_rune, w_complete, w_cost):
    """greedy's value of option row i."""
    kind = opts[i, KIND]
    if kind in (OPT_CARD, OPT_TREE, OPT_TILE):
        score = offering_value(opts[i, POINTS], opts[i, F1], opts[i, F2], opts[i, F3],
                               opts[i, F4], opts[i, C], w_token, w_rune, w_complete, w_cost)
    elif kind == OPT_RUNE:
        score = rune_value(opts[i, C], opts[i, F1], w_token)
    elif kind in (OPT_MOVE, OPT_BLOCK):
        score = opts[i, F2] * (opts[i, F4] + 1.0) * (1.0 if opts[i, POINTS] or
                                                     kind == OPT_MOVE else -0.5)
    elif kind == OPT_COLOUR:
        score = float(opts[i, POINTS])
    elif kind == OPT_PASS:
        score = -1e9
    else:  # no rune, a New Start card
        score = 0.0
    return score
