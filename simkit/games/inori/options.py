"""Inori option tables: for each decision step, every legal option as a row, in the
canonical order layout.py documents, with the columns a strategy reads (what the option
scores now, gives, completes).

Each function writes the rows of one step into `opts` and returns their count. The rules
apply a chosen row (rules.py); play.py asks for these tables between the steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.kernels.jit import njit_without_refcounts
from simkit.kernels.ties import at_random, contest, may_win

from . import layout as L
from .scoring import (
    free_spaces,
    held,
    holdings,
    may_join,
    offering_value,
    on_card,
    rune_value,
    space_row,
    taken_places,
    tree_row,
)


@njit_without_refcounts
def set_row(opts, n, kind, a, b, c, points, f1, f2, f3, f4):
    opts[n, L.KIND] = kind
    opts[n, L.A] = a
    opts[n, L.B] = b
    opts[n, L.C] = c
    opts[n, L.POINTS] = points
    opts[n, L.F1] = f1
    opts[n, L.F2] = f2
    opts[n, L.F3] = f3
    opts[n, L.F4] = f4


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
    set_row(opts, 0, L.OPT_NO_RUNE, -1, -1, -1, 0, 0, 0, 0, 0)
    n = 1
    best = 0.0  # greedy's value of no rune (fuse), found once
    seen = 1
    w_token = w[0] if fuse else 0.0  # read once (weights: see offer_rows)
    random_ties = fuse and at_random(w[L.GREEDY_TIES])
    base = L.player_at(p, L.P_RUNES)
    banned = t.rules[L.R_BAN_RUNE] if p == t.rules[L.R_BAN_SEAT] else -1  # restricted play
    for h in range(pub[L.player_at(p, L.P_N_RUNES)]):
        tile = pub[base + h]
        kind = t.rune[tile, L.RU_KIND]
        if kind == banned:
            continue
        colour = t.rune[tile, L.RU_COLOUR]
        amount = t.rune[tile, L.RU_AMOUNT]
        f1 = min(amount, pub[L.SUPPLY + colour]) if kind == L.RUNE_GAIN else 0
        v = 0.0
        if fuse:
            v = rune_value(kind, f1, w_token)
            if not may_win(v, best, random_ties):
                continue
        repeat = False
        for e in range(h):
            other = pub[base + e]
            if (t.rune[other, L.RU_KIND] == kind and t.rune[other, L.RU_COLOUR] == colour
                    and t.rune[other, L.RU_AMOUNT] == amount):
                repeat = True
        if repeat:
            continue
        if kind == L.RUNE_OCCUPIED:
            if after or not occupied_target(t, pub, p):
                continue
        elif kind != L.RUNE_GAIN and not move_exists(t, pub, p, kind, colour):
            continue
        if fuse:
            take, best, seen = contest(v, best, seen, random_ties, rng)
            if take:
                set_row(opts, 0, L.OPT_RUNE, h, tile, kind, 0, f1, 0, 0, 0)
        else:
            set_row(opts, n, L.OPT_RUNE, h, tile, kind, 0, f1, 0, 0, 0)
        n += 1
    return n


@njit_without_refcounts
def occupied_target(t, pub, p):
    """True if seat p may join some occupied space (may_join): a card space, or
    with options.occupied_spaces = "any" a Great Tree space."""
    for i in range(pub[L.N_SLOTS]):
        c = pub[L.slot_at(i, L.S_CARD)]
        if c < 0:
            continue
        for s in range(t.card[c, L.CARD_N_SPACES]):
            if may_join(t, pub[L.slot_at(i, L.S_OCC + s)], pub[L.slot_at(i, L.S_OCC2 + s)], p):
                return True
    if t.rules[L.R_OCC_TREE]:
        for ts in range(t.rules[L.R_N_TREE]):
            if may_join(t, pub[L.tree_at(ts, L.T_OCC)], pub[L.tree_at(ts, L.T_OCC2)], p):
                return True
    return False


@njit_without_refcounts
def move_exists(t, pub, p, kind, colour):
    """True if a move rune of this kind and colour has a legal move for seat p."""
    n_slots = pub[L.N_SLOTS]
    for si in range(n_slots):
        cs = pub[L.slot_at(si, L.S_CARD)]
        if cs < 0 or (kind == L.RUNE_FROM_COLOUR and t.card[cs, L.CARD_COLOUR] != colour):
            continue
        if not (taken_places(pub, L.slot_at(si, 0)) > 0 if t.rules[L.R_MOVE_ANY]
                else on_card(t, pub, si, p)):
            continue
        for di in range(n_slots):
            cd = pub[L.slot_at(di, L.S_CARD)]
            if di == si or cd < 0:
                continue
            if kind == L.RUNE_TO_COLOUR and t.card[cd, L.CARD_COLOUR] != colour:
                continue
            if free_spaces(t, pub, di) > 0:
                return True
    return False


@njit_without_refcounts
def move_rows(t, pub, p, kind, colour, opts):
    """STEP_MOVE: moves of a piece for a move rune (options.move_piece: any piece, or one
    of seat p's own markers); C is the piece's owner."""
    n = 0
    n_slots = pub[L.N_SLOTS]
    any_piece = t.rules[L.R_MOVE_ANY] == 1
    for si in range(n_slots):
        cs = pub[L.slot_at(si, L.S_CARD)]
        if cs < 0:
            continue
        if kind == L.RUNE_FROM_COLOUR and t.card[cs, L.CARD_COLOUR] != colour:
            continue
        for ss in range(t.card[cs, L.CARD_N_SPACES]):
            extra = pub[L.slot_at(si, L.S_OCC2 + ss)]
            for layer in range(-1, L.MAX_PLAYERS):  # the first piece, then further markers
                who = pub[L.slot_at(si, L.S_OCC + ss)] if layer < 0 else (
                    layer if (extra >> layer) & 1 else -1)
                if who < 0 or not (any_piece or who == p):
                    continue
                for di in range(n_slots):
                    cd = pub[L.slot_at(di, L.S_CARD)]
                    if di == si or cd < 0:
                        continue
                    if kind == L.RUNE_TO_COLOUR and t.card[cd, L.CARD_COLOUR] != colour:
                        continue
                    free = free_spaces(t, pub, di)
                    for ds in range(t.card[cd, L.CARD_N_SPACES]):
                        if pub[L.slot_at(di, L.S_OCC + ds)] >= 0:
                            continue
                        set_row(opts, n, L.OPT_MOVE, si * L.MAX_SPACES + ss, di * L.MAX_SPACES + ds,
                                who, 0, 0, 1 if free == 1 else 0, 0,
                                held(pub, p, t.card[cd, L.CARD_COLOUR]))
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
    ws = (L.GreedyWeights(w[0], w[1], w[2], w[3], at_random(w[L.GREEDY_TIES])) if fuse
          else L.GreedyWeights(0.0, 0.0, 0.0, 0.0, False))
    cd = t.card
    tr = t.tree
    rules = t.rules
    n_col = rules[L.R_N_COLOURS]
    ret = rules[L.R_COST_RETURN] == 1
    choose_tie = rules[L.R_MAJ_TIE_CHOOSE] == 1
    occupied_ok = pub[L.OCCUPIED_OK] == 1
    runes_left = pub[L.RUNES_LEFT]
    distinct, most, ties = holdings(pub, p, n_col, hv)
    most_mask = np.uint64(0)
    for y in range(n_col):
        most_mask |= np.uint64(hv[y] == most) << np.uint64(y)
    restricted = p == rules[L.R_BAN_SEAT]  # restricted play (`simkit value`)
    ban_card = rules[L.R_BAN_CARD] if restricted else -1
    ban_tree = rules[L.R_BAN_TREE] if restricted else -1
    for i in range(pub[L.N_SLOTS]):
        sb = L.slot_at(i, 0)
        c = pub[sb + L.S_CARD]
        if c < 0 or c == ban_card:
            continue
        crow = cd[c]
        n_sp = crow[L.CARD_N_SPACES]
        own = crow[L.CARD_COLOUR]
        free = n_sp - taken_places(pub, sb)
        for s in range(n_sp):
            occ = pub[sb + L.S_OCC + s]
            if occ >= 0 and not (occupied_ok and may_join(t, occ, pub[sb + L.S_OCC2 + s], p)):
                continue
            completes = 1 if occ < 0 and free == 1 else 0
            base = L.space_col(s, 0)
            cost = crow[base + L.SP_COST]
            e = crow[base + L.SP_EFFECT]
            k = crow[base + L.SP_AMOUNT]
            x = crow[base + L.SP_COLOUR]
            x2 = crow[base + L.SP_COLOUR2]
            if cost == L.COST_NONE:
                points, tokens, runes, f4 = space_row(e, k, x, x2, own, pub, hv, False, -1,
                                                      runes_left, distinct, most, ties)
                best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                       L.OPT_CARD, i, s, -1, points, tokens, completes, runes, f4)
                n += 1
            elif cost != L.COST_MAJORITY:
                if hv[cost] >= 1:
                    points, tokens, runes, f4 = space_row(e, k, x, x2, own, pub, hv, ret,
                                                          cost, runes_left, distinct, most,
                                                          ties)
                    best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                           L.OPT_CARD, i, s, cost, points, tokens, completes, runes,
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
                    best, seen = put_offer(opts, n, best, seen, fuse, ws, rng, L.OPT_CARD,
                                           i, s, y, points, tokens, completes, runes, f4)
                    n += 1
    top = -2  # the unused tile colour held most, once needed
    for ts in range(rules[L.R_N_TREE]):
        occ = pub[L.tree_at(ts, L.T_OCC)]
        if ts == ban_tree or (occ >= 0 and not (occupied_ok and rules[L.R_OCC_TREE] == 1 and
                                                may_join(t, occ, pub[L.tree_at(ts, L.T_OCC2)], p))):
            continue
        tile = pub[L.tree_at(ts, L.T_TILE)]
        if tr[ts, L.TR_ROOT]:
            if pub[L.tree_at(ts, L.T_TOKENS)] < 0 and pub[L.tree_at(ts, L.T_TOKENS + 1)] < 0:
                continue
            points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, -1, -1, runes_left)
            best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                   L.OPT_TREE, ts, -1, -1, points, tokens, 0, runes, f4)
            n += 1
        elif tile < 0:
            # Valued with the unused tile colour the player holds most of (the tile
            # itself is chosen next, STEP_TILE).
            if top < -1:
                top = -1
                for y in range(n_col):
                    if pub[L.TILE_USED + y] == 0 and (top < 0 or hv[y] > hv[top]):
                        top = y
            if top >= 0:
                points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, top, -1,
                                                     runes_left)
                best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                       L.OPT_TREE, ts, -1, -1, points, tokens, 0, runes, f4)
                n += 1
        else:
            cost = rules[L.R_ALTAR_COST]
            if hv[tile] < cost:
                continue
            paid = tile if cost > 0 else -1
            points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, tile, paid,
                                                 runes_left)
            best, seen = put_offer(opts, n, best, seen, fuse, ws, rng,
                                   L.OPT_TREE, ts, tile, paid, points, tokens, 0, runes, f4)
            n += 1
    if n == 0:
        set_row(opts, 0, L.OPT_PASS, -1, -1, -1, 0, 0, 0, 0, 0)
        n = 1
    return n


@njit_without_refcounts
def tile_rows(t, pub, p, ts, opts, hv):
    """STEP_TILE: every unused Altar tile colour for tree space ts, with its effect."""
    n = 0
    holdings(pub, p, t.rules[L.R_N_COLOURS], hv)
    for y in range(t.rules[L.R_N_COLOURS]):
        if pub[L.TILE_USED + y] == 0:
            points, tokens, runes, f4 = tree_row(t.tree, t.rules, pub, hv, ts, y, -1,
                                                 pub[L.RUNES_LEFT])
            set_row(opts, n, L.OPT_TILE, y, -1, -1, points, tokens, 0, runes, f4)
            n += 1
    return n


@njit_without_refcounts
def colour_rows(t, pub, p, fewest, opts):
    """STEP_TOKEN: colours the supply holds (fewest: only those p holds fewest of)."""
    low = 1 << 30
    if fewest:
        for y in range(t.rules[L.R_N_COLOURS]):
            if pub[L.SUPPLY + y] > 0:
                low = min(low, held(pub, p, y))
    n = 0
    banned = t.rules[L.R_BAN_COLOUR] if p == t.rules[L.R_BAN_SEAT] else -1  # restricted play
    for y in range(t.rules[L.R_N_COLOURS]):
        if pub[L.SUPPLY + y] > 0 and (not fewest or held(pub, p, y) == low) and y != banned:
            set_row(opts, n, L.OPT_COLOUR, y, -1, -1, held(pub, p, y), 0, 0, 0, 0)
            n += 1
    return n


@njit_without_refcounts
def block_rows(t, pub, p, opts):
    """STEP_BLOCK: every free card space."""
    n = 0
    for i in range(pub[L.N_SLOTS]):
        c = pub[L.slot_at(i, L.S_CARD)]
        if c < 0:
            continue
        free = free_spaces(t, pub, i)
        present = on_card(t, pub, i, p)
        for s in range(t.card[c, L.CARD_N_SPACES]):
            if pub[L.slot_at(i, L.S_OCC + s)] < 0:
                set_row(opts, n, L.OPT_BLOCK, i, s, -1, present, 0, 1 if free == 1 else 0, 0,
                        held(pub, p, t.card[c, L.CARD_COLOUR]))
                n += 1
    return n


@njit_without_refcounts
def new_start_rows(t, new_starts, top, k, opts):
    """STEP_NEW_START: the k New Start cards drawn from `new_starts[top:]`, in draw order."""
    for j in range(k):
        c = new_starts[top + j]
        set_row(opts, j, L.OPT_NEW_START, c, t.card[c, L.CARD_COLOUR], t.card[c, L.CARD_NEXT], 0, 0,
                0, 0, 0)
    return k
