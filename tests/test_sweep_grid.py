"""Sweep specs: parsing of --vary values and ranges, grid and zip expansion, clear errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit import sweeps as sweep
from simkit.errors import SimkitError

segment = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
config_key = st.lists(segment, min_size=1, max_size=4).map(".".join)
param_key = st.tuples(segment, segment).map(lambda t: f"param:{t[0]}.{t[1]}")
scalar = st.one_of(st.integers(-10_000, 10_000), st.booleans(),
                   st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: x != int(x)),
                   st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(
                       lambda s: s not in ("true", "false", "inf", "nan")))
value = st.one_of(scalar, st.lists(st.integers(0, 99), min_size=1, max_size=4))


def _unique(values):
    seen, out = set(), []
    for v in values:
        text = sweep.format_value(v)
        if text not in seen:
            seen.add(text)
            out.append(v)
    return out


@settings(max_examples=150, deadline=None)
@given(key=st.one_of(config_key, param_key),
       values=st.lists(value, min_size=1, max_size=6).map(_unique))
def test_vary_list_round_trips(key, values):
    text = ",".join(sweep.format_value(v) for v in values)
    axis = sweep.parse_vary(f"{key}={text}")
    assert axis.key == key
    assert [sweep.format_value(v) for v in axis.values] == [sweep.format_value(v)
                                                            for v in values]


@settings(max_examples=150, deadline=None)
@given(a=st.integers(-50, 50), n=st.integers(0, 40), step=st.integers(1, 5))
def test_integer_ranges(a, n, step):
    b = a + n
    assert sweep.parse_vary(f"k={a}..{b}").values == tuple(range(a, b + 1))
    assert sweep.parse_vary(f"k={a}..{b}:{step}").values == tuple(range(a, b + 1, step))


@settings(max_examples=100, deadline=None)
@given(a=st.integers(-20, 20), n=st.integers(0, 30), step=st.sampled_from([0.1, 0.05, 0.25]))
def test_float_ranges_include_the_end(a, n, step):
    lo = a / 10
    hi = round(lo + n * step, 10)
    values = sweep.parse_vary(f"k={lo}..{hi}:{step}").values
    assert len(values) == n + 1
    assert math.isclose(values[0], lo) and math.isclose(values[-1], hi, abs_tol=1e-9)


def test_mixed_lists_and_ranges_and_toml_values():
    axis = sweep.parse_vary("ingredients.spider_venom.scores=[1,3,6,10],[1, 3, 6, 12]")
    assert axis.values == ([1, 3, 6, 10], [1, 3, 6, 12])
    assert sweep.parse_vary("options.picking_compulsory=true,false").values == (True, False)
    assert sweep.parse_vary("options.recipe_match=contains,exact").values == ("contains",
                                                                              "exact")
    assert sweep.parse_vary("supply.size.4=8,10..12").values == (8, 10, 11, 12)
    assert sweep.parse_vary("param:planner.discount=0.1..0.3:0.1").values == (0.1, 0.2, 0.3)


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=1, max_size=3), zipped=st.booleans())
def test_grid_and_zip_expansion(sizes, zipped):
    if zipped:
        sizes = [sizes[0]] * len(sizes)
    axes = tuple(sweep.Axis(f"k{i}.x", tuple(range(n))) for i, n in enumerate(sizes))
    spec = sweep.SweepSpec("cauldron-master", 3, ("greedy",), 10, 1, axes, zip=zipped)
    points = sweep.expand(spec)
    assert len(points) == (sizes[0] if zipped else math.prod(sizes))
    assert len({p.name for p in points}) == len(points)
    assert [p.name for p in points] == sorted(p.name for p in points)  # folder order
    for p in points:
        assert p.run.overrides == tuple(f"{a.key}={p.values[a.key]}" for a in axes)
        assert p.run.seed == 1 and p.run.games == 10  # common random numbers
        if zipped:
            assert len(set(p.values.values())) == 1


def test_params_and_fixed_overrides_combine():
    spec = sweep.make_spec("cauldron-master", vary=["param:planner.discount=0.2,0.4"],
                           overrides=["supply.size.3=9"], params=["planner.mix_penalty=2"])
    a, b = sweep.expand(spec)
    assert a.run.overrides == ("supply.size.3=9",)
    assert a.run.params == ("planner.mix_penalty=2", "planner.discount=0.2")
    assert b.name == "01_planner.discount=0.4"


@pytest.mark.parametrize("item, message", [
    ("k=5..2", "is empty"),
    ("k=1..", "bad range"),
    ("k=a..b", "bad range"),
    ("k=0.1..0.5", "no step"),
    ("k=1..5:0", "step must be positive"),
    ("k=", "no values"),
    ("k=1,,2", "empty value"),
    ("k=1,2,1", "listed twice"),
    ("k", "expected KEY="),
    ("param:discount=1,2", "param:STRATEGY.PARAM"),
    ("bad key!=1,2", "not a config key"),
    ("k=1..100000", "at most"),
])
def test_bad_vary_is_a_clear_error(item, message):
    with pytest.raises(SimkitError, match=message):
        sweep.parse_vary(item)


def test_zip_needs_equal_lengths():
    with pytest.raises(SimkitError, match="same number of values"):
        sweep.make_spec("cauldron-master", vary=["a.b=1,2", "c.d=1,2,3"], zipped=True)
    with pytest.raises(SimkitError, match="at least one varied key"):
        sweep.make_spec("cauldron-master")
    with pytest.raises(SimkitError, match="given twice"):
        sweep.make_spec("cauldron-master", vary=["a.b=1", "a.b=2"])


def test_unknown_key_and_wrong_type_are_refused_before_any_game(cm):
    with pytest.raises(SimkitError, match=r"--vary supply\.sise\.4 .*unknown key.*'size'"):
        sweep.plan(sweep.make_spec("cauldron-master", vary=["supply.sise.4=8,10"], players=4))
    with pytest.raises(SimkitError, match=r"--vary supply\.size\.4 .*expected a value of type"):
        sweep.plan(sweep.make_spec("cauldron-master", vary=["supply.size.4=true,false"],
                                   players=4))
    with pytest.raises(SimkitError, match="strategy parameters are numbers"):
        sweep.plan(sweep.make_spec("cauldron-master", vary=["param:planner.discount=a,b"],
                                   strategies=["planner"], players=3))
    with pytest.raises(SimkitError, match="has no parameter 'nope'"):
        sweep.plan(sweep.make_spec("cauldron-master", vary=["param:planner.nope=1,2"],
                                   strategies=["planner"], players=3))
    with pytest.raises(SimkitError, match="out of range"):
        sweep.plan(sweep.make_spec("cauldron-master", vary=["param:planner.discount=0.5,2"],
                                   strategies=["planner"], players=3))


def test_too_many_points_need_yes(cm):
    spec = sweep.make_spec("cauldron-master", vary=["supply.size.3=6..9", "supply.size.4=8,9"],
                           players=3, max_points=5, games=10)
    with pytest.raises(SimkitError, match="8 points .* more than the limit of 5; pass --yes"):
        sweep.plan(spec)
    assert len(sweep.plan(spec, yes=True).points) == 8


def test_spec_file_and_command_line_overrides(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('game = "cauldron-master"\nplayers = 3\nstrategies = "planner,greedy,random"'
                    '\ngames = 500\nseed = 4\nset = ["supply.size.3=9"]\n'
                    '[vary]\n"options.picking_compulsory" = [true, false]\n'
                    '"param:planner.discount" = "0.1..0.2:0.1"\n')
    spec = sweep.make_spec(str(path), games=200, seed=9)
    assert (spec.game, spec.players, spec.games, spec.seed) == ("cauldron-master", 3, 200, 9)
    assert spec.strategies == ("planner", "greedy", "random")
    assert [a.key for a in spec.axes] == ["options.picking_compulsory", "param:planner.discount"]
    assert len(sweep.expand(spec)) == 4
    only = sweep.make_spec(str(path), vary=["supply.size.3=8,10"])  # --vary replaces the spec's
    assert [a.key for a in only.axes] == ["supply.size.3"]
    path.write_text('game = "cauldron-master"\ngamez = 5\n[vary]\n"a.b" = [1]\n')
    with pytest.raises(SimkitError, match="unknown setting 'gamez'"):
        sweep.make_spec(str(path))
    path.write_text('game = "cauldron-master"\n[vary]\n"a.b" = "3..1"\n')
    with pytest.raises(SimkitError, match="is empty"):
        sweep.make_spec(str(path))


def test_example_specs_are_valid(cm):
    from simkit.config import CONFIG_DIR
    from simkit.games import game_names

    specs = sorted((CONFIG_DIR / "sweeps").glob("*.toml"))
    assert any(p.stem == "cauldron_master" for p in specs)
    for path in specs:
        spec = sweep.make_spec(str(path), games=10)
        assert spec.game in game_names() and path.stem == spec.game.replace("-", "_")
        assert sweep.plan(spec).points
