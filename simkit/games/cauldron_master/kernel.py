"""Cauldron Master rules as numba kernels (state layout: see layout.py).

One game is `play_game`; `simulate_batch` plays many in parallel, each from its own seed,
so results do not depend on thread count or chunk size. The functions follow the
rulebook's phases: setup, 1 select a witch, 2 player order, 3 pick ingredient cards,
4 create potions, 5 end of round, end of game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

import simkit.kernels
import simkit.rng
import strategies.cauldron_master
from simkit.jitcache import drop_stale_cache
from simkit.kernels import (
    new_trace_stub,
    njit_with_refcounts,
    njit_without_refcounts,
    playout_value,
    prepare_game,
    record_decision,
    record_event,
    seat_buffers,
)
from simkit.rng import randint, stream_state
from strategies.cauldron_master import ROLLOUT, choose, greedy_w

from . import config as _config
from . import layout as _layout
from .layout import (
    DECK_LEFT,
    EV_END,
    EV_HECATE,
    EV_ORDER,
    EV_POTION,
    EV_REFILL,
    EV_REVEAL,
    EV_SETUP,
    EV_TAKE,
    FREE,
    GAIN,
    HECATE,
    KIND,
    MAX_COLOURS,
    MAX_OPTIONS,
    MAX_PLAYERS,
    MAX_RECIPES,
    MAX_TYPES,
    N_COLS,
    N_PLAYERS,
    OPT_CARD,
    OPT_STOP,
    OPT_WITCH,
    PHASE,
    PHASE_PICK,
    PHASE_WITCH,
    PICKS_LEFT,
    POINTS,
    PUB_SIZE,
    RE_BONUS,
    RE_CTOTAL,
    RE_NCOUNT,
    RE_NLEN,
    RE_NTYPE,
    RE_SIZE,
    RECIPE,
    REVEALED,
    ROUND,
    RU_BAN_SEAT,
    RU_BAN_TYPE,
    RU_BAN_WITCH,
    RU_CAP,
    RU_CAULDRONS,
    RU_COLOURS,
    RU_COMPULSORY,
    RU_END_EMPTY,
    RU_EXACT,
    RU_MAX_ROUNDS,
    RU_SUPPLY,
    RU_TIE_POTIONS,
    SAME,
    SCORE,
    SEAT,
    SUPPLY,
    TAKEN,
    TY_COLOUR,
    TY_ORDER,
    TY_SCORE,
    WI_INIT,
    WI_LIMIT,
    WI_MAX,
    WITCH_NOW,
    A,
    B,
    cauldron_at,
    fill_at,
    hand_at,
)

drop_stale_cache(__file__, strategies.cauldron_master.__file__, simkit.kernels.__file__,
                 simkit.rng.__file__, _layout.__file__, _config.__file__)


def new_outputs(n_games: int, n_players: int, n_witches: int, n_types: int) -> tuple:
    """Allocate the per-game result arrays, in narrow dtypes."""
    g, p = n_games, n_players
    return (
        np.zeros((g, p), np.int16),  # 0 score
        np.zeros((g, p), np.int8),  # 1 rank (1 = best, ties share)
        np.zeros((g, p), np.float32),  # 2 win share
        np.zeros(g, np.int16),  # 3 rounds
        np.zeros((g, p), np.int8),  # 4 strategy index (into the run's strategy list)
        np.zeros((g, p), np.int8),  # 5 recipe card
        np.zeros((g, p), np.uint8),  # 6 potions brewed
        np.zeros((g, p), np.int16),  # 7 recipe bonus points
        np.zeros((g, p), np.uint8),  # 8 cards left in incomplete cauldrons at the end
        np.zeros((g, p, n_witches), np.uint8),  # 9 times each witch was played
        np.zeros((g, p, n_types), np.uint8),  # 10 cards of each ingredient scored
    )


# ---------------------------------------------------------------- scratch
@njit(cache=True)
def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses)."""
    return (
        np.zeros(PUB_SIZE, np.int32),  # 0 public state
        np.zeros((MAX_OPTIONS, N_COLS), np.int32),  # 1 option table
        np.empty(t.deck.shape[0], np.int64),  # 2 ingredient deck (shuffled)
        np.empty(t.recipe.shape[0], np.int64),  # 3 recipe cards (shuffled)
        np.zeros((4, MAX_PLAYERS), np.int64),  # 4 chosen witch, turn order, sort key, potions
        np.zeros((MAX_PLAYERS + 1, 1), np.uint64),  # 5 rng streams: deal, then one per seat
        np.zeros((2, MAX_COLOURS), np.int64),  # 6 colour counts, colour limits left
        np.zeros(MAX_TYPES, np.int64),  # 7 ingredient types on offer (compact list)
        new_rollout_scratch(t),  # 8 the rollout player's playouts
    )


