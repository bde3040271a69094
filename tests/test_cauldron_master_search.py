"""The search player in Cauldron Master: it never reads hidden information (the undealt
deck's order, the witches chosen secretly before it this round), plays legal options,
replays identically through batch and traced play, and is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.gamekit.scratch import Decision
from simkit.games.cauldron_master import layout as L
from simkit.games.cauldron_master import options as O
from simkit.games.cauldron_master import play as P
from simkit.rng import py_stream_state
from simkit.testing import assert_same_across_threads_and_chunks
from strategies.cauldron_master import STRATEGIES
from tests.test_rollout import deck_of, mid_game


def test_never_reads_the_deck_order_or_secret_witches(cm):
    """Permuting the undealt deck and changing the witches the earlier seats chose this
    round (both hidden) never changes a decision, state by state and stream by stream;
    the seat's own stream does (so the test can see differences)."""
    _, compiled = cm
    t = compiled.tables
    params = next(s for s in STRATEGIES if s.name == "search").vector({"iterations": 24})
    rng = np.random.default_rng(5)
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    ss = P.new_search_scratch(t)
    differ = 0
    for case in range(24):
        players = 2 + case % 3
        pub, hid, cnt = mid_game(t, players, rng)
        seat = 1 + int(rng.integers(players - 1))  # someone chose before it
        pub[L.SEAT] = seat
        pub[L.REVEALED: L.REVEALED + L.MAX_PLAYERS] = -1
        n = O.pending_options(t, pub, hid, opts)
        hidden = []
        for _ in range(2):
            h = hid.copy()
            deck, top = deck_of(t, h), h[L.TOP]
            deck[top:] = rng.permutation(deck[top:])
            h[L.CHOSEN:L.CHOSEN + seat] = rng.integers(0, t.witch.shape[0], seat)
            hidden.append(h)
        choices = []
        for stream in range(4):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for h in hidden:
                st, p, h2 = state.copy(), pub.copy(), h.copy()
                seen = Decision(p, h2, cnt, ss)
                picks.append(P.search_choice(t, players, seat, seen, opts, n, params, st))
                np.testing.assert_array_equal(p, pub)  # the real state is left untouched
                np.testing.assert_array_equal(h2, h)
            assert picks[0] == picks[1], f"case {case}: hidden information changed a decision"
            assert 0 <= picks[0] < n
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0


def test_legal_and_replayed_identically(cm):
    """Every option it plays is a row of the table offered, and every game replays through
    traced play (`simkit play`) to the same results as batch play."""
    game, compiled = cm
    lineup = build_lineup(game, ["search", "planner", "rollout"], 3,
                          ["search.iterations=8", "rollout.rollouts=2"])
    cols = game.simulate(compiled, lineup, 5, 0, 6)
    for g in range(6):
        replay = game.replay(compiled, lineup, 5, g)
        chosen, offered = replay.decisions[:, 4], replay.decisions[:, 3]
        assert ((chosen >= 0) & (chosen < offered)).all()
        for col, values in game.columns(compiled, replay.out).items():
            assert np.array_equal(values[0], cols[col][g]), (g, col)


def test_deterministic_across_threads_and_chunks(cm):
    game, compiled = cm
    lineup = build_lineup(game, ["search", "greedy", "planner"], 3, ["search.iterations=8"])
    assert_same_across_threads_and_chunks(game, compiled, lineup, 5, 24)


def test_parameters_matter(cm):
    game, compiled = cm
    base = game.simulate(compiled, build_lineup(game, ["search", "greedy"], 2,
                                                ["search.iterations=8"]), 3, 0, 12)
    for setting in ("search.iterations=4", "search.horizon=3", "search.policy=1"):
        other = game.simulate(compiled, build_lineup(
            game, ["search", "greedy"], 2, ["search.iterations=8", setting]), 3, 0, 12)
        assert not np.array_equal(base["score"], other["score"]), setting


@pytest.mark.parametrize("setting, message", [
    ("search.iterations=0", "iterations = 0.0 is out of range [1.0, 4096.0]"),
    ("search.policy=3", "policy = 3.0 is out of range [0.0, 2.0]"),
])
def test_parameter_errors(cm, setting, message):
    game, _ = cm
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["search", "greedy"], 2, [setting])
