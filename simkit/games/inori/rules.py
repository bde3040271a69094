"""Inori's rules, in rulebook order: setup, a turn (the rune step, the offering and its
effect), the season end (cards scored, markers back, cards replaced, the first player, the
New Start card), the game end (majorities). scoring.py's pure queries count the points.
Steps: docs/rules/inori.md.

Each function applies one step to the game state (`pub`, the hidden state `hid`, the decks
and the Rune stack) and the per-seat counters `cnt` (layouts: layout.py). None asks a
player or writes a result array: play.py sequences these steps between decisions, for
batch play, traced play and the rollout player's playouts alike. An effect that asks for
decisions (token colours, blocks, an Altar tile, a move) records them as pending in `hid`
(PH_TOKENS, PH_BLOCK, PH_TILE, PH_MOVE) for play.py to ask. `trace`/`tracing` record
events for `simkit play`; `season` is the season the events belong to.
"""

from __future__ import annotations

from numba import njit

from simkit.kernels.jit import njit_without_refcounts
from simkit.kernels.lookahead import canonical
from simkit.kernels.shuffle import shuffle
from simkit.kernels.trace import record_event
from simkit.rng import randint

from .layout import (ANYONE, CARD_COLOUR, CARD_KIND, CARD_NEXT, CARD_N_SPACES, CT_CARD_OFFERS,
                     CT_COMPLETED, CT_DONE, CT_DRAWN, CT_FIRST, CT_GAINED, CT_NEUTRAL, CT_NEW_START,
                     CT_PAID, CT_PASSED, CT_RUNE, CT_SRC, CT_TILES, CT_TREE, CT_TURNS, DECK_LEFT,
                     EF_FEWEST, EF_GAIN, EF_RUNE, EV_BLOCK, EV_CARD, EV_COMPLETE, EV_DRAW_RUNE,
                     EV_END, EV_FIRST, EV_GAIN, EV_INCOMPLETE, EV_MAJORITY, EV_MARKERS, EV_MOVE,
                     EV_NEW_START, EV_PASS, EV_PAY, EV_POINTS, EV_REPLACE, EV_RESHUFFLE, EV_ROOT,
                     EV_RUNE, EV_SCORE, EV_SETUP_CARD, EV_TREE, FIRST, JOURNEY, MAX_SLOTS,
                     MAX_SPACES, MAX_TREE, NEUTRAL, NEUTRAL_LEFT, NEW_END, NEW_START, NEW_TOP,
                     N_PLAYERS, N_SLOTS, OCCUPIED_OK, PHASE, PH_BLOCK, PH_MOVE, PH_NEXT_SEASON,
                     PH_OVER, PH_TILE, PH_TOKENS, PH_TURN, PILE_DISCARDS, PILE_END, PILE_TOP,
                     P_MARKERS, P_N_RUNES, P_RUNES, P_SCORE, P_TOKENS, RUNES_LEFT, RUNE_DONE,
                     RUNE_END, RUNE_GAIN, RUNE_OCCUPIED, RUNE_TOP, RU_AMOUNT, RU_COLOUR, RU_KIND,
                     R_ALTAR_COST, R_ALTAR_REPEAT, R_BAN_COLOUR, R_BAN_SEAT, R_COST_RETURN,
                     R_LOW_TIE, R_MAJ_FIRST, R_MAJ_SECOND, R_NEUTRAL, R_NEW_START_DRAW,
                     R_NEW_START_JOIN, R_N_COLOURS, R_N_RUNES, R_N_TREE, R_RESHUFFLE, R_ROOT_RANDOM,
                     R_SEASONS, R_START_IN_PLAY, SEASON, SEAT, SP_AMOUNT, SP_COLOUR, SP_EFFECT,
                     SRC_CARD, SRC_COMPLETE, SRC_MAJORITY, SRC_NEW_START, SRC_TREE, STEP,
                     STEP_NEW_START, STOP_SEASON, SUPPLY, S_CARD, S_OCC, S_OCC2, TE_ANY, TE_BLOCK,
                     TE_POINTS, TE_RUNE_TOKEN, TE_TILE_POINTS, TE_TILE_TOKENS, TIE_RANDOM,
                     TIE_TURN_ORDER, TILE_USED, TODO_AMOUNT, TODO_COLOUR, TODO_FEWEST, TODO_LEFT,
                     TR_AMOUNT, TR_AMOUNT2, TR_EFFECT, TR_ROOT, TURN_POS, T_OCC, T_OCC2, T_TILE,
                     T_TOKENS, HID_STATE, hv_of, piles, player_at, rune_piles, slot_at,
                     space_col, tied_of, tree_at)
