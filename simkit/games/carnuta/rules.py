"""Carnuta's rules, in rulebook order: setup, the four actions and the Sickle, end of turn
(discard, the counter and its bonus spaces), end of round, scoring and the tiebreaker.

Each function applies one step to the game state (`pub`, the hidden state `hid`, the
decks) and the per-seat counters `cnt` (layouts: layout.py). None asks a player or writes
a result array: play.py sequences these steps between decisions, for batch play, traced
play and the rollout player's playouts alike. `ver` versions each seat's tableau for the
option tables' caches (options.py). `trace`/`tracing` record events for `simkit play`.

Conventions the rule text does not fix (documented, not options): seat 0 holds the
Ancestor; each cost icon is paid by a different rune showing the icon's side before
payment; a deck is rebuilt from its discards when a card must be drawn from it while it is
empty; a slot that finds no card (deck and discards empty) stays empty until the next
take or Sickle on its row; a counter that passes several spaces in one turn gains each.
"""

from __future__ import annotations

from numba import njit

from simkit.kernels.jit import njit_without_refcounts
from simkit.kernels.trace import record_event
from simkit.rng import randint

from . import layout as L
from .scoring import final_score, tableau_points


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

    An empty deck is first rebuilt from that type's discards, shuffled with `rng`; returns
    how many cards were shuffled into it (0: none), for the trace (`record_reveal`).
    """
    d = slot // L.SLOTS_PER_ROW
    k = 0
    if tops[L.PILE_TOP, d] == tops[L.PILE_END, d]:
        k = tops[L.PILE_DISCARDS, d]
        if k == 0:
            pub[L.DISPLAY + slot] = -1
            return 0
        for i in range(k):
            deck[d, i] = discard[d, i]
        shuffle_range(deck, d, k, rng)
        tops[L.PILE_TOP, d] = 0
        tops[L.PILE_END, d] = k
        tops[L.PILE_DISCARDS, d] = 0
        pub[L.DISCARDS + d] = 0
    pub[L.DISPLAY + slot] = deck[d, tops[L.PILE_TOP, d]]
    tops[L.PILE_TOP, d] += 1
    pub[L.DECK_LEFT + d] = tops[L.PILE_END, d] - tops[L.PILE_TOP, d]
    return k


@njit(cache=True, inline="always")
def record_reveal(trace, tracing, pub, slot, shuffled):
    """Trace a reveal (and the deck rebuilt before it). Kept out of `reveal`, whose
    callers pass no trace: a hot function's every array argument costs a call."""
    if tracing:
        d = slot // L.SLOTS_PER_ROW
        if shuffled > 0:
            record_event(trace, True, pub[L.ROUND], L.EV_RESHUFFLE, -1, d, shuffled, 0)
        record_event(trace, True, pub[L.ROUND], L.EV_REVEAL, -1, slot, pub[L.DISPLAY + slot],
                     pub[L.DECK_LEFT + d])


@njit(cache=True, inline="always")
def to_discard(cd, pub, discard, tops, c):
    """Card c goes onto its deck's discard pile."""
    d = cd[c, L.CARD_DECK]
    discard[d, tops[L.PILE_DISCARDS, d]] = c
    tops[L.PILE_DISCARDS, d] += 1
    pub[L.DISCARDS + d] += 1


@njit_without_refcounts
def add_to_tableau(cd, pub, p, c, col, gain):
    """Place card c in column col of seat p and update counts and score.

    `gain` is the score gain from the option table (exact); -1 rescoring the tableau.
    """
    base = L.player_at(p, 0)
    i = pub[base + L.P_N_CARDS]
    pub[base + L.P_CARDS + i] = c
    pub[base + L.P_COLUMN + i] = col
    pub[base + L.P_N_CARDS] = i + 1
    pub[base + L.P_COUNT + col] += cd[c, L.CARD_AMOUNT]
    if gain < 0:
        pub[base + L.P_SCORE] = tableau_points(cd, pub, p, -1, 0)
    else:
        pub[base + L.P_SCORE] += gain


