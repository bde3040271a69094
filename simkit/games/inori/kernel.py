"""Inori rules as numba kernels (state layout and option order: layout.py; the rules as
simulated, step by step: docs/inori.md).

One game is `play_game`; `simulate_batch` plays many in parallel, each from its own seed,
so results do not depend on thread count or chunk size.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

import simkit.rng
import strategies.inori
from simkit.jitcache import drop_stale_cache
from simkit.kernels import SOURCES as KERNEL_SOURCES
from simkit.kernels.jit import keep_alive, njit_with_refcounts, njit_without_refcounts, unowned
from simkit.kernels.lookahead import canonical, playout_value
from simkit.kernels.seating import prepare_game, seat_buffers
from simkit.kernels.trace import record_decision, record_event
from simkit.rng import next_u64, randint, stream_state
from strategies.inori import (
    GREEDY,
    PLANNER,
    PLANNER_DEFAULTS,
    ROLLOUT,
    ROLLOUT_WEIGHTS,
    choose,
    greedy_score,
    offering_value,
    rune_value,
)

from . import config as _config
from . import layout as _layout
from .config import Tables
from .layout import (
    CARD_COLOUR,
    CARD_KIND,
    CARD_N_SPACES,
    CARD_NEXT,
    COST_MAJORITY,
    COST_NONE,
    DECK_LEFT,
    EF_DISTINCT,
    EF_FEWEST,
    EF_GAIN,
    EF_PER_TOKEN,
    EF_RUNE,
    EV_BLOCK,
    EV_CARD,
    EV_COMPLETE,
    EV_DRAW_RUNE,
    EV_END,
    EV_FIRST,
    EV_GAIN,
    EV_INCOMPLETE,
    EV_MAJORITY,
    EV_MARKERS,
    EV_MOVE,
    EV_NEW_START,
    EV_PASS,
    EV_PAY,
    EV_POINTS,
    EV_REPLACE,
    EV_RESHUFFLE,
    EV_ROOT,
    EV_RUNE,
    EV_SCORE,
    EV_SETUP_CARD,
    EV_TREE,
    F1,
    F2,
    F3,
    F4,
    FIRST,
    JOURNEY,
    KIND,
    MAX_COLOURS,
    MAX_OPTIONS,
    MAX_PLAYERS,
    MAX_SLOTS,
    MAX_SPACES,
    MAX_TREE,
    N_COLS,
    N_PLAYERS,
    N_SLOTS,
    NEUTRAL,
    NEUTRAL_LEFT,
    NEW_START,
    OCCUPIED_OK,
    OPT_BLOCK,
    OPT_CARD,
    OPT_COLOUR,
    OPT_MOVE,
    OPT_NEW_START,
    OPT_NO_RUNE,
    OPT_PASS,
    OPT_RUNE,
    OPT_TILE,
    OPT_TREE,
    P_MARKERS,
    P_N_RUNES,
    P_RUNES,
    P_SCORE,
    P_TOKENS,
    POINTS,
    PUB_SIZE,
    R_ALTAR_COST,
    R_ALTAR_REPEAT,
    R_BAN_CARD,
    R_BAN_COLOUR,
    R_BAN_RUNE,
    R_BAN_SEAT,
    R_BAN_TREE,
    R_COST_RETURN,
    R_LOW_TIE,
    R_MAJ_FIRST,
    R_MAJ_SECOND,
    R_MAJ_TIE_CHOOSE,
    R_N_COLOURS,
    R_N_RUNES,
    R_N_TREE,
    R_NEUTRAL,
    R_NEW_START_DRAW,
    R_NEW_START_JOIN,
    R_RESHUFFLE,
    R_ROOT_RANDOM,
    R_SEASONS,
    R_START_IN_PLAY,
    RU_AMOUNT,
    RU_COLOUR,
    RU_KIND,
    RUNE_FROM_COLOUR,
    RUNE_GAIN,
    RUNE_OCCUPIED,
    RUNE_TO_COLOUR,
    RUNES_LEFT,
    S_CARD,
    S_OCC,
    S_OCC2,
    SEASON,
    SEAT,
    SP_AMOUNT,
    SP_COLOUR,
    SP_COLOUR2,
    SP_COST,
    SP_EFFECT,
    SRC_CARD,
    SRC_COMPLETE,
    SRC_MAJORITY,
    SRC_NEW_START,
    SRC_TREE,
    STEP,
    STEP_BLOCK,
    STEP_MOVE,
    STEP_NEW_START,
    STEP_OFFER,
    STEP_RUNE,
    STEP_TILE,
    STEP_TOKEN,
    SUPPLY,
    T_OCC,
    T_TILE,
    T_TOKENS,
    TE_ANY,
    TE_BLOCK,
    TE_POINTS,
    TE_RUNE_TOKEN,
    TE_TILE_POINTS,
    TE_TILE_TOKENS,
    TIE_RANDOM,
    TIE_TURN_ORDER,
    TILE_USED,
    TR_AMOUNT,
    TR_AMOUNT2,
    TR_EFFECT,
    TR_ROOT,
    A,
    B,
    C,
    player_at,
    slot_at,
    space_col,
    tree_at,
)

drop_stale_cache(__file__, strategies.inori.__file__, *KERNEL_SOURCES,
                 simkit.rng.__file__, _layout.__file__, _config.__file__)

N_SOURCES = len(_layout.SOURCES)
N_RUNE_KINDS = len(_layout.RUNE_KINDS)
# Per-seat counters kept in one scratch array while a game runs (copied to `out` at its
# end): passing the many output arrays to every helper would cost more than the work.
ST_SRC = 0  # points by source, N_SOURCES columns
ST_TREE = ST_SRC + N_SOURCES  # offerings per tree space, MAX_TREE columns
ST_RUNE = ST_TREE + MAX_TREE  # Rune tiles played per kind
(ST_DRAWN, ST_COMPLETED, ST_FIRST, ST_PASSED, ST_TILES, ST_TURNS, ST_PAID, ST_GAINED,
 ST_NEUTRAL, ST_NEW_START, ST_CARD_OFFERS) = range(ST_RUNE + N_RUNE_KINDS,
                                                   ST_RUNE + N_RUNE_KINDS + 11)
N_ST = ST_CARD_OFFERS + 1


def new_outputs(n_games: int, n_players: int, n_colours: int, n_tree: int,
                n_cards: int) -> tuple:
    """Allocate the per-game result arrays, in narrow dtypes."""
    g, p = n_games, n_players
    return (
        np.zeros((g, p), np.int16),  # 0 score
        np.zeros((g, p), np.int8),  # 1 rank (1 = best, ties share)
        np.zeros((g, p), np.float32),  # 2 win share
        np.zeros(g, np.int16),  # 3 rounds: seasons played
        np.zeros((g, p), np.int8),  # 4 strategy index (into the run's strategy list)
        np.zeros((g, p, n_colours), np.uint8),  # 5 Favor tokens held at the end, per colour
        np.zeros((g, p, N_SOURCES), np.int16),  # 6 points by source (layout.SOURCES)
        np.zeros((g, p, n_tree), np.uint8),  # 7 offerings to each Great Tree space
        np.zeros((g, p, N_RUNE_KINDS), np.uint8),  # 8 Rune tiles played, per kind
        np.zeros((g, p), np.uint8),  # 9 Rune tiles drawn
        np.zeros((g, p), np.uint8),  # 10 complete cards the player was present on
        np.zeros((g, p, n_cards), np.uint8),  # 11 ... per card id
        np.zeros((g, p), np.uint8),  # 12 seasons as first player
        np.zeros((g, p), np.uint8),  # 13 markers lost by passing
        np.zeros((g, p), np.uint8),  # 14 Altar tiles placed
        np.zeros((g, p), np.uint16),  # 15 turns taken (passes included)
        np.zeros((g, p), np.uint16),  # 16 Favor tokens paid (returned or shown)
        np.zeros((g, p), np.uint16),  # 17 Favor tokens gained
        np.zeros((g, p), np.uint8),  # 18 neutral markers placed
        np.zeros((g, p), np.uint8),  # 19 New Start cards kept
        np.zeros((g, p), np.uint16),  # 20 offerings to card spaces
    )


# ---------------------------------------------------------------- scratch
@njit(cache=True)
def unowned_views(t, s, out, tr):
    """Views without reference counts (simkit.kernels.jit.unowned) of the tables, one block's
    scratch, the outputs and the trace; the caller keeps the originals alive."""
    u = unowned
    tv = Tables(u(t.card), u(t.tree), u(t.rune), u(t.rules), u(t.setup), u(t.colour))
    sv = (u(s[0]), u(s[1]), u(s[2]), u(s[3]), u(s[4]), u(s[5]), u(s[6]), u(s[7]), u(s[8]),
          u(s[9]), u(s[10]), u(s[11]), u(s[12]), u(s[13]))
    ov = (u(out[0]), u(out[1]), u(out[2]), u(out[3]), u(out[4]), u(out[5]), u(out[6]),
          u(out[7]), u(out[8]), u(out[9]), u(out[10]), u(out[11]), u(out[12]), u(out[13]),
          u(out[14]), u(out[15]), u(out[16]), u(out[17]), u(out[18]), u(out[19]),
          u(out[20]))
    return tv, sv, ov, (u(tr[0]), u(tr[1]), u(tr[2]), u(tr[3]))


@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses)."""
    n_cards = t.card.shape[0]
    n_col = t.colour.shape[0]
    return (
        np.zeros(PUB_SIZE, np.int32),  # 0 public state
        np.zeros((MAX_OPTIONS, N_COLS), np.int32),  # 1 option table
        np.zeros((n_col, n_cards), np.int64),  # 2 Journey deck per colour (top first)
        np.zeros((n_col, n_cards), np.int64),  # 3 discarded Journey cards per colour
        np.zeros((3, n_col), np.int64),  # 4 per colour: deck top, deck length, discards
        np.zeros(n_cards, np.int64),  # 5 New Start deck (top first)
        np.zeros(max(t.rune.shape[0], 1), np.int64),  # 6 Rune stack
        np.zeros(4, np.int64),  # 7 New Start top, length; Rune top, length
        np.zeros((MAX_PLAYERS + 1, 1), np.uint64),  # 8 rng streams: deal, then per seat
        np.zeros(MAX_PLAYERS, np.int64),  # 9 scratch per seat (ties)
        np.zeros(n_cards, np.int64),  # 10 Start cards for this player count (setup)
        np.zeros((MAX_PLAYERS, N_ST), np.int64),  # 11 per-seat counters (ST_*)
        np.zeros((MAX_PLAYERS, n_cards), np.int64),  # 12 complete cards per seat and card
        np.zeros(MAX_COLOURS, np.int64),  # 13 the deciding seat's tokens (holdings())
    )