from .scoring import card_row, free_spaces, held, holdings, lowest_seat, seats_on_card


# ---------------------------------------------------------------- tokens, points, piles
@njit_without_refcounts
def gain(t, pub, p, x, k, cnt, trace, tracing, season):
    """Seat p gains up to k tokens of colour x from the supply; returns how many (none of
    a colour withheld from it by restricted play, `simkit value`)."""
    got = min(k, pub[SUPPLY + x])
    if p == t.rules[R_BAN_SEAT] and x == t.rules[R_BAN_COLOUR]:
        got = 0
    if got > 0:
        pub[SUPPLY + x] -= got
        pub[player_at(p, P_TOKENS + x)] += got
        cnt[p, CT_GAINED] += got
        record_event(trace, tracing, season, EV_GAIN, p, x, got, 0)
    return got


@njit_without_refcounts
def score(pub, p, points, source, cnt, trace, tracing, season):
    """Seat p scores `points` now (source: layout.SOURCES)."""
    if points > 0:
        pub[player_at(p, P_SCORE)] += points
        cnt[p, CT_SRC + source] += points
        record_event(trace, tracing, season, EV_POINTS, p, points, source, 0)


@njit_without_refcounts
def pay(t, pub, p, x, k, cnt, trace, tracing, season):
    """Seat p pays k tokens of colour x (returned to the supply, or only shown)."""
    if t.rules[R_COST_RETURN]:
        pub[player_at(p, P_TOKENS + x)] -= k
        pub[SUPPLY + x] += k
    cnt[p, CT_PAID] += k
    record_event(trace, tracing, season, EV_PAY, p, x, k, 0)


@njit_without_refcounts
def draw_runes(pub, p, k, runes, cnt, trace, tracing, season):
    """Seat p draws up to k Rune tiles from the top of the stack (`runes`: layout.rune_piles)."""
    rtops, stack = runes
    for _ in range(k):
        if rtops[RUNE_TOP] >= rtops[RUNE_END]:
            return
        tile = stack[rtops[RUNE_TOP]]
        rtops[RUNE_TOP] += 1
        pub[RUNES_LEFT] -= 1
        h = pub[player_at(p, P_N_RUNES)]
        pub[player_at(p, P_RUNES + h)] = tile
        pub[player_at(p, P_N_RUNES)] = h + 1
        cnt[p, CT_DRAWN] += 1
        record_event(trace, tracing, season, EV_DRAW_RUNE, p, tile, 0, 0)


@njit_without_refcounts
def draw_journey(t, pub, decks, discards, tops, x, rng, trace, tracing, season):
    """Top card of colour x's Journey deck (-1 if none), rebuilding it from discards."""
    if tops[PILE_TOP, x] >= tops[PILE_END, x]:
        k = tops[PILE_DISCARDS, x]
        if k == 0 or not t.rules[R_RESHUFFLE]:
            return -1
        for i in range(k):
            decks[x, i] = discards[x, i]
        shuffle(decks[x], k, rng)
        tops[PILE_TOP, x], tops[PILE_END, x], tops[PILE_DISCARDS, x] = 0, k, 0
        record_event(trace, tracing, season, EV_RESHUFFLE, -1, x, k, 0)
    c = decks[x, tops[PILE_TOP, x]]
    tops[PILE_TOP, x] += 1
    pub[DECK_LEFT + x] = tops[PILE_END, x] - tops[PILE_TOP, x]
    return c


