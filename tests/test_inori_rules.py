"""Inori rule examples, checked by hand.

1. On hand-made states of the plain-Python reference (tests/reference/inori.py):
   season-end scoring of complete cards (once per present player, even with two markers),
   incomplete New Start and Journey cards, the end-game majorities and their ties, the
   "majority colour" cost, and an offering's option row computed after paying.
2. On the kernel: traced games are re-read event by event with nothing but the rule text
   (tokens from GAIN/PAY, markers from CARD/MOVE/BLOCK), and every season-end SCORE,
   every MAJORITY and the final tokens and scores must follow from them.
"""

from __future__ import annotations

from typing import Any

import pytest

from simkit.config import load_config
from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.inori import layout as L
from simkit.games.inori.config import compile_tables
from tests.reference import inori as reference

# The cards used below, pinned with --set so the examples do not depend on placeholders.
OVERRIDES = (
    'cards.yellow_3.colour="yellow"', 'cards.yellow_3.next="purple"',
    'new_start_cards.new_start_yellow.colour="yellow"',
    'new_start_cards.new_start_yellow.next="purple"',
    'cards.yellow_6.colour="yellow"',
    'cards.yellow_6.spaces.3.cost="yellow"', 'cards.yellow_6.spaces.3.effect="gain"',
    'cards.yellow_6.spaces.3.colour="yellow"', "cards.yellow_6.spaces.3.amount=2",
    "majority.first=6", "majority.second=3",
)
YELLOW, GREEN, RED, BLUE, PURPLE = range(5)


@pytest.fixture(scope="module")
def ids() -> dict[str, int]:
    _, names = compile_tables(load_config("inori", overrides=OVERRIDES))
    return {c: i for i, c in enumerate(names.card_ids)}


def new_game(n: int, extra: tuple[str, ...] = ()) -> reference.Game:
    return reference.Game.empty(reference.load_rules(OVERRIDES + extra), n)


def season_events(game: reference.Game, kind: int) -> list[tuple[int, ...]]:
    return [e[2:] for e in game.events if e[1] == kind]


# ------------------------------------------------------------------ season end
def test_complete_card_scores_each_present_player_once(ids):
    game = new_game(3)
    game.place_card(0, ids["yellow_3"])  # yellow, 3 spaces
    game.occ[0] = [0, L.NEUTRAL, 1]
    game.occ2[0] = [[], [], [0]]  # seat 0 also sits behind seat 1 (occupied Rune)
    game.tokens[0][YELLOW], game.tokens[1][YELLOW], game.tokens[2][YELLOW] = 3, 1, 5
    game.tokens[0][PURPLE] = 4
    reference.score_cards(game, last=True)
    assert game.score == [3, 1, 0]  # seat 0: 3 yellow, once; seat 2 is not on the card
    assert season_events(game, L.EV_COMPLETE) == [(-1, 0, ids["yellow_3"], 0)]
    assert season_events(game, L.EV_SCORE) == [(0, 0, 3, L.SRC_COMPLETE),
                                               (1, 0, 1, L.SRC_COMPLETE)]
    assert [st["completed"] for st in game.stats] == [1, 1, 0]
    assert game.occ[0] == [-1, -1, -1] and game.occ2[0] == [[], [], []]


def test_complete_card_with_neutral_markers_only_scores_nobody(ids):
    game = new_game(2)
    game.place_card(0, ids["yellow_3"])
    game.occ[0] = [L.NEUTRAL, L.NEUTRAL, L.NEUTRAL]
    game.tokens[0][YELLOW] = 6
    reference.score_cards(game, last=True)
    assert game.score == [0, 0]
    assert season_events(game, L.EV_COMPLETE) and not season_events(game, L.EV_SCORE)


def test_incomplete_new_start_card_scores_its_bottom_right_colour(ids):
    game = new_game(2)
    game.place_card(0, ids["new_start_yellow"])  # yellow, bottom-right purple
    game.place_card(1, ids["yellow_3"])  # a Journey card: incomplete scores nothing
    game.occ[0] = [1, -1, -1]
    game.occ[1] = [0, 1, -1]
    game.tokens[0] = [9, 0, 0, 0, 2, 0]
    game.tokens[1] = [7, 0, 0, 0, 4, 0]
    reference.score_cards(game, last=True)
    assert game.score == [0, 4]  # seat 1: 4 purple; seat 0 is not on the New Start card
    assert season_events(game, L.EV_SCORE) == [(1, 0, 4, L.SRC_NEW_START)]
    assert len(season_events(game, L.EV_INCOMPLETE)) == 2


