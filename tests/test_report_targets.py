"""The balance scorecard: the targets file, overrides, and PASS / FAIL / NOT YET SURE."""

from __future__ import annotations

import math

import polars as pl
import pytest

from reports.stats import Z_POWER, Z
from reports.targets import (
    FAIL,
    PASS,
    UNSURE,
    Item,
    judge,
    judge_item,
    load_targets,
    scorecard,
)
from simkit.errors import SimkitError


def test_default_targets_with_the_game_overrides():
    generic = load_targets(None, "some-other-game")
    cm = load_targets(None, "cauldron-master")
    assert generic.source == "configs/targets.toml"  # as a page shows it: no home folder
    assert set(cm.settings) == {"seat_advantage", "component_effect", "tie_rate", "game_length"}
    assert cm.settings["seat_advantage"]["max_points"] == 3.0
    assert cm.settings["component_effect"]["max_points"] == 5.0
    assert cm.settings["game_length"] == {"min_rounds": 4.0, "max_rounds": 6.0}
    assert generic.settings["game_length"]["min_rounds"] != 4.0


def test_set_target_overrides(tmp_path):
    t = load_targets(None, "cauldron-master", ["tie_rate.max_percent=5", "seat_advantage."
                                               "max_points=1.5"])
    assert t.settings["tie_rate"] == {"max_percent": 5.0}
    assert t.settings["seat_advantage"] == {"max_points": 1.5}
    assert t.source.endswith("with --set-target")


@pytest.mark.parametrize(("text", "message"), [
    ("[seat_advantag]\nmax_points = 3\n", "unknown metric 'seat_advantag'"),
    ("[tie_rate]\nmax = 3\n", "tie_rate.max: unknown setting"),
    ("[tie_rate]\nmax_percent = 'low'\n", "expected a number"),
    ("[games.cauldron-master.speed]\nmax = 1\n", "unknown metric 'games.cauldron-master.speed'"),
    ("[tie_rate\n", "not valid TOML"),
    ("tie_rate = 3\n", "expected a table of settings"),
])
def test_bad_targets_file_names_the_file_and_key(tmp_path, text, message):
    path = tmp_path / "my_targets.toml"
    path.write_text(text)
    with pytest.raises(SimkitError) as err:
        load_targets(path, "cauldron-master")
    assert str(path) in str(err.value) and message in str(err.value)


@pytest.mark.parametrize(("item", "message"), [
    ("nonsense", "expected METRIC.SETTING=VALUE"),
    ("speed.max=3", "unknown metric 'speed'"),
    ("tie_rate.maximum=3", "unknown setting 'maximum'"),
    ("tie_rate.max_percent=lots", "'lots' is not a number"),
])
def test_bad_set_target(item, message):
    with pytest.raises(SimkitError, match=message):
        load_targets(None, "cauldron-master", [item])


def test_missing_targets_file(tmp_path):
    with pytest.raises(SimkitError, match="targets file not found"):
        load_targets(tmp_path / "nope.toml")


def test_judge_item_verdicts():
    assert judge_item(Item("x", 0.01, -0.01, 0.02), -0.03, 0.03)[0] == PASS
    assert judge_item(Item("x", 0.05, 0.04, 0.06), -0.03, 0.03)[0] == FAIL
    assert judge_item(Item("x", -0.05, -0.06, -0.04), -0.03, 0.03)[0] == FAIL
    verdict, distance = judge_item(Item("x", 0.02, 0.0, 0.04), -0.03, 0.03)
    assert verdict == UNSURE and distance == pytest.approx(0.01)
    assert judge_item(Item("x", 5.0, 4.9, 5.1), 4.0, None)[0] == PASS  # one-sided
    assert judge_item(Item("x", 5.0, 4.9, 5.1), None, 4.95)[0] == UNSURE


def test_judge_estimates_the_games_needed():
    # Interval half-width 0.02 now, 0.01 from the line: four times the games for the
    # interval to shrink to the line, ((Z + Z_POWER) / Z)^2 more to decide 80% of the time.
    verdict, needed, _ = judge([Item("a", 0.02, 0.0, 0.04), Item("b", 0.0, -0.01, 0.01)],
                               -0.03, 0.03, run_games=10_000)
    assert verdict == UNSURE and needed == pytest.approx(40_000 * ((Z + Z_POWER) / Z) ** 2)
    verdict, needed, results = judge([Item("a", 0.0, -0.01, 0.01), Item("b", 0.05, 0.04, 0.06),
                                      Item("c", 0.02, 0.0, 0.04)], -0.03, 0.03, 100)
    assert verdict == FAIL and needed is None
    assert [v for _, v in results] == [PASS, FAIL, UNSURE]


