"""The compiled pieces of a summary-only run's reduction (`simkit.summing`) against
polars, which they stand in for."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.summing import whole_units


@settings(deadline=None)  # the first call loads the compiled function
@given(st.lists(st.tuples(st.integers(-120, 120), st.sampled_from([0.0, 1e-9, -1e-7, 4e-4,
                                                                      -2e-3, 0.3, 0.5])),
                max_size=40))
def test_whole_units_round_and_measure_as_polars_does(values):
    """`summing.whole_units` (a win share's summand, rounded in compiled code) gives
    polars's rounded integers and the largest distance `totals._check_whole` measures,
    wherever the values are whole (the only rows ever summed)."""
    x = np.array([k + d for k, d in values], np.float64)
    units, worst = whole_units(x)
    series = pl.Series(x)
    want = (series - series.round()).abs().max()
    assert worst == pytest.approx(0.0 if want is None else want, abs=1e-12)
    whole = np.abs(x - np.round(x)) <= 1e-3
    assert units[whole].tolist() == series.round().cast(pl.Int64).to_numpy()[whole].tolist()
    assert np.isnan(whole_units(np.array([1.0, np.nan]))[1])