# ---------------------------------------------------------------- setup
@njit_without_refcounts
def setup(t, n_players, pub, hid, cnt, rng, trace, tracing):
    """Setup (docs/inori.md, steps 1-6) from the deal stream `rng`; play starts with the
    first turn of season 0."""
    tops, rtops, stack, new_starts, starts, decks, discards = piles(t, hid)
    n_col = t.rules[R_N_COLOURS]
    n_cards = t.card.shape[0]
    seasons = t.rules[R_SEASONS]
    n_tree = t.rules[R_N_TREE]
    pub[:] = 0
    hid[:HID_STATE] = 0  # the piles after it are dealt below
    cnt[:, :] = 0
    pub[N_PLAYERS] = n_players
    for i in range(MAX_SLOTS):
        pub[slot_at(i, S_CARD)] = -1
        for s in range(MAX_SPACES):
            pub[slot_at(i, S_OCC + s)] = -1
            pub[slot_at(i, S_OCC2 + s)] = 0
    for ts in range(MAX_TREE):
        pub[tree_at(ts, T_OCC)] = -1
        pub[tree_at(ts, T_OCC2)] = 0
        pub[tree_at(ts, T_TILE)] = -1
        pub[tree_at(ts, T_TOKENS)] = -1
        pub[tree_at(ts, T_TOKENS + 1)] = -1
    for x in range(n_col):
        pub[SUPPLY + x] = t.colour[x, 0]

    # Setup 1: each colour's Journey deck (in card order: one pass), shuffled.
    for x in range(n_col):
        tops[PILE_END, x] = 0
    for c in range(n_cards):
        if t.card[c, CARD_KIND] == JOURNEY:
            x = t.card[c, CARD_COLOUR]
            decks[x, tops[PILE_END, x]] = c
            tops[PILE_END, x] += 1
    for x in range(n_col):
        shuffle(decks[x], tops[PILE_END, x], rng)
        tops[PILE_TOP, x], tops[PILE_DISCARDS, x] = 0, 0
        pub[DECK_LEFT + x] = tops[PILE_END, x]
    # Setup 2: the New Start deck.
    k = 0
    for c in range(n_cards):
        if t.card[c, CARD_KIND] == NEW_START:
            new_starts[k] = c
            k += 1
    shuffle(new_starts, k, rng)
    rtops[NEW_TOP], rtops[NEW_END] = 0, k
    # Setup 3: the Rune stack.
    n_runes = t.rules[R_N_RUNES]
    for r in range(n_runes):
        stack[r] = r
    shuffle(stack, n_runes, rng)
    rtops[RUNE_TOP], rtops[RUNE_END] = 0, n_runes
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
    cnt[0, CT_FIRST] += 1
    hid[PHASE] = PH_TURN
    hid[STOP_SEASON] = seasons  # never reached: the game ends in the last season


# ---------------------------------------------------------------- a turn
@njit(cache=True, inline="always")
def next_seat(n_players, pub, hid):
    """The seat whose turn is next in this season's turn passes (the first player, then
    clockwise, again and again, skipping players without markers), or -1 once a whole
    pass found no one."""
    while True:
        j = hid[TURN_POS]
        if j >= n_players:
            if not hid[ANYONE]:
                return -1
            j = 0
            hid[ANYONE] = 0
        hid[TURN_POS] = j + 1
        p = pub[FIRST] + j
        p -= n_players * (p >= n_players)  # not %: a division every turn
        if pub[player_at(p, P_MARKERS)] > 0:
            hid[ANYONE] = 1
            return p


@njit_without_refcounts
def begin_turn(pub, hid, cnt, p):
    """Seat p's turn begins."""
    pub[SEAT] = p
    pub[OCCUPIED_OK] = 0
    hid[RUNE_DONE] = 0
    cnt[p, CT_TURNS] += 1


@njit(cache=True, inline="always")
def play_rune(t, pub, hid, cnt, p, h, trace, tracing, season):
    """Seat p plays the Rune tile at hand position h: a gain now, an occupied space
    allowed this turn, or a move (PH_MOVE: the marker to move is asked next)."""
    base = player_at(p, P_RUNES)
    tile = pub[base + h]
    n_held = pub[player_at(p, P_N_RUNES)]
    for e in range(h, n_held - 1):
        pub[base + e] = pub[base + e + 1]
    pub[base + n_held - 1] = 0
    pub[player_at(p, P_N_RUNES)] = n_held - 1
    kind = t.rune[tile, RU_KIND]
    colour = t.rune[tile, RU_COLOUR]
    hid[RUNE_DONE] = max(hid[RUNE_DONE], 1)
    cnt[p, CT_RUNE + kind] += 1
    record_event(trace, tracing, season, EV_RUNE, p, tile, kind, 0)
    if kind == RUNE_GAIN:
        gain(t, pub, p, colour, t.rune[tile, RU_AMOUNT], cnt, trace, tracing, season)
    elif kind == RUNE_OCCUPIED:
        pub[OCCUPIED_OK] = 1
    else:
        hid[PHASE] = PH_MOVE
        hid[TODO_AMOUNT] = kind
        hid[TODO_COLOUR] = colour


