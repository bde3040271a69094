"""Plain-Python reference implementation of the Inori rules (a test oracle).

Written from docs/inori.md and the rule text (/work/shared/rules/great-tree.en.md),
independently of the numba kernel (simkit/games/inori/kernel.py is deliberately NOT
imported). The rules logic uses plain lists and ints; numbers and cards come from the
config via `compile_tables`, converted to Python lists.

What the reference shares with the kernel by convention (not by rule):
  * randomness: the splitmix64 streams of simkit.rng (Python twins): stream 0 shuffles
    the Journey decks (colour order), the New Start deck, the Rune stack, the Start cards,
    draws random root tokens, rebuilds empty decks and breaks random fewest-points ties;
    stream 1 + seat drives that seat's strategy;
  * the option table (layout.py) and its canonical row order; the event records;
  * strategies "random" and "greedy" (re-implemented here), "planner" (called through its
    compiled function with a `pub` array built per layout.py).

Points docs/inori.md and layout.py leave open, and the reading taken here, are listed in
`SPEC_GAPS` below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from simkit.config import load_config
from simkit.games.inori import layout as L
from simkit.games.inori.config import compile_tables
from simkit.rng import PyStream, py_game_seed, py_stream_state

from .ties import best_row, compiled_choice

SPEC_GAPS = (
    "F1/F4/POINTS of an offering are computed on the state after paying the cost (a "
    "returned token is back in the supply before a gain of the same colour)",
    "F2 of a card row: 1 only if the space was free and was the card's last free space "
    "(a second marker on a complete card does not 'complete' it)",
    "the Rune step is asked whenever the player holds a tile, even with OPT_NO_RUNE alone; "
    "a one-row table (OPT_PASS, a single colour or tile, one New Start card) is asked too "
    "(random players draw randint(1) for it)",
    "cost_payment also governs the Altar cost (config comment); no PAY event when "
    "altar_cost is 0",
    "the marker goes on the space at the CARD/TREE event, before the cost and effect; the "
    "marker count drops after the effect (what the planner sees at STEP_TOKEN/BLOCK)",
    "an occupied-space offering may go onto a neutral marker (it is not the player's)",
    "present players score in seat order; SCORE and MAJORITY events even for 0 points",
    "a colour's deck is rebuilt only from a non-empty discard pile (else no RESHUFFLE); "
    "the card leaving a slot is discarded before the replacement is drawn (it may come "
    "straight back)",
    "fewest_points_tie = \"random\" draws randint(number tied) at every season end, "
    "even when a single player has the fewest points (randint(1)): the kernel's reading",
    "no New Start card drawn (deck empty): no decision, no event, no slot added; the kept "
    "card goes to slot N_SLOTS even if an earlier slot is empty",
    "MARKERS (one per seat, seat order: a = count), FIRST and NEW_START events and the "
    "NEW_START decision carry the ending season's index (pub SEASON too)",
    "events without a player have seat -1; unused event arguments are 0; END (seasons) "
    "comes before the MAJORITY events (docs), SETUP_CARD is (slot, card)",
    "pub: unused space, slot, tree and hand entries are -1; SUPPLY/DECK_LEFT/TILE_USED of "
    "colours beyond the config's are 0; seat 0 counts season 1 as a season first",
    "fixed root tokens whose colour the supply lacks are skipped (the config cannot do it)",
)

NO_CARD = -1


@dataclass(frozen=True)
class Space:
    cost: int  # COST_NONE, a colour, or COST_MAJORITY
    effect: int  # EF_*
    colours: tuple[int, ...]  # gain: (colour,); points_per_token: the listed colours
    amount: int


@dataclass(frozen=True)
class Card:
    kind: int  # JOURNEY, START, NEW_START
    colour: int
    next: int
    spaces: tuple[Space, ...]


@dataclass(frozen=True)
class TreeSpace:
    root: bool
    effect: int  # TE_*
    amount: int
    amount2: int
    fixed: tuple[int, ...]  # the tokens a root space takes with root_tokens = "fixed"


@dataclass(frozen=True)
class Rune:
    kind: int  # RUNE_*
    colour: int
    amount: int


@dataclass(frozen=True)
class Rules:
    n_colours: int
    seasons: int
    tokens: list[int]
    cards: list[Card]
    tree: list[TreeSpace]
    runes: list[Rune]
    markers: dict[int, list[int]]  # player count -> markers per season
    start_cards: dict[int, list[int]]  # player count -> eligible Start cards
    start_in_play: int
    neutral: int
    maj_first: int
    maj_second: int
    cost_return: bool
    maj_tie_choose: bool
    altar_cost: int
    altar_repeat: bool
    low_tie: int
    new_start_join: bool
    reshuffle: bool
    root_random: bool
    new_start_draw: int
    specific_per_colour: bool  # options.specific_colours: a point per listed colour held
    rune_after: bool  # options.rune_timing = "before_or_after"
    move_any: bool  # options.move_piece = "any": a move Rune tile moves any piece
    win_most_tokens: bool  # options.win_tie = "most_tokens": Favor tokens break a win tie
    occ_tree: bool  # options.occupied_spaces = "any": the "occupied" Rune opens tree spaces
    occ_any_count: bool  # options.occupied_count = "any": any number of pieces there
    compensation: list[int]  # points added to each seat's final score ([compensation])
    half: list[int]  # 1: half a point more, only to break ties (compensation.half)
    tables: Any  # numpy Tables, only for calling the compiled planner


@cache
def load_rules(overrides: tuple[str, ...] = ()) -> Rules:
    """The config (with `--set` overrides) as plain Python rules."""
    config = load_config("inori", overrides=overrides)
    t, _names = compile_tables(config)
    rule = [int(v) for v in t.rules]
    cards = []
    for row in t.card.tolist():
        spaces = []
        for s in range(row[L.CARD_N_SPACES]):
            base = L.SPACE + s * L.SPACE_SIZE
            sp = row[base: base + L.SPACE_SIZE]
            listed = tuple(x for x in (sp[L.SP_COLOUR], sp[L.SP_COLOUR2]) if x >= 0)
            # the config's effect; how points_per_token counts is the option, read below
            effect = L.EF_PER_TOKEN if sp[L.SP_EFFECT] == L.EF_PER_COLOUR else sp[L.SP_EFFECT]
            spaces.append(Space(sp[L.SP_COST], effect, listed, sp[L.SP_AMOUNT]))
        cards.append(Card(row[L.CARD_KIND], row[L.CARD_COLOUR], row[L.CARD_NEXT],
                          tuple(spaces)))
    tree = []
    for i, row in enumerate(t.tree.tolist()):
        fixed = tuple(x for x in t.root_tokens(i) if x >= 0) if row[L.TR_ROOT] else ()
        tree.append(TreeSpace(bool(row[L.TR_ROOT]), row[L.TR_EFFECT], row[L.TR_AMOUNT],
                              row[L.TR_AMOUNT2], fixed))
    runes = [Rune(*r) for r in t.rune.tolist()[: rule[L.R_N_RUNES]]]
    seasons = rule[L.R_SEASONS]
    counts = [p for p in range(2, L.MAX_PLAYERS + 1) if t.setup[p, 0] >= 0]
    return Rules(
        n_colours=rule[L.R_N_COLOURS], seasons=seasons,
        tokens=[int(v) for v in t.tokens], cards=cards, tree=tree, runes=runes,
        markers={p: [int(v) for v in t.markers(p)] for p in counts},
        start_cards={p: t.start_cards(p) for p in counts},
        start_in_play=rule[L.R_START_IN_PLAY], neutral=rule[L.R_NEUTRAL],
        maj_first=rule[L.R_MAJ_FIRST], maj_second=rule[L.R_MAJ_SECOND],
        cost_return=bool(rule[L.R_COST_RETURN]), maj_tie_choose=bool(rule[L.R_MAJ_TIE_CHOOSE]),
        altar_cost=rule[L.R_ALTAR_COST], altar_repeat=bool(rule[L.R_ALTAR_REPEAT]),
        low_tie=rule[L.R_LOW_TIE], new_start_join=bool(rule[L.R_NEW_START_JOIN]),
        reshuffle=bool(rule[L.R_RESHUFFLE]), root_random=bool(rule[L.R_ROOT_RANDOM]),
        new_start_draw=rule[L.R_NEW_START_DRAW],
        specific_per_colour=config.data["options"]["specific_colours"] == "per_colour",
        rune_after=config.data["options"]["rune_timing"] == "before_or_after",
        move_any=config.data["options"]["move_piece"] == "any",
        win_most_tokens=config.data["options"]["win_tie"] == "most_tokens",
        occ_tree=config.data["options"]["occupied_spaces"] == "any",
        occ_any_count=config.data["options"]["occupied_count"] == "any",
        compensation=list(config.data["compensation"]["points"]),
        half=list(config.data["compensation"]["half"]),
        tables=t)


# ------------------------------------------------------------------ state
def new_stats(rules: Rules) -> dict[str, Any]:
    """One seat's counters, one per kernel output array (tmp outputs.py 5..20)."""
    return dict(
        points=[0] * len(L.SOURCES), tree_uses=[0] * len(rules.tree),
        runes_played=[0] * len(L.RUNE_KINDS), runes_drawn=0, completed=0,
        completed_cards=[0] * len(rules.cards), seasons_first=0, passes=0, tiles=0,
        turns=0, paid=0, gained=0, neutral=0, new_starts=0, card_offerings=0)


