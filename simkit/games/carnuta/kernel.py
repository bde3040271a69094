"""Carnuta rules as numba kernels (state layout: see layout.py).

One game is `play_game`; `simulate_batch` plays many in parallel, each from its own seed,
so results do not depend on thread count or chunk size. The functions follow the
rulebook: setup, scoring, the four actions and the Sickle, end of turn (discard, counter
and its bonus spaces), game end and tiebreaker.

Conventions the rule text does not fix (documented, not options): seat 0 holds the
Ancestor; each cost icon is paid by a different rune showing the icon's side before
payment; a deck is rebuilt from its discards when a card must be drawn from it while it is
empty; a slot that finds no card (deck and discards empty) stays empty until the next
take or Sickle on its row; a counter that passes several spaces in one turn gains each.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

import simkit.kernels
import simkit.rng
import strategies.carnuta
from simkit.jitcache import drop_stale_cache
from simkit.kernels import (
    canonical,
    new_trace_stub,
    njit_with_refcounts,
    njit_without_refcounts,
    playout_value,
    prepare_game,
    record_decision,
    record_event,
    seat_buffers,
)
from simkit.rng import next_u64, randint, stream_state
from strategies.carnuta import (
    GREEDY,
    GREEDY_DEFAULTS,
    PLANNER,
    PLANNER_DEFAULTS,
    ROLLOUT,
    ROLLOUT_WEIGHTS,
    choose,
    greedy_score,
    planner_values,
)

from . import config as _config
from . import layout as _layout
from . import scoring as _scoring
from .layout import (
    ACTIONS_LEFT,
    CARD_AMOUNT,
    CARD_COST,
    CARD_DECK,
    CARD_ICONS,
    CARD_ING,
    CARD_KIND,
    CARD_SCORE,
    DECK_LEFT,
    DISCARDS,
    DISPLAY,
    DOUBLE,
    EV_DISCARD,
    EV_END,
    EV_FLIP,
    EV_PADLOCK,
    EV_PASS,
    EV_PAY,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_REVEAL,
    EV_RUNES,
    EV_SCORE,
    EV_SETUP,
    EV_SICKLE,
    EV_TAKE,
    EV_TOKEN,
    EV_TRIGGER,
    F1,
    F2,
    F3,
    FINAL,
    KIND,
    MAX_PLAYERS,
    MAX_TYPES,
    MOON,
    MOON_FLIP,
    MOON_RETURN,
    N_COLS,
    N_PLAYERS,
    N_SLOTS,
    OPT_DISCARD,
    OPT_END,
    OPT_FLIP,
    OPT_PASS,
    OPT_PLAY,
    OPT_RUNES,
    OPT_SICKLE,
    OPT_TAKE,
    OPT_TOKEN,
    P_CARDS,
    P_COLUMN,
    P_COUNT,
    P_HAND,
    P_HAND_N,
    P_MOON,
    P_N_CARDS,
    P_OPEN,
    P_PLAYED,
    P_SCORE,
    P_SICKLES,
    P_SUN,
    P_TOKENS,
    POINTS,
    PUB_SIZE,
    R_BAN_CARD,
    R_BAN_SEAT,
    R_BAN_TOKEN,
    R_END_CARDS,
    R_FINAL_TURNS,
    R_FLIP_SOME,
    R_HAND_LIMIT,
    R_MAX_ROUNDS,
    R_N_ING_CARDS,
    R_N_TYPES,
    R_PADLOCKED,
    R_SICKLE_AFTER,
    R_SICKLES,
    R_SPACES,
    R_START_COUNTS,
    R_START_MOON,
    R_START_SUN,
    R_TAKE_CHOOSE,
    R_TIE_BEST,
    R_TOP,
    RESERVE,
    ROUND,
    SALT,
    SEAT,
    SLOTS_PER_ROW,
    STEP,
    STEP_ACTION,
    STEP_DISCARD,
    STEP_END,
    STEP_TOKEN,
    SUN,
    SUN_FLIP,
    SUN_RETURN,
    TOKENS,
    TRIGGERED,
    A,
    B,
    C,
    player_at,
)
from .scoring import (
    best_gain,
    can_pay,
    card_points,
    gain_table,
    play_gain,
    tableau_points,
    unpaid,
)

drop_stale_cache(__file__, strategies.carnuta.__file__, simkit.kernels.__file__,
                 simkit.rng.__file__, _layout.__file__, _config.__file__, _scoring.__file__)

MAX_OPTIONS = 128


def new_outputs(n_games: int, n_players: int, n_types: int, n_cards: int) -> tuple:
    """Allocate the per-game result arrays, in narrow dtypes."""
    g, p = n_games, n_players
    return (
        np.zeros((g, p), np.int16),  # 0 score
        np.zeros((g, p), np.int8),  # 1 rank (1 = best, ties share)
        np.zeros((g, p), np.float32),  # 2 win share
        np.zeros(g, np.int16),  # 3 rounds
        np.zeros((g, p), np.int8),  # 4 strategy index (into the run's strategy list)
        np.zeros((g, p), np.int8),  # 5 starting card (index among starting cards)
        np.zeros((g, p), np.uint8),  # 6 cards played (starting card not included)
        np.zeros((g, p, n_types), np.uint8),  # 7 cards played into each column
        np.zeros((g, p), np.uint8),  # 8 Double cards played
        np.zeros((g, p), np.uint8),  # 9 Salt cards played
        np.zeros((g, p, n_types), np.uint8),  # 10 Bonus Ingredient tokens of each type
        np.zeros((g, p), np.uint8),  # 11 Sickles used
        np.zeros((g, p), np.uint16),  # 12 runes taken from the reserve
        np.zeros((g, p), np.uint16),  # 13 runes flipped by the Flip Runes action
        np.zeros((g, p), np.uint16),  # 14 runes flipped paying costs
        np.zeros((g, p), np.uint16),  # 15 runes returned paying costs
        np.zeros((g, p, 7), np.int16),  # 16 points per scoring kind (SCORE_KINDS)
        np.zeros((g, p, n_cards), np.uint8),  # 17 1 if the player played ingredient card c
        np.zeros((g, p), np.uint8),  # 18 1 for the player whose card triggered the end
        np.zeros((g, p), np.uint16),  # 19 turns taken
        np.zeros((g, p), np.uint16),  # 20 cards discarded at the end of turns
        np.zeros((g, p), np.int16),  # 21 most points in a single ingredient (tiebreak)
        np.zeros((g, p), np.int16),  # 22 points of the starting card
    )


# ---------------------------------------------------------------- scratch
@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses)."""
    n = t.card.shape[0]
    return (
        np.zeros(PUB_SIZE, np.int32),  # 0 public state
        np.zeros((MAX_OPTIONS, N_COLS), np.int32),  # 1 option table
        np.zeros((2, n), np.int64),  # 2 Day / Night decks (cards deck[d, top[d]:len[d]])
        np.zeros((2, n), np.int64),  # 3 Day / Night discard piles, in discard order
        np.zeros((4, 2), np.int64),  # 4 deck top, deck length, discards, unused
        np.zeros(n, np.int64),  # 5 starting cards (shuffled)
        np.zeros((MAX_PLAYERS + 1, 1), np.uint64),  # 6 rng streams: deal, then one per seat
        np.zeros(MAX_PLAYERS, np.int64),  # 7 counter level per seat
        np.zeros((MAX_PLAYERS, MAX_TYPES, 3), np.int64),  # 8 per seat: gain_table
        np.zeros((MAX_PLAYERS, MAX_TYPES), np.int64),  # 9 per seat: columns holding a card
        np.zeros((MAX_PLAYERS, 2), np.int64),  # 10 per seat: tableau version, of 8 and 9
        np.zeros((MAX_PLAYERS, n, 3), np.int64),  # 11 per seat and card: gain, column, version
    )


