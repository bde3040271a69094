"""Inori: one step of play, written once for batch play, traced play and every
lookahead player's playouts: `next_decision` plays the automatic steps up to the next
decision and lists its options, `apply_option` applies the chosen row."""

from __future__ import annotations

from numba import njit

from simkit.rng import seat_stream

from . import layout as L
from . import options, rules
from .scoring import needs_tile


@njit(cache=True, inline="always")
def next_decision(t, n_players, pub, hid, cnt, done, decks, discards, tops, new_starts, stack,
                  rtops, rng, tied, opts, hv, sids, params, srngs, fusing, trace, tracing):
    """Play the automatic steps up to the next decision; its options go into `opts`.
    Returns (their count, fused): count 0 when the game is over and scored, or the season
    hid[STOP_SEASON] would begin; fused when, with `fusing`, a greedy seat's rune or
    offering table was built holding only its choice, in row 0 (options.put_offer,
    options.rune_rows; ties drawn from the seat's stream in `srngs`: rng.seat_stream).

    The phases are tested in the order play goes through them, each falling through to
    the next, so the usual way from one offering to the next (end of turn, next seat,
    offering) is one pass with the seat in a register."""
    phase = hid[L.PHASE]
    p = pub[L.SEAT]
    after = False  # a rune step (the loop's only break): after the offering, or before it
    while True:
        if phase == L.PH_END_TURN:
            if (t.rules[L.R_RUNE_AFTER] and hid[L.RUNE_DONE] == 0
                    and pub[L.player_at(p, L.P_N_RUNES)] > 0):  # options.rune_timing
                hid[L.RUNE_DONE] = 2
                hid[L.PHASE] = L.PH_END_TURN
                after = True
                break
            rules.end_turn(pub, p)
            phase = L.PH_TURN
        if phase == L.PH_TURN:
            p = rules.next_seat(n_players, pub, hid)
            if p >= 0:
                rules.begin_turn(pub, hid, cnt, p)
                phase = L.PH_OFFER
                if pub[L.player_at(p, L.P_N_RUNES)] > 0:
                    hid[L.PHASE] = L.PH_OFFER
                    break
            else:
                phase = L.PH_SEASON_END
        if phase == L.PH_MOVE:  # then the offering, or the end of the turn after it
            hid[L.PHASE] = L.PH_END_TURN if hid[L.RUNE_DONE] == 2 else L.PH_OFFER
            pub[L.STEP] = L.STEP_MOVE
            return options.move_rows(t, pub, p, hid[L.TODO_AMOUNT], hid[L.TODO_COLOUR], opts), False
        if phase == L.PH_OFFER:
            hid[L.PHASE] = L.PH_END_TURN
            pub[L.STEP] = L.STEP_OFFER
            fuse = fusing and sids[p] == L.GREEDY
            return options.offer_rows(t, pub, p, opts, hv, fuse, params[p],
                                      seat_stream(srngs, p)), fuse
        if phase == L.PH_TILE:
            pub[L.STEP] = L.STEP_TILE
            return options.tile_rows(t, pub, p, hid[L.TODO_COLOUR], opts, hv), False
        if phase == L.PH_TOKENS:
            if hid[L.TODO_LEFT] > 0:
                hid[L.TODO_LEFT] -= 1
                pub[L.STEP] = L.STEP_TOKEN
                n = options.colour_rows(t, pub, p, hid[L.TODO_FEWEST] == 1, opts)
                if n > 0:
                    return n, False
            phase = L.PH_END_TURN  # done, or no colour left in the supply
            continue
        if phase == L.PH_BLOCK:
            if hid[L.TODO_LEFT] > 0 and pub[L.NEUTRAL_LEFT] > 0:
                hid[L.TODO_LEFT] -= 1
                pub[L.STEP] = L.STEP_BLOCK
                n = options.block_rows(t, pub, p, opts)
                if n > 0:
                    return n, False
            # the blocks are done (or impossible): then the tile colour's tokens
            rules.gain(t, pub, p, hid[L.TODO_COLOUR], hid[L.TODO_AMOUNT], cnt, trace, tracing,
                       pub[L.SEASON])
            phase = L.PH_END_TURN
            continue
        if phase == L.PH_SEASON_END:
            # not inlined: a few times a game, and the turn loop stays small
            k = rules.season_end(t, n_players, pub, hid, cnt, done, decks, discards, tops, rtops,
                                 rng, tied, trace, tracing)
            if k > 0:  # the New Start decision
                return options.new_start_rows(t, new_starts, rtops[L.NEW_TOP] - k, k, opts), False
            if k < 0:  # the game is over
                return 0, False
            phase = L.PH_NEXT_SEASON
        if phase == L.PH_NEXT_SEASON:
            rules.begin_season(pub, hid)
            phase = L.PH_TURN
            if pub[L.SEASON] >= hid[L.STOP_SEASON]:
                return 0, False
            continue
        return 0, False  # PH_OVER
    # The rune table, built once here (numba copies an inlined function per call site).
    pub[L.STEP] = L.STEP_RUNE
    fuse = fusing and sids[p] == L.GREEDY
    return options.rune_rows(t, pub, p, opts, fuse, params[p], after, seat_stream(srngs, p)), fuse


@njit(cache=True, inline="always")
def apply_option(t, pub, hid, cnt, stack, rtops, opts, c, hv, trace, tracing):
    """Apply option row `c` of the pending decision."""
    p = pub[L.SEAT]
    step = pub[L.STEP]
    season = pub[L.SEASON]
    kind = opts[c, L.KIND]
    a = opts[c, L.A]
    # An offering to the tree, made below in one place (numba copies an inlined function
    # at every place it is called): its space, tile colour, tokens paid, tile placed now.
    ts, colour, paid, placed = -1, 0, 0, False
    if step == L.STEP_OFFER:
        if kind == L.OPT_CARD:
            rules.offer_card(t, pub, hid, cnt, p, a, opts[c, L.B], opts[c, L.C], hv, stack, rtops,
                             trace, tracing, season)
        elif kind == L.OPT_TREE:
            if needs_tile(t, pub, a):
                rules.ask_tile(hid, a, opts[c, L.C])
            else:
                ts, colour, paid = a, opts[c, L.B], opts[c, L.C]
        else:
            rules.pass_turn(cnt, p, trace, tracing, season)
    elif step == L.STEP_RUNE:
        if kind == L.OPT_RUNE:
            rules.play_rune(t, pub, hid, cnt, p, a, trace, tracing, season)
    elif step == L.STEP_TOKEN:
        rules.gain(t, pub, p, a, hid[L.TODO_AMOUNT], cnt, trace, tracing, season)
    elif step == L.STEP_BLOCK:
        rules.block_space(pub, cnt, p, a, opts[c, L.B], trace, tracing, season)
    elif step == L.STEP_TILE:
        hid[L.PHASE] = L.PH_END_TURN
        ts, colour, paid, placed = hid[L.TODO_COLOUR], a, hid[L.TODO_AMOUNT], True
    elif step == L.STEP_MOVE:
        rules.move_marker(pub, p, opts[c, L.C], a, opts[c, L.B], trace, tracing, season)
    else:  # STEP_NEW_START: the first other card drawn leaves the game
        other = opts[1, L.A] if c == 0 and hid[L.TODO_LEFT] > 1 else (opts[0, L.A] if c > 0 else -1)
        rules.keep_new_start(pub, cnt, p, a, other, trace, tracing, season)
    if ts >= 0:
        rules.offer_tree(t, pub, hid, cnt, p, ts, colour, paid, placed, stack, rtops, trace,
                         tracing, season)