def target_frames(advantage=(0.01, -0.01), half=0.005, effects=(0.01,), tie=0.05, rounds=5.0):
    seats = pl.DataFrame({"seat": list(range(len(advantage))), "advantage": list(advantage),
                          "advantage_lo": [a - half for a in advantage],
                          "advantage_hi": [a + half for a in advantage]})
    comps = pl.DataFrame({"kind": ["Card"] * (len(effects) + 1),
                          "name": [f"c{i}" for i in range(len(effects))] + ["common"],
                          "effect": [*effects, math.nan],
                          "effect_lo": [e - half for e in effects] + [math.nan],
                          "effect_hi": [e + half for e in effects] + [math.nan],
                          "compared": [True] * len(effects) + [False]})
    ties = pl.DataFrame({"tie_rate": [tie], "tie_rate_lo": [tie - 0.01],
                         "tie_rate_hi": [tie + 0.01]})
    length = pl.DataFrame({"rounds": [rounds], "rounds_lo": [rounds - 0.1],
                           "rounds_hi": [rounds + 0.1]})
    return {"seat_advantage": seats, "components": comps, "tie_rate": ties,
            "game_length": length}


def test_scorecard_rows():
    targets = load_targets(None, "cauldron-master")
    card = scorecard(targets, run_games=1000, **target_frames())
    assert card["metric"].to_list() == ["seat_advantage", "component_effect", "tie_rate",
                                        "game_length"]
    assert card["verdict"].to_list() == [PASS] * 4
    assert "1 component(s) not judged" in card["detail"][1]
    bad = scorecard(targets, run_games=1000, **target_frames(advantage=(0.06, -0.06), tie=0.2,
                                                        rounds=7.0, effects=(0.049,)))
    verdicts = dict(zip(bad["metric"], bad["verdict"], strict=True))
    assert verdicts == {"seat_advantage": FAIL, "component_effect": UNSURE, "tie_rate": FAIL,
                        "game_length": FAIL}
    unsure = bad.filter(pl.col("metric") == "component_effect").row(0, named=True)
    se = 0.01 / (2 * Z)
    assert unsure["games_needed"] == pytest.approx(1000 * ((Z + Z_POWER) * se / 0.001) ** 2)
    assert "with 80% probability needs about" in unsure["detail"]
    assert "worst: seat 0 +6.0" in bad["estimate"][0]


def test_game_length_is_said_in_the_game_s_own_unit():
    targets = load_targets(None, "cauldron-master")
    card = scorecard(targets, run_games=1000, length_unit="seasons", **target_frames())
    row = card.filter(pl.col("metric") == "game_length").row(0, named=True)
    assert "seasons" in row["estimate"] and "rounds" not in row["estimate"]
    assert row["target"].endswith("seasons")


def test_a_game_without_components_has_no_component_row():
    """Pig's report names no components: its scorecard leaves the target out rather than
    calling it NOT YET SURE forever (which `--until-sure` would wait on)."""
    targets = load_targets(None, "cauldron-master")
    frames = target_frames()
    card = scorecard(targets, run_games=1000,
                     **(frames | {"components": frames["components"].clear()}))
    assert card["metric"].to_list() == ["seat_advantage", "tie_rate", "game_length"]


def test_a_chosen_component_is_never_failed_on_association_alone():
    targets = load_targets(None, "cauldron-master")
    frames = target_frames(effects=(0.2,))  # players who had c0 won 20 points more
    card = scorecard(targets, run_games=1000, **frames)
    row = card.filter(pl.col("metric") == "component_effect").row(0, named=True)
    assert row["verdict"] == UNSURE and "association only" in row["detail"]
    assert "simkit value" in row["detail"]
    dealt = frames | {"components": frames["components"].with_columns(dealt=pl.lit(True))}
    card = scorecard(targets, run_games=1000, **dealt)  # dealt at random: it measures the card
    assert card.filter(pl.col("metric") == "component_effect")["verdict"][0] == FAIL


def test_causal_worth_replaces_the_association_where_measured():
    targets = load_targets(None, "cauldron-master")
    frames = target_frames(effects=(0.2,))
    causal = pl.DataFrame({"kind": ["Card", "A/A control"], "key": ["c0", "a_a"],
                           "name": ["c0", "A/A"], "a_a": [False, True],
                           "vs_average": [0.08, math.nan], "vs_average_lo": [0.07, math.nan],
                           "vs_average_hi": [0.09, math.nan]})
    frames["components"] = frames["components"].with_columns(key=pl.col("name"))
    card = scorecard(targets, run_games=1000, causal=causal, **frames)
    row = card.filter(pl.col("metric") == "component_effect").row(0, named=True)
    assert row["verdict"] == FAIL and "worth vs average" in row["estimate"]
    causal = causal.with_columns(vs_average=pl.Series([0.01, math.nan]),
                                 vs_average_lo=pl.Series([0.0, math.nan]),
                                 vs_average_hi=pl.Series([0.02, math.nan]))
    card = scorecard(targets, run_games=1000, causal=causal, **frames)
    assert card.filter(pl.col("metric") == "component_effect")["verdict"][0] == PASS