# ---------------------------------------------------------------- options
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


@njit_without_refcounts
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


@njit_without_refcounts
def action_options(cd, take_choose, flip_some, pub, p, opts, cache, has, ver, memo,
                   banned):
    """The action step: take, play, take runes, flip runes, sickle; pass if no action.
    Card `banned` (-1: none) is not offered to take (restricted play, `simkit value`)."""
    base = player_at(p, 0)
    sun = pub[base + P_SUN]
    moon = pub[base + P_MOON]
    if ver[p, 1] != ver[p, 0]:  # seat p's tableau changed since its gain table was built
        gain_table(cd, pub, p, cache, has)
        ver[p, 1] = ver[p, 0]
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
            if memo[p, c, 2] != ver[p, 0]:
                memo[p, c, 0], memo[p, c, 1] = best_gain(cd, pub, p, c, cache, has)
                memo[p, c, 2] = ver[p, 0]
            g, col = memo[p, c, 0], memo[p, c, 1]
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


@njit_without_refcounts
def discard_options(cd, pub, p, opts, cache, has, ver, memo):
    """End of turn, over the hand limit: one row per card in hand."""
    base = player_at(p, 0)
    sun = pub[base + P_SUN]
    moon = pub[base + P_MOON]
    if ver[p, 1] != ver[p, 0]:  # seat p's tableau changed since its gain table was built
        gain_table(cd, pub, p, cache, has)
        ver[p, 1] = ver[p, 0]
    n = 0
    for h in range(pub[base + P_HAND_N]):
        c = pub[base + P_HAND + h]
        if cd[c, CARD_KIND] != SALT:
            g = play_gain(cd, pub, p, c, cd[c, CARD_ING], cache)
        else:
            if memo[p, c, 2] != ver[p, 0]:
                memo[p, c, 0], memo[p, c, 1] = best_gain(cd, pub, p, c, cache, has)
                memo[p, c, 2] = ver[p, 0]
            g = memo[p, c, 0]
        set_row(opts, n, OPT_DISCARD, h, c, -1, g, 1 if can_pay(cd, c, sun, moon) else 0, 0,
                cd[c, CARD_ICONS])
        n += 1
    return n


@njit_without_refcounts
def token_options(cd, pub, p, opts, cache, has, ver, banned):
    """A bonus space: one row per Bonus Ingredient token type in the centre, but `banned`
    (-1: none; restricted play, `simkit value`)."""
    n = 0
    if ver[p, 1] != ver[p, 0]:  # seat p's tableau changed since its gain table was built
        gain_table(cd, pub, p, cache, has)
        ver[p, 1] = ver[p, 0]
    for x in range(has.shape[0]):
        if pub[TOKENS + x] > 0 and x != banned:
            set_row(opts, n, OPT_TOKEN, x, -1, -1, cache[x, 1], 0, 0, 0)
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
def shuffle_range(arr, d, n, rng):
    """Fisher-Yates over arr[d, :n], last position first."""
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        arr[d, i], arr[d, j] = arr[d, j], arr[d, i]