@njit(cache=True)
def new_rollout_scratch(t):
    """Work arrays of `rollout_witch`, apart from the game's so a playout never touches it."""
    return (
        np.zeros(PUB_SIZE, np.int32),  # 0 playout state
        np.zeros((MAX_OPTIONS, N_COLS), np.int32),  # 1 option table
        np.empty(t.deck.shape[0], np.int64),  # 2 re-sampled undealt deck
        np.zeros((4, MAX_PLAYERS), np.int64),  # 3 chosen witch, turn order, sort key, potions
        np.zeros((2, MAX_COLOURS), np.int64),  # 4 colour counts, colour limits left
        np.zeros(MAX_TYPES, np.int64),  # 5 ingredient types on offer (compact list)
        np.zeros(MAX_TYPES, np.int64),  # 6 undealt cards per type
        np.zeros(MAX_OPTIONS, np.float64),  # 7 summed playout value per option
        np.zeros((2, MAX_PLAYERS), np.int64),  # 8 a playout's ranking keys, points
    )


# ---------------------------------------------------------------- scoring (phase 4)
@njit(cache=True, inline="always")
def potion_points(t, pub, p, k, extra):
    """Score-table points of cauldron k of seat p, plus one card of type `extra` (-1: none)."""
    base = cauldron_at(p, k, 0)
    pts = 0
    for x in range(t.types.shape[0]):
        n = pub[base + x] + (1 if x == extra else 0)
        if n > 0:
            pts += t.types[x, TY_SCORE + n]
    return pts


@njit(cache=True, inline="always")
def colour_counts(t, pub, p, k, counts):
    """Cards of each colour in cauldron k of seat p, into `counts`."""
    base = cauldron_at(p, k, 0)
    for c in range(t.rules[RU_COLOURS]):
        counts[c] = 0
    for x in range(t.types.shape[0]):
        counts[t.types[x, TY_COLOUR]] += pub[base + x]


@njit(cache=True, inline="always")
def recipe_points(t, pub, p, k, extra, counts, size):
    """Best single recipe bonus seat p's card gives cauldron k (+ card `extra`, -1: none).

    `counts` are the cauldron's colour counts without `extra`; `size` its cards with it.
    A recipe matches if the potion holds its specific ingredients and, per colour, at
    least as many cards as its icons and ingredients of that colour need ("contains"),
    and with options.recipe_match = "exact" nothing else.
    """
    card = pub[RECIPE + p]
    base = cauldron_at(p, k, 0)
    best = 0
    for j in range(MAX_RECIPES):
        bonus = t.recipe[card, j, RE_BONUS]
        need = t.recipe[card, j, RE_SIZE]
        if bonus <= best or size < need or (t.rules[RU_EXACT] and size != need):
            continue
        ok = True
        for i in range(t.recipe[card, j, RE_NLEN]):
            x = t.recipe[card, j, RE_NTYPE + i]
            if pub[base + x] + (1 if x == extra else 0) < t.recipe[card, j, RE_NCOUNT + i]:
                ok = False
                break
        if ok:
            for c in range(t.rules[RU_COLOURS]):
                plus = 1 if extra >= 0 and t.types[extra, TY_COLOUR] == c else 0
                if counts[c] + plus < t.recipe[card, j, RE_CTOTAL + c]:
                    ok = False
                    break
        if ok:
            best = bonus
    return best


# ---------------------------------------------------------------- options
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


@njit_without_refcounts
def take_witches_back(t, pub, s):
    """Seat s takes every witch into hand (at setup, and once all have been used)."""
    for w in range(t.witch.shape[0]):
        pub[hand_at(s, w)] = 1


