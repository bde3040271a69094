"""Inori invariants over hypothesis-chosen seeds, lineups and rule options, checked by
walking each kernel game's event record: every Favor token, marker, card and Rune tile
accounted for at every step, costs paid from tokens actually held, markers only where
the rules allow, season-end verdicts that match the board, scores equal to the points
recorded, and every game ending after its seasons."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.inori import layout as L

OPTIONS = st.sampled_from([
    (),
    ('options.cost_payment="hold"',),
    ('options.majority_tie="unpayable"',),
    ("options.altar_cost=0",),
    ("options.altar_cost=2", "options.altar_repeat_effect=false"),
    ('options.fewest_points_tie="random"', 'options.new_start_use="none"'),
    ('options.empty_deck="leave_empty"', 'options.root_tokens="fixed"'),
    ("setup.neutral_markers=4", "markers.2=[6, 7, 8, 9]", "markers.4=[5, 5, 6, 7]"),
    ('options.move_piece="own"', 'options.occupied_spaces="cards"',
     'options.occupied_count="one"', 'options.win_tie="most_tokens"'),
])
SEASON_END = (L.EV_COMPLETE, L.EV_INCOMPLETE, L.EV_SCORE, L.EV_REPLACE, L.EV_RESHUFFLE,
              L.EV_MARKERS, L.EV_FIRST, L.EV_NEW_START, L.EV_END, L.EV_MAJORITY)
_COMPILED: dict = {}


def compiled_for(game, overrides):
    if overrides not in _COMPILED:
        _COMPILED[overrides] = game.compile(game.load_config(overrides))
    return _COMPILED[overrides]


class Board:
    """The game as the event record tells it."""

    def __init__(self, t, players: int, overrides: tuple[str, ...]) -> None:
        self.t = t
        self.n = players
        self.supply = [int(v) for v in t.tokens]
        self.total = list(self.supply)
        self.held = [[0] * t.n_colours for _ in range(players)]
        self.root: dict[int, list[int]] = {}
        self.slots: dict[int, int] = {}
        self.occ: dict[tuple[int, int], list[int]] = {}
        self.stack = int(t.rule(L.R_N_RUNES))
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.played_runes = 0
        self.points = [0] * players
        self.returns = 'options.cost_payment="hold"' not in overrides
        self.move_any = 'options.move_piece="own"' not in overrides
        self.occupied_tree = 'options.occupied_spaces="cards"' not in overrides
        self.occupied_any_count = 'options.occupied_count="one"' not in overrides
        self.tree: dict[int, list[int]] = {}  # tree space -> markers this season

    def check_tokens(self) -> None:
        for x in range(self.t.n_colours):
            reserved = sum(v.count(x) for v in self.root.values())
            held = sum(h[x] for h in self.held)
            assert self.supply[x] >= 0 and all(h[x] >= 0 for h in self.held)
            assert self.supply[x] + held + reserved == self.total[x], f"colour {x}"
        assert self.stack + sum(map(len, self.hands)) + self.played_runes == self.t.rule(
            L.R_N_RUNES)

    def card_spaces(self, slot: int) -> int:
        return int(self.t.card_spaces[self.slots[slot]])

    def complete(self, slot: int) -> bool:
        return all(self.occ.get((slot, s)) for s in range(self.card_spaces(slot)))

    def on_card(self, slot: int, seat: int) -> bool:
        return any(seat in self.occ.get((slot, s), []) for s in range(self.card_spaces(slot)))


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**64 - 1), index=st.integers(0, 10**6),
       names=st.lists(st.sampled_from(["random", "greedy", "planner"]), min_size=4, max_size=4),
       overrides=OPTIONS)
def test_game_invariants(players, seed, index, names, overrides):
    game = get_game("inori")
    compiled = compiled_for(game, overrides)
    t = compiled.tables
    rep = game.replay(compiled, build_lineup(game, names[:players], players), seed, index)
    b = Board(t, players, overrides)
    markers = t.markers(players)
    season_turns = [0] * players
    occupied_ok = False
    root_gains = 0
    ending = False
    for season, event, seat, a, bb, c in rep.events.tolist():
        if event in (L.EV_RUNE, L.EV_CARD, L.EV_TREE, L.EV_PASS) and ending:
            b.occ.clear()  # a new season: every marker came back
            b.tree.clear()
            ending = False
        if event in SEASON_END and not ending:  # every marker was placed or passed
            assert season_turns == [int(markers[season])] * players
            season_turns = [0] * players
            ending = True
        if event in (L.EV_CARD, L.EV_TREE, L.EV_PASS):
            season_turns[seat] += 1
        if event == L.EV_SETUP_CARD:
            assert t.card_kind[bb] == L.START and a not in b.slots
            b.slots[a] = bb
        elif event == L.EV_ROOT:
            b.root[a] = [x for x in (bb, c) if x >= 0]
            for x in b.root[a]:
                b.supply[x] -= 1
        elif event == L.EV_RUNE:
            b.hands[seat].remove(a)
            b.played_runes += 1
            occupied_ok = bb == L.RUNE_OCCUPIED
        elif event == L.EV_DRAW_RUNE:
            b.stack -= 1
            b.hands[seat].append(a)
        elif event == L.EV_MOVE:
            src, dst = (a // L.MAX_SPACES, a % L.MAX_SPACES), (bb // L.MAX_SPACES,
                                                                 bb % L.MAX_SPACES)
            # c's piece: the mover's own, or (options.move_piece = "any") any piece
            assert c in b.occ[src] and not b.occ.get(dst) and src[0] != dst[0]
            assert b.move_any or c == seat
            b.occ[src].remove(c)
            b.occ[dst] = [c]
        elif event == L.EV_CARD:
            assert b.slots[a] == c and bb < b.card_spaces(a)
            here = b.occ.setdefault((a, bb), [])
            # A free space; or, after an "occupied" Rune, one that holds no marker of the
            # player's (and, with options.occupied_count = "one", one piece only).
            assert not here or (occupied_ok and seat not in here
                                and (b.occupied_any_count or len(here) == 1))
            here.append(seat)
            occupied_ok = False
        elif event == L.EV_TREE:
            here = b.tree.setdefault(a, [])
            assert not here or (occupied_ok and b.occupied_tree and seat not in here
                                and (b.occupied_any_count or len(here) == 1))
            here.append(seat)
            occupied_ok = False
            if t.tree[a, L.TR_ROOT]:
                for x in b.root.pop(a):
                    b.held[seat][x] += 1
                    root_gains += 1
        elif event == L.EV_PASS:
            occupied_ok = False
        elif event == L.EV_PAY:
            assert b.held[seat][a] >= bb, "a cost paid with tokens not held"
            if b.returns:
                b.held[seat][a] -= bb
                b.supply[a] += bb
        elif event == L.EV_GAIN:
            if root_gains:  # already counted from the root space
                root_gains -= bb
            else:
                b.supply[a] -= bb
                b.held[seat][a] += bb
        elif event == L.EV_POINTS:
            b.points[seat] += a
        elif event == L.EV_BLOCK:
            assert not b.occ.get((a, bb)) and bb < b.card_spaces(a)
            b.occ[(a, bb)] = [L.NEUTRAL]
        elif event == L.EV_COMPLETE:
            assert b.slots[a] == bb and b.complete(a)
        elif event == L.EV_INCOMPLETE:
            assert b.slots[a] == bb and not b.complete(a)
        elif event == L.EV_SCORE:
            assert b.on_card(a, seat), "a player scored a card without a marker on it"
            card = b.slots[a]
            colour = t.card_colour[card] if c == L.SRC_COMPLETE else t.card_next[card]
            assert bb == b.held[seat][colour]
            b.points[seat] += bb
        elif event == L.EV_REPLACE:
            complete = b.complete(a)
            assert b.slots[a] == bb
            if c >= 0:
                want = t.card_colour[bb] if complete else t.card_next[bb]
                assert t.card_kind[c] == L.JOURNEY and t.card_colour[c] == want
                # (the old card may come straight back: it is discarded before the draw)
                assert c not in [v for k, v in b.slots.items() if k != a]
            b.slots[a] = c
        elif event == L.EV_NEW_START:
            assert t.card_kind[a] == L.NEW_START and a not in b.slots.values()
            b.slots[len(b.slots)] = a
        elif event == L.EV_MAJORITY:
            b.points[seat] += bb
        b.check_tokens()
    ends = [e for e in rep.events.tolist() if e[1] == L.EV_END]
    assert len(ends) == 1 and ends[0][3] == t.seasons
    assert int(rep.out[L.O_ROUNDS][0]) == t.seasons
    assert [int(v) for v in rep.out[L.O_SCORE][0]] == b.points
    assert all(p >= 0 for p in b.points)
    np.testing.assert_array_equal(rep.out[L.O_TOKENS][0], np.array(b.held))