# ---------------------------------------------------------------- small rules
@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def put_offer(opts, n, best, fuse, w, kind, a, b, c, points, f1, f2, f3, f4):
    """Offering row n of the table; or, with `fuse` (a greedy seat with weights w), only
    the row greedy would choose (the first best) kept, in row 0: scored as the table is
    built instead of stored and scored. Returns the best score so far."""
    if fuse:
        v = offering_value(points, f1, f2, f3, f4, c, w[0], w[1], w[2], w[3])
        if v > best:
            set_row(opts, 0, kind, a, b, c, points, f1, f2, f3, f4)
            return v
        return best
    set_row(opts, n, kind, a, b, c, points, f1, f2, f3, f4)
    return best


@njit_without_refcounts
def shuffle(arr, n, rng):
    """Fisher-Yates over arr[:n], last position first."""
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        arr[i], arr[j] = arr[j], arr[i]


@njit(cache=True, inline="always")
def held(pub, p, x):
    return pub[player_at(p, P_TOKENS + x)]


@njit(cache=True, inline="always")
def gain(t, pub, p, x, k, st, trace, tracing, season):
    """Seat p gains up to k tokens of colour x from the supply; returns how many (none of
    a colour withheld from it by restricted play, `simkit value`)."""
    got = min(k, pub[SUPPLY + x])
    if p == t.rules[R_BAN_SEAT] and x == t.rules[R_BAN_COLOUR]:
        got = 0
    if got > 0:
        pub[SUPPLY + x] -= got
        pub[player_at(p, P_TOKENS + x)] += got
        st[p, ST_GAINED] += got
        record_event(trace, tracing, season, EV_GAIN, p, x, got, 0)
    return got


@njit(cache=True, inline="always")
def score(pub, p, points, source, st, trace, tracing, season):
    """Seat p scores `points` now (source: layout.SOURCES)."""
    if points > 0:
        pub[player_at(p, P_SCORE)] += points
        st[p, ST_SRC + source] += points
        record_event(trace, tracing, season, EV_POINTS, p, points, source, 0)


@njit(cache=True, inline="always")
def pay(t, pub, p, x, k, st, trace, tracing, season):
    """Seat p pays k tokens of colour x (returned to the supply, or only shown)."""
    if t.rules[R_COST_RETURN]:
        pub[player_at(p, P_TOKENS + x)] -= k
        pub[SUPPLY + x] += k
    st[p, ST_PAID] += k
    record_event(trace, tracing, season, EV_PAY, p, x, k, 0)


@njit(cache=True, inline="always")
def draw_runes(pub, p, k, stack, tops, st, trace, tracing, season):
    """Seat p draws up to k Rune tiles from the top of the stack."""
    for _ in range(k):
        if tops[2] >= tops[3]:
            return
        tile = stack[tops[2]]
        tops[2] += 1
        pub[RUNES_LEFT] -= 1
        h = pub[player_at(p, P_N_RUNES)]
        pub[player_at(p, P_RUNES + h)] = tile
        pub[player_at(p, P_N_RUNES)] = h + 1
        st[p, ST_DRAWN] += 1
        record_event(trace, tracing, season, EV_DRAW_RUNE, p, tile, 0, 0)


