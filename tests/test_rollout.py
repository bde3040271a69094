"""The rollout (lookahead) player: strength, determinism, its playouts, and that it decides
from public information only (the hidden deck order never changes a decision)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.gamekit.scratch import Decision
from simkit.games import get_game
from simkit.games.cauldron_master import layout as L
from simkit.games.cauldron_master import options as O
from simkit.games.cauldron_master import play as P
from simkit.games.cauldron_master import rules as R
from simkit.kernels.trace import new_trace_stub
from simkit.rng import py_game_seed, py_stream_state
from simkit.testing import assert_same_across_threads_and_chunks
from strategies.cauldron_master import STRATEGIES


def test_beats_greedy(cm):
    game, compiled = cm
    names = ["rollout", "greedy", "greedy", "greedy"]
    lineup = build_lineup(game, names, 4, ["rollout.rollouts=4"])
    cols = game.simulate(compiled, lineup, 7, 0, 200)
    per_game = np.where(cols["strategy"] == 0, cols["win_share"], 0).sum(axis=1)
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(len(per_game))
    assert per_game.mean() - half > 0.5  # fair share 0.25; measured about 0.9


def test_deterministic_across_threads_and_chunks(cm):
    game, compiled = cm
    lineup = build_lineup(game, ["rollout", "planner", "greedy"], 3, ["rollout.rollouts=3"])
    assert_same_across_threads_and_chunks(game, compiled, lineup, 5, 60)


def test_parameters_matter(cm):
    """More rollouts or a horizon change decisions (the parameters are live)."""
    game, compiled = cm
    base = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2), 3, 0, 60)
    for setting in ("rollout.rollouts=1", "rollout.horizon=1"):
        other = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2, [setting]),
                              3, 0, 60)
        assert not np.array_equal(base["score"], other["score"]), setting


@pytest.mark.parametrize("setting, message", [
    ("rollout.rollouts=0", "rollouts = 0.0 is out of range [1.0, 64.0]"),
    ("rollout.rollouts=65", "rollouts = 65.0 is out of range [1.0, 64.0]"),
    ("rollout.horizon=-1", "horizon = -1.0 is out of range [0.0, 50.0]"),
    ("rollout.depth=3", "has no parameter 'depth'"),
])
def test_parameter_errors(cm, setting, message):
    game, _ = cm
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["rollout", "greedy"], 2, [setting])


def _setup(t, n_players: int, seed: int) -> tuple:
    """pub, hidden state (the shuffled deck in it) and counters at the start of a game, set
    up by the rules as `play_game` sets it up (stream 0 of the game's seed deals)."""
    pub = np.zeros(L.PUB_SIZE, np.int32)
    hid = np.zeros(L.HID_SIZE, np.int64)
    cnt = np.zeros((L.MAX_PLAYERS, L.CT_SIZE), np.int64)
    deal = np.array([py_stream_state(seed, 0)], np.uint64)
    R.setup(t, n_players, pub, hid, cnt, deal, new_trace_stub(L.N_COLS), False)
    return pub, hid, cnt


def deck_of(t, hid: np.ndarray) -> np.ndarray:
    """The ingredient deck in the hidden state (a view): cards [hid[TOP]:] are undealt."""
    return hid[L.DECK:L.DECK + t.deck.shape[0]]


OPTION_VALUES = [(), ("options.picking_compulsory=false",), ("options.recipe_match=exact",),
                 ("options.tie_break=most_potions",), ("options.tie_break=hecate",),
                 ("options.end_trigger=deck_empty",), ("options.amateur_witch=true",),
                 ("options.recipe_choice=player",)]


@pytest.mark.parametrize("overrides", OPTION_VALUES, ids=lambda o: o[0] if o else "default")
@pytest.mark.parametrize("strategy", ["greedy", "planner"])
def test_playout_replays_whole_games(overrides, strategy):
    """`playout` (the rollout player's loop) plays whole games exactly as `play_game` does,
    every result column, under every rule option's non-default value: a playout plans with
    the rules the game is played by."""
    game = get_game("cauldron-master")
    compiled = game.compile(game.load_config(overrides))
    t = compiled.tables
    rs = P.new_rollout_scratch(t)
    for players in (2, 3, 4):
        lineup = build_lineup(game, [strategy], players, (f"{strategy}.ties=1",))
        cols = game.simulate(compiled, lineup, 11, 0, 30)
        out = game.new_outputs(compiled, 30, players)
        out[L.O_STRATEGY][:] = cols["strategy"]
        rng = np.zeros(1, np.uint64)
        for g in range(30):
            pub, hid, cnt = _setup(t, players, py_game_seed(11, g))
            sids = np.full(players, lineup.ids[0], np.int64)
            params = np.repeat(lineup.params[:1], players, axis=0)
            rounds = P.playout(t, players, pub, hid, cnt, sids, params, rng, -1, -1, 0, rs)
            P.game_end(t, players, pub, hid, cnt, out, g, np.zeros(players), 0)
            assert rounds == cols["rounds"][g, 0]
        replayed = game.columns(compiled, out)
        assert replayed.keys() == cols.keys()
        for name, column in cols.items():
            np.testing.assert_array_equal(replayed[name], column, err_msg=name)


def mid_game(t, players: int, rng: np.random.Generator) -> tuple:
    """A plausible round-start state: some rounds played, cards in cauldrons, scores: pub,
    hid (the deck dealt to hid[TOP]) and cnt."""
    pub, hid, cnt = _setup(t, players, int(rng.integers(1 << 62)))
    deck = deck_of(t, hid)
    top = int(hid[L.TOP])
    n_w = t.witch.shape[0]
    pub[L.ROUND] = int(rng.integers(0, 4))
    pub[L.HECATE] = pub[L.ROUND] % players
    for s in range(players):
        pub[L.SCORE + s] = int(rng.integers(0, 40))
        cnt[s, L.CT_POTIONS] = int(rng.integers(0, 4))
        for w in rng.choice(n_w, size=int(rng.integers(0, n_w)), replace=False):
            pub[L.hand_at(s, int(w))] = 0
        for k in range(int(t.rules[L.RU_CAULDRONS])):
            for _ in range(int(rng.integers(0, t.rules[L.RU_CAP + k]))):
                if top + 2 > len(deck):
                    break
                x = deck[top]
                top += 1
                pub[L.cauldron_at(s, k, x)] += 1
                pub[L.fill_at(s, k)] += 1
    pub[L.DECK_LEFT] = len(deck) - top
    hid[L.TOP] = top
    return pub, hid, cnt


def test_never_reads_the_deck_order(cm):
    """Permuting the undealt deck (hidden) never changes a decision, state by state and
    stream by stream; changing the seat's stream does (so the test can see differences).

    The other seats' secret witches this round are not even in the state the rollout
    player is given (the kernel keeps them out of `pub` until all have chosen), so only
    the deck needs a test."""
    _, compiled = cm
    t = compiled.tables
    spec = next(s for s in STRATEGIES if s.name == "rollout")
    params = spec.vector({"rollouts": 2})
    rng = np.random.default_rng(3)
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    rs = P.new_rollout_scratch(t)
    differ = 0
    for case in range(60):
        players = 2 + case % 3
        pub, hid, cnt = mid_game(t, players, rng)
        seat = int(rng.integers(players))
        pub[L.SEAT] = seat
        pub[L.REVEALED: L.REVEALED + L.MAX_PLAYERS] = -1
        n = O.pending_options(t, pub, hid, opts)
        other = hid.copy()
        deck, top = deck_of(t, other), hid[L.TOP]
        deck[top:] = rng.permutation(deck[top:])
        assert not np.array_equal(other, hid)
        choices = []
        for stream in range(6):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for h in (hid, other):
                st, p, h2 = state.copy(), pub.copy(), h.copy()
                seen = Decision(p, h2, cnt, rs)
                picks.append(P.rollout_choice(t, players, seat, seen, opts, n, params, st))
                np.testing.assert_array_equal(p, pub)  # the real state is left untouched
                np.testing.assert_array_equal(h2, h)
            assert picks[0] == picks[1], f"case {case}: the deck order changed a decision"
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0  # decisions do depend on the seat's own stream

