"""Skill ladders (`simkit ladder`): a seat effect that is a heuristic's artifact reads
"depends on skill", a real one "at every skill level"; the top's convergence; resume; bad
input as one `Error:` line. The game is tests/ladder_games/dice_pick (its README)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from reports.ladder import collect, make_ladder_report
from reports.skill import CONVERGED, DEPENDS, EVERY_FAIL
from reports.targets import load_targets
from simkit import ladders as ld
from simkit.cli import main
from simkit.errors import SimkitError

GAME = str(Path(__file__).parent / "ladder_games" / "dice_pick")
GAMES = 3000  # 2 players: a seat's advantage +-1.8 points, the artifact about 38


def _ladder(out: Path, *overrides: str, progress=None) -> dict:
    spec = ld.LadderSpec(ld.load_ladder(GAME), 2, GAMES, 7, tuple(overrides))
    plan = ld.plan(spec, out)
    return ld.run_ladder(plan, out, threads=1, progress=progress)


def _seat_verdict(out: Path) -> dict:
    _, verdicts = make_ladder_report(out)
    return verdicts.filter(verdicts["metric"] == "seat_advantage").row(0, named=True)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ladder") / "artifact"
    _ladder(out)
    return out


def test_a_heuristic_artifact_depends_on_skill(artifact):
    row = _seat_verdict(artifact)
    assert row["across"] == DEPENDS
    # random and rollout play the seats alike; greedy's caution costs only the first seat
    assert row["random"].startswith("PASS") and row["rollout"].startswith("PASS")
    assert row["greedy"].startswith("FAIL")
    assert "flips between random and greedy" in row["detail"]
    assert "flips between greedy and rollout" in row["detail"]
    assert row["headline"] == "PASS"  # the strongest converged rung: rollout


def test_the_report_names_the_sign_flip_from_a_paired_difference(artifact):
    d = collect(artifact, load_targets(None, GAME))
    from reports.ladder import between_rungs

    diffs = between_rungs(d)
    first = diffs.filter((diffs["item"] == "1st player (seat advantage)")
                         & (diffs["from"] == "greedy"))
    r = first.row(0, named=True)
    assert r["a"] < -0.2 and abs(r["b"]) < 0.05  # greedy's 1st seat far behind, rollout's not
    assert r["diff_lo"] > 0.2  # the paired difference is real
    assert r["verdict"] == "changes"  # from a clear deficit to no clear sign: not a flip


def test_the_top_converges_and_climbs(artifact):
    d = collect(artifact, load_targets(None, GAME))
    assert d.budget is not None and d.budget["state"] == CONVERGED
    # doubled playouts choose as the top does (two dice): the gain is exactly nothing
    assert d.budget["gain_lo"] <= 0 <= d.budget["gain_hi"]
    climb = {r["rung"]: r for r in d.climb.iter_rows(named=True)}
    assert climb["rollout"]["lo"] > 0.5  # rollout beats greedy (greedy's first seat)
    html = (artifact / "report.html").read_text()
    assert "depends on skill" in html and "over the ladder" in html


def test_a_real_seat_effect_fails_at_every_skill_level(tmp_path):
    out = tmp_path / "real"
    _ladder(out, "compensation.start=[6,0,0,0]")
    row = _seat_verdict(out)
    assert row["across"] == EVERY_FAIL, row


def test_every_field_shares_its_deals_and_a_rerun_plays_nothing(artifact, tmp_path):
    record = json.loads((artifact / "ladder.json").read_text())
    fields = [p for p in record["points"] if p["kind"] == "field"]
    seeds = {json.loads((artifact / p["name"] / "manifest.json").read_text())["seed"]
             for p in fields}
    assert len(seeds) == 1
    again = _ladder(artifact)
    assert {p["status"] for p in again["points"]} == {"done before"}


def test_an_interrupted_ladder_resumes_without_losing_or_repeating_games(tmp_path, artifact):
    out = tmp_path / "cut"
    seen = []

    def stop(n):
        seen.append(n)
        if sum(seen) >= 2 * GAMES:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _ladder(out, progress=stop)
    _ladder(out)
    record = json.loads((artifact / "ladder.json").read_text())
    for p in record["points"]:
        a, b = (pl.read_parquet(f / p["name"] / "games.parquet") for f in (artifact, out))
        if p["kind"] == "budget":  # the doubled rung's name holds its folder's path
            a, b = a.drop("strategy"), b.drop("strategy")
        assert a.equals(b), p["name"]


def _error(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def _ladder_file(tmp_path: Path, rungs: str) -> str:
    path = tmp_path / "ladder.toml"
    path.write_text(f"rungs = [{rungs}]\n")
    return str(path)


@pytest.mark.parametrize("rungs, says", [
    ('{ name = "a", strategy = "random" }, { name = "b", strategy = "wizard" }',
     "rung 'b': unknown strategy 'wizard'"),
    ('{ name = "a", strategy = "random" }, { name = "b", strategy = "rollout@nope.toml" }',
     "nope.toml: no such file"),
    ('{ name = "a", strategy = "random" }, { name = "b", strategy = "rollout", '
     'budget = "playouts" }', "budget 'playouts'"),
    ('{ name = "a", strategy = "random" }, { name = "b", strategy = "rollout", '
     'budget = "rollouts", games = 0 }', "games = 0"),
    ('{ name = "a", strategy = "random" }', "at least 2 rungs"),
])
def test_a_bad_rung_is_one_error_line(tmp_path, rungs, says):
    line = _error(["ladder", GAME, "--players", "2", "--games", "10", "--ladder",
                   _ladder_file(tmp_path, rungs), "--out", str(tmp_path / "out")])
    assert says in line, line
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_a_budget_that_cannot_double_is_one_error_line(tmp_path):
    params = tmp_path / "top.toml"
    params.write_text('strategy = "rollout"\n[params]\nrollouts = 4000\n')
    line = _error(["ladder", GAME, "--players", "2", "--games", "10", "--ladder",
                   _ladder_file(tmp_path, '{ name = "a", strategy = "random" }, { name = "b", '
                                f'strategy = "rollout@{params}", budget = "rollouts" }}'),
                   "--out", str(tmp_path / "out")])
    assert "cannot be doubled" in line


def test_a_game_without_a_ladder_is_one_error_line(tmp_path):
    other = tmp_path / "ladders.toml"
    other.write_text('[inori]\nrungs = [{ name = "a", strategy = "random" }]\n')
    line = _error(["ladder", "cauldron-master", "--ladder", str(other), "--out",
                   str(tmp_path / "out")])
    assert "no ladder for cauldron-master" in line


def test_a_folder_game_with_one_player_has_no_default_ladder(tmp_path, monkeypatch):
    from simkit.games import get_game

    game = get_game(GAME)
    only = {"random": game.strategies()["random"]}
    monkeypatch.setattr(type(game), "strategies", lambda self: only)
    with pytest.raises(SimkitError, match="has no skill ladder"):
        ld.load_ladder(GAME)


def test_the_built_in_ladders_name_known_strategies_and_files():
    for game in ("cauldron-master", "carnuta", "inori"):
        ladder = ld.load_ladder(game)
        ld.check_ladder(ladder, 4)
        assert ladder.rungs[0].name == "random"
        rollout = next(r for r in ladder.rungs if r.name == "rollout")
        assert rollout.budget == "rollouts"
        assert ld.doubled_params(ladder, rollout)["params"]["rollouts"] == 16
        # the search player tops every ladder: it beats the rollout rung
        assert ladder.top.name == "search" and ladder.top.budget == "iterations"
        assert ld.doubled_params(ladder)["params"]["iterations"] == 128
        assert ladder.up_to("rollout").top == rollout


def test_whose_play_names_the_rung_or_the_mixed_lineup():
    tuned = ld.load_ladder("cauldron-master").rungs[3].strategy
    assert ld.whose_play("cauldron-master", [tuned] * 4) == "tuned planner players (every seat)"
    assert ld.whose_play("cauldron-master", ["greedy", "random"]) == (
        "a mixed lineup: greedy, random")


def test_value_at_a_rung_says_whose_worth_it_is(tmp_path):
    result = CliRunner().invoke(main, ["value", "examples/pig", "--players", "2", "--rung",
                                       "greedy", "--games", "300", "--out",
                                       str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    assert "Worth to greedy players (every seat)" in (tmp_path / "v" / "value.md").read_text()
    line = _error(["value", "examples/pig", "--rung", "wizard", "--out", str(tmp_path / "w")])
    assert "no such rung; its rungs: random, greedy, rollout" in line


def test_a_balance_change_is_sent_to_the_ladder(tmp_path):
    from types import SimpleNamespace

    spec = SimpleNamespace(game="examples/pig", players=2, seed=1, config_path=None,
                           overrides=(), strategies=("greedy",))
    text = ld.verify_command(spec, {"compensation.start.1": 7}, tmp_path / "b")
    assert text.startswith("greedy players (every seat). At every skill level: ")
    assert ("simkit ladder examples/pig --players 2 --seed 1 --set compensation.start.1=7 "
            f"--out {tmp_path / 'b' / 'ladder'}") in text


def test_a_ladder_on_a_dask_cluster_plays_the_same_games(tmp_path):
    """--workers: one local cluster for every point, the same results as played here."""
    spec = ld.LadderSpec(ld.load_ladder(GAME), 2, 200, 3)
    here, there = tmp_path / "here", tmp_path / "there"
    ld.run_ladder(ld.plan(spec, here), here, threads=1)
    ld.run_ladder(ld.plan(spec, there), there, workers=1)
    for p in json.loads((here / "ladder.json").read_text())["points"]:
        a, b = (pl.read_parquet(f / p["name"] / "games.parquet") for f in (here, there))
        if p["kind"] == "budget":
            a, b = a.drop("strategy"), b.drop("strategy")
        assert a.equals(b), p["name"]
    assert json.loads((there / "field_0_random" / "manifest.json").read_text())["cluster"]


def test_components_whose_verdict_changes_with_skill_are_named():
    from reports.ladder import LadderData, components_across
    from reports.targets import Targets

    rows = [  # (rung, component, estimate, lo, hi): "Stew" FAILs only at the top
        (0, "Stew", 0.00, -0.01, 0.01), (1, "Stew", 0.01, 0.00, 0.02),
        (2, "Stew", 0.09, 0.08, 0.10),
        (0, "Moss", 0.08, 0.07, 0.09), (1, "Moss", 0.09, 0.08, 0.10),
        (2, "Moss", 0.07, 0.06, 0.08)]
    parts = [pl.DataFrame([{"component": g, "kind": "Card", "estimate": e, "lo": lo,
                            "hi": hi, "dealt": True} for p, g, e, lo, hi in rows if p == i])
             for i in range(3)]
    d = LadderData({}, ["random", "greedy", "rollout"], [], pl.DataFrame(), [],
                   pl.DataFrame(), {"state": CONVERGED})
    out = components_across(d, Targets("t", {"component_effect": {"max_points": 5.0}}), parts)
    by = {r["component"]: r for r in out.iter_rows(named=True)}
    assert by["Stew"]["changes"] and by["Stew"]["across"] == DEPENDS
    assert "flips between greedy and rollout" in by["Stew"]["detail"]
    assert not by["Moss"]["changes"] and by["Moss"]["across"] == EVERY_FAIL


def test_a_new_top_rung_is_one_more_line(tmp_path):
    params = tmp_path / "strong.toml"
    params.write_text('strategy = "rollout"\n[params]\nrollouts = 100\n')
    path = _ladder_file(tmp_path, '{ name = "greedy", strategy = "greedy" }, '
                        '{ name = "rollout", strategy = "rollout", budget = "rollouts" }, '
                        f'{{ name = "strong", strategy = "rollout@{params}", '
                        'budget = "rollouts" }')
    ladder = ld.load_ladder(GAME, Path(path))
    ld.check_ladder(ladder, 2)
    assert ladder.top.name == "strong"
    assert ld.doubled_params(ladder)["params"]["rollouts"] == 200


def test_a_ladder_stopped_below_a_rung_says_a_stronger_player_was_not_played(tmp_path):
    out = tmp_path / "upto"
    result = CliRunner().invoke(main, ["ladder", GAME, "--players", "2", "--games", "1000",
                                       "--seed", "7", "--threads", "1", "--up-to", "greedy",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = ld.read_ladder(out)
    assert [r["name"] for r in record["rungs"]] == ["random", "greedy"]
    assert record["not_played"] == ["rollout"]
    assert "--up-to greedy" in record["command"]
    assert {p["name"] for p in record["points"]} == {"field_0_random", "field_1_greedy",
                                                      "climb_1_greedy"}  # greedy: no budget
    page = (out / "summary.md").read_text()
    assert ("A stronger player is on this game's ladder and was not played here: rollout "
            "(the ladder stopped at greedy with --up-to)") in page
    # the terminal says it too, after the verdicts, so a demo's reader sees it
    assert "was not played here: rollout" in result.output.rsplit("Wrote the ladder", 1)[1]
    # the one folder rule: another ladder into the same folder is refused in one line
    other = CliRunner().invoke(main, ["ladder", GAME, "--players", "2", "--games", "1000",
                                      "--seed", "8", "--threads", "1", "--up-to", "greedy",
                                      "--out", str(out)])
    assert other.exit_code != 0 and "already holds a different ladder run (simkit ladder" \
        in other.output and "--force" not in other.output, other.output
    assert ld.read_ladder(out) == record


def test_up_to_an_unknown_rung_is_one_error_line(tmp_path):
    line = _error(["ladder", GAME, "--players", "2", "--up-to", "expert", "--out",
                   str(tmp_path / "out")])
    assert "--up-to 'expert'" in line and "its rungs: random, greedy, rollout" in line
    assert not (tmp_path / "out").exists()
