"""Inori config -> validated numpy tables for the kernel.

Tables are kernel arguments, never globals, so a `--set` override takes effect without
recompiling.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from simkit.config import GameConfig, Reader

from . import layout as L

COST_PAYMENTS = ("return", "hold")
MAJORITY_TIES = ("choose", "unpayable")
NEW_START_USES = ("join", "none")
EMPTY_DECKS = ("reshuffle", "leave_empty")
ROOT_TOKENS = ("random", "fixed")
SPECIFIC_COLOURS = ("per_colour", "per_token")
RUNE_TIMINGS = ("before_offering", "before_or_after")
COMPENSATION_MAX = 1000  # compensation.points: each seat's entry in -1000..1000
CARD_TABLES = (("cards", L.JOURNEY), ("start_cards", L.START), ("new_start_cards", L.NEW_START))
SPACE_KEYS = {"cost", "effect", "colour", "colours", "amount"}
CARD_KEYS = {"id", "name", "colour", "next", "spaces", "players", "placeholder"}


class Tables(NamedTuple):
    """Everything the kernel needs to know about the rules, as a few arrays.

    Few fields on purpose: numba passes a tuple's arrays one by one on every call.
    """

    card: np.ndarray  # int64[N, N_CARD_COLS]: one row per card id (layout.py CARD_*, SP_*)
    tree: np.ndarray  # int64[T, N_TREE_COLS]: one row per tree space (TR_*)
    rune: np.ndarray  # int64[R, N_RUNE_COLS]: one row per Rune tile (RU_*)
    rules: np.ndarray  # int64[N_RULES]: numbers and options (R_*)
    setup: np.ndarray  # int64[MAX_PLAYERS+1, W]: per player count: markers per season
    #                    (columns 0..seasons-1), then eligible Start card ids (-1 pads)
    colour: np.ndarray  # int64[K, 2 + 2*T]: tokens, opposite, then fixed root tokens

    def rule(self, index: int) -> int:
        return int(self.rules[index])

    n_colours = property(lambda self: self.rule(L.R_N_COLOURS))
    seasons = property(lambda self: self.rule(L.R_SEASONS))
    compensation = property(lambda self: self.rules[L.R_COMP: L.R_COMP + L.MAX_PLAYERS])
    half = property(lambda self: self.rules[L.R_HALF: L.R_HALF + L.MAX_PLAYERS])
    card_kind = property(lambda self: self.card[:, L.CARD_KIND])
    card_colour = property(lambda self: self.card[:, L.CARD_COLOUR])
    card_next = property(lambda self: self.card[:, L.CARD_NEXT])
    card_spaces = property(lambda self: self.card[:, L.CARD_N_SPACES])
    tokens = property(lambda self: self.colour[:, 0])
    opposite = property(lambda self: self.colour[:, 1])

    def markers(self, players: int) -> np.ndarray:
        return self.setup[players, : self.seasons]

    def start_cards(self, players: int) -> list[int]:
        return [int(c) for c in self.setup[players, self.seasons:] if c >= 0]

    def root_tokens(self, space: int) -> list[int]:
        return [int(self.colour[0, 2 + 2 * space]), int(self.colour[0, 3 + 2 * space])]


class Names(NamedTuple):
    """Display names and ids, for logs and result columns."""

    colour_ids: list[str]
    colours: list[str]
    card_ids: list[str]  # Journey, then Start, then New Start cards
    tree_ids: list[str]
    rune_ids: list[str]
    players: list[int]


def _colour(r: Reader, ids: list[str], value: Any, key: str) -> int:
    if value not in ids:
        raise r.error(key, value, f"unknown colour; known: {', '.join(ids)}")
    return ids.index(value)


def _space(r: Reader, ids: list[str], space: Any, key: str, row: np.ndarray, s: int) -> None:
    """Validate one card space into the card row's space block s."""
    if not isinstance(space, dict):
        raise r.error(key, space, "expected a table { cost = ..., effect = ..., ... }")
    unknown = sorted(set(space) - SPACE_KEYS)
    if unknown:
        raise r.error(f"{key}.{unknown[0]}", space[unknown[0]],
                      f"unknown key; use {', '.join(sorted(SPACE_KEYS))}")
    cost = r.get("cost", space)
    if cost == "none":
        row[L.space_col(s, L.SP_COST)] = L.COST_NONE
    elif cost == "majority":
        row[L.space_col(s, L.SP_COST)] = L.COST_MAJORITY
    else:
        if cost not in ids:
            raise r.error(f"{key}.cost", cost,
                          f'expected "none", "majority" or a colour ({", ".join(ids)})')
        row[L.space_col(s, L.SP_COST)] = ids.index(cost)
    effect = r.choice("effect", L.EFFECTS, space, f"{key}.effect")
    e = L.EFFECTS.index(effect)
    row[L.space_col(s, L.SP_EFFECT)] = e
    row[L.space_col(s, L.SP_AMOUNT)] = r.int("amount", 1, 10, space, f"{key}.amount")
    row[L.space_col(s, L.SP_COLOUR)] = -1
    row[L.space_col(s, L.SP_COLOUR2)] = -1
    if e == L.EF_GAIN:
        row[L.space_col(s, L.SP_COLOUR)] = _colour(r, ids, space.get("colour"), f"{key}.colour")
    elif e == L.EF_PER_TOKEN:
        listed = space.get("colours")
        if not isinstance(listed, list) or not 1 <= len(listed) <= 2 or len(set(listed)) != len(
                listed):
            raise r.error(f"{key}.colours", listed, "expected 1 or 2 different colour ids")
        for i, c in enumerate(listed):
            row[L.space_col(s, L.SP_COLOUR + i)] = _colour(r, ids, c, f"{key}.colours")
    for extra, needed in (("colour", e == L.EF_GAIN), ("colours", e == L.EF_PER_TOKEN)):
        if extra in space and not needed:
            raise r.error(f"{key}.{extra}", space[extra], f"an effect '{effect}' takes no {extra}")


