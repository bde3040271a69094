"""`simkit balance` judges candidates at the strongest converged rung of the game's ladder
by itself (its default without --strategies): the top's budget doubled is checked on the
same deals, and down the ladder until a rung converges; a ladder run's check is reused;
the page says which rung and why. The game is tests/ladder_games/dice_pick, whose rollout
player always takes two dice (doubling its playouts gains exactly nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit import ladders as ld
from simkit.cli import main
from simkit.strongest import find_strongest

GAME = str(Path(__file__).parent / "ladder_games" / "dice_pick")
ARGS = ["--players", "2", "--budget", "4000", "--games-per-candidate", "400", "--seed", "3",
        "--verify-games", "1000", "--rung-games", "0", "--threads", "1", "--check-games",
        "1000", "--set-target", "seat_advantage.max_points=10",
        "--tune", "compensation.start.0=0..4"]


def _balance(out: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["balance", GAME, *ARGS, *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads((out / "balance.json").read_text())


def _error(args: list[str]) -> str:
    result = CliRunner().invoke(main, ["balance", GAME, *args])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def _weak_search_on_top(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ld.Ladder:
    """dice_pick's ladder with a search player of 2 iterations on top: doubling them still
    changes its play, so its convergence cannot be shown on a thousand games."""
    (tmp_path / "s2.toml").write_text('strategy = "search"\n[params]\niterations = 2\n')
    (tmp_path / "ladder.toml").write_text(
        'rungs = [{ name = "random", strategy = "random" },\n'
        '  { name = "rollout", strategy = "rollout", budget = "rollouts" },\n'
        '  { name = "search", strategy = "search@s2.toml", budget = "iterations" }]\n')
    ladder = ld.load_ladder(GAME, tmp_path / "ladder.toml")
    original = ld.load_ladder
    monkeypatch.setattr(ld, "load_ladder",
                        lambda game, path=None: ladder if path is None else original(game, path))
    return ladder


def test_the_default_judges_at_the_strongest_converged_rung(tmp_path):
    out = tmp_path / "b"
    record = _balance(out)
    judged = record["result"]["judged_at"]
    assert judged["rung"] == "rollout" and judged["converged"]
    assert record["spec"]["strategies"] == ["rollout"]  # the search played rollout players
    [check] = judged["checks"]
    assert check["rung"] == "rollout" and check["state"] == "converged"
    assert check["gain_hi"] < 0.02 and check["games"] == 1000
    manifest = json.loads((out / "strongest_2_rollout" / "manifest.json").read_text())
    assert [s["name"].split("@")[0] for s in manifest["strategies"]] == ["rollout"] * 2
    assert manifest["strategies"][0]["params"]["rollouts"] == 64  # its 32 doubled
    assert manifest["seed"] == 3 and manifest["rotation"]
    page = (out / "balance.md").read_text()
    assert ("Candidates judged at rollout: the strongest rung whose budget doubled gains "
            "under 2 points") in page
    # the same command again: the check is finished, the search read from its log
    again = _balance(out)
    assert again["result"] == record["result"]
    assert json.loads((out / "strongest_2_rollout" / "manifest.json").read_text()) == manifest


def test_down_the_ladder_until_a_rung_converges(tmp_path, monkeypatch):
    _weak_search_on_top(tmp_path, monkeypatch)
    judged = _balance(tmp_path / "b")["result"]["judged_at"]
    assert [c["rung"] for c in judged["checks"]] == ["search", "rollout"]
    assert not judged["checks"][0]["converged"] and judged["checks"][1]["converged"]
    assert judged["rung"] == "rollout"
    assert "; above it, search with its iterations doubled gains" in judged["why"]


def test_a_ladder_runs_check_of_its_top_is_reused(tmp_path):
    lad = tmp_path / "ladder"
    result = CliRunner().invoke(main, ["ladder", GAME, "--players", "2", "--games", "1000",
                                       "--seed", "5", "--threads", "1", "--no-report",
                                       "--out", str(lad)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "b"
    judged = _balance(out, "--ladder-run", str(lad))["result"]["judged_at"]
    assert judged["rung"] == "rollout" and judged["converged"]
    assert judged["checks"][0]["folder"] == str(lad / "budget_x2")
    assert not list(out.glob("strongest_*"))  # nothing played again
    line = _error([*ARGS[2:], "--players", "3", "--ladder-run", str(lad), "--out",
                   str(tmp_path / "c")])
    assert "--ladder-run" in line and "players" in line


class _Plays:
    """A check's play recorded, not played (the walk down the ladder, without games)."""

    def __init__(self) -> None:
        self.folders: list[str] = []

    def __call__(self, spec, folder: Path) -> None:
        self.folders.append(folder.name)


def _judge(converged: dict[str, bool]):
    def judge(folder: Path, token: str, players: int, margin: float) -> dict:
        ok = converged[folder.name]
        return {"gain": 0.01 if ok else 0.05, "gain_lo": -0.01 if ok else 0.0,
                "gain_hi": 0.015 if ok else 0.1, "games": 100, "converged": ok,
                "state": "converged" if ok else "not sure"}
    return judge


def test_no_convergence_shown_uses_the_top_and_says_so(tmp_path, monkeypatch):
    ladder = _weak_search_on_top(tmp_path, monkeypatch)
    plays = _Plays()
    found = find_strongest(ladder, 2, 1, tmp_path, _judge(
        {"strongest_2_search": False, "strongest_1_rollout": False}), margin=0.02,
        play=plays)
    assert plays.folders == ["strongest_2_search", "strongest_1_rollout"]  # random: no budget
    assert found.rung.name == "search" and not found.converged
    assert found.why.startswith("search: the top rung. No rung's convergence could be shown")
    assert "rollout with its rollouts doubled gains +5.0 [+0.0, +10.0]" in found.why
    found = find_strongest(ladder, 2, 1, tmp_path, _judge(
        {"strongest_2_search": True}), margin=0.02, play=_Plays())
    assert found.rung.name == "search" and found.converged and len(found.checks) == 1


def test_a_ladder_without_budgets_names_its_top(tmp_path):
    ladder = ld.Ladder("dice", (ld.Rung("random", "random"), ld.Rung("greedy", "greedy")),
                       "test")
    found = find_strongest(ladder, 2, 1, tmp_path, _judge({}), margin=0.02, play=_Plays())
    assert found.rung.name == "greedy" and not found.converged
    assert "No rung of the ladder names a budget" in found.why


@pytest.mark.parametrize("args, says", [
    (["--rung", "expert"], "--rung 'expert'"),
    (["--rung", "greedy", "--strategies", "greedy"], "--strategies and --rung"),
    (["--strategies", "greedy", "--ladder-run", "x"], "--ladder-run x"),
    (["--margin", "0"], "--margin"),
    (["--check-games", "0"], "--check-games"),
])
def test_bad_input_is_one_error_line(tmp_path, args, says):
    line = _error([*ARGS[2:], "--players", "2", *args, "--out", str(tmp_path / "x")])
    assert says in line, line
    assert not (tmp_path / "x").exists()


def test_strongest_for_a_game_without_a_ladder_is_one_error_line(tmp_path, monkeypatch):
    from simkit.games import get_game

    game = get_game(GAME)
    only = {"random": game.strategies()["random"]}
    monkeypatch.setattr(type(game), "strategies", lambda self: only)
    line = _error([*ARGS[2:], "--players", "2", "--rung", "strongest", "--out",
                   str(tmp_path / "x")])
    assert "has no skill ladder" in line
