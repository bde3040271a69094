"""Seat compensation (`compensation.points`, like komi in Go) in every built-in game.

The compensation is added to each seat's final score at the end of the game (each game's
scoring.final_score) and is never part of the public state, so greedy, random and planner
players play the same games with it or without it: on the same seeds a compensated game is
the uncompensated one with each seat's score moved by its compensation, and the ranks and
win shares follow the compensated scores (by each game's tie-break). The rollout player
ranks its playouts by the final score, so its play may change: there the score is checked
against the points the game's own records add up to. The differential tests against the
plain-Python references (tests/test_<game>_reference.py) also play a compensated config.

The half point (`compensation.half`, 0 or 1 per seat, like komi's half point) only breaks
ties on the final score: the score stays whole, a seat with it wins every tie on the final
score against a seat without one, before the game's own tie-break, and nothing else moves.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.engine import build_lineup
from simkit.errors import ConfigError
from simkit.games import get_game
from simkit.games.cauldron_master import layout as CML

COMPENSATION = [0, 7, -5, 3]  # seat 0 first
OVERRIDE = "compensation.points=[0, 7, -5, 3]"
FILES = {"cauldron-master": "cauldron_master.toml", "carnuta": "carnuta.toml",
         "inori": "inori.toml"}
LINEUPS = {  # rotating through the seats: every strategy plays every seat
    2: ["greedy", "random"],
    3: ["greedy", "random", "planner"],
    4: ["random", "greedy", "planner", "greedy"],
}
ROLLOUT = {  # cheap rollout players (the hash lineups' settings)
    "cauldron-master": ("rollout.rollouts=1",),
    "carnuta": ("rollout.rollouts=1", "rollout.candidates=2", "rollout.horizon=2"),
    "inori": ("rollout.rollouts=1", "rollout.candidates=2", "rollout.horizon=1"),
}


def ranking_key(game: str, cols: dict) -> np.ndarray:
    """Each game's end-of-game ranking at its default options, from the result columns."""
    score = cols["score"].astype(np.int64)
    if game == "carnuta":  # options.tie_break = "best_ingredient"
        return score * 4096 + cols["best_ingredient_points"]
    return score  # Cauldron Master: tied players share; Inori: no tie-break