def test_replacement_colours_and_new_start_leaves_the_game(ids):
    game = new_game(2)
    game.place_card(0, ids["new_start_yellow"])
    game.place_card(1, ids["yellow_3"])
    game.occ[1] = [0, 0, 1]
    game.decks[PURPLE] = [ids["purple_1"]]
    game.decks[YELLOW] = [ids["yellow_1"]]
    reference.score_cards(game, last=False)
    # Incomplete: its bottom-right colour (purple); complete: its own colour (yellow).
    assert game.slots == [ids["purple_1"], ids["yellow_1"]]
    assert game.out_of_game == [ids["new_start_yellow"]]
    assert game.discards[YELLOW] == [ids["yellow_3"]]


def test_empty_deck_is_rebuilt_from_the_discards(ids):
    game = new_game(2)
    game.place_card(0, ids["yellow_3"])
    game.occ[0] = [0, 0, 0]
    game.discards[YELLOW] = [ids["yellow_2"]]
    reference.score_cards(game, last=False)
    assert season_events(game, L.EV_RESHUFFLE) == [(-1, YELLOW, 2, 0)]
    assert game.slots[0] in (ids["yellow_2"], ids["yellow_3"])
    leave = new_game(2, ('options.empty_deck="leave_empty"',))
    leave.place_card(0, ids["yellow_3"])
    leave.occ[0] = [0, 0, 0]
    reference.score_cards(leave, last=False)
    assert leave.slots == [-1] and leave.discards[YELLOW] == [ids["yellow_3"]]


# ------------------------------------------------------------------ majorities
def test_majority_ties():
    game = new_game(3)
    game.tree_tile[:4] = [YELLOW, GREEN, RED, BLUE]
    for x, counts in ((YELLOW, (3, 3, 1)),  # tied for 1st: both first, no second
                      (GREEN, (4, 2, 2)),  # tied for 2nd: both second
                      (RED, (0, 0, 0)),  # nobody holds one: no points
                      (BLUE, (2, 0, 0))):  # a second place needs at least one token
        for p, v in enumerate(counts):
            game.tokens[p][x] = v
    reference.majorities(game)
    assert game.score == [6 + 6 + 6, 6 + 3, 3]
    assert season_events(game, L.EV_MAJORITY) == [
        (0, YELLOW, 6, 1), (1, YELLOW, 6, 1),
        (0, GREEN, 6, 1), (1, GREEN, 3, 2), (2, GREEN, 3, 2),
        (0, BLUE, 6, 1)]


def test_majority_second_place_with_four_players():
    game = new_game(4)
    game.tree_tile[0] = PURPLE
    for p, v in enumerate((1, 5, 1, 0)):
        game.tokens[p][PURPLE] = v
    reference.majorities(game)
    assert game.score == [3, 6, 3, 0]


# ------------------------------------------------------------------ costs and rows
def test_majority_colour_cost():
    choose, unpayable = new_game(2), new_game(2, ('options.majority_tie="unpayable"',))
    for game in (choose, unpayable):
        game.tokens[0] = [2, 0, 2, 1, 0, 0]
        game.tokens[1] = [0, 0, 0, 0, 0, 0]
    assert reference.cost_colours(choose, 0, L.COST_MAJORITY) == [YELLOW, RED]
    assert reference.cost_colours(unpayable, 0, L.COST_MAJORITY) == []
    assert reference.cost_colours(choose, 1, L.COST_MAJORITY) == []  # no token: no majority
    choose.tokens[0][BLUE] = 3
    assert reference.cost_colours(choose, 0, L.COST_MAJORITY) == [BLUE]
    assert reference.cost_colours(choose, 0, GREEN) == []
    assert reference.cost_colours(choose, 0, L.COST_NONE) == [-1]


def test_card_row_is_computed_after_paying(ids):
    for extra, f1 in (((), 2), (('options.cost_payment="hold"',), 1)):
        game = new_game(2, extra)
        game.place_card(0, ids["yellow_6"])  # space 3: pay 1 yellow, gain 2 yellow
        game.supply[YELLOW] = 1
        game.tokens[0][YELLOW] = 1
        game.occ[0] = [1, 1, 1, -1]
        row = reference.card_row(game, 0, 0, 3, YELLOW)
        # "return": the paid token is back in the supply, so both can be gained (F1 2,
        # holding 0 + 2); "hold": the supply still has 1 (F1 1, holding 1 + 1). The
        # offering fills the card's last free space (F2 1).
        assert row == (L.OPT_CARD, 0, 3, YELLOW, 0, f1, 1, 0, 2)


