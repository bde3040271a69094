"""Carnuta's rules, in rulebook order: setup, the four actions and the Sickle, end of turn
(discard, the counter and its bonus spaces), end of round, scoring and the tiebreaker.

Each function applies one step to the game state (`pub`, the hidden state `hid`, the
decks) and the per-seat counters `cnt` (layouts: layout.py). None asks a player or writes
a result array: play.py sequences these steps between decisions, for batch play, traced
play and the rollout player's playouts alike. `hid[VERSION + s]` versions each seat's
tableau for the option tables' caches (options.py). `trace`/`tracing` record events for
`simkit play`.

Conventions the rule text does not fix (documented, not options): seat 0 holds the
Ancestor; each cost icon is paid by a different rune showing the icon's side before
payment; a deck is rebuilt from its discards when a card must be drawn from it while it is
empty; a slot that finds no card (deck and discards empty) stays empty until the next
take or Sickle on its row; a counter that passes several spaces in one turn gains each.
"""

from __future__ import annotations

from numba import njit
from simkit.kernels.jit import njit_without_refcounts
from simkit.kernels.lookahead import canonical
from simkit.kernels.trace import record_event
from simkit.rng import randint

from .layout import (ACTIONS_LEFT, BUILT, CARD_AMOUNT, CARD_COST, CARD_DECK, CARD_ING, CARD_KIND,
                     CARD_SCORE, COUNTER, CT_BEST, CT_COLUMN, CT_DISCARDED, CT_DOUBLES, CT_FLIPPED,
                     CT_KIND, CT_PAID_FLIP, CT_PLAYED, CT_RETURNED, CT_RUNES_TAKEN, CT_SALTS,
                     CT_SCORE, CT_SICKLES, CT_SIZE, CT_START_POINTS, CT_TOKEN, CT_TOKENS,
                     CT_TRIGGERED, CT_TURNS, DECK_LEFT, DISCARDS, DISPLAY, DOUBLE, END_REASON,
                     EV_DISCARD, EV_END, EV_FLIP, EV_PADLOCK, EV_PASS, EV_PAY, EV_PLAY,
                     EV_RESHUFFLE, EV_REVEAL, EV_RUNES, EV_SCORE, EV_SETUP, EV_SICKLE, EV_TAKE,
                     EV_TOKEN, EV_TRIGGER, FINAL, LEVEL, MAX_PLAYERS, MAX_TYPES, MOON, MOON_FLIP,
                     MOON_RETURN, N_PLAYERS, N_SLOTS, P_CARDS, P_COLUMN, P_COUNT, P_HAND, P_HAND_N,
                     P_MOON, P_N_CARDS, P_OPEN, P_PLAYED, P_SCORE, P_SICKLES, P_SUN, P_TOKENS,
                     PILE_DISCARDS, PILE_END, PILE_TOP, R_END_CARDS, R_FINAL_TURNS, R_MAX_ROUNDS,
                     R_N_ING_CARDS, R_N_TYPES, R_PADLOCKED, R_SICKLES, R_SPACES, R_START_COUNTS,
                     R_START_MOON, R_START_SUN, R_TOP, RESERVE, ROUND, SALT, SEAT, SLOTS_PER_ROW,
                     STARTS, STEP, STEP_ACTION, STEP_TOKEN, SUN, SUN_FLIP, SUN_RETURN, TOKENS,
                     TOKENS_DUE, TRIGGERED, VERSION, cols_of, deck_of, discard_of, memo_of,
                     player_at)
from .scoring import final_score, tableau_points


# ---------------------------------------------------------------- decks
@njit_without_refcounts
def shuffle_range(pile, n, rng):
    """Fisher-Yates over pile[:n], last position first."""
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        pile[i], pile[j] = pile[j], pile[i]