def row(kind: int, a: int = -1, b: int = -1, c: int = -1, points: int = 0, f1: int = 0,
        f2: int = 0, f3: int = 0, f4: int = 0) -> tuple[int, ...]:
    """An option row: KIND A B C POINTS F1 F2 F3 F4."""
    return (kind, a, b, c, points, f1, f2, f3, f4)


@dataclass
class Game:
    """The whole game state; deck and stack lists draw from the front (the top)."""

    rules: Rules
    n: int
    deal: PyStream
    supply: list[int] = field(default_factory=list)
    tokens: list[list[int]] = field(default_factory=list)
    score: list[int] = field(default_factory=list)
    markers: list[int] = field(default_factory=list)
    passed: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    stack: list[int] = field(default_factory=list)
    runes_played: list[int] = field(default_factory=list)
    decks: list[list[int]] = field(default_factory=list)
    discards: list[list[int]] = field(default_factory=list)
    new_start_deck: list[int] = field(default_factory=list)
    out_of_game: list[int] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)
    occ: list[list[int]] = field(default_factory=list)
    # further markers on a space, by seat ascending (an "occupied" Rune puts them there)
    occ2: list[list[list[int]]] = field(default_factory=list)
    tree_occ: list[int] = field(default_factory=list)
    tree_occ2: list[list[int]] = field(default_factory=list)
    tree_tile: list[int] = field(default_factory=list)
    reserve: list[list[int]] = field(default_factory=list)
    tile_used: list[int] = field(default_factory=list)
    neutral_left: int = 0
    season: int = 0
    first: int = 0
    occupied_ok: bool = False
    paid_from_held: bool = True
    events: list[tuple[int, ...]] = field(default_factory=list)
    stats: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def empty(cls, rules: Rules, n: int, seed: int = 0) -> Game:
        """A game before setup: full supply, no cards in play, nothing held."""
        k = rules.n_colours
        return cls(
            rules=rules, n=n, deal=PyStream(py_stream_state(seed, 0)),
            supply=list(rules.tokens), tokens=[[0] * k for _ in range(n)], score=[0] * n,
            markers=[0] * n, passed=[0] * n, hands=[[] for _ in range(n)],
            decks=[[] for _ in range(k)], discards=[[] for _ in range(k)],
            tree_occ=[-1] * len(rules.tree), tree_occ2=[[] for _ in rules.tree],
            tree_tile=[-1] * len(rules.tree),
            reserve=[[] for _ in rules.tree], tile_used=[0] * k,
            neutral_left=rules.neutral, stats=[new_stats(rules) for _ in range(n)])

    # ---------------------------------------------------------------- basics
    def event(self, ev: int, seat: int = -1, a: int = 0, b: int = 0, c: int = 0) -> None:
        self.events.append((self.season, ev, seat, a, b, c))

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates from the last position down, on stream 0."""
        for i in range(len(items) - 1, 0, -1):
            j = self.deal.randint(i + 1)
            items[i], items[j] = items[j], items[i]

    def card(self, slot: int) -> Card:
        return self.rules.cards[self.slots[slot]]

    def place_card(self, slot: int, c: int) -> None:
        """Put card c (or NO_CARD) in `slot`, its spaces empty."""
        if slot == len(self.slots):
            self.slots.append(c)
            self.occ.append([])
            self.occ2.append([])
        self.slots[slot] = c
        n_sp = len(self.rules.cards[c].spaces) if c >= 0 else 0
        self.occ[slot] = [-1] * n_sp
        self.occ2[slot] = [[] for _ in range(n_sp)]

    def gain(self, p: int, x: int, amount: int) -> int:
        """Gain min(amount, supply) tokens of x (event GAIN when more than 0)."""
        g = min(amount, self.supply[x])
        if g > 0:
            self.supply[x] -= g
            self.tokens[p][x] += g
            self.stats[p]["gained"] += g
            self.event(L.EV_GAIN, p, x, g)
        return g

    def pay(self, p: int, x: int, amount: int) -> None:
        """Pay `amount` tokens of x: returned to the supply, or only shown ("hold")."""
        if self.tokens[p][x] < amount:
            self.paid_from_held = False
        self.event(L.EV_PAY, p, x, amount)
        self.stats[p]["paid"] += amount
        if self.rules.cost_return:
            self.tokens[p][x] -= amount
            self.supply[x] += amount

    def points(self, p: int, pts: int, source: int) -> None:
        """Score now (no event)."""
        self.score[p] += pts
        self.stats[p]["points"][source] += pts

    def effect_points(self, p: int, pts: int, source: int) -> None:
        """Points from an effect: event POINTS (points, source) when more than 0."""
        self.points(p, pts, source)
        if pts > 0:
            self.event(L.EV_POINTS, p, pts, source)

    def draw_runes(self, p: int, amount: int) -> None:
        for _ in range(min(amount, len(self.stack))):
            tile = self.stack.pop(0)
            self.hands[p].append(tile)
            self.stats[p]["runes_drawn"] += 1
            self.event(L.EV_DRAW_RUNE, p, tile)

    def free_spaces(self) -> list[tuple[int, int]]:
        return [(i, s) for i, c in enumerate(self.slots) if c >= 0
                for s in range(len(self.occ[i])) if self.occ[i][s] == -1]

    def completes(self, slot: int, space: int) -> int:
        """1 if a marker on free `space` fills the card's last free space."""
        occ = self.occ[slot]
        return int(occ[space] == -1 and all(o >= 0 for s, o in enumerate(occ) if s != space))

    def on_card(self, p: int, slot: int) -> bool:
        return p in self.occ[slot] or any(p in extra for extra in self.occ2[slot])

    def may_join(self, first: int, extra: list[int], p: int) -> bool:
        """An "occupied" Rune lets p join a space holding pieces, none of them p's (and,
        with options.occupied_count = "one", only one)."""
        return (first != -1 and first != p and p not in extra
                and (not extra or self.rules.occ_any_count))

    def present(self, slot: int) -> list[int]:
        return [p for p in range(self.n) if self.on_card(p, slot)]

    # ---------------------------------------------------------------- checks
    def card_total(self) -> int:
        """Cards accounted for: decks, discards, New Start deck, slots, out of the game."""
        return (sum(map(len, self.decks)) + sum(map(len, self.discards))
                + len(self.new_start_deck) + sum(1 for c in self.slots if c >= 0)
                + len(self.out_of_game))

    def token_totals(self) -> list[int]:
        """Per colour: supply + every player's tokens + root reserves."""
        totals = list(self.supply)
        for tok in self.tokens:
            for x, v in enumerate(tok):
                totals[x] += v
        for res in self.reserve:
            for x in res:
                totals[x] += 1
        return totals

    def rune_total(self) -> int:
        return len(self.stack) + sum(map(len, self.hands)) + len(self.runes_played)

    def markers_placed(self, p: int) -> int:
        return (sum(o.count(p) for o in self.occ)
                + sum(x.count(p) for o in self.occ2 for x in o)
                + self.tree_occ.count(p) + sum(x.count(p) for x in self.tree_occ2))

    def check(self, label: str, season_count: int, checks: list[tuple]) -> None:
        """Record (season, label, problem or None) for every invariant."""
        problems = []
        if self.token_totals() != self.rules.tokens:
            problems.append(f"tokens {self.token_totals()} != {self.rules.tokens}")
        if self.card_total() != len(self.rules.cards):
            problems.append(f"cards {self.card_total()} != {len(self.rules.cards)}")
        if self.rune_total() != len(self.rules.runes):
            problems.append(f"runes {self.rune_total()} != {len(self.rules.runes)}")
        for p in range(self.n):
            m = self.markers_placed(p) + self.markers[p] + self.passed[p]
            if m != season_count:
                problems.append(f"seat {p}: {m} markers, season count {season_count}")
        for i in range(len(self.slots)):
            for a, b in zip(self.occ[i], self.occ2[i], strict=True):
                if b and (a in b or a < 0 or len(set(b)) != len(b)):
                    problems.append(f"slot {i}: markers {a} and {b} on one space")
        if any(v < 0 for v in self.supply) or any(v < 0 for t in self.tokens for v in t):
            problems.append("a negative token count")
        if not self.paid_from_held:
            problems.append("a cost paid with tokens not held")
        used = sum(1 for x in self.tree_tile if x >= 0)
        if used != sum(self.tile_used) or self.neutral_left < 0:
            problems.append("Altar tiles or neutral markers miscounted")
        checks.append((self.season, label, "; ".join(problems) or None))

    # ---------------------------------------------------------------- public state
    def pub(self, seat: int, step: int) -> list[int]:
        """The public state in the kernel's flat layout (layout.py), for the planner."""
        pub = [0] * L.PUB_SIZE
        pub[L.SEAT], pub[L.N_PLAYERS], pub[L.SEASON], pub[L.STEP] = (
            seat, self.n, self.season, step)
        pub[L.FIRST], pub[L.OCCUPIED_OK] = self.first, int(self.occupied_ok)
        pub[L.RUNES_LEFT], pub[L.NEUTRAL_LEFT] = len(self.stack), self.neutral_left
        pub[L.N_SLOTS] = len(self.slots)
        for x in range(self.rules.n_colours):
            pub[L.SUPPLY + x] = self.supply[x]
            pub[L.DECK_LEFT + x] = len(self.decks[x])
            pub[L.TILE_USED + x] = self.tile_used[x]
        for i in range(L.MAX_SLOTS):
            base = L.SLOT + i * L.SLOT_SIZE
            pub[base + L.S_CARD] = self.slots[i] if i < len(self.slots) else -1
            for s in range(L.MAX_SPACES):
                inside = i < len(self.slots) and s < len(self.occ[i])
                pub[base + L.S_OCC + s] = self.occ[i][s] if inside else -1
                pub[base + L.S_OCC2 + s] = sum(1 << q for q in self.occ2[i][s]) if inside else 0
        for t in range(L.MAX_TREE):
            base = L.TREE + t * L.TREE_SIZE
            inside = t < len(self.rules.tree)
            pub[base + L.T_OCC] = self.tree_occ[t] if inside else -1
            pub[base + L.T_OCC2] = sum(1 << q for q in self.tree_occ2[t]) if inside else 0
            pub[base + L.T_TILE] = self.tree_tile[t] if inside else -1
            res = self.reserve[t] if inside else []
            for i in range(2):
                pub[base + L.T_TOKENS + i] = res[i] if i < len(res) else -1
        for p in range(self.n):
            base = L.PLAYER + p * L.PLAYER_SIZE
            pub[base + L.P_SCORE], pub[base + L.P_MARKERS] = self.score[p], self.markers[p]
            pub[base + L.P_N_RUNES] = len(self.hands[p])
            for x in range(self.rules.n_colours):
                pub[base + L.P_TOKENS + x] = self.tokens[p][x]
            for h in range(L.MAX_HELD_RUNES):
                pub[base + L.P_RUNES + h] = self.hands[p][h] if h < len(self.hands[p]) else -1
        return pub