@njit_without_refcounts
def reveal(pub, deck, discard, tops, slot, rng):
    """Fill display slot `slot` from the top of its row's deck (-1 if there is none).

    An empty deck is first rebuilt from that type's discards; returns how many cards were
    shuffled into it (0: none), for the trace.
    """
    d = slot // SLOTS_PER_ROW
    k = 0
    if tops[0, d] == tops[1, d]:
        k = tops[2, d]
        if k == 0:
            pub[DISPLAY + slot] = -1
            return 0
        for i in range(k):
            deck[d, i] = discard[d, i]
        shuffle_range(deck, d, k, rng)
        tops[0, d] = 0
        tops[1, d] = k
        tops[2, d] = 0
        pub[DISCARDS + d] = 0
    pub[DISPLAY + slot] = deck[d, tops[0, d]]
    tops[0, d] += 1
    pub[DECK_LEFT + d] = tops[1, d] - tops[0, d]
    return k


@njit_without_refcounts
def record_reveal(trace, rnd, pub, slot, shuffled):
    """Trace a reveal (and the deck rebuilt before it)."""
    d = slot // SLOTS_PER_ROW
    if shuffled > 0:
        record_event(trace, True, rnd, EV_RESHUFFLE, -1, d, shuffled, 0)
    record_event(trace, True, rnd, EV_REVEAL, -1, slot, pub[DISPLAY + slot], pub[DECK_LEFT + d])


@njit(cache=True, inline="always")
def to_discard(cd, pub, discard, tops, c):
    d = cd[c, CARD_DECK]
    discard[d, tops[2, d]] = c
    tops[2, d] += 1
    pub[DISCARDS + d] += 1


# ---------------------------------------------------------------- one game
@njit_without_refcounts
def add_to_tableau(cd, pub, p, c, col, gain):
    """Place card c in column col of seat p and update counts and score.

    `gain` is the score gain from the option table (exact); -1 rescoring the tableau.
    """
    base = player_at(p, 0)
    i = pub[base + P_N_CARDS]
    pub[base + P_CARDS + i] = c
    pub[base + P_COLUMN + i] = col
    pub[base + P_N_CARDS] = i + 1
    pub[base + P_COUNT + col] += cd[c, CARD_AMOUNT]
    if gain < 0:
        pub[base + P_SCORE] = tableau_points(cd, pub, p, -1, 0)
    else:
        pub[base + P_SCORE] += gain


@njit_without_refcounts
def setup_game(t, n_players, seed, scratch, trace, tracing):
    """Setup (rulebook order) of the game of `seed` into `scratch`: decks, display,
    reserve, tokens, starting cards (starts[s] is seat s's), player boards; the streams."""
    pub, opts, deck, discard, tops, starts, rngs, counter, caches, hass, ver, memo = scratch
    cd = t.card
    n_cards = cd.shape[0]
    n_ing = t.rules[R_N_ING_CARDS]
    pub[:] = 0
    for s in range(n_players):
        rngs[1 + s, 0] = stream_state(seed, np.uint64(1 + s))
    rng = rngs[0]
    rng[0] = stream_state(seed, np.uint64(0))
    ver[:, 0] = 0
    ver[:, 1] = -1
    memo[:, :, 2] = -1

    # Setup 1-2: Day and Night decks shuffled separately; 4 face up from each.
    tops[:, :] = 0
    for c in range(n_ing):
        d = cd[c, CARD_DECK]
        deck[d, tops[1, d]] = c
        tops[1, d] += 1
    for d in range(2):
        shuffle_range(deck, d, tops[1, d], rng)
        pub[DECK_LEFT + d] = tops[1, d]
    pub[N_PLAYERS] = n_players
    for slot in range(N_SLOTS):
        k = reveal(pub, deck, discard, tops, slot, rng)
        if tracing:
            record_reveal(trace, 0, pub, slot, k)
    # Setup 4-5: the rune reserve; the Bonus Ingredient tokens.
    pub[RESERVE + SUN] = t.reserve[n_players, 0]
    pub[RESERVE + MOON] = t.reserve[n_players, 1]
    for x in range(MAX_TYPES):
        pub[TOKENS + x] = t.tokens[x] if x < t.rules[R_N_TYPES] else -1
    # Setup 6: one starting card each, face up. Seat 0 holds the Ancestor (7).
    n_start = n_cards - n_ing
    for i in range(n_start):
        starts[0 + i] = n_ing + i
    for i in range(n_start - 1, 0, -1):
        j = randint(rng, i + 1)
        starts[i], starts[j] = starts[j], starts[i]
    for s in range(n_players):
        base = player_at(s, 0)
        # Player setup: counter on 1, 2 Sun + 2 Moon, 2 padlocks, 2 sickles.
        pub[base + P_SUN] = t.rules[R_START_SUN]
        pub[base + P_MOON] = t.rules[R_START_MOON]
        pub[base + P_OPEN] = t.rules[R_SPACES] - t.rules[R_PADLOCKED]
        pub[base + P_SICKLES] = t.rules[R_SICKLES]
        c = starts[s]
        add_to_tableau(cd, pub, s, c, cd[c, CARD_ING], -1)
        pub[base + P_PLAYED] = 1 if t.rules[R_START_COUNTS] else 0
        counter[s] = min(pub[base + P_PLAYED], t.rules[R_TOP])
        if tracing:
            record_event(trace, tracing, 0, EV_SETUP, s, c, 0, 0)


