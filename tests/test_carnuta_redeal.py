"""Carnuta's `redeal` (rules.py; the game API's arguments, its piles in `hid`): over many
mid-game states reached by the rules themselves, it keeps everything the seat sees and
re-samples only what it cannot (the order of each deck's undrawn cards and of each
discard pile), and the deal depends on what the seat sees alone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.games.carnuta import layout as L
from simkit.games.carnuta import play as P
from simkit.games.carnuta import rules as R
from simkit.kernels.trace import new_trace_stub
from tests.redeal_support import check_written_to_the_api, stream, tables_by_config, walk

OVERRIDES = {"default": (), "take_choose": ("options.take_runes=choose",),
             "sickle_any_time": ("options.sickle_after_actions=false",)}


@pytest.fixture(scope="module")
def tables():
    return tables_by_config("carnuta", OVERRIDES)


def mid_game(t, players: int, seed: int, steps: int):
    """A scratch part-way through a game (a decision pending), reached by the rules'
    `setup`, `next_decision` and `apply_option` with random choices, and the pending
    decision's options (None once the game ended first)."""
    sc = P.new_scratch(t)
    chance, trace = stream(seed, 0), new_trace_stub(L.N_COLS)
    P.state_setup(t, players, sc, chance, trace, False)
    n = walk(lambda: P.state_next(t, players, sc, chance, trace, False),
             lambda c: P.state_apply(t, players, sc, c, chance, trace, False),
             seed, steps, L.GAME_OVER)
    return None if n is None else (sc, sc.opts[:n].copy())


def copies(sc) -> tuple:
    """Copies of a scratch's state, in `redeal`'s order."""
    return sc.pub.copy(), sc.hid.copy(), sc.cnt.copy()


def dealt(t, hid) -> list:
    """What a deal laid out: each deck's undrawn cards and each discard pile, in order."""
    _tops, _starts, deck, discard = L.piles(t, hid)
    return [(deck[d, hid[L.PILE_TOP + d]:hid[L.PILE_END + d]].tolist(),
             discard[d, :hid[L.PILE_DISCARDS + d]].tolist()) for d in range(2)]


@settings(max_examples=120, deadline=None)
@given(config=st.sampled_from(sorted(OVERRIDES)), players=st.integers(2, 4),
       seed=st.integers(0, 2**63 - 1), steps=st.integers(0, 120), viewer=st.integers(0, 3),
       deal_seed=st.integers(0, 2**63 - 1))
def test_redeal_keeps_what_the_seat_sees(tables, config, players, seed, steps, viewer,
                                         deal_seed):
    t = tables[config]
    state = mid_game(t, players, seed, steps)
    if state is None:
        return
    sc, offered = state
    seat = viewer % players
    pub, hid, cnt = copies(sc)
    tops, _starts, deck, discard = L.piles(t, hid)
    p, h, c = copies(sc)
    tp = L.piles(t, h)[0]
    R.redeal(t, players, p, h, c, seat, stream(deal_seed, 1))
    np.testing.assert_array_equal(p, pub)  # all that is public stays
    np.testing.assert_array_equal(h[:L.HID_STATE], hid[:L.HID_STATE])  # the counter's track
    np.testing.assert_array_equal(h[L.VERSION:L.STARTS], hid[L.VERSION:L.STARTS])  # caches
    np.testing.assert_array_equal(c, cnt)
    for d, (undrawn, discards) in enumerate(dealt(t, h)):
        assert h[L.PILE_TOP + d] == 0
        assert sorted(undrawn) == sorted(deck[d, hid[L.PILE_TOP + d]:hid[L.PILE_END + d]])
        assert discards == sorted(discard[d, :hid[L.PILE_DISCARDS + d]])
        assert len(undrawn) == pub[L.DECK_LEFT + d]  # the sizes the seat sees
        assert len(discards) == pub[L.DISCARDS + d]
    # The game goes on from the re-deal: the same decision, the same options (the option
    # caches start over, as a lookahead's re-deal starts them).
    sc2 = P.new_scratch(t)
    for mine, theirs in zip((sc2.pub, sc2.hid, sc2.cnt), (p, h, c), strict=True):
        mine[...] = theirs
    R.fresh_caches(t, sc2.hid)
    n = P.state_next(t, players, sc2, stream(0, 0), new_trace_stub(L.N_COLS), False)
    np.testing.assert_array_equal(sc2.opts[:n], offered)

    # The deal depends on what the seat sees only: another order of every pile deals the
    # same, from the same stream.
    rng = np.random.default_rng(deal_seed)
    for d in range(2):
        lo, hi = hid[L.PILE_TOP + d], hid[L.PILE_END + d]
        deck[d, lo:hi] = rng.permutation(deck[d, lo:hi])
        discard[d, :hid[L.PILE_DISCARDS + d]] = rng.permutation(
            discard[d, :hid[L.PILE_DISCARDS + d]])
    R.redeal(t, players, pub, hid, cnt, seat, stream(deal_seed, 1))
    assert dealt(t, hid) == dealt(t, h)
    np.testing.assert_array_equal(tops, tp)


def test_redeal_shuffles_the_undrawn_cards(tables):
    """Different streams deal a deck's undrawn cards in different orders (the test above
    could not see a redeal that changed nothing)."""
    t = tables["default"]
    sc, _ = mid_game(t, 3, 5, 10)
    orders = set()
    for k in range(6):
        p, h, c = copies(sc)
        R.redeal(t, 3, p, h, c, 0, stream(9, k))
        orders.add(str(dealt(t, h)))
    assert len(orders) == 6


def test_written_to_the_game_api():
    """Its rules take the game API's signatures (docs/new-game.md section 4), the piles and
    option caches in `hid`, and the shared loop's own state hooks play them: none is
    Carnuta's."""
    check_written_to_the_api(P, ("state_setup", "state_next", "state_apply", "state_decision"),
                             own=("action_key",))  # its search keys a move by its own search_key
