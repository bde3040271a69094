"""Carnuta's rollout (lookahead) player: strength, determinism, its playouts, and that it
decides from public information only (the hidden order of the Day and Night decks and of
the discard piles never changes a decision)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.gamekit.scratch import Decision
from simkit.games import get_game
from simkit.games.carnuta import layout as L
from simkit.games.carnuta import options as O
from simkit.games.carnuta import play as P
from simkit.games.carnuta.layout import GREEDY
from simkit.kernels.trace import new_trace_stub
from simkit.rng import py_game_seed, py_stream_state
from simkit.testing import (
    assert_same_across_threads_and_chunks,
    assert_tuned_rollout_matches_planner,
)
from strategies.carnuta import STRATEGIES

GREEDY_PRM = next(s for s in STRATEGIES if s.name == "greedy").vector()
ROLLOUT = next(s for s in STRATEGIES if s.name == "rollout")


@pytest.fixture(scope="module")
def cn():
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    return game, compiled


def test_beats_greedy(cn):
    game, compiled = cn
    names = ["rollout", "greedy", "greedy", "greedy"]
    lineup = build_lineup(game, names, 4, ["rollout.rollouts=2", "rollout.candidates=4"])
    cols = game.simulate(compiled, lineup, 7, 0, 160)
    per_game = np.where(cols["strategy"] == 0, cols["win_share"], 0).sum(axis=1)
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(len(per_game))
    assert per_game.mean() - half > 0.25  # fair share 0.25


def test_deterministic_across_threads_and_chunks(cn):
    game, compiled = cn
    lineup = build_lineup(game, ["rollout", "planner", "greedy"], 3,
                          ["rollout.rollouts=2", "rollout.candidates=3"])
    assert_same_across_threads_and_chunks(game, compiled, lineup, 5, 24)


def test_parameters_matter(cn):
    """Fewer rollouts, a horizon, fewer candidates, another policy, no prior or other
    planner weights change decisions (the parameters are live)."""
    game, compiled = cn
    base_prm = ["rollout.rollouts=2", "rollout.candidates=3"]
    base = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2, base_prm),
                         3, 0, 16)
    for setting in ("rollout.rollouts=1", "rollout.horizon=1", "rollout.candidates=2",
                    "rollout.policy=0", "rollout.prior=0", "rollout.take_weight=2.5"):
        other = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2,
                                                     [*base_prm, setting]), 3, 0, 16)
        assert not np.array_equal(base["score"], other["score"]), setting


def test_tuned_policy_file_matches_the_tuned_planner(cn):
    """configs/tuned/carnuta_rollout.toml gives the rollout the tuned planner's weights."""
    assert_tuned_rollout_matches_planner(cn[0], STRATEGIES, "carnuta")


@pytest.mark.parametrize("setting, message", [
    ("rollout.rollouts=0", "rollouts = 0.0 is out of range [1.0, 64.0]"),
    ("rollout.rollouts=65", "rollouts = 65.0 is out of range [1.0, 64.0]"),
    ("rollout.horizon=31", "horizon = 31.0 is out of range [0.0, 30.0]"),
    ("rollout.candidates=0", "candidates = 0.0 is out of range [1.0, 64.0]"),
    ("rollout.policy=2", "policy = 2.0 is out of range [0.0, 1.0]"),
    ("rollout.prior=1.5", "prior = 1.5 is out of range [0.0, 1.0]"),
    ("rollout.depth=3", "has no parameter 'depth'"),
])
def test_parameter_errors(cn, setting, message):
    game, _ = cn
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["rollout", "greedy"], 2, [setting])


def started(t, players: int, seed: int) -> tuple:
    """A game's scratch, set up by the rules as `play_game` sets it up."""
    scratch = P.new_scratch(t)
    scratch.rngs[0, 0] = py_stream_state(seed, 0)
    P.state_setup(t, players, scratch, scratch.rngs[0], new_trace_stub(L.N_COLS), False)
    return scratch


def play_out(t, players: int, scratch, sid: int, prm, horizon: int) -> int:
    """Play on from the scratch's pending decision, every seat by `sid` (the deal and the
    strategies drawing from the deal stream, as in a rollout's playout)."""
    sc = scratch
    return P.playout(t, players, sc.pub, sc.hid, sc.cnt, sc.rngs[0], sc.opts, sid, prm,
                     horizon, new_trace_stub(L.N_COLS))