@njit_without_refcounts
def move_marker(pub, p, who, src, dst, trace, tracing, season):
    """Seat p moves `who`'s piece (a seat or NEUTRAL) on space `src` to free space `dst`
    (slot * MAX_SPACES + space); when the first piece leaves, the further marker of the
    lowest seat becomes the first."""
    si, ss = src // MAX_SPACES, src % MAX_SPACES
    first, extra = slot_at(si, S_OCC + ss), slot_at(si, S_OCC2 + ss)
    up = who  # the marker that leaves the further markers' mask (-1: none)
    if pub[first] == who:
        up = lowest_seat(pub[extra])
        pub[first] = up
    if up >= 0:
        pub[extra] &= ~(1 << up)
    pub[slot_at(dst // MAX_SPACES, S_OCC + dst % MAX_SPACES)] = who
    record_event(trace, tracing, season, EV_MOVE, p, src, dst, who)


@njit(cache=True, inline="always")
def offer_card(t, pub, hid, cnt, p, i, s, paid, trace, tracing, season):
    """Seat p offers to space s of the card in slot i (paying a token of `paid`), then its
    effect (a "fewest colour" gain: PH_TOKENS, the colour is asked next)."""
    c = pub[slot_at(i, S_CARD)]
    record_event(trace, tracing, season, EV_CARD, p, i, s, c)
    if paid >= 0:
        pay(t, pub, p, paid, 1, cnt, trace, tracing, season)
    if pub[slot_at(i, S_OCC + s)] < 0:
        pub[slot_at(i, S_OCC + s)] = p
    else:  # an "occupied" Rune's marker joins the space
        pub[slot_at(i, S_OCC2 + s)] |= 1 << p
    cnt[p, CT_CARD_OFFERS] += 1
    e = t.card[c, space_col(s, SP_EFFECT)]
    k = t.card[c, space_col(s, SP_AMOUNT)]
    if e == EF_GAIN:
        gain(t, pub, p, t.card[c, space_col(s, SP_COLOUR)], k, cnt, trace, tracing, season)
    elif e == EF_FEWEST:
        ask_tokens(hid, 1, k, True)
    elif e == EF_RUNE:
        draw_runes(pub, p, k, rune_piles(t, hid), cnt, trace, tracing, season)
    else:
        hv = hv_of(hid)
        distinct, most, ties = holdings(pub, p, t.rules[R_N_COLOURS], hv)
        points = card_row(t.card, pub, hv, False, c, s, -1, 0, distinct, most, ties)[0]
        score(pub, p, points, SRC_CARD, cnt, trace, tracing, season)


@njit_without_refcounts
def ask_tokens(hid, decisions, amount, fewest):
    """Pending: `decisions` token colours to choose, `amount` tokens each."""
    hid[PHASE] = PH_TOKENS
    hid[TODO_LEFT] = decisions
    hid[TODO_AMOUNT] = amount
    hid[TODO_FEWEST] = fewest


@njit(cache=True, inline="always")
def offer_tree(t, pub, hid, cnt, p, ts, colour, paid, placed, trace, tracing, season):
    """Seat p offers to tree space ts, its Altar tile of `colour` (`placed`: the tile was
    chosen now, STEP_TILE), paying the Altar cost in `paid` (-1: nothing); then the
    effect (once per space unless options.altar_repeat; "take any" and "block" ask for
    decisions next: PH_TOKENS, PH_BLOCK)."""
    root = t.tree[ts, TR_ROOT] == 1
    record_event(trace, tracing, season, EV_TREE, p, ts, colour, 1 if placed else 0)
    if paid >= 0:
        pay(t, pub, p, paid, t.rules[R_ALTAR_COST], cnt, trace, tracing, season)
    if pub[tree_at(ts, T_OCC)] < 0:
        pub[tree_at(ts, T_OCC)] = p
    else:  # an "occupied" Rune's marker joins the space
        pub[tree_at(ts, T_OCC2)] |= 1 << p
    cnt[p, CT_TREE + ts] += 1
    if placed:
        pub[tree_at(ts, T_TILE)] = colour
        pub[TILE_USED + colour] = 1
        cnt[p, CT_TILES] += 1
    elif not root and not t.rules[R_ALTAR_REPEAT]:
        return
    e = t.tree[ts, TR_EFFECT]
    k = t.tree[ts, TR_AMOUNT]
    k2 = t.tree[ts, TR_AMOUNT2]
    if e == TE_ANY:
        ask_tokens(hid, k, 1, False)
    elif e == TE_POINTS:
        score(pub, p, k, SRC_TREE, cnt, trace, tracing, season)
    elif e == TE_RUNE_TOKEN:
        draw_runes(pub, p, k, rune_piles(t, hid), cnt, trace, tracing, season)
        gain(t, pub, p, colour, k2, cnt, trace, tracing, season)
    elif e == TE_TILE_POINTS:
        score(pub, p, k * held(pub, p, colour), SRC_TREE, cnt, trace, tracing, season)
    elif e == TE_BLOCK:  # the blocks, then the tile's tokens (finish_blocks)
        hid[PHASE] = PH_BLOCK
        hid[TODO_LEFT] = k
        hid[TODO_COLOUR] = colour
        hid[TODO_AMOUNT] = k2
    elif e == TE_TILE_TOKENS:
        gain(t, pub, p, colour, k, cnt, trace, tracing, season)
    else:  # TE_ROOT: the reserved tokens (already out of the supply)
        banned = t.rules[R_BAN_COLOUR] if p == t.rules[R_BAN_SEAT] else -1
        for i in range(2):
            x = pub[tree_at(ts, T_TOKENS + i)]
            if x >= 0 and x != banned:  # a withheld colour stays on the root
                pub[player_at(p, P_TOKENS + x)] += 1
                pub[tree_at(ts, T_TOKENS + i)] = -1
                cnt[p, CT_GAINED] += 1
                record_event(trace, tracing, season, EV_GAIN, p, x, 1, 0)


@njit_without_refcounts
def ask_tile(hid, ts, paid):
    """Pending (PH_TILE): the Altar tile for tree space ts, then offer_tree (paying in
    `paid`, -1: nothing)."""
    hid[PHASE] = PH_TILE
    hid[TODO_COLOUR] = ts
    hid[TODO_AMOUNT] = paid


@njit_without_refcounts
def pass_turn(cnt, p, trace, tracing, season):
    """Seat p has no legal offering: the marker is set aside for the season."""
    cnt[p, CT_PASSED] += 1
    record_event(trace, tracing, season, EV_PASS, p, 0, 0, 0)


@njit_without_refcounts
def block_space(pub, cnt, p, i, s, trace, tracing, season):
    """Seat p puts a neutral marker on space s of the card in slot i."""
    pub[slot_at(i, S_OCC + s)] = NEUTRAL
    pub[NEUTRAL_LEFT] -= 1
    cnt[p, CT_NEUTRAL] += 1
    record_event(trace, tracing, season, EV_BLOCK, p, i, s, 0)


@njit_without_refcounts
def end_turn(pub, p):
    """The offering marker is spent (the next turn comes: play.next_decision)."""
    pub[player_at(p, P_MARKERS)] -= 1
    pub[OCCUPIED_OK] = 0


# ---------------------------------------------------------------- season end
@njit(cache=True, inline="always")
def score_card(t, pub, n_players, i, c, cnt, trace, tracing, season):
    """Season end, card c in slot i: complete, each seat present scores the tokens it holds
    of the card's colour; incomplete, a New Start card scores them its bottom-right colour
    and other cards nothing. Returns the colour whose deck replaces the card."""
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
                cnt[p, CT_SRC + source] += pts
                if complete:
                    cnt[p, CT_COMPLETED] += 1
                    cnt[p, CT_DONE + c] += 1
                record_event(trace, tracing, season, EV_SCORE, p, i, pts, source)
    return colour


@njit_without_refcounts
def end_game(t, pub, n_players, cnt, trace, tracing):
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
                cnt[p, CT_SRC + SRC_MAJORITY] += first_pts
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
                cnt[p, CT_SRC + SRC_MAJORITY] += second_pts
                record_event(trace, tracing, seasons - 1, EV_MAJORITY, p, x, second_pts, 2)


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


@njit_without_refcounts
def score_cards(t, pub, n_players, season, last, decks, discards, tops, rng, cnt, trace,
                tracing):
    """Score every card (score_card), return markers, replace each card (not after
    the last season) from the deck of the colour score_card names."""
    for i in range(pub[N_SLOTS]):
        c = pub[slot_at(i, S_CARD)]
        if c < 0:
            continue
        n_sp = t.card[c, CARD_N_SPACES]
        colour = score_card(t, pub, n_players, i, c, cnt, trace, tracing, season)
        for s in range(n_sp):
            pub[slot_at(i, S_OCC + s)] = -1
            pub[slot_at(i, S_OCC2 + s)] = 0
        if last:
            continue
        if t.card[c, CARD_KIND] == JOURNEY:
            own = t.card[c, CARD_COLOUR]
            discards[own, tops[PILE_DISCARDS, own]] = c
            tops[PILE_DISCARDS, own] += 1
        new = draw_journey(t, pub, decks, discards, tops, colour, rng, trace, tracing, season)
        pub[slot_at(i, S_CARD)] = new
        record_event(trace, tracing, season, EV_REPLACE, -1, i, c, new)
    for ts in range(t.rules[R_N_TREE]):
        pub[tree_at(ts, T_OCC)] = -1
        pub[tree_at(ts, T_OCC2)] = 0
    pub[NEUTRAL_LEFT] = t.rules[R_NEUTRAL]


@njit_without_refcounts
def season_end(t, n_players, pub, hid, cnt, rng, trace, tracing):
    """The season end (score_cards), then the game end (-1 returned: PH_OVER) or the next
    season's markers and first player, who draws the New Start cards (options.new_start_use)
    to keep one of: their count is returned (0: none), the cards new_starts[rtops[NEW_TOP] - k:]."""
    tops, rtops, _stack, _new_starts, _starts, decks, discards = piles(t, hid)
    season = pub[SEASON]
    last = season == t.rules[R_SEASONS] - 1
    score_cards(t, pub, n_players, season, last, decks, discards, tops, rng, cnt, trace,
                tracing)
    if last:
        end_game(t, pub, n_players, cnt, trace, tracing)
        hid[PHASE] = PH_OVER
        return -1
    for p in range(n_players):
        pub[player_at(p, P_MARKERS)] = t.setup[n_players, season + 1]
        record_event(trace, tracing, season, EV_MARKERS, p, t.setup[n_players, season + 1], 0, 0)
    low = fewest_points(t, pub, n_players, rng, tied_of(hid))
    pub[FIRST] = low
    cnt[low, CT_FIRST] += 1
    record_event(trace, tracing, season, EV_FIRST, low, 0, 0, 0)
    hid[PHASE] = PH_NEXT_SEASON
    k = (min(t.rules[R_NEW_START_DRAW], rtops[NEW_END] - rtops[NEW_TOP])
         if t.rules[R_NEW_START_JOIN] else 0)
    if k > 0:
        rtops[NEW_TOP] += k
        hid[TODO_LEFT] = k
        pub[SEAT] = low
        pub[STEP] = STEP_NEW_START
    return max(k, 0)


@njit_without_refcounts
def keep_new_start(pub, cnt, p, kept, other, trace, tracing, season):
    """Seat p keeps New Start card `kept` (the other drawn one, `other`, leaves the game):
    it joins the cards in play in the next slot."""
    i = pub[N_SLOTS]
    pub[slot_at(i, S_CARD)] = kept
    pub[N_SLOTS] = i + 1
    cnt[p, CT_NEW_START] += 1
    record_event(trace, tracing, season, EV_NEW_START, p, kept, other, 0)


@njit_without_refcounts
def begin_season(pub, hid):
    """The next season begins with its first player's turn."""
    pub[SEASON] += 1
    hid[TURN_POS] = 0
    hid[ANYONE] = 0
    hid[PHASE] = PH_TURN


# ---------------------------------------------------------------- what a seat cannot see
@njit(cache=True, inline="always")
def redeal(t, n_players, pub, hid, cnt, seat, rng):
    """Re-deal what `seat` cannot see, each hidden pile's order (layout.piles; it saw every
    card that left one): sorted from 0, then shuffled (decks by colour, New Starts, Runes)."""
    tops, rtops, stack, new_starts, _starts, decks, discards = piles(t, hid)
    for x in range(t.rules[R_N_COLOURS]):
        tops[PILE_END, x] = canonical(decks[x], tops[PILE_TOP, x], tops[PILE_END, x], decks[x])
        tops[PILE_TOP, x] = 0
        canonical(discards[x], 0, tops[PILE_DISCARDS, x], discards[x])
    rtops[NEW_END] = canonical(new_starts, rtops[NEW_TOP], rtops[NEW_END], new_starts)
    rtops[RUNE_END] = canonical(stack, rtops[RUNE_TOP], rtops[RUNE_END], stack)
    rtops[NEW_TOP], rtops[RUNE_TOP] = 0, 0
    for x in range(t.rules[R_N_COLOURS]):
        shuffle(decks[x], tops[PILE_END, x], rng)
    shuffle(new_starts, rtops[NEW_END], rng)
    shuffle(stack, rtops[RUNE_END], rng)
