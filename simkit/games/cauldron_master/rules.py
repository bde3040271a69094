"""Cauldron Master's rules, in rulebook order: setup, 1 select a witch, 2 player order,
3 pick ingredient cards, 4 create potions, 5 end of round, the end of the game.

Each function applies one step to the game state (`pub`, the hidden state `hid`, the
deck) and the per-seat counters `cnt` (layouts: layout.py). None asks a player or writes a
result array: play.py sequences these steps between decisions, for batch play, traced
play and the rollout player's playouts alike (`create_potions` stops at a potion whose
owner must choose its recipe, and goes on after `choose_recipe`). `trace`/`tracing`
record events for `simkit play` (a no-op in batch play).
"""

from __future__ import annotations

from numba import njit

from simkit.kernels.jit import njit_without_refcounts
from simkit.kernels.trace import record_event
from simkit.rng import randint

from .layout import (BREW, CHOSEN, CT_BONUS, CT_POTIONS, CT_SCORED, CT_WITCH, DECK, DECK_LEFT,
                     EV_END, EV_HECATE, EV_ORDER, EV_POTION, EV_RECIPE, EV_REFILL, EV_REVEAL,
                     EV_SETUP, EV_TAKE, HECATE, KEY, MAX_CAULDRONS, MAX_COLOURS, MAX_PLAYERS,
                     MAX_TYPES, N_PLAYERS, ORDER, PHASE, PHASE_PICK, PHASE_RECIPE, PHASE_WITCH,
                     PICKS_LEFT, RECIPE, RECIPE_DECK, RECIPE_PLAYER, REVEALED, RE_BONUS, ROUND,
                     RU_CAP, RU_CAULDRONS, RU_END_EMPTY, RU_MAX_ROUNDS, RU_RECIPE_CHOICE,
                     RU_SUPPLY, SCORE, SEAT, SUPPLY, TAKEN, TOP, TURN, TY_COLOUR, UNDEALT,
                     WITCH_NOW, WI_INIT, WI_MAX, A, cauldron_at, fill_at, hand_at)
from .options import recipe_options
from .scoring import best_recipe, colour_counts, potion_points


# ---------------------------------------------------------------- setup
@njit_without_refcounts
def setup(t, n_players, pub, hid, cnt, rng, trace, tracing):
    """Shuffle the ingredient deck, reveal the supply, deal recipe cards face up, give every
    seat its witches; the first round begins. `rng` is the game's chance stream."""
    pub[:] = 0
    cnt[:] = 0
    n_cards = t.deck.shape[0]
    for i in range(n_cards):
        hid[DECK + i] = t.deck[i]
    for i in range(n_cards - 1, 0, -1):
        j = randint(rng, i + 1)
        hid[DECK + i], hid[DECK + j] = hid[DECK + j], hid[DECK + i]
    n_recipes = t.recipe.shape[0]
    for i in range(n_recipes):
        hid[RECIPE_DECK + i] = i
    for i in range(n_recipes - 1, 0, -1):
        j = randint(rng, i + 1)
        hid[RECIPE_DECK + i], hid[RECIPE_DECK + j] = hid[RECIPE_DECK + j], hid[RECIPE_DECK + i]
    supply_size = t.rules[RU_SUPPLY + n_players]
    for i in range(supply_size):
        pub[SUPPLY + hid[DECK + i]] += 1
    hid[TOP] = supply_size
    pub[N_PLAYERS] = n_players
    pub[HECATE] = 0  # seat 0, the first player, starts with the Favour of Hecate
    pub[DECK_LEFT] = n_cards - supply_size
    for s in range(n_players):
        card = hid[RECIPE_DECK + s]
        pub[RECIPE + s] = card
        record_event(trace, tracing, 0, EV_SETUP, s, card, 0, 0)
        take_witches_back(t, pub, s)
    begin_round(pub, n_players, 0)


@njit_without_refcounts
def take_witches_back(t, pub, s):
    """Seat s takes every witch into hand (at setup, and once all have been used)."""
    for w in range(t.witch.shape[0]):
        pub[hand_at(s, w)] = 1


@njit(cache=True, inline="always")
def begin_round(pub, n_players, rnd):
    """Round `rnd` begins with phase 1: seat 0 is the first to choose a witch."""
    pub[ROUND] = rnd
    pub[PHASE] = PHASE_WITCH
    pub[SEAT] = 0
    pub[WITCH_NOW] = -1
    pub[PICKS_LEFT] = 0
    for c in range(MAX_COLOURS):
        pub[TAKEN + c] = 0
    for s in range(n_players):
        pub[REVEALED + s] = -1


# ---------------------------------------------------------------- 1. select a witch
@njit(cache=True, inline="always")
def choose_witch(hid, s, w):
    """Seat s chooses witch w, secretly: it stays out of `pub` until everyone has chosen,
    so no strategy sees another's choice this round."""
    hid[CHOSEN + s] = w


