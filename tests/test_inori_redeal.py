"""Inori's `redeal` (rules.redeal, the game API's signature), which both lookahead players
deal from: it keeps all the seat sees (pub, cnt, where play stands, each pile's contents
and size) and re-samples only what it cannot (each hidden pile's order), and the deal
depends on what the seat sees only."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.games import get_game
from simkit.games.inori import layout as L
from simkit.games.inori import play as P
from simkit.games.inori import rules as R
from simkit.kernels.trace import new_trace_stub
from tests.redeal_support import check_written_to_the_api, stream
from tests.test_inori_rollout import GREEDY_PRM, permute_hidden, play_out, started


@pytest.fixture(scope="module")
def tables():
    game = get_game("inori")
    return game.compile(game.load_config()).tables


def mid_game(t, players: int, seed: int, seasons: int):
    """A scratch part-way through a game: after `seasons` season ends of greedy play."""
    scratch = started(t, players, seed)
    if seasons:
        play_out(t, players, scratch, L.GREEDY, GREEDY_PRM, seasons)
    return scratch


def dealt(t, hid) -> list[list[int]]:
    """Plain Python: each pile's cards in their order (undrawn deck cards, discards, New
    Starts, Rune stack); what lies beyond a pile's end is never read."""
    tops, rtops, stack, new_starts, _, decks, discards = (np.asarray(a) for a in
                                                          L.piles(t, hid))
    out = []
    for x in range(decks.shape[0]):
        out.append(decks[x, tops[L.PILE_TOP, x]:tops[L.PILE_END, x]].tolist())
        out.append(discards[x, :tops[L.PILE_DISCARDS, x]].tolist())
    out.append(new_starts[rtops[L.NEW_TOP]:rtops[L.NEW_END]].tolist())
    out.append(stack[rtops[L.RUNE_TOP]:rtops[L.RUNE_END]].tolist())
    return out


def hidden_piles(t, hid) -> list[list[int]]:
    """Each pile's cards as the seat knows them: sorted."""
    return [sorted(pile) for pile in dealt(t, hid)]


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**62), seasons=st.integers(0, 3),
       viewer=st.integers(0, 3), deal_seed=st.integers(0, 2**63 - 1))
def test_redeal_keeps_what_the_seat_sees(tables, players, seed, seasons, viewer, deal_seed):
    t = tables
    scratch = mid_game(t, players, seed, seasons)
    pub, hid, cnt = scratch.pub, scratch.hid, scratch.cnt
    seat = viewer % players
    p, h, c = pub.copy(), hid.copy(), cnt.copy()
    R.redeal(t, players, p, h, c, seat, stream(deal_seed, 1))
    np.testing.assert_array_equal(p, pub)  # all that is public stays
    np.testing.assert_array_equal(c, cnt)
    np.testing.assert_array_equal(h[:L.HID_STATE], hid[:L.HID_STATE])  # where play stands
    assert hidden_piles(t, h) == hidden_piles(t, hid)  # the same cards in every pile
    tops, rtops, *_ = L.piles(t, h)
    assert (np.asarray(tops)[L.PILE_TOP] == 0).all()  # laid out from the top
    assert rtops[L.NEW_TOP] == 0 and rtops[L.RUNE_TOP] == 0
    # The deal depends on what the seat sees only: the piles in another order deal the
    # same, from the same stream.
    other = permute_hidden(t, scratch, np.random.default_rng(deal_seed))
    R.redeal(t, players, pub.copy(), other, cnt.copy(), seat, stream(deal_seed, 1))
    np.testing.assert_array_equal(other[:L.HID_STATE], h[:L.HID_STATE])
    assert dealt(t, other) == dealt(t, h)


def test_redeal_shuffles_the_hidden_piles(tables):
    """Different streams deal the piles in different orders (the test above could not see
    a redeal that changed nothing)."""
    scratch = mid_game(tables, 3, 5, 1)
    orders = set()
    for k in range(6):
        h = scratch.hid.copy()
        R.redeal(tables, 3, scratch.pub.copy(), h, scratch.cnt.copy(), 0, stream(9, k))
        orders.add(str(dealt(tables, h)))
    assert len(orders) == 6


def test_written_to_the_game_api():
    """Its rules take the game API's signatures (docs/new-game.md section 4), the shared
    loop's own state hooks and search hooks play them, and both lookahead players deal
    with `redeal`."""
    check_written_to_the_api(P, ("state_setup", "state_next", "state_apply", "state_decision",
                                 "search_apply", "search_next", "search_prefer",
                                 "search_key", "search_end"))
    for hook in (P.rollout_deal, P.search_deal):
        assert "redeal" in hook.py_func.__code__.co_names, hook


def test_next_decision_plays_the_fused_game(tables):
    """The game API's next_decision (no table fused) and apply_option, stepped from Python,
    play the same game as the loop's batch play, where greedy seats' tables are fused: the
    same final state, seed by seed (play_out's seats all greedy)."""
    t = tables
    for seed in range(4):
        players = 2 + seed % 3
        fused = started(t, players, seed)
        play_out(t, players, fused, L.GREEDY, GREEDY_PRM, 0)
        sc = started(t, players, seed)
        trace = new_trace_stub(L.N_COLS)
        params = np.tile(np.asarray(GREEDY_PRM, np.float64), (L.MAX_PLAYERS, 1))
        decisions = 0
        while (n := P.next_decision(t, players, sc.pub, sc.hid, sc.cnt, sc.opts, sc.rngs[0],
                                    trace, False)) != L.GAME_OVER:
            s = int(sc.pub[L.SEAT])
            c = P.ask(L.GREEDY, sc.opts, n, sc.pub, t, params[s], sc.rngs[0])
            P.apply_option(t, players, sc.pub, sc.hid, sc.cnt, sc.opts, c, sc.rngs[0], trace,
                           False)
            decisions += 1
        assert decisions > 20
        np.testing.assert_array_equal(sc.pub, fused.pub)
        np.testing.assert_array_equal(sc.cnt, fused.cnt)
