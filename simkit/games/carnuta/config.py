"""Carnuta config -> validated numpy tables for the kernel.

Tables are kernel arguments, never globals, so a `--set` override takes effect without
recompiling.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from simkit.config import GameConfig, Reader

from . import layout as L

FLIP_RUNES = ("all", "some")
TAKE_RUNES = ("fill", "choose")
TIE_BREAKS = ("best_ingredient", "shared")
DECKS = ("day", "night")
COMPENSATION_MAX = 1000  # compensation.points: each seat's entry in -1000..1000
# Ingredients each scoring kind lists, and the rule text's points for it.
KIND_INGREDIENTS = {"set3": 3, "set2": 2, "each": 1, "two_types": 2, "own": 0, "flat5": 0,
                    "flat2": 0}


class Tables(NamedTuple):
    """Everything the kernel needs to know about the rules, as a few arrays.

    Few fields on purpose: numba passes a tuple's arrays one by one on every call, so a
    short tuple keeps calls cheap. The properties below name the columns for Python code.
    """

    card: np.ndarray  # int64[N, N_CARD_COLS]: one row per card id (layout.py CARD_*)
    rules: np.ndarray  # int64[N_RULES]: numbers and options (layout.py R_*)
    tokens: np.ndarray  # int64[T]: Bonus Ingredient tokens of each type at setup
    reserve: np.ndarray  # int64[MAX_PLAYERS+1, 2]: Sun, Moon in the reserve, by players
    track: np.ndarray  # int64[top+1, 2]: padlocks removed, bonus tokens, at each level

    card_ingredient = property(lambda self: self.card[:, L.CARD_ING])  # -1: Salt
    card_deck = property(lambda self: self.card[:, L.CARD_DECK])  # 0 Day, 1 Night, 2 start
    card_kind = property(lambda self: self.card[:, L.CARD_KIND])  # NORMAL, DOUBLE, SALT
    card_amount = property(lambda self: self.card[:, L.CARD_AMOUNT])  # Double 2, else 1
    cost = property(lambda self: self.card[:, L.CARD_COST: L.CARD_COST + 4])  # COST_ICONS
    cost_icons = property(lambda self: self.card[:, L.CARD_ICONS])
    score_kind = property(lambda self: self.card[:, L.CARD_SCORE])  # SCORE_KINDS index
    score_ingredients = property(
        lambda self: self.card[:, L.CARD_SCORE_ING: L.CARD_SCORE_ING + 3])  # -1 pads
    score_n = property(lambda self: self.card[:, L.CARD_SCORE_N])
    score_points = property(lambda self: self.card[:, L.CARD_POINTS])
    salt_base = property(lambda self: self.card[:, L.CARD_SALT_BASE])  # Salt may go on it
    track_padlock = property(lambda self: self.track[:, 0])
    track_bonus = property(lambda self: self.track[:, 1])

    def rule(self, index: int) -> int:
        return int(self.rules[index])

    n_ingredient_cards = property(lambda self: self.rule(L.R_N_ING_CARDS))
    n_types = property(lambda self: self.rule(L.R_N_TYPES))
    spaces = property(lambda self: self.rule(L.R_SPACES))
    padlocked = property(lambda self: self.rule(L.R_PADLOCKED))
    start_sun = property(lambda self: self.rule(L.R_START_SUN))
    start_moon = property(lambda self: self.rule(L.R_START_MOON))
    sickles = property(lambda self: self.rule(L.R_SICKLES))
    hand_limit = property(lambda self: self.rule(L.R_HAND_LIMIT))
    track_top = property(lambda self: self.rule(L.R_TOP))
    end_cards = property(lambda self: self.rule(L.R_END_CARDS))
    flip_some = property(lambda self: bool(self.rule(L.R_FLIP_SOME)))
    take_choose = property(lambda self: bool(self.rule(L.R_TAKE_CHOOSE)))
    final_turns = property(lambda self: bool(self.rule(L.R_FINAL_TURNS)))
    start_counts = property(lambda self: bool(self.rule(L.R_START_COUNTS)))
    sickle_after = property(lambda self: bool(self.rule(L.R_SICKLE_AFTER)))
    tie_best_ingredient = property(lambda self: bool(self.rule(L.R_TIE_BEST)))
    max_rounds = property(lambda self: self.rule(L.R_MAX_ROUNDS))
    compensation = property(lambda self: self.rules[L.R_COMP: L.R_COMP + L.MAX_PLAYERS])
    half = property(lambda self: self.rules[L.R_HALF: L.R_HALF + L.MAX_PLAYERS])


class Names(NamedTuple):
    """Display names and ids, for logs and result columns."""

    ingredient_ids: list[str]
    ingredients: list[str]
    card_ids: list[str]  # ingredient cards, then starting cards
    starting_ids: list[str]
    players: list[int]


def _int_list(r: Reader, key: str, value: Any, lo: int, hi: int) -> list[int]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi for v in value
    ):
        raise r.error(key, value, f"expected a list of integers in {lo}..{hi}")
    return value


def _card(r: Reader, card: dict, key: str, ids: list[str], deck_of: list[int], starting: bool,
          row: dict[str, Any]) -> None:
    """Validate one card entry into `row` (ingredient, deck, kind, cost, scoring)."""
    allowed = {"id", "name", "ingredient", "deck", "kind", "cost", "score", "ingredients",
               "points", "placeholder"}
    unknown = sorted(set(card) - allowed)
    if unknown:
        raise r.error(f"{key}.{unknown[0]}", card[unknown[0]],
                      f"unknown key; use {', '.join(sorted(allowed - {'placeholder'}))}")
    kind = "normal" if starting else r.choice("kind", L.CARD_KINDS, card, f"{key}.kind")
    ing = r.get("ingredient", card)
    if kind == "salt":
        if ing != "salt":
            raise r.error(f"{key}.ingredient", ing, 'a Salt card has ingredient = "salt"')
        row["ingredient"] = -1
        row["deck"] = DECKS.index(r.choice("deck", DECKS, card, f"{key}.deck"))
    else:
        if ing not in ids:
            raise r.error(f"{key}.ingredient", ing, f"unknown ingredient; known: {', '.join(ids)}")
        row["ingredient"] = ids.index(ing)
        row["deck"] = 2 if starting else deck_of[ids.index(ing)]
        if "deck" in card and not starting and card["deck"] != DECKS[row["deck"]]:
            raise r.error(f"{key}.deck", card["deck"],
                          f"a {ing} card belongs to the {DECKS[row['deck']]} deck")
    row["kind"] = L.CARD_KINDS.index(kind)
    cost = card.get("cost", []) if starting else r.get("cost", card)
    if not isinstance(cost, list) or len(cost) > L.MAX_COST or not all(
        c in L.COST_ICONS for c in cost
    ):
        raise r.error(f"{key}.cost", cost,
                      f"expected up to {L.MAX_COST} icons from {', '.join(L.COST_ICONS)}")
    row["cost"] = [cost.count(c) for c in L.COST_ICONS]
    score = r.choice("score", L.SCORE_KINDS, card, f"{key}.score")
    row["score"] = L.SCORE_KINDS.index(score)
    listed = r.get("ingredients", card)
    want = KIND_INGREDIENTS[score]
    if not isinstance(listed, list) or len(listed) != want or not all(x in ids for x in listed):
        raise r.error(f"{key}.ingredients", listed,
                      f"a '{score}' line lists {want} ingredient ids")
    if score == "two_types" and listed[0] == listed[1]:
        raise r.error(f"{key}.ingredients", listed, "'two_types' lists two different types")
    row["ingredients"] = [ids.index(x) for x in listed]
    row["points"] = r.int("points", 0, 100, card, f"{key}.points")


def compile_tables(config: GameConfig) -> tuple[Tables, Names]:
    """Validate the config and build the kernel tables; errors name file, key and value."""
    r = Reader(config)
    players = r.get("game.players")
    if not isinstance(players, list) or not players or not all(
        isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= L.MAX_PLAYERS for p in players
    ):
        raise r.error("game.players", players,
                      f"expected a list of player counts in 2..{L.MAX_PLAYERS}")
    ingredients = r.table_list("ingredients", 1, L.MAX_TYPES)
    ids = [i["id"] for i in ingredients]
    if "salt" in ids:
        raise r.error("ingredients.salt", "salt", "'salt' is reserved for Salt cards")
    deck_of = [DECKS.index(r.choice("deck", DECKS, i, f"ingredients.{i['id']}.deck"))
               for i in ingredients]
    n_types = len(ids)

    rows: list[dict[str, Any]] = []
    card_ids: list[str] = []
    cards = r.table_list("cards", 1, L.MAX_CARDS)
    starts = r.table_list("starting_cards", 1, L.MAX_CARDS)
    for group, starting, entries in (("cards", False, cards), ("starting_cards", True, starts)):
        for card in entries:
            row: dict[str, Any] = {}
            _card(r, card, f"{group}.{card['id']}", ids, deck_of, starting, row)
            rows.append(row)
            if card["id"] in card_ids:
                raise r.error(f"{group}.{card['id']}.id", card["id"],
                              "a card id is used twice (cards and starting_cards)")
            card_ids.append(card["id"])
    n_cards = len(cards)
    if len(rows) > L.MAX_CARDS:
        raise r.error("cards", len(rows), f"at most {L.MAX_CARDS} cards with starting cards")
    for d in range(2):
        if sum(1 for row in rows[:n_cards] if row["deck"] == d) < L.SLOTS_PER_ROW:
            raise r.error("cards", n_cards, f"the {DECKS[d]} deck needs at least "
                          f"{L.SLOTS_PER_ROW} cards for its face-up row")
    if len(starts) < max(players):
        raise r.error("starting_cards", len(starts),
                      f"need one starting card per player ({max(players)})")

    n = len(rows)
    score_ing = np.full((n, 3), -1, np.int64)
    for c, row in enumerate(rows):
        score_ing[c, : len(row["ingredients"])] = row["ingredients"]
    cost = np.array([row["cost"] for row in rows], np.int64)

    tokens = np.zeros(n_types, np.int64)
    listed = r.get("bonus_tokens.ingredients")
    if not isinstance(listed, list) or not all(x in ids for x in listed):
        raise r.error("bonus_tokens.ingredients", listed,
                      f"expected a list of ingredient ids ({', '.join(ids)})")
    for x in listed:
        tokens[ids.index(x)] += 1

    spaces = r.int("board.spaces", 1, 12)
    padlocked = r.int("board.padlocked", 0, spaces - 1)
    start_sun = r.int("board.start_sun", 0, spaces)
    start_moon = r.int("board.start_moon", 0, spaces)
    if start_sun + start_moon > spaces - padlocked:
        raise r.error("board.start_moon", start_moon,
                      "more starting runes than unlocked spaces (board.spaces - board.padlocked)")
    reserve = np.zeros((L.MAX_PLAYERS + 1, 2), np.int64)
    for p in players:
        value = _int_list(r, f"reserve.{p}", r.get(str(p), r.get("reserve")), 0, 50)
        if len(value) != 2:
            raise r.error(f"reserve.{p}", value, "expected [Sun, Moon]")
        reserve[p] = value

    top = r.int("track.top", 1, 40)
    end_cards = r.int("track.end_cards", 1, 40)
    track_padlock = np.zeros(top + 1, np.int64)
    track_bonus = np.zeros(top + 1, np.int64)
    padlock_levels = _int_list(r, "track.padlock", r.get("track.padlock"), 1, top)
    if len(padlock_levels) > padlocked:
        raise r.error("track.padlock", padlock_levels,
                      f"more padlock spaces than padlocks (board.padlocked = {padlocked})")
    for v in padlock_levels:
        track_padlock[v] += 1
    for v in _int_list(r, "track.bonus", r.get("track.bonus"), 1, top):
        track_bonus[v] += 1

    card = np.zeros((n, L.N_CARD_COLS), np.int64)
    for c, row in enumerate(rows):
        card[c, L.CARD_ING] = row["ingredient"]
        card[c, L.CARD_DECK] = row["deck"]
        card[c, L.CARD_KIND] = row["kind"]
        card[c, L.CARD_AMOUNT] = 2 if row["kind"] == L.DOUBLE else 1
        card[c, L.CARD_COST: L.CARD_COST + 4] = cost[c]
        card[c, L.CARD_ICONS] = cost[c].sum()
        card[c, L.CARD_SCORE] = row["score"]
        card[c, L.CARD_SCORE_ING: L.CARD_SCORE_ING + 3] = score_ing[c]
        card[c, L.CARD_SCORE_N] = len(row["ingredients"])
        card[c, L.CARD_POINTS] = row["points"]
        for i, x in enumerate(row["ingredients"]):
            card[c, L.CARD_MULT + i] = row["ingredients"].count(x)
    card[:, L.CARD_SALT_BASE] = 1
    card[n_cards:, L.CARD_SALT_BASE] = r.bool("options.salt_on_starting_card")
    rules = np.zeros(L.N_RULES, np.int64)
    rules[L.R_BAN_SEAT: L.R_BAN_TOKEN + 1] = -1  # no restricted play
    for index, value in (
        (L.R_N_ING_CARDS, n_cards),
        (L.R_N_TYPES, n_types),
        (L.R_SPACES, spaces),
        (L.R_PADLOCKED, padlocked),
        (L.R_START_SUN, start_sun),
        (L.R_START_MOON, start_moon),
        (L.R_SICKLES, r.int("board.sickles", 0, 10)),
        (L.R_HAND_LIMIT, r.int("board.hand_limit", 0, L.MAX_HAND - 2)),
        (L.R_TOP, top),
        (L.R_END_CARDS, end_cards),
        (L.R_FLIP_SOME, r.choice("options.flip_runes", FLIP_RUNES) == "some"),
        (L.R_TAKE_CHOOSE, r.choice("options.take_runes", TAKE_RUNES) == "choose"),
        (L.R_FINAL_TURNS, r.bool("options.final_turns")),
        (L.R_START_COUNTS, r.bool("options.starting_card_counts")),
        (L.R_SICKLE_AFTER, r.bool("options.sickle_after_actions")),
        (L.R_TIE_BEST, r.choice("options.tie_break", TIE_BREAKS) == "best_ingredient"),
        (L.R_MAX_ROUNDS, r.int("options.max_rounds", 1, 1000)),
    ):
        rules[index] = int(value)
    rules[L.R_COMP: L.R_COMP + L.MAX_PLAYERS] = r.int_list(
        "compensation.points", L.MAX_PLAYERS, -COMPENSATION_MAX, COMPENSATION_MAX)
    rules[L.R_HALF: L.R_HALF + L.MAX_PLAYERS] = r.int_list(
        "compensation.half", L.MAX_PLAYERS, 0, 1)
    tables = Tables(card=card, rules=rules, tokens=tokens, reserve=reserve,
                    track=np.stack([track_padlock, track_bonus], axis=1))
    names = Names(
        ingredient_ids=ids,
        ingredients=[str(i.get("name", i["id"])) for i in ingredients],
        card_ids=card_ids,
        starting_ids=[s["id"] for s in starts],
        players=sorted(players),
    )
    return tables, names