@njit(cache=True, inline="always")
def taken_places(pub, sb):
    """Spaces holding a marker on the card of the slot starting at pub[sb]. Counts over
    all MAX_SPACES places (those past a card's spaces always hold -1: setup and every
    season end clear them), so the loop has a fixed length and no exit to mispredict."""
    taken = 0
    for s in range(MAX_SPACES):
        taken += 1 if pub[sb + S_OCC + s] >= 0 else 0
    return taken


@njit(cache=True, inline="always")
def free_spaces(t, pub, i):
    """Free spaces of the card in slot i (0 for an empty slot)."""
    c = pub[slot_at(i, S_CARD)]
    if c < 0:
        return 0
    return t.card[c, CARD_N_SPACES] - taken_places(pub, slot_at(i, 0))


@njit(cache=True, inline="always")
def seats_on_card(t, pub, i):
    """Bit p + 1 set when seat p has a marker on the card in slot i (bit 0 means nothing:
    any empty place sets it; bit NEUTRAL + 1: a neutral marker). One pass, not per seat."""
    c = pub[slot_at(i, S_CARD)]
    m = 0
    for s in range(t.card[c, CARD_N_SPACES]):
        m |= (1 << (pub[slot_at(i, S_OCC + s)] + 1)) | (1 << (pub[slot_at(i, S_OCC2 + s)] + 1))
    return m


@njit(cache=True, inline="always")
def on_card(t, pub, i, p):
    """1 if seat p has a marker on the card in slot i."""
    c = pub[slot_at(i, S_CARD)]
    for s in range(t.card[c, CARD_N_SPACES]):
        if pub[slot_at(i, S_OCC + s)] == p or pub[slot_at(i, S_OCC2 + s)] == p:
            return 1
    return 0


# ---------------------------------------------------------------- options
@njit(cache=True, inline="always")
def move_rows(t, pub, p, kind, colour, opts):
    """STEP_MOVE: moves of one of seat p's markers for a move rune."""
    n = 0
    n_slots = pub[N_SLOTS]
    for si in range(n_slots):
        cs = pub[slot_at(si, S_CARD)]
        if cs < 0:
            continue
        if kind == RUNE_FROM_COLOUR and t.card[cs, CARD_COLOUR] != colour:
            continue
        for ss in range(t.card[cs, CARD_N_SPACES]):
            if pub[slot_at(si, S_OCC + ss)] != p and pub[slot_at(si, S_OCC2 + ss)] != p:
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
                    set_row(opts, n, OPT_MOVE, si * MAX_SPACES + ss, di * MAX_SPACES + ds, -1,
                            0, 0, 1 if free == 1 else 0, 0,
                            held(pub, p, t.card[cd, CARD_COLOUR]))
                    n += 1
    return n


@njit_without_refcounts
def move_exists(t, pub, p, kind, colour):
    """True if a move rune of this kind and colour has a legal move for seat p."""
    n_slots = pub[N_SLOTS]
    for si in range(n_slots):
        cs = pub[slot_at(si, S_CARD)]
        if cs < 0 or (kind == RUNE_FROM_COLOUR and t.card[cs, CARD_COLOUR] != colour):
            continue
        if not on_card(t, pub, si, p):
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


@njit(cache=True, inline="always")
def occupied_target(t, pub, p):
    """True if some card space holds exactly one marker and it is not seat p's."""
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        if c < 0:
            continue
        for s in range(t.card[c, CARD_N_SPACES]):
            occ = pub[slot_at(i, S_OCC + s)]
            if occ >= 0 and occ != p and pub[slot_at(i, S_OCC2 + s)] < 0:
                return True
    return False


@njit(cache=True, inline="always")
def rune_rows(t, pub, p, opts, fuse, w):
    """STEP_RUNE: no rune, then each usable tile unlike every earlier one in the hand.

    With `fuse` (a greedy seat with weights w), row 0 is greedy's choice and no other row
    is written: a tile greedy values at or below the best so far (no rune: 0) cannot be
    its choice, which is the first best, so its legality is never checked (greedy never
    plays a move or "occupied" tile, the costly checks)."""
    set_row(opts, 0, OPT_NO_RUNE, -1, -1, -1, 0, 0, 0, 0, 0)
    n = 1
    best = 0.0  # greedy's value of no rune (fuse)
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
            v = rune_value(kind, f1, w[0])
            if v <= best:
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
            if not occupied_target(t, pub, p):
                continue
        elif kind != RUNE_GAIN and not move_exists(t, pub, p, kind, colour):
            continue
        if fuse:
            best = v
            set_row(opts, 0, OPT_RUNE, h, tile, kind, 0, f1, 0, 0, 0)
        else:
            set_row(opts, n, OPT_RUNE, h, tile, kind, 0, f1, 0, 0, 0)
        n += 1
    return n


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


@njit(cache=True, inline="always")
def offer_rows(t, pub, p, opts, hv, fuse, w):
    """STEP_OFFER: card spaces, then tree spaces; a pass if there is nothing. With `fuse`
    (put_offer), row 0 is greedy's choice (weights w) and the other rows are not written:
    the seat's choice is row 0."""
    n = 0
    best = -1e300  # greedy's best score so far (fuse)
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
            if occ >= 0 and not (occupied_ok and occ != p and pub[sb + S_OCC2 + s] < 0):
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
                best = put_offer(opts, n, best, fuse, w, OPT_CARD, i, s, -1, points, tokens,
                                 completes, runes, f4)
                n += 1
            elif cost != COST_MAJORITY:
                if hv[cost] >= 1:
                    points, tokens, runes, f4 = space_row(e, k, x, x2, own, pub, hv, ret,
                                                          cost, runes_left, distinct, most,
                                                          ties)
                    best = put_offer(opts, n, best, fuse, w, OPT_CARD, i, s, cost, points,
                                     tokens, completes, runes, f4)
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
                    best = put_offer(opts, n, best, fuse, w, OPT_CARD, i, s, y, points, tokens,
                                     completes, runes, f4)
                    n += 1
    top = -2  # the unused tile colour held most, once needed
    for ts in range(rules[R_N_TREE]):
        if pub[tree_at(ts, T_OCC)] >= 0 or ts == ban_tree:
            continue
        tile = pub[tree_at(ts, T_TILE)]
        if tr[ts, TR_ROOT]:
            if pub[tree_at(ts, T_TOKENS)] < 0 and pub[tree_at(ts, T_TOKENS + 1)] < 0:
                continue
            points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, -1, -1, runes_left)
            best = put_offer(opts, n, best, fuse, w, OPT_TREE, ts, -1, -1, points, tokens, 0,
                             runes, f4)
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
                best = put_offer(opts, n, best, fuse, w, OPT_TREE, ts, -1, -1, points, tokens,
                                 0, runes, f4)
                n += 1
        else:
            cost = rules[R_ALTAR_COST]
            if hv[tile] < cost:
                continue
            paid = tile if cost > 0 else -1
            points, tokens, runes, f4 = tree_row(tr, rules, pub, hv, ts, tile, paid,
                                                 runes_left)
            best = put_offer(opts, n, best, fuse, w, OPT_TREE, ts, tile, paid, points, tokens,
                             0, runes, f4)
            n += 1
    if n == 0:
        set_row(opts, 0, OPT_PASS, -1, -1, -1, 0, 0, 0, 0, 0)
        n = 1
    return n

