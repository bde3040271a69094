"""The search player in Inori: it never reads hidden information (the order of the
Journey decks and discards, the New Start deck and the Rune stack), plays legal options,
replays identically through batch and traced play, and is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games import get_game
from simkit.games.inori import layout as L
from simkit.games.inori import options as O
from simkit.games.inori import play as P
from simkit.games.inori import rules as R
from simkit.games.inori.layout import GREEDY
from simkit.kernels.trace import new_trace_stub
from simkit.rng import py_stream_state
from simkit.testing import assert_same_across_threads_and_chunks
from strategies.inori import PLANNER_DEFAULTS, STRATEGIES
from tests.test_inori_rollout import GREEDY_PRM, _permute_hidden, _playout, _start

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
        scratch = _start(t, players, int(rng.integers(1 << 62)))
        seasons_played = case % 4
        if seasons_played:
            _playout(t, players, scratch, GREEDY, GREEDY_PRM, seasons_played)
        pub, opts, decks, discards, tops, new_starts, stack, rtops = scratch[:8]
        hid, cnt, hv = scratch[11], scratch[12], scratch[14]
        seat = R.next_seat(players, pub, hid)
        R.begin_turn(pub, hid, cnt, seat)
        hid[L.PHASE] = L.PH_END_TURN
        pub[L.STEP] = L.STEP_OFFER
        n = O.offer_rows(t, pub, seat, opts, hv, False, np.zeros(0), np.zeros(1, np.uint64))
        hidden = _permute_hidden(scratch, rng)
        before = [a.copy() for a in (pub, hid, opts, decks, discards, tops, new_starts, stack,
                                     rtops)]
        choices = []
        for stream in range(4):
            state = np.array([py_stream_state(case, 1 + stream)], np.uint64)
            picks = []
            for d, dc, ns, sk in ((decks, discards, new_starts, stack), hidden):
                picks.append(P.search_choice(t, players, seat,
                                             L.Decision(pub, hid, d, dc, tops, ns, sk, rtops,
                                                        trace),
                                             opts, n, params, state.copy()))
            for a, b in zip(before, (pub, hid, opts, decks, discards, tops, new_starts, stack,
                                     rtops), strict=True):
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


def _outlook_reference(t, pub, players: int, weight: float) -> list[float]:
    """Each seat's final score if the game ended now, the season's cards scored and then
    the majorities, plus `weight` x its tokens of each incomplete card's colour it is on
    over 1 + the card's free spaces: written out from the rules, slot by slot."""
    tokens = [[int(pub[L.player_at(q, L.P_TOKENS + x)]) for x in range(t.rules[L.R_N_COLOURS])]
              for q in range(players)]
    ended = [int(pub[L.player_at(q, L.P_SCORE)] + t.rules[L.R_COMP + q]) for q in range(players)]
    cards = []
    for i in range(pub[L.N_SLOTS]):
        c = int(pub[L.slot_at(i, L.S_CARD)])
        if c < 0:
            continue
        spaces = range(t.card[c, L.CARD_N_SPACES])
        occ = [int(pub[L.slot_at(i, L.S_OCC + s)]) for s in spaces]
        extra = [int(pub[L.slot_at(i, L.S_OCC2 + s)]) for s in spaces]
        on = [q for q in range(players) if q in occ or any(e >> q & 1 for e in extra)]
        free = sum(o < 0 for o in occ)
        colour = t.card[c, L.CARD_COLOUR]
        if free == 0:
            scored = colour
        else:
            cards.append((on, colour, free))
            scored = t.card[c, L.CARD_NEXT] if t.card[c, L.CARD_KIND] == L.NEW_START else -1
        for q in on:
            ended[q] += tokens[q][scored] if scored >= 0 else 0
    for ts in range(t.rules[L.R_N_TREE]):
        x = pub[L.tree_at(ts, L.T_TILE)]
        counts = [tokens[q][x] for q in range(players)] if x >= 0 else [0]
        top = max(counts)
        if top == 0:
            continue
        leaders = [q for q in range(players) if counts[q] == top]
        for q in leaders:
            ended[q] += t.rules[L.R_MAJ_FIRST]
        second = max([v for v in counts if v < top], default=0)
        if len(leaders) == 1 and second > 0:
            for q in range(players):
                ended[q] += t.rules[L.R_MAJ_SECOND] if counts[q] == second else 0
    values = [float(v) for v in ended]
    for on, colour, free in cards:
        for q in on:
            values[q] += weight * tokens[q][colour] / (1.0 + free)
    return values


