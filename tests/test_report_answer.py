"""Every page's answer line and each FAIL row's next step (reports/answer.py), and a
run's settings read back for the next command (simkit/rerun.py)."""

from __future__ import annotations

import math
import shlex

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reports.answer import (
    Advice,
    balance_answer,
    before_after,
    compare_answer,
    config_key,
    judged_components,
    next_step,
    sweep_answer,
    value_answer,
    with_next_steps,
)
from reports.targets import FAIL, PASS, UNSURE, Item, judge_item, load_targets, scorecard
from simkit.games import get_game
from simkit.prepare import RunSpec
from simkit.rerun import RunSettings, settings_of
from tests.test_report_targets import target_frames

CM_CONFIG = {"options": {"tie_break": "shared", "max_rounds": 100},
             "supply": {"size": {"4": 12}},
             "compensation": {"points": [0, 0, 0, 0], "half": [0, 0, 0, 0]},
             "recipe_cards": [{"id": "swamp_stew", "name": "Swamp Stew"}]}


def _advice(**kw) -> Advice:
    settings = RunSettings("cauldron-master", 4, ("planner", "greedy", "random", "greedy"), 7)
    base = dict(settings=settings, run="runs/cm", config=CM_CONFIG, weakest_seat=3,
                margin=2.4)
    return Advice(**{**base, **kw})


def _bad_card():
    targets = load_targets(None, "cauldron-master")
    return scorecard(targets, run_games=1000, **target_frames(advantage=(0.06, -0.06), tie=0.25,
                                                       rounds=7.0, effects=(0.049,)))


def test_a_seat_fail_names_a_balance_search_with_the_run_s_lineup():
    step = next_step("seat_advantage", _advice(weakest_label="4th player"))
    assert step.startswith("Next: search a compensation for the weakest seat, the 4th player:")
    command = shlex.split(step[step.index("`") + 1:step.rindex("`")])
    assert command[:3] == ["simkit", "balance", "cauldron-master"]
    assert command[command.index("--strategies") + 1] == "planner,greedy,random,greedy"
    assert command[command.index("--seed") + 1] == "7"
    # the weakest seat's compensation, up to the mean margin of victory (rounded up)
    assert command[command.index("--tune") + 1] == "compensation.points.3=0..3"
    # the key is one the game's config has: --set takes it
    get_game("cauldron-master").load_config(["compensation.points.3=3"])


def test_every_fail_row_gets_a_next_step_and_no_other_row_does():
    card = with_next_steps(_bad_card(), _advice())
    for r in card.iter_rows(named=True):
        assert bool(r["next"]) == (r["verdict"] == FAIL), r
    steps = dict(zip(card["metric"], card["next"], strict=True))
    assert "--set-target tie_rate.max_percent" in steps["tie_rate"]
    assert "compensation.half.3=0..1" in steps["tie_rate"]
    # the game ends by a key it has (max_rounds is a safety stop, not a rule)
    assert "simkit sweep" in steps["game_length"] and "max_rounds" not in steps["game_length"]


def test_a_component_fail_asks_for_the_causal_value_first_then_names_its_entry():
    assert next_step("component_effect", _advice()).startswith(
        "Next: measure what each component makes you win: `simkit value runs/cm`")
    stew = {"Swamp Stew": "recipe_cards.swamp_stew"}
    step = next_step("component_effect", _advice(causal=True, components=stew))
    assert "recipe_cards.swamp_stew" in step and "simkit compare runs/cm" in step
    assert "`simkit cards cauldron-master --value runs/cm --out cards`" in step
    dealt = next_step("component_effect", _advice(components=stew))  # no value run yet
    assert "`simkit cards cauldron-master --out cards`" in dealt and "simkit value" in dealt


def test_the_components_named_are_those_outside_the_target_largest_first():
    from reports.answer import _outside

    table = pl.DataFrame({"kind": ["Card"] * 4, "key": ["a", "b", "c", "aa"],
                          "name": ["A", "B", "C", "A/A"], "a_a": [False] * 3 + [True],
                          "vs_average": [0.02, -0.09, 0.12, 0.0],
                          "vs_average_lo": [0.0, -0.1, 0.1, -0.1],
                          "vs_average_hi": [0.04, -0.08, 0.14, 0.1],
                          "value": [0.0] * 4, "verdict": ["x"] * 4})
    assert _outside(table, pl.DataFrame(), 0.05) == [("C", "c"), ("B", "b")]
    effects = pl.DataFrame({"kind": ["Card"] * 3, "key": ["a", "b", "c"],
                            "name": ["A", "B", "C"], "compared": [True] * 3,
                            "dealt": [True, False, True], "effect": [0.2, 0.3, 0.01],
                            "effect_lo": [0.15, 0.25, 0.0], "effect_hi": [0.25, 0.35, 0.02]})
    # B is chosen: an association points but cannot fail it
    assert _outside(None, effects, 0.05) == [("A", "a")]
    assert config_key(CM_CONFIG, "swamp_stew") == "recipe_cards.swamp_stew"
    assert config_key(CM_CONFIG, "nothing") is None