@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


# ---------------------------------------------------------------- decisions
@njit(cache=True, inline="always")
def ask(sid, opts, n, pub, t, params, rng):
    """Ask a strategy for an option row; an out-of-range answer falls back to row 0."""
    chosen = choose(sid, opts, n, pub, t, params, rng)
    if chosen < 0 or chosen >= n:
        return 0
    return chosen


# ---------------------------------------------------------------- decks
@njit_without_refcounts
def draw_journey(t, pub, decks, discards, tops, x, rng, trace, tracing, season):
    """Top card of colour x's Journey deck (-1 if none), rebuilding it from discards."""
    if tops[0, x] >= tops[1, x]:
        k = tops[2, x]
        if k == 0 or not t.rules[R_RESHUFFLE]:
            return -1
        for i in range(k):
            decks[x, i] = discards[x, i]
        shuffle(decks[x], k, rng)
        tops[0, x] = 0
        tops[1, x] = k
        tops[2, x] = 0
        record_event(trace, tracing, season, EV_RESHUFFLE, -1, x, k, 0)
    c = decks[x, tops[0, x]]
    tops[0, x] += 1
    pub[DECK_LEFT + x] = tops[1, x] - tops[0, x]
    return c


# ---------------------------------------------------------------- a turn
@njit(cache=True, inline="always")
def place_card(t, pub, p, i, s, paid, sid, prm, rg, opts, hv, stack, rtops, st, trace,
               tracing, season):
    """Offer to space s of the card in slot i (paying a token of `paid`), then its effect."""
    c = pub[slot_at(i, S_CARD)]
    record_event(trace, tracing, season, EV_CARD, p, i, s, c)
    if paid >= 0:
        pay(t, pub, p, paid, 1, st, trace, tracing, season)
    if pub[slot_at(i, S_OCC + s)] < 0:
        pub[slot_at(i, S_OCC + s)] = p
    else:
        pub[slot_at(i, S_OCC2 + s)] = p
    st[p, ST_CARD_OFFERS] += 1
    e = t.card[c, space_col(s, SP_EFFECT)]
    k = t.card[c, space_col(s, SP_AMOUNT)]
    if e == EF_GAIN:
        gain(t, pub, p, t.card[c, space_col(s, SP_COLOUR)], k, st, trace, tracing, season)
    elif e == EF_FEWEST:
        pub[STEP] = STEP_TOKEN
        n = colour_rows(t, pub, p, True, opts)
        if n > 0:
            ch = ask(sid, opts, n, pub, t, prm, rg)
            record_decision(trace, tracing, season, p, STEP_TOKEN, opts, n, ch)
            gain(t, pub, p, opts[ch, A], k, st, trace, tracing, season)
    elif e == EF_RUNE:
        draw_runes(pub, p, k, stack, rtops, st, trace, tracing, season)
    else:
        distinct, most, ties = holdings(pub, p, t.rules[R_N_COLOURS], hv)
        points = card_row(t.card, pub, hv, False, c, s, -1, 0, distinct, most, ties)[0]
        score(pub, p, points, SRC_CARD, st, trace, tracing, season)


@njit(cache=True, inline="always")
def place_tree(t, pub, p, ts, colour, paid, sid, prm, rg, opts, hv, stack, rtops, st, trace,
               tracing, season):
    """Offer to tree space ts (placing Altar tile `colour` if it has none), then its effect."""
    root = t.tree[ts, TR_ROOT] == 1
    placed = not root and pub[tree_at(ts, T_TILE)] < 0
    if placed:  # choose the Altar tile first: the effect may name its colour
        pub[STEP] = STEP_TILE
        n = tile_rows(t, pub, p, ts, opts, hv)
        ch = ask(sid, opts, n, pub, t, prm, rg)
        record_decision(trace, tracing, season, p, STEP_TILE, opts, n, ch)
        colour = opts[ch, A]
    record_event(trace, tracing, season, EV_TREE, p, ts, colour, 1 if placed else 0)
    if paid >= 0:
        pay(t, pub, p, paid, t.rules[R_ALTAR_COST], st, trace, tracing, season)
    pub[tree_at(ts, T_OCC)] = p
    st[p, ST_TREE + ts] += 1
    if placed:
        pub[tree_at(ts, T_TILE)] = colour
        pub[TILE_USED + colour] = 1
        st[p, ST_TILES] += 1
    elif not root and not t.rules[R_ALTAR_REPEAT]:
        return
    e = t.tree[ts, TR_EFFECT]
    k = t.tree[ts, TR_AMOUNT]
    k2 = t.tree[ts, TR_AMOUNT2]
    if e == TE_ANY:
        for _ in range(k):
            pub[STEP] = STEP_TOKEN
            n = colour_rows(t, pub, p, False, opts)
            if n == 0:
                break
            ch = ask(sid, opts, n, pub, t, prm, rg)
            record_decision(trace, tracing, season, p, STEP_TOKEN, opts, n, ch)
            gain(t, pub, p, opts[ch, A], 1, st, trace, tracing, season)
    elif e == TE_POINTS:
        score(pub, p, k, SRC_TREE, st, trace, tracing, season)
    elif e == TE_RUNE_TOKEN:
        draw_runes(pub, p, k, stack, rtops, st, trace, tracing, season)
        gain(t, pub, p, colour, k2, st, trace, tracing, season)
    elif e == TE_TILE_POINTS:
        score(pub, p, k * held(pub, p, colour), SRC_TREE, st, trace, tracing, season)
    elif e == TE_BLOCK:
        for _ in range(k):
            if pub[NEUTRAL_LEFT] == 0:
                break
            pub[STEP] = STEP_BLOCK
            n = block_rows(t, pub, p, opts)
            if n == 0:
                break
            ch = ask(sid, opts, n, pub, t, prm, rg)
            record_decision(trace, tracing, season, p, STEP_BLOCK, opts, n, ch)
            pub[slot_at(opts[ch, A], S_OCC + opts[ch, B])] = NEUTRAL
            pub[NEUTRAL_LEFT] -= 1
            st[p, ST_NEUTRAL] += 1
            record_event(trace, tracing, season, EV_BLOCK, p, opts[ch, A], opts[ch, B], 0)
        gain(t, pub, p, colour, k2, st, trace, tracing, season)
    elif e == TE_TILE_TOKENS:
        gain(t, pub, p, colour, k, st, trace, tracing, season)
    else:  # TE_ROOT: the reserved tokens (already out of the supply)
        banned = t.rules[R_BAN_COLOUR] if p == t.rules[R_BAN_SEAT] else -1
        for i in range(2):
            x = pub[tree_at(ts, T_TOKENS + i)]
            if x >= 0 and x != banned:  # a withheld colour stays on the root
                pub[player_at(p, P_TOKENS + x)] += 1
                pub[tree_at(ts, T_TOKENS + i)] = -1
                st[p, ST_GAINED] += 1
                record_event(trace, tracing, season, EV_GAIN, p, x, 1, 0)


