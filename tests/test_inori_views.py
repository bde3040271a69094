"""Inori's views of `hid` (`jit.segment`, `grid` and the named views built on them): the
same memory and the same numba array types as the slices and `reshape` they replace
(built in place, so the turn loop calls no runtime routine for them)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from simkit.games import get_game
from simkit.games.inori import layout as L
from simkit.kernels.jit import grid, segment


@njit
def _cut(a, start, n, rows, cols):
    """A segment and a grid of `a`, each written through (-1, -2 at their first cell)."""
    s = segment(a, start, n)
    g = grid(a, start, rows, cols)
    if n > 0:
        s[0] = -1
    if rows > 0 and cols > 0:
        g[rows - 1, cols - 1] = -2
    return s.copy(), g.copy()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 12), st.integers(0, 5), st.integers(0, 5))
def test_segment_and_grid_are_the_slice_and_reshape(start, n, rows, cols):
    a = np.arange(100, dtype=np.int64)
    want = a.copy()
    want[start] = -1 if n > 0 else want[start]
    s, g = _cut(a, start, n, rows, cols)
    if rows and cols:
        want[start + rows * cols - 1] = -2
    np.testing.assert_array_equal(a, want)  # written through: the caller's memory
    np.testing.assert_array_equal(s, want[start:start + n])
    np.testing.assert_array_equal(g, want[start:start + rows * cols].reshape((rows, cols)))


def test_the_views_call_no_runtime_routine():
    """What they are for: `reshape` calls numba_attempt_nocopy_reshape for each view."""
    _cut(np.zeros(8, np.int64), 0, 2, 2, 2)
    assert _reshaped(np.zeros(4, np.int64)).shape == (2, 2)
    control = "".join(_reshaped.inspect_llvm().values())
    assert "numba_attempt_nocopy_reshape" in control  # the check sees what it looks for
    assert "numba_attempt_nocopy_reshape" not in "".join(_cut.inspect_llvm().values())


@njit
def _reshaped(a):
    return a.reshape((2, 2))  # the control: the runtime call the check looks for


@pytest.fixture(scope="module")
def tables():
    game = get_game("inori")
    return game.compile(game.load_config()).tables


@njit
def _named(t, hid):
    tops, rtops, stack, new_starts, starts, decks, discards = L.piles(t, hid)
    return (tops.copy(), rtops.copy(), stack.copy(), new_starts.copy(), starts.copy(),
            decks.copy(), discards.copy(), L.hv_of(hid).copy(), L.tied_of(hid).copy())


def test_the_named_views_cut_hid_as_its_layout_says(tables):
    t = tables
    hid = np.arange(L.hid_size(t), dtype=np.int64)
    n_col, n_cards, n_runes = t.colour.shape[0], t.card.shape[0], t.rune.shape[0]
    got = _named(t, hid)
    a, want = L.HID_STATE, []
    for size, shape in [(3 * n_col, (3, n_col)), (4, (4,)), (n_runes, (n_runes,)),
                        (n_cards, (n_cards,)), (n_cards, (n_cards,)),
                        (n_col * n_cards, (n_col, n_cards)), (n_col * n_cards, (n_col, n_cards))]:
        want.append(hid[a:a + size].reshape(shape))
        a += size
    assert a == hid.shape[0]  # the piles end where hid does
    want += [hid[L.HV:L.HV + L.MAX_COLOURS], hid[L.TIED:L.TIED + L.MAX_PLAYERS]]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
