"""Inori option tables: for each decision step, every legal option as a row, in the
canonical order layout.py documents, with the columns a strategy reads (what the option
scores now, gives, completes).

Each function writes the rows of one step into `opts` and returns their count. The rules
apply a chosen row (rules.py); play.py asks for these tables between the steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.kernels.jit import njit_without_refcounts, trailing_zeros
from simkit.kernels.ties import at_random, contest, may_win

from .layout import (CARD_COLOUR, CARD_N_SPACES, CARD_NEXT, COST_MAJORITY, COST_NONE, F1, F2, F3,
                     F4, GREEDY_TIES, KIND, MAX_PLAYERS, MAX_SPACES, N_SLOTS, NEW_TOP, OCCUPIED_OK,
                     OPT_BLOCK, OPT_CARD, OPT_COLOUR, OPT_MOVE, OPT_NEW_START, OPT_NO_RUNE,
                     OPT_PASS, OPT_RUNE, OPT_TILE, OPT_TREE, P_N_RUNES, P_RUNES, POINTS,
                     R_ALTAR_COST, R_BAN_CARD, R_BAN_COLOUR, R_BAN_RUNE, R_BAN_SEAT, R_BAN_TREE,
                     R_COST_RETURN, R_MAJ_TIE_CHOOSE, R_MOVE_ANY, R_N_COLOURS, R_N_TREE, R_OCC_TREE,
                     RU_AMOUNT, RU_COLOUR, RU_KIND, RUNE_FROM_COLOUR, RUNE_GAIN, RUNE_OCCUPIED,
                     RUNE_TO_COLOUR, RUNES_LEFT, S_CARD, S_OCC, S_OCC2, SP_AMOUNT, SP_COLOUR,
                     SP_COLOUR2, SP_COST, SP_EFFECT, SUPPLY, T_OCC, T_OCC2, T_TILE, T_TOKENS,
                     TILE_USED, TR_ROOT, A, B, C, GreedyWeights, player_at, slot_at, space_col,
                     piles, tree_at)
from .scoring import (free_spaces, held, holdings, may_join, offering_value, on_card,
                      rune_value, space_row, taken_places, tree_row)


@njit_without_refcounts
def set_row(opts, n, kind, a, b, c, points, f1, f2, f3, f4):
    opts[n, KIND] = kind
    opts[n, A] = a
    opts[n, B] = b
    opts[n, C] = c
    opts[n, POINTS] = points
    opts[n, F1] = f1
    opts[n, F2] = f2
    opts[n, F3] = f3
    opts[n, F4] = f4


@njit_without_refcounts
def put_offer(opts, n, best, seen, fuse, ws, rng, kind, a, b, c, points, f1, f2, f3, f4):
    """Offering row n of the table; or, with `fuse` (a greedy seat with weights and ties
    `ws`, a layout.GreedyWeights), only the row greedy would choose kept, in row 0: scored
    as the table is built instead of stored and scored, its ties settled as greedy does
    (simkit/kernels/ties.py, on the seat's stream `rng`). Returns the best score so far and
    how often it was found."""
    if fuse:
        v = offering_value(points, f1, f2, f3, f4, c, ws.token, ws.rune, ws.complete, ws.cost)
        take, best, seen = contest(v, best, seen, ws.random_ties, rng)
        if take:
            set_row(opts, 0, kind, a, b, c, points, f1, f2, f3, f4)
        return best, seen
    set_row(opts, n, kind, a, b, c, points, f1, f2, f3, f4)
    return best, seen


@njit(cache=True, inline="always")
def rune_rows(t, pub, p, opts, fuse, w, after, rng):
    """STEP_RUNE: no rune, then each usable tile unlike every earlier one in the hand
    (`after`: the step after the offering, where an "occupied" tile has no use).

    With `fuse` (a greedy seat with weights w), row 0 is greedy's choice and no other row
    is written: a tile greedy values below the best so far (no rune: 0; or equal to it,
    with ties to the first row) cannot be its choice, so its legality is never checked
    (greedy never plays a move or "occupied" tile, the costly checks). Ties are settled
    as greedy does, on the seat's stream `rng`, among the rows its table would hold."""
    set_row(opts, 0, OPT_NO_RUNE, -1, -1, -1, 0, 0, 0, 0, 0)
    n = 1
    best = 0.0  # greedy's value of no rune (fuse), found once
    seen = 1
    w_token = w[0] if fuse else 0.0  # read once (weights: see offer_rows)
    random_ties = fuse and at_random(w[GREEDY_TIES])
    base = player_at(p, P_RUNES)
    banned = t.rules[R_BAN_RUNE] if p == t.rules[R_BAN_SEAT] else -1  # restricted play
    for h in range(pub[player_at(p, P_N_RUNES)]):
        tile = pub[base + h]
        kind = t.rune[tile, RU_KIND]
        if kind == banned:
            continue
        colour = t.rune[tile, RU_COLOUR]
        amount = t.rune[tile, RU_AMOUNT]
        f1 = min(amount, pub[SUPPLY + colour]) if kind == RUNE_GAIN else 0
        v = 0.0
        if fuse:
            v = rune_value(kind, f1, w_token)
            if not may_win(v, best, random_ties):
                continue
        repeat = False
        for e in range(h):
            other = pub[base + e]
            if (t.rune[other, RU_KIND] == kind and t.rune[other, RU_COLOUR] == colour
                    and t.rune[other, RU_AMOUNT] == amount):
                repeat = True
        if repeat:
            continue
        if kind == RUNE_OCCUPIED:
            if after or not occupied_target(t, pub, p):
                continue
        elif kind != RUNE_GAIN and not move_exists(t, pub, p, kind, colour):
            continue
        if fuse:
            take, best, seen = contest(v, best, seen, random_ties, rng)
            if take:
                set_row(opts, 0, OPT_RUNE, h, tile, kind, 0, f1, 0, 0, 0)
        else:
            set_row(opts, n, OPT_RUNE, h, tile, kind, 0, f1, 0, 0, 0)
        n += 1
    return n


@njit_without_refcounts
def occupied_target(t, pub, p):
    """True if seat p may join some occupied space (scoring.may_join): a card space, or
    with options.occupied_spaces = "any" a Great Tree space."""
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        if c < 0:
            continue
        for s in range(t.card[c, CARD_N_SPACES]):
            if may_join(t, pub[slot_at(i, S_OCC + s)], pub[slot_at(i, S_OCC2 + s)], p):
                return True
    if t.rules[R_OCC_TREE]:
        for ts in range(t.rules[R_N_TREE]):
            if may_join(t, pub[tree_at(ts, T_OCC)], pub[tree_at(ts, T_OCC2)], p):
                return True
    return False


@njit_without_refcounts
def move_exists(t, pub, p, kind, colour):
    """True if a move rune of this kind and colour has a legal move for seat p."""
    n_slots = pub[N_SLOTS]
    for si in range(n_slots):
        cs = pub[slot_at(si, S_CARD)]
        if cs < 0 or (kind == RUNE_FROM_COLOUR and t.card[cs, CARD_COLOUR] != colour):
            continue
        if not (taken_places(pub, slot_at(si, 0)) > 0 if t.rules[R_MOVE_ANY]
                else on_card(t, pub, si, p)):
            continue
        for di in range(n_slots):
            cd = pub[slot_at(di, S_CARD)]
            if di == si or cd < 0:
                continue
            if kind == RUNE_TO_COLOUR and t.card[cd, CARD_COLOUR] != colour:
                continue
            if free_spaces(t, pub, di) > 0:
                return True
    return False


@njit_without_refcounts
def move_rows(t, pub, p, kind, colour, opts):
    """STEP_MOVE: moves of a piece for a move rune (options.move_piece: any piece, or one
    of seat p's own markers); C is the piece's owner."""
    n = 0
    n_slots = pub[N_SLOTS]
    any_piece = t.rules[R_MOVE_ANY] == 1
    for si in range(n_slots):
        cs = pub[slot_at(si, S_CARD)]
        if cs < 0:
            continue
        if kind == RUNE_FROM_COLOUR and t.card[cs, CARD_COLOUR] != colour:
            continue
        for ss in range(t.card[cs, CARD_N_SPACES]):
            extra = pub[slot_at(si, S_OCC2 + ss)]
            for layer in range(-1, MAX_PLAYERS):  # the first piece, then further markers
                who = pub[slot_at(si, S_OCC + ss)] if layer < 0 else (
                    layer if (extra >> layer) & 1 else -1)
                if who < 0 or not (any_piece or who == p):
                    continue
                for di in range(n_slots):
                    cd = pub[slot_at(di, S_CARD)]
                    if di == si or cd < 0:
                        continue
                    if kind == RUNE_TO_COLOUR and t.card[cd, CARD_COLOUR] != colour:
                        continue
                    free = free_spaces(t, pub, di)
                    for ds in range(t.card[cd, CARD_N_SPACES]):
                        if pub[slot_at(di, S_OCC + ds)] >= 0:
                            continue
                        set_row(opts, n, OPT_MOVE, si * MAX_SPACES + ss, di * MAX_SPACES + ds,
                                who, 0, 0, 1 if free == 1 else 0, 0,
                                held(pub, p, t.card[cd, CARD_COLOUR]))
                        n += 1
    return n


@njit(cache=True, inline="always")
def offer_rows(t, pub, p, opts, hv, fuse, w, rng):
    """STEP_OFFER: card spaces, then tree spaces; a pass if there is nothing. With `fuse`
    (put_offer), row 0 is greedy's choice (weights w, ties on the seat's stream `rng`) and
    the other rows are not written: the seat's choice is row 0."""
    n = 0
    best = -1e300  # greedy's best score so far (fuse) ...
    seen = 0  # ... and how often it was found
    # greedy's weights, read once: inside the loops every read would be repeated after
    # each store to the table (numba tells LLVM nothing about which arrays may overlap)
    ws = (GreedyWeights(w[0], w[1], w[2], w[3], at_random(w[GREEDY_TIES])) if fuse
          else GreedyWeights(0.0, 0.0, 0.0, 0.0, False))
    cd = t.card
    tr = t.tree
    rules = t.rules
    n_col = rules[R_N_COLOURS]
    ret = rules[R_COST_RETURN] == 1
    choose_tie = rules[R_MAJ_TIE_CHOOSE] == 1
    occupied_ok = pub[OCCUPIED_OK] == 1
    runes_left = pub[RUNES_LEFT]
    distinct, most, ties = holdings(pub, p, n_col, hv)
    most_mask = np.uint64(0)
    for y in range(n_col):
        most_mask |= np.uint64(hv[y] == most) << np.uint64(y)
    restricted = p == rules[R_BAN_SEAT]  # restricted play (`simkit value`)
    ban_card = rules[R_BAN_CARD] if restricted else -1
    ban_tree = rules[R_BAN_TREE] if restricted else -1
    for i in range(pub[N_SLOTS]):
        sb = slot_at(i, 0)
        c = pub[sb + S_CARD]
        if c < 0 or c == ban_card:
            continue
        crow = cd[c]
        n_sp = crow[CARD_N_SPACES]
        own = crow[CARD_COLOUR]
        free = n_sp - taken_places(pub, sb)
        for s in range(n_sp):
            occ = pub[sb + S_OCC + s]
            if occ >= 0 and not (occupied_ok and may_join(t, occ, pub[sb + S_OCC2 + s], p)):
                continue
            completes = 1 if occ < 0 and free == 1 else 0
            base = space_col(s, 0)
            cost = crow[base + SP_COST]
            e = crow[base + SP_EFFECT]
            k = crow[base + SP_AMOUNT]
            x = crow[base + SP_COLOUR]
            x2 = crow[base + SP_COLOUR2]
            if cost == COST_NONE:
                points, tokens, runes, f4 = space_row(e, k, x, x2, own, pub, hv, False, -1,
                                                      runes_left, distinct, most, ties)
                best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                       OPT_CARD, i, s, -1, points, tokens, completes, runes, f4)
                n += 1
            elif cost != COST_MAJORITY:
                if hv[cost] >= 1:
                    points, tokens, runes, f4 = space_row(e, k, x, x2, own, pub, hv, ret,
                                                          cost, runes_left, distinct, most,
                                                          ties)
                    best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                           OPT_CARD, i, s, cost, points, tokens, completes, runes,
                                           f4)
                    n += 1
            elif most > 0 and (ties == 1 or choose_tie):
                # The majority colour(s): each colour held most, ascending (the bits of
                # most_mask: testing each colour here would mispredict).
                mm = most_mask
                while mm:
                    y = np.int64(trailing_zeros(mm))
                    mm &= mm - np.uint64(1)
                    points, tokens, runes, f4 = space_row(e, k, x, x2, own, pub, hv, ret, y,
                                                          runes_left, distinct, most, ties)
                    best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                           OPT_CARD, i, s, y, points, tokens, completes, runes, f4)
                    n += 1
    top = -2  # the unused tile colour held most, once needed
    for ts in range(rules[R_N_TREE]):
        occ = pub[tree_at(ts, T_OCC)]
        if ts == ban_tree or (occ >= 0 and not (occupied_ok and rules[R_OCC_TREE] == 1 and
                                                may_join(t, occ, pub[tree_at(ts, T_OCC2)], p))):
            continue
        tile = pub[tree_at(ts, T_TILE)]
        if tr[ts, TR_ROOT]:
            if pub[tree_at(ts, T_TOKENS)] < 0 and pub[tree_at(ts, T_TOKENS + 1)] < 0:
                continue
            points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, -1, -1, runes_left)
            best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                   OPT_TREE, ts, -1, -1, points, tokens, 0, runes, f4)
            n += 1
        elif tile < 0:
            # Valued with the unused tile colour the player holds most of (the tile
            # itself is chosen next, STEP_TILE).
            if top < -1:
                top = -1
                for y in range(n_col):
                    if pub[TILE_USED + y] == 0 and (top < 0 or hv[y] > hv[top]):
                        top = y
            if top >= 0:
                points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, top, -1,
                                                     runes_left)
                best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                       OPT_TREE, ts, -1, -1, points, tokens, 0, runes, f4)
                n += 1
        else:
            cost = rules[R_ALTAR_COST]
            if hv[tile] < cost:
                continue
            paid = tile if cost > 0 else -1
            points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, tile, paid,
                                                 runes_left)
            best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                   OPT_TREE, ts, tile, paid, points, tokens, 0, runes, f4)
            n += 1
    if n == 0:
        set_row(opts, 0, OPT_PASS, -1, -1, -1, 0, 0, 0, 0, 0)
        n = 1
    return n