def test_altar_without_tile_row_then_tile_choice():
    game = new_game(2)
    t = [sp.effect for sp in game.rules.tree].index(L.TE_TILE_TOKENS)  # 3 of the tile colour
    game.tokens[0] = [0, 1, 2, 2, 0, 0]
    game.tile_used[RED] = 1
    game.supply[BLUE] = 2
    rows = [r for r in reference.offer_rows(game, 0) if r[L.KIND] == L.OPT_TREE and r[L.A] == t]
    # Valued with the unused colour held most (red is used; blue 2, the supply gives 2).
    assert rows == [(L.OPT_TREE, t, -1, -1, 0, 2, 0, 0, 4)]
    tiles = reference.tile_rows(game, 0, t)
    assert [r[L.A] for r in tiles] == [YELLOW, GREEN, BLUE, PURPLE, 5]
    assert tiles[0] == (L.OPT_TILE, YELLOW, -1, -1, 0, 3, 0, 0, 3)
    assert tiles[2] == (L.OPT_TILE, BLUE, -1, -1, 0, 2, 0, 0, 4)


# ------------------------------------------------------------------ the kernel
def reread(t: Any, n: int, events: list[list[int]], cost_return: bool) -> dict[str, Any]:
    """Follow a kernel trace with the rule text alone; collect rule violations."""
    tokens = [[0] * t.n_colours for _ in range(n)]
    score = [0] * n
    slots: list[int] = []
    occ: list[list[list[int]]] = []  # slot -> space -> markers, first marker first
    tiles: list[int] = []
    problems: list[str] = []
    seen = {"two_markers": 0, "new_start_score": 0, "tie_first": 0, "tie_second": 0}
    scored: dict[int, list[tuple[int, int, int]]] = {}
    expected: dict[int, list[tuple[int, int, int]]] = {}
    for _season, ev, seat, a, b, c in events:
        if ev in (L.EV_SETUP_CARD, L.EV_REPLACE, L.EV_NEW_START):
            slot, card = (len(slots), a) if ev == L.EV_NEW_START else (
                (a, b) if ev == L.EV_SETUP_CARD else (a, c))
            if slot == len(slots):
                slots.append(-1)
                occ.append([])
            slots[slot] = card
            occ[slot] = [[] for _ in range(int(t.card_spaces[card]))] if card >= 0 else []
        elif ev == L.EV_GAIN:
            tokens[seat][a] += b
        elif ev == L.EV_PAY and cost_return:
            tokens[seat][a] -= b
        elif ev == L.EV_CARD:
            occ[a][b].append(seat)
        elif ev == L.EV_BLOCK:
            occ[a][b].append(L.NEUTRAL)
        elif ev == L.EV_MOVE:  # seat moves c's piece (options.move_piece)
            i, s = divmod(a, L.MAX_SPACES)
            occ[i][s].remove(c)
            j, u = divmod(b, L.MAX_SPACES)
            occ[j][u].append(c)
        elif ev == L.EV_TREE and c == 1:
            tiles.append(b)
        elif ev in (L.EV_COMPLETE, L.EV_INCOMPLETE):
            card, spaces = b, occ[a]
            present = sorted({p for sp in spaces for p in sp if p != L.NEUTRAL})
            if (ev == L.EV_COMPLETE) != all(spaces):
                problems.append(f"slot {a}: complete is {ev == L.EV_COMPLETE}")
            if any(len(sp) > len(set(sp)) for sp in spaces):
                problems.append(f"slot {a}: two markers of one player on a space")
            if ev == L.EV_COMPLETE:
                x, source = int(t.card_colour[card]), L.SRC_COMPLETE
                mine = [sum(p in sp for sp in spaces) for p in present]
                seen["two_markers"] += any(m > 1 for m in mine)
            elif t.card_kind[card] == L.NEW_START:
                x, source = int(t.card_next[card]), L.SRC_NEW_START
                seen["new_start_score"] += bool(present)
            else:
                x, present = -1, []
            if present:
                expected.setdefault(a, []).extend((p, tokens[p][x], source) for p in present)
            occ[a] = [[] for _ in spaces]
        elif ev == L.EV_SCORE:
            scored.setdefault(a, []).append((seat, b, c))
        if ev in (L.EV_POINTS,):
            score[seat] += a
        elif ev in (L.EV_SCORE, L.EV_MAJORITY):
            score[seat] += b
    if scored != expected:
        problems.append(f"season-end scores {scored}, by the rules {expected}")
    want = []
    for x in tiles:
        counts = [tokens[p][x] for p in range(n)]
        top = max(counts)
        if top < 1:
            continue
        first = [p for p in range(n) if counts[p] == top]
        want += [(p, x, int(t.rules[L.R_MAJ_FIRST]), 1) for p in first]
        seen["tie_first"] += len(first) > 1
        rest = [v for v in counts if v < top]
        if len(first) == 1 and rest and max(rest) >= 1:
            second = [p for p in range(n) if counts[p] == max(rest)]
            want += [(p, x, int(t.rules[L.R_MAJ_SECOND]), 2) for p in second]
            seen["tie_second"] += len(second) > 1
    got = [(e[2], e[3], e[4], e[5]) for e in events if e[1] == L.EV_MAJORITY]
    if sorted(got) != sorted(want):
        problems.append(f"majorities {got}, by the rules {want}")
    return {"tokens": tokens, "score": score, "problems": problems, "seen": seen}


