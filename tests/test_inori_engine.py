"""Inori through the shared machinery: strategy strength (rotated seats), result columns,
the command line and its errors."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.engine import build_lineup
from simkit.errors import ConfigError, SimkitError
from simkit.games import get_game
from simkit.games.inori.layout import SOURCES


@pytest.fixture(scope="module")
def ino():
    game = get_game("inori")
    compiled = game.compile(game.load_config())
    game.simulate(compiled, build_lineup(game, ["greedy", "planner", "random"], 3), 0, 0, 6)
    return game, compiled


def share(ino, names, index, games, seed=101):
    """Mean win share per game of strategy `names[index]`, with a 95% normal interval."""
    game, compiled = ino
    cols = game.simulate(compiled, build_lineup(game, names, len(names)), seed, 0, games)
    per_game = np.where(cols["strategy"] == index, cols["win_share"], 0).sum(axis=1)
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(games)
    return per_game.mean(), half


@pytest.mark.parametrize("n", [2, 3, 4])
def test_greedy_beats_random(ino, n):
    mean, half = share(ino, ["greedy"] + ["random"] * (n - 1), 0, 3000)
    assert mean - half > 1.0 / n + 0.25


@pytest.mark.parametrize("n", [2, 3, 4])
def test_planner_beats_greedy(ino, n):
    mean, half = share(ino, ["planner"] + ["greedy"] * (n - 1), 0, 3000)
    assert mean - half > 1.0 / n + 0.2


def test_parameters_change_play(ino):
    game, compiled = ino
    names = ["planner", "greedy"]
    base = game.simulate(compiled, build_lineup(game, names, 2), 3, 0, 300)
    tweak = game.simulate(compiled, build_lineup(game, names, 2, ["planner.token_value=0.2"]),
                          3, 0, 300)
    assert not np.array_equal(base["score"], tweak["score"])


def test_result_columns(ino):
    game, compiled = ino
    names = compiled.names
    cols = game.simulate(compiled, build_lineup(game, ["greedy", "random", "planner"], 3), 9,
                         0, 300)
    for name in ("strategy", "score", "rank", "win_share", "rounds", "cards_completed",
                 "runes_drawn", "runes_played", "tiles_placed", "turns", "tokens_yellow",
                 "tree_altar_block", "rune_occupied", "card_yellow_1", "card_new_start_grey",
                 "points_majorities"):
        assert name in cols, name
    by_source = sum(cols[f"points_{s}"].astype(int) for s in SOURCES)
    np.testing.assert_array_equal(by_source, cols["score"])
    completed = sum(cols[f"card_{c}"].astype(int) for c in names.card_ids)
    np.testing.assert_array_equal(completed, cols["cards_completed"])
    tree = sum(cols[f"tree_{ts}"].astype(int) for ts in names.tree_ids)
    np.testing.assert_array_equal(tree + cols["card_offerings"] + cols["markers_passed"],
                                  cols["turns"])
    assert (cols["turns"] == sum(compiled.tables.markers(3))).all()
    assert (cols["rounds"] == 4).all()
    tokens = sum(cols[f"tokens_{x}"].astype(int) for x in names.colour_ids)
    assert (tokens.sum(axis=1) <= int(compiled.tables.tokens.sum())).all()


GREEDY_WEIGHTS = [
    (),
    # tokens, runes and costs worth nothing: no Rune tile beats playing none (both 0)
    ("greedy.token_weight=0", "greedy.rune_weight=0", "greedy.cost_weight=0"),
    ("greedy.token_weight=4", "greedy.rune_weight=0.5", "greedy.complete_weight=7",
     "greedy.cost_weight=3"),
]


@pytest.mark.parametrize("weights", range(len(GREEDY_WEIGHTS)))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_batch_greedy_matches_traced_replay(ino, n, weights):
    """In a batch, a greedy seat chooses its Rune tile and offering as the option tables
    are built (kernel `put_offer`, `rune_rows` with fuse); a traced replay builds whole
    tables, which the reference tests check, and asks greedy. Both must play the same
    games, column for column."""
    game, compiled = ino
    names = ["greedy"] * (n - 1) + ["random"]
    lineup = build_lineup(game, names, n, list(GREEDY_WEIGHTS[weights]))
    games = 120
    batch = game.simulate(compiled, lineup, 17 + weights, 0, games)
    for g in range(games):
        one = game.columns(compiled, game.replay(compiled, lineup, 17 + weights, g).out)
        for key, values in batch.items():
            np.testing.assert_array_equal(values[g], one[key][0], err_msg=f"game {g} {key}")


@pytest.fixture()
def cli(ino):
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


def test_cli_games_strategies_show(cli):
    assert "inori" in cli("games").output
    out = cli("strategies", "inori").output
    for name in ("random", "greedy", "planner", "token_value", "deny_weight"):
        assert name in out
    out = cli("show", "inori").output
    assert "majority.first = 6   # PLACEHOLDER" in out
    assert 'options.cost_payment = "return"\n' in out
    assert "setup.neutral_markers = 2\n" in out  # public: not marked
    assert "options.altar_cost = 0" in cli("show", "inori", "--set", "options.altar_cost=0").output


def test_cli_play(cli):
    result = cli("play", "inori", "--players", "3", "--strategies", "planner,greedy,random",
                 "--seed", "4")
    assert result.exit_code == 0
    for text in ("Setup: slot 0", "== Season 1 ==", "== Season 4 ==", "offers to",
                 "Great Tree", "Season end:", "goes first next season", "keeps New Start card",
                 "Game over after 4 seasons", "Final scores:", "majorities"):
        assert text in result.output, text


def test_cli_run(cli, tmp_path):
    out = tmp_path / "run"
    result = cli("run", "inori", "--players", "4", "--strategies",
                 "planner,greedy,random,greedy", "--games", "400", "--seed", "3", "--out",
                 str(out), "--set", "options.altar_cost=2")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert "options.altar_cost=2" in manifest["command"]
    frame = pl.read_parquet(out / "games.parquet")
    assert frame.height == 1600
    assert frame["rounds"].unique().to_list() == [4]


@pytest.mark.parametrize(("overrides", "key"), [
    (('cards.yellow_1.colour="gold"',), "cards.yellow_1.colour"),
    (('cards.yellow_1.next="yellow"',), "cards.yellow_1.next"),
    (('cards.yellow_1.spaces.0.effect="steal"',), "cards.yellow_1.spaces.0.effect"),
    (('cards.yellow_1.spaces.0.cost="gold"',), "cards.yellow_1.spaces.0.cost"),
    (("markers.3=[3, 4]",), "markers.3"),
    (('options.majority_tie="coin"',), "options.majority_tie"),
    (("options.altar_cost=9",), "options.altar_cost"),
    (('colours.red.opposite="red"',), "colours.red.opposite"),
    (('start_cards.start_1.colour="purple"',), "start_cards.start_1.colour"),
    (('tree.altar_any.effect="dance"',), "tree.altar_any.effect"),
])
def test_config_errors_name_file_key_value(overrides, key):
    game = get_game("inori")
    with pytest.raises(ConfigError) as err:
        game.compile(game.load_config(overrides))
    text = str(err.value)
    assert "inori.toml" in text and key in text


def test_bad_input_errors(cli):
    game = get_game("inori")
    with pytest.raises(SimkitError):
        build_lineup(game, ["nobody"], 2)
    with pytest.raises(SimkitError):
        build_lineup(game, ["planner"], 2, ["planner.token_value=99"])
    result = CliRunner().invoke(main, ["run", "inori", "--players", "5", "--games", "10",
                                       "--out", "/tmp/never"])
    assert result.exit_code != 0 and "players" in result.output