# ---------------------------------------------------------------- rollout player
# The rollout player needs the rules to play forward, so it lives here rather than in
# strategies/carnuta.py (which the kernel imports: the other way round would be a circular
# import). `playout` is a one-strategy copy of `play_game`'s round loop without outputs or
# tracing (calling `play_game` from a decision would be recursion, which numba cannot
# compile); it shares every rule helper (options, reveals, scoring), and
# tests/test_carnuta_rollout.py checks it replays all-greedy games exactly.
@njit_without_refcounts
def sickle_quiet(cd, pub, s, d, deck, discard, tops, rng):
    """`use_sickle` without outputs or tracing."""
    pub[player_at(s, P_SICKLES)] -= 1
    for i in range(SLOTS_PER_ROW):
        slot = d * SLOTS_PER_ROW + i
        c = pub[DISPLAY + slot]
        if c >= 0:
            to_discard(cd, pub, discard, tops, c)
            pub[DISPLAY + slot] = -1
    for i in range(SLOTS_PER_ROW):
        reveal(pub, deck, discard, tops, d * SLOTS_PER_ROW + i, rng)


@njit(cache=True)
def apply_action(t, pub, s, opts, ch, deck, discard, tops, rng, ver):
    """Seat s takes action row ch (a Sickle is free), as `play_game` does, untraced."""
    cd = t.card
    base = player_at(s, 0)
    kind = opts[ch, KIND]
    a = opts[ch, A]
    if kind == OPT_SICKLE:
        sickle_quiet(cd, pub, s, a, deck, discard, tops, rng)
        return
    pub[ACTIONS_LEFT] -= 1
    if kind == OPT_TAKE:
        c = pub[DISPLAY + a]
        h = pub[base + P_HAND_N]
        pub[base + P_HAND + h] = c
        pub[base + P_HAND_N] = h + 1
        reveal(pub, deck, discard, tops, a, rng)
    elif kind == OPT_PLAY:
        c = opts[ch, B]
        col = opts[ch, C]
        for i in range(a, pub[base + P_HAND_N] - 1):
            pub[base + P_HAND + i] = pub[base + P_HAND + i + 1]
        pub[base + P_HAND_N] -= 1
        pub[base + P_HAND + pub[base + P_HAND_N]] = 0
        sf, mf = cd[c, CARD_COST + SUN_FLIP], cd[c, CARD_COST + MOON_FLIP]
        sr, mr = cd[c, CARD_COST + SUN_RETURN], cd[c, CARD_COST + MOON_RETURN]
        pub[base + P_SUN] += mf - sf - sr
        pub[base + P_MOON] += sf - mf - mr
        pub[RESERVE + SUN] += sr
        pub[RESERVE + MOON] += mr
        add_to_tableau(cd, pub, s, c, col, opts[ch, POINTS])
        ver[s, 0] += 1
        pub[base + P_PLAYED] += 1
        if pub[TRIGGERED] == 0 and pub[base + P_PLAYED] >= t.rules[R_END_CARDS]:
            pub[TRIGGERED] = 1
    elif kind == OPT_RUNES:
        k = opts[ch, B]
        pub[RESERVE + a] -= k
        pub[base + P_SUN + a] += k
    elif kind == OPT_FLIP:
        k = opts[ch, C]
        pub[base + P_SUN + a] += k
        pub[base + P_SUN + 1 - a] -= k


@njit(cache=True)
def apply_discard(t, pub, s, opts, ch, discard, tops):
    """Seat s discards the hand card of discard row ch, untraced."""
    base = player_at(s, 0)
    h = opts[ch, A]
    c = pub[base + P_HAND + h]
    for i in range(h, pub[base + P_HAND_N] - 1):
        pub[base + P_HAND + i] = pub[base + P_HAND + i + 1]
    pub[base + P_HAND_N] -= 1
    pub[base + P_HAND + pub[base + P_HAND_N]] = 0
    to_discard(t.card, pub, discard, tops, c)


@njit(cache=True)
def playout_turn(t, pub, s, phase, sid, prm, rng, deck, discard, tops, counter, caches, hass,
                 ver, memo, opts):
    """The rest of seat s's turn from `phase` (0: the action step, with pub[ACTIONS_LEFT]
    actions left; 2: the discard step), every decision by strategy `sid` (weights `prm`),
    as `play_game` plays it, untraced."""
    cd = t.card
    base = player_at(s, 0)
    take_choose = t.rules[R_TAKE_CHOOSE]
    flip_some = t.rules[R_FLIP_SOME]
    if phase <= 0:
        pub[STEP] = STEP_ACTION
        while pub[ACTIONS_LEFT] > 0:
            n = action_options(cd, take_choose, flip_some, pub, s, opts, caches[s], hass[s],
                               ver, memo, banned_card(t, s))
            ch = ask(sid, opts, n, pub, t, prm, rng)
            apply_action(t, pub, s, opts, ch, deck, discard, tops, rng, ver)
        pub[STEP] = STEP_END
        while t.rules[R_SICKLE_AFTER]:
            n = sickle_rows(pub, s, opts, 0)
            if n == 0:
                break
            for i in range(n, 0, -1):
                for col in range(N_COLS):
                    opts[i, col] = opts[i - 1, col]
            set_row(opts, 0, OPT_END, -1, -1, -1, 0, 0, 0, 0)
            n += 1
            ch = ask(sid, opts, n, pub, t, prm, rng)
            if opts[ch, KIND] == OPT_END:
                break
            sickle_quiet(cd, pub, s, opts[ch, A], deck, discard, tops, rng)
    pub[STEP] = STEP_DISCARD
    while pub[base + P_HAND_N] > t.rules[R_HAND_LIMIT]:
        n = discard_options(cd, pub, s, opts, caches[s], hass[s], ver, memo)
        ch = ask(sid, opts, n, pub, t, prm, rng)
        apply_discard(t, pub, s, opts, ch, discard, tops)
    pub[STEP] = STEP_TOKEN
    level = min(pub[base + P_PLAYED], t.rules[R_TOP])
    for lv in range(counter[s] + 1, level + 1):
        for _ in range(t.track[lv, 0]):
            if pub[base + P_OPEN] < t.rules[R_SPACES]:
                pub[base + P_OPEN] += 1
        for _ in range(t.track[lv, 1]):
            n = token_options(cd, pub, s, opts, caches[s], hass[s], ver, banned_token(t, s))
            if n == 0:
                break
            ch = ask(sid, opts, n, pub, t, prm, rng)
            x = opts[ch, A]
            pub[TOKENS + x] -= 1
            pub[base + P_TOKENS + x] += 1
            pub[base + P_COUNT + x] += 1
            pub[base + P_SCORE] += opts[ch, POINTS]
            ver[s, 0] += 1
    counter[s] = max(counter[s], level)
    pub[STEP] = STEP_ACTION
    pub[ACTIONS_LEFT] = 0


