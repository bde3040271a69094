"""The re-deal both lookahead players of Carnuta play forward (`play.new_redeal`,
layout.Redeal, `rules.redeal`; Inori's: tests/test_inori_redeal.py): what the seat knows
of each hidden pile is its contents sorted and its size, computed here in plain Python,
the same whatever order the pile is in, and the rollout player's re-deal knows what the
search player's does."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.gamekit.scratch import Decision
from simkit.games import get_game
from simkit.games.carnuta import layout as CL
from simkit.games.carnuta import play as CP
from strategies.carnuta import STRATEGIES as CARNUTA_STRATEGIES
from tests import test_carnuta_rollout as carnuta_rollout
from tests.redeal_support import stream


def _lookahead_params(strategies) -> tuple[np.ndarray, np.ndarray]:
    """The search and rollout players' default parameter vectors."""
    spec = {s.name: s for s in strategies}
    return spec["search"].vector({}), spec["rollout"].vector({})


def _known(pile: np.ndarray, lo: int, hi: int) -> tuple[list[int], int]:
    """Plain Python: a pile's cards pile[lo:hi] as a sorted list, and how many."""
    cards = sorted(int(c) for c in pile[lo:hi])
    return cards, len(cards)


@pytest.fixture(scope="module")
def tables():
    out = {}
    for name in ("carnuta",):
        game = get_game(name)
        out[name] = game.compile(game.load_config()).tables
    return out


def _carnuta_states(t, rng):
    """Decisions part-way through Carnuta games: (players, layout.Decision, scratch)."""
    for case in range(6):
        players = 2 + case % 3
        scratch = carnuta_rollout.started(t, players, int(rng.integers(1 << 62)))
        carnuta_rollout.play_out(t, players, scratch, CL.GREEDY, carnuta_rollout.GREEDY_PRM,
                                 1 + case % 3)
        if not scratch.pub[CL.FINAL]:
            yield players, Decision(scratch.pub, scratch.hid, scratch.cnt, scratch.search)


def test_carnuta_deals_both_players_the_same_from_the_sorted_piles(tables):
    """Carnuta's lookahead players both re-deal by `rules.redeal` (its own hypothesis test:
    test_carnuta_redeal.py): from the same stream the rollout player's deal is the search
    player's, whatever order the piles were in, and each discard pile is its cards sorted."""
    t = tables["carnuta"]
    rng = np.random.default_rng(11)
    search, rollout = _lookahead_params(CARNUTA_STRATEGIES)
    opts = np.zeros((CL.MAX_OPTIONS, CL.N_COLS), np.int32)
    seen = 0
    for players, state in _carnuta_states(t, rng):
        work, _, _ = CP.search_work(t, players, state, search)
        CP.search_deal(t, players, state, opts, 0, work, stream(3, seen))
        r = work.redeal
        shuffled = state._replace(hid=carnuta_rollout.permute_hidden(t, state, rng))
        rwork, _, _ = CP.rollout_work(t, players, shuffled, rollout)
        CP.rollout_deal(t, players, shuffled, rwork, stream(3, seen))
        hid, dhid, rhid = state.hid, rwork.deal_hid, r.hid
        _, _, deck, discard = CL.piles(t, hid)
        _, _, ddeck, ddiscard = CL.piles(t, dhid)
        _, _, rdeck, rdiscard = CL.piles(t, rhid)
        np.testing.assert_array_equal(dhid[CL.PILE_TOP:CL.VERSION], rhid[CL.PILE_TOP:CL.VERSION])
        for d in range(2):
            cards, m = _known(deck[d], hid[CL.PILE_TOP + d], hid[CL.PILE_END + d])
            assert rhid[CL.PILE_END + d] == m
            assert sorted(rdeck[d, :m].tolist()) == cards
            assert ddeck[d, :m].tolist() == rdeck[d, :m].tolist()
            cards, m = _known(discard[d], 0, hid[CL.PILE_DISCARDS + d])
            assert rhid[CL.PILE_DISCARDS + d] == m
            assert rdiscard[d, :m].tolist() == cards
            assert ddiscard[d, :m].tolist() == cards
        seen += 1
    assert seen >= 3
