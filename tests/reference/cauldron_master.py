"""Plain-Python reference implementation of the Cauldron Master rules (a test oracle).

Written from the rule text (/work/shared/rules/cauldron-master.txt), independently of the
numba kernel (simkit/games/cauldron_master/ is deliberately NOT imported). The
rules logic uses plain lists and ints only; numbers and cards come from the config via
`compile_tables`, converted to Python lists. Section names in the comments ("Setup C",
"Phase 3", ...) are the rulebook's.

What the reference shares with the kernel by convention (not by rule):
  * randomness: the splitmix64 streams of simkit.rng (Python twins), stream 0 deals the
    cards, stream 1 + seat drives that seat's strategy;
  * the option table handed to strategies (layout.py): one row per legal option,
    columns KIND, A, B, POINTS, GAIN, SAME, FREE;
  * seat 0 starts with the Favour of Hecate, "left"/"clockwise" means seat + 1;
  * strategies "random" and "greedy" (re-implemented here), "planner" (called through
    its compiled function with a `pub` array built per layout.py);
  * with recipe_choice = "player", the recipe decision's rows (OPT_RECIPE: the recipe's
    place on the card, the cauldron, the potion's points with it, its bonus), asked only
    when two or more recipes match.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from simkit.config import load_config
from simkit.games.cauldron_master import layout as L
from simkit.games.cauldron_master.config import compile_tables
from simkit.games.cauldron_master.layout import (
    GAIN,
    KIND,
    OPT_CARD,
    OPT_RECIPE,
    OPT_STOP,
    OPT_WITCH,
    POINTS,
    A,
    B,
)
from simkit.rng import PyStream, py_game_seed, py_stream_state

from .ties import best_row, compiled_choice

STOP_ROW = (OPT_STOP, -1, -1, 0, 0, 0, 0)


# ------------------------------------------------------------------ rules data
@dataclass(frozen=True)
class Recipe:
    slot: int  # its place on the card (0-based; empty slots are dropped, not renumbered)
    bonus: int
    ingredients: dict[int, int]  # specific ingredient type -> cards needed
    colours: dict[int, int]  # colour icons: colour -> cards of that colour needed

    @property
    def size(self) -> int:
        return sum(self.ingredients.values()) + sum(self.colours.values())


@dataclass(frozen=True)
class Rules:
    """The config's numbers as plain Python data."""

    n_types: int
    n_colours: int
    colour: list[int]  # colour of each ingredient type
    deck: list[int]  # ingredient type of each card, unshuffled
    score: list[list[int]]  # score[x][k] = Spell Points for k cards of type x in a potion
    initiative: list[int]  # per witch
    max_cards: list[int]  # per witch
    colour_limit: list[list[int]]  # per witch, per colour
    capacity: list[int]  # per cauldron
    recipe_cards: list[list[Recipe]]
    supply_size: dict[int, int]  # by player count
    compulsory: bool
    recipe_exact: bool
    recipe_choice: str  # "best" or "player"
    tie_break: str
    end_on_empty_deck: bool
    max_rounds: int
    compensation: list[int]  # points added to each seat's final score ([compensation])
    half: list[int]  # 1: half a point more, only to break ties (compensation.half)
    tables: Any  # the numpy Tables, only for calling the compiled planner strategy

    @property
    def n_witches(self) -> int:
        return len(self.initiative)