# ---------------------------------------------------------------- 2. player order
@njit(cache=True, inline="always")
def reveal_witches(t, n_players, pub, hid, cnt, trace, tracing):
    """Everyone reveals their witch; the turn order follows (phase 2) and phase 3 begins."""
    rnd = pub[ROUND]
    for s in range(n_players):
        w = hid[CHOSEN + s]
        pub[REVEALED + s] = w
        cnt[s, CT_WITCH + w] += 1
        record_event(trace, tracing, rnd, EV_REVEAL, s, w, 0, 0)
    turn_order(t, n_players, pub[HECATE], hid[CHOSEN:CHOSEN + MAX_PLAYERS],
               hid[ORDER:ORDER + MAX_PLAYERS], hid[KEY:KEY + MAX_PLAYERS])
    for i in range(n_players):
        record_event(trace, tracing, rnd, EV_ORDER, hid[ORDER + i], i, 0, 0)
    pub[PHASE] = PHASE_PICK
    hid[TURN] = 0
    hid[BREW] = 0


@njit_without_refcounts
def turn_order(t, n_players, hecate, chosen_witch, order, key):
    """Seats into `order`, lowest initiative first; ties go to the Favour of Hecate
    holder, then clockwise (to the left, increasing seat) from them."""
    for s in range(n_players):
        dist = (s - hecate + n_players) % n_players
        key[s] = t.witch[chosen_witch[s], WI_INIT] * MAX_PLAYERS + dist
        order[s] = s
    for i in range(1, n_players):  # insertion sort: at most 4 seats
        j = i
        while j > 0 and key[order[j - 1]] > key[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1


# ---------------------------------------------------------------- 3. pick ingredient cards
@njit(cache=True, inline="always")
def begin_turn(t, pub, hid):
    """The turn hid[TURN] in the order begins: that seat plays its witch."""
    s = hid[ORDER + hid[TURN]]
    w = hid[CHOSEN + s]
    pub[SEAT] = s
    pub[WITCH_NOW] = w
    pub[PICKS_LEFT] = t.witch[w, WI_MAX]
    for c in range(MAX_COLOURS):
        pub[TAKEN + c] = 0


@njit(cache=True, inline="always")
def take_card(t, pub, s, x, k, trace, tracing):
    """Seat s takes an ingredient card of type x from the supply into its cauldron k (the
    supply is not refilled between turns)."""
    pub[SUPPLY + x] -= 1
    pub[cauldron_at(s, k, x)] += 1
    pub[fill_at(s, k)] += 1
    pub[TAKEN + t.types[x, TY_COLOUR]] += 1
    pub[PICKS_LEFT] -= 1
    record_event(trace, tracing, pub[ROUND], EV_TAKE, s, x, k, 0)


@njit(cache=True, inline="always")
def end_turns(pub):
    """Every seat has played its turn."""
    pub[WITCH_NOW] = -1
    pub[PICKS_LEFT] = 0
    for c in range(MAX_COLOURS):
        pub[TAKEN + c] = 0


# ---------------------------------------------------------------- 4. create potions
@njit(cache=True, inline="always")
def create_potions(t, n_players, pub, hid, cnt, opts, counts, trace, tracing):
    """Every full cauldron, from hid[BREW] on (seats in seat order, cauldrons in order),
    is brewed (`brew_potion`) with the best matching recipe of its owner's card.

    With options.recipe_choice = "player" the owner chooses instead, when two or more
    recipes match: the phase stops at that potion (hid[BREW]) and asks its owner, with the
    recipe options in `opts` (`recipe_options`); returns their count. `choose_recipe`
    applies the choice, and a call after it goes on with the next cauldron. Returns 0 once
    every potion is brewed."""
    n_cauldrons = t.rules[RU_CAULDRONS]
    for i in range(hid[BREW], n_players * MAX_CAULDRONS):
        s = i // MAX_CAULDRONS
        k = i % MAX_CAULDRONS
        if k >= n_cauldrons:
            continue
        size = pub[fill_at(s, k)]
        if size < t.rules[RU_CAP + k]:
            continue
        colour_counts(t, pub, s, k, counts)
        if t.rules[RU_RECIPE_CHOICE] == RECIPE_PLAYER:
            n = recipe_options(t, pub, s, k, opts, counts, size)
            if n >= 2:
                hid[BREW] = i
                pub[PHASE] = PHASE_RECIPE
                pub[SEAT] = s
                return n
            j = opts[0, A] if n == 1 else -1  # the only recipe that matches, or none
        else:
            j = best_recipe(t, pub, s, k, -1, counts, size)[0]
        brew_potion(t, pub, cnt, s, k, j, trace, tracing)
    return 0


@njit(cache=True, inline="always")
def choose_recipe(t, pub, hid, cnt, j, trace, tracing):
    """The owner of the potion waiting at hid[BREW] chose recipe j of their card (one that
    matches: options.recipe_choice = "player"): it is brewed, and phase 4 goes on."""
    i = hid[BREW]
    brew_potion(t, pub, cnt, i // MAX_CAULDRONS, i % MAX_CAULDRONS, j, trace, tracing)
    hid[BREW] = i + 1
    pub[PHASE] = PHASE_PICK


@njit(cache=True, inline="always")
def brew_potion(t, pub, cnt, s, k, j, trace, tracing):
    """Seat s brews its full cauldron k: it scores the cauldron's score-table points plus
    the bonus of recipe j of its card (-1: none), and the cauldron is emptied (its cards
    are set aside, out of play)."""
    base_points = potion_points(t, pub, s, k, -1)
    bonus = 0
    if j >= 0:
        bonus = t.recipe[pub[RECIPE + s], j, RE_BONUS]
        record_event(trace, tracing, pub[ROUND], EV_RECIPE, s, k, j, bonus)
    pub[SCORE + s] += base_points + bonus
    cnt[s, CT_BONUS] += bonus
    cnt[s, CT_POTIONS] += 1
    record_event(trace, tracing, pub[ROUND], EV_POTION, s, k, base_points, bonus)
    for x in range(t.types.shape[0]):
        cnt[s, CT_SCORED + x] += pub[cauldron_at(s, k, x)]
        pub[cauldron_at(s, k, x)] = 0
    pub[fill_at(s, k)] = 0


# ---------------------------------------------------------------- 5. end of round
@njit(cache=True, inline="always")
def end_of_round(t, n_players, pub, hid, trace, tracing):
    """Refill the supply; the game ends if the deck cannot fill it (or, by option, once it
    is empty, or after the last round). Otherwise the Favour of Hecate passes to the left
    and used witches are set aside. Returns whether the game is over."""
    rnd = pub[ROUND]
    n_types = t.types.shape[0]
    in_supply = 0
    for x in range(n_types):
        in_supply += pub[SUPPLY + x]
    needed = t.rules[RU_SUPPLY + n_players] - in_supply
    if needed > pub[DECK_LEFT]:
        record_event(trace, tracing, rnd, EV_END, -1, needed, pub[DECK_LEFT], 0)
        return True
    top = hid[TOP]
    for _ in range(needed):
        pub[SUPPLY + hid[DECK + top]] += 1
        top += 1
    hid[TOP] = top
    pub[DECK_LEFT] -= needed
    record_event(trace, tracing, rnd, EV_REFILL, -1, needed, pub[DECK_LEFT], 0)
    if t.rules[RU_END_EMPTY] and pub[DECK_LEFT] == 0:
        record_event(trace, tracing, rnd, EV_END, -3, 0, 0, 0)
        return True
    pub[HECATE] = (pub[HECATE] + 1) % n_players
    record_event(trace, tracing, rnd, EV_HECATE, pub[HECATE], 0, 0, 0)
    for s in range(n_players):
        pub[hand_at(s, hid[CHOSEN + s])] = 0  # used witches are set aside
        held = 0
        for w in range(t.witch.shape[0]):
            held += pub[hand_at(s, w)]
        if held == 0:  # every witch used: all go back to hand
            take_witches_back(t, pub, s)
    if rnd + 1 >= t.rules[RU_MAX_ROUNDS]:
        record_event(trace, tracing, rnd, EV_END, -2, 0, 0, 0)
        return True
    return False


# ---------------------------------------------------------------- what a seat cannot see
@njit(cache=True, inline="always")
def redeal(t, n_players, pub, hid, cnt, seat, rng):
    """Re-sample what `seat` cannot see, for the lookahead players: the undealt cards
    (hid[DECK + TOP:]) in a new order drawn from `rng` (every dealt card is face up, so
    the seat knows how many of each type are left, never their order), and, while
    witches are chosen, the secret witch of each seat that chose before pub[SEAT]: it
    becomes the first witch in that seat's hand, a legal stand-in that tells nothing (the
    search player has its playout policy choose it again: play.search_deal). Undealt
    recipe cards are never used, so they stay. The deal depends only on what the seat
    sees: the undealt cards are laid out by type before the shuffle."""
    undealt = hid[UNDEALT:UNDEALT + MAX_TYPES]
    n_types = t.types.shape[0]
    for x in range(n_types):
        undealt[x] = 0
    top = hid[TOP]
    for i in range(DECK + top, DECK + t.deck.shape[0]):
        undealt[hid[i]] += 1
    m = DECK + top
    for x in range(n_types):
        for _j in range(undealt[x]):
            hid[m] = x
            m += 1
    m -= DECK + top
    for i in range(m - 1, 0, -1):
        j = randint(rng, i + 1)
        a, b = DECK + top + i, DECK + top + j
        hid[a], hid[b] = hid[b], hid[a]
    if pub[PHASE] == PHASE_WITCH:
        for q in range(pub[SEAT]):
            if q != seat:
                for w in range(t.witch.shape[0]):
                    if pub[hand_at(q, w)]:
                        hid[CHOSEN + q] = w
                        break
