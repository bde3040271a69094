"""Inori's rollout (lookahead) player: strength, determinism, its playouts, and that it
decides from public information only (the hidden order of the Journey decks, the New
Start deck and the Rune stack never changes a decision)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games import get_game
from simkit.games.inori import kernel as K
from simkit.games.inori import layout as L
from simkit.kernels.trace import new_trace_stub
from simkit.rng import py_game_seed, py_stream_state
from simkit.testing import (
    assert_same_across_threads_and_chunks,
    assert_tuned_rollout_matches_planner,
)
from strategies.inori import GREEDY, STRATEGIES


@pytest.fixture(scope="module")
def ino():
    game = get_game("inori")
    compiled = game.compile(game.load_config())
    return game, compiled


def _greedy_prm() -> np.ndarray:
    return np.ones(6, np.float64)


def test_beats_greedy(ino):
    game, compiled = ino
    names = ["rollout", "greedy", "greedy", "greedy"]
    lineup = build_lineup(game, names, 4, ["rollout.rollouts=4"])
    cols = game.simulate(compiled, lineup, 7, 0, 200)
    per_game = np.where(cols["strategy"] == 0, cols["win_share"], 0).sum(axis=1)
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(len(per_game))
    assert per_game.mean() - half > 0.5  # fair share 0.25; measured about 0.89


def test_deterministic_across_threads_and_chunks(ino):
    game, compiled = ino
    lineup = build_lineup(game, ["rollout", "planner", "greedy"], 3,
                          ["rollout.rollouts=2", "rollout.candidates=4"])
    assert_same_across_threads_and_chunks(game, compiled, lineup, 5, 60)


def test_parameters_matter(ino):
    """Fewer rollouts, a horizon or fewer candidates change decisions (the parameters are
    live)."""
    game, compiled = ino
    base = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2,
                                                ["rollout.rollouts=2"]), 3, 0, 40)
    for setting in ("rollout.rollouts=1", "rollout.horizon=1", "rollout.candidates=1",
                    "rollout.policy=0", "rollout.token_value=0.4"):
        other = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2,
                                                     ["rollout.rollouts=2", setting]), 3, 0, 40)
        assert not np.array_equal(base["score"], other["score"]), setting


def test_tuned_policy_file_matches_the_tuned_planner(ino):
    """configs/tuned/inori_rollout.toml gives the rollout the tuned planner's weights."""
    assert_tuned_rollout_matches_planner(ino[0], STRATEGIES, "inori")


@pytest.mark.parametrize("setting, message", [
    ("rollout.rollouts=0", "rollouts = 0.0 is out of range [1.0, 64.0]"),
    ("rollout.rollouts=65", "rollouts = 65.0 is out of range [1.0, 64.0]"),
    ("rollout.horizon=5", "horizon = 5.0 is out of range [0.0, 4.0]"),
    ("rollout.candidates=0", "candidates = 0.0 is out of range [1.0, 64.0]"),
    ("rollout.policy=2", "policy = 2.0 is out of range [0.0, 1.0]"),
    ("rollout.depth=3", "has no parameter 'depth'"),
])
def test_parameter_errors(ino, setting, message):
    game, _ = ino
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["rollout", "greedy"], 2, [setting])


def _playout(t, players: int, scratch, trace, resume: int, horizon: int) -> int:
    (pub, opts, decks, discards, tops, new_starts, stack, rtops, rngs, tied, _starts, st,
     done, hv) = scratch
    return K.playout(t, players, pub, decks, discards, tops, new_starts, stack, rtops,
                     rngs[0], tied, st, done, hv, opts, GREEDY, _greedy_prm(), resume, horizon,
                     trace)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_replays_greedy_games(ino, players):
    """`playout` (the rollout's own greedy season loop) plays a whole game exactly as
    `play_game` does with greedy players: its rules are the kernel's."""
    game, compiled = ino
    t = compiled.tables
    cols = game.simulate(compiled, build_lineup(game, ["greedy"], players), 11, 0, 30)
    trace = new_trace_stub(L.N_COLS)
    for g in range(30):
        scratch = K.new_scratch(t)
        K.setup_game(t, players, np.uint64(py_game_seed(11, g)), scratch, trace, False)
        ends = _playout(t, players, scratch, trace, 0, 0)
        pub = scratch[0]
        scores = [pub[L.player_at(p, L.P_SCORE)] for p in range(players)]
        np.testing.assert_array_equal(scores, cols["score"][g])
        assert ends == t.rules[L.R_SEASONS]


def _permute_hidden(scratch, rng: np.random.Generator) -> tuple:
    """Copies of the hidden piles with each one's undrawn part (and each discard pile)
    in a new order."""
    _, _, decks, discards, tops, new_starts, stack, rtops = scratch[:8]
    decks, discards = decks.copy(), discards.copy()
    new_starts, stack = new_starts.copy(), stack.copy()
    for x in range(decks.shape[0]):
        lo, hi = tops[0, x], tops[1, x]
        decks[x, lo:hi] = rng.permutation(decks[x, lo:hi])
        discards[x, :tops[2, x]] = rng.permutation(discards[x, :tops[2, x]])
    new_starts[rtops[0]:rtops[1]] = rng.permutation(new_starts[rtops[0]:rtops[1]])
    stack[rtops[2]:rtops[3]] = rng.permutation(stack[rtops[2]:rtops[3]])
    return decks, discards, new_starts, stack


def test_never_reads_hidden_orders(ino):
    """Permuting what is face down (each Journey deck's undrawn cards and discards, the
    New Start deck, the Rune stack) never changes an offering, state by state and stream
    by stream; changing the seat's stream does (so the test can see differences)."""
    _, compiled = ino
    t = compiled.tables
    spec = next(s for s in STRATEGIES if s.name == "rollout")
    params = spec.vector({"rollouts": 2, "candidates": 6})
    rng = np.random.default_rng(3)
    trace = new_trace_stub(L.N_COLS)
    differ = 0
    for case in range(40):
        players = 2 + case % 3
        scratch = K.new_scratch(t)
        K.setup_game(t, players, np.uint64(rng.integers(1 << 62)), scratch, trace, False)
        seasons_played = case % 4  # 0 to 3 seasons, then a season's start
        if seasons_played:
            _playout(t, players, scratch, trace, 0, seasons_played)
        pub, opts, decks, discards, tops, new_starts, stack, rtops = scratch[:8]
        hv = scratch[13]
        seat = int(pub[L.FIRST])
        pub[L.SEAT] = seat
        pub[L.STEP] = L.STEP_OFFER
        n = K.offer_rows(t, pub, seat, opts, hv, False, np.zeros(0))
        hidden = _permute_hidden(scratch, rng)
        before = [a.copy() for a in (pub, opts, decks, discards, tops, new_starts, stack,
                                     rtops)]
        choices = []
        for stream in range(6):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for d, dc, ns, sk in ((decks, discards, new_starts, stack), hidden):
                picks.append(K.rollout_offer(t, players, pub, opts, n, d, dc, tops, ns, sk,
                                             rtops, params, state.copy(), trace))
            for a, b in zip(before, (pub, opts, decks, discards, tops, new_starts, stack,
                                     rtops), strict=True):
                np.testing.assert_array_equal(a, b)  # the real state is left untouched
            assert picks[0] == picks[1], f"case {case}: a hidden order changed a decision"
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0  # decisions do depend on the seat's own stream