# ------------------------------------------------------------------ options
def cost_colours(game: Game, p: int, cost: int) -> list[int]:
    """Colours a card space's cost can be paid with ([-1]: no cost; []: unpayable)."""
    tok = game.tokens[p]
    if cost == L.COST_NONE:
        return [-1]
    if cost == L.COST_MAJORITY:
        most = max(tok)
        if most < 1:  # holding no token never gives a majority colour
            return []
        tied = [x for x, v in enumerate(tok) if v == most]
        return tied if len(tied) == 1 or game.rules.maj_tie_choose else []
    return [cost] if tok[cost] >= 1 else []


def after_paying(game: Game, p: int, x: int, amount: int) -> tuple[list[int], list[int]]:
    """(player's tokens, supply) after paying `amount` of x (x < 0: nothing)."""
    tok, supply = list(game.tokens[p]), list(game.supply)
    if x >= 0 and game.rules.cost_return:
        tok[x] -= amount
        supply[x] += amount
    return tok, supply


def card_row(game: Game, p: int, slot: int, s: int, pay: int) -> tuple[int, ...]:
    """OPT_CARD for `space` s of `slot` paid with colour `pay`."""
    card = game.card(slot)
    sp = card.spaces[s]
    tok, supply = after_paying(game, p, pay, 1)
    points = f1 = f3 = 0
    if sp.effect == L.EF_GAIN:
        x = sp.colours[0]
        f1 = min(sp.amount, supply[x])
        tok[x] += f1
    elif sp.effect == L.EF_FEWEST:
        f1 = sp.amount
    elif sp.effect == L.EF_RUNE:
        f3 = min(sp.amount, len(game.stack))
    elif sp.effect == L.EF_DISTINCT:
        points = sp.amount * sum(1 for v in tok if v > 0)
    elif sp.effect == L.EF_PER_TOKEN:
        points = sp.amount * specific_count(game.rules, tok, sp.colours)
    else:  # EF_MAJORITY
        points = sp.amount * max(tok)
    f2 = game.completes(slot, s) if game.occ[slot][s] == -1 else 0
    return row(L.OPT_CARD, slot, s, pay, points, f1, f2, f3, tok[card.colour])


