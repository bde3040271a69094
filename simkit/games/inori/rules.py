"""Inori's rules, in rulebook order: setup, a turn (the rune step, the offering and its
effect), the season end (cards scored, markers back, cards replaced, the first player, the
New Start card); scoring.py scores cards and majorities. Steps: docs/rules/inori.md.

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
from simkit.kernels.shuffle import shuffle
from simkit.kernels.trace import record_event
from simkit.rng import randint

from . import layout as L
from .scoring import card_row, end_game, fewest_points, held, holdings, lowest_seat, score_card


# ---------------------------------------------------------------- tokens, points, piles
@njit_without_refcounts
def gain(t, pub, p, x, k, cnt, trace, tracing, season):
    """Seat p gains up to k tokens of colour x from the supply; returns how many (none of
    a colour withheld from it by restricted play, `simkit value`)."""
    got = min(k, pub[L.SUPPLY + x])
    if p == t.rules[L.R_BAN_SEAT] and x == t.rules[L.R_BAN_COLOUR]:
        got = 0
    if got > 0:
        pub[L.SUPPLY + x] -= got
        pub[L.player_at(p, L.P_TOKENS + x)] += got
        cnt[p, L.CT_GAINED] += got
        record_event(trace, tracing, season, L.EV_GAIN, p, x, got, 0)
    return got


@njit_without_refcounts
def score(pub, p, points, source, cnt, trace, tracing, season):
    """Seat p scores `points` now (source: layout.SOURCES)."""
    if points > 0:
        pub[L.player_at(p, L.P_SCORE)] += points
        cnt[p, L.CT_SRC + source] += points
        record_event(trace, tracing, season, L.EV_POINTS, p, points, source, 0)


@njit_without_refcounts
def pay(t, pub, p, x, k, cnt, trace, tracing, season):
    """Seat p pays k tokens of colour x (returned to the supply, or only shown)."""
    if t.rules[L.R_COST_RETURN]:
        pub[L.player_at(p, L.P_TOKENS + x)] -= k
        pub[L.SUPPLY + x] += k
    cnt[p, L.CT_PAID] += k
    record_event(trace, tracing, season, L.EV_PAY, p, x, k, 0)


@njit_without_refcounts
def draw_runes(pub, p, k, stack, rtops, cnt, trace, tracing, season):
    """Seat p draws up to k Rune tiles from the top of the stack."""
    for _ in range(k):
        if rtops[L.RUNE_TOP] >= rtops[L.RUNE_END]:
            return
        tile = stack[rtops[L.RUNE_TOP]]
        rtops[L.RUNE_TOP] += 1
        pub[L.RUNES_LEFT] -= 1
        h = pub[L.player_at(p, L.P_N_RUNES)]
        pub[L.player_at(p, L.P_RUNES + h)] = tile
        pub[L.player_at(p, L.P_N_RUNES)] = h + 1
        cnt[p, L.CT_DRAWN] += 1
        record_event(trace, tracing, season, L.EV_DRAW_RUNE, p, tile, 0, 0)


@njit_without_refcounts
def draw_journey(t, pub, decks, discards, tops, x, rng, trace, tracing, season):
    """Top card of colour x's Journey deck (-1 if none), rebuilding it from discards."""
    if tops[L.PILE_TOP, x] >= tops[L.PILE_END, x]:
        k = tops[L.PILE_DISCARDS, x]
        if k == 0 or not t.rules[L.R_RESHUFFLE]:
            return -1
        for i in range(k):
            decks[x, i] = discards[x, i]
        shuffle(decks[x], k, rng)
        tops[L.PILE_TOP, x], tops[L.PILE_END, x], tops[L.PILE_DISCARDS, x] = 0, k, 0
        record_event(trace, tracing, season, L.EV_RESHUFFLE, -1, x, k, 0)
    c = decks[x, tops[L.PILE_TOP, x]]
    tops[L.PILE_TOP, x] += 1
    pub[L.DECK_LEFT + x] = tops[L.PILE_END, x] - tops[L.PILE_TOP, x]
    return c


