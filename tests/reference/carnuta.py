"""Plain-Python reference implementation of the Carnuta rules (a test oracle).

Written from the rule text (/work/shared/rules/carnuta.txt), independently of the numba
kernel (simkit/games/carnuta/ is deliberately NOT imported). The
rules logic uses plain lists and ints; numbers and cards come from the config via
`compile_tables`, converted to Python lists.

What the reference shares with the kernel by convention (not by rule):
  * randomness: the splitmix64 streams of simkit.rng (Python twins); stream 0 shuffles
    the Day deck, the Night deck, the starting cards, then every rebuilt deck; stream
    1 + seat drives that seat's strategy;
  * seat 0 holds the Ancestor; display slots 0-3 are Day, 4-7 Night;
  * the option table (layout.py) and its canonical row order; the event records;
  * each cost icon is paid by a different rune; a deck is rebuilt from its discards when
    a card must be drawn from it while empty; the counter gains every space it passes;
  * strategies "random" and "greedy" (re-implemented here), "planner" (called through its
    compiled function with a `pub` array built per layout.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from simkit.config import load_config
from simkit.games.carnuta import layout as L
from simkit.games.carnuta.config import compile_tables
from simkit.rng import PyStream, py_game_seed, py_stream_state

from .ties import best_row, compiled_choice

SUN, MOON = 0, 1
SET_KINDS = ("set3", "set2")
LINEAR_KINDS = ("each", "two_types")
FLAT_KINDS = ("flat5", "flat2")


@dataclass(frozen=True)
class Card:
    ingredient: int  # -1: Salt
    deck: int  # 0 Day, 1 Night, 2 starting card
    kind: str  # normal, double, salt
    cost: dict[str, int]  # icon -> count
    score: str  # one of the seven kinds
    listed: list[int]
    points: int

    @property
    def amount(self) -> int:
        return 2 if self.kind == "double" else 1

    def needs(self) -> tuple[int, int]:
        """(Sun runes, Moon runes) the cost needs, one rune per icon."""
        return (self.cost["sun_flip"] + self.cost["sun_return"],
                self.cost["moon_flip"] + self.cost["moon_return"])


@dataclass(frozen=True)
class Rules:
    cards: list[Card]
    n_ingredient_cards: int
    n_types: int
    tokens: list[int]
    reserve: dict[int, tuple[int, int]]
    spaces: int
    padlocked: int
    start_sun: int
    start_moon: int
    sickles: int
    hand_limit: int
    padlock_at: list[int]
    bonus_at: list[int]
    top: int
    end_cards: int
    flip_some: bool
    take_choose: bool
    final_turns: bool
    start_counts: bool
    salt_on_start: bool
    sickle_after: bool
    tie_best: bool
    max_rounds: int
    compensation: list[int]  # points added to each seat's final score ([compensation])
    half: list[int]  # 1: half a point more, only to break ties (compensation.half)
    tables: Any  # numpy Tables, only for calling the compiled planner


@cache
def load_rules(overrides: tuple[str, ...] = ()) -> Rules:
    config = load_config("carnuta", overrides=overrides)
    t, _names = compile_tables(config)
    cards = []
    for c in range(len(t.card)):
        cards.append(Card(
            ingredient=int(t.card_ingredient[c]), deck=int(t.card_deck[c]),
            kind=L.CARD_KINDS[int(t.card_kind[c])],
            cost={icon: int(t.cost[c][i]) for i, icon in enumerate(L.COST_ICONS)},
            score=L.SCORE_KINDS[int(t.score_kind[c])],
            listed=[int(x) for x in t.score_ingredients[c] if x >= 0],
            points=int(t.score_points[c])))
    return Rules(
        cards=cards, n_ingredient_cards=t.n_ingredient_cards, n_types=t.n_types,
        tokens=[int(v) for v in t.tokens],
        reserve={p: (int(t.reserve[p][0]), int(t.reserve[p][1])) for p in range(2, 5)},
        spaces=t.spaces, padlocked=t.padlocked, start_sun=t.start_sun,
        start_moon=t.start_moon, sickles=t.sickles, hand_limit=t.hand_limit,
        padlock_at=[int(v) for v in t.track_padlock], bonus_at=[int(v) for v in t.track_bonus],
        top=t.track_top, end_cards=t.end_cards, flip_some=t.flip_some,
        take_choose=t.take_choose, final_turns=t.final_turns, start_counts=t.start_counts,
        salt_on_start=bool(t.salt_base[t.n_ingredient_cards:].all()),
        sickle_after=t.sickle_after, tie_best=t.tie_best_ingredient, max_rounds=t.max_rounds,
        compensation=list(config.data["compensation"]["points"]),
        half=list(config.data["compensation"]["half"]), tables=t)


# ------------------------------------------------------------------ scoring
def line_points(rules: Rules, card: Card, column: int, counts: list[int]) -> int:
    """Scoring: the points one card's line is worth with these ingredient counts."""
    if card.score in FLAT_KINDS:  # "5 points flat", "2 points flat"
        return card.points
    if card.score == "own":  # "1 point per ingredient shown (including the card itself)"
        return card.points * counts[column]
    if card.score in LINEAR_KINDS:  # "2 points for each of ...", "1 point per ... of each"
        return card.points * sum(counts[x] for x in card.listed)
    # "6 points for each set of 3 specific ingredients", "4 ... set of 2"
    return card.points * min(counts[x] // card.listed.count(x) for x in card.listed)


def column_counts(rules: Rules, tableau: list[tuple[int, int]], tokens: list[int]) -> list[int]:
    """Ingredients per column: Double counts 2, Salt 1 of its column, tokens 1 each."""
    counts = list(tokens)
    for c, col in tableau:
        counts[col] += rules.cards[c].amount
    return counts


def score_tableau(rules: Rules, tableau: list[tuple[int, int]], tokens: list[int]) -> int:
    counts = column_counts(rules, tableau, tokens)
    return sum(line_points(rules, rules.cards[c], col, counts) for c, col in tableau)


# ------------------------------------------------------------------ state
class Player:
    def __init__(self, rules: Rules) -> None:
        self.sun = rules.start_sun
        self.moon = rules.start_moon
        self.open = rules.spaces - rules.padlocked
        self.sickles = rules.sickles
        self.played = 0
        self.counter = 0
        self.hand: list[int] = []
        self.tableau: list[tuple[int, int]] = []  # (card, column), starting card first
        self.tokens = [0] * rules.n_types

    def score(self, rules: Rules) -> int:
        return score_tableau(rules, self.tableau, self.tokens)

    def gain(self, rules: Rules, card: int, column: int) -> int:
        before = self.score(rules)
        return score_tableau(rules, self.tableau + [(card, column)], self.tokens) - before

    def columns(self, rules: Rules) -> list[int]:
        """Columns where a Salt card may be stacked: "on top of a card already played" (the
        starting card too, with options.salt_on_starting_card)."""
        return sorted({col for i, (_, col) in enumerate(self.tableau)
                       if i > 0 or rules.salt_on_start})

    def best_gain(self, rules: Rules, card: int) -> tuple[int, int]:
        """(gain, column) of playing card now; Salt on its best column (first on ties)."""
        c = rules.cards[card]
        if c.kind != "salt":
            return self.gain(rules, card, c.ingredient), c.ingredient
        best, where = None, -1
        for col in self.columns(rules):
            g = self.gain(rules, card, col)
            if best is None or g > best:
                best, where = g, col
        return (best, where) if best is not None else (0, -1)

    def can_pay(self, rules: Rules, card: int) -> bool:
        sun, moon = rules.cards[card].needs()
        return self.sun >= sun and self.moon >= moon

    def unpaid(self, rules: Rules, card: int) -> int:
        sun, moon = rules.cards[card].needs()
        return max(0, sun - self.sun) + max(0, moon - self.moon)


class Game:
    def __init__(self, rules: Rules, n: int, seed: int) -> None:
        self.rules = rules
        self.n = n
        self.deal = PyStream(py_stream_state(seed, 0))
        self.players = [Player(rules) for _ in range(n)]
        self.decks: list[list[int]] = [[], []]  # draw from the front
        self.discards: list[list[int]] = [[], []]
        self.display = [-1] * L.N_SLOTS
        self.reserve = [0, 0]
        self.tokens = list(rules.tokens)
        self.round = 0
        self.triggered = False
        self.final = False
        self.events: list[tuple[int, ...]] = []

    def event(self, *ev: int) -> None:
        self.events.append((self.round, *ev))

    def shuffle(self, items: list[int]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.deal.randint(i + 1)
            items[i], items[j] = items[j], items[i]

    def draw(self, d: int) -> int:
        """"If a deck runs out, shuffle all cards of that type from the discard pile"."""
        if not self.decks[d]:
            if not self.discards[d]:
                return -1
            self.decks[d] = self.discards[d]
            self.discards[d] = []
            self.shuffle(self.decks[d])
            self.event(L.EV_RESHUFFLE, -1, d, len(self.decks[d]), 0)
        return self.decks[d].pop(0)

    def reveal(self, slot: int) -> None:
        d = slot // L.SLOTS_PER_ROW
        self.display[slot] = self.draw(d)
        self.event(L.EV_REVEAL, -1, slot, self.display[slot], len(self.decks[d]))

    def discard(self, card: int) -> None:
        self.discards[self.rules.cards[card].deck].append(card)

    def card_total(self) -> int:
        """Ingredient cards accounted for: decks, display, hands, tableaux, discards."""
        return (sum(map(len, self.decks)) + sum(1 for c in self.display if c >= 0)
                + sum(len(p.hand) for p in self.players) + sum(map(len, self.discards))
                + sum(sum(1 for c, _ in p.tableau if c < self.rules.n_ingredient_cards)
                      for p in self.players))

    def rune_total(self) -> int:
        return sum(self.reserve) + sum(p.sun + p.moon for p in self.players)

    def pub(self, seat: int, step: int, actions_left: int) -> list[int]:
        """The public state in the kernel's flat layout (layout.py), for the planner."""
        pub = [0] * L.PUB_SIZE
        pub[L.SEAT], pub[L.N_PLAYERS], pub[L.ROUND], pub[L.STEP] = seat, self.n, self.round, step
        pub[L.ACTIONS_LEFT] = actions_left
        pub[L.TRIGGERED], pub[L.FINAL] = int(self.triggered), int(self.final)
        for d in range(2):
            pub[L.DECK_LEFT + d] = len(self.decks[d])
            pub[L.DISCARDS + d] = len(self.discards[d])
            pub[L.RESERVE + d] = self.reserve[d]
        for s, c in enumerate(self.display):
            pub[L.DISPLAY + s] = c
        for x in range(L.MAX_TYPES):
            pub[L.TOKENS + x] = self.tokens[x] if x < self.rules.n_types else -1
        for p, pl in enumerate(self.players):
            def at(field: int, p: int = p) -> int:
                return L.PLAYER + p * L.PLAYER_SIZE + field
            pub[at(L.P_SUN)], pub[at(L.P_MOON)], pub[at(L.P_OPEN)] = pl.sun, pl.moon, pl.open
            pub[at(L.P_SICKLES)], pub[at(L.P_PLAYED)] = pl.sickles, pl.played
            pub[at(L.P_HAND_N)], pub[at(L.P_SCORE)] = len(pl.hand), pl.score(self.rules)
            pub[at(L.P_N_CARDS)] = len(pl.tableau)
            for i, c in enumerate(pl.hand):
                pub[at(L.P_HAND + i)] = c
            for x, v in enumerate(column_counts(self.rules, pl.tableau, pl.tokens)):
                pub[at(L.P_COUNT + x)] = v
            for x, v in enumerate(pl.tokens):
                pub[at(L.P_TOKENS + x)] = v
            for i, (c, col) in enumerate(pl.tableau):
                pub[at(L.P_CARDS + i)] = c
                pub[at(L.P_COLUMN + i)] = col
        return pub


# ------------------------------------------------------------------ options
def row(kind: int, a: int = -1, b: int = -1, c: int = -1, points: int = 0, f1: int = 0,
        f2: int = 0, f3: int = 0) -> tuple[int, ...]:
    return (kind, a, b, c, points, f1, f2, f3)


def sickle_rows(game: Game, p: int) -> list[tuple[int, ...]]:
    """Sickle (free action): a Sickle token left and cards in the row to discard."""
    pl = game.players[p]
    rows = []
    if pl.sickles > 0:
        for d in range(2):
            if any(c >= 0 for c in game.display[d * 4: d * 4 + 4]):
                rows.append(row(L.OPT_SICKLE, d))
    return rows


def action_options(game: Game, p: int) -> list[tuple[int, ...]]:
    rules, pl = game.rules, game.players[p]
    rows = []
    # Take a Card: "Take 1 of the 8 visible cards".
    for s, c in enumerate(game.display):
        if c >= 0:
            g, col = pl.best_gain(rules, c)
            rows.append(row(L.OPT_TAKE, s, c, col, g, int(pl.can_pay(rules, c)),
                            pl.unpaid(rules, c), sum(rules.cards[c].cost.values())))
    # Play a Card: pay its rune cost; Salt "on top of a card already played".
    for h, c in enumerate(pl.hand):
        if not pl.can_pay(rules, c):
            continue
        card = rules.cards[c]
        flips = card.cost["sun_flip"] + card.cost["moon_flip"]
        returns = card.cost["sun_return"] + card.cost["moon_return"]
        cols = pl.columns(rules) if card.kind == "salt" else [card.ingredient]
        for col in cols:
            rows.append(row(L.OPT_PLAY, h, c, col, pl.gain(rules, c, col), flips, returns,
                            pl.played + 1))
    # Take Runes: "Fill empty (non-Padlocked) spaces ... only Suns or only Moons".
    empty = pl.open - pl.sun - pl.moon
    for side in (SUN, MOON):
        m = min(empty, game.reserve[side])
        if m > 0:
            for k in (range(1, m + 1) if rules.take_choose else [m]):
                rows.append(row(L.OPT_RUNES, side, k))
    # Flip Runes: "so they show only one type" (or, option "some", any number of one side).
    for side in (SUN, MOON):
        other = pl.moon if side == SUN else pl.sun
        if other > 0:
            for k in (range(1, other + 1) if rules.flip_some else [other]):
                rows.append(row(L.OPT_FLIP, side, pl.sun + pl.moon, k))
    if not rows:
        rows.append(row(L.OPT_PASS))
    return rows + sickle_rows(game, p)


# ------------------------------------------------------------------ strategies
def default_params(name: str) -> list[float]:
    from strategies.carnuta import STRATEGIES

    spec = {s.name: s for s in STRATEGIES}[name]
    return [float(v) for v in spec.vector()]


def greedy(rows: list[tuple[int, ...]], params: list[float], stream: PyStream) -> int:
    """Same as strategies/carnuta.py greedy: the row with the highest score (ties: its
    `ties`, tests/reference/ties.py)."""
    scores = []
    for kind, _a, b, _c, points, f1, _f2, _f3 in rows:
        if kind == L.OPT_PLAY:
            score = params[0] * points + 0.5
        elif kind == L.OPT_TAKE:
            score = params[1] * points * (1.0 if f1 else 0.5)
        elif kind == L.OPT_RUNES:
            score = params[2] * b
        elif kind == L.OPT_FLIP:
            score = 0.05
        elif kind == L.OPT_SICKLE:
            score = -1.0
        elif kind == L.OPT_DISCARD:
            score = -float(points)
        elif kind == L.OPT_TOKEN:
            score = float(points)
        else:
            score = 0.0
        scores.append(score)
    return best_row(scores, params[3], stream)


def planner(rows: list[tuple[int, ...]], pub: list[int], rules: Rules,
            params: list[float], stream: PyStream) -> int:
    import numpy as np

    from strategies.carnuta import planner as compiled_planner

    opts = np.zeros((128, L.N_COLS), np.int32)
    opts[: len(rows)] = rows
    from strategies import MAX_PARAMS

    vec = np.zeros(max(MAX_PARAMS, len(params)), np.float64)  # as the engine passes it
    vec[: len(params)] = params
    return compiled_choice(compiled_planner, opts, len(rows), np.array(pub, np.int32),
                           rules.tables, vec, stream)


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
    game = Game(rules, n, seed)
    decisions: list[tuple] = []
    checks: list[tuple] = []
    stats = [dict(played=[0] * rules.n_types, doubles=0, salts=0, sickles=0, taken=0,
                  flipped=0, paid_flip=0, returned=0, turns=0, discarded=0, cards=[],
                  triggered=0) for _ in range(n)]

    def ask(s: int, step: int, rows: list[tuple[int, ...]], actions_left: int) -> int:
        if names[s] == "greedy":
            c = greedy(rows, params[s], streams[s])
        elif names[s] == "planner":
            c = planner(rows, game.pub(s, step, actions_left), rules, params[s], streams[s])
        else:
            c = streams[s].randint(len(rows))
        c = c if 0 <= c < len(rows) else 0
        decisions.append((game.round, s, step, rows, c))
        return c

    def check(label: str) -> None:
        hands_ok = all(len(p.hand) <= rules.hand_limit for p in game.players)
        checks.append((game.round, label, game.card_total(), game.rune_total(), hands_ok,
                       all(p.sun + p.moon <= p.open for p in game.players)))

    # Setup 1-2: Day and Night decks, shuffled separately; reveal 4 of each.
    for c in range(rules.n_ingredient_cards):
        game.decks[rules.cards[c].deck].append(c)
    for d in range(2):
        game.shuffle(game.decks[d])
    for slot in range(L.N_SLOTS):
        game.reveal(slot)
    # Setup 4: the reserve by player count. 5: the Bonus Ingredient tokens (in Game).
    game.reserve = list(rules.reserve[n])
    # Setup 6: shuffle the starting cards, deal 1 face up to each player.
    starts = list(range(rules.n_ingredient_cards, len(rules.cards)))
    game.shuffle(starts)
    for s, pl in enumerate(game.players):
        c = starts[s]
        pl.tableau.append((c, rules.cards[c].ingredient))
        pl.played = 1 if rules.start_counts else 0  # the counter starts on level 1
        pl.counter = min(pl.played, rules.top)
        game.event(L.EV_SETUP, s, c, 0, 0)
    total_cards = game.card_total()
    total_runes = game.rune_total()
    check("setup")

    end_reason = -1
    while True:
        for s, pl in enumerate(game.players):  # clockwise from the Ancestor (seat 0)
            stats[s]["turns"] += 1
            actions = 2
            while actions > 0:
                rows = action_options(game, s)
                r = rows[ask(s, L.STEP_ACTION, rows, actions)]
                kind, a, b, col = r[0], r[1], r[2], r[3]
                if kind == L.OPT_SICKLE:
                    use_sickle(game, s, a, stats)
                    continue
                actions -= 1
                if kind == L.OPT_TAKE:
                    c = game.display[a]
                    pl.hand.append(c)
                    game.event(L.EV_TAKE, s, a, c, 0)
                    game.reveal(a)  # "Immediately replace it"
                elif kind == L.OPT_PLAY:
                    c = pl.hand.pop(a)
                    card = rules.cards[c]
                    sf, mf = card.cost["sun_flip"], card.cost["moon_flip"]
                    sr, mr = card.cost["sun_return"], card.cost["moon_return"]
                    pl.sun, pl.moon = pl.sun - sf - sr + mf, pl.moon - mf - mr + sf
                    game.reserve[SUN] += sr
                    game.reserve[MOON] += mr
                    stats[s]["paid_flip"] += sf + mf
                    stats[s]["returned"] += sr + mr
                    game.event(L.EV_PAY, s, sf + mf, sr + mr, 0)
                    pl.tableau.append((c, col))
                    pl.played += 1
                    st = stats[s]
                    st["played"][col] += 1
                    st["cards"].append(c)
                    st["doubles"] += card.kind == "double"
                    st["salts"] += card.kind == "salt"
                    game.event(L.EV_PLAY, s, c, col, pl.played)
                    if not game.triggered and pl.played >= rules.end_cards:
                        game.triggered = True  # "one player plays their 11th card"
                        st["triggered"] = 1
                        game.event(L.EV_TRIGGER, s, pl.played, 0, 0)
                elif kind == L.OPT_RUNES:
                    game.reserve[a] -= b
                    if a == SUN:
                        pl.sun += b
                    else:
                        pl.moon += b
                    stats[s]["taken"] += b
                    game.event(L.EV_RUNES, s, a, b, 0)
                elif kind == L.OPT_FLIP:
                    k = col
                    if a == SUN:
                        pl.sun, pl.moon = pl.sun + k, pl.moon - k
                    else:
                        pl.sun, pl.moon = pl.sun - k, pl.moon + k
                    stats[s]["flipped"] += k
                    game.event(L.EV_FLIP, s, a, k, 0)
                else:
                    game.event(L.EV_PASS, s, 0, 0, 0)
            # "You may also use a Sickle at any point during your turn."
            while rules.sickle_after:
                sick = sickle_rows(game, s)
                if not sick:
                    break
                rows = [row(L.OPT_END)] + sick
                r = rows[ask(s, L.STEP_END, rows, 0)]
                if r[0] == L.OPT_END:
                    break
                use_sickle(game, s, r[1], stats)
            # End of turn 1: "Discarding down to a maximum of 3 cards in hand."
            while len(pl.hand) > rules.hand_limit:
                rows = []
                for h, c in enumerate(pl.hand):
                    g, _ = pl.best_gain(rules, c)
                    rows.append(row(L.OPT_DISCARD, h, c, -1, g, int(pl.can_pay(rules, c)), 0,
                                    sum(rules.cards[c].cost.values())))
                h = rows[ask(s, L.STEP_DISCARD, rows, 0)][1]
                c = pl.hand.pop(h)
                game.discard(c)
                stats[s]["discarded"] += 1
                game.event(L.EV_DISCARD, s, c, 0, 0)
            # End of turn 2: "Moving your counter to match the number of cards played".
            level = min(pl.played, rules.top)
            for lv in range(pl.counter + 1, level + 1):
                for _ in range(rules.padlock_at[lv]):
                    if pl.open < rules.spaces:
                        pl.open += 1
                        game.event(L.EV_PADLOCK, s, pl.open, lv, 0)
                for _ in range(rules.bonus_at[lv]):
                    before = pl.score(rules)
                    rows = []
                    for x in range(rules.n_types):
                        if game.tokens[x] > 0:
                            pl.tokens[x] += 1
                            rows.append(row(L.OPT_TOKEN, x, -1, -1, pl.score(rules) - before))
                            pl.tokens[x] -= 1
                    if not rows:
                        break
                    x = rows[ask(s, L.STEP_TOKEN, rows, 0)][1]
                    game.tokens[x] -= 1
                    pl.tokens[x] += 1
                    game.event(L.EV_TOKEN, s, x, lv, 0)
            pl.counter = max(pl.counter, level)
            check(f"turn of seat {s}")
        # The round ends with the player to the right of the Ancestor (seat n-1).
        if game.final:
            break
        if game.triggered:
            if not rules.final_turns:
                break
            game.final = True  # "then each player takes one final turn"
        if game.round + 1 >= rules.max_rounds:
            end_reason = -2
            break
        game.round += 1

    game.event(L.EV_END, end_reason, game.round, 0, 0)
    scores, best_col, kind_points, start_points = [], [], [], []
    for s, pl in enumerate(game.players):
        counts = column_counts(rules, pl.tableau, pl.tokens)
        per_col = [0] * rules.n_types
        per_kind = [0] * len(L.SCORE_KINDS)
        sp = 0
        for c, col in pl.tableau:
            pts = line_points(rules, rules.cards[c], col, counts)
            per_col[col] += pts
            per_kind[L.SCORE_KINDS.index(rules.cards[c].score)] += pts
            if c >= rules.n_ingredient_cards:
                sp = pts
            game.event(L.EV_SCORE, s, c, col, pts)
        scores.append(sum(per_col) + rules.compensation[s])  # + seat compensation (config)
        best_col.append(max(per_col))
        kind_points.append(per_kind)
        start_points.append(sp)
    # "Highest score wins. In case of a tie, the player with the most points in a single
    # ingredient wins. If still tied, share the victory."
    # A half point of compensation (compensation.half) ranks above the same whole score
    # (the score stays whole), before the tie-break.
    keys = [(scores[s] + rules.half[s] / 2, best_col[s] if rules.tie_best else 0)
            for s in range(n)]
    ranks = [1 + sum(1 for q in range(n) if keys[q] > keys[s]) for s in range(n)]
    winners = ranks.count(1)
    return {
        "decisions": decisions,
        "events": game.events,
        "scores": scores,
        "ranks": ranks,
        "win_share": [1.0 / winners if r == 1 else 0.0 for r in ranks],
        "rounds": game.round + 1,
        "strategy": lineup_index,
        "starting_card": [starts[s] - rules.n_ingredient_cards for s in range(n)],
        "best_ingredient": best_col,
        "points_by_kind": kind_points,
        "start_points": start_points,
        "stats": stats,
        "tokens": [list(p.tokens) for p in game.players],
        "checks": checks,
        "total_cards": total_cards,
        "total_runes": total_runes,
    }


def use_sickle(game: Game, s: int, d: int, stats: list[dict]) -> None:
    """"Discard a Sickle token to discard all 4 Day or all 4 Night cards from the center
    and reveal 4 new cards from the corresponding deck"."""
    game.players[s].sickles -= 1
    stats[s]["sickles"] += 1
    game.event(L.EV_SICKLE, s, d, 0, 0)
    for slot in range(d * 4, d * 4 + 4):
        if game.display[slot] >= 0:
            game.discard(game.display[slot])
            game.display[slot] = -1
    for slot in range(d * 4, d * 4 + 4):
        game.reveal(slot)