def specific_count(rules: Rules, tok: list[int], colours: tuple[int, ...]) -> int:
    """What a "specific colours" space counts: the listed colours held (per_colour) or
    the tokens held of them (per_token)."""
    if rules.specific_per_colour:
        return sum(1 for x in colours if tok[x] > 0)
    return sum(tok[x] for x in colours)


def tree_row(game: Game, p: int, t: int, x: int, paid: bool) -> tuple[int, ...]:
    """OPT_TREE for tree space t with tile colour x (paid: the altar cost applies)."""
    space = game.rules.tree[t]
    if x < 0:  # a root space
        return row(L.OPT_TREE, t, -1, -1, 0, len(game.reserve[t]))
    cost = game.rules.altar_cost if paid else 0
    tok, supply = after_paying(game, p, x if cost > 0 else -1, cost)
    points = f1 = f3 = 0
    if not paid or game.rules.altar_repeat:
        e = space.effect
        if e == L.TE_ANY:
            f1 = space.amount
        elif e == L.TE_POINTS:
            points = space.amount
        elif e == L.TE_TILE_POINTS:
            points = space.amount * tok[x]
        else:
            if e == L.TE_RUNE_TOKEN:
                f3 = min(space.amount, len(game.stack))
            amount = space.amount if e == L.TE_TILE_TOKENS else space.amount2
            f1 = min(amount, supply[x])
            tok[x] += f1
    return row(L.OPT_TREE, t, x, x if cost > 0 else -1, points, f1, 0, f3, tok[x])


