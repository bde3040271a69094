"""The report's row expressions as compiled programs (`simkit.programs`, run by
`summing.evaluate`) against polars evaluating them: the same integers, the same floats
rounded, the same distances from whole numbers; and no program where one could differ."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit import summing
from simkit.programs import inputs, program_of, usable

N = 2600  # rows: more than two blocks (summing.BLOCK), the last one short


def _frame(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({
        "seat": pl.Series(rng.integers(0, 4, N), dtype=pl.UInt8),
        "score": pl.Series(rng.integers(-5, 90, N), dtype=pl.Int16),
        "count": pl.Series(rng.integers(0, 3, N), dtype=pl.Int8),
        "big": pl.Series(rng.integers(-10**6, 10**6, N), dtype=pl.Int64),
        "win_share": pl.Series(rng.choice([0, 1, 1 / 2, 1 / 3, 1 / 4], N), dtype=pl.Float32),
        "flag": rng.random(N) < 0.4,
        "card": pl.Series(rng.choice(["ash", "oak", "elm"], N), dtype=pl.Categorical),
    })


def _run(exprs: dict[str, pl.Expr], rounded: set[str], frame: pl.DataFrame
         ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Each output over every row, and the rounded outputs' largest distances."""
    program = program_of(exprs, rounded, frame.schema)
    assert program is not None, exprs
    assert usable(program, frame, {})
    arrays, kinds = inputs(program, frame, {})
    ops = program.ops_for(frame, {})
    worst = np.zeros(len(program.outputs))
    got = {}
    for i, key in enumerate(exprs):
        got[key] = summing.evaluate_column(ops, program.consts, summing.addresses(arrays),
                                           kinds, frame.height, program.n_int,
                                           program.n_float, program.outputs[i])
    ireg = np.zeros((program.n_int, N), np.int64)
    freg = np.zeros((program.n_float, N))
    summing.evaluate(ops, program.consts, summing.addresses(arrays), kinds, N, 0, N, ireg,
                     freg, worst)
    return got, worst


# Integer-valued expressions, built as the report builds them: indicators of comparisons,
# cast to Int64, combined with integer columns and each other.
_COLUMNS = ["seat", "score", "count", "big"]
indicator = st.builds(
    lambda c, op, v: getattr(pl.col(c), op)(v).fill_null(False),
    st.sampled_from(_COLUMNS), st.sampled_from(["__gt__", "__ge__", "__lt__", "__le__",
                                               "__eq__", "__ne__"]), st.integers(0, 3))
booleans = st.recursive(
    indicator | st.just(pl.col("flag"))
    | st.builds(lambda v: pl.col("card") == v, st.sampled_from(["ash", "elm", "yew"]))
    | st.builds(lambda v: pl.col("win_share") > v, st.sampled_from([0, 0.5, 1])),
    lambda inner: st.builds(lambda a, b: a & b, inner, inner)
    | st.builds(lambda a, b: a | b, inner, inner) | st.builds(lambda a: ~a, inner),
    max_leaves=4)
integers = st.recursive(
    booleans.map(lambda b: b.cast(pl.Int64))
    | st.sampled_from(_COLUMNS).map(lambda c: pl.col(c).cast(pl.Int64)),
    lambda inner: st.builds(lambda a, b: a * b, inner, inner)
    | st.builds(lambda a, b: a + b, inner, inner)
    | st.builds(lambda a, b: a - b, inner, inner)
    | st.builds(lambda a: 1 - a, inner),
    max_leaves=5)


@settings(deadline=None, max_examples=60)
@given(st.lists(integers, min_size=1, max_size=4), st.integers(0, 3))
def test_integer_programs_give_polars_integers(exprs, seed):
    frame = _frame(seed)
    named = {f"e{i}": e for i, e in enumerate(exprs)}
    got, _ = _run(named, set(), frame)
    want = frame.select(**named)
    for key, values in got.items():
        assert values.tolist() == want[key].to_list(), str(named[key])