@njit(cache=True)
def playout(t, n_players, pub, deck, discard, tops, rng, counter, caches, hass, ver, memo,
            opts, sid, prm, seat, phase, horizon):
    """Play on with every seat played by strategy `sid` (weights `prm`): first the rest of
    seat `seat`'s turn from `phase` (see `playout_turn`; -1: its whole turn), then the
    following turns, until the game ends or `horizon` round ends have passed (0: no
    limit). `rng` stands for the deal stream (reveals after a rebuilt deck) and for the
    strategies' own. Returns the number of round ends played."""
    rnd = pub[ROUND]
    ends = 0
    first = seat
    while True:
        pub[ROUND] = rnd
        for s in range(first, n_players):
            pub[SEAT] = s
            ph = phase if (s == seat and first == seat and ends == 0) else -1
            if ph < 0:
                pub[STEP] = STEP_ACTION
                pub[ACTIONS_LEFT] = 2
            playout_turn(t, pub, s, ph, sid, prm, rng, deck, discard, tops, counter, caches,
                         hass, ver, memo, opts)
        first = 0
        played = rnd + 1
        ends += 1
        if pub[FINAL] == 1:
            return ends
        if pub[TRIGGERED] == 1:
            if not t.rules[R_FINAL_TURNS]:
                return ends
            pub[FINAL] = 1
        if played >= t.rules[R_MAX_ROUNDS]:
            return ends
        rnd = played
        if horizon > 0 and ends >= horizon:
            return ends


@njit(cache=True)
def final_key(t, pub, s, cols):
    """Seat s's final score and the tiebreak key `play_game` ranks by (score * 4096 +
    most points in one ingredient, if that rule is on)."""
    cd = t.card
    base = player_at(s, 0)
    cols[:] = 0
    total = 0
    for i in range(pub[base + P_N_CARDS]):
        c = pub[base + P_CARDS + i]
        col = pub[base + P_COLUMN + i]
        pts = card_points(cd, pub, base + P_COUNT, c, col, -1, 0)
        total += pts
        cols[col] += pts
    best = 0
    for x in range(t.rules[R_N_TYPES]):
        best = max(best, cols[x])
    return total, total * 4096 + (best if t.rules[R_TIE_BEST] else 0)