def offer_rows(game: Game, p: int) -> list[tuple[int, ...]]:
    """STEP_OFFER: card spaces, then tree spaces, else OPT_PASS."""
    rows = []
    for i, c in enumerate(game.slots):
        if c < 0:
            continue
        for s, sp in enumerate(game.rules.cards[c].spaces):
            o = game.occ[i][s]
            if not (o == -1 or (game.occupied_ok and game.may_join(o, game.occ2[i][s], p))):
                continue
            for pay in cost_colours(game, p, sp.cost):
                rows.append(card_row(game, p, i, s, pay))
    for t, space in enumerate(game.rules.tree):
        if game.tree_occ[t] != -1 and not (
                game.occupied_ok and game.rules.occ_tree
                and game.may_join(game.tree_occ[t], game.tree_occ2[t], p)):
            continue
        if space.root:
            if game.reserve[t]:
                rows.append(tree_row(game, p, t, -1, False))
        elif game.tree_tile[t] < 0:
            # One row: its columns those of the unused tile colour the player holds most
            # of (ties: the lowest); the tile itself is chosen next (STEP_TILE).
            unused = [x for x in range(game.rules.n_colours) if not game.tile_used[x]]
            best = max(unused, key=lambda x: (game.tokens[p][x], -x))
            r = tree_row(game, p, t, best, False)
            rows.append(r[:L.B] + (-1, -1) + r[L.POINTS:])
        else:
            x = game.tree_tile[t]
            if game.tokens[p][x] >= game.rules.altar_cost:
                rows.append(tree_row(game, p, t, x, True))
    return rows or [row(L.OPT_PASS)]


def tile_rows(game: Game, p: int, t: int) -> list[tuple[int, ...]]:
    """STEP_TILE: every unused Altar tile colour, ascending, valued as its OPT_TREE row."""
    rows = []
    for x in range(game.rules.n_colours):
        if not game.tile_used[x]:
            r = tree_row(game, p, t, x, False)
            rows.append(row(L.OPT_TILE, x, -1, -1, *r[L.POINTS:]))
    return rows


def move_rows(game: Game, p: int, tile: int) -> list[tuple[int, ...]]:
    """STEP_MOVE for a move Rune tile: (source, piece, target), ascending; the pieces of a
    space are its first marker, then its second; options.move_piece = "own": only p's."""
    rune = game.rules.runes[tile]
    rows = []
    for i, c in enumerate(game.slots):
        if c < 0 or (rune.kind == L.RUNE_FROM_COLOUR and game.card(i).colour != rune.colour):
            continue
        for s in range(len(game.occ[i])):
            for who in (game.occ[i][s], *game.occ2[i][s]):
                if who == -1 or (who != p and not game.rules.move_any):
                    continue
                for j, d in enumerate(game.slots):
                    if j == i or d < 0:
                        continue
                    target = game.rules.cards[d]
                    if rune.kind == L.RUNE_TO_COLOUR and target.colour != rune.colour:
                        continue
                    for u in range(len(game.occ[j])):
                        if game.occ[j][u] == -1:
                            rows.append(row(L.OPT_MOVE, i * L.MAX_SPACES + s,
                                            j * L.MAX_SPACES + u, who, 0, 0,
                                            game.completes(j, u), 0,
                                            game.tokens[p][target.colour]))
    return rows


def rune_usable(game: Game, p: int, tile: int) -> bool:
    kind = game.rules.runes[tile].kind
    if kind == L.RUNE_GAIN:
        return True
    if kind == L.RUNE_OCCUPIED:
        return (any(game.may_join(o, game.occ2[i][s], p)
                    for i in range(len(game.slots)) for s, o in enumerate(game.occ[i]))
                or (game.rules.occ_tree and any(
                    game.may_join(o, game.tree_occ2[t], p) for t, o in enumerate(game.tree_occ))))
    return bool(move_rows(game, p, tile))


def rune_rows(game: Game, p: int, after: bool = False) -> list[tuple[int, ...]]:
    """STEP_RUNE: no rune, then one row per distinct usable tile in hand (after the
    offering an "occupied" tile has no use, so it is not offered)."""
    rows = [row(L.OPT_NO_RUNE)]
    seen: set[tuple[int, int, int]] = set()
    for h, tile in enumerate(game.hands[p]):
        rune = game.rules.runes[tile]
        key = (rune.kind, rune.colour, rune.amount)
        if key in seen:
            continue
        seen.add(key)
        if rune_usable(game, p, tile) and not (after and rune.kind == L.RUNE_OCCUPIED):
            f1 = min(rune.amount, game.supply[rune.colour]) if rune.kind == L.RUNE_GAIN else 0
            rows.append(row(L.OPT_RUNE, h, tile, rune.kind, 0, f1))
    return rows


def colour_rows(game: Game, p: int, fewest: bool) -> list[tuple[int, ...]]:
    """STEP_TOKEN: colours the supply holds (fewest: those the player holds fewest of)."""
    tok = game.tokens[p]
    colours = [x for x in range(game.rules.n_colours) if game.supply[x] > 0]
    if fewest and colours:
        least = min(tok[x] for x in colours)
        colours = [x for x in colours if tok[x] == least]
    return [row(L.OPT_COLOUR, x, points=tok[x]) for x in colours]


def block_rows(game: Game, p: int) -> list[tuple[int, ...]]:
    """STEP_BLOCK: every free card space, in order."""
    return [row(L.OPT_BLOCK, i, s, -1, int(game.on_card(p, i)), 0, game.completes(i, s), 0,
                game.tokens[p][game.card(i).colour]) for i, s in game.free_spaces()]


# ------------------------------------------------------------------ strategies
def default_params(name: str) -> list[float]:
    from strategies.inori import STRATEGIES

    spec = {s.name: s for s in STRATEGIES}[name]
    return [float(v) for v in spec.vector()]