# ---------------------------------------------------------------- setup
@njit_without_refcounts
def setup(t, n_players, pub, hid, cnt, deck, discard, tops, starts, ver, memo, rng, trace,
          tracing):
    """Setup, in rulebook order: decks, display, reserve, tokens, starting cards (starts[s]
    is seat s's), player boards; seat 0's first turn begins. `rng` is the deal stream."""
    cd = t.card
    n_cards = cd.shape[0]
    n_ing = t.rules[L.R_N_ING_CARDS]
    pub[:] = 0
    hid[:] = 0
    hid[L.END_REASON] = -1  # the last round was played (-2: max_rounds cut the game)
    for s in range(n_players):
        for i in range(L.CT_SIZE):
            cnt[s, i] = 0
    ver[:, 0] = 0
    ver[:, 1] = -1
    memo[:, :, 2] = -1

    # Setup 1-2: Day and Night decks shuffled separately; 4 face up from each.
    tops[:, :] = 0
    for c in range(n_ing):
        d = cd[c, L.CARD_DECK]
        deck[d, tops[L.PILE_END, d]] = c
        tops[L.PILE_END, d] += 1
    for d in range(2):
        shuffle_range(deck, d, tops[L.PILE_END, d], rng)
        pub[L.DECK_LEFT + d] = tops[L.PILE_END, d]
    pub[L.N_PLAYERS] = n_players
    for slot in range(L.N_SLOTS):
        k = reveal(pub, deck, discard, tops, slot, rng)
        record_reveal(trace, tracing, pub, slot, k)
    # Setup 4-5: the rune reserve; the Bonus Ingredient tokens.
    pub[L.RESERVE + L.SUN] = t.reserve[n_players, 0]
    pub[L.RESERVE + L.MOON] = t.reserve[n_players, 1]
    for x in range(L.MAX_TYPES):
        pub[L.TOKENS + x] = t.tokens[x] if x < t.rules[L.R_N_TYPES] else -1
    # Setup 6: one starting card each, face up. Seat 0 holds the Ancestor (7).
    n_start = n_cards - n_ing
    for i in range(n_start):
        starts[0 + i] = n_ing + i
    for i in range(n_start - 1, 0, -1):
        j = randint(rng, i + 1)
        starts[i], starts[j] = starts[j], starts[i]
    for s in range(n_players):
        base = L.player_at(s, 0)
        # Player setup: counter on 1, 2 Sun + 2 Moon, 2 padlocks, 2 sickles.
        pub[base + L.P_SUN] = t.rules[L.R_START_SUN]
        pub[base + L.P_MOON] = t.rules[L.R_START_MOON]
        pub[base + L.P_OPEN] = t.rules[L.R_SPACES] - t.rules[L.R_PADLOCKED]
        pub[base + L.P_SICKLES] = t.rules[L.R_SICKLES]
        c = starts[s]
        add_to_tableau(cd, pub, s, c, cd[c, L.CARD_ING], -1)
        pub[base + L.P_PLAYED] = 1 if t.rules[L.R_START_COUNTS] else 0
        hid[L.COUNTER + s] = min(pub[base + L.P_PLAYED], t.rules[L.R_TOP])
        if tracing:
            record_event(trace, tracing, 0, L.EV_SETUP, s, c, 0, 0)
    begin_turn(pub, cnt, 0)


@njit(cache=True, inline="always")
def begin_turn(pub, cnt, s):
    """Seat s's turn: two actions, in any order; the Sickle is free at any point."""
    pub[L.SEAT] = s
    cnt[s, L.CT_TURNS] += 1
    pub[L.STEP] = L.STEP_ACTION
    pub[L.ACTIONS_LEFT] = 2


# ---------------------------------------------------------------- the actions
@njit(cache=True, inline="always")
def take_card(pub, s, slot, deck, discard, tops, rng, trace, tracing):
    """Take a Card: the card in display `slot` into seat s's hand; the slot is refilled."""
    base = L.player_at(s, 0)
    c = pub[L.DISPLAY + slot]
    h = pub[base + L.P_HAND_N]
    pub[base + L.P_HAND + h] = c
    pub[base + L.P_HAND_N] = h + 1
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_TAKE, s, slot, c, 0)
    k = reveal(pub, deck, discard, tops, slot, rng)
    record_reveal(trace, tracing, pub, slot, k)


@njit(cache=True, inline="always")
def from_hand(pub, base, h):
    """Remove hand position h of the seat whose block starts at `base`; returns the card."""
    c = pub[base + L.P_HAND + h]
    for i in range(h, pub[base + L.P_HAND_N] - 1):
        pub[base + L.P_HAND + i] = pub[base + L.P_HAND + i + 1]
    pub[base + L.P_HAND_N] -= 1
    pub[base + L.P_HAND + pub[base + L.P_HAND_N]] = 0
    return c