@settings(deadline=None, max_examples=40)
@given(integers, st.sampled_from([1, 2, 12, 60]), st.integers(0, 3))
def test_scaled_win_shares_round_and_measure_as_polars(factor, scale, seed):
    """A win share times an integer expression, in units of 1/scale (`shapes.scaled`),
    rounded in the program: polars's rounded integers wherever they are whole (the only
    values ever summed: half-way ones are not, and round otherwise), and the largest
    distance from a whole number that polars measures."""
    frame = _frame(seed)
    e = (factor * pl.col("win_share")).cast(pl.Float64) * scale
    got, worst = _run({"v": e}, {"v"}, frame)
    values = frame.select(e).to_series()
    whole = ((values - values.round()).abs() <= 1e-3).to_numpy()
    assert got["v"][whole].tolist() == values.round().cast(pl.Int64).to_numpy()[whole].tolist()
    assert worst[0] == pytest.approx((values - values.round()).abs().max(), abs=1e-12)


@settings(deadline=None, max_examples=40)
@given(booleans, st.sampled_from([1, 12, 60]), st.integers(0, 3))
def test_an_indicator_times_a_rounded_share_is_one_integer_product(h, scale, seed):
    """A win share and its product with an indicator, both in units of 1/scale (a card
    value's y and h * y): the program rounds the share once and multiplies the integers
    (`programs._indicator_products`), and gives polars's rounded integers wherever they
    are whole, the share's distance measured as polars measures it."""
    frame = _frame(seed)
    y = pl.col("win_share")
    exprs = {"y": y.cast(pl.Float64) * scale,
             "hy": (h.cast(pl.Int64) * y).cast(pl.Float64) * scale}
    program = program_of(exprs, set(exprs), frame.schema)
    assert program is not None
    assert int((program.ops[:, 0] == summing.ROUND).sum()) == 1
    got, worst = _run(exprs, set(exprs), frame)
    for key, e in exprs.items():
        values = frame.select(e).to_series()
        whole = ((values - values.round()).abs() <= 1e-3).to_numpy()
        assert got[key][whole].tolist() == (
            values.round().cast(pl.Int64).to_numpy()[whole].tolist()), key
    share = frame.select(exprs["y"]).to_series()
    assert worst[0] == pytest.approx((share - share.round()).abs().max(), abs=1e-12)


def test_category_codes_are_looked_up_for_each_frame():
    """A category against a name compares codes: they are polars's, looked up again for
    every frame (once no series holds a category, it may come back with another code:
    a chunk's slices are frames of their own, one after the other)."""
    e = (pl.col("card") == "elm").cast(pl.Int64)
    program = None
    for seed in range(4):
        names = [f"c{seed}-{i}" for i in range(3)] + ["elm"]
        frame = pl.DataFrame({"card": pl.Series(
            np.random.default_rng(seed).choice(names, N), dtype=pl.Categorical)})
        program = program or program_of({"v": e}, set(), frame.schema)
        arrays, kinds = inputs(program, frame, {})
        got = summing.evaluate_column(program.ops_for(frame, {}), program.consts,
                                      summing.addresses(arrays), kinds, N, program.n_int,
                                      program.n_float, program.outputs[0])
        assert got.tolist() == frame.select(e).to_series().to_list()
        del frame, arrays


@pytest.mark.parametrize("e", [
    pl.col("score") + pl.col("score"),  # int16 arithmetic: polars's may wrap
    pl.col("win_share") * pl.col("win_share"),  # float32 arithmetic
    (pl.col("win_share") > 0.1).cast(pl.Int64),  # 0.1 is not a float32
    pl.col("score").cast(pl.Int8),
    pl.col("win_share").cast(pl.Int64),
    pl.col("score").abs(),
    (pl.col("seat") > 300).cast(pl.Int64),  # beyond the column's type
    pl.col("nothing"),
    pl.col("card").cast(pl.Int64),  # a category as a number
    (pl.col("card") == "ash").cast(pl.Int64) * pl.col("card").cast(pl.Int64),
])
def test_no_program_where_polars_could_differ(e):
    assert program_of({"v": e}, set(), _frame(0).schema) is None