@njit(cache=True, inline="always")
def play_rune(t, pub, p, h, sid, prm, rg, opts, st, trace, tracing, season):
    """Play the Rune tile at hand position h."""
    base = player_at(p, P_RUNES)
    tile = pub[base + h]
    n_held = pub[player_at(p, P_N_RUNES)]
    for e in range(h, n_held - 1):
        pub[base + e] = pub[base + e + 1]
    pub[base + n_held - 1] = 0
    pub[player_at(p, P_N_RUNES)] = n_held - 1
    kind = t.rune[tile, RU_KIND]
    colour = t.rune[tile, RU_COLOUR]
    st[p, ST_RUNE + kind] += 1
    record_event(trace, tracing, season, EV_RUNE, p, tile, kind, 0)
    if kind == RUNE_GAIN:
        gain(t, pub, p, colour, t.rune[tile, RU_AMOUNT], st, trace, tracing, season)
    elif kind == RUNE_OCCUPIED:
        pub[OCCUPIED_OK] = 1
    else:
        pub[STEP] = STEP_MOVE
        n = move_rows(t, pub, p, kind, colour, opts)
        ch = ask(sid, opts, n, pub, t, prm, rg)
        record_decision(trace, tracing, season, p, STEP_MOVE, opts, n, ch)
        src = opts[ch, A]
        dst = opts[ch, B]
        si, ss = src // MAX_SPACES, src % MAX_SPACES
        if pub[slot_at(si, S_OCC + ss)] == p:
            pub[slot_at(si, S_OCC + ss)] = pub[slot_at(si, S_OCC2 + ss)]
        pub[slot_at(si, S_OCC2 + ss)] = -1
        pub[slot_at(dst // MAX_SPACES, S_OCC + dst % MAX_SPACES)] = p
        record_event(trace, tracing, season, EV_MOVE, p, src, dst, 0)


# ---------------------------------------------------------------- season end
@njit_without_refcounts
def end_season(t, pub, n_players, season, last, decks, discards, tops, rng, st, done, trace,
               tracing):
    """Score every card, return markers, replace cards (not after the last season)."""
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        if c < 0:
            continue
        n_sp = t.card[c, CARD_N_SPACES]
        complete = free_spaces(t, pub, i) == 0
        if complete:
            record_event(trace, tracing, season, EV_COMPLETE, -1, i, c, 0)
            colour = t.card[c, CARD_COLOUR]
            source = SRC_COMPLETE
        else:
            record_event(trace, tracing, season, EV_INCOMPLETE, -1, i, c, 0)
            colour = t.card[c, CARD_NEXT]
            source = SRC_NEW_START
        if complete or t.card[c, CARD_KIND] == NEW_START:
            seats = seats_on_card(t, pub, i)
            for p in range(n_players):
                if seats >> (p + 1) & 1:
                    pts = held(pub, p, colour)
                    pub[player_at(p, P_SCORE)] += pts
                    st[p, ST_SRC + source] += pts
                    if complete:
                        st[p, ST_COMPLETED] += 1
                        done[p, c] += 1
                    record_event(trace, tracing, season, EV_SCORE, p, i, pts, source)
        for s in range(n_sp):
            pub[slot_at(i, S_OCC + s)] = -1
            pub[slot_at(i, S_OCC2 + s)] = -1
        if last:
            continue
        if t.card[c, CARD_KIND] == JOURNEY:
            own = t.card[c, CARD_COLOUR]
            discards[own, tops[2, own]] = c
            tops[2, own] += 1
        new = draw_journey(t, pub, decks, discards, tops, colour, rng, trace, tracing, season)
        pub[slot_at(i, S_CARD)] = new
        record_event(trace, tracing, season, EV_REPLACE, -1, i, c, new)
    for ts in range(t.rules[R_N_TREE]):
        pub[tree_at(ts, T_OCC)] = -1
    pub[NEUTRAL_LEFT] = t.rules[R_NEUTRAL]


@njit_without_refcounts
def fewest_points(t, pub, n_players, rng, tied):
    """The player with the fewest points (ties: options.fewest_points_tie)."""
    low = 1 << 30
    for p in range(n_players):
        low = min(low, pub[player_at(p, P_SCORE)])
    k = 0
    for j in range(n_players):
        p = (pub[FIRST] + j) % n_players
        if pub[player_at(p, P_SCORE)] == low:
            tied[k] = p
            k += 1
    mode = t.rules[R_LOW_TIE]
    if mode == TIE_TURN_ORDER:
        return tied[0]
    if mode == TIE_RANDOM:
        return tied[randint(rng, k)]
    return tied[k - 1]


# ---------------------------------------------------------------- setup, game end
@njit_without_refcounts
def setup_game(t, n_players, seed, scratch, trace, tracing):
    """Setup (docs/inori.md, steps 1-6) of the game of `seed` into `scratch`."""
    (pub, opts, decks, discards, tops, new_starts, stack, rtops, rngs, tied, starts, st,
     done, hv) = scratch
    n_col = t.rules[R_N_COLOURS]
    n_cards = t.card.shape[0]
    seasons = t.rules[R_SEASONS]
    n_tree = t.rules[R_N_TREE]
    pub[:] = 0
    st[:, :] = 0
    done[:, :] = 0
    for s in range(n_players):
        rngs[1 + s, 0] = stream_state(seed, np.uint64(1 + s))
    rng = rngs[0]
    rng[0] = stream_state(seed, np.uint64(0))
    pub[N_PLAYERS] = n_players
    for i in range(MAX_SLOTS):
        pub[slot_at(i, S_CARD)] = -1
        for s in range(MAX_SPACES):
            pub[slot_at(i, S_OCC + s)] = -1
            pub[slot_at(i, S_OCC2 + s)] = -1
    for ts in range(MAX_TREE):
        pub[tree_at(ts, T_OCC)] = -1
        pub[tree_at(ts, T_TILE)] = -1
        pub[tree_at(ts, T_TOKENS)] = -1
        pub[tree_at(ts, T_TOKENS + 1)] = -1
    for x in range(n_col):
        pub[SUPPLY + x] = t.colour[x, 0]

    # Setup 1: each colour's Journey deck (in card order: one pass), shuffled.
    for x in range(n_col):
        tops[1, x] = 0
    for c in range(n_cards):
        if t.card[c, CARD_KIND] == JOURNEY:
            x = t.card[c, CARD_COLOUR]
            decks[x, tops[1, x]] = c
            tops[1, x] += 1
    for x in range(n_col):
        shuffle(decks[x], tops[1, x], rng)
        tops[0, x] = 0
        tops[2, x] = 0
        pub[DECK_LEFT + x] = tops[1, x]
    # Setup 2: the New Start deck.
    k = 0
    for c in range(n_cards):
        if t.card[c, CARD_KIND] == NEW_START:
            new_starts[k] = c
            k += 1
    shuffle(new_starts, k, rng)
    rtops[0] = 0
    rtops[1] = k
    # Setup 3: the Rune stack.
    n_runes = t.rules[R_N_RUNES]
    for r in range(n_runes):
        stack[r] = r
    shuffle(stack, n_runes, rng)
    rtops[2] = 0
    rtops[3] = n_runes
    pub[RUNES_LEFT] = n_runes
    # Setup 4: Start cards for this player count, shuffled; the first ones go in play.
    k = 0
    for j in range(seasons, t.setup.shape[1]):
        if t.setup[n_players, j] >= 0:
            starts[k] = t.setup[n_players, j]
            k += 1
    shuffle(starts, k, rng)
    for i in range(t.rules[R_START_IN_PLAY]):
        pub[slot_at(i, S_CARD)] = starts[i]
        record_event(trace, tracing, 0, EV_SETUP_CARD, -1, i, starts[i], 0)
    pub[N_SLOTS] = t.rules[R_START_IN_PLAY]
    # Setup 5: the root spaces' reserved tokens.
    for ts in range(n_tree):
        if not t.tree[ts, TR_ROOT]:
            continue
        for j in range(t.tree[ts, TR_AMOUNT]):
            if t.rules[R_ROOT_RANDOM]:
                total = 0
                for x in range(n_col):
                    total += pub[SUPPLY + x]
                x = -1
                if total > 0:
                    r = randint(rng, total)
                    x = 0
                    while r >= pub[SUPPLY + x]:
                        r -= pub[SUPPLY + x]
                        x += 1
            else:
                x = t.colour[0, 2 + 2 * ts + j]
                if pub[SUPPLY + x] == 0:
                    x = -1
            if x >= 0:
                pub[SUPPLY + x] -= 1
            pub[tree_at(ts, T_TOKENS + j)] = x
        record_event(trace, tracing, 0, EV_ROOT, -1, ts, pub[tree_at(ts, T_TOKENS)],
                     pub[tree_at(ts, T_TOKENS + 1)])
    # Setup 6: markers; seat 0 goes first.
    for p in range(n_players):
        pub[player_at(p, P_MARKERS)] = t.setup[n_players, 0]
    pub[FIRST] = 0
    pub[NEUTRAL_LEFT] = t.rules[R_NEUTRAL]
    st[0, ST_FIRST] += 1


@njit_without_refcounts
def end_game(t, pub, n_players, st, trace, tracing):
    """Game end: majorities on every tree space holding an Altar tile."""
    seasons = t.rules[R_SEASONS]
    n_tree = t.rules[R_N_TREE]
    record_event(trace, tracing, seasons - 1, EV_END, -1, seasons, 0, 0)
    first_pts = t.rules[R_MAJ_FIRST]
    second_pts = t.rules[R_MAJ_SECOND]
    for ts in range(n_tree):
        x = pub[tree_at(ts, T_TILE)]
        if x < 0:
            continue
        top = 0
        for p in range(n_players):
            top = max(top, held(pub, p, x))
        if top == 0:
            continue
        leaders = 0
        for p in range(n_players):
            if held(pub, p, x) == top:
                leaders += 1
                pub[player_at(p, P_SCORE)] += first_pts
                st[p, ST_SRC + SRC_MAJORITY] += first_pts
                record_event(trace, tracing, seasons - 1, EV_MAJORITY, p, x, first_pts, 1)
        if leaders > 1:
            continue
        nxt = 0
        for p in range(n_players):
            if held(pub, p, x) < top:
                nxt = max(nxt, held(pub, p, x))
        if nxt == 0:
            continue
        for p in range(n_players):
            if held(pub, p, x) == nxt:
                pub[player_at(p, P_SCORE)] += second_pts
                st[p, ST_SRC + SRC_MAJORITY] += second_pts
                record_event(trace, tracing, seasons - 1, EV_MAJORITY, p, x, second_pts, 2)


# ---------------------------------------------------------------- rollout player
# The rollout player needs the rules to play forward, so it lives here rather than in
# strategies/inori.py (which the kernel imports: the other way round would be a circular
# import). `playout` is a one-strategy copy of `play_game`'s season loop without outputs or
# tracing (calling `play_game` from a decision would be recursion, which numba cannot
# compile); it shares every rule helper (options, offerings, runes, season and game end).
# tests/test_inori_rollout.py checks it replays all-greedy games exactly.
@njit_with_refcounts
def playout(t, n_players, pub, decks, discards, tops, new_starts, stack, rtops, rng, tied,
            st, done, hv, opts, sid, prm, resume, horizon, trace):
    """Play on with every seat played by strategy `sid` (weights `prm`) from the turn of
    the player `resume` places after this season's first player in the current season's
    turn pass (0: the season's start), until the game ends (majorities scored) or
    `horizon` season ends have passed (0: no limit). `rng` stands for the deal stream
    (reshuffles, random ties). Returns the number of season ends played."""
    seasons = t.rules[R_SEASONS]
    ends = 0
    season = pub[SEASON]
    while True:
        start = resume
        anyone = resume > 0
        while True:
            for j in range(start, n_players):
                p = (pub[FIRST] + j) % n_players
                if pub[player_at(p, P_MARKERS)] == 0:
                    continue
                anyone = True
                pub[SEAT] = p
                pub[OCCUPIED_OK] = 0
                fuse = sid == GREEDY
                if pub[player_at(p, P_N_RUNES)] > 0:
                    pub[STEP] = STEP_RUNE
                    n = rune_rows(t, pub, p, opts, fuse, prm)
                    ch = 0 if fuse else ask(sid, opts, n, pub, t, prm, rng)
                    if opts[ch, KIND] == OPT_RUNE:
                        play_rune(t, pub, p, opts[ch, A], sid, prm, rng, opts, st, trace,
                                  False, season)
                pub[STEP] = STEP_OFFER
                n = offer_rows(t, pub, p, opts, hv, fuse, prm)
                ch = 0 if fuse else ask(sid, opts, n, pub, t, prm, rng)
                take_offer(t, pub, p, opts, ch, sid, prm, rng, hv, stack, rtops, st, trace,
                           season)
            start = 0
            if not anyone:
                break
            anyone = False
        resume = 0
        last = season == seasons - 1
        end_season(t, pub, n_players, season, last, decks, discards, tops, rng, st, done,
                   trace, False)
        ends += 1
        if last:
            end_game(t, pub, n_players, st, trace, False)
            return ends
        for p in range(n_players):
            pub[player_at(p, P_MARKERS)] = t.setup[n_players, season + 1]
        low = fewest_points(t, pub, n_players, rng, tied)
        pub[FIRST] = low
        if t.rules[R_NEW_START_JOIN]:
            k = min(t.rules[R_NEW_START_DRAW], rtops[1] - rtops[0])
            if k > 0:
                for j in range(k):
                    c = new_starts[rtops[0] + j]
                    set_row(opts, j, OPT_NEW_START, c, t.card[c, CARD_COLOUR],
                            t.card[c, CARD_NEXT], 0, 0, 0, 0, 0)
                rtops[0] += k
                pub[SEAT] = low
                pub[STEP] = STEP_NEW_START
                ch = ask(sid, opts, k, pub, t, prm, rng)
                i = pub[N_SLOTS]
                pub[slot_at(i, S_CARD)] = opts[ch, A]
                pub[N_SLOTS] = i + 1
        season += 1
        pub[SEASON] = season
        if horizon > 0 and ends >= horizon:
            return ends


@njit(cache=True, inline="always")
def take_offer(t, pub, p, opts, ch, sid, prm, rg, hv, stack, rtops, st, trace, season):
    """Seat p makes offering row ch (its effect's decisions by `sid`), untraced, and
    spends the marker."""
    kind = opts[ch, KIND]
    a, b, c = opts[ch, A], opts[ch, B], opts[ch, C]
    if kind == OPT_CARD:
        place_card(t, pub, p, a, b, c, sid, prm, rg, opts, hv, stack, rtops, st, trace,
                   False, season)
    elif kind == OPT_TREE:
        place_tree(t, pub, p, a, b, c, sid, prm, rg, opts, hv, stack, rtops, st, trace,
                   False, season)
    pub[player_at(p, P_MARKERS)] -= 1
    pub[OCCUPIED_OK] = 0


@njit_with_refcounts
def rollout_offer(t, n_players, pub, opts, n, decks, discards, tops, new_starts, stack, rtops,
                  params, rng, trace):
    """The rollout player's offering: the row of `opts[:n]` whose playouts score best.

    Sees only what its seat may see: `pub`, and of the hidden decks only their contents
    (every card that left a deck was shown), never their order: each Journey deck, its
    discards, the New Start deck and the Rune stack are taken as sorted sets. Tries the
    `params[2]` best rows by greedy's score, always with the policy's own choice among them
    (policy `params[3]`: 0 greedy with its default weights, 1 the planner with the
    weights in `params[ROLLOUT_WEIGHTS:]`). Each of `params[0]`
    rollouts re-shuffles those sets with the seat's own stream `rng` and plays every
    candidate forward on that same deal (common random numbers): the offering with the
    policy's effect decisions, then the rest of the game (or `params[1]` season ends) with
    every seat played by the policy. A playout's value is
    the seat's win share (on the score when cut short) plus 0.001 per point of margin over
    the best other seat; the best mean wins (ties: the earlier row).
    """
    if n <= 1:
        return 0
    p = pub[SEAT]
    sid = GREEDY
    prm = np.ones(PLANNER_DEFAULTS.shape[0], np.float64)
    if params[3] >= 0.5:
        sid = PLANNER
        prm[:] = params[ROLLOUT_WEIGHTS:ROLLOUT_WEIGHTS + prm.shape[0]]
    n_rollouts = max(1, np.int64(params[0] + 0.5))
    horizon = np.int64(params[1] + 0.5)
    k = min(n, max(1, np.int64(params[2] + 0.5)))
    n_col = t.rules[R_N_COLOURS]
    n_cards = t.card.shape[0]
    scores = np.empty(n, np.float64)
    for i in range(n):
        scores[i] = -greedy_score(opts, i, 1.0, 1.0, 1.0, 1.0)
    cand = np.argsort(scores, kind="mergesort")[:k]
    pick = ask(sid, opts, n, pub, t, prm, rng)  # the policy's own choice is always tried
    if not (cand == pick).any():
        cand[k - 1] = pick
    cand = np.sort(cand)
    rows = np.empty((k, N_COLS), np.int32)
    for i in range(k):
        rows[i] = opts[cand[i]]
    # What the seat knows, canonical: deck contents (sorted), discards (sorted).
    kdecks = np.zeros((n_col, n_cards), np.int64)
    kdisc = np.zeros((n_col, n_cards), np.int64)
    ktops = np.zeros((3, n_col), np.int64)
    for x in range(n_col):
        ktops[1, x] = canonical(decks[x], tops[0, x], tops[1, x], kdecks[x])
        ktops[2, x] = canonical(discards[x], 0, tops[2, x], kdisc[x])
    knew = np.zeros(new_starts.shape[0], np.int64)
    kstack = np.zeros(stack.shape[0], np.int64)
    krt = np.zeros(4, np.int64)
    krt[1] = canonical(new_starts, rtops[0], rtops[1], knew)
    krt[3] = canonical(stack, rtops[2], rtops[3], kstack)
    # Work arrays of the playouts (the game's own are never touched).
    sdecks = np.empty_like(kdecks)
    snew = np.empty_like(knew)
    sstack = np.empty_like(kstack)
    rpub = np.empty_like(pub)
    rdecks = np.empty_like(kdecks)
    rdisc = np.empty_like(kdisc)
    rtops3 = np.empty_like(ktops)
    rnew = np.empty_like(knew)
    rstack = np.empty_like(kstack)
    rrt = np.empty_like(krt)
    rr = np.zeros(1, np.uint64)
    ropts = np.zeros((MAX_OPTIONS, N_COLS), np.int32)
    rst = np.zeros((MAX_PLAYERS, N_ST), np.int64)
    rdone = np.zeros((MAX_PLAYERS, n_cards), np.int64)
    rhv = np.zeros(MAX_COLOURS, np.int64)
    rtied = np.zeros(MAX_PLAYERS, np.int64)
    total = np.zeros(k, np.float64)
    finals = np.zeros(n_players, np.int64)  # each playout's final scores
    resume = (p - pub[FIRST]) % n_players + 1
    season = pub[SEASON]
    for _ in range(n_rollouts):
        sdecks[:, :] = kdecks
        for x in range(n_col):
            shuffle(sdecks[x], ktops[1, x], rng)
        snew[:] = knew
        shuffle(snew, krt[1], rng)
        sstack[:] = kstack
        shuffle(sstack, krt[3], rng)
        seed = next_u64(rng)
        for i in range(k):
            rpub[:] = pub
            rdecks[:, :] = sdecks
            rdisc[:, :] = kdisc
            rtops3[:, :] = ktops
            rnew[:] = snew
            rstack[:] = sstack
            rrt[:] = krt
            rr[0] = seed
            ropts[:k] = rows
            take_offer(t, rpub, p, ropts, i, sid, prm, rr, rhv, rstack, rrt, rst, trace,
                       season)
            playout(t, n_players, rpub, rdecks, rdisc, rtops3, rnew, rstack, rrt, rr, rtied,
                    rst, rdone, rhv, ropts, sid, prm, resume, horizon, trace)
            for q in range(n_players):
                finals[q] = rpub[player_at(q, P_SCORE)]
            total[i] += playout_value(finals, finals, p, n_players)
    best = 0
    for i in range(1, k):
        if total[i] > total[best]:
            best = i
    return cand[best]


# ---------------------------------------------------------------- one game
@njit_without_refcounts
def play_game(t, n_players, seed, sids, params, out, g, scratch, trace, tracing):
    """Play one game from `seed` into row g of `out`; seat s plays strategy sids[s]."""
    (pub, opts, decks, discards, tops, new_starts, stack, rtops, rngs, tied, starts, st,
     done, hv) = scratch
    n_col = t.rules[R_N_COLOURS]
    n_cards = t.card.shape[0]
    seasons = t.rules[R_SEASONS]
    n_tree = t.rules[R_N_TREE]
    setup_game(t, n_players, seed, scratch, trace, tracing)
    rng = rngs[0]

    for season in range(seasons):
        pub[SEASON] = season
        while True:
            anyone = False
            for j in range(n_players):
                p = pub[FIRST] + j
                p -= n_players * (p >= n_players)  # not %: a division every turn
                if pub[player_at(p, P_MARKERS)] == 0:
                    continue
                anyone = True
                sid = sids[p]
                prm = params[p]
                rg = rngs[1 + p]
                pub[SEAT] = p
                pub[OCCUPIED_OK] = 0
                st[p, ST_TURNS] += 1
                # fuse: a greedy seat's choice made as the table is built (put_offer,
                # rune_rows); a trace records whole tables
                fuse = sid == GREEDY and not tracing
                if pub[player_at(p, P_N_RUNES)] > 0:
                    pub[STEP] = STEP_RUNE
                    n = rune_rows(t, pub, p, opts, fuse, prm)
                    ch = 0 if fuse else ask(sid, opts, n, pub, t, prm, rg)
                    record_decision(trace, tracing, season, p, STEP_RUNE, opts, n, ch)
                    if opts[ch, KIND] == OPT_RUNE:
                        play_rune(t, pub, p, opts[ch, A], sid, prm, rg, opts, st, trace,
                                  tracing, season)
                pub[STEP] = STEP_OFFER
                n = offer_rows(t, pub, p, opts, hv, fuse, prm)
                if fuse:
                    ch = 0
                elif sid == ROLLOUT:
                    ch = rollout_offer(t, n_players, pub, opts, n, decks, discards, tops,
                                       new_starts, stack, rtops, prm, rg, trace)
                else:
                    ch = ask(sid, opts, n, pub, t, prm, rg)
                record_decision(trace, tracing, season, p, STEP_OFFER, opts, n, ch)
                kind = opts[ch, KIND]
                a, b, c = opts[ch, A], opts[ch, B], opts[ch, C]
                if kind == OPT_CARD:
                    place_card(t, pub, p, a, b, c, sid, prm, rg, opts, hv, stack, rtops, st,
                               trace, tracing, season)
                elif kind == OPT_TREE:
                    place_tree(t, pub, p, a, b, c, sid, prm, rg, opts, hv, stack, rtops, st,
                               trace, tracing, season)
                else:
                    st[p, ST_PASSED] += 1
                    record_event(trace, tracing, season, EV_PASS, p, 0, 0, 0)
                pub[player_at(p, P_MARKERS)] -= 1
                pub[OCCUPIED_OK] = 0
            if not anyone:
                break
        last = season == seasons - 1
        end_season(t, pub, n_players, season, last, decks, discards, tops, rng, st, done,
                   trace, tracing)
        if last:
            break
        for p in range(n_players):
            pub[player_at(p, P_MARKERS)] = t.setup[n_players, season + 1]
            record_event(trace, tracing, season, EV_MARKERS, p, t.setup[n_players, season + 1],
                         0, 0)
        low = fewest_points(t, pub, n_players, rng, tied)
        pub[FIRST] = low
        st[low, ST_FIRST] += 1
        record_event(trace, tracing, season, EV_FIRST, low, 0, 0, 0)
        if t.rules[R_NEW_START_JOIN]:
            k = min(t.rules[R_NEW_START_DRAW], rtops[1] - rtops[0])
            if k > 0:
                for j in range(k):
                    c = new_starts[rtops[0] + j]
                    set_row(opts, j, OPT_NEW_START, c, t.card[c, CARD_COLOUR],
                            t.card[c, CARD_NEXT], 0, 0, 0, 0, 0)
                rtops[0] += k
                pub[SEAT] = low
                pub[STEP] = STEP_NEW_START
                ch = ask(sids[low], opts, k, pub, t, params[low], rngs[1 + low])
                record_decision(trace, tracing, season, low, STEP_NEW_START, opts, k, ch)
                kept = opts[ch, A]
                other = -1
                for j in range(k):
                    if j != ch and other < 0:
                        other = opts[j, A]
                i = pub[N_SLOTS]
                pub[slot_at(i, S_CARD)] = kept
                pub[N_SLOTS] = i + 1
                st[low, ST_NEW_START] += 1
                record_event(trace, tracing, season, EV_NEW_START, low, kept, other, 0)

    end_game(t, pub, n_players, st, trace, tracing)

    out[3][g] = seasons
    winners = 0
    for p in range(n_players):
        out[0][g, p] = pub[player_at(p, P_SCORE)]
        for x in range(n_col):
            out[5][g, p, x] = held(pub, p, x)
        for k in range(N_SOURCES):
            out[6][g, p, k] = st[p, ST_SRC + k]
        for ts in range(n_tree):
            out[7][g, p, ts] = st[p, ST_TREE + ts]
        for k in range(N_RUNE_KINDS):
            out[8][g, p, k] = st[p, ST_RUNE + k]
        for c in range(n_cards):
            out[11][g, p, c] = done[p, c]
        out[9][g, p] = st[p, ST_DRAWN]
        out[10][g, p] = st[p, ST_COMPLETED]
        out[12][g, p] = st[p, ST_FIRST]
        out[13][g, p] = st[p, ST_PASSED]
        out[14][g, p] = st[p, ST_TILES]
        out[15][g, p] = st[p, ST_TURNS]
        out[16][g, p] = st[p, ST_PAID]
        out[17][g, p] = st[p, ST_GAINED]
        out[18][g, p] = st[p, ST_NEUTRAL]
        out[19][g, p] = st[p, ST_NEW_START]
        out[20][g, p] = st[p, ST_CARD_OFFERS]
    for p in range(n_players):
        better = 0
        for q in range(n_players):
            if out[0][g, q] > out[0][g, p]:
                better += 1
        out[1][g, p] = better + 1
        if better == 0:
            winners += 1
    for p in range(n_players):
        out[2][g, p] = np.float32(1.0 / winners) if out[1][g, p] == 1 else np.float32(0.0)


@njit(cache=True, parallel=True, nogil=True)
def simulate_batch(t, n_players, master_seed, first_game, lineup, rotate, strategy_ids,
                   strategy_params, out, trace, tracing):
    """Play games first_game .. first_game + len(out[0]) - 1 into `out` (new_outputs).

    With `tracing` (one game only) the game is recorded into `trace` (`simkit play`): batch
    and traced play are one compiled function, so either compiles (or loads) both.
    """
    n_games = out[0].shape[0]
    n_blocks = min(n_games, 256)
    for b in prange(n_blocks):
        scratch = new_scratch(t)
        tv, sv, ov, trv = unowned_views(t, scratch, out, trace)
        sids, params = seat_buffers(n_players, strategy_params)
        sidv, pv = unowned(sids), unowned(params)
        for i in range(b * n_games // n_blocks, (b + 1) * n_games // n_blocks):
            seed = prepare_game(n_players, master_seed, first_game + i, lineup, rotate,
                                strategy_ids, strategy_params, ov[4], i, sids, params)
            play_game(tv, n_players, seed, sidv, pv, ov, i, sv, trv, tracing)
        keep_alive(sids, params, scratch[0], scratch[1], scratch[2], scratch[3], scratch[4],
                   scratch[5], scratch[6], scratch[7], scratch[8], scratch[9], scratch[10],
                   scratch[11], scratch[12], scratch[13], trace[0], trace[1], trace[2],
                   trace[3])