OPTION_VALUES = [(), ("options.take_runes=choose",), ("options.flip_runes=some",),
                 ("options.final_turns=false",), ("options.starting_card_counts=false",),
                 ("options.sickle_after_actions=false",), ("options.tie_break=shared",),
                 ("options.salt_on_starting_card=false",)]


@pytest.mark.parametrize("overrides", OPTION_VALUES, ids=lambda o: o[0] if o else "default")
@pytest.mark.parametrize("strategy", ["greedy", "planner"])
def test_playout_replays_whole_games(overrides, strategy):
    """`playout` (the rollout player's loop) plays whole games exactly as `play_game` does,
    every result column, under every rule option's non-default value: a playout plans with
    the rules the game is played by. (Greedy and the planner with ties = 1 draw no random
    numbers, so the playout's single stream deals exactly as the game's deal stream.)"""
    game = get_game("carnuta")
    compiled = game.compile(game.load_config(overrides))
    t = compiled.tables
    for players in (2, 3, 4):
        lineup = build_lineup(game, [strategy], players, (f"{strategy}.ties=1",))
        cols = game.simulate(compiled, lineup, 11, 0, 20)
        out = game.new_outputs(compiled, 20, players)
        out[L.O_STRATEGY][:] = cols["strategy"]
        for g in range(20):
            scratch = started(t, players, py_game_seed(11, g))
            rounds = play_out(t, players, scratch, lineup.ids[0], lineup.params[0], 0)
            P.game_end(t, players, scratch.pub, scratch.hid, scratch.cnt, out, g,
                       scratch.ranking[0], 0)  # as the loop's play_game ends a game
            assert rounds == cols["rounds"][g, 0]
        replayed = game.columns(compiled, out)
        assert replayed.keys() == cols.keys()
        for name, column in cols.items():
            np.testing.assert_array_equal(replayed[name], column, err_msg=name)


def permute_hidden(t, scratch, rng: np.random.Generator) -> np.ndarray:
    """A copy of the hidden state with each deck's undrawn part and each discard pile in a
    new order (the piles: views of it, layout.piles)."""
    hid = scratch.hid.copy()
    _tops, _starts, deck, discard = L.piles(t, hid)
    for d in range(2):
        lo, hi = hid[L.PILE_TOP + d], hid[L.PILE_END + d]
        deck[d, lo:hi] = rng.permutation(deck[d, lo:hi])
        n_disc = hid[L.PILE_DISCARDS + d]
        discard[d, :n_disc] = rng.permutation(discard[d, :n_disc])
    return hid


def test_never_reads_hidden_orders(cn):
    """Permuting what is face down (each deck's undrawn cards, and the discard piles' order)
    never changes an action, state by state and stream by stream; changing the seat's
    stream does (so the test can see differences)."""
    _, compiled = cn
    t = compiled.tables
    params = ROLLOUT.vector({"rollouts": 2, "candidates": 5})
    rng = np.random.default_rng(3)
    differ = 0
    for case in range(24):
        players = 2 + case % 3
        scratch = started(t, players, int(rng.integers(1 << 62)))
        rounds = case % 6  # 0 to 5 rounds, then the start of a round
        if rounds:
            play_out(t, players, scratch, GREEDY, GREEDY_PRM, rounds)
        pub, opts, hid, cnt = scratch.pub, scratch.opts, scratch.hid, scratch.cnt
        if pub[L.FINAL] and rounds:
            continue  # the game is over
        pub[L.ROUND] = rounds
        pub[L.SEAT] = 0
        pub[L.STEP] = L.STEP_ACTION
        pub[L.ACTIONS_LEFT] = 2 - case % 2  # a turn's first or second action
        n = O.action_options(t.card, t.rules[L.R_TAKE_CHOOSE], t.rules[L.R_FLIP_SOME], pub,
                             hid, 0, opts, -1)
        hidden = permute_hidden(t, scratch, rng)
        before = [a.copy() for a in (pub, opts, hid)]
        choices = []
        for stream in range(6):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for h in (hid, hidden):
                seen = Decision(pub, h, cnt, scratch.search)
                picks.append(P.rollout_choice(t, players, 0, seen, opts, n, params,
                                              state.copy()))
            for a, b in zip(before, (pub, opts, hid), strict=True):
                np.testing.assert_array_equal(a, b)  # the real state is left untouched
            assert picks[0] == picks[1], f"case {case}: a hidden order changed a decision"
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0  # decisions do depend on the seat's own stream
