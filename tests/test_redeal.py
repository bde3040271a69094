"""The re-deal both lookahead players of Carnuta and Inori play forward (`play.new_redeal`,
layout.Redeal; Carnuta's `rules.redeal`, Inori's `play.know`): what the seat knows of
each hidden pile is its contents sorted and its size, computed here in plain Python, the
same whatever order the pile is in, and the rollout player's re-deal knows what the
search player's does."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.games import get_game
from simkit.games.carnuta import layout as CL
from simkit.games.carnuta import play as CP
from simkit.games.inori import layout as IL
from simkit.games.inori import play as IP
from simkit.kernels.trace import new_trace_stub
from strategies.carnuta import STRATEGIES as CARNUTA_STRATEGIES
from strategies.inori import STRATEGIES as INORI_STRATEGIES
from tests import test_carnuta_rollout as carnuta_rollout
from tests import test_inori_rollout as inori_rollout
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
    for name in ("carnuta", "inori"):
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
        pub, _opts, deck, discard, tops = scratch[:5]
        if not pub[CL.FINAL]:
            yield players, CL.Decision(pub, scratch.hid, deck, discard, tops, scratch.search)


def _inori_states(t, rng):
    """Decisions part-way through Inori games: (players, layout.Decision)."""
    for case in range(6):
        players = 2 + case % 3
        scratch = inori_rollout.started(t, players, int(rng.integers(1 << 62)))
        inori_rollout.play_out(t, players, scratch, IL.GREEDY, inori_rollout.GREEDY_PRM,
                               1 + case % 2)
        pub, _opts, decks, discards, tops, new_starts, stack, rtops = scratch[:8]
        if scratch.hid[IL.PHASE] != IL.PH_OVER:
            yield players, IL.Decision(pub, scratch.hid, decks, discards, tops, new_starts,
                                       stack, rtops, new_trace_stub(IL.N_COLS))


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
        shuffled = state._replace(deck=state.deck.copy(), discard=state.discard.copy())
        for d in range(2):
            lo, hi = state.tops[CL.PILE_TOP, d], state.tops[CL.PILE_END, d]
            shuffled.deck[d, lo:hi] = rng.permutation(shuffled.deck[d, lo:hi])
            n_disc = state.tops[CL.PILE_DISCARDS, d]
            shuffled.discard[d, :n_disc] = rng.permutation(shuffled.discard[d, :n_disc])
        rwork, _, _ = CP.rollout_work(t, players, shuffled, rollout)
        CP.rollout_deal(t, players, shuffled, rwork, stream(3, seen))
        np.testing.assert_array_equal(rwork.tops, r.tops)
        for d in range(2):
            cards, m = _known(state.deck[d], state.tops[CL.PILE_TOP, d],
                              state.tops[CL.PILE_END, d])
            assert r.tops[CL.PILE_END, d] == m
            assert sorted(r.deck[d, :m].tolist()) == cards
            assert rwork.deck[d, :m].tolist() == r.deck[d, :m].tolist()
            cards, m = _known(state.discard[d], 0, state.tops[CL.PILE_DISCARDS, d])
            assert r.tops[CL.PILE_DISCARDS, d] == m
            assert r.discard[d, :m].tolist() == cards
            assert rwork.discard[d, :m].tolist() == cards
        seen += 1
    assert seen >= 3


def test_inori_knows_each_hidden_pile_sorted(tables):
    t = tables["inori"]
    rng = np.random.default_rng(12)
    search, rollout = _lookahead_params(INORI_STRATEGIES)
    seen = 0
    for players, state in _inori_states(t, rng):
        r, _, _ = IP.search_work(t, players, state, search)
        for x in range(t.rules[IL.R_N_COLOURS]):
            cards, m = _known(state.decks[x], state.tops[IL.PILE_TOP, x],
                              state.tops[IL.PILE_END, x])
            assert r.known_tops[IL.PILE_END, x] == m
            assert r.known_decks[x, :m].tolist() == cards
            cards, m = _known(state.discards[x], 0, state.tops[IL.PILE_DISCARDS, x])
            assert r.known_tops[IL.PILE_DISCARDS, x] == m
            assert r.known_discards[x, :m].tolist() == cards
        for pile, known, top, end in ((state.new_starts, r.known_new_starts, IL.NEW_TOP,
                                       IL.NEW_END),
                                      (state.stack, r.known_stack, IL.RUNE_TOP, IL.RUNE_END)):
            cards, m = _known(pile, state.rtops[top], state.rtops[end])
            assert r.known_rtops[end] == m
            assert known[:m].tolist() == cards
        # The same function fills the rollout player's re-deal, from any order of the piles.
        decks, discards, new_starts, stack = inori_rollout.permute_hidden(tuple(state), rng)
        shuffled = state._replace(decks=decks, discards=discards, new_starts=new_starts,
                                  stack=stack)
        rwork, _, _ = IP.rollout_work(t, players, shuffled, rollout)
        IP.know(t, shuffled, rwork.redeal)
        for name in ("known_decks", "known_discards", "known_tops", "known_new_starts",
                     "known_stack", "known_rtops"):
            assert np.array_equal(getattr(rwork.redeal, name), getattr(r, name)), name
        seen += 1
    assert seen >= 3
