"""The re-deal both lookahead players of Carnuta play forward (`play.new_redeal`,
`play.know`, layout.Redeal; Inori's: tests/test_inori_redeal.py): what the seat knows of
each hidden pile is its contents sorted and its size, computed here in plain Python, the
same whatever order the pile is in, and the rollout player's re-deal knows what the search
player's does."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.games import get_game
from simkit.games.carnuta import layout as CL
from simkit.games.carnuta import play as CP
from strategies.carnuta import STRATEGIES as CARNUTA_STRATEGIES
from tests import test_carnuta_rollout as carnuta_rollout


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
        pub, _opts, deck, discard, tops = scratch[:5]
        if not pub[CL.FINAL]:
            yield players, CL.Decision(pub, scratch.hid, deck, discard, tops, scratch.search)


def test_carnuta_knows_each_deck_and_discard_pile_sorted(tables):
    t = tables["carnuta"]
    rng = np.random.default_rng(11)
    search, rollout = _lookahead_params(CARNUTA_STRATEGIES)
    seen = 0
    for players, state in _carnuta_states(t, rng):
        work, _, _ = CP.search_work(t, players, state, search)
        r = work.redeal
        for d in range(2):
            cards, m = _known(state.deck[d], state.tops[CL.PILE_TOP, d],
                              state.tops[CL.PILE_END, d])
            assert r.known_tops[CL.PILE_END, d] == m
            assert r.known_deck[d, :m].tolist() == cards
            cards, m = _known(state.discard[d], 0, state.tops[CL.PILE_DISCARDS, d])
            assert r.known_tops[CL.PILE_DISCARDS, d] == m
            assert r.known_discard[d, :m].tolist() == cards
        # The same function fills the rollout player's re-deal, from any order of the piles.
        shuffled = state._replace(deck=state.deck.copy(), discard=state.discard.copy())
        for d in range(2):
            lo, hi = state.tops[CL.PILE_TOP, d], state.tops[CL.PILE_END, d]
            shuffled.deck[d, lo:hi] = rng.permutation(shuffled.deck[d, lo:hi])
            n_disc = state.tops[CL.PILE_DISCARDS, d]
            shuffled.discard[d, :n_disc] = rng.permutation(shuffled.discard[d, :n_disc])
        rwork, _, _ = CP.rollout_work(t, players, shuffled, rollout)
        CP.know(shuffled, rwork.redeal)
        for name in ("known_deck", "known_discard", "known_tops"):
            assert np.array_equal(getattr(rwork.redeal, name), getattr(r, name)), name
        seen += 1
    assert seen >= 3