@cache
def load_rules(overrides: tuple[str, ...] = ()) -> Rules:
    config = load_config("cauldron-master", overrides=overrides)
    tables, _names = compile_tables(config)
    n_types = len(tables.colour)
    n_colours = len(tables.colour_limit[0])
    cards = []
    for c in range(len(tables.recipe_bonus)):
        recipes = []
        for j in range(len(tables.recipe_bonus[c])):
            bonus = int(tables.recipe_bonus[c][j])
            if bonus == 0:  # empty slot
                continue
            ings = {x: int(v) for x, v in enumerate(tables.recipe_types[c][j]) if v}
            cols = {k: int(v) for k, v in enumerate(tables.recipe_colours[c][j]) if v}
            recipes.append(Recipe(j, bonus, ings, cols))
        cards.append(recipes)
    return Rules(
        n_types=n_types,
        n_colours=n_colours,
        colour=[int(v) for v in tables.colour],
        deck=[int(v) for v in tables.deck],
        score=[[int(v) for v in row] for row in tables.score],
        initiative=[int(v) for v in tables.initiative],
        max_cards=[int(v) for v in tables.max_cards],
        colour_limit=[[int(v) for v in row] for row in tables.colour_limit],
        capacity=[int(v) for v in tables.capacity],
        recipe_cards=cards,
        supply_size={p: int(v) for p, v in enumerate(tables.supply_size) if v},
        compulsory=bool(tables.compulsory),
        recipe_exact=bool(tables.recipe_exact),
        recipe_choice=str(config.data["options"]["recipe_choice"]),
        tie_break=tables.tie_break,
        end_on_empty_deck=bool(tables.end_on_empty_deck),
        max_rounds=int(tables.max_rounds),
        compensation=list(config.data["compensation"]["points"]),
        half=list(config.data["compensation"]["half"]),
        tables=tables,
    )


# ------------------------------------------------------------------ rule helpers
def spell_points(rules: Rules, pot: list[int]) -> int:
    """Phase 4, "Scoring Spell Points": per ingredient type, the points for its count."""
    return sum(rules.score[x][n] for x, n in enumerate(pot) if n > 0)


def recipe_matches(rules: Rules, recipe: Recipe, pot: list[int]) -> bool:
    """Phase 4, "Recipe Card Bonus Points": does the potion `pot` (count per type) fit?

    The specific ingredients must be present; each colour icon must be covered by a card
    of that colour that is not already used for a specific ingredient. With
    recipe_match = "exact" the potion must hold nothing else.
    """
    for x, need in recipe.ingredients.items():
        if pot[x] < need:
            return False
    for c in range(rules.n_colours):
        spare = sum(pot[x] - recipe.ingredients.get(x, 0)
                    for x in range(rules.n_types) if rules.colour[x] == c)
        if spare < recipe.colours.get(c, 0):
            return False
    return not (rules.recipe_exact and sum(pot) != recipe.size)


def matching_recipes(rules: Rules, card: int, pot: list[int]) -> list[Recipe]:
    """The recipes of the card that the potion `pot` matches, in card order."""
    return [r for r in rules.recipe_cards[card] if recipe_matches(rules, r, pot)]


def best_recipe(rules: Rules, card: int, pot: list[int]) -> Recipe | None:
    """Only one recipe of the card scores per potion: with recipe_choice = "best" the
    matching one with the highest bonus (the first of equals; None: none matches)."""
    return max(matching_recipes(rules, card, pot), key=lambda r: r.bonus, default=None)


def recipe_bonus(rules: Rules, card: int, pot: list[int]) -> int:
    """The best matching recipe's bonus (0: none matches)."""
    best = best_recipe(rules, card, pot)
    return best.bonus if best else 0


def potion_value(rules: Rules, card: int, pot: list[int]) -> tuple[int, int]:
    """(spell points, recipe bonus) of a full cauldron holding `pot`."""
    return spell_points(rules, pot), recipe_bonus(rules, card, pot)


def turn_order(initiatives: list[int], hecate: int) -> list[int]:
    """Phase 2: lowest initiative first; ties go to the Favour of Hecate holder, then to the
    player nearest them clockwise (to their left, seat + 1)."""
    n = len(initiatives)
    return sorted(range(n), key=lambda s: (initiatives[s], (s - hecate) % n))


def value_order(rules: Rules) -> list[int]:
    """Ingredient types by one-card score, best first (ties: lower type first)."""
    return sorted(range(rules.n_types), key=lambda x: -rules.score[x][1])