@njit(cache=True, inline="always")
def redeal(t, n_players, pub, hid, cnt, seat, rng):
    """Re-sample what `seat` cannot see, for the lookahead players: each deck's undrawn
    cards in a new order drawn from `rng`, from index 0, and each discard pile in sorted
    order (a rebuilt deck is shuffled anyway). Every other card is in sight or was, so the
    seat knows each pile's contents and size, never their order; the deal depends on those
    alone: each pile is sorted before the shuffle. Hands, display, tableaux and runes
    (`pub`), the counter, the option caches (`hid`) and `cnt` stay."""
    n = t.card.shape[0]
    for d in range(2):
        deck, discard = deck_of(hid, n, d), discard_of(hid, n, d)
        hid[PILE_END + d] = canonical(deck, hid[PILE_TOP + d], hid[PILE_END + d], deck)
        hid[PILE_TOP + d] = 0
        hid[PILE_DISCARDS + d] = canonical(discard, 0, hid[PILE_DISCARDS + d], discard)
        shuffle_range(deck, hid[PILE_END + d], rng)


@njit_without_refcounts
def reveal(cd, pub, hid, slot, rng):
    """Fill display slot `slot` from the top of its row's deck (-1 if there is none).

    An empty deck is first rebuilt from that type's discards, shuffled with `rng`; returns
    how many cards were shuffled into it (0: none), for the trace (`record_reveal`).
    """
    d = slot // SLOTS_PER_ROW
    n = cd.shape[0]
    deck = deck_of(hid, n, d)
    k = 0
    if hid[PILE_TOP + d] == hid[PILE_END + d]:
        k = hid[PILE_DISCARDS + d]
        if k == 0:
            pub[DISPLAY + slot] = -1
            return 0
        discard = discard_of(hid, n, d)
        for i in range(k):
            deck[i] = discard[i]
        shuffle_range(deck, k, rng)
        hid[PILE_TOP + d] = 0
        hid[PILE_END + d] = k
        hid[PILE_DISCARDS + d] = 0
        pub[DISCARDS + d] = 0
    pub[DISPLAY + slot] = deck[hid[PILE_TOP + d]]
    hid[PILE_TOP + d] += 1
    pub[DECK_LEFT + d] = hid[PILE_END + d] - hid[PILE_TOP + d]
    return k


@njit(cache=True, inline="always")
def record_reveal(trace, tracing, pub, slot, shuffled):
    """Trace a reveal (and the deck rebuilt before it). Kept out of `reveal`, whose
    callers pass no trace: a hot function's every array argument costs a call."""
    if tracing:
        d = slot // SLOTS_PER_ROW
        if shuffled > 0:
            record_event(trace, True, pub[ROUND], EV_RESHUFFLE, -1, d, shuffled, 0)
        record_event(trace, True, pub[ROUND], EV_REVEAL, -1, slot, pub[DISPLAY + slot],
                     pub[DECK_LEFT + d])


@njit(cache=True, inline="always")
def to_discard(cd, pub, hid, c):
    """Card c goes onto its deck's discard pile."""
    d = cd[c, CARD_DECK]
    discard_of(hid, cd.shape[0], d)[hid[PILE_DISCARDS + d]] = c
    hid[PILE_DISCARDS + d] += 1
    pub[DISCARDS + d] += 1


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


# ---------------------------------------------------------------- setup
@njit(cache=True, inline="always")
def fresh_caches(t, hid):
    """Every seat's option caches out of date (options.py rebuilds them when asked): a new
    game's, and a lookahead's re-deal's."""
    for p in range(MAX_PLAYERS):
        hid[VERSION + p] = 0
        hid[BUILT + p] = -1
        memo = memo_of(hid, t.card.shape[0], p)
        for i in range(2, memo.shape[0], 3):
            memo[i] = -1  # the version its gain and column were found at


