"""Config loading, `--set` overrides and placeholder marks."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simkit.config import apply_override, flatten, load_config, parse_value
from simkit.errors import ConfigError


def test_override_by_id_and_index():
    cfg = load_config("cauldron-master", overrides=(
        "ingredients.spider_venom.scores=[2,4,8,16]",
        "witches.0.max_cards=2",
        "recipe_cards.venom_draught.recipes.0.bonus=5",
    ))
    ing = {i["id"]: i for i in cfg.data["ingredients"]}
    assert ing["spider_venom"]["scores"] == [2, 4, 8, 16]
    assert cfg.data["witches"][0]["max_cards"] == 2
    assert cfg.data["recipe_cards"][0]["recipes"][0]["bonus"] == 5


def test_hash_follows_content():
    base = load_config("cauldron-master")
    same = load_config("cauldron-master", overrides=("options.max_rounds=100",))
    other = load_config("cauldron-master", overrides=("options.max_rounds=99",))
    assert base.hash == same.hash != other.hash


def test_placeholders_listed():
    marks = load_config("cauldron-master").placeholders()
    assert "ingredients.spider_venom.scores" in marks
    assert "recipe_cards.venom_draught" in marks
    assert not any(m.startswith("supply") for m in marks)  # from the rule text


@pytest.mark.parametrize("item,message", [
    ("options.max_round=3", "did you mean 'max_rounds'"),
    ("options.picking_compulsory=1", "expected a value of type bool"),
    ("ingredients.spider_venom.scores=3", "expected a value of type list"),
    ("ingredients.unicorn.scores=[1]", "'ingredients' has no entry 'unicorn'"),
    ("compensation.points.4=1", "'compensation.points' is a list of 4: '4' must be an "
     "index 0..3"),
    ("suply.size.4=8", "suply.size.4 = 8: unknown key 'suply'; did you mean 'supply'"),
    ("ingredients.bat_heart.copies=2", "ingredients.bat_heart.copies = 2: 'ingredients' has "
     "no entry 'bat_heart'; did you mean 'bats_heart'"),
    ("options", "expected KEY=VALUE"),
])
def test_bad_overrides(item, message):
    with pytest.raises(ConfigError, match=message):
        load_config("cauldron-master", overrides=(item,))


@pytest.mark.parametrize("item,message", [
    ("options.recipe_choice=worst",
     "options.recipe_choice = 'worst': must be one of: best, player"),
    ('options.recipe_match="some"',
     "options.recipe_match = 'some': must be one of: contains, exact"),
])
def test_bad_rule_option_values(item, message):
    """A rule option's value is checked when the config is compiled: one clear error."""
    from simkit.games import get_game

    game = get_game("cauldron-master")
    with pytest.raises(ConfigError) as caught:
        game.compile(game.load_config((item,)))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_flatten_round_trips_through_set():
    """Every key `simkit show` prints can be set back to its own value."""
    cfg = load_config("cauldron-master")
    for key, value in flatten(cfg.data):
        data = load_config("cauldron-master").data
        apply_override(data, f"{key}={json.dumps(value)}")  # as `simkit show` prints it
        assert dict(flatten(data))[key] == value


@given(st.one_of(st.integers(-10**9, 10**9), st.booleans(),
                 st.lists(st.integers(0, 100), max_size=5)))
def test_parse_value_reads_toml(value):
    text = str(value).lower() if isinstance(value, bool) else str(value)
    assert parse_value(text) == value


def test_a_placeholder_set_by_the_designer_is_no_longer_listed():
    """`--set` replaces a placeholder with the designer's own value: the run's warning
    leaves it out (by id or by position), and keeps every other mark."""
    base = load_config("cauldron-master").placeholders()
    assert "ingredients.bats_heart.scores" in base
    for key in ("ingredients.bats_heart.scores", "ingredients.0.scores"):
        marks = load_config("cauldron-master", overrides=(f"{key}=[1,2,3,4]",)).placeholders()
        assert "ingredients.bats_heart.scores" not in marks
        assert sorted(marks) == sorted(m for m in base if m != "ingredients.bats_heart.scores")