# ------------------------------------------------------------------ game state
class State:
    def __init__(self, rules: Rules, n_players: int) -> None:
        k, t = len(rules.capacity), rules.n_types
        self.rules = rules
        self.n = n_players
        self.deck: list[int] = []  # shuffled ingredient deck; cards [top:] not drawn yet
        self.top = 0
        self.supply = [0] * t  # count per ingredient type
        self.cauldrons = [[[0] * t for _ in range(k)] for _ in range(n_players)]
        self.scored = [[0] * t for _ in range(n_players)]  # cards set aside after brewing
        self.score = [0] * n_players
        self.potions = [0] * n_players
        self.bonus = [0] * n_players
        self.recipe = [0] * n_players
        self.hand = [[True] * rules.n_witches for _ in range(n_players)]
        self.witches_played = [[0] * rules.n_witches for _ in range(n_players)]
        self.hecate = 0
        self.round = 0

    def fill(self, p: int, k: int) -> int:
        return sum(self.cauldrons[p][k])

    def free_space(self, p: int) -> int:
        return sum(cap - self.fill(p, k) for k, cap in enumerate(self.rules.capacity))

    def deck_left(self) -> int:
        return len(self.deck) - self.top

    def card_total(self) -> int:
        return (self.deck_left() + sum(self.supply)
                + sum(sum(pot) for pots in self.cauldrons for pot in pots)
                + sum(sum(s) for s in self.scored))

    def pub(self, seat: int, phase: int, picks_left: int, witch_now: int,
            revealed: list[int], taken: list[int]) -> list[int]:
        """The public state in the kernel's flat layout (layout.py), for the planner."""
        pub = [0] * L.PUB_SIZE
        pub[L.SEAT], pub[L.N_PLAYERS], pub[L.ROUND] = seat, self.n, self.round
        pub[L.HECATE], pub[L.DECK_LEFT], pub[L.PHASE] = self.hecate, self.deck_left(), phase
        pub[L.PICKS_LEFT], pub[L.WITCH_NOW] = picks_left, witch_now
        for x, v in enumerate(self.supply):
            pub[L.SUPPLY + x] = v
        for p in range(self.n):
            pub[L.SCORE + p] = self.score[p]
            pub[L.REVEALED + p] = revealed[p]
            pub[L.RECIPE + p] = self.recipe[p]
            for k, pot in enumerate(self.cauldrons[p]):
                for x, v in enumerate(pot):
                    pub[L.CAULDRON + (p * L.MAX_CAULDRONS + k) * L.MAX_TYPES + x] = v
                pub[L.FILL + p * L.MAX_CAULDRONS + k] = sum(pot)
            for w, held in enumerate(self.hand[p]):
                pub[L.HAND + p * L.MAX_WITCHES + w] = int(held)
        for c, v in enumerate(taken):
            pub[L.TAKEN + c] = v
        return pub


# ------------------------------------------------------------------ options
def witch_options(st: State, p: int) -> list[tuple[int, ...]]:
    """Phase 1 options: each witch still in hand (by id), with the cards it could take now
    (best one-card value first, within its colour limits, its card count and the player's
    free cauldron space) and their one-card value."""
    rules = st.rules
    free = st.free_space(p)
    rows = []
    for w in range(rules.n_witches):
        if not st.hand[p][w]:
            continue
        left = list(rules.colour_limit[w])
        limit = min(rules.max_cards[w], free)
        taken = value = 0
        for x in value_order(rules):
            c = rules.colour[x]
            m = min(st.supply[x], left[c], limit - taken)
            if m > 0:
                taken += m
                left[c] -= m
                value += m * rules.score[x][1]
        rows.append((OPT_WITCH, w, rules.initiative[w], taken, value, 0, 0))
    return rows


def card_options(st: State, p: int, w: int, picks_left: int,
                 taken: list[int]) -> list[tuple[int, ...]]:
    """Phase 3 options: each (cauldron with space, ingredient in the supply the witch may
    still take) pair; then "stop" if picking is not compulsory.

    Row order is cauldron-major (cauldron, then ingredient type), as the kernel does; note
    layout.py's docstring says "cards by ingredient type then cauldron". The order is not
    a rule, but it decides greedy's ties and which row a random index hits.
    """
    rules = st.rules
    rows: list[tuple[int, ...]] = []
    if picks_left > 0:
        for k, cap in enumerate(rules.capacity):
            pot = st.cauldrons[p][k]
            fill = sum(pot)
            if fill >= cap:  # "You may not place cards in excess of this capacity"
                continue
            for x in range(rules.n_types):
                c = rules.colour[x]
                if st.supply[x] == 0 or taken[c] >= rules.colour_limit[w][c]:
                    continue
                after = list(pot)
                after[x] += 1
                same = after[x]
                gain = rules.score[x][same] - rules.score[x][same - 1]
                points = 0
                if fill + 1 == cap:  # this card completes the potion
                    points = sum(potion_value(rules, st.recipe[p], after))
                rows.append((OPT_CARD, x, k, points, gain, same, cap - fill - 1))
    if rows and not rules.compulsory:
        rows.append(STOP_ROW)
    return rows


