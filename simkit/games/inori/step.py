"""Inori: one step of play, written once for batch play, traced play and every
lookahead player's playouts: `next_decision` plays the automatic steps up to the next
decision and lists its options, `apply_option` applies the chosen row."""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.kernels.jit import grid
from simkit.rng import seat_stream

from .layout import (GAME_OVER, GREEDY, KIND, MAX_PLAYERS, NEUTRAL_LEFT,
                     OPT_CARD, OPT_RUNE, OPT_TREE, P_N_RUNES, PH_BLOCK, PH_END_TURN,
                     PH_MOVE, PH_NEXT_SEASON, PH_OFFER, PH_SEASON_END, PH_TILE, PH_TOKENS,
                     PH_TURN, PHASE, R_RUNE_AFTER, RUNE_DONE, SEASON, SEAT, STEP, STEP_BLOCK,
                     STEP_MOVE, STEP_OFFER, STEP_RUNE, STEP_TILE, STEP_TOKEN, STOP_SEASON,
                     TODO_AMOUNT, TODO_COLOUR, TODO_FEWEST, TODO_LEFT, A, B, C, hv_of,
                     player_at)
from .options import (block_rows, colour_rows, move_rows, new_start_rows, offer_rows, rune_rows,
                      tile_rows)
from .rules import (ask_tile, begin_season, begin_turn, block_space, end_turn, gain, keep_new_start,
                    move_marker, next_seat, offer_card, offer_tree, pass_turn, play_rune,
                    season_end)
from .scoring import needs_tile


# The policy of a table never fused (next_decision): never read, as `fusing` is False.
NO_SIDS = np.full(MAX_PLAYERS, -1, np.int64)
NO_PARAMS = np.zeros((MAX_PLAYERS, 1), np.float64)


@njit(cache=True, inline="always")
def next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing):
    """Play the automatic steps up to the next decision; its options go into `opts`.
    Returns their count, or GAME_OVER when the game is over and scored, or the season
    hid[STOP_SEASON] would begin."""
    n, _fused = next_fused(t, n_players, pub, hid, cnt, opts, rng, trace, tracing, NO_SIDS,
                           NO_PARAMS, grid(rng, 0, 1, rng.shape[0]), False,
                           hv_of(hid))
    return n


