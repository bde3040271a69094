"""Cauldron Master's `redeal` (rules.py, the game API's): over many mid-game states
reached by the rules themselves, it keeps everything the seat sees and re-samples only
what it cannot (the undealt cards' order; while witches are chosen, the witches the
seats before the one to play chose in secret), and the deal depends on what the seat
sees alone."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.games.cauldron_master import layout as L
from simkit.games.cauldron_master import rules as R
from simkit.games.cauldron_master import step as S
from simkit.kernels.trace import new_trace_stub
from tests.redeal_support import check_written_to_the_api, stream, tables_by_config, walk

OVERRIDES = {"default": (), "player_recipes": ("options.recipe_choice=player",),
             "optional_picking": ("options.picking_compulsory=false",)}


@pytest.fixture(scope="module")
def tables():
    return tables_by_config("cauldron-master", OVERRIDES)


def mid_game(t, players: int, seed: int, steps: int):
    """A state part-way through a game (a decision pending), reached by `setup`,
    `next_decision` and `apply_option` with random choices: pub, hid, cnt and the pending
    decision's options (None once the game ended first)."""
    pub = np.zeros(L.PUB_SIZE, np.int32)
    hid = np.zeros(L.HID_SIZE, np.int64)
    cnt = np.zeros((L.MAX_PLAYERS, L.CT_SIZE), np.int64)
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    trace, chance = new_trace_stub(L.N_COLS), stream(seed, 0)
    R.setup(t, players, pub, hid, cnt, chance, trace, False)
    n = walk(lambda: S.next_decision(t, players, pub, hid, cnt, opts, chance, trace, False),
             lambda c: S.apply_option(t, players, pub, hid, cnt, opts, c, chance, trace, False),
             seed, steps, L.GAME_OVER)
    return None if n is None else (pub, hid, cnt, opts[:n].copy())


def undealt(t, hid) -> list[int]:
    """The undealt cards, sorted."""
    return sorted(hid[L.DECK + hid[L.TOP]:L.DECK + t.deck.shape[0]].tolist())


@settings(max_examples=150, deadline=None)
@given(config=st.sampled_from(sorted(OVERRIDES)), players=st.integers(2, 4),
       seed=st.integers(0, 2**63 - 1), steps=st.integers(0, 70), viewer=st.integers(0, 3),
       deal_seed=st.integers(0, 2**63 - 1))
def test_redeal_keeps_what_the_seat_sees(tables, config, players, seed, steps, viewer,
                                         deal_seed):
    t = tables[config]
    state = mid_game(t, players, seed, steps)
    if state is None:
        return
    pub, hid, cnt, offered = state
    seat = viewer % players
    n_cards = t.deck.shape[0]
    top = int(hid[L.TOP])
    secret = ([q for q in range(pub[L.SEAT]) if q != seat]
              if pub[L.PHASE] == L.PHASE_WITCH else [])
    # Everything the seat cannot see, and the work slots (meaningless between steps).
    unseen = np.zeros(L.HID_SIZE, bool)
    unseen[L.DECK + top:L.DECK + n_cards] = True
    unseen[L.COUNTS:L.HID_SIZE] = True
    for q in secret:
        unseen[L.CHOSEN + q] = True

    p, h, c = pub.copy(), hid.copy(), cnt.copy()
    R.redeal(t, players, p, h, c, seat, stream(deal_seed, 1))
    np.testing.assert_array_equal(p, pub)  # all that is public stays
    np.testing.assert_array_equal(c, cnt)
    np.testing.assert_array_equal(h[~unseen], hid[~unseen])  # and all the seat saw hidden
    assert undealt(t, h) == undealt(t, hid)  # the same cards, re-ordered
    for q in secret:  # a secret witch becomes one its seat still holds
        assert pub[L.hand_at(q, int(h[L.CHOSEN + q]))] == 1
    # The game goes on from the re-deal: the same decision, the same options.
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    trace = new_trace_stub(L.N_COLS)
    n = S.next_decision(t, players, p, h, c, opts, stream(0, 0), trace, False)
    np.testing.assert_array_equal(opts[:n], offered)

    # The deal depends on what the seat sees only: another order of the undealt cards and
    # other secret witches deal the same, from the same stream.
    other = hid.copy()
    rng = np.random.default_rng(deal_seed)
    other[L.DECK + top:L.DECK + n_cards] = rng.permutation(other[L.DECK + top:L.DECK + n_cards])
    for q in secret:
        other[L.CHOSEN + q] = rng.integers(t.witch.shape[0])
    R.redeal(t, players, pub.copy(), other, cnt.copy(), seat, stream(deal_seed, 1))
    np.testing.assert_array_equal(other[L.DECK:L.COUNTS], h[L.DECK:L.COUNTS])
    np.testing.assert_array_equal(other[:L.DECK], h[:L.DECK])


def test_redeal_shuffles_the_undealt_cards(tables):
    """Different streams deal the undealt cards in different orders (the test above
    could not see a redeal that changed nothing)."""
    t = tables["default"]
    pub, hid, cnt, _ = mid_game(t, 3, 5, 10)
    top = int(hid[L.TOP])
    orders = set()
    for k in range(6):
        h = hid.copy()
        R.redeal(t, 3, pub.copy(), h, cnt.copy(), 0, stream(9, k))
        orders.add(tuple(h[L.DECK + top:L.DECK + t.deck.shape[0]]))
    assert len(orders) == 6


def test_written_to_the_game_api():
    """Its rules take the game API's signatures (docs/new-game.md section 4), and the
    shared loop's own state hooks and search hooks play them: none is Cauldron Master's."""
    play = importlib.import_module("simkit.games.cauldron_master.play")
    check_written_to_the_api(play, ("state_setup", "state_next", "state_apply",
                                    "state_decision", "search_apply", "search_prefer",
                                    "search_key", "search_end", "rollout_candidates"))
