"""Inori's rollout (lookahead) player: strength, determinism, its playouts, and that it
decides from public information only (the hidden order of the Journey decks, the New
Start deck and the Rune stack never changes a decision)."""

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
from simkit.rng import py_game_seed, py_stream_state
from simkit.testing import (
    assert_same_across_threads_and_chunks,
    assert_tuned_rollout_matches_planner,
)
from strategies.inori import STRATEGIES

GREEDY_PRM = next(s for s in STRATEGIES if s.name == "greedy").vector()


@pytest.fixture(scope="module")
def ino():
    game = get_game("inori")
    compiled = game.compile(game.load_config())
    return game, compiled


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


def started(t, players: int, seed: int) -> tuple:
    """A game's scratch, set up by the rules as `play_game` sets it up."""
    scratch = P.new_scratch(t)
    scratch.rngs[0, 0] = py_stream_state(seed, 0)
    P.state_setup(t, players, scratch, scratch.rngs[0], new_trace_stub(L.N_COLS), False)
    return scratch


def play_out(t, players: int, scratch, sid: int, prm, horizon: int) -> int:
    """Play on from the scratch's state, every seat by `sid` (the deal and the strategies
    drawing from the deal stream, as in a rollout's playout)."""
    sc = scratch
    sids = np.full(L.MAX_PLAYERS, sid, np.int64)
    prms = np.tile(np.asarray(prm, np.float64), (L.MAX_PLAYERS, 1))
    return P.playout(t, players, sc.pub, sc.hid, sc.cnt, sc.opts, sc.rngs[0:1], sids, prms,
                     horizon, new_trace_stub(L.N_COLS))


OPTION_VALUES = [(), ('options.cost_payment="hold"',), ('options.majority_tie="unpayable"',),
                 ("options.altar_cost=0",), ("options.altar_cost=2",),
                 ("options.altar_repeat_effect=false",),
                 ('options.fewest_points_tie="reverse_turn_order"',),
                 ('options.fewest_points_tie="random"',), ('options.new_start_use="none"',),
                 ('options.empty_deck="leave_empty"',), ('options.root_tokens="fixed"',),
                 ('options.specific_colours="per_token"',),
                 ('options.rune_timing="before_offering"',),
                 ('options.move_piece="own"',), ('options.win_tie="most_tokens"',),
                 ('options.occupied_spaces="cards"',), ('options.occupied_count="one"',)]


@pytest.mark.parametrize("overrides", OPTION_VALUES, ids=lambda o: o[0] if o else "default")
@pytest.mark.parametrize("strategy", ["greedy", "planner"])
def test_playout_replays_whole_games(overrides, strategy):
    """`playout` (the rollout player's loop) plays whole games exactly as `play_game` does,
    every result column, under every rule option's non-default value: a playout plans with
    the rules the game is played by. (Greedy and the planner with ties = 1 draw no random
    numbers, so the playout's single stream deals exactly as the game's deal stream.)"""
    game = get_game("inori")
    compiled = game.compile(game.load_config(overrides))
    t = compiled.tables
    for players in (2, 3, 4):
        lineup = build_lineup(game, [strategy], players, (f"{strategy}.ties=1",))
        cols = game.simulate(compiled, lineup, 11, 0, 20)
        out = game.new_outputs(compiled, 20, players)
        out[L.O_STRATEGY][:] = cols["strategy"]
        for g in range(20):
            scratch = started(t, players, py_game_seed(11, g))
            ends = play_out(t, players, scratch, lineup.ids[0], lineup.params[0], 0)
            P.game_end(t, players, scratch.pub, scratch.hid, scratch.cnt, out, g,
                       scratch.ranking[0], 0)
            assert ends == t.rules[L.R_SEASONS]
        replayed = game.columns(compiled, out)
        assert replayed.keys() == cols.keys()
        for name, column in cols.items():
            np.testing.assert_array_equal(replayed[name], column, err_msg=name)


def permute_hidden(t, scratch, rng: np.random.Generator) -> tuple:
    """A copy of the scratch's hid with each hidden pile's undrawn part (and each discard
    pile) in a new order (the piles: views of it, layout.piles)."""
    hid = scratch.hid.copy()
    tops, rtops, stack, new_starts, _starts, decks, discards = L.piles(t, hid)
    for x in range(decks.shape[0]):
        lo, hi = tops[0, x], tops[1, x]
        decks[x, lo:hi] = rng.permutation(decks[x, lo:hi])
        discards[x, :tops[2, x]] = rng.permutation(discards[x, :tops[2, x]])
    new_starts[rtops[0]:rtops[1]] = rng.permutation(new_starts[rtops[0]:rtops[1]])
    stack[rtops[2]:rtops[3]] = rng.permutation(stack[rtops[2]:rtops[3]])
    return hid


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
        scratch = started(t, players, int(rng.integers(1 << 62)))
        seasons_played = case % 4  # 0 to 3 seasons, then a season's start
        if seasons_played:
            play_out(t, players, scratch, GREEDY, GREEDY_PRM, seasons_played)
        pub, opts, hid, cnt = scratch.pub, scratch.opts, scratch.hid, scratch.cnt
        hv = hid[L.HV:L.HV + L.MAX_COLOURS]  # the holdings' work slot
        # The state next_decision leaves at the season's first offering.
        seat = R.next_seat(players, pub, hid)
        R.begin_turn(pub, hid, cnt, seat)
        hid[L.PHASE] = L.PH_END_TURN
        pub[L.STEP] = L.STEP_OFFER
        n = O.offer_rows(t, pub, seat, opts, hv, False, np.zeros(0), np.zeros(1, np.uint64))
        hidden = permute_hidden(t, scratch, rng)
        before = [a.copy() for a in (pub, hid, opts, cnt)]
        choices = []
        for stream in range(6):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for h in (hid, hidden):
                decision = Decision(pub, h, cnt, trace)
                picks.append(P.rollout_choice(t, players, seat, decision, opts, n, params,
                                              state.copy()))
            for a, b in zip(before, (pub, hid, opts, cnt), strict=True):
                np.testing.assert_array_equal(a, b)  # the real state is left untouched
            assert picks[0] == picks[1], f"case {case}: a hidden order changed a decision"
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0  # decisions do depend on the seat's own stream