# ---------------------------------------------------------------- setup
@njit_without_refcounts
def setup(t, n_players, pub, hid, cnt, done, decks, discards, tops, new_starts, stack, rtops,
          starts, rng, trace, tracing):
    """Setup (docs/inori.md, steps 1-6) from the deal stream `rng`; play starts with the
    first turn of season 0."""
    n_col = t.rules[L.R_N_COLOURS]
    n_cards = t.card.shape[0]
    seasons = t.rules[L.R_SEASONS]
    n_tree = t.rules[L.R_N_TREE]
    pub[:] = 0
    hid[:] = 0
    cnt[:, :] = 0
    done[:, :] = 0
    pub[L.N_PLAYERS] = n_players
    for i in range(L.MAX_SLOTS):
        pub[L.slot_at(i, L.S_CARD)] = -1
        for s in range(L.MAX_SPACES):
            pub[L.slot_at(i, L.S_OCC + s)] = -1
            pub[L.slot_at(i, L.S_OCC2 + s)] = 0
    for ts in range(L.MAX_TREE):
        pub[L.tree_at(ts, L.T_OCC)] = -1
        pub[L.tree_at(ts, L.T_OCC2)] = 0
        pub[L.tree_at(ts, L.T_TILE)] = -1
        pub[L.tree_at(ts, L.T_TOKENS)] = -1
        pub[L.tree_at(ts, L.T_TOKENS + 1)] = -1
    for x in range(n_col):
        pub[L.SUPPLY + x] = t.colour[x, 0]

    # Setup 1: each colour's Journey deck (in card order: one pass), shuffled.
    for x in range(n_col):
        tops[L.PILE_END, x] = 0
    for c in range(n_cards):
        if t.card[c, L.CARD_KIND] == L.JOURNEY:
            x = t.card[c, L.CARD_COLOUR]
            decks[x, tops[L.PILE_END, x]] = c
            tops[L.PILE_END, x] += 1
    for x in range(n_col):
        shuffle(decks[x], tops[L.PILE_END, x], rng)
        tops[L.PILE_TOP, x], tops[L.PILE_DISCARDS, x] = 0, 0
        pub[L.DECK_LEFT + x] = tops[L.PILE_END, x]
    # Setup 2: the New Start deck.
    k = 0
    for c in range(n_cards):
        if t.card[c, L.CARD_KIND] == L.NEW_START:
            new_starts[k] = c
            k += 1
    shuffle(new_starts, k, rng)
    rtops[L.NEW_TOP], rtops[L.NEW_END] = 0, k
    # Setup 3: the Rune stack.
    n_runes = t.rules[L.R_N_RUNES]
    for r in range(n_runes):
        stack[r] = r
    shuffle(stack, n_runes, rng)
    rtops[L.RUNE_TOP], rtops[L.RUNE_END] = 0, n_runes
    pub[L.RUNES_LEFT] = n_runes
    # Setup 4: Start cards for this player count, shuffled; the first ones go in play.
    k = 0
    for j in range(seasons, t.setup.shape[1]):
        if t.setup[n_players, j] >= 0:
            starts[k] = t.setup[n_players, j]
            k += 1
    shuffle(starts, k, rng)
    for i in range(t.rules[L.R_START_IN_PLAY]):
        pub[L.slot_at(i, L.S_CARD)] = starts[i]
        record_event(trace, tracing, 0, L.EV_SETUP_CARD, -1, i, starts[i], 0)
    pub[L.N_SLOTS] = t.rules[L.R_START_IN_PLAY]
    # Setup 5: the root spaces' reserved tokens.
    for ts in range(n_tree):
        if not t.tree[ts, L.TR_ROOT]:
            continue
        for j in range(t.tree[ts, L.TR_AMOUNT]):
            if t.rules[L.R_ROOT_RANDOM]:
                total = 0
                for x in range(n_col):
                    total += pub[L.SUPPLY + x]
                x = -1
                if total > 0:
                    r = randint(rng, total)
                    x = 0
                    while r >= pub[L.SUPPLY + x]:
                        r -= pub[L.SUPPLY + x]
                        x += 1
            else:
                x = t.colour[0, 2 + 2 * ts + j]
                if pub[L.SUPPLY + x] == 0:
                    x = -1
            if x >= 0:
                pub[L.SUPPLY + x] -= 1
            pub[L.tree_at(ts, L.T_TOKENS + j)] = x
        record_event(trace, tracing, 0, L.EV_ROOT, -1, ts, pub[L.tree_at(ts, L.T_TOKENS)],
                     pub[L.tree_at(ts, L.T_TOKENS + 1)])
    # Setup 6: markers; seat 0 goes first.
    for p in range(n_players):
        pub[L.player_at(p, L.P_MARKERS)] = t.setup[n_players, 0]
    pub[L.FIRST] = 0
    pub[L.NEUTRAL_LEFT] = t.rules[L.R_NEUTRAL]
    cnt[0, L.CT_FIRST] += 1
    hid[L.PHASE] = L.PH_TURN
    hid[L.STOP_SEASON] = seasons  # never reached: the game ends in the last season