def _cards(r: Reader, ids: list[str], players: list[int]) -> tuple[list[np.ndarray], list[str],
                                                                   dict[str, list[int]]]:
    rows: list[np.ndarray] = []
    card_ids: list[str] = []
    eligible: dict[str, list[int]] = {}
    counts = {"cards": (L.MAX_COLOURS, L.MAX_CARDS), "start_cards": (1, L.MAX_CARDS),
              "new_start_cards": (0, L.MAX_CARDS)}
    for table, kind in CARD_TABLES:
        lo, hi = counts[table]
        entries = r.table_list(table, lo, hi) if (table in r.data or lo > 0) else []
        for card in entries:
            key = f"{table}.{card['id']}"
            unknown = sorted(set(card) - CARD_KEYS)
            if unknown:
                raise r.error(f"{key}.{unknown[0]}", card[unknown[0]],
                              f"unknown key; use {', '.join(sorted(CARD_KEYS - {'placeholder'}))}")
            if card["id"] in card_ids:
                raise r.error(f"{key}.id", card["id"], "a card id is used twice")
            row = np.zeros(L.N_CARD_COLS, np.int64)
            row[L.CARD_KIND] = kind
            row[L.CARD_COLOUR] = _colour(r, ids, r.get("colour", card), f"{key}.colour")
            row[L.CARD_NEXT] = _colour(r, ids, r.get("next", card), f"{key}.next")
            if row[L.CARD_NEXT] == row[L.CARD_COLOUR]:
                raise r.error(f"{key}.next", card["next"],
                              "the bottom-right colour differs from the card's own colour")
            spaces = r.get("spaces", card)
            if not isinstance(spaces, list) or not 2 <= len(spaces) <= L.MAX_SPACES:
                raise r.error(f"{key}.spaces", spaces, f"expected 2-{L.MAX_SPACES} spaces")
            row[L.CARD_N_SPACES] = len(spaces)
            for s, space in enumerate(spaces):
                _space(r, ids, space, f"{key}.spaces.{s}", row, s)
            if kind == L.START:
                counts_for = card.get("players")
                if not isinstance(counts_for, list) or not all(p in players for p in counts_for):
                    raise r.error(f"{key}.players", counts_for,
                                  f"expected a list of player counts from {players}")
                for p in counts_for:
                    eligible.setdefault(str(p), []).append(len(rows))
            elif "players" in card:
                raise r.error(f"{key}.players", card["players"], "only Start cards have players")
            rows.append(row)
            card_ids.append(card["id"])
    return rows, card_ids, eligible