def test_balance_answer_counts_the_verdicts_and_names_the_largest_miss():
    card = with_next_steps(_bad_card(), _advice())
    fails = card.filter(pl.col("verdict") == FAIL)
    largest = fails.sort("miss", descending=True).row(0, named=True)
    answer = balance_answer(card, "4 players (greedy)")
    assert answer.startswith(f"{fails.height} of {card.height} targets fail for 4 players")
    assert f"the largest miss is {largest['title'].lower()}" in answer
    assert largest["next"].removeprefix("Next: ") in answer
    # in units of each limit: the tie rate (25% against 10%) misses by 1.5, the seat (6
    # points against 3) and the length (7 rounds against 4..6) by 1
    assert largest["metric"] == "tie_rate"
    good = scorecard(load_targets(None, "cauldron-master"), run_games=1000, **target_frames())
    assert balance_answer(good, "us") == "All 4 targets pass for us: nothing to change."


@given(st.floats(-0.2, 0.2), st.floats(0.0, 0.05), st.floats(0.01, 0.1))
def test_value_components_are_judged_as_the_scorecard_judges(estimate, half, limit):
    table = pl.DataFrame({"kind": ["Card", "Card"], "key": ["c", "aa"], "name": ["C", "A/A"],
                          "a_a": [False, True], "vs_average": [estimate, math.nan],
                          "vs_average_lo": [estimate - half, math.nan],
                          "vs_average_hi": [estimate + half, math.nan],
                          "value": [0.0, 0.0], "verdict": ["x", "y"]})
    judged = judged_components(table, limit)
    assert judged["name"].to_list() == ["C"]  # the A/A row is no component
    expected = judge_item(Item("C", estimate, estimate - half, estimate + half), -limit, limit)
    assert judged["target"][0] == expected[0]
    answer = value_answer(judged, limit, "us", "g")
    assert ("1 component is outside" in answer) == (expected[0] == FAIL)


def test_sweep_and_compare_answers():
    best = {"values": "supply.size.4 = 11", "passed": 4}
    said = sweep_answer(best, 4, 1, 3, "us", "--set supply.size.4=11", [])
    assert said.startswith("supply.size.4 = 11 passes every target for us")
    assert "`--set supply.size.4=11`" in said
    said = sweep_answer({**best, "passed": 2}, 4, 0, 3, "us", "", ["Tie rate", "Seat advantage"])
    assert "No point passes" in said and "tie rate, seat advantage still fail" in said
    a = pl.DataFrame({"metric": ["m1", "m2", "m3"], "title": ["One", "Two", "Three"],
                      "target": ["t"] * 3, "verdict": [FAIL, PASS, FAIL],
                      "estimate": ["1", "2", "3"]})
    b = a.with_columns(verdict=pl.Series([PASS, FAIL, FAIL]))
    table = before_after(a, b)
    assert table["change"].to_list() == ["fixed", "broken", "same"]
    said = compare_answer(table, "us")
    assert said == ("B passes 1 of 3 targets, A 1, for us; the change fixes one; it breaks "
                    "two; three still fails.")
    assert before_after(a, a.with_columns(verdict=pl.lit(UNSURE)))["change"].to_list() == [
        "now unsure"] * 3


@pytest.mark.parametrize("spec", [
    RunSpec("cauldron-master", 4, ("planner", "greedy", "random", "greedy"), 100, 9),
    RunSpec("examples/pig", 2, ("greedy",), 10, 0, ("target=50", "compensation.start.1=3"),
            ("greedy.stop=20",), "my config.toml"),
])
def test_a_run_s_settings_are_read_back_from_its_command(spec):
    manifest = {"game": "pig", "players": spec.players, "seed": spec.seed,
                "strategies": [{"name": n} for n in spec.strategies],
                "command": spec.command("runs/x y")}
    got = settings_of(manifest)
    assert (got.game, got.players, got.strategies, got.seed, got.overrides, got.params,
            got.config_path) == (spec.game, spec.players, spec.strategies, spec.seed,
                                 spec.overrides, spec.params, spec.config_path)
    assert got.command("value").startswith(f"simkit value {shlex.quote(spec.game)} ")