@njit_without_refcounts
def turn_order(t, n_players, hecate, chosen_witch, order, key):
    """Phase 2: seats into `order`, lowest initiative first; ties go to the Favour of
    Hecate holder, then clockwise (to the left, increasing seat) from them."""
    for s in range(n_players):
        dist = (s - hecate + n_players) % n_players
        key[s] = t.witch[chosen_witch[s], WI_INIT] * MAX_PLAYERS + dist
        order[s] = s
    for i in range(1, n_players):  # insertion sort: at most 4 seats
        j = i
        while j > 0 and key[order[j - 1]] > key[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1


# ---------------------------------------------------------------- decisions
@njit(cache=True, inline="always")
def ask(sid, opts, n, pub, t, params, rng):
    """Ask a strategy for an option row; an out-of-range answer falls back to row 0."""
    chosen = choose(sid, opts, n, pub, t, params, rng)
    if chosen < 0 or chosen >= n:
        return 0
    return chosen


# ---------------------------------------------------------------- rollout player
# The rollout player needs the rules to play forward, so it lives here rather than in
# strategies/cauldron_master.py (which the kernel imports: the other way round would be a
# circular import). `playout` is a greedy-only copy of `play_game`'s round loop without
# outputs or tracing: calling `play_game` itself from a decision would be recursion, which
# numba cannot compile, and a leaner loop keeps playouts fast. It shares every rule helper
# above (options, turn order, scoring); tests/test_rollout.py checks it replays greedy games
# exactly.
@njit(cache=True)
def playout(t, n_players, pub, deck, top, potions, seat, first_witch, horizon, rs):
    """Play from the start of round pub[ROUND] with greedy players (weights 1, 1), dealing
    from deck[top:]; in the first round seat `seat` plays `first_witch` (-1: greedy too).
    Stops at the end of the game or after `horizon` rounds (0: no limit). Updates `pub` and
    `potions` in place and returns the number of rounds played."""
    n_types = t.types.shape[0]
    n_witches = t.witch.shape[0]
    n_cauldrons = t.rules[RU_CAULDRONS]
    supply_size = t.rules[RU_SUPPLY + n_players]
    opts, seats, colours, offer = rs[1], rs[3], rs[4], rs[5]
    chosen_witch, order, key = seats[0], seats[1], seats[2]
    rnd = pub[ROUND]
    rounds = 0
    while True:
        pub[ROUND] = rnd
        pub[PHASE] = PHASE_WITCH
        pub[WITCH_NOW] = -1
        pub[PICKS_LEFT] = 0
        for c in range(MAX_COLOURS):
            pub[TAKEN + c] = 0
        for s in range(n_players):
            pub[REVEALED + s] = -1
        for s in range(n_players):
            if rounds == 0 and s == seat:
                chosen_witch[s] = first_witch
                continue
            pub[SEAT] = s
            n = witch_options(t, pub, s, opts, colours[1], offer)
            chosen_witch[s] = opts[greedy_w(opts, n, 1.0, 1.0), A]
        for s in range(n_players):
            pub[REVEALED + s] = chosen_witch[s]
        turn_order(t, n_players, pub[HECATE], chosen_witch, order, key)
        pub[PHASE] = PHASE_PICK
        for i in range(n_players):
            s = order[i]
            w = chosen_witch[s]
            pub[SEAT] = s
            pub[WITCH_NOW] = w
            pub[PICKS_LEFT] = t.witch[w, WI_MAX]
            for c in range(MAX_COLOURS):
                pub[TAKEN + c] = 0
            while True:
                n = card_options(t, pub, s, w, opts, colours[0], offer)
                if n == 0:
                    break
                c = greedy_w(opts, n, 1.0, 1.0)
                if opts[c, KIND] == OPT_STOP:
                    break
                x = opts[c, A]
                k = opts[c, B]
                pub[SUPPLY + x] -= 1
                pub[cauldron_at(s, k, x)] += 1
                pub[fill_at(s, k)] += 1
                pub[TAKEN + t.types[x, TY_COLOUR]] += 1
                pub[PICKS_LEFT] -= 1
        pub[WITCH_NOW] = -1
        pub[PICKS_LEFT] = 0
        for s in range(n_players):
            for k in range(n_cauldrons):
                size = pub[fill_at(s, k)]
                if size < t.rules[RU_CAP + k]:
                    continue
                colour_counts(t, pub, s, k, colours[0])
                pub[SCORE + s] += (potion_points(t, pub, s, k, -1)
                                   + recipe_points(t, pub, s, k, -1, colours[0], size))
                potions[s] += 1
                for x in range(n_types):
                    pub[cauldron_at(s, k, x)] = 0
                pub[fill_at(s, k)] = 0
        rounds += 1
        played = rnd + 1
        in_supply = 0
        for x in range(n_types):
            in_supply += pub[SUPPLY + x]
        needed = supply_size - in_supply
        if needed > pub[DECK_LEFT]:
            break
        for _ in range(needed):
            pub[SUPPLY + deck[top]] += 1
            top += 1
        pub[DECK_LEFT] -= needed
        if t.rules[RU_END_EMPTY] and pub[DECK_LEFT] == 0:
            break
        pub[HECATE] = (pub[HECATE] + 1) % n_players
        for s in range(n_players):
            pub[hand_at(s, chosen_witch[s])] = 0
            held = 0
            for w in range(n_witches):
                held += pub[hand_at(s, w)]
            if held == 0:
                take_witches_back(t, pub, s)
        if played >= t.rules[RU_MAX_ROUNDS] or (horizon > 0 and rounds >= horizon):
            break
        rnd = played
    return rounds


@njit_with_refcounts
def rollout_witch(t, n_players, pub, opts, n, undealt, potions, params, rng, rs):
    """The rollout player's witch: the option row of `opts[:n]` whose playouts score best.

    Sees only what its seat may see: `pub` (no other seat's choice this round) and
    `undealt`, the number of undealt cards of each type (public: every dealt card is face
    up), never their order. Each of `params[0]` rounds re-shuffles those cards with the
    seat's own stream `rng` and plays every option forward on that same deal (common random
    numbers, so options are compared on equal luck). A playout's value is the seat's win
    share (ranked as at the end of the game, on the score after `params[1]` rounds if that
    cuts it short) plus 0.001 per point of margin over the best other seat, so that among
    equally winning options the wider margin is preferred.
    """
    seat = pub[SEAT]
    rpub, rdeck, rpotions, total = rs[0], rs[2], rs[3][3], rs[7]
    keys, points = rs[8][0], rs[8][1]
    n_rollouts = max(1, np.int64(params[0] + 0.5))
    horizon = np.int64(params[1] + 0.5)
    for i in range(n):
        total[i] = 0.0
    for _ in range(n_rollouts):
        # The undealt cards in a canonical order (by type), then shuffled: the deal depends
        # only on how many of each type are left, never on the real deck order.
        m = 0
        for x in range(t.types.shape[0]):
            for _j in range(undealt[x]):
                rdeck[m] = x
                m += 1
        for i in range(m - 1, 0, -1):
            j = randint(rng, i + 1)
            rdeck[i], rdeck[j] = rdeck[j], rdeck[i]
        for i in range(n):
            rpub[:] = pub
            for s in range(n_players):
                rpotions[s] = potions[s]
            playout(t, n_players, rpub, rdeck, 0, rpotions, seat, opts[i, A], horizon, rs)
            tie = t.rules[RU_TIE_POTIONS]
            for s in range(n_players):
                points[s] = rpub[SCORE + s]
                keys[s] = points[s] * 256 + (rpotions[s] if tie else 0)
            total[i] += playout_value(keys, points, seat, n_players)
    best = 0
    for i in range(1, n):
        if total[i] > total[best]:
            best = i
    return best


@njit_with_refcounts
def rollout_decision(t, n_players, pub, opts, n, deck, top, potions, params, rng, rs):
    """`rollout_witch` for the seat pub[SEAT] at the start of a round: of the real deck it
    is told only how many cards of each type are undealt (deck[top:] as counts)."""
    undealt = rs[6]
    undealt[:] = 0
    for i in range(top, deck.shape[0]):
        undealt[deck[i]] += 1
    return rollout_witch(t, n_players, pub, opts, n, undealt, potions, params, rng, rs)


# ---------------------------------------------------------------- one game
@njit_without_refcounts
def play_game(t, n_players, seed, sids, params, out, g, scratch, trace, tracing):
    """Play one game from `seed` into row g of `out`; seat s plays strategy sids[s]."""
    n_types = t.types.shape[0]
    n_witches = t.witch.shape[0]
    n_cauldrons = t.rules[RU_CAULDRONS]
    pub, opts, deck, recipe_deck, seats, rngs, colours, offer, rs = scratch
    chosen_witch, order, key, potions = seats[0], seats[1], seats[2], seats[3]
    pub[:] = 0
    potions[:] = 0
    for s in range(n_players):
        rngs[1 + s, 0] = stream_state(seed, np.uint64(1 + s))

    # Setup: shuffle the ingredient deck, reveal the supply, deal recipe cards face up.
    deal = rngs[0]
    deal[0] = stream_state(seed, np.uint64(0))
    for i in range(deck.shape[0]):  # not deck[:] = ...: that may allocate a copy
        deck[i] = t.deck[i]
    for i in range(deck.shape[0] - 1, 0, -1):
        j = randint(deal, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for i in range(recipe_deck.shape[0]):
        recipe_deck[i] = i
    for i in range(recipe_deck.shape[0] - 1, 0, -1):
        j = randint(deal, i + 1)
        recipe_deck[i], recipe_deck[j] = recipe_deck[j], recipe_deck[i]
    supply_size = t.rules[RU_SUPPLY + n_players]
    for i in range(supply_size):
        pub[SUPPLY + deck[i]] += 1
    top = supply_size
    pub[N_PLAYERS] = n_players
    pub[HECATE] = 0  # seat 0, the first player, starts with the Favour of Hecate
    pub[DECK_LEFT] = deck.shape[0] - top
    for s in range(n_players):
        pub[RECIPE + s] = recipe_deck[s]
        out[5][g, s] = recipe_deck[s]
        record_event(trace, tracing, 0, EV_SETUP, s, recipe_deck[s], 0, 0)
        take_witches_back(t, pub, s)

    rnd = 0
    while True:
        pub[ROUND] = rnd
        # 1. Select a witch, secretly and simultaneously: choices stay out of `pub` until
        #    everyone has chosen, so no strategy can see another's choice this round.
        pub[PHASE] = PHASE_WITCH
        pub[WITCH_NOW] = -1
        pub[PICKS_LEFT] = 0
        for c in range(MAX_COLOURS):
            pub[TAKEN + c] = 0
        for s in range(n_players):
            pub[REVEALED + s] = -1
        for s in range(n_players):
            pub[SEAT] = s
            n = witch_options(t, pub, s, opts, colours[1], offer)
            if sids[s] == ROLLOUT:
                c = rollout_decision(t, n_players, pub, opts, n, deck, top, potions,
                                     params[s], rngs[1 + s], rs)
            else:
                c = ask(sids[s], opts, n, pub, t, params[s], rngs[1 + s])
            record_decision(trace, tracing, rnd, s, opts[0, KIND], opts, n, c)
            chosen_witch[s] = opts[c, A]
        for s in range(n_players):
            pub[REVEALED + s] = chosen_witch[s]
            out[9][g, s, chosen_witch[s]] += 1
            record_event(trace, tracing, rnd, EV_REVEAL, s, chosen_witch[s], 0, 0)

        # 2. Player order.
        turn_order(t, n_players, pub[HECATE], chosen_witch, order, key)
        for i in range(n_players):
            record_event(trace, tracing, rnd, EV_ORDER, order[i], i, 0, 0)

        # 3. Pick ingredient cards in turn order; the supply is not refilled between turns.
        pub[PHASE] = PHASE_PICK
        for i in range(n_players):
            s = order[i]
            w = chosen_witch[s]
            pub[SEAT] = s
            pub[WITCH_NOW] = w
            pub[PICKS_LEFT] = t.witch[w, WI_MAX]
            for c in range(MAX_COLOURS):
                pub[TAKEN + c] = 0
            while True:
                n = card_options(t, pub, s, w, opts, colours[0], offer)
                if n == 0:
                    break  # nothing (more) this witch may take: "pick up the ones you can"
                c = ask(sids[s], opts, n, pub, t, params[s], rngs[1 + s])
                record_decision(trace, tracing, rnd, s, opts[0, KIND], opts, n, c)
                if opts[c, KIND] == OPT_STOP:
                    break
                x = opts[c, A]
                k = opts[c, B]
                pub[SUPPLY + x] -= 1
                pub[cauldron_at(s, k, x)] += 1
                pub[fill_at(s, k)] += 1
                pub[TAKEN + t.types[x, TY_COLOUR]] += 1
                pub[PICKS_LEFT] -= 1
                record_event(trace, tracing, rnd, EV_TAKE, s, x, k, 0)
        pub[WITCH_NOW] = -1
        pub[PICKS_LEFT] = 0

        # 4. Create potions: every full cauldron scores and is emptied.
        for s in range(n_players):
            for k in range(n_cauldrons):
                size = pub[fill_at(s, k)]
                if size < t.rules[RU_CAP + k]:
                    continue
                colour_counts(t, pub, s, k, colours[0])
                base_points = potion_points(t, pub, s, k, -1)
                bonus = recipe_points(t, pub, s, k, -1, colours[0], size)
                pub[SCORE + s] += base_points + bonus
                out[7][g, s] += bonus
                potions[s] += 1
                record_event(trace, tracing, rnd, EV_POTION, s, k, base_points, bonus)
                for x in range(n_types):
                    out[10][g, s, x] += pub[cauldron_at(s, k, x)]
                    pub[cauldron_at(s, k, x)] = 0
                pub[fill_at(s, k)] = 0

        # 5. End of round: refill the supply; the game ends if the deck cannot fill it.
        played = rnd + 1
        in_supply = 0
        for x in range(n_types):
            in_supply += pub[SUPPLY + x]
        needed = supply_size - in_supply
        if needed > pub[DECK_LEFT]:
            record_event(trace, tracing, rnd, EV_END, -1, needed, pub[DECK_LEFT], 0)
            break
        for _ in range(needed):
            pub[SUPPLY + deck[top]] += 1
            top += 1
        pub[DECK_LEFT] -= needed
        record_event(trace, tracing, rnd, EV_REFILL, -1, needed, pub[DECK_LEFT], 0)
        if t.rules[RU_END_EMPTY] and pub[DECK_LEFT] == 0:
            record_event(trace, tracing, rnd, EV_END, -3, 0, 0, 0)
            break
        pub[HECATE] = (pub[HECATE] + 1) % n_players
        record_event(trace, tracing, rnd, EV_HECATE, pub[HECATE], 0, 0, 0)
        for s in range(n_players):
            pub[hand_at(s, chosen_witch[s])] = 0  # used witches are set aside
            held = 0
            for w in range(n_witches):
                held += pub[hand_at(s, w)]
            if held == 0:  # every witch used: all go back to hand
                take_witches_back(t, pub, s)
        if played >= t.rules[RU_MAX_ROUNDS]:
            record_event(trace, tracing, rnd, EV_END, -2, 0, 0, 0)
            break
        rnd = played

    # End of game: incomplete cauldrons score nothing; rank by Spell Points.
    out[3][g] = rnd + 1
    for s in range(n_players):
        left = 0
        for k in range(n_cauldrons):
            left += pub[fill_at(s, k)]
        out[8][g, s] = left
        out[6][g, s] = potions[s]
        out[0][g, s] = pub[SCORE + s]
        key[s] = pub[SCORE + s] * 256 + (potions[s] if t.rules[RU_TIE_POTIONS] else 0)
    winners = 0
    for s in range(n_players):
        better = 0
        for q in range(n_players):
            if key[q] > key[s]:
                better += 1
        out[1][g, s] = better + 1
        if better == 0:
            winners += 1
    for s in range(n_players):
        out[2][g, s] = np.float32(1.0 / winners) if out[1][g, s] == 1 else np.float32(0.0)


@njit(cache=True, parallel=True, nogil=True)
def simulate_batch(t, n_players, master_seed, first_game, lineup, rotate, strategy_ids,
                   strategy_params, out):
    """Play games first_game .. first_game + len(out[0]) - 1 into `out` (new_outputs).

    Games are split into blocks so that each thread allocates its work arrays once; every
    game depends only on its own index, so the split never changes a result.
    """
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