def ranks_of(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rank (1 + seats with a higher key) and win share (1/k for each of k winners)."""
    rank = 1 + (keys[:, None, :] > keys[:, :, None]).sum(axis=2)
    winners = (rank == 1).sum(axis=1, keepdims=True)
    return rank, np.where(rank == 1, 1.0 / winners, 0.0).astype(np.float32)


def compiled_pairs(override: str):
    """game name -> (game, plain, with `override`); each config compiled once."""
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            game = get_game(name)
            cache[name] = (game, game.compile(game.load_config()),
                           game.compile(game.load_config((override,))))
        return cache[name]

    return get


@pytest.fixture(scope="module")
def compiled():
    """game name -> (game, plain, compensated)."""
    return compiled_pairs(OVERRIDE)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("name", sorted(FILES))
def test_compensation_moves_only_the_final_score(compiled, name, n):
    game, plain, comp = compiled(name)
    lineup = build_lineup(game, LINEUPS[n], n)
    a = game.simulate(plain, lineup, 11, 0, 3000)
    b = game.simulate(comp, lineup, 11, 0, 3000)
    for key in a:  # the same games, decision for decision
        if key not in ("score", "rank", "win_share"):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    moved = b["score"].astype(np.int64) - a["score"]
    assert (moved == COMPENSATION[:n]).all()
    rank, share = ranks_of(ranking_key(name, b))
    np.testing.assert_array_equal(b["rank"], rank)
    np.testing.assert_array_equal(b["win_share"], share)
    assert (a["rank"] != b["rank"]).any()  # the compensation decides some games
    # Seat 1 (+7, the most) gains on every other seat: it never wins less, and wins more.
    assert (b["win_share"][:, 1] >= a["win_share"][:, 1]).all()
    assert b["win_share"][:, 1].sum() > a["win_share"][:, 1].sum()
    if n >= 3:  # seat 2 (-5, the least) loses ground to every other seat
        assert (b["win_share"][:, 2] <= a["win_share"][:, 2]).all()
        assert b["win_share"][:, 2].sum() < a["win_share"][:, 2].sum()


def raw_points(game, compiled, lineup, cols, seed: int, g: int) -> np.ndarray:
    """Seat points of game g without the compensation, from the game's own records."""
    parts = [k for k in cols if k.startswith("points_")]
    if parts:  # Carnuta: points per scoring kind; Inori: points by source
        return sum(cols[k][g].astype(np.int64) for k in parts)
    events = game.replay(compiled, lineup, seed, g).events  # Cauldron Master: the potions
    brewed = events[events[:, 1] == CML.EV_POTION]
    return np.array([brewed[brewed[:, 2] == s][:, 4:6].sum() for s in range(lineup.n_players)])


@pytest.mark.parametrize("name", sorted(FILES))
def test_rollout_ranks_by_the_compensated_score(compiled, name):
    game, plain, comp = compiled(name)
    n, games = 4, 40
    lineup = build_lineup(game, ["rollout", "greedy", "planner", "greedy"], n, ROLLOUT[name])
    a = game.simulate(plain, lineup, 5, 0, games)
    b = game.simulate(comp, lineup, 5, 0, games)
    for g in range(games):
        assert (raw_points(game, plain, lineup, a, 5, g) == a["score"][g]).all()
        raw = raw_points(game, comp, lineup, b, 5, g)
        assert (raw + COMPENSATION == b["score"][g]).all(), g
    rank, share = ranks_of(ranking_key(name, b))
    np.testing.assert_array_equal(b["rank"], rank)
    np.testing.assert_array_equal(b["win_share"], share)
    # The playouts see the compensation: the rollout player chooses differently somewhere.
    assert any(not np.array_equal(a[k], b[k]) for k in a if k not in ("score", "rank",
                                                                       "win_share"))


@pytest.mark.parametrize("name", sorted(FILES))
def test_off_by_default(compiled, name):
    game, plain, comp = compiled(name)
    assert game.load_config().data["compensation"]["points"] == [0, 0, 0, 0]
    assert plain.tables.compensation.tolist() == [0, 0, 0, 0]
    assert comp.tables.compensation.tolist() == COMPENSATION


BAD = [("points", v, "-1000 and 1000") for v in
       ("[0, 7, 0]", "[0, 0, 0, 0, 0]", "[0, 1001, 0, 0]", "[0, true, 0, 0]", "[0, 1.5, 0, 0]")]
BAD += [("half", v, "0 and 1") for v in
        ("[0, 2, 0, 0]", "[0, -1, 0, 0]", "[0, 1, 0]", "[0, 0, 0, 0, 0]", "[0, true, 0, 0]",
         "[0, 0.5, 0, 0]")]


@pytest.mark.parametrize(("key", "value", "bounds"), BAD)
@pytest.mark.parametrize("name", sorted(FILES))
def test_bad_compensation_is_one_clear_error(name, key, value, bounds):
    game = get_game(name)
    with pytest.raises(ConfigError) as err:
        game.compile(game.load_config((f"compensation.{key}={value}",)))
    text = str(err.value)
    assert "\n" not in text and f"compensation.{key}" in text and FILES[name] in text
    assert f"4 integers between {bounds}" in text


@pytest.mark.parametrize("name", sorted(FILES))
def test_bad_compensation_on_the_command_line(name, tmp_path):
    result = CliRunner().invoke(main, ["run", name, "--players", "2", "--games", "10",
                                       "--set", "compensation.points=[0, 7]",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "compensation.points = [0, 7]" in lines[0], result.output


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_log_shows_the_compensation(compiled, name):
    game, _, comp = compiled(name)
    lineup = build_lineup(game, ["greedy", "greedy"], 2)
    log = game.play_log(comp, lineup, 3, 0)
    assert "+7 seat compensation" in log or "seat compensation +7" in log
    assert "seat compensation 0" not in log and "+0 seat" not in log


# ---------------------------------------------------------------- the half point
HALF = [0, 1, 0, 0]  # seat 1 gets half a point more (like komi's half point)


@pytest.fixture(scope="module")
def compiled_half():
    """game name -> (game, plain, with half = HALF)."""
    return compiled_pairs(f"compensation.half={HALF}")


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("name", sorted(FILES))
def test_half_point_wins_ties_on_the_final_score(compiled_half, name, n):
    game, plain, half = compiled_half(name)
    assert half.tables.half.tolist() == HALF
    top_ties = 0
    for names in (LINEUPS[n], ["greedy"] * n):  # greedy players tie more often
        lineup = build_lineup(game, names, n)
        a = game.simulate(plain, lineup, 11, 0, 3000)
        b = game.simulate(half, lineup, 11, 0, 3000)
        top_ties += check_half_point(name, n, a, b)
    assert top_ties > 0, "no game where seat 1 ties for the best score"


def check_half_point(name: str, n: int, a: dict, b: dict) -> int:
    """Games `a` (no half point) and `b` (HALF) on the same seeds; returns how many games
    seat 1 tied for the best final score in."""
    for key in a:  # the same games, the score included (it stays whole points)
        if key not in ("rank", "win_share"):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    score = a["score"].astype(np.int64)
    level = score == score[:, 1:2]  # the seats on seat 1's final score (seat 1 too)
    level_tie = level.sum(axis=1) >= 2  # seat 1 ties on its final score with others
    top = level_tie & (score[:, 1] == score.max(axis=1))  # ... for the best one
    # Games where no seat has seat 1's final score: nothing moves; where seat 1 is not
    # tied for the best one, the win shares do not either.
    np.testing.assert_array_equal(a["rank"][~level_tie], b["rank"][~level_tie])
    np.testing.assert_array_equal(a["win_share"][~top], b["win_share"][~top])
    # Ties for the best score involving seat 1: seat 1 wins alone, the others win nothing.
    assert (b["rank"][top, 1] == 1).all() and (b["win_share"][top, 1] == 1).all()
    others = level.copy()
    others[:, 1] = False  # the seats seat 1 ties with
    assert (b["win_share"][top][others[top]] == 0).all()
    # Any tie on seat 1's final score: seat 1 ranks first of the tied seats, the others
    # after it (CM and Inori have no tie-break at the default options: they all rank one
    # below seat 1; Carnuta's best ingredient then ranks them among themselves).
    # The seats off seat 1's final score keep their ranks.
    above = (score > score[:, 1:2]).sum(axis=1)
    np.testing.assert_array_equal(b["rank"][:, 1], 1 + above)
    best = a["best_ingredient_points"].astype(np.int64) if name == "carnuta" else 0 * score
    for g in np.flatnonzero(level_tie):
        for s in range(n):
            if others[g, s]:
                better = (others[g] & (best[g] > best[g, s])).sum()
                assert b["rank"][g, s] == 2 + above[g] + better, (g, s)
            elif s != 1:
                assert b["rank"][g, s] == a["rank"][g, s], (g, s)
    if name != "carnuta":
        assert (b["rank"][top][others[top]] == 2).all()
    # Seat 1 never wins less; the others never win more.
    assert (b["win_share"][:, 1] >= a["win_share"][:, 1]).all()
    rest = [s for s in range(n) if s != 1]
    assert (b["win_share"][:, rest] <= a["win_share"][:, rest]).all()
    return int(top.sum())


@pytest.mark.parametrize("name", sorted(FILES))
def test_half_point_in_the_rollout_player(compiled_half, name):
    game, _, half = compiled_half(name)
    n, games = 4, 40
    lineup = build_lineup(game, ["rollout", "greedy", "planner", "greedy"], n, ROLLOUT[name])
    b = game.simulate(half, lineup, 5, 0, games)
    for g in range(games):  # the score stays whole points, with no compensation in it
        assert (raw_points(game, half, lineup, b, 5, g) == b["score"][g]).all(), g
    doubled = 2 * b["score"].astype(np.int64) + HALF[:n]  # 2 x final score + half
    if name == "carnuta":  # then the best ingredient
        doubled = doubled * 4096 + b["best_ingredient_points"]
    rank, share = ranks_of(doubled)
    np.testing.assert_array_equal(b["rank"], rank)
    np.testing.assert_array_equal(b["win_share"], share)


@pytest.mark.parametrize("name", sorted(FILES))
def test_half_off_by_default(compiled, name):
    game, plain, _ = compiled(name)
    assert game.load_config().data["compensation"]["half"] == [0, 0, 0, 0]
    assert plain.tables.half.tolist() == [0, 0, 0, 0]