def greedy(rows: list[tuple[int, ...]], params: list[float], stream: PyStream) -> int:
    """Same as strategies/inori.py greedy: the row with the highest score (ties: its
    `ties`, tests/reference/ties.py)."""
    w_token, w_rune, w_complete, w_cost = params[0], params[1], params[2], params[3]
    scores = []
    for kind, _a, _b, c, points, f1, f2, f3, f4 in rows:
        if kind in (L.OPT_CARD, L.OPT_TREE, L.OPT_TILE):
            score = points + w_token * f1 + w_rune * f3 + w_complete * f2 * f4
            if c >= 0:
                score -= w_cost
        elif kind == L.OPT_RUNE:
            score = w_token * f1 if c == L.RUNE_GAIN else -1.0
        elif kind in (L.OPT_MOVE, L.OPT_BLOCK):
            score = f2 * (f4 + 1.0) * (1.0 if points or kind == L.OPT_MOVE else -0.5)
        elif kind == L.OPT_COLOUR:
            score = float(points)
        elif kind == L.OPT_PASS:
            score = -1e9
        else:
            score = 0.0
        scores.append(score)
    return best_row(scores, params[4], stream)


def planner(rows: list[tuple[int, ...]], pub: list[int], rules: Rules,
            params: list[float], stream: PyStream) -> int:
    import numpy as np

    from strategies.inori import planner as compiled_planner

    opts = np.array(rows, np.int32).reshape(len(rows), L.N_COLS)
    from strategies import MAX_PARAMS

    vec = np.zeros(max(MAX_PARAMS, len(params)), np.float64)  # as the engine passes it
    vec[: len(params)] = params
    return compiled_choice(compiled_planner, opts, len(rows), np.array(pub, np.int32),
                           rules.tables, vec, stream)


# ------------------------------------------------------------------ setup
def setup(game: Game) -> None:
    """docs/inori.md Setup, steps 1-6 (stream 0 in this order)."""
    rules, n = game.rules, game.n
    for x in range(rules.n_colours):
        game.decks[x] = [c for c, card in enumerate(rules.cards)
                         if card.kind == L.JOURNEY and card.colour == x]
        game.shuffle(game.decks[x])
    game.new_start_deck = [c for c, card in enumerate(rules.cards) if card.kind == L.NEW_START]
    game.shuffle(game.new_start_deck)
    game.stack = list(range(len(rules.runes)))
    game.shuffle(game.stack)
    starts = list(rules.start_cards[n])
    game.shuffle(starts)
    for slot in range(rules.start_in_play):
        game.place_card(slot, starts[slot])
        game.event(L.EV_SETUP_CARD, -1, slot, starts[slot])
    dealt = set(starts[: rules.start_in_play])
    game.out_of_game = [c for c, card in enumerate(rules.cards)
                        if card.kind == L.START and c not in dealt]
    for t, space in enumerate(rules.tree):
        if not space.root:
            continue
        if rules.root_random:
            for _ in range(space.amount):
                total = sum(game.supply)
                if total == 0:
                    break
                r = game.deal.randint(total)
                x = 0
                while r >= game.supply[x]:
                    r -= game.supply[x]
                    x += 1
                game.supply[x] -= 1
                game.reserve[t].append(x)
        else:
            for x in space.fixed:
                if game.supply[x] > 0:
                    game.supply[x] -= 1
                    game.reserve[t].append(x)
        res = game.reserve[t]
        game.event(L.EV_ROOT, -1, t, res[0] if res else -1, res[1] if len(res) > 1 else -1)
    game.markers = [rules.markers[n][0]] * n
    game.first = 0
    game.stats[0]["seasons_first"] += 1


# ------------------------------------------------------------------ one turn
Ask = Callable[[int, int, list[tuple[int, ...]]], int]  # (seat, step, rows) -> row


def rune_step(game: Game, p: int, ask: Ask, after: bool = False) -> bool:
    """Play one Rune tile or none (only asked while the player holds a tile); True if one
    was played."""
    rows = rune_rows(game, p, after)
    r = rows[ask(p, L.STEP_RUNE, rows)]
    if r[L.KIND] != L.OPT_RUNE:
        return False
    tile = game.hands[p].pop(r[L.A])
    game.runes_played.append(tile)
    rune = game.rules.runes[tile]
    game.stats[p]["runes_played"][rune.kind] += 1
    game.event(L.EV_RUNE, p, tile, rune.kind)
    if rune.kind == L.RUNE_GAIN:
        game.gain(p, rune.colour, rune.amount)
    elif rune.kind == L.RUNE_OCCUPIED:
        game.occupied_ok = True
    else:
        rows = move_rows(game, p, tile)
        m = rows[ask(p, L.STEP_MOVE, rows)]
        src, dst, who = m[L.A], m[L.B], m[L.C]
        i, s = divmod(src, L.MAX_SPACES)
        if game.occ[i][s] == who:  # the first piece: the lowest further marker moves up
            game.occ[i][s] = game.occ2[i][s].pop(0) if game.occ2[i][s] else -1
        else:
            game.occ2[i][s].remove(who)
        j, u = divmod(dst, L.MAX_SPACES)
        game.occ[j][u] = who  # the piece stays its owner's
        game.event(L.EV_MOVE, p, src, dst, who)
    return True


def card_offering(game: Game, p: int, r: tuple[int, ...], ask: Ask) -> None:
    slot, s, pay = r[L.A], r[L.B], r[L.C]
    sp = game.card(slot).spaces[s]
    game.event(L.EV_CARD, p, slot, s, game.slots[slot])
    if game.occ[slot][s] == -1:
        game.occ[slot][s] = p
    else:
        game.occ2[slot][s] = sorted(game.occ2[slot][s] + [p])
    game.stats[p]["card_offerings"] += 1
    if pay >= 0:
        game.pay(p, pay, 1)
    tok = game.tokens[p]
    e = sp.effect
    if e == L.EF_GAIN:
        game.gain(p, sp.colours[0], sp.amount)
    elif e == L.EF_FEWEST:
        rows = colour_rows(game, p, fewest=True)
        if rows:
            game.gain(p, rows[ask(p, L.STEP_TOKEN, rows)][L.A], sp.amount)
    elif e == L.EF_RUNE:
        game.draw_runes(p, sp.amount)
    elif e == L.EF_DISTINCT:
        game.effect_points(p, sp.amount * sum(1 for v in tok if v > 0), L.SRC_CARD)
    elif e == L.EF_PER_TOKEN:
        game.effect_points(p, sp.amount * specific_count(game.rules, tok, sp.colours),
                           L.SRC_CARD)
    else:
        game.effect_points(p, sp.amount * max(tok), L.SRC_CARD)