@njit_without_refcounts
def tile_rows(t, pub, p, ts, opts, hv):
    """STEP_TILE: every unused Altar tile colour for tree space ts, with its effect."""
    n = 0
    holdings(pub, p, t.rules[R_N_COLOURS], hv)
    for y in range(t.rules[R_N_COLOURS]):
        if pub[TILE_USED + y] == 0:
            points, tokens, runes, f4 = tree_row(t.tree, t.rules, pub, hv, ts, y, -1,
                                                 pub[RUNES_LEFT])
            set_row(opts, n, OPT_TILE, y, -1, -1, points, tokens, 0, runes, f4)
            n += 1
    return n


@njit_without_refcounts
def colour_rows(t, pub, p, fewest, opts):
    """STEP_TOKEN: colours the supply holds (fewest: only those p holds fewest of)."""
    low = 1 << 30
    if fewest:
        for y in range(t.rules[R_N_COLOURS]):
            if pub[SUPPLY + y] > 0:
                low = min(low, held(pub, p, y))
    n = 0
    banned = t.rules[R_BAN_COLOUR] if p == t.rules[R_BAN_SEAT] else -1  # restricted play
    for y in range(t.rules[R_N_COLOURS]):
        if pub[SUPPLY + y] > 0 and (not fewest or held(pub, p, y) == low) and y != banned:
            set_row(opts, n, OPT_COLOUR, y, -1, -1, held(pub, p, y), 0, 0, 0, 0)
            n += 1
    return n