# ------------------------------------------------------------------ strategies
def default_params(name: str) -> list[float]:
    from strategies.cauldron_master import STRATEGIES

    spec = {s.name: s for s in STRATEGIES}[name]
    return [float(v) for v in spec.vector()]


def greedy(rows: list[tuple[int, ...]], params: list[float], stream: PyStream) -> int:
    """Same as strategies/cauldron_master.py greedy: the row with the highest score (ties:
    its `ties`, tests/reference/ties.py)."""
    scores = []
    for row in rows:
        if row[KIND] in (OPT_WITCH, OPT_RECIPE):  # a recipe: its bonus
            score = float(row[GAIN])
        elif row[KIND] == OPT_CARD:
            score = params[0] * row[POINTS] + params[1] * row[GAIN]
        else:
            score = 0.0
        scores.append(score)
    return best_row(scores, params[2], stream)


def planner(rows: list[tuple[int, ...]], pub: list[int], rules: Rules,
            params: list[float], stream: PyStream) -> int:
    """The compiled planner strategy, called with numpy copies of the option table/state."""
    import numpy as np

    from strategies.cauldron_master import planner as compiled_planner

    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    opts[: len(rows)] = rows
    from strategies import MAX_PARAMS

    vec = np.zeros(max(MAX_PARAMS, len(params)), np.float64)  # as the engine passes it
    vec[: len(params)] = params
    return compiled_choice(compiled_planner, opts, len(rows), np.array(pub, np.int32),
                           rules.tables, vec, stream)


def recipe_progress(t: Any, pub: Any, p: int, k: int, extra: int) -> float:
    """The planner's recipe prospect of seat p's cauldron k (+ a card of type `extra`, -1:
    none): the best bonus * (share of a feasible recipe already in it). A recipe counts
    its named ingredients up to the number it names, then per colour icon the cards of
    that colour beyond those; one larger than the cauldron is not feasible."""
    card = int(pub[L.RECIPE + p])
    base = L.cauldron_at(p, k, 0)
    held = [int(pub[base + x]) + (x == extra) for x in range(t.types.shape[0])]
    best = 0.0
    for j in range(L.MAX_RECIPES):
        bonus = int(t.recipe[card, j, L.RE_BONUS])
        if bonus == 0:
            continue
        named = [int(t.recipe[card, j, L.RE_TYPES + x]) for x in range(len(held))]
        icons = [int(t.recipe[card, j, L.RE_COLOURS + c]) for c in range(t.rules[L.RU_COLOURS])]
        have = sum(min(n, need) for n, need in zip(held, named, strict=True))
        for c, need in enumerate(icons):
            spare = sum(max(0, n - r) for x, (n, r) in enumerate(zip(held, named, strict=True))
                        if t.types[x, L.TY_COLOUR] == c)
            have += min(spare, need)
        size = sum(named) + sum(icons)
        if size <= t.rules[L.RU_CAP + k]:
            best = max(best, bonus * have / size)
    return best


def ask(name: str, params: list[float], rows: list[tuple[int, ...]], stream: PyStream,
        st: State, pub_args: tuple) -> int:
    if name == "greedy":
        c = greedy(rows, params, stream)
    elif name == "planner":
        c = planner(rows, st.pub(*pub_args), st.rules, params, stream)
    elif name == "random":
        c = stream.randint(len(rows))
    else:
        raise ValueError(f"unknown strategy {name!r}")
    return c if 0 <= c < len(rows) else 0


# ------------------------------------------------------------------ one game
def shuffle(items: list[int], stream: PyStream) -> None:
    """Fisher-Yates, last position first."""
    for i in range(len(items) - 1, 0, -1):
        j = stream.randint(i + 1)
        items[i], items[j] = items[j], items[i]