def tree_effect(game: Game, p: int, t: int, x: int, ask: Ask) -> None:
    """A Great Tree space's effect with tile colour x."""
    space = game.rules.tree[t]
    e = space.effect
    if e == L.TE_ANY:
        for _ in range(space.amount):
            rows = colour_rows(game, p, fewest=False)
            if not rows:
                break
            game.gain(p, rows[ask(p, L.STEP_TOKEN, rows)][L.A], 1)
    elif e == L.TE_POINTS:
        game.effect_points(p, space.amount, L.SRC_TREE)
    elif e == L.TE_RUNE_TOKEN:
        game.draw_runes(p, space.amount)
        game.gain(p, x, space.amount2)
    elif e == L.TE_TILE_POINTS:
        game.effect_points(p, space.amount * game.tokens[p][x], L.SRC_TREE)
    elif e == L.TE_BLOCK:
        for _ in range(space.amount):
            if game.neutral_left == 0:
                break
            rows = block_rows(game, p)
            if not rows:
                break
            b = rows[ask(p, L.STEP_BLOCK, rows)]
            game.occ[b[L.A]][b[L.B]] = L.NEUTRAL
            game.neutral_left -= 1
            game.stats[p]["neutral"] += 1
            game.event(L.EV_BLOCK, p, b[L.A], b[L.B])
        game.gain(p, x, space.amount2)
    elif e == L.TE_TILE_TOKENS:
        game.gain(p, x, space.amount)


def tree_offering(game: Game, p: int, r: tuple[int, ...], ask: Ask) -> None:
    t, x = r[L.A], r[L.B]
    space = game.rules.tree[t]
    placed = int(not space.root and game.tree_tile[t] < 0)
    if placed:  # the tile is chosen before the TREE event
        rows = tile_rows(game, p, t)
        x = rows[ask(p, L.STEP_TILE, rows)][L.A]
    game.event(L.EV_TREE, p, t, x, placed)
    if game.tree_occ[t] == -1:
        game.tree_occ[t] = p
    else:  # an "occupied" Rune's marker joins it
        game.tree_occ2[t] = sorted(game.tree_occ2[t] + [p])
    game.stats[p]["tree_uses"][t] += 1
    if space.root:
        for y in game.reserve[t]:  # not from the supply; one GAIN event per token
            game.tokens[p][y] += 1
            game.stats[p]["gained"] += 1
            game.event(L.EV_GAIN, p, y, 1)
        game.reserve[t] = []
    elif placed:
        game.tree_tile[t] = x
        game.tile_used[x] = 1
        game.stats[p]["tiles"] += 1
        tree_effect(game, p, t, x, ask)
    else:
        if game.rules.altar_cost > 0:
            game.pay(p, x, game.rules.altar_cost)
        if game.rules.altar_repeat:
            tree_effect(game, p, t, x, ask)


def turn(game: Game, p: int, ask: Ask) -> None:
    game.stats[p]["turns"] += 1
    played = False
    if game.hands[p]:
        played = rune_step(game, p, ask)
    rows = offer_rows(game, p)
    r = rows[ask(p, L.STEP_OFFER, rows)]
    if r[L.KIND] == L.OPT_CARD:
        card_offering(game, p, r, ask)
    elif r[L.KIND] == L.OPT_TREE:
        tree_offering(game, p, r, ask)
    else:
        game.event(L.EV_PASS, p)
        game.passed[p] += 1
        game.stats[p]["passes"] += 1
    if game.rules.rune_after and not played and game.hands[p]:
        rune_step(game, p, ask, after=True)  # options.rune_timing = "before_or_after"
    game.markers[p] -= 1
    game.occupied_ok = False


# ------------------------------------------------------------------ season end
def draw_journey(game: Game, x: int) -> int:
    """The top card of colour x's deck, rebuilding it from the discards when empty."""
    if not game.decks[x] and game.rules.reshuffle and game.discards[x]:
        game.decks[x], game.discards[x] = game.discards[x], []
        game.shuffle(game.decks[x])
        game.event(L.EV_RESHUFFLE, -1, x, len(game.decks[x]))
    return game.decks[x].pop(0) if game.decks[x] else NO_CARD


def score_cards(game: Game, last: bool) -> None:
    """Cards in slot order: score, return the markers, replace (not after the last)."""
    rules = game.rules
    for i, c in enumerate(game.slots):
        if c < 0:
            continue
        card = rules.cards[c]
        complete = all(o >= 0 for o in game.occ[i])
        present = game.present(i)
        if complete:
            game.event(L.EV_COMPLETE, -1, i, c)
            for p in present:
                pts = game.tokens[p][card.colour]
                game.points(p, pts, L.SRC_COMPLETE)
                game.event(L.EV_SCORE, p, i, pts, L.SRC_COMPLETE)
                game.stats[p]["completed"] += 1
                game.stats[p]["completed_cards"][c] += 1
        else:
            game.event(L.EV_INCOMPLETE, -1, i, c)
            if card.kind == L.NEW_START:
                for p in present:
                    pts = game.tokens[p][card.next]
                    game.points(p, pts, L.SRC_NEW_START)
                    game.event(L.EV_SCORE, p, i, pts, L.SRC_NEW_START)
        game.occ[i] = [-1] * len(card.spaces)
        game.occ2[i] = [[] for _ in card.spaces]
        if last:
            continue
        if card.kind == L.JOURNEY:
            game.discards[card.colour].append(c)
        else:
            game.out_of_game.append(c)
        new = draw_journey(game, card.colour if complete else card.next)
        game.place_card(i, new)
        game.event(L.EV_REPLACE, -1, i, c, new)