@njit_with_refcounts
def rollout_action(t, n_players, pub, opts, n, deck, discard, tops, counter, params, rng):
    """The rollout player's action: the row of `opts[:n]` whose playouts score best.

    Sees only what its seat may see: `pub` (hands are public: every card in one was taken
    face up), the counters, and of the Day and Night decks only their contents (every
    other card is in sight or was), never their order: each deck and each discard pile is
    taken as a sorted set. Tries the `params[2]` best rows by the policy's own values
    (policy `params[3]`: 0 greedy with its default weights, 1 the planner with the weights
    in `params[ROLLOUT_WEIGHTS:]`), so the policy's
    own choice is always among them. Each of `params[0]` rollouts re-shuffles the decks with the
    seat's own stream `rng` and plays every candidate forward on that same deal (common
    random numbers): the action, then the rest of the game (or `params[1]` round ends)
    with every seat played by the policy. A playout's value is the seat's win share (by
    the rules' ranking: score, then the tiebreak) plus 0.001 per point of margin over the
    best other seat; the best mean wins (ties: the earlier row), the policy's own choice
    counting `params[4]` more (another action must beat it by that much: with few noisy
    playouts, the best-looking of many actions is often only the luckiest).
    """
    if n <= 1:
        return 0
    p = pub[SEAT]
    sid = GREEDY
    prm = GREEDY_DEFAULTS.copy()
    if params[3] >= 0.5:
        sid = PLANNER
        prm = params[ROLLOUT_WEIGHTS:ROLLOUT_WEIGHTS + PLANNER_DEFAULTS.shape[0]].copy()
    n_rollouts = max(1, np.int64(params[0] + 0.5))
    horizon = np.int64(params[1] + 0.5)
    k = min(n, max(1, np.int64(params[2] + 0.5)))
    cd = t.card
    n_cards = cd.shape[0]
    values = np.empty(n, np.float64)
    if sid == PLANNER:
        planner_values(opts, n, pub, t, prm, values)
    else:
        for i in range(n):
            values[i] = greedy_score(opts, i, prm)
    # The k best by the policy's values; the first is the policy's own choice.
    cand = np.sort(np.argsort(-values, kind="mergesort")[:k])
    if k == 1:
        return cand[0]
    rows = np.empty((k, N_COLS), np.int32)
    for i in range(k):
        rows[i] = opts[cand[i]]
    # What the seat knows, canonical: deck contents (sorted), discards (sorted).
    kdeck = np.zeros((2, n_cards), np.int64)
    kdisc = np.zeros((2, n_cards), np.int64)
    ktops = np.zeros((4, 2), np.int64)
    for d in range(2):
        ktops[1, d] = canonical(deck[d], tops[0, d], tops[1, d], kdeck[d])
        ktops[2, d] = canonical(discard[d], 0, tops[2, d], kdisc[d])
    # Work arrays of the playouts (the game's own are never touched).
    sdeck = np.empty_like(kdeck)
    rpub = np.empty_like(pub)
    rdeck = np.empty_like(kdeck)
    rdisc = np.empty_like(kdisc)
    rtops = np.empty_like(ktops)
    rcounter = np.empty_like(counter)
    rr = np.zeros(1, np.uint64)
    ropts = np.zeros((MAX_OPTIONS, N_COLS), np.int32)
    caches = np.zeros((MAX_PLAYERS, MAX_TYPES, 3), np.int64)
    hass = np.zeros((MAX_PLAYERS, MAX_TYPES), np.int64)
    ver = np.zeros((MAX_PLAYERS, 2), np.int64)
    memo = np.zeros((MAX_PLAYERS, n_cards, 3), np.int64)
    cols = np.zeros(MAX_TYPES, np.int64)
    keys = np.zeros(MAX_PLAYERS, np.int64)
    totals = np.zeros(MAX_PLAYERS, np.int64)
    total = np.zeros(k, np.float64)
    for _ in range(n_rollouts):
        sdeck[:, :] = kdeck
        for d in range(2):
            shuffle_range(sdeck, d, ktops[1, d], rng)
        seed = next_u64(rng)
        for i in range(k):
            rpub[:] = pub
            rdeck[:, :] = sdeck
            rdisc[:, :] = kdisc
            rtops[:, :] = ktops
            rcounter[:] = counter
            ver[:, 0] = 0
            ver[:, 1] = -1
            memo[:, :, 2] = -1
            rr[0] = seed
            ropts[:k] = rows
            apply_action(t, rpub, p, ropts, i, rdeck, rdisc, rtops, rr, ver)
            playout(t, n_players, rpub, rdeck, rdisc, rtops, rr, rcounter, caches, hass, ver,
                    memo, ropts, sid, prm, p, 0, horizon)
            for q in range(n_players):
                totals[q], keys[q] = final_key(t, rpub, q, cols)
            total[i] += playout_value(keys, totals, p, n_players)
    own = np.argmax(values)  # the policy's own choice starts `params[4]` ahead
    for i in range(k):
        if cand[i] == own:
            total[i] += params[4] * n_rollouts
    best = 0
    for i in range(1, k):
        if total[i] > total[best]:
            best = i
    return cand[best]


