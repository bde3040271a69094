"""The search player in Carnuta: it never reads hidden information (the order of the
decks' undrawn cards and of the discard piles), plays legal options, replays identically
through batch and traced play, and is deterministic."""

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
from simkit.games.carnuta import scoring as S
from simkit.games.carnuta.layout import GREEDY
from simkit.kernels.search_tree import FIRST, KEY, NEXT, SEARCH_PARAMS
from simkit.rng import py_stream_state
from simkit.testing import assert_same_across_threads_and_chunks
from strategies.carnuta import PLANNER_DEFAULTS, STRATEGIES, planner_values
from tests.test_carnuta_rollout import GREEDY_PRM, permute_hidden, play_out, started

SEARCH = next(s for s in STRATEGIES if s.name == "search")


@pytest.fixture(scope="module")
def cn():
    game = get_game("carnuta")
    return game, game.compile(game.load_config())


def test_never_reads_hidden_orders(cn):
    """Permuting what is face down never changes a decision, state by state and stream by
    stream; changing the seat's stream does (so the test can see differences)."""
    _, compiled = cn
    t = compiled.tables
    params = SEARCH.vector({"iterations": 6, "horizon": 30})
    rng = np.random.default_rng(4)
    differ = 0
    for case in range(16):
        players = 2 + case % 3
        scratch = started(t, players, int(rng.integers(1 << 62)))
        rounds = case % 6
        if rounds:
            play_out(t, players, scratch, GREEDY, GREEDY_PRM, rounds)
        pub, opts, hid, cnt = scratch.pub, scratch.opts, scratch.hid, scratch.cnt
        tree = scratch.search
        if pub[L.FINAL] and rounds:
            continue
        pub[L.ROUND] = rounds
        pub[L.SEAT] = 0
        pub[L.STEP] = L.STEP_ACTION
        pub[L.ACTIONS_LEFT] = 2 - case % 2
        n = O.action_options(t.card, t.rules[L.R_TAKE_CHOOSE], t.rules[L.R_FLIP_SOME], pub,
                             hid, 0, opts, -1)
        hidden = permute_hidden(t, scratch, rng)
        before = [a.copy() for a in (pub, opts, hid)]
        choices = []
        for stream in range(4):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for h in (hid, hidden):
                seen = Decision(pub, h, cnt, tree)
                picks.append(P.search_choice(t, players, 0, seen, opts, n, params,
                                             state.copy()))
            for a, b in zip(before, (pub, opts, hid), strict=True):
                np.testing.assert_array_equal(a, b)  # the real state is left untouched
            assert picks[0] == picks[1], f"case {case}: a hidden order changed a decision"
            assert 0 <= picks[0] < n
            choices.append(picks[0])
        differ += len(set(choices)) > 1
    assert differ > 0


def test_legal_replayed_identically_and_deterministic(cn):
    game, compiled = cn
    lineup = build_lineup(game, ["search", "planner", "greedy"], 3,
                          ["search.iterations=2", "search.horizon=20"])
    cols = assert_same_across_threads_and_chunks(game, compiled, lineup, 5, 9)
    for g in range(0, 9, 4):
        replay = game.replay(compiled, lineup, 5, g)
        chosen, offered = replay.decisions[:, 4], replay.decisions[:, 3]
        assert ((chosen >= 0) & (chosen < offered)).all()
        for col, values in game.columns(compiled, replay.out).items():
            assert np.array_equal(values[0], cols[col][g]), (g, col)


def test_widens_to_the_policys_best_actions(cn):
    """The root's tried actions are the planner's own pick and then its next-best by the
    planner's values (the rollout player's candidates), never a random one: the moves of
    the root's children in the order they were tried, at budgets that widen it to 2-6."""
    _, compiled = cn
    t = compiled.tables
    rng = np.random.default_rng(11)
    checked = 0
    for case in range(12):
        players = 2 + case % 3
        scratch = started(t, players, int(rng.integers(1 << 62)))
        if case % 4:
            play_out(t, players, scratch, GREEDY, GREEDY_PRM, case % 4)
        pub, opts, hid, cnt = scratch.pub, scratch.opts, scratch.hid, scratch.cnt
        tree = scratch.search
        if pub[L.FINAL]:
            continue
        pub[L.SEAT], pub[L.STEP], pub[L.ACTIONS_LEFT] = 0, L.STEP_ACTION, 2
        n = O.action_options(t.card, t.rules[L.R_TAKE_CHOOSE], t.rules[L.R_FLIP_SOME], pub,
                             hid, 0, opts, -1)
        iterations = 1 + case * 3
        params = SEARCH.vector({"iterations": iterations, "horizon": 8})
        P.search_choice(t, players, 0, Decision(pub, hid, cnt, tree), opts, n,
                        params, np.array([py_stream_state(case, 1)], np.uint64))
        values = np.empty(n)
        planner_values(opts, n, pub, t, params[SEARCH_PARAMS:], values)
        keys = [_key(opts[i]) for i in range(n)]
        tried = []  # the root's children in the order tried (its list is newest first)
        c = tree[FIRST][0]
        while c >= 0:
            tried.insert(0, int(tree[KEY][c]))
            c = tree[NEXT][c]
        own = tried[0]  # the first tried: the planner's own pick, one of its best
        assert max(values[i] for i in range(n) if keys[i] == own) == values.max(), case
        expected = [own]
        for i in np.argsort(-values, kind="stable"):  # then the best-valued (first of equals)
            if keys[i] not in expected:
                expected.append(keys[i])
        assert tried == expected[:len(tried)], case
        checked += len(tried) > 2
    assert checked >= 6