@njit_without_refcounts
def block_rows(t, pub, p, opts):
    """STEP_BLOCK: every free card space."""
    n = 0
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        if c < 0:
            continue
        free = free_spaces(t, pub, i)
        present = on_card(t, pub, i, p)
        for s in range(t.card[c, CARD_N_SPACES]):
            if pub[slot_at(i, S_OCC + s)] < 0:
                set_row(opts, n, OPT_BLOCK, i, s, -1, present, 0, 1 if free == 1 else 0, 0,
                        held(pub, p, t.card[c, CARD_COLOUR]))
                n += 1
    return n


@njit_without_refcounts
def new_start_rows(t, hid, k, opts):
    """STEP_NEW_START: the k New Start cards just drawn from the New Start deck, in draw
    order (its view made here, off the turn loop's path: layout.piles)."""
    _tops, rtops, _stack, new_starts, _starts, _decks, _discards = piles(t, hid)
    top = rtops[NEW_TOP] - k
    for j in range(k):
        c = new_starts[top + j]
        set_row(opts, j, OPT_NEW_START, c, t.card[c, CARD_COLOUR], t.card[c, CARD_NEXT], 0, 0,
                0, 0, 0)
    return k


@njit(cache=True, inline="always")
def action_key(t, opts, i):
    """Row i's move, for the search player's tree (the game API's `action_key`): its kind
    and what it names (A, B, C)."""
    row = opts[i]
    return (((np.int64(row[KIND]) * 1024 + row[A] + 1) * 1024 + row[B] + 1) * 1024
            + row[C] + 1)