def test_a_column_with_nulls_or_nan_is_left_to_polars():
    frame = _frame(0)
    program = program_of({"v": (pl.col("win_share") > 0).cast(pl.Int64)}, set(),
                         frame.schema)
    assert program is not None and usable(program, frame, {})
    nan = frame.with_columns(win_share=pl.lit(float("nan"), pl.Float32))
    assert not usable(program, nan, {})
    program = program_of({"v": pl.col("score").cast(pl.Int64)}, set(), frame.schema)
    assert program is not None
    assert not usable(program, frame.with_columns(score=pl.lit(None, pl.Int16)), {})


@pytest.mark.parametrize("seed", range(2))
def test_summands_left_to_a_select_give_the_same_totals(seed, monkeypatch):
    """Without programs (an expression none mirrors) the summands come from a polars
    select, and the totals are still polars's (tests/test_summary.py's queries of every
    kind, which otherwise run with programs)."""
    from simkit import compiled_totals
    from tests.test_summary import test_compiled_sums_of_every_kind_of_query_equal_polars

    monkeypatch.setattr(compiled_totals, "program_of", lambda *args: None)
    test_compiled_sums_of_every_kind_of_query_equal_polars(seed, 1.0, monkeypatch)


def test_every_summand_and_filter_of_a_report_has_a_program():
    """The report's queries of a Cauldron Master run are all computed in the pass: no
    summand or filter is left to a polars select."""
    from simkit.totals import reduce
    from tests.test_summary import CM, rows_of

    frame, queries, rotation = rows_of(CM)
    memo: dict = {}
    reduce(frame.head(4000), queries, scale=12, rotation=rotation, memo=memo)
    passes = [p for key, ps in memo.items() if key.startswith("passes ")
              for p in ps.values()]
    assert len(passes) >= 20
    assert all(p.program is not None for p in passes)
    assert all(p.where_program is not None for p in passes if p.where is not None)
    assert any(p.where is not None for p in passes)


def test_a_program_several_passes_share_is_run_once_to_the_same_totals(monkeypatch):
    """Cauldron Master's report groups one rounded value by several keys: its program
    runs once a slice (`summing.evaluate_columns`) and the passes read its outputs; the
    totals and each rounded value's measured distance from a whole number are those of
    a run with every pass running its own program (`compiled_totals._SHARED` 0)."""
    from simkit import compiled_totals, summing
    from simkit.totals import reduce
    from tests.test_summary import CM, rows_of

    frame, queries, rotation = rows_of(CM)
    frame = frame.head(4000)
    memo: dict = {}
    reduce(frame, queries, scale=12, rotation=rotation, memo=memo)
    passes = memo[f"passes row {rotation}"]
    # The passes of a win share alone (by a witch, a recipe card, ...): a measured
    # distance lost by any of them shows in the one they report together.
    shapes = {sig: shape for sig, shape in memo["shapes"][0].items()
              if sig in passes and passes[sig].program is not None
              and list(passes[sig].program.columns) == ["win_share"]
              and len(passes[sig].program.outputs) == 1}
    assert len(shapes) >= 2
    # Win shares off whole twelfths by up to 0.07 of one: each pass measures a distance.
    off = frame.with_columns(
        win_share=pl.col("win_share") + (pl.col("game") % 7).cast(pl.Float32) / 1000)

    def run(shared: int) -> tuple[dict, dict, int]:
        runs, real = [], summing.evaluate_columns

        def counted(*args):
            runs.append(1)
            return real(*args)

        measured: dict[str, float] = {}
        with monkeypatch.context() as m:
            m.setattr(compiled_totals, "_SHARED", shared)
            m.setattr(summing, "evaluate_columns", counted)
            out = compiled_totals.compiled_totals(off, shapes, [], rotation == 1, None,
                                                  measured)
        return out, measured, len(runs)

    shared_out, shared_measured, shared_runs = run(compiled_totals._SHARED)
    own_out, own_measured, own_runs = run(0)
    assert shared_runs > 0 and own_runs == 0
    assert shared_out == own_out and len(shared_out) == len(shapes)
    assert shared_measured == own_measured
    assert max(shared_measured.values()) > 0.01
