"""Cauldron Master config -> validated numpy tables for the kernel.

Tables are kernel arguments, never globals, so a `--set` override takes effect without
recompiling.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.config import GameConfig, Reader

from . import layout as L

TIE_BREAKS = ("shared", "most_potions", "hecate")  # layout.TIE_* in this order
RECIPE_MATCHES = ("contains", "exact")
RECIPE_CHOICES = ("best", "player")  # layout.RECIPE_* in this order
END_TRIGGERS = ("cannot_refill", "deck_empty")
COMPENSATION_MAX = 1000  # compensation.points: each seat's entry in -1000..1000


class Tables(NamedTuple):
    """Everything the kernel needs to know about the rules, as five arrays.

    Few fields on purpose: numba passes a tuple's arrays one by one on every call. The
    column layouts are in layout.py (TY_*, WI_*, RE_*, RU_*); the properties below give
    Python code (tools, the reference implementation, tests) the same data by name.
    """

    types: np.ndarray  # int64[T, TY_COLS]
    witch: np.ndarray  # int64[W, WI_COLS]
    recipe: np.ndarray  # int64[R, MAX_RECIPES, RE_COLS]
    rules: np.ndarray  # int64[RU_SIZE]
    deck: np.ndarray  # int64[cards]: ingredient type of each card, unshuffled

    n_colours = property(lambda self: int(self.rules[L.RU_COLOURS]))
    n_types = property(lambda self: self.types.shape[0])
    colour = property(lambda self: self.types[:, L.TY_COLOUR])
    value_order = property(lambda self: self.types[:, L.TY_ORDER])
    score = property(lambda self: self.types[:, L.TY_SCORE:])  # [t, k] for k cards
    initiative = property(lambda self: self.witch[:, L.WI_INIT])
    max_cards = property(lambda self: self.witch[:, L.WI_MAX])
    colour_limit = property(
        lambda self: self.witch[:, L.WI_LIMIT: L.WI_LIMIT + self.n_colours])
    capacity = property(
        lambda self: self.rules[L.RU_CAP: L.RU_CAP + int(self.rules[L.RU_CAULDRONS])])
    recipe_bonus = property(lambda self: self.recipe[:, :, L.RE_BONUS])
    recipe_size = property(lambda self: self.recipe[:, :, L.RE_SIZE])
    recipe_need_len = property(lambda self: self.recipe[:, :, L.RE_NLEN])
    recipe_need_type = property(lambda self: self.recipe[:, :, L.RE_NTYPE: L.RE_NCOUNT])
    recipe_need_count = property(lambda self: self.recipe[:, :, L.RE_NCOUNT: L.RE_CTOTAL])
    recipe_colour_total = property(
        lambda self: self.recipe[:, :, L.RE_CTOTAL: L.RE_CTOTAL + self.n_colours])
    recipe_types = property(
        lambda self: self.recipe[:, :, L.RE_TYPES: L.RE_TYPES + self.n_types])
    recipe_colours = property(
        lambda self: self.recipe[:, :, L.RE_COLOURS: L.RE_COLOURS + self.n_colours])
    supply_size = property(lambda self: self.rules[L.RU_SUPPLY: L.RU_SUPPLY + L.MAX_PLAYERS + 1])
    compulsory = property(lambda self: bool(self.rules[L.RU_COMPULSORY]))
    recipe_exact = property(lambda self: bool(self.rules[L.RU_EXACT]))
    recipe_choice = property(lambda self: RECIPE_CHOICES[int(self.rules[L.RU_RECIPE_CHOICE])])
    tie_break = property(lambda self: TIE_BREAKS[int(self.rules[L.RU_TIE_BREAK])])
    end_on_empty_deck = property(lambda self: bool(self.rules[L.RU_END_EMPTY]))
    max_rounds = property(lambda self: int(self.rules[L.RU_MAX_ROUNDS]))
    compensation = property(lambda self: self.rules[L.RU_COMP: L.RU_COMP + L.MAX_PLAYERS])
    half = property(lambda self: self.rules[L.RU_HALF: L.RU_HALF + L.MAX_PLAYERS])


class Names(NamedTuple):
    """Display names and ids, for logs and result columns."""

    colours: list[str]
    ingredient_ids: list[str]
    ingredients: list[str]
    witch_ids: list[str]
    witches: list[str]
    recipe_ids: list[str]
    recipes: list[str]
    players: list[int]


def compile_tables(config: GameConfig) -> tuple[Tables, Names]:
    """Validate the config and build the kernel tables; errors name file, key and value."""
    r = Reader(config)
    players = r.get("game.players")
    if not isinstance(players, list) or not players or not all(
        isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= L.MAX_PLAYERS for p in players
    ):
        raise r.error("game.players", players,
                      f"expected a list of player counts in 2..{L.MAX_PLAYERS}")
    colours = r.get("game.colours")
    if not isinstance(colours, list) or not 1 <= len(colours) <= L.MAX_COLOURS:
        raise r.error("game.colours", colours,
                      f"expected a list of 1..{L.MAX_COLOURS} colour names")
    caps = r.get("cauldrons.sizes")
    if not isinstance(caps, list) or not 1 <= len(caps) <= L.MAX_CAULDRONS or not all(
        isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= L.MAX_CAPACITY for c in caps
    ):
        raise r.error("cauldrons.sizes", caps,
                      f"expected 1..{L.MAX_CAULDRONS} sizes in 1..{L.MAX_CAPACITY}")
    max_cap = max(caps)

    ingredients = r.table_list("ingredients", 1, L.MAX_TYPES)
    n_types = len(ingredients)
    colour = np.zeros(n_types, np.int64)
    score = np.zeros((n_types, L.MAX_CAPACITY + 1), np.int64)
    deck: list[int] = []
    for t, ing in enumerate(ingredients):
        key = f"ingredients.{ing['id']}"
        colour[t] = colours.index(r.choice("colour", colours, ing, f"{key}.colour"))
        deck += [t] * r.int("copies", 1, 60, ing, f"{key}.copies")
        points = r.get("scores", ing)
        if not isinstance(points, list) or len(points) < max_cap or not all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 1000 for x in points
        ):
            raise r.error(f"{key}.scores", points,
                          f"expected {max_cap} (largest cauldron) scores in 0..1000")
        score[t, 1 : len(points) + 1] = points[: L.MAX_CAPACITY]
    if len(deck) > L.MAX_CARDS:
        raise r.error("ingredients", len(deck),
                      f"at most {L.MAX_CARDS} ingredient cards in total")

    use_amateur = r.bool("options.amateur_witch")
    witches = [w for w in r.table_list("witches", 1, L.MAX_WITCHES)
               if use_amateur or not w.get("optional", False)]
    n_w = len(witches)
    initiative = np.zeros(n_w, np.int64)
    max_cards = np.zeros(n_w, np.int64)
    colour_limit = np.zeros((n_w, len(colours)), np.int64)
    for w, witch in enumerate(witches):
        key = f"witches.{witch['id']}"
        initiative[w] = r.int("initiative", 0, 99, witch, f"{key}.initiative")
        max_cards[w] = r.int("max_cards", 1, sum(caps), witch, f"{key}.max_cards")
        limits = r.get("colour_limits", witch)
        if not isinstance(limits, dict):
            raise r.error(f"{key}.colour_limits", limits, "expected a table like { red = 1 }")
        for name in limits:
            if name not in colours:
                raise r.error(f"{key}.colour_limits.{name}", limits[name],
                              f"unknown colour; known: {', '.join(colours)}")
            colour_limit[w, colours.index(name)] = r.int(
                name, 0, 99, limits, f"{key}.colour_limits.{name}")

    ids = [i["id"] for i in ingredients]
    cards = r.table_list("recipe_cards", 1, L.MAX_RECIPE_CARDS)
    n_r = len(cards)
    recipe_types = np.zeros((n_r, L.MAX_RECIPES, n_types), np.int64)
    recipe_colours = np.zeros((n_r, L.MAX_RECIPES, len(colours)), np.int64)
    recipe_bonus = np.zeros((n_r, L.MAX_RECIPES), np.int64)
    for c, card in enumerate(cards):
        key = f"recipe_cards.{card['id']}.recipes"
        recipes = r.get("recipes", card)
        if not isinstance(recipes, list) or not 1 <= len(recipes) <= L.MAX_RECIPES:
            raise r.error(key, recipes, f"expected 1..{L.MAX_RECIPES} recipes")
        for j, recipe in enumerate(recipes):
            rkey = f"{key}.{j}"
            if not isinstance(recipe, dict):
                raise r.error(rkey, recipe, "expected a table with ingredients/colours and bonus")
            unknown = set(recipe) - {"ingredients", "colours", "bonus"}
            if unknown:
                raise r.error(f"{rkey}.{sorted(unknown)[0]}", None,
                              "unknown key; use ingredients, colours, bonus")
            # 0: a recipe worth nothing (how `simkit value` blanks a card)
            recipe_bonus[c, j] = r.int("bonus", 0, 100, recipe, f"{rkey}.bonus")
            for part, names, target in (("ingredients", ids, recipe_types),
                                        ("colours", colours, recipe_colours)):
                need = recipe.get(part, {})
                if not isinstance(need, dict):
                    raise r.error(f"{rkey}.{part}", need, "expected a table like { name = 2 }")
                for name, count in need.items():
                    if name not in names:
                        raise r.error(f"{rkey}.{part}.{name}", count,
                                      f"unknown name; known: {', '.join(names)}")
                    target[c, j, names.index(name)] = r.int(
                        name, 1, max_cap, need, f"{rkey}.{part}.{name}")
            size = recipe_types[c, j].sum() + recipe_colours[c, j].sum()
            if size == 0 or size > max_cap:
                raise r.error(rkey, recipe, f"a recipe needs 1..{max_cap} cards (largest cauldron)")

    # Compact forms for the kernel's recipe check: the specific ingredients as a short
    # list, and per colour the total cards of that colour the recipe needs (its colour
    # icons plus its specific ingredients of that colour).
    need_type = np.zeros((n_r, L.MAX_RECIPES, L.MAX_TYPES), np.int64)
    need_count = np.zeros((n_r, L.MAX_RECIPES, L.MAX_TYPES), np.int64)
    need_len = np.zeros((n_r, L.MAX_RECIPES), np.int64)
    colour_total = recipe_colours.copy()
    for c in range(n_r):
        for j in range(L.MAX_RECIPES):
            for x in np.flatnonzero(recipe_types[c, j]):
                need_type[c, j, need_len[c, j]] = x
                need_count[c, j, need_len[c, j]] = recipe_types[c, j, x]
                need_len[c, j] += 1
                colour_total[c, j, colour[x]] += recipe_types[c, j, x]
    recipe_size = recipe_types.sum(axis=2) + recipe_colours.sum(axis=2)

    supply_size = np.zeros(L.MAX_PLAYERS + 1, np.int64)
    sizes = r.get("supply.size")
    for p in players:
        supply_size[p] = r.int(str(p), 1, len(deck), sizes, f"supply.size.{p}")
        if supply_size[p] > len(deck):
            raise r.error(f"supply.size.{p}", supply_size[p], "larger than the deck")

    n_colours = len(colours)
    types = np.zeros((n_types, L.TY_COLS), np.int64)
    types[:, L.TY_COLOUR] = colour
    types[:, L.TY_ORDER] = np.argsort(-score[:, 1], kind="stable")
    types[:, L.TY_SCORE:] = score
    witch = np.zeros((n_w, L.WI_COLS), np.int64)
    witch[:, L.WI_INIT] = initiative
    witch[:, L.WI_MAX] = max_cards
    witch[:, L.WI_LIMIT: L.WI_LIMIT + n_colours] = colour_limit
    recipe = np.zeros((n_r, L.MAX_RECIPES, L.RE_COLS), np.int64)
    recipe[:, :, L.RE_BONUS] = recipe_bonus
    recipe[:, :, L.RE_SIZE] = recipe_size
    recipe[:, :, L.RE_NLEN] = need_len
    recipe[:, :, L.RE_NTYPE: L.RE_NCOUNT] = need_type
    recipe[:, :, L.RE_NCOUNT: L.RE_CTOTAL] = need_count
    recipe[:, :, L.RE_CTOTAL: L.RE_CTOTAL + n_colours] = colour_total
    recipe[:, :, L.RE_TYPES: L.RE_TYPES + n_types] = recipe_types
    recipe[:, :, L.RE_COLOURS: L.RE_COLOURS + n_colours] = recipe_colours
    rules = np.zeros(L.RU_SIZE, np.int64)
    rules[L.RU_COLOURS] = n_colours
    rules[L.RU_CAULDRONS] = len(caps)
    rules[L.RU_COMPULSORY] = r.bool("options.picking_compulsory")
    rules[L.RU_EXACT] = r.choice("options.recipe_match", RECIPE_MATCHES) == "exact"
    rules[L.RU_RECIPE_CHOICE] = RECIPE_CHOICES.index(
        r.choice("options.recipe_choice", RECIPE_CHOICES))
    rules[L.RU_TIE_BREAK] = TIE_BREAKS.index(r.choice("options.tie_break", TIE_BREAKS))
    rules[L.RU_END_EMPTY] = r.choice("options.end_trigger", END_TRIGGERS) == "deck_empty"
    rules[L.RU_MAX_ROUNDS] = r.int("options.max_rounds", 1, 10_000)
    rules[L.RU_CAP: L.RU_CAP + len(caps)] = caps
    rules[L.RU_BAN_SEAT: L.RU_BAN_TYPE + 1] = -1  # no restricted play
    rules[L.RU_SUPPLY: L.RU_SUPPLY + L.MAX_PLAYERS + 1] = supply_size
    rules[L.RU_COMP: L.RU_COMP + L.MAX_PLAYERS] = r.int_list(
        "compensation.points", L.MAX_PLAYERS, -COMPENSATION_MAX, COMPENSATION_MAX)
    rules[L.RU_HALF: L.RU_HALF + L.MAX_PLAYERS] = r.int_list(
        "compensation.half", L.MAX_PLAYERS, 0, 1)
    tables = Tables(types=types, witch=witch, recipe=recipe, rules=rules,
                    deck=np.array(deck, np.int64))
    names = Names(
        colours=list(colours),
        ingredient_ids=ids,
        ingredients=[str(i.get("name", i["id"])) for i in ingredients],
        witch_ids=[w["id"] for w in witches],
        witches=[str(w.get("name", w["id"])) for w in witches],
        recipe_ids=[c["id"] for c in cards],
        recipes=[str(c.get("name", c["id"])) for c in cards],
        players=sorted(players),
    )
    if n_r < max(players):
        raise r.error("recipe_cards", n_r,
                      f"need at least one recipe card per player ({max(players)})")
    return tables, names