@njit_without_refcounts
def setup(t, n_players, pub, hid, cnt, rng, trace, tracing):
    """Setup, in rulebook order: decks, display, reserve, tokens, starting cards (the
    STARTS work slot's first n_players are dealt), player boards; seat 0's first turn
    begins. `rng` is the deal stream."""
    cd = t.card
    n_cards = cd.shape[0]
    n_ing = t.rules[R_N_ING_CARDS]
    pub[:] = 0
    hid[:VERSION] = 0  # the piles are dealt below
    hid[END_REASON] = -1  # the last round was played (-2: max_rounds cut the game)
    for s in range(n_players):
        for i in range(CT_SIZE):
            cnt[s, i] = 0
    fresh_caches(t, hid)

    # Setup 1-2: Day and Night decks shuffled separately; 4 face up from each.
    for c in range(n_ing):
        d = cd[c, CARD_DECK]
        deck_of(hid, n_cards, d)[hid[PILE_END + d]] = c
        hid[PILE_END + d] += 1
    for d in range(2):
        shuffle_range(deck_of(hid, n_cards, d), hid[PILE_END + d], rng)
        pub[DECK_LEFT + d] = hid[PILE_END + d]
    pub[N_PLAYERS] = n_players
    for slot in range(N_SLOTS):
        k = reveal(cd, pub, hid, slot, rng)
        record_reveal(trace, tracing, pub, slot, k)
    # Setup 4-5: the rune reserve; the Bonus Ingredient tokens.
    pub[RESERVE + SUN] = t.reserve[n_players, 0]
    pub[RESERVE + MOON] = t.reserve[n_players, 1]
    for x in range(MAX_TYPES):
        pub[TOKENS + x] = t.tokens[x] if x < t.rules[R_N_TYPES] else -1
    # Setup 6: one starting card each, face up. Seat 0 holds the Ancestor (7).
    n_start = n_cards - n_ing
    starts = hid[STARTS:STARTS + n_start]
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
        hid[COUNTER + s] = min(pub[base + P_PLAYED], t.rules[R_TOP])
        if tracing:
            record_event(trace, tracing, 0, EV_SETUP, s, c, 0, 0)
    begin_turn(pub, cnt, 0)


@njit(cache=True, inline="always")
def begin_turn(pub, cnt, s):
    """Seat s's turn: two actions, in any order; the Sickle is free at any point."""
    pub[SEAT] = s
    cnt[s, CT_TURNS] += 1
    pub[STEP] = STEP_ACTION
    pub[ACTIONS_LEFT] = 2


# ---------------------------------------------------------------- the actions
@njit(cache=True, inline="always")
def take_card(cd, pub, hid, s, slot, rng, trace, tracing):
    """Take a Card: the card in display `slot` into seat s's hand; the slot is refilled."""
    base = player_at(s, 0)
    c = pub[DISPLAY + slot]
    h = pub[base + P_HAND_N]
    pub[base + P_HAND + h] = c
    pub[base + P_HAND_N] = h + 1
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_TAKE, s, slot, c, 0)
    k = reveal(cd, pub, hid, slot, rng)
    record_reveal(trace, tracing, pub, slot, k)


@njit(cache=True, inline="always")
def from_hand(pub, base, h):
    """Remove hand position h of the seat whose block starts at `base`; returns the card."""
    c = pub[base + P_HAND + h]
    for i in range(h, pub[base + P_HAND_N] - 1):
        pub[base + P_HAND + i] = pub[base + P_HAND + i + 1]
    pub[base + P_HAND_N] -= 1
    pub[base + P_HAND + pub[base + P_HAND_N]] = 0
    return c