@pytest.mark.parametrize("overrides", [(), ('options.cost_payment="hold"',
                                            'options.majority_tie="unpayable"'),
                                       ("setup.neutral_markers=6",
                                        "tree.altar_block.amount=3")])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_kernel_season_end_and_majorities_follow_the_rules(n, overrides):
    game = get_game("inori")
    compiled = game.compile(game.load_config(overrides))
    t = compiled.tables
    names = ["random", "greedy", "planner", "random"][:n]
    lineup = build_lineup(game, names, n)
    seen: dict[str, int] = {}
    for g in range(120):
        rep = game.replay(compiled, lineup, 2024, g)
        got = reread(t, n, rep.events.tolist(), bool(t.rules[L.R_COST_RETURN]))
        where = f"overrides={overrides} lineup={names} seed=2024 game={g}"
        assert not got["problems"], f"{where}: {got['problems'][0]}"
        assert got["tokens"] == rep.out[L.O_TOKENS][0].tolist(), where
        assert got["score"] == rep.out[L.O_SCORE][0].tolist(), where
        assert int(rep.out[L.O_ROUNDS][0]) == t.seasons, where
        for k, v in got["seen"].items():
            seen[k] = seen.get(k, 0) + v
    # The cases the rules single out really occurred (a tie for 2nd needs three players).
    assert seen["two_markers"] > 0 and seen["new_start_score"] > 0, seen
    assert seen["tie_first"] > 0 and (seen["tie_second"] > 0 or n == 2), seen


def test_specific_colours_per_colour_or_per_token(ids):
    """"Un punto por cada uno de los colores específicos que tengas": by default a point per
    listed colour held (after paying); options.specific_colours = "per_token" counts the
    tokens of those colours. The compiled rules give the same rows (test_kernel_...)."""
    pinned = ('cards.yellow_4.spaces.1.effect="points_per_token"',
              'cards.yellow_4.spaces.1.colours=["yellow", "red"]',
              'cards.yellow_4.spaces.1.cost="red"', "cards.yellow_4.spaces.1.amount=2")
    per_colour = new_game(2, pinned)
    per_token = new_game(2, (*pinned, 'options.specific_colours="per_token"'))
    for game in (per_colour, per_token):
        game.place_card(0, ids["yellow_4"])
        game.tokens[0] = [3, 0, 2, 0, 0, 0]  # 3 yellow, 2 red; paying 1 red leaves 1
    # per colour: yellow and red are both still held after paying: 2 x 2 points
    assert reference.card_row(per_colour, 0, 0, 1, RED)[4] == 4
    # per token: 3 yellow + 1 red after paying: 2 x 4 points
    assert reference.card_row(per_token, 0, 0, 1, RED)[4] == 8
    per_colour.tokens[0][RED] = 1  # the only red token pays the cost: red is no longer held
    assert reference.card_row(per_colour, 0, 0, 1, RED)[4] == 2


def test_specific_colours_option_reaches_the_compiled_rules():
    """The compiled rules score the option's reading: the same deals give card effects
    fewer points on average per colour than per token."""
    game = get_game("inori")
    lineup = build_lineup(game, ["greedy"], 3)
    points = {}
    for reading in ("per_colour", "per_token"):
        compiled = game.compile(game.load_config((f'options.specific_colours="{reading}"',)))
        points[reading] = game.simulate(compiled, lineup, 5, 0, 200)["points_card_effects"]
    assert points["per_colour"].mean() < points["per_token"].mean()