def compile_tables(config: GameConfig) -> tuple[Tables, Names]:
    """Validate the config and build the kernel tables; errors name file, key and value."""
    r = Reader(config)
    players = r.get("game.players")
    if not isinstance(players, list) or not players or not all(
        isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= L.MAX_PLAYERS for p in players
    ):
        raise r.error("game.players", players,
                      f"expected a list of player counts in 2..{L.MAX_PLAYERS}")
    seasons = r.int("game.seasons", 1, 8)
    colours = r.table_list("colours", 2, L.MAX_COLOURS)
    ids = [c["id"] for c in colours]
    n_col = len(ids)

    n_tree = len(r.table_list("tree", 1, L.MAX_TREE))
    colour = np.full((n_col, 2 + 2 * n_tree), -1, np.int64)
    for k, c in enumerate(colours):
        key = f"colours.{c['id']}"
        colour[k, 0] = r.int("tokens", 0, 200, c, f"{key}.tokens")
        colour[k, 1] = _colour(r, ids, r.get("opposite", c), f"{key}.opposite")
        if colour[k, 1] == k:
            raise r.error(f"{key}.opposite", c["opposite"], "a colour is not its own opposite")
    for k in range(n_col):
        if colour[colour[k, 1], 1] != k:
            raise r.error(f"colours.{ids[k]}.opposite", ids[colour[k, 1]],
                          f"opposites go in pairs: {ids[colour[k, 1]]}'s opposite is "
                          f"{ids[colour[colour[k, 1], 1]]}")

    rows, card_ids, eligible = _cards(r, ids, players)
    card = np.stack(rows)
    kinds = card[:, L.CARD_KIND]
    for k in range(n_col):
        if not ((kinds == L.JOURNEY) & (card[:, L.CARD_COLOUR] == k)).any():
            raise r.error("cards", ids[k], "every colour needs at least one Journey card")

    start_in_play = r.int("setup.start_cards_in_play", 1, L.MAX_SLOTS)
    width = seasons + int((kinds == L.START).sum())
    setup = np.full((L.MAX_PLAYERS + 1, width), -1, np.int64)
    for p in players:
        markers = r.get(str(p), r.get("markers"))
        if not isinstance(markers, list) or len(markers) != seasons or not all(
                isinstance(m, int) and not isinstance(m, bool) and 0 <= m <= 20 for m in markers):
            raise r.error(f"markers.{p}", markers,
                          f"expected {seasons} marker counts (one per season), each 0..20")
        setup[p, :seasons] = markers
        starts = eligible.get(str(p), [])
        if len(starts) < start_in_play:
            raise r.error("start_cards", len(starts),
                          f"{p} players need at least {start_in_play} Start cards listing "
                          f"{p} in `players`")
        for a in starts:
            for b in starts:
                if card[b, L.CARD_COLOUR] == colour[card[a, L.CARD_COLOUR], 1]:
                    raise r.error(f"start_cards.{card_ids[a]}.colour", ids[card[a, L.CARD_COLOUR]],
                                  f"opposite colours never start together, but "
                                  f"{card_ids[b]} ({ids[card[b, L.CARD_COLOUR]]}) is also "
                                  f"dealt for {p} players")
        setup[p, seasons: seasons + len(starts)] = starts
    n_new = int((kinds == L.NEW_START).sum())
    use = r.choice("options.new_start_use", NEW_START_USES)
    if use == "join" and start_in_play + seasons - 1 > L.MAX_SLOTS:
        raise r.error("setup.start_cards_in_play", start_in_play,
                      f"at most {L.MAX_SLOTS} cards in play (with one New Start card per season)")

    tree = np.zeros((n_tree, L.N_TREE_COLS), np.int64)
    tree_ids = []
    for t, space in enumerate(r.data["tree"]):
        key = f"tree.{space['id']}"
        unknown = sorted(set(space) - {"id", "effect", "amount", "amount2", "tokens",
                                        "placeholder", "name"})
        if unknown:
            raise r.error(f"{key}.{unknown[0]}", space[unknown[0]],
                          "unknown key; use effect, amount, amount2, tokens")
        e = L.TREE_EFFECTS.index(r.choice("effect", L.TREE_EFFECTS, space, f"{key}.effect"))
        tree[t, L.TR_EFFECT] = e
        tree[t, L.TR_ROOT] = int(e == L.TE_ROOT)
        tree[t, L.TR_AMOUNT] = r.int("amount", 1, 20, space, f"{key}.amount")
        if e in (L.TE_RUNE_TOKEN, L.TE_BLOCK):
            tree[t, L.TR_AMOUNT2] = r.int("amount2", 0, 20, space, f"{key}.amount2")
        if e == L.TE_ROOT:
            if tree[t, L.TR_AMOUNT] > 2:
                raise r.error(f"{key}.amount", space["amount"], "a root space holds 1 or 2 tokens")
            fixed = space.get("tokens", [])
            if not isinstance(fixed, list) or len(fixed) != tree[t, L.TR_AMOUNT]:
                raise r.error(f"{key}.tokens", fixed,
                              f"expected {tree[t, L.TR_AMOUNT]} colour ids (used when "
                              "options.root_tokens = \"fixed\")")
            for i, c in enumerate(fixed):
                colour[:, 2 + 2 * t + i] = _colour(r, ids, c, f"{key}.tokens")
        tree_ids.append(space["id"])
    n_altar = int((tree[:, L.TR_ROOT] == 0).sum())
    if n_altar > n_col:
        raise r.error("tree", n_altar, f"more altar spaces than Altar tiles ({n_col}, one per "
                      "colour)")

    runes = r.table_list("runes", 0, L.MAX_HELD_RUNES) if "runes" in r.data else []
    rune = np.zeros((max(len(runes), 1), L.N_RUNE_COLS), np.int64)
    for i, tile in enumerate(runes):
        key = f"runes.{tile['id']}"
        k = L.RUNE_KINDS.index(r.choice("kind", L.RUNE_KINDS, tile, f"{key}.kind"))
        rune[i, L.RU_KIND] = k
        rune[i, L.RU_COLOUR] = (-1 if k == L.RUNE_OCCUPIED
                                else _colour(r, ids, tile.get("colour"), f"{key}.colour"))
        rune[i, L.RU_AMOUNT] = r.int("amount", 1, 10, tile, f"{key}.amount") if k == 0 else 0

    rules = np.zeros(L.N_RULES, np.int64)
    rules[L.R_BAN_SEAT: L.R_BAN_COLOUR + 1] = -1  # no restricted play
    for index, value in (
        (L.R_N_COLOURS, n_col),
        (L.R_SEASONS, seasons),
        (L.R_N_JOURNEY, int((kinds == L.JOURNEY).sum())),
        (L.R_N_START, int((kinds == L.START).sum())),
        (L.R_N_NEW_START, n_new),
        (L.R_N_TREE, n_tree),
        (L.R_N_RUNES, len(runes)),
        (L.R_START_IN_PLAY, start_in_play),
        (L.R_NEUTRAL, r.int("setup.neutral_markers", 0, 8)),
        (L.R_MAJ_FIRST, r.int("majority.first", 0, 100)),
        (L.R_MAJ_SECOND, r.int("majority.second", 0, 100)),
        (L.R_COST_RETURN, r.choice("options.cost_payment", COST_PAYMENTS) == "return"),
        (L.R_MAJ_TIE_CHOOSE, r.choice("options.majority_tie", MAJORITY_TIES) == "choose"),
        (L.R_ALTAR_COST, r.int("options.altar_cost", 0, 5)),
        (L.R_ALTAR_REPEAT, r.bool("options.altar_repeat_effect")),
        (L.R_LOW_TIE, L.LOW_TIES.index(r.choice("options.fewest_points_tie", L.LOW_TIES))),
        (L.R_NEW_START_JOIN, use == "join"),
        (L.R_RESHUFFLE, r.choice("options.empty_deck", EMPTY_DECKS) == "reshuffle"),
        (L.R_ROOT_RANDOM, r.choice("options.root_tokens", ROOT_TOKENS) == "random"),
        (L.R_NEW_START_DRAW, r.int("setup.new_start_draw", 1, 4)),
        (L.R_RUNE_AFTER, r.choice("options.rune_timing", RUNE_TIMINGS) == "before_or_after"),
        (L.R_MOVE_ANY, r.choice("options.move_piece", L.MOVE_PIECES) == "any"),
        (L.R_WIN_TIE, L.WIN_TIES.index(r.choice("options.win_tie", L.WIN_TIES))),
        (L.R_OCC_TREE, r.choice("options.occupied_spaces", L.OCCUPIED_SPACES) == "any"),
        (L.R_OCC_ANY_COUNT, r.choice("options.occupied_count", L.OCCUPIED_COUNTS) == "any"),
    ):
        rules[index] = int(value)
    rules[L.R_COMP: L.R_COMP + L.MAX_PLAYERS] = r.int_list(
        "compensation.points", L.MAX_PLAYERS, -COMPENSATION_MAX, COMPENSATION_MAX)
    rules[L.R_HALF: L.R_HALF + L.MAX_PLAYERS] = r.int_list(
        "compensation.half", L.MAX_PLAYERS, 0, 1)
    if r.choice("options.specific_colours", SPECIFIC_COLOURS) == "per_colour":
        for s in range(L.MAX_SPACES):
            col = L.space_col(s, L.SP_EFFECT)
            card[card[:, col] == L.EF_PER_TOKEN, col] = L.EF_PER_COLOUR
    tables = Tables(card=card, tree=tree, rune=rune, rules=rules, setup=setup, colour=colour)
    names = Names(
        colour_ids=ids,
        colours=[str(c.get("name", c["id"])) for c in colours],
        card_ids=card_ids,
        tree_ids=tree_ids,
        rune_ids=[t["id"] for t in runes],
        players=sorted(players),
    )
    return tables, names