# ---------------------------------------------------------------- a turn
@njit(cache=True, inline="always")
def next_seat(n_players, pub, hid):
    """The seat whose turn is next in this season's turn passes (the first player, then
    clockwise, again and again, skipping players without markers), or -1 once a whole
    pass found no one."""
    while True:
        j = hid[L.TURN_POS]
        if j >= n_players:
            if not hid[L.ANYONE]:
                return -1
            j = 0
            hid[L.ANYONE] = 0
        hid[L.TURN_POS] = j + 1
        p = pub[L.FIRST] + j
        p -= n_players * (p >= n_players)  # not %: a division every turn
        if pub[L.player_at(p, L.P_MARKERS)] > 0:
            hid[L.ANYONE] = 1
            return p


@njit_without_refcounts
def begin_turn(pub, hid, cnt, p):
    """Seat p's turn begins."""
    pub[L.SEAT] = p
    pub[L.OCCUPIED_OK] = 0
    hid[L.RUNE_DONE] = 0
    cnt[p, L.CT_TURNS] += 1


@njit(cache=True, inline="always")
def play_rune(t, pub, hid, cnt, p, h, trace, tracing, season):
    """Seat p plays the Rune tile at hand position h: a gain now, an occupied space
    allowed this turn, or a move (PH_MOVE: the marker to move is asked next)."""
    base = L.player_at(p, L.P_RUNES)
    tile = pub[base + h]
    n_held = pub[L.player_at(p, L.P_N_RUNES)]
    for e in range(h, n_held - 1):
        pub[base + e] = pub[base + e + 1]
    pub[base + n_held - 1] = 0
    pub[L.player_at(p, L.P_N_RUNES)] = n_held - 1
    kind = t.rune[tile, L.RU_KIND]
    colour = t.rune[tile, L.RU_COLOUR]
    hid[L.RUNE_DONE] = max(hid[L.RUNE_DONE], 1)
    cnt[p, L.CT_RUNE + kind] += 1
    record_event(trace, tracing, season, L.EV_RUNE, p, tile, kind, 0)
    if kind == L.RUNE_GAIN:
        gain(t, pub, p, colour, t.rune[tile, L.RU_AMOUNT], cnt, trace, tracing, season)
    elif kind == L.RUNE_OCCUPIED:
        pub[L.OCCUPIED_OK] = 1
    else:
        hid[L.PHASE] = L.PH_MOVE
        hid[L.TODO_AMOUNT] = kind
        hid[L.TODO_COLOUR] = colour