def test_a_playout_cut_short_is_judged_by_its_outlook(ino):
    """With a `horizon`, a playout plays that many decisions and on to the season's end
    (its cards scored, none holding a marker); a state judged before the game's end ranks
    the seats by their score if it ended now plus the planner's odds on the cards they are
    on (the policy's `complete_weight`), checked against the rules written out, mid-season
    and at the cut; played to the end, by the rules' ranking."""
    _, compiled = ino
    t = compiled.tables
    rng = np.random.default_rng(6)
    trace = new_trace_stub(L.N_COLS)
    judged = ahead = cut = 0
    for case in range(12):
        players = 2 + case % 3
        scratch = _start(t, players, int(rng.integers(1 << 62)))
        if case % 4:
            _playout(t, players, scratch, GREEDY, GREEDY_PRM, case % 4)
        pub, opts, decks, discards, tops, new_starts, stack, rtops = scratch[:8]
        hid, cnt, hv = scratch[11], scratch[12], scratch[14]
        hid[L.STOP_SEASON] = t.rules[L.R_SEASONS]  # as in a game: _playout stopped early
        seat = R.next_seat(players, pub, hid)
        R.begin_turn(pub, hid, cnt, seat)
        hid[L.PHASE] = L.PH_END_TURN
        pub[L.STEP] = L.STEP_OFFER
        n = O.offer_rows(t, pub, seat, opts, hv, False, np.zeros(0), np.zeros(1, np.uint64))
        tuned = {"complete_weight": 0.3 + 0.2 * case} if case % 2 else {}
        params = SEARCH.vector({"horizon": 1 + 7 * (case % 3)} | tuned)
        weight = tuned.get("complete_weight", PLANNER_DEFAULTS[0])
        state = L.Decision(pub, hid, decks, discards, tops, new_starts, stack, rtops, trace)
        work, _, (keys, points) = P.search_work(t, players, state, params)
        stream = np.array([py_stream_state(case, 1)], np.uint64)
        P.search_deal(t, players, state, opts, n, work, stream)
        P.search_apply(t, players, work, 0, stream)
        for _ in range(2 + case):  # mid-season
            P.search_apply(t, players, work, P.search_prefer(
                t, players, work, P.search_next(t, players, work, stream), stream), stream)
        season = work.pub[L.SEASON]
        for at_cut in (False, True):
            if at_cut:
                P.search_playout(t, players, work, params, stream)
                if work.hid[L.PHASE] == L.PH_OVER:  # the last season: played to the end
                    continue
                assert work.hid[L.PHASE] == L.PH_TURN, case
                assert work.pub[L.SEASON] == work.hid[L.STOP_SEASON] > season, case
                for i in range(work.pub[L.N_SLOTS]):
                    for s in range(L.MAX_SPACES):
                        assert work.pub[L.slot_at(i, L.S_OCC + s)] < 0, case
                cut += 1
            before = work.pub.copy()
            P.search_end(t, players, work, keys, points)
            np.testing.assert_array_equal(work.pub, before)  # judged on a copy
            values = _outlook_reference(t, work.pub, players, weight)
            for q in range(players):
                assert keys[q] == int(values[q] * 1024.0), (case, q)
                assert points[q] == int(values[q] + 0.5), (case, q)
            judged += any(v != int(v) for v in values)
            ahead += any(values[q] > work.pub[L.player_at(q, L.P_SCORE)] + 1
                         for q in range(players))
        work.hid[L.STOP_SEASON] = t.rules[L.R_SEASONS]
        P.search_playout(t, players, work, SEARCH.vector({"horizon": 0}), stream)
        P.search_end(t, players, work, keys, points)  # played to the end: the rules' ranking
        for q in range(players):
            assert points[q] == P.final_score(t, work.pub, q), (case, q)
            assert keys[q] == P.ranking_key(t, work.pub, q), (case, q)
    assert judged > 0 and ahead > 0 and cut > 0

@pytest.mark.parametrize("setting, message", [
    ("search.iterations=0", "iterations = 0.0 is out of range [1.0, 4096.0]"),
    ("search.policy=3", "policy = 3.0 is out of range [0.0, 2.0]"),
    ("search.horizon=-1", "horizon = -1.0 is out of range [0.0, 1000.0]"),
])
def test_parameter_errors(ino, setting, message):
    game, _ = ino
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["search", "greedy"], 2, [setting])