def play(config_overrides: tuple[str, ...], n_players: int, master_seed: int, game: int,
         strategies: list[str], params: list[list[float]] | None = None) -> dict[str, Any]:
    """Play game `game` of a run with seed `master_seed`; `strategies[i]` (with
    `params[i]`) is lineup entry i. Returns the decisions, results and per-phase checks."""
    rules = load_rules(tuple(config_overrides))
    n = n_players
    assert len(strategies) == n
    if params is None:
        params = [default_params(name) for name in strategies]
    params = [list(p) + [0.0] * (8 - len(p)) for p in params]
    # The lineup rotates through the seats over each deal when its entries differ.
    rotate = len({(name, tuple(p)) for name, p in zip(strategies, params, strict=True)}) > 1
    deal_index = game // n if rotate else game
    shift = game % n if rotate else 0
    lineup_index = [(s + shift) % n for s in range(n)]
    seat_name = [strategies[i] for i in lineup_index]
    seat_params = [params[i] for i in lineup_index]

    seed = py_game_seed(master_seed, deal_index)
    deal = PyStream(py_stream_state(seed, 0))
    streams = [PyStream(py_stream_state(seed, 1 + s)) for s in range(n)]

    st = State(rules, n)
    decisions: list[tuple[int, int, int, list[tuple[int, ...]], int]] = []
    checks: list[tuple[int, str, int, bool]] = []  # (round, boundary, cards seen, caps ok)
    orders: list[list[int]] = []
    brewed: list[tuple[int, int, int, int, int]] = []  # (round, seat, cauldron, points, bonus)
    recipes: list[tuple[int, int, int, int, int]] = []  # (round, seat, cauldron, recipe, bonus)
    refills: list[tuple[int, int, int]] = []  # (round, cards drawn, deck left after)
    end: tuple[int, int, int] = (0, 0, 0)  # (round, cards needed, deck left) or (round, -2, 0)

    def check(label: str) -> None:
        caps_ok = all(st.fill(p, k) <= cap for p in range(n)
                      for k, cap in enumerate(rules.capacity))
        checks.append((st.round, label, st.card_total(), caps_ok))

    # Setup C: shuffle the ingredient deck; reveal the supply (8/10/12 cards by players).
    st.deck = list(rules.deck)
    shuffle(st.deck, deal)
    # Setup D: shuffle the recipe cards, deal one face up to each player.
    recipe_deck = list(range(len(rules.recipe_cards)))
    shuffle(recipe_deck, deal)
    supply_size = rules.supply_size[n]
    for x in st.deck[:supply_size]:
        st.supply[x] += 1
    st.top = supply_size
    st.recipe = recipe_deck[:n]
    # Setup A: every player holds every witch. Setup E: seat 0 has the Favour of Hecate.
    st.hecate = 0
    check("setup")

    while True:
        # 1. Select a witch: chosen secretly, revealed together.
        revealed = [-1] * n
        chosen = [0] * n
        for s in range(n):
            rows = witch_options(st, s)
            # TAKEN is 0 here per layout.py (the kernel leaves last turn's counts in it).
            c = ask(seat_name[s], seat_params[s], rows, streams[s], st,
                    (s, L.PHASE_WITCH, 0, -1, revealed, [0] * L.MAX_COLOURS))
            decisions.append((st.round, s, rows[0][KIND], rows, c))
            chosen[s] = rows[c][A]
        revealed = list(chosen)
        for s in range(n):
            st.witches_played[s][chosen[s]] += 1

        # 2. Player order.
        order = turn_order([rules.initiative[w] for w in chosen], st.hecate)
        orders.append(order)

        # 3. Pick ingredient cards, in turn order; no refill between turns.
        for s in order:
            w = chosen[s]
            picks_left = rules.max_cards[w]
            taken = [0] * L.MAX_COLOURS  # cards of each colour taken this turn
            while True:
                rows = card_options(st, s, w, picks_left, taken)
                if not rows:
                    break  # "If the supply does not contain all ... pick up the ones you can"
                c = ask(seat_name[s], seat_params[s], rows, streams[s], st,
                        (s, L.PHASE_PICK, picks_left, w, revealed, taken))
                decisions.append((st.round, s, rows[0][KIND], rows, c))
                row = rows[c]
                if row[KIND] == OPT_STOP:
                    break
                x, k = row[A], row[B]
                st.supply[x] -= 1
                st.cauldrons[s][k][x] += 1
                taken[rules.colour[x]] += 1
                picks_left -= 1
            check(f"turn of seat {s}")

        # 4. Create potions: every full cauldron scores, and its cards are set aside. Only
        # one recipe of the card scores: the best, or (recipe_choice = "player") the one
        # the owner chooses when two or more match.
        for s in range(n):
            for k, cap in enumerate(rules.capacity):
                pot = st.cauldrons[s][k]
                if sum(pot) < cap:
                    continue
                points = spell_points(rules, pot)
                matches = matching_recipes(rules, st.recipe[s], pot)
                if rules.recipe_choice == "player" and len(matches) >= 2:
                    rows = [(OPT_RECIPE, r.slot, k, points + r.bonus, r.bonus, 0, 0)
                            for r in matches]
                    c = ask(seat_name[s], seat_params[s], rows, streams[s], st,
                            (s, L.PHASE_RECIPE, 0, -1, revealed, [0] * L.MAX_COLOURS))
                    decisions.append((st.round, s, OPT_RECIPE, rows, c))
                    scored = matches[c]
                else:
                    scored = best_recipe(rules, st.recipe[s], pot)
                bonus = scored.bonus if scored else 0
                if scored:
                    recipes.append((st.round, s, k, scored.slot, bonus))
                st.score[s] += points + bonus
                st.bonus[s] += bonus
                st.potions[s] += 1
                brewed.append((st.round, s, k, points, bonus))
                for x in range(rules.n_types):
                    st.scored[s][x] += pot[x]
                st.cauldrons[s][k] = [0] * rules.n_types
        check("potions")

        # 5. End of round: replenish the supply; if the deck cannot, the game ends.
        played = st.round + 1
        needed = supply_size - sum(st.supply)
        if needed > st.deck_left():
            end = (st.round, needed, st.deck_left())
            break
        for x in st.deck[st.top: st.top + needed]:
            st.supply[x] += 1
        st.top += needed
        refills.append((st.round, needed, st.deck_left()))
        if rules.end_on_empty_deck and st.deck_left() == 0:  # the Overview's reading
            end = (st.round, -3, 0)
            break
        st.hecate = (st.hecate + 1) % n  # to the player left of the holder
        for s in range(n):
            st.hand[s][chosen[s]] = False  # the used witch is set aside
            if not any(st.hand[s]):  # all set aside: pick them all up again
                st.hand[s] = [True] * rules.n_witches
        check("refill")
        if played >= rules.max_rounds:  # safety stop (options.max_rounds), not a rule
            end = (st.round, -2, 0)
            break
        st.round = played

    # End of game: incomplete cauldrons score nothing; most Spell Points wins. Ties: shared,
    # or more potions, or the Favour of Hecate's holder, then the nearest seat clockwise.
    def tie_key(s: int) -> int:
        if rules.tie_break == "most_potions":
            return st.potions[s]
        if rules.tie_break == "hecate":
            return n - (s - st.hecate) % n
        return 0

    # Seat compensation (config [compensation], not in the rule text; 0 by default): added
    # to each seat's final score, which ranks the seats.
    final = [st.score[s] + rules.compensation[s] for s in range(n)]
    # A half point of compensation (compensation.half) ranks above the same whole score;
    # the score stays whole.
    keys = [(final[s] + rules.half[s] / 2, tie_key(s)) for s in range(n)]
    ranks = [1 + sum(1 for q in range(n) if keys[q] > keys[s]) for s in range(n)]
    winners = ranks.count(1)
    return {
        "decisions": decisions,
        "scores": final,
        "ranks": ranks,
        "win_share": [1.0 / winners if r == 1 else 0.0 for r in ranks],
        "rounds": st.round + 1,
        "potions": list(st.potions),
        "recipe_bonus": list(st.bonus),
        "cards_left": [sum(st.fill(s, k) for k in range(len(rules.capacity)))
                       for s in range(n)],
        "strategy": lineup_index,
        "recipe_card": list(st.recipe),
        "witches_played": st.witches_played,
        "scored_cards": st.scored,
        "turn_orders": orders,
        "potion_log": brewed,
        "recipe_log": recipes,
        "refills": refills,
        "end": end,
        "checks": checks,
        "n_cards": len(rules.deck),
    }