def fewest_points_player(game: Game) -> int:
    """The player with the fewest points; ties by options.fewest_points_tie."""
    order = [(game.first + k) % game.n for k in range(game.n)]
    least = min(game.score)
    tied = [p for p in order if game.score[p] == least]
    if game.rules.low_tie == L.TIE_TURN_ORDER:
        return tied[0]
    if game.rules.low_tie == L.TIE_REVERSE:
        return tied[-1]
    return tied[game.deal.randint(len(tied))]  # drawn even when only one player is lowest


def season_end(game: Game, ask: Ask) -> bool:
    """End of a season; True when the game is over."""
    rules = game.rules
    last = game.season == rules.seasons - 1
    score_cards(game, last)
    game.tree_occ = [-1] * len(rules.tree)
    game.tree_occ2 = [[] for _ in rules.tree]
    game.neutral_left = rules.neutral
    game.passed = [0] * game.n
    if last:
        return True
    count = rules.markers[game.n][game.season + 1]
    game.markers = [count] * game.n
    for q in range(game.n):
        game.event(L.EV_MARKERS, q, count)
    p = fewest_points_player(game)
    game.first = p
    game.stats[p]["seasons_first"] += 1
    game.event(L.EV_FIRST, p)
    if rules.new_start_join:
        drawn = game.new_start_deck[: rules.new_start_draw]
        del game.new_start_deck[: len(drawn)]
        if drawn:
            rows = [row(L.OPT_NEW_START, c, rules.cards[c].colour, rules.cards[c].next)
                    for c in drawn]
            kept = drawn[ask(p, L.STEP_NEW_START, rows)]
            others = [c for c in drawn if c != kept]
            game.out_of_game.extend(others)
            game.place_card(len(game.slots), kept)
            game.stats[p]["new_starts"] += 1
            game.event(L.EV_NEW_START, p, kept, others[0] if others else -1)
    game.season += 1
    return False


def majorities(game: Game) -> None:
    """End of the game: 1st and 2nd place in tokens of each Altar tile's colour."""
    rules = game.rules
    for t in range(len(rules.tree)):
        x = game.tree_tile[t]
        if x < 0:
            continue
        counts = [game.tokens[p][x] for p in range(game.n)]
        top = max(counts)
        if top < 1:
            continue
        leaders = [p for p in range(game.n) if counts[p] == top]
        for p in leaders:
            game.points(p, rules.maj_first, L.SRC_MAJORITY)
            game.event(L.EV_MAJORITY, p, x, rules.maj_first, 1)
        if len(leaders) > 1:
            continue  # tied for 1st: no second place
        rest = [v for v in counts if v < top]
        second = max(rest) if rest else 0
        if second < 1:
            continue
        for p in range(game.n):
            if counts[p] == second:
                game.points(p, rules.maj_second, L.SRC_MAJORITY)
                game.event(L.EV_MAJORITY, p, x, rules.maj_second, 2)


# ------------------------------------------------------------------ one game
def play(overrides: tuple[str, ...], n: int, master_seed: int, game_index: int,
         lineup_names: list[str], lineup_params: list[list[float]]) -> dict:
    """Play game `game_index` of a run: rotation, seeds and strategies as the engine does."""
    rules = load_rules(overrides)
    rotate = len({(nm, tuple(pv)) for nm, pv in zip(lineup_names, lineup_params,
                                                    strict=True)}) > 1
    deal_index = game_index // n if rotate else game_index
    shift = game_index % n if rotate else 0
    lineup_index = [(s + shift) % n for s in range(n)]
    names = [lineup_names[i] for i in lineup_index]
    params = [lineup_params[i] for i in lineup_index]
    seed = py_game_seed(master_seed, deal_index)
    streams = [PyStream(py_stream_state(seed, 1 + s)) for s in range(n)]
    game = Game.empty(rules, n, seed)
    decisions: list[tuple] = []
    checks: list[tuple] = []
    decision_events: list[int] = []  # events recorded before each decision

    def ask(s: int, step: int, rows: list[tuple[int, ...]]) -> int:
        if names[s] == "greedy":
            c = greedy(rows, params[s], streams[s])
        elif names[s] == "planner":
            c = planner(rows, game.pub(s, step), rules, params[s], streams[s])
        else:
            c = streams[s].randint(len(rows))
        c = c if 0 <= c < len(rows) else 0
        decisions.append((game.season, s, step, rows, c))
        decision_events.append(len(game.events))
        return c

    setup(game)
    game.check("setup", rules.markers[n][0], checks)
    seasons = 0
    while True:
        count = rules.markers[n][game.season]
        p = game.first
        while any(game.markers):
            if game.markers[p] > 0:
                turn(game, p, ask)
                game.check(f"turn of seat {p}", count, checks)
            p = (p + 1) % n
        seasons += 1
        over = season_end(game, ask)
        game.check("season end", 0 if over else rules.markers[n][game.season], checks)
        if over:
            break
    game.event(L.EV_END, -1, seasons)
    majorities(game)
    # Seat compensation (config [compensation], not in the rule text; 0 by default): added
    # to each seat's final score, which ranks the seats.
    scores = [game.score[p] + rules.compensation[p] for p in range(n)]
    # A half point of compensation (compensation.half) ranks above the same whole score;
    # the score stays whole.
    keys = [(scores[p] + rules.half[p] / 2, sum(game.tokens[p]) if rules.win_most_tokens else 0)
            for p in range(n)]
    ranks = [1 + sum(1 for q in range(n) if keys[q] > keys[s]) for s in range(n)]
    winners = ranks.count(1)
    return {
        "decisions": decisions,
        "events": game.events,
        "scores": scores,
        "ranks": ranks,
        "win_share": [1.0 / winners if r == 1 else 0.0 for r in ranks],
        "rounds": seasons,
        "strategy": lineup_index,
        "tokens": [list(t) for t in game.tokens],
        "stats": game.stats,
        "checks": checks,
        "seasons": rules.seasons,
        "decision_events": decision_events,
    }