@njit(cache=True, inline="always")
def play_card(t, pub, cnt, s, h, col, gain, ver, trace, tracing):
    """Play a Card: hand card h into column col (score gain `gain`), paying its cost (the
    runes of each cost icon flip or return to the reserve); may trigger the end."""
    cd = t.card
    base = L.player_at(s, 0)
    c = from_hand(pub, base, h)
    sf, mf = cd[c, L.CARD_COST + L.SUN_FLIP], cd[c, L.CARD_COST + L.MOON_FLIP]
    sr, mr = cd[c, L.CARD_COST + L.SUN_RETURN], cd[c, L.CARD_COST + L.MOON_RETURN]
    pub[base + L.P_SUN] += mf - sf - sr
    pub[base + L.P_MOON] += sf - mf - mr
    pub[L.RESERVE + L.SUN] += sr
    pub[L.RESERVE + L.MOON] += mr
    cnt[s, L.CT_PAID_FLIP] += sf + mf
    cnt[s, L.CT_RETURNED] += sr + mr
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_PAY, s, sf + mf, sr + mr, 0)
    add_to_tableau(cd, pub, s, c, col, gain)
    ver[s, 0] += 1
    pub[base + L.P_PLAYED] += 1
    cnt[s, L.CT_PLAYED] += 1
    cnt[s, L.CT_COLUMN + col] += 1
    if cd[c, L.CARD_KIND] == L.DOUBLE:
        cnt[s, L.CT_DOUBLES] += 1
    elif cd[c, L.CARD_KIND] == L.SALT:
        cnt[s, L.CT_SALTS] += 1
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_PLAY, s, c, col, pub[base + L.P_PLAYED])
    if pub[L.TRIGGERED] == 0 and pub[base + L.P_PLAYED] >= t.rules[L.R_END_CARDS]:
        pub[L.TRIGGERED] = 1
        cnt[s, L.CT_TRIGGERED] = 1
        if tracing:
            record_event(trace, tracing, pub[L.ROUND], L.EV_TRIGGER, s, pub[base + L.P_PLAYED], 0,
                         0)


@njit(cache=True, inline="always")
def take_runes(pub, cnt, s, side, k, trace, tracing):
    """Take Runes: k runes of `side` from the reserve onto seat s's empty spaces."""
    pub[L.RESERVE + side] -= k
    pub[L.player_at(s, L.P_SUN) + side] += k
    cnt[s, L.CT_RUNES_TAKEN] += k
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_RUNES, s, side, k, 0)


@njit(cache=True, inline="always")
def flip_runes(pub, cnt, s, side, k, trace, tracing):
    """Flip Runes: k of seat s's runes turn to show `side`."""
    base = L.player_at(s, 0)
    pub[base + L.P_SUN + side] += k
    pub[base + L.P_SUN + 1 - side] -= k
    cnt[s, L.CT_FLIPPED] += k
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_FLIP, s, side, k, 0)


@njit(cache=True, inline="always")
def pass_action(pub, s, trace, tracing):
    """No action is possible: the player passes."""
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_PASS, s, 0, 0, 0)


@njit_without_refcounts
def use_sickle(cd, pub, cnt, s, d, deck, discard, tops, rng, trace, tracing):
    """The Sickle: discard the 4 cards of row d (0 Day, 1 Night) and reveal 4 new ones."""
    pub[L.player_at(s, L.P_SICKLES)] -= 1
    cnt[s, L.CT_SICKLES] += 1
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_SICKLE, s, d, 0, 0)
    for i in range(L.SLOTS_PER_ROW):
        slot = d * L.SLOTS_PER_ROW + i
        c = pub[L.DISPLAY + slot]
        if c >= 0:
            to_discard(cd, pub, discard, tops, c)
            pub[L.DISPLAY + slot] = -1
    for i in range(L.SLOTS_PER_ROW):
        k = reveal(pub, deck, discard, tops, d * L.SLOTS_PER_ROW + i, rng)
        record_reveal(trace, tracing, pub, d * L.SLOTS_PER_ROW + i, k)


# ---------------------------------------------------------------- end of turn
@njit(cache=True, inline="always")
def discard_card(cd, pub, cnt, s, h, discard, tops, trace, tracing):
    """Over the hand limit: seat s discards hand card h."""
    c = from_hand(pub, L.player_at(s, 0), h)
    to_discard(cd, pub, discard, tops, c)
    cnt[s, L.CT_DISCARDED] += 1
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_DISCARD, s, c, 0, 0)