@njit_without_refcounts
def move_marker(pub, p, who, src, dst, trace, tracing, season):
    """Seat p moves `who`'s piece (a seat or NEUTRAL) on space `src` to free space `dst`
    (slot * MAX_SPACES + space); when the first piece leaves, the further marker of the
    lowest seat becomes the first."""
    si, ss = src // L.MAX_SPACES, src % L.MAX_SPACES
    first, extra = L.slot_at(si, L.S_OCC + ss), L.slot_at(si, L.S_OCC2 + ss)
    up = who  # the marker that leaves the further markers' mask (-1: none)
    if pub[first] == who:
        up = lowest_seat(pub[extra])
        pub[first] = up
    if up >= 0:
        pub[extra] &= ~(1 << up)
    pub[L.slot_at(dst // L.MAX_SPACES, L.S_OCC + dst % L.MAX_SPACES)] = who
    record_event(trace, tracing, season, L.EV_MOVE, p, src, dst, who)


@njit(cache=True, inline="always")
def offer_card(t, pub, hid, cnt, p, i, s, paid, hv, stack, rtops, trace, tracing, season):
    """Seat p offers to space s of the card in slot i (paying a token of `paid`), then its
    effect (a "fewest colour" gain: PH_TOKENS, the colour is asked next)."""
    c = pub[L.slot_at(i, L.S_CARD)]
    record_event(trace, tracing, season, L.EV_CARD, p, i, s, c)
    if paid >= 0:
        pay(t, pub, p, paid, 1, cnt, trace, tracing, season)
    if pub[L.slot_at(i, L.S_OCC + s)] < 0:
        pub[L.slot_at(i, L.S_OCC + s)] = p
    else:  # an "occupied" Rune's marker joins the space
        pub[L.slot_at(i, L.S_OCC2 + s)] |= 1 << p
    cnt[p, L.CT_CARD_OFFERS] += 1
    e = t.card[c, L.space_col(s, L.SP_EFFECT)]
    k = t.card[c, L.space_col(s, L.SP_AMOUNT)]
    if e == L.EF_GAIN:
        gain(t, pub, p, t.card[c, L.space_col(s, L.SP_COLOUR)], k, cnt, trace, tracing, season)
    elif e == L.EF_FEWEST:
        ask_tokens(hid, 1, k, True)
    elif e == L.EF_RUNE:
        draw_runes(pub, p, k, stack, rtops, cnt, trace, tracing, season)
    else:
        distinct, most, ties = holdings(pub, p, t.rules[L.R_N_COLOURS], hv)
        points = card_row(t.card, pub, hv, False, c, s, -1, 0, distinct, most, ties)[0]
        score(pub, p, points, L.SRC_CARD, cnt, trace, tracing, season)


@njit_without_refcounts
def ask_tokens(hid, decisions, amount, fewest):
    """Pending: `decisions` token colours to choose, `amount` tokens each."""
    hid[L.PHASE] = L.PH_TOKENS
    hid[L.TODO_LEFT] = decisions
    hid[L.TODO_AMOUNT] = amount
    hid[L.TODO_FEWEST] = fewest


@njit(cache=True, inline="always")
def offer_tree(t, pub, hid, cnt, p, ts, colour, paid, placed, stack, rtops, trace, tracing,
               season):
    """Seat p offers to tree space ts, its Altar tile of `colour` (`placed`: the tile was
    chosen now, STEP_TILE), paying the Altar cost in `paid` (-1: nothing); then the
    effect (once per space unless options.altar_repeat; "take any" and "block" ask for
    decisions next: PH_TOKENS, PH_BLOCK)."""
    root = t.tree[ts, L.TR_ROOT] == 1
    record_event(trace, tracing, season, L.EV_TREE, p, ts, colour, 1 if placed else 0)
    if paid >= 0:
        pay(t, pub, p, paid, t.rules[L.R_ALTAR_COST], cnt, trace, tracing, season)
    if pub[L.tree_at(ts, L.T_OCC)] < 0:
        pub[L.tree_at(ts, L.T_OCC)] = p
    else:  # an "occupied" Rune's marker joins the space
        pub[L.tree_at(ts, L.T_OCC2)] |= 1 << p
    cnt[p, L.CT_TREE + ts] += 1
    if placed:
        pub[L.tree_at(ts, L.T_TILE)] = colour
        pub[L.TILE_USED + colour] = 1
        cnt[p, L.CT_TILES] += 1
    elif not root and not t.rules[L.R_ALTAR_REPEAT]:
        return
    e = t.tree[ts, L.TR_EFFECT]
    k = t.tree[ts, L.TR_AMOUNT]
    k2 = t.tree[ts, L.TR_AMOUNT2]
    if e == L.TE_ANY:
        ask_tokens(hid, k, 1, False)
    elif e == L.TE_POINTS:
        score(pub, p, k, L.SRC_TREE, cnt, trace, tracing, season)
    elif e == L.TE_RUNE_TOKEN:
        draw_runes(pub, p, k, stack, rtops, cnt, trace, tracing, season)
        gain(t, pub, p, colour, k2, cnt, trace, tracing, season)
    elif e == L.TE_TILE_POINTS:
        score(pub, p, k * held(pub, p, colour), L.SRC_TREE, cnt, trace, tracing, season)
    elif e == L.TE_BLOCK:  # the blocks, then the tile's tokens (finish_blocks)
        hid[L.PHASE] = L.PH_BLOCK
        hid[L.TODO_LEFT] = k
        hid[L.TODO_COLOUR] = colour
        hid[L.TODO_AMOUNT] = k2
    elif e == L.TE_TILE_TOKENS:
        gain(t, pub, p, colour, k, cnt, trace, tracing, season)
    else:  # TE_ROOT: the reserved tokens (already out of the supply)
        banned = t.rules[L.R_BAN_COLOUR] if p == t.rules[L.R_BAN_SEAT] else -1
        for i in range(2):
            x = pub[L.tree_at(ts, L.T_TOKENS + i)]
            if x >= 0 and x != banned:  # a withheld colour stays on the root
                pub[L.player_at(p, L.P_TOKENS + x)] += 1
                pub[L.tree_at(ts, L.T_TOKENS + i)] = -1
                cnt[p, L.CT_GAINED] += 1
                record_event(trace, tracing, season, L.EV_GAIN, p, x, 1, 0)


@njit_without_refcounts
def ask_tile(hid, ts, paid):
    """Pending (PH_TILE): the Altar tile for tree space ts, then offer_tree (paying in
    `paid`, -1: nothing)."""
    hid[L.PHASE] = L.PH_TILE
    hid[L.TODO_COLOUR] = ts
    hid[L.TODO_AMOUNT] = paid


@njit_without_refcounts
def pass_turn(cnt, p, trace, tracing, season):
    """Seat p has no legal offering: the marker is set aside for the season."""
    cnt[p, L.CT_PASSED] += 1
    record_event(trace, tracing, season, L.EV_PASS, p, 0, 0, 0)


@njit_without_refcounts
def block_space(pub, cnt, p, i, s, trace, tracing, season):
    """Seat p puts a neutral marker on space s of the card in slot i."""
    pub[L.slot_at(i, L.S_OCC + s)] = L.NEUTRAL
    pub[L.NEUTRAL_LEFT] -= 1
    cnt[p, L.CT_NEUTRAL] += 1
    record_event(trace, tracing, season, L.EV_BLOCK, p, i, s, 0)


@njit_without_refcounts
def end_turn(pub, p):
    """The offering marker is spent (the next turn comes: play.next_decision)."""
    pub[L.player_at(p, L.P_MARKERS)] -= 1
    pub[L.OCCUPIED_OK] = 0


# ---------------------------------------------------------------- season end
@njit_without_refcounts
def end_season(t, pub, n_players, season, last, decks, discards, tops, rng, cnt, done, trace,
               tracing):
    """Score every card (scoring.score_card), return markers, replace each card (not after
    the last season) from the deck of the colour score_card names."""
    for i in range(pub[L.N_SLOTS]):
        c = pub[L.slot_at(i, L.S_CARD)]
        if c < 0:
            continue
        n_sp = t.card[c, L.CARD_N_SPACES]
        colour = score_card(t, pub, n_players, i, c, cnt, done, trace, tracing, season)
        for s in range(n_sp):
            pub[L.slot_at(i, L.S_OCC + s)] = -1
            pub[L.slot_at(i, L.S_OCC2 + s)] = 0
        if last:
            continue
        if t.card[c, L.CARD_KIND] == L.JOURNEY:
            own = t.card[c, L.CARD_COLOUR]
            discards[own, tops[L.PILE_DISCARDS, own]] = c
            tops[L.PILE_DISCARDS, own] += 1
        new = draw_journey(t, pub, decks, discards, tops, colour, rng, trace, tracing, season)
        pub[L.slot_at(i, L.S_CARD)] = new
        record_event(trace, tracing, season, L.EV_REPLACE, -1, i, c, new)
    for ts in range(t.rules[L.R_N_TREE]):
        pub[L.tree_at(ts, L.T_OCC)] = -1
        pub[L.tree_at(ts, L.T_OCC2)] = 0
    pub[L.NEUTRAL_LEFT] = t.rules[L.R_NEUTRAL]


@njit_without_refcounts
def season_end(t, n_players, pub, hid, cnt, done, decks, discards, tops, rtops, rng, tied,
               trace, tracing):
    """The season end (end_season), then the game end (-1 returned: PH_OVER) or the next
    season's markers and first player, who draws the New Start cards (options.new_start_use)
    to keep one of: their count is returned (0: none), the cards new_starts[rtops[NEW_TOP] - k:]."""
    season = pub[L.SEASON]
    last = season == t.rules[L.R_SEASONS] - 1
    end_season(t, pub, n_players, season, last, decks, discards, tops, rng, cnt, done, trace,
               tracing)
    if last:
        end_game(t, pub, n_players, cnt, trace, tracing)
        hid[L.PHASE] = L.PH_OVER
        return -1
    for p in range(n_players):
        pub[L.player_at(p, L.P_MARKERS)] = t.setup[n_players, season + 1]
        record_event(trace, tracing, season, L.EV_MARKERS, p, t.setup[n_players, season + 1], 0, 0)
    low = fewest_points(t, pub, n_players, rng, tied)
    pub[L.FIRST] = low
    cnt[low, L.CT_FIRST] += 1
    record_event(trace, tracing, season, L.EV_FIRST, low, 0, 0, 0)
    hid[L.PHASE] = L.PH_NEXT_SEASON
    k = (min(t.rules[L.R_NEW_START_DRAW], rtops[L.NEW_END] - rtops[L.NEW_TOP])
         if t.rules[L.R_NEW_START_JOIN] else 0)
    if k > 0:
        rtops[L.NEW_TOP] += k
        hid[L.TODO_LEFT] = k
        pub[L.SEAT] = low
        pub[L.STEP] = L.STEP_NEW_START
    return max(k, 0)


@njit_without_refcounts
def keep_new_start(pub, cnt, p, kept, other, trace, tracing, season):
    """Seat p keeps New Start card `kept` (the other drawn one, `other`, leaves the game):
    it joins the cards in play in the next slot."""
    i = pub[L.N_SLOTS]
    pub[L.slot_at(i, L.S_CARD)] = kept
    pub[L.N_SLOTS] = i + 1
    cnt[p, L.CT_NEW_START] += 1
    record_event(trace, tracing, season, L.EV_NEW_START, p, kept, other, 0)


@njit_without_refcounts
def begin_season(pub, hid):
    """The next season begins with its first player's turn."""
    pub[L.SEASON] += 1
    hid[L.TURN_POS] = 0
    hid[L.ANYONE] = 0
    hid[L.PHASE] = L.PH_TURN