def test_a_playout_cut_short_is_judged_by_the_planners_hand_value(cn):
    """With a `horizon`, a playout stops there and ranks the seats by their points so far
    plus the planner's value of their hands (hand_weight x each card's gain x discount per
    rune short), computed here card by card; played to the end, by the rules' ranking."""
    _, compiled = cn
    t = compiled.tables
    rng = np.random.default_rng(5)
    judged = 0
    for case in range(8):
        players = 2 + case % 3
        scratch = started(t, players, int(rng.integers(1 << 62)))
        play_out(t, players, scratch, GREEDY, GREEDY_PRM, 1 + case % 3)
        pub, opts, hid, cnt = scratch.pub, scratch.opts, scratch.hid, scratch.cnt
        tree = scratch.search
        if pub[L.FINAL]:
            continue
        horizon = 1 + case % 4
        params = SEARCH.vector({"horizon": horizon})
        n = 1
        state = Decision(pub, hid, cnt, tree)
        work, _, ranking = P.search_work(t, players, state, params)
        stream = np.array([py_stream_state(case, 1)], np.uint64)
        P.search_deal(t, players, state, opts, n, work, stream)
        P.search_playout(t, players, work, params, stream)
        assert work.cut_short[0] == 1, case  # cut short: the game is far from over
        keys, points = ranking
        P.search_end(t, players, work, keys, points)
        rpub, cols = work.redeal.pub, np.zeros(L.MAX_TYPES + L.MAX_TABLEAU, np.int64)
        discount, weight = PLANNER_DEFAULTS[0], PLANNER_DEFAULTS[1]  # the default policy
        for q in range(players):
            cache, has = np.zeros(L.GAIN_SIZE, np.int64), np.zeros(L.MAX_TYPES, np.int64)
            S.gain_table(t.card, rpub, q, cache, has)
            hand = 0.0
            for h in range(rpub[L.player_at(q, L.P_HAND_N)]):
                c = rpub[L.player_at(q, L.P_HAND + h)]
                gain = S.best_gain(t.card, rpub, q, c, cache, has)[0]
                short = sum(max(0, t.card[c, L.CARD_COST + flip] + t.card[c, L.CARD_COST + ret]
                                - rpub[L.player_at(q, runes)])
                            for flip, ret, runes in ((L.SUN_FLIP, L.SUN_RETURN, L.P_SUN),
                                                     (L.MOON_FLIP, L.MOON_RETURN, L.P_MOON)))
                if gain > 0:
                    hand += gain * discount ** short
            value = S.final_score(t, rpub, q, cols)[0] + weight * hand
            assert keys[q] == int(value * 1024.0), (case, q)
            assert points[q] == int(value + 0.5), (case, q)
            judged += hand > 0
        work.cut_short[0] = 0  # played to the end: the rules' ranking, untouched
        P.search_end(t, players, work, keys, points)
        for q in range(players):
            total, best = S.final_score(t, rpub, q, cols)
            assert (keys[q], points[q]) == (S.score_key(t, q, total, best), total)
    assert judged > 0


def _key(row) -> int:
    """play.search_key of an option row: its kind and the card, runes or token it names."""
    return ((int(row[L.KIND]) * 1024 + int(row[L.A]) + 1) * 1024 + int(row[L.B]) + 1) \
        * 1024 + int(row[L.C]) + 1


@pytest.mark.parametrize("setting, message", [
    ("search.iterations=4097", "iterations = 4097.0 is out of range [1.0, 4096.0]"),
    ("search.policy=3", "policy = 3.0 is out of range [0.0, 2.0]"),
])
def test_parameter_errors(cn, setting, message):
    game, _ = cn
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["search", "greedy"], 2, [setting])