@njit(cache=True, inline="always")
def next_fused(t, n_players, pub, hid, cnt, opts, rng, trace, tracing, sids, params, srngs,
               fusing, hv):
    """`next_decision`, and whether, with `fusing`, a greedy seat's rune or offering table
    was built holding only its choice, in row 0 (seat s plays sids[s] with params[s]:
    options.put_offer, options.rune_rows; ties drawn from the seat's stream in `srngs`,
    rng.seat_stream): (count or GAME_OVER, fused). `hv` is hid's HV work slot, a view the
    batch's scratch makes once per thread (made here at every offering: 1.04 of main's CPU
    per game against 1.03, one measurement each).

    The phases are tested in the order play goes through them, each falling through to
    the next, so the usual way from one offering to the next (end of turn, next seat,
    offering) is one pass with the seat in a register."""
    phase = hid[PHASE]
    p = pub[SEAT]
    after = False  # a rune step (the loop's only break): after the offering, or before it
    while True:
        if phase == PH_END_TURN:
            if (t.rules[R_RUNE_AFTER] and hid[RUNE_DONE] == 0
                    and pub[player_at(p, P_N_RUNES)] > 0):  # options.rune_timing
                hid[RUNE_DONE] = 2
                hid[PHASE] = PH_END_TURN
                after = True
                break
            end_turn(pub, p)
            phase = PH_TURN
        if phase == PH_TURN:
            p = next_seat(n_players, pub, hid)
            if p >= 0:
                begin_turn(pub, hid, cnt, p)
                phase = PH_OFFER
                if pub[player_at(p, P_N_RUNES)] > 0:
                    hid[PHASE] = PH_OFFER
                    break
            else:
                phase = PH_SEASON_END
        if phase == PH_MOVE:  # then the offering, or the end of the turn after it
            hid[PHASE] = PH_END_TURN if hid[RUNE_DONE] == 2 else PH_OFFER
            pub[STEP] = STEP_MOVE
            return move_rows(t, pub, p, hid[TODO_AMOUNT], hid[TODO_COLOUR], opts), False
        if phase == PH_OFFER:
            hid[PHASE] = PH_END_TURN
            pub[STEP] = STEP_OFFER
            fuse = fusing and sids[p] == GREEDY
            return offer_rows(t, pub, p, opts, hv, fuse, params[p], seat_stream(srngs, p)), fuse
        if phase == PH_TILE:
            pub[STEP] = STEP_TILE
            return tile_rows(t, pub, p, hid[TODO_COLOUR], opts, hv), False
        if phase == PH_TOKENS:
            if hid[TODO_LEFT] > 0:
                hid[TODO_LEFT] -= 1
                pub[STEP] = STEP_TOKEN
                n = colour_rows(t, pub, p, hid[TODO_FEWEST] == 1, opts)
                if n > 0:
                    return n, False
            phase = PH_END_TURN  # done, or no colour left in the supply
            continue
        if phase == PH_BLOCK:
            if hid[TODO_LEFT] > 0 and pub[NEUTRAL_LEFT] > 0:
                hid[TODO_LEFT] -= 1
                pub[STEP] = STEP_BLOCK
                n = block_rows(t, pub, p, opts)
                if n > 0:
                    return n, False
            # the blocks are done (or impossible): then the tile colour's tokens
            gain(t, pub, p, hid[TODO_COLOUR], hid[TODO_AMOUNT], cnt, trace, tracing,
                 pub[SEASON])
            phase = PH_END_TURN
            continue
        if phase == PH_SEASON_END:
            # not inlined: a few times a game, and the turn loop stays small
            k = season_end(t, n_players, pub, hid, cnt, rng, trace, tracing)
            if k > 0:  # the New Start decision
                return new_start_rows(t, hid, k, opts), False
            if k < 0:  # the game is over
                return GAME_OVER, False
            phase = PH_NEXT_SEASON
        if phase == PH_NEXT_SEASON:
            begin_season(pub, hid)
            phase = PH_TURN
            if pub[SEASON] >= hid[STOP_SEASON]:
                return GAME_OVER, False
            continue
        return GAME_OVER, False  # PH_OVER
    # The rune table, built once here (numba copies an inlined function per call site).
    pub[STEP] = STEP_RUNE
    fuse = fusing and sids[p] == GREEDY
    return rune_rows(t, pub, p, opts, fuse, params[p], after, seat_stream(srngs, p)), fuse


@njit(cache=True, inline="always")
def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing):
    """Apply option row `c` of the pending decision."""
    p = pub[SEAT]
    step = pub[STEP]
    season = pub[SEASON]
    kind = opts[c, KIND]
    a = opts[c, A]
    # An offering to the tree, made below in one place (numba copies an inlined function
    # at every place it is called): its space, tile colour, tokens paid, tile placed now.
    ts, colour, paid, placed = -1, 0, 0, False
    if step == STEP_OFFER:
        if kind == OPT_CARD:
            offer_card(t, pub, hid, cnt, p, a, opts[c, B], opts[c, C], trace, tracing,
                       season)
        elif kind == OPT_TREE:
            if needs_tile(t, pub, a):
                ask_tile(hid, a, opts[c, C])
            else:
                ts, colour, paid = a, opts[c, B], opts[c, C]
        else:
            pass_turn(cnt, p, trace, tracing, season)
    elif step == STEP_RUNE:
        if kind == OPT_RUNE:
            play_rune(t, pub, hid, cnt, p, a, trace, tracing, season)
    elif step == STEP_TOKEN:
        gain(t, pub, p, a, hid[TODO_AMOUNT], cnt, trace, tracing, season)
    elif step == STEP_BLOCK:
        block_space(pub, cnt, p, a, opts[c, B], trace, tracing, season)
    elif step == STEP_TILE:
        hid[PHASE] = PH_END_TURN
        ts, colour, paid, placed = hid[TODO_COLOUR], a, hid[TODO_AMOUNT], True
    elif step == STEP_MOVE:
        move_marker(pub, p, opts[c, C], a, opts[c, B], trace, tracing, season)
    else:  # STEP_NEW_START: the first other card drawn leaves the game
        other = opts[1, A] if c == 0 and hid[TODO_LEFT] > 1 else (opts[0, A] if c > 0 else -1)
        keep_new_start(pub, cnt, p, a, other, trace, tracing, season)
    if ts >= 0:
        offer_tree(t, pub, hid, cnt, p, ts, colour, paid, placed, trace, tracing, season)