@njit(cache=True, inline="always")
def play_card(t, pub, hid, cnt, s, h, col, gain, trace, tracing):
    """Play a Card: hand card h into column col (score gain `gain`), paying its cost (the
    runes of each cost icon flip or return to the reserve); may trigger the end."""
    cd = t.card
    base = player_at(s, 0)
    c = from_hand(pub, base, h)
    sf, mf = cd[c, CARD_COST + SUN_FLIP], cd[c, CARD_COST + MOON_FLIP]
    sr, mr = cd[c, CARD_COST + SUN_RETURN], cd[c, CARD_COST + MOON_RETURN]
    pub[base + P_SUN] += mf - sf - sr
    pub[base + P_MOON] += sf - mf - mr
    pub[RESERVE + SUN] += sr
    pub[RESERVE + MOON] += mr
    cnt[s, CT_PAID_FLIP] += sf + mf
    cnt[s, CT_RETURNED] += sr + mr
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_PAY, s, sf + mf, sr + mr, 0)
    add_to_tableau(cd, pub, s, c, col, gain)
    hid[VERSION + s] += 1
    pub[base + P_PLAYED] += 1
    cnt[s, CT_PLAYED] += 1
    cnt[s, CT_COLUMN + col] += 1
    if cd[c, CARD_KIND] == DOUBLE:
        cnt[s, CT_DOUBLES] += 1
    elif cd[c, CARD_KIND] == SALT:
        cnt[s, CT_SALTS] += 1
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_PLAY, s, c, col, pub[base + P_PLAYED])
    if pub[TRIGGERED] == 0 and pub[base + P_PLAYED] >= t.rules[R_END_CARDS]:
        pub[TRIGGERED] = 1
        cnt[s, CT_TRIGGERED] = 1
        if tracing:
            record_event(trace, tracing, pub[ROUND], EV_TRIGGER, s, pub[base + P_PLAYED], 0,
                         0)


@njit(cache=True, inline="always")
def take_runes(pub, cnt, s, side, k, trace, tracing):
    """Take Runes: k runes of `side` from the reserve onto seat s's empty spaces."""
    pub[RESERVE + side] -= k
    pub[player_at(s, P_SUN) + side] += k
    cnt[s, CT_RUNES_TAKEN] += k
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_RUNES, s, side, k, 0)


@njit(cache=True, inline="always")
def flip_runes(pub, cnt, s, side, k, trace, tracing):
    """Flip Runes: k of seat s's runes turn to show `side`."""
    base = player_at(s, 0)
    pub[base + P_SUN + side] += k
    pub[base + P_SUN + 1 - side] -= k
    cnt[s, CT_FLIPPED] += k
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_FLIP, s, side, k, 0)


@njit(cache=True, inline="always")
def pass_action(pub, s, trace, tracing):
    """No action is possible: the player passes."""
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_PASS, s, 0, 0, 0)


@njit_without_refcounts
def use_sickle(cd, pub, hid, cnt, s, d, rng, trace, tracing):
    """The Sickle: discard the 4 cards of row d (0 Day, 1 Night) and reveal 4 new ones."""
    pub[player_at(s, P_SICKLES)] -= 1
    cnt[s, CT_SICKLES] += 1
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_SICKLE, s, d, 0, 0)
    for i in range(SLOTS_PER_ROW):
        slot = d * SLOTS_PER_ROW + i
        c = pub[DISPLAY + slot]
        if c >= 0:
            to_discard(cd, pub, hid, c)
            pub[DISPLAY + slot] = -1
    for i in range(SLOTS_PER_ROW):
        k = reveal(cd, pub, hid, d * SLOTS_PER_ROW + i, rng)
        record_reveal(trace, tracing, pub, d * SLOTS_PER_ROW + i, k)


# ---------------------------------------------------------------- end of turn
@njit(cache=True, inline="always")
def discard_card(cd, pub, hid, cnt, s, h, trace, tracing):
    """Over the hand limit: seat s discards hand card h."""
    c = from_hand(pub, player_at(s, 0), h)
    to_discard(cd, pub, hid, c)
    cnt[s, CT_DISCARDED] += 1
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_DISCARD, s, c, 0, 0)


@njit(cache=True, inline="always")
def begin_counter(pub, hid, s):
    """The counter follows the cards played: its spaces are reached one level at a time."""
    pub[STEP] = STEP_TOKEN
    hid[LEVEL] = hid[COUNTER + s]
    hid[TOKENS_DUE] = 0


