"""The search player in Inori: it never reads hidden information (the order of the
Journey decks and discards, the New Start deck and the Rune stack), plays legal options,
replays identically through batch and traced play, and is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.gamekit.scratch import Decision
from simkit.games import get_game
from simkit.games.inori import layout as L
from simkit.games.inori import options as O
from simkit.games.inori import play as P
from simkit.games.inori import rules as R
from simkit.games.inori.layout import GREEDY
from simkit.kernels.trace import new_trace_stub
from simkit.rng import py_stream_state
from simkit.testing import assert_same_across_threads_and_chunks
from strategies.inori import STRATEGIES
from tests.test_inori_rollout import GREEDY_PRM, permute_hidden, play_out, started

SEARCH = next(s for s in STRATEGIES if s.name == "search")


@pytest.fixture(scope="module")
def ino():
    game = get_game("inori")
    return game, game.compile(game.load_config())


def test_never_reads_hidden_orders(ino):
    """Permuting what is face down never changes a decision, state by state and stream by
    stream; changing the seat's stream does (so the test can see differences)."""
    _, compiled = ino
    t = compiled.tables
    params = SEARCH.vector({"iterations": 6, "horizon": 40})
    rng = np.random.default_rng(4)
    trace = new_trace_stub(L.N_COLS)
    differ = 0
    for case in range(16):
        players = 2 + case % 3
        scratch = started(t, players, int(rng.integers(1 << 62)))
        seasons_played = case % 4
        if seasons_played:
            play_out(t, players, scratch, GREEDY, GREEDY_PRM, seasons_played)
        pub, opts, hid, cnt = scratch.pub, scratch.opts, scratch.hid, scratch.cnt
        hv = hid[L.HV:L.HV + L.MAX_COLOURS]  # the holdings' work slot
        seat = R.next_seat(players, pub, hid)
        R.begin_turn(pub, hid, cnt, seat)
        hid[L.PHASE] = L.PH_END_TURN
        pub[L.STEP] = L.STEP_OFFER
        n = O.offer_rows(t, pub, seat, opts, hv, False, np.zeros(0), np.zeros(1, np.uint64))
        hidden = permute_hidden(t, scratch, rng)
        before = [a.copy() for a in (pub, hid, opts, cnt)]
        choices = []
        for stream in range(4):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for h in (hid, hidden):
                decision = Decision(pub, h, cnt, trace)
                picks.append(P.search_choice(t, players, seat, decision, opts, n, params,
                                             state.copy()))
            for a, b in zip(before, (pub, hid, opts, cnt), strict=True):
                np.testing.assert_array_equal(a, b)  # the real state is left untouched
            assert picks[0] == picks[1], f"case {case}: a hidden order changed a decision"
            assert 0 <= picks[0] < n
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0


def test_legal_replayed_identically_and_deterministic(ino):
    game, compiled = ino
    lineup = build_lineup(game, ["search", "planner", "greedy"], 3,
                          ["search.iterations=2", "search.horizon=20"])
    cols = assert_same_across_threads_and_chunks(game, compiled, lineup, 5, 9)
    for g in range(0, 9, 4):
        replay = game.replay(compiled, lineup, 5, g)
        chosen, offered = replay.decisions[:, 4], replay.decisions[:, 3]
        assert ((chosen >= 0) & (chosen < offered)).all()
        for col, values in game.columns(compiled, replay.out).items():
            assert np.array_equal(values[0], cols[col][g]), (g, col)


@pytest.mark.parametrize("setting, message", [
    ("search.iterations=0", "iterations = 0.0 is out of range [1.0, 4096.0]"),
    ("search.policy=3", "policy = 3.0 is out of range [0.0, 2.0]"),
    ("search.horizon=-1", "horizon = -1.0 is out of range [0.0, 1000.0]"),
])
def test_parameter_errors(ino, setting, message):
    game, _ = ino
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["search", "greedy"], 2, [setting])
