"""The rollout (lookahead) player: strength, determinism, its playouts, and that it decides
from public information only (the hidden deck order never changes a decision)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games.cauldron_master import kernel as K
from simkit.games.cauldron_master import layout as L
from simkit.rng import PyStream, py_game_seed, py_stream_state
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


def _setup(t, n_players: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """pub, shuffled deck and deck position at the start of a game, dealt as the kernel
    deals it (stream 0 of the game's seed)."""
    deal = PyStream(py_stream_state(seed, 0))
    deck = t.deck.copy()
    for i in range(len(deck) - 1, 0, -1):
        j = deal.randint(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    recipes = list(range(t.recipe.shape[0]))
    for i in range(len(recipes) - 1, 0, -1):
        j = deal.randint(i + 1)
        recipes[i], recipes[j] = recipes[j], recipes[i]
    pub = np.zeros(L.PUB_SIZE, np.int32)
    top = int(t.rules[L.RU_SUPPLY + n_players])
    for x in deck[:top]:
        pub[L.SUPPLY + x] += 1
    pub[L.N_PLAYERS] = n_players
    pub[L.DECK_LEFT] = len(deck) - top
    for s in range(n_players):
        pub[L.RECIPE + s] = recipes[s]
        pub[L.hand_at(s, 0): L.hand_at(s, 0) + t.witch.shape[0]] = 1
    return pub, deck, top


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_replays_greedy_games(cm, players):
    """`playout` (the rollout's own greedy round loop) plays a whole game exactly as
    `play_game` does with four greedy players: its rules are the kernel's."""
    game, compiled = cm
    t = compiled.tables
    lineup = build_lineup(game, ["greedy"], players)
    cols = game.simulate(compiled, lineup, 11, 0, 40)
    for g in range(40):
        pub, deck, top = _setup(t, players, py_game_seed(11, g))
        potions = np.zeros(L.MAX_PLAYERS, np.int64)
        rounds = K.playout(t, players, pub, deck, top, potions, -1, -1, 0,
                           K.new_rollout_scratch(t))
        np.testing.assert_array_equal(pub[L.SCORE: L.SCORE + players], cols["score"][g])
        np.testing.assert_array_equal(potions[:players], cols["potions"][g])
        assert rounds == cols["rounds"][g, 0]


def _mid_game(t, players: int, rng: np.random.Generator) -> tuple:
    """A plausible round-start state: some rounds played, cards in cauldrons, scores."""
    pub, deck, top = _setup(t, players, int(rng.integers(1 << 62)))
    n_w = t.witch.shape[0]
    pub[L.ROUND] = int(rng.integers(0, 4))
    pub[L.HECATE] = pub[L.ROUND] % players
    potions = np.zeros(L.MAX_PLAYERS, np.int64)
    for s in range(players):
        pub[L.SCORE + s] = int(rng.integers(0, 40))
        potions[s] = int(rng.integers(0, 4))
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
    return pub, deck, top, potions


def test_never_reads_the_deck_order(cm):
    """Permuting the undealt deck (hidden) never changes a decision, state by state and
    stream by stream; changing the seat's stream does (so the test can see differences).

    The other seats' secret witches this round are not even an argument of
    `rollout_decision` (the kernel keeps them out of `pub` until all have chosen), so
    only the deck needs a test."""
    _, compiled = cm
    t = compiled.tables
    spec = next(s for s in STRATEGIES if s.name == "rollout")
    params = spec.vector({"rollouts": 2})
    rng = np.random.default_rng(3)
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    offer = np.zeros(L.MAX_TYPES, np.int64)
    limits = np.zeros(L.MAX_COLOURS, np.int64)
    rs = K.new_rollout_scratch(t)
    differ = 0
    for case in range(60):
        players = 2 + case % 3
        pub, deck, top, potions = _mid_game(t, players, rng)
        seat = int(rng.integers(players))
        pub[L.SEAT] = seat
        pub[L.REVEALED: L.REVEALED + L.MAX_PLAYERS] = -1
        n = K.witch_options(t, pub, seat, opts, limits, offer)
        other = deck.copy()
        other[top:] = rng.permutation(other[top:])
        assert not np.array_equal(other, deck)
        choices = []
        for stream in range(6):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for d in (deck, other):
                st, p = state.copy(), pub.copy()
                picks.append(K.rollout_decision(t, players, p, opts, n, d, top, potions,
                                                params, st, rs))
                np.testing.assert_array_equal(p, pub)  # the real state is left untouched
            assert picks[0] == picks[1], f"case {case}: the deck order changed a decision"
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0  # decisions do depend on the seat's own stream