@njit(cache=True, inline="always")
def reach_level(t, pub, hid, s, trace, tracing):
    """The counter of seat s reaches the next track level: its padlocks open, and its bonus
    tokens become due (taken one decision at a time)."""
    lv = hid[LEVEL] + 1
    hid[LEVEL] = lv
    base = player_at(s, 0)
    for _ in range(t.track[lv, 0]):
        if pub[base + P_OPEN] < t.rules[R_SPACES]:
            pub[base + P_OPEN] += 1
            if tracing:
                record_event(trace, tracing, pub[ROUND], EV_PADLOCK, s, pub[base + P_OPEN], lv,
                             0)
    hid[TOKENS_DUE] = t.track[lv, 1]


@njit(cache=True, inline="always")
def take_token(pub, hid, cnt, s, x, gain, trace, tracing):
    """A bonus space: seat s takes the Bonus Ingredient token of type x (score gain `gain`)."""
    base = player_at(s, 0)
    pub[TOKENS + x] -= 1
    pub[base + P_TOKENS + x] += 1
    pub[base + P_COUNT + x] += 1
    pub[base + P_SCORE] += gain  # the exact gain
    hid[VERSION + s] += 1
    cnt[s, CT_TOKEN + x] += 1
    cnt[s, CT_TOKENS] += 1
    hid[TOKENS_DUE] -= 1
    if tracing:
        record_event(trace, tracing, pub[ROUND], EV_TOKEN, s, x, hid[LEVEL], 0)


@njit(cache=True, inline="always")
def end_turn(t, pub, hid, s):
    """Seat s's turn is over."""
    level = min(pub[player_at(s, P_PLAYED)], t.rules[R_TOP])
    hid[COUNTER + s] = max(hid[COUNTER + s], level)
    pub[STEP] = STEP_ACTION
    pub[ACTIONS_LEFT] = 0


# ---------------------------------------------------------------- end of round
@njit(cache=True, inline="always")
def end_of_round(t, pub, hid, trace, tracing):
    """The last turn of a round is the player right of the Ancestor (seat n-1). Once a
    card has triggered the end, one more round is played (options.final_turns) and the
    game ends. Returns whether it has; if not, the next round begins."""
    rnd = pub[ROUND]
    over = False
    if pub[FINAL] == 1 or pub[TRIGGERED] == 1 and not t.rules[R_FINAL_TURNS]:
        over = True
    else:
        if pub[TRIGGERED] == 1:
            pub[FINAL] = 1
        if rnd + 1 >= t.rules[R_MAX_ROUNDS]:
            hid[END_REASON] = -2
            over = True
    if over:
        if tracing:
            record_event(trace, tracing, rnd, EV_END, hid[END_REASON], rnd, 0, 0)
        return True
    pub[ROUND] = rnd + 1
    return False


# ---------------------------------------------------------------- scoring
@njit(cache=True, inline="always")
def final_scoring(t, n_players, pub, hid, cnt, trace, tracing):
    """Every card's line, bonus tokens counting as ingredients; the tiebreaker's most
    points in one ingredient. Totals (with the seat compensation: scoring.final_score)
    into the counters."""
    cd = t.card
    n_ing = t.rules[R_N_ING_CARDS]
    cols = cols_of(hid)
    for s in range(n_players):
        base = player_at(s, 0)
        total, best = final_score(t, pub, s, cols)
        for i in range(pub[base + P_N_CARDS]):
            c = pub[base + P_CARDS + i]
            pts = cols[MAX_TYPES + i]
            cnt[s, CT_KIND + cd[c, CARD_SCORE]] += pts
            if c >= n_ing:
                cnt[s, CT_START_POINTS] = pts
            if tracing:
                record_event(trace, tracing, pub[ROUND], EV_SCORE, s, c,
                             pub[base + P_COLUMN + i], pts)
        cnt[s, CT_SCORE] = total
        cnt[s, CT_BEST] = best