@njit(cache=True, inline="always")
def begin_counter(pub, hid, s):
    """The counter follows the cards played: its spaces are reached one level at a time."""
    pub[L.STEP] = L.STEP_TOKEN
    hid[L.LEVEL] = hid[L.COUNTER + s]
    hid[L.TOKENS_DUE] = 0


@njit(cache=True, inline="always")
def reach_level(t, pub, hid, s, trace, tracing):
    """The counter of seat s reaches the next track level: its padlocks open, and its bonus
    tokens become due (taken one decision at a time)."""
    lv = hid[L.LEVEL] + 1
    hid[L.LEVEL] = lv
    base = L.player_at(s, 0)
    for _ in range(t.track[lv, 0]):
        if pub[base + L.P_OPEN] < t.rules[L.R_SPACES]:
            pub[base + L.P_OPEN] += 1
            if tracing:
                record_event(trace, tracing, pub[L.ROUND], L.EV_PADLOCK, s,
                             pub[base + L.P_OPEN], lv, 0)
    hid[L.TOKENS_DUE] = t.track[lv, 1]


@njit(cache=True, inline="always")
def take_token(pub, hid, cnt, s, x, gain, ver, trace, tracing):
    """A bonus space: seat s takes the Bonus Ingredient token of type x (score gain `gain`)."""
    base = L.player_at(s, 0)
    pub[L.TOKENS + x] -= 1
    pub[base + L.P_TOKENS + x] += 1
    pub[base + L.P_COUNT + x] += 1
    pub[base + L.P_SCORE] += gain  # the exact gain
    ver[s, 0] += 1
    cnt[s, L.CT_TOKEN + x] += 1
    cnt[s, L.CT_TOKENS] += 1
    hid[L.TOKENS_DUE] -= 1
    if tracing:
        record_event(trace, tracing, pub[L.ROUND], L.EV_TOKEN, s, x, hid[L.LEVEL], 0)


@njit(cache=True, inline="always")
def end_turn(t, pub, hid, s):
    """Seat s's turn is over."""
    level = min(pub[L.player_at(s, L.P_PLAYED)], t.rules[L.R_TOP])
    hid[L.COUNTER + s] = max(hid[L.COUNTER + s], level)
    pub[L.STEP] = L.STEP_ACTION
    pub[L.ACTIONS_LEFT] = 0


# ---------------------------------------------------------------- end of round
@njit(cache=True, inline="always")
def end_of_round(t, pub, hid, trace, tracing):
    """The last turn of a round is the player right of the Ancestor (seat n-1). Once a
    card has triggered the end, one more round is played (options.final_turns) and the
    game ends. Returns whether it has; if not, the next round begins."""
    rnd = pub[L.ROUND]
    over = False
    if pub[L.FINAL] == 1 or pub[L.TRIGGERED] == 1 and not t.rules[L.R_FINAL_TURNS]:
        over = True
    else:
        if pub[L.TRIGGERED] == 1:
            pub[L.FINAL] = 1
        if rnd + 1 >= t.rules[L.R_MAX_ROUNDS]:
            hid[L.END_REASON] = -2
            over = True
    if over:
        if tracing:
            record_event(trace, tracing, rnd, L.EV_END, hid[L.END_REASON], rnd, 0, 0)
        return True
    pub[L.ROUND] = rnd + 1
    return False


# ---------------------------------------------------------------- scoring
@njit(cache=True, inline="always")
def final_scoring(t, n_players, pub, cnt, cols, trace, tracing):
    """Every card's line, bonus tokens counting as ingredients; the tiebreaker's most
    points in one ingredient. Totals (with the seat compensation: scoring.final_score)
    into the counters."""
    cd = t.card
    n_ing = t.rules[L.R_N_ING_CARDS]
    for s in range(n_players):
        base = L.player_at(s, 0)
        total, best = final_score(t, pub, s, cols)
        for i in range(pub[base + L.P_N_CARDS]):
            c = pub[base + L.P_CARDS + i]
            pts = cols[L.MAX_TYPES + i]
            cnt[s, L.CT_KIND + cd[c, L.CARD_SCORE]] += pts
            if c >= n_ing:
                cnt[s, L.CT_START_POINTS] = pts
            if tracing:
                record_event(trace, tracing, pub[L.ROUND], L.EV_SCORE, s, c,
                             pub[base + L.P_COLUMN + i], pts)
        cnt[s, L.CT_SCORE] = total
        cnt[s, L.CT_BEST] = best