@njit_without_refcounts
def play_game(t, n_players, seed, sids, params, out, g, scratch, trace, tracing):
    """Play one game from `seed` into row g of `out`; seat s plays strategy sids[s]."""
    pub, opts, deck, discard, tops, starts, rngs, counter, caches, hass, ver, memo = scratch
    cd = t.card
    take_choose = t.rules[R_TAKE_CHOOSE]
    flip_some = t.rules[R_FLIP_SOME]
    n_ing = t.rules[R_N_ING_CARDS]
    setup_game(t, n_players, seed, scratch, trace, tracing)
    rng = rngs[0]
    for s in range(n_players):
        out[5][g, s] = starts[s] - n_ing

    rnd = 0
    end_reason = -1
    while True:
        pub[ROUND] = rnd
        for s in range(n_players):
            base = player_at(s, 0)
            pub[SEAT] = s
            out[19][g, s] += 1
            sid = sids[s]
            prm = params[s]
            rg = rngs[1 + s]
            # Two actions, in any order; the Sickle is free at any point.
            pub[STEP] = STEP_ACTION
            pub[ACTIONS_LEFT] = 2
            while pub[ACTIONS_LEFT] > 0:
                n = action_options(cd, take_choose, flip_some, pub, s, opts, caches[s], hass[s],
                                   ver, memo, banned_card(t, s))
                if sid == ROLLOUT:
                    ch = rollout_action(t, n_players, pub, opts, n, deck, discard, tops,
                                        counter, prm, rg)
                else:
                    ch = ask(sid, opts, n, pub, t, prm, rg)
                if tracing:
                    record_decision(trace, tracing, rnd, s, STEP_ACTION, opts, n, ch)
                kind = opts[ch, KIND]
                a = opts[ch, A]
                if kind == OPT_SICKLE:
                    use_sickle(cd, pub, s, a, deck, discard, tops, rng, trace, tracing, rnd, out, g)
                    continue
                pub[ACTIONS_LEFT] -= 1
                if kind == OPT_TAKE:
                    c = pub[DISPLAY + a]
                    h = pub[base + P_HAND_N]
                    pub[base + P_HAND + h] = c
                    pub[base + P_HAND_N] = h + 1
                    if tracing:
                        record_event(trace, tracing, rnd, EV_TAKE, s, a, c, 0)
                    k = reveal(pub, deck, discard, tops, a, rng)
                    if tracing:
                        record_reveal(trace, rnd, pub, a, k)
                elif kind == OPT_PLAY:
                    c = opts[ch, B]
                    col = opts[ch, C]
                    for i in range(a, pub[base + P_HAND_N] - 1):
                        pub[base + P_HAND + i] = pub[base + P_HAND + i + 1]
                    pub[base + P_HAND_N] -= 1
                    pub[base + P_HAND + pub[base + P_HAND_N]] = 0
                    sf, mf = cd[c, CARD_COST + SUN_FLIP], cd[c, CARD_COST + MOON_FLIP]
                    sr, mr = cd[c, CARD_COST + SUN_RETURN], cd[c, CARD_COST + MOON_RETURN]
                    pub[base + P_SUN] += mf - sf - sr
                    pub[base + P_MOON] += sf - mf - mr
                    pub[RESERVE + SUN] += sr
                    pub[RESERVE + MOON] += mr
                    out[14][g, s] += sf + mf
                    out[15][g, s] += sr + mr
                    if tracing:
                        record_event(trace, tracing, rnd, EV_PAY, s, sf + mf, sr + mr, 0)
                    add_to_tableau(cd, pub, s, c, col, opts[ch, POINTS])
                    ver[s, 0] += 1
                    pub[base + P_PLAYED] += 1
                    out[6][g, s] += 1
                    out[7][g, s, col] += 1
                    out[17][g, s, c] = 1
                    if cd[c, CARD_KIND] == DOUBLE:
                        out[8][g, s] += 1
                    elif cd[c, CARD_KIND] == SALT:
                        out[9][g, s] += 1
                    if tracing:
                        record_event(trace, tracing, rnd, EV_PLAY, s, c, col, pub[base + P_PLAYED])
                    if pub[TRIGGERED] == 0 and pub[base + P_PLAYED] >= t.rules[R_END_CARDS]:
                        pub[TRIGGERED] = 1
                        out[18][g, s] = 1
                        if tracing:
                            record_event(trace, tracing, rnd, EV_TRIGGER, s, pub[base + P_PLAYED],
                                         0, 0)
                elif kind == OPT_RUNES:
                    k = opts[ch, B]
                    pub[RESERVE + a] -= k
                    pub[base + P_SUN + a] += k
                    out[12][g, s] += k
                    if tracing:
                        record_event(trace, tracing, rnd, EV_RUNES, s, a, k, 0)
                elif kind == OPT_FLIP:
                    k = opts[ch, C]
                    pub[base + P_SUN + a] += k
                    pub[base + P_SUN + 1 - a] -= k
                    out[13][g, s] += k
                    if tracing:
                        record_event(trace, tracing, rnd, EV_FLIP, s, a, k, 0)
                else:
                    if tracing:
                        record_event(trace, tracing, rnd, EV_PASS, s, 0, 0, 0)
            # The Sickle after both actions.
            pub[STEP] = STEP_END
            while t.rules[R_SICKLE_AFTER]:
                n = sickle_rows(pub, s, opts, 0)
                if n == 0:
                    break
                for i in range(n, 0, -1):
                    for col in range(N_COLS):
                        opts[i, col] = opts[i - 1, col]
                set_row(opts, 0, OPT_END, -1, -1, -1, 0, 0, 0, 0)
                n += 1
                ch = ask(sid, opts, n, pub, t, prm, rg)
                if tracing:
                    record_decision(trace, tracing, rnd, s, STEP_END, opts, n, ch)
                if opts[ch, KIND] == OPT_END:
                    break
                use_sickle(cd, pub, s, opts[ch, A], deck, discard, tops, rng, trace, tracing,
                           rnd, out, g)
            # End of turn 1: discard down to the hand limit.
            pub[STEP] = STEP_DISCARD
            while pub[base + P_HAND_N] > t.rules[R_HAND_LIMIT]:
                n = discard_options(cd, pub, s, opts, caches[s], hass[s], ver, memo)
                ch = ask(sid, opts, n, pub, t, prm, rg)
                if tracing:
                    record_decision(trace, tracing, rnd, s, STEP_DISCARD, opts, n, ch)
                h = opts[ch, A]
                c = pub[base + P_HAND + h]
                for i in range(h, pub[base + P_HAND_N] - 1):
                    pub[base + P_HAND + i] = pub[base + P_HAND + i + 1]
                pub[base + P_HAND_N] -= 1
                pub[base + P_HAND + pub[base + P_HAND_N]] = 0
                to_discard(cd, pub, discard, tops, c)
                out[20][g, s] += 1
                if tracing:
                    record_event(trace, tracing, rnd, EV_DISCARD, s, c, 0, 0)
            # End of turn 2: the counter follows the cards played; bonus spaces.
            pub[STEP] = STEP_TOKEN
            level = min(pub[base + P_PLAYED], t.rules[R_TOP])
            for lv in range(counter[s] + 1, level + 1):
                for _ in range(t.track[lv, 0]):
                    if pub[base + P_OPEN] < t.rules[R_SPACES]:
                        pub[base + P_OPEN] += 1
                        if tracing:
                            record_event(trace, tracing, rnd, EV_PADLOCK, s, pub[base + P_OPEN],
                                         lv, 0)
                for _ in range(t.track[lv, 1]):
                    n = token_options(cd, pub, s, opts, caches[s], hass[s], ver, banned_token(t, s))
                    if n == 0:
                        break
                    ch = ask(sid, opts, n, pub, t, prm, rg)
                    if tracing:
                        record_decision(trace, tracing, rnd, s, STEP_TOKEN, opts, n, ch)
                    x = opts[ch, A]
                    pub[TOKENS + x] -= 1
                    pub[base + P_TOKENS + x] += 1
                    pub[base + P_COUNT + x] += 1
                    pub[base + P_SCORE] += opts[ch, POINTS]  # the exact gain
                    ver[s, 0] += 1
                    out[10][g, s, x] += 1
                    if tracing:
                        record_event(trace, tracing, rnd, EV_TOKEN, s, x, lv, 0)
            counter[s] = max(counter[s], level)
            pub[STEP] = STEP_ACTION
            pub[ACTIONS_LEFT] = 0
        # End of the round: the last turn is the player right of the Ancestor (seat n-1).
        played = rnd + 1
        if pub[FINAL] == 1:
            break
        if pub[TRIGGERED] == 1:
            if not t.rules[R_FINAL_TURNS]:
                break
            pub[FINAL] = 1
        if played >= t.rules[R_MAX_ROUNDS]:
            end_reason = -2
            break
        rnd = played

    if tracing:
        record_event(trace, tracing, rnd, EV_END, end_reason, rnd, 0, 0)
    # Scoring: every card's line, bonus tokens counting as ingredients; tiebreaker.
    out[3][g] = rnd + 1
    keys = counter  # reuse: tiebreak keys
    for s in range(n_players):
        base = player_at(s, 0)
        cb = base + P_COUNT
        has = hass[0]  # reused: points per column
        for x in range(has.shape[0]):
            has[x] = 0
        total = 0
        for i in range(pub[base + P_N_CARDS]):
            c = pub[base + P_CARDS + i]
            col = pub[base + P_COLUMN + i]
            pts = card_points(cd, pub, cb, c, col, -1, 0)
            total += pts
            has[col] += pts
            out[16][g, s, cd[c, CARD_SCORE]] += pts
            if c >= n_ing:
                out[22][g, s] = pts
            if tracing:
                record_event(trace, tracing, rnd, EV_SCORE, s, c, col, pts)
        best = 0
        for x in range(t.rules[R_N_TYPES]):
            best = max(best, has[x])
        out[0][g, s] = total
        out[21][g, s] = best
        keys[s] = total * 4096 + (best if t.rules[R_TIE_BEST] else 0)
    winners = 0
    for s in range(n_players):
        better = 0
        for q in range(n_players):
            if keys[q] > keys[s]:
                better += 1
        out[1][g, s] = better + 1
        if better == 0:
            winners += 1
    for s in range(n_players):
        out[2][g, s] = np.float32(1.0 / winners) if out[1][g, s] == 1 else np.float32(0.0)


