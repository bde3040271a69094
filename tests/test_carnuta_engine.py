"""Carnuta through the shared machinery: strategy strength (rotated seats), result
columns, the command line and its errors."""

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


@pytest.fixture(scope="module")
def cn():
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    game.simulate(compiled, build_lineup(game, ["greedy", "planner", "random"], 3), 0, 0, 6)
    return game, compiled


def share(cn, names, index, games, seed=101):
    """Mean win share per game of strategy `names[index]`, with a 95% normal interval."""
    game, compiled = cn
    cols = game.simulate(compiled, build_lineup(game, names, len(names)), seed, 0, games)
    per_game = np.where(cols["strategy"] == index, cols["win_share"], 0).sum(axis=1)
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(games)
    return per_game.mean(), half


def test_greedy_beats_random(cn):
    mean, half = share(cn, ["greedy", "random", "random", "random"], 0, 3000)
    assert mean - half > 0.6  # fair share is 0.25
    mean, half = share(cn, ["greedy", "random"], 0, 2000)
    assert mean - half > 0.8  # fair share is 0.5


def test_planner_beats_greedy(cn):
    mean, half = share(cn, ["planner", "greedy", "greedy", "greedy"], 0, 4000)
    assert mean - half > 0.25 + 0.05
    mean, half = share(cn, ["planner", "greedy"], 0, 3000)
    assert mean - half > 0.5 + 0.1


def test_parameters_change_play(cn):
    game, compiled = cn
    names = ["planner", "greedy"]
    base = game.simulate(compiled, build_lineup(game, names, 2), 3, 0, 300)
    tweak = game.simulate(compiled, build_lineup(game, names, 2, ["planner.discount=0.9"]),
                          3, 0, 300)
    assert not np.array_equal(base["score"], tweak["score"])


def test_result_columns(cn):
    game, compiled = cn
    cols = game.simulate(compiled, build_lineup(game, ["greedy", "random"], 2), 9, 0, 200)
    for name in ("strategy", "score", "rank", "win_share", "rounds", "starting_card",
                 "cards_played", "bonus_tokens", "sickles_used", "runes_taken",
                 "runes_flipped", "runes_returned", "played_clover", "token_mushroom",
                 "points_set3", "points_flat2", "card_clover_1", "card_night_salt_4"):
        assert name in cols, name
    played = sum(cols[f"card_{c}"] for c in compiled.names.card_ids[:72])
    assert np.array_equal(played, cols["cards_played"])
    by_column = sum(cols[f"played_{x}"] for x in compiled.names.ingredient_ids)
    assert np.array_equal(by_column, cols["cards_played"])
    kinds = sum(cols[f"points_{k}"].astype(int) for k in
                ("set3", "set2", "each", "two_types", "own", "flat5", "flat2"))
    assert np.array_equal(kinds, cols["score"])


@pytest.fixture()
def cli(cn):
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


def test_cli_games_strategies_show(cli):
    assert "carnuta" in cli("games").output
    out = cli("strategies", "carnuta").output
    for name in ("random", "greedy", "planner", "discount", "sickle_below"):
        assert name in out
    out = cli("show", "carnuta").output
    assert 'cards.clover_1.cost = ["sun_flip"]   # PLACEHOLDER' in out
    assert 'options.flip_runes = "all"\n' in out
    assert "reserve.4 = [3, 3]\n" in out  # from the rule text: not marked
    assert 'options.flip_runes = "some"' in cli("show", "carnuta", "--set",
                                                 'options.flip_runes="some"').output


def test_cli_play(cli):
    result = cli("play", "carnuta", "--players", "3", "--strategies", "planner,greedy,random",
                 "--seed", "4")
    assert result.exit_code == 0
    for text in ("starting card", "== Round 1 ==", "takes", "plays", "pays:", "revealed",
                 "the end is triggered", "Game over", "points", "Final scores:"):
        assert text in result.output, text


def test_cli_run(cli, tmp_path):
    out = tmp_path / "run"
    result = cli("run", "carnuta", "--players", "4", "--strategies",
                 "planner,greedy,random,greedy", "--games", "400", "--seed", "3", "--out",
                 str(out), "--set", 'options.flip_runes="some"')
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert "options.flip_runes" in manifest["command"]
    frame = pl.read_parquet(out / "games.parquet")
    assert frame.height == 1600
    assert set(frame["starting_card"].unique().to_list()) <= {
        f"start_{x}" for x in ("clover", "flower", "egg", "honey", "skull", "butterfly",
                               "berry", "mushroom")}


@pytest.mark.parametrize(("overrides", "key"), [
    (("cards.clover_1.cost=[\"sun_flop\"]",), "cards.clover_1.cost"),
    (('cards.clover_1.score="set9"',), "cards.clover_1.score"),
    (('cards.clover_1.ingredients=["salt"]',), "cards.clover_1.ingredients"),
    (('cards.day_salt_1.ingredient="egg"',), "cards.day_salt_1"),
    (("reserve.3=[1]",), "reserve.3"),
    (('options.flip_runes="most"',), "options.flip_runes"),
    (("board.hand_limit=9",), "board.hand_limit"),
    (("track.padlock=[4, 8, 9]",), "track.padlock"),
])
def test_config_errors_name_file_key_value(overrides, key):
    game = get_game("carnuta")
    with pytest.raises(ConfigError) as err:
        game.compile(game.load_config(overrides))
    text = str(err.value)
    assert "carnuta.toml" in text and key in text


def test_bad_input_errors(cli):
    game = get_game("carnuta")
    with pytest.raises(SimkitError):
        build_lineup(game, ["nobody"], 2)
    with pytest.raises(ConfigError):
        game.load_config(("cards.nope.points=3",))
    result = CliRunner().invoke(main, ["run", "carnuta", "--players", "5", "--games", "10",
                                       "--out", "/tmp/never"])
    assert result.exit_code != 0 and "players" in result.output


@pytest.mark.parametrize("start_counts", ["true", "false"])
def test_the_log_counts_cards_played_as_the_results_do(start_counts):
    """The play lines and the cards_played column count the cards played besides the
    starting card; the end trigger says both (its reading counts the starting card)."""
    import re

    from simkit.engine import RunSpec, prepare

    p = prepare(RunSpec("carnuta", 3, ("greedy",), 1, 3,
                        (f"options.starting_card_counts={start_counts}",)))
    for game in range(5):
        log = p.game.play_log(p.compiled, p.lineup, 3, game)
        played = p.game.simulate(p.compiled, p.lineup, 3, game, 1)["cards_played"][0]
        last: dict[int, int] = {}
        for line in log.splitlines():
            m = re.match(r"\s+Seat (\d) .* plays .* \((\d+) cards played besides", line)
            if m:
                last[int(m.group(1))] = int(m.group(2))
        assert last == {s: int(played[s]) for s in last}
        if start_counts == "true":
            trigger = re.search(r"Seat (\d) .* has (\d+) cards on the counter, the starting "
                                r"card included \((\d+) played\)", log)
            assert trigger is not None
            seat, front, counted = (int(g) for g in trigger.groups())
            assert front == counted + 1
        else:
            trigger = re.search(r"Seat (\d) .* has played (\d+) cards:", log)
            assert trigger is not None
            seat, counted = (int(g) for g in trigger.groups())
        assert counted <= played[seat]  # it may play on in the final turns
