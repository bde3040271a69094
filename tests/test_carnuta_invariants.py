"""Carnuta invariants over hypothesis-chosen seeds, lineups and rule options, checked by
walking each kernel game's event record: all ingredient cards and runes accounted for at
every step, no hand above the limit at the end of a turn, padlocked spaces never hold
runes, scores are the per-card scoring, every game ends."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.carnuta import layout as L
from simkit.threads import available, using

OPTIONS = st.sampled_from([
    (),
    ('options.flip_runes="some"',),
    ('options.take_runes="choose"',),
    ("options.final_turns=false",),
    ("options.starting_card_counts=false",),
    ("options.sickle_after_actions=false",),
    ("options.salt_on_starting_card=false",),
    ('options.tie_break="shared"',),
    ("board.hand_limit=1", "track.end_cards=6", "board.sickles=5"),
])
_COMPILED: dict = {}


def compiled_for(game, overrides):
    if overrides not in _COMPILED:
        _COMPILED[overrides] = game.compile(game.load_config(overrides))
    return _COMPILED[overrides]


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**64 - 1), index=st.integers(0, 10**6),
       names=st.lists(st.sampled_from(["random", "greedy", "planner"]), min_size=4, max_size=4),
       overrides=OPTIONS)
def test_game_invariants(players, seed, index, names, overrides):
    game = get_game("carnuta")
    compiled = compiled_for(game, overrides)
    t = compiled.tables
    rep = game.replay(compiled, build_lineup(game, names[:players], players), seed, index)
    n_ing = t.n_ingredient_cards
    deck_left = [int((t.card_deck[:n_ing] == d).sum()) for d in range(2)]
    display = [-1] * L.N_SLOTS
    hands: list[list[int]] = [[] for _ in range(players)]
    tableau = [0] * players
    discards = [0, 0]
    starting: list[int] = []
    runes_on = [t.start_sun + t.start_moon] * players
    open_spaces = [t.spaces - t.padlocked] * players
    reserve = int(t.reserve[players].sum())
    total_runes = reserve + sum(runes_on)
    points = [0] * players
    ends = 0
    last_seat = -1
    for _rnd, event, seat, a, b, c in rep.events.tolist():
        if seat >= 0 and seat != last_seat and event != L.EV_SCORE:
            if last_seat >= 0:  # a turn ended: its hand is within the limit
                assert len(hands[last_seat]) <= t.hand_limit
            last_seat = seat
        if event == L.EV_SETUP:
            starting.append(a)
            assert a >= n_ing
        elif event == L.EV_REVEAL:
            d = a // L.SLOTS_PER_ROW
            assert display[a] == -1
            display[a] = b
            if b >= 0:
                assert t.card_deck[b] == d
                deck_left[d] -= 1
            assert deck_left[d] == c
        elif event == L.EV_TAKE:
            assert display[a] == b >= 0
            display[a] = -1
            hands[seat].append(b)
        elif event == L.EV_PLAY:
            hands[seat].remove(a)
            tableau[seat] += 1
        elif event == L.EV_PAY:
            runes_on[seat] -= b
            reserve += b
        elif event == L.EV_RUNES:
            runes_on[seat] += b
            reserve -= b
        elif event == L.EV_DISCARD:
            hands[seat].remove(a)
            discards[t.card_deck[a]] += 1
        elif event == L.EV_SICKLE:
            for slot in range(a * 4, a * 4 + 4):
                if display[slot] >= 0:
                    discards[a] += 1
                display[slot] = -1
        elif event == L.EV_RESHUFFLE:
            assert deck_left[a] == 0 and discards[a] == b
            discards[a] = 0
            deck_left[a] = b
        elif event == L.EV_PADLOCK:
            open_spaces[seat] += 1
            assert open_spaces[seat] == a <= t.spaces
        elif event == L.EV_END:
            ends += 1
        elif event == L.EV_SCORE:
            points[seat] += c
        # All 72 ingredient cards and all runes are somewhere, at every step.
        in_display = sum(1 for x in display if x >= 0)
        assert (sum(deck_left) + in_display + sum(map(len, hands)) + sum(tableau)
                + sum(discards)) == n_ing
        assert reserve + sum(runes_on) == total_runes and reserve >= 0
        for s in range(players):  # padlocked spaces never hold runes
            assert 0 <= runes_on[s] <= open_spaces[s]
    assert ends == 1, "every game ends exactly once"
    assert len(set(starting)) == players
    out = rep.out
    assert 1 <= out[L.O_ROUNDS][0] <= t.max_rounds
    assert list(out[L.O_SCORE][0]) == points
    assert (out[L.O_SCORE][0] >= 0).all() and (out[L.O_SCORE][0] < 2000).all()
    assert (out[L.O_POINTS][0].sum(axis=1) == out[L.O_SCORE][0]).all()
    assert abs(float(out[L.O_WIN_SHARE][0].sum()) - 1.0) < 1e-6
    assert (out[L.O_CARDS_PLAYED][0] == np.array(tableau)).all()


def test_determinism_threads_and_chunks():
    """Same seed, same results, whatever the thread count or chunking."""
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["planner", "greedy", "random"], 3)
    with using(1):
        one = game.simulate(compiled, lineup, 42, 0, 600)
        one = {k: np.array(v) for k, v in one.items()}
    with using(available()):
        parts = [game.simulate(compiled, lineup, 42, a, b - a)
                 for a, b in ((0, 7), (7, 300), (300, 600))]
    for key, value in one.items():
        assert np.array_equal(value, np.concatenate([np.array(p[key]) for p in parts])), key