def test_rune_timing_before_or_after():
    """options.rune_timing = "before_or_after" also asks for a Rune tile after the
    offering when none was played before it: on the same deals, more Rune steps are asked
    (the differential tests check every one of them against the reference)."""
    game = get_game("inori")
    lineup = build_lineup(game, ["random", "planner", "greedy"], 3)
    asked = {}
    for timing in ("before_offering", "before_or_after"):
        compiled = game.compile(game.load_config((f'options.rune_timing="{timing}"',)))
        asked[timing] = sum(int((game.replay(compiled, lineup, 9, g).decisions[:, 2]
                                 == L.STEP_RUNE).sum()) for g in range(20))
    assert asked["before_or_after"] > asked["before_offering"] * 1.1


def test_move_piece_any_moves_other_pieces():
    """options.move_piece: with "any" (default) a move Rune tile moves rivals' and neutral
    markers too, and the piece stays its owner's (the event names it); with "own" every
    moved piece is the mover's. Same deals, random players (who play move tiles)."""
    game = get_game("inori")
    lineup = build_lineup(game, ["random"] * 4, 4)
    others = {}
    for reading in ("any", "own"):
        compiled = game.compile(game.load_config((f'options.move_piece="{reading}"',)))
        moves = [tuple(e) for g in range(60)
                 for e in game.replay(compiled, lineup, 3, g).events.tolist()
                 if e[1] == L.EV_MOVE]
        assert moves, reading
        others[reading] = sum(1 for e in moves if e[5] != e[2])
    assert others["own"] == 0
    assert others["any"] > 0


def test_win_tie_most_tokens_breaks_ties_by_tokens():
    """options.win_tie = "most_tokens": on the same deals, every game the text's shared
    reading leaves tied is won by the tied seat(s) holding the most Favor tokens; games
    without a tie are unchanged."""
    game = get_game("inori")
    lineup = build_lineup(game, ["greedy"] * 4, 4)
    out = {}
    for reading in ("shared", "most_tokens"):
        compiled = game.compile(game.load_config((f'options.win_tie="{reading}"',)))
        out[reading] = game.simulate(compiled, lineup, 11, 0, 3000)
    shared, broken = out["shared"], out["most_tokens"]
    assert (shared["score"] == broken["score"]).all()
    tied = (shared["win_share"] > 0).sum(axis=1) > 1
    assert tied.sum() > 10  # the deals hold ties to break
    colours = compiled.names.colour_ids
    tokens = sum(broken[f"tokens_{c}"].astype(int) for c in colours)
    for g in range(3000):
        if not tied[g]:
            assert (broken["win_share"][g] == shared["win_share"][g]).all()
            continue
        among = shared["win_share"][g] > 0
        best = tokens[g][among].max()
        winners = among & (tokens[g] == best)
        assert (broken["win_share"][g] > 0).tolist() == winners.tolist()


@pytest.mark.parametrize("spaces", ["any", "cards"])
@pytest.mark.parametrize("count", ["any", "one"])
def test_occupied_rune_spaces_and_count(ids, spaces, count):
    """The "occupied" Rune ("jugar en un espacio ocupado, siempre y cuando no seas tú quien
    lo ocupe ya"): with occupied_spaces = "any" a Great Tree space counts, with "cards" it
    does not; with occupied_count = "any" a space holding two rivals' pieces counts, with
    "one" it does not; a space holding the player's own marker never does."""
    game = new_game(3, (f'options.occupied_spaces="{spaces}"',
                        f'options.occupied_count="{count}"', "options.altar_cost=0"))
    game.place_card(0, ids["yellow_3"])  # three spaces
    game.occ[0] = [1, 0, L.NEUTRAL]
    game.occ2[0] = [[2], [], []]  # space 0: seat 1, then seat 2 through a Rune
    game.tree_occ[1] = 1  # an altar space holding seat 1's marker and a tile
    game.tree_tile[1] = GREEN
    game.occupied_ok = True
    game.tokens[0] = [3, 2, 1, 1, 1, 1]  # any cost payable, one majority colour
    rows = reference.offer_rows(game, 0)
    cards = {r[L.B] for r in rows if r[L.KIND] == L.OPT_CARD}
    trees = {r[L.A] for r in rows if r[L.KIND] == L.OPT_TREE}
    assert 1 not in cards  # seat 0's own marker is there
    assert 2 in cards  # one neutral piece: every reading
    assert (0 in cards) == (count == "any")
    assert (1 in trees) == (spaces == "any")
    # Seat 2 is behind seat 1 on space 0: it may never join there again.
    assert 0 not in {r[L.B] for r in reference.offer_rows(game, 2) if r[L.KIND] == L.OPT_CARD}