@njit_without_refcounts
def use_sickle(cd, pub, s, d, deck, discard, tops, rng, trace, tracing, rnd, out, g):
    """Discard the 4 cards of row d (0 Day, 1 Night) and reveal 4 new ones."""
    pub[player_at(s, P_SICKLES)] -= 1
    out[11][g, s] += 1
    if tracing:
        record_event(trace, tracing, rnd, EV_SICKLE, s, d, 0, 0)
    for i in range(SLOTS_PER_ROW):
        slot = d * SLOTS_PER_ROW + i
        c = pub[DISPLAY + slot]
        if c >= 0:
            to_discard(cd, pub, discard, tops, c)
            pub[DISPLAY + slot] = -1
    for i in range(SLOTS_PER_ROW):
        k = reveal(pub, deck, discard, tops, d * SLOTS_PER_ROW + i, rng)
        if tracing:
            record_reveal(trace, rnd, pub, d * SLOTS_PER_ROW + i, k)


@njit(cache=True, parallel=True, nogil=True)
def simulate_batch(t, n_players, master_seed, first_game, lineup, rotate, strategy_ids,
                   strategy_params, out):
    """Play games first_game .. first_game + len(out[0]) - 1 into `out` (new_outputs)."""
    n_games = out[0].shape[0]
    n_blocks = min(n_games, 256)
    trace = new_trace_stub(N_COLS)
    for b in prange(n_blocks):
        scratch = new_scratch(t)
        sids, params = seat_buffers(n_players, strategy_params)
        for i in range(b * n_games // n_blocks, (b + 1) * n_games // n_blocks):
            seed = prepare_game(n_players, master_seed, first_game + i, lineup, rotate,
                                strategy_ids, strategy_params, out[4], i, sids, params)
            play_game(t, n_players, seed, sids, params, out, i, scratch, trace, False)


@njit(cache=True)
def play_traced(t, n_players, master_seed, game, lineup, rotate, strategy_ids,
                strategy_params, out, trace):
    """Replay game `game` of a run into row 0 of `out`, recording it into `trace`."""
    sids, params = seat_buffers(n_players, strategy_params)
    seed = prepare_game(n_players, master_seed, game, lineup, rotate, strategy_ids,
                        strategy_params, out[4], 0, sids, params)
    play_game(t, n_players, seed, sids, params, out, 0, new_scratch(t), trace, True)
