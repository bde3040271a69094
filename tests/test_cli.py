"""The command line: each command's output, and one clear line for every bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import polars as pl
import pytest
from click.testing import CliRunner

from simkit.cli import main


@pytest.fixture()
def cli(cm):
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


def test_games_and_strategies(cli):
    assert "cauldron-master" in cli("games").output
    out = cli("strategies", "cauldron-master").output
    for name in ("random", "greedy", "planner", "discount"):
        assert name in out


def test_show_marks_placeholders(cli):
    out = cli("show", "cauldron-master").output
    assert "ingredients.spider_venom.scores = [1, 3, 6, 10]   # PLACEHOLDER" in out
    assert "supply.size.4 = 12\n" in out  # from the rule text: not marked
    out = cli("show", "cauldron-master", "--set", "supply.size.4=10").output
    assert "supply.size.4 = 10" in out


def test_play_prints_a_readable_game(cli):
    result = cli("play", "cauldron-master", "--players", "3", "--strategies",
                 "planner,greedy,random", "--seed", "4")
    assert result.exit_code == 0
    for text in ("== Round 1 ==", "reveals the", "Turn order:", "takes", "brews",
                 "Final scores:", "Game over"):
        assert text in result.output


def test_run_then_files(cli, tmp_path):
    out = tmp_path / "run"
    result = cli("run", "cauldron-master", "--players", "2", "--strategies", "greedy,random",
                 "--games", "500", "--seed", "3", "--out", str(out), "--set",
                 "options.tie_break=\"most_potions\"")
    assert result.exit_code == 0, result.output
    assert "win share" in result.output and "placeholder" in result.output
    assert re.search(r"greedy +0 +[\d,]+ +\d+\.\d%", result.output)  # shares in percent
    manifest = json.loads((out / "manifest.json").read_text())
    assert "--set 'options.tie_break=\"most_potions\"'" in manifest["command"]
    assert pl.read_parquet(out / "games.parquet").height == 1000
    assert (out / "summary.csv").exists()


BAD = [
    (["run", "chess", "--out", "x"], "unknown game 'chess'"),
    (["run", "cauldron_master", "--out", "x"], "did you mean 'cauldron-master'?"),
    (["run", "cauldron-master", "--players", "5", "--out", "x"], "not 5"),
    (["run", "cauldron-master", "--players", "1", "--out", "x"], "not 1"),
    (["run", "cauldron-master", "--strategies", "greedy,random", "--out", "x"],
     "lists 2 strategies for 4 players"),
    (["run", "cauldron-master", "--strategies", "wizard", "--out", "x"], "unknown strategy"),
    (["run", "cauldron-master", "--set", "options.nope=1", "--out", "x"],
     "options.nope = 1: unknown key"),
    (["run", "cauldron-master", "--set", "options.max_rounds=many", "--out", "x"],
     "expected a value of type int"),
    (["run", "cauldron-master", "--set", "supply.size.4=0", "--out", "x"],
     "supply.size.4 = 0: must be between"),
    (["run", "cauldron-master", "--set", "witches.wizard.initiative=1", "--out", "x"],
     "'witches' has no entry 'wizard'"),
    (["run", "cauldron-master", "--games", "0", "--out", "x"], "--games must be between 1 and"),
    (["run", "cauldron-master", "--workers", "0", "--out", "x"], "--workers must be at least 1"),
    (["run", "cauldron-master", "--precision", "0.01", "--out", "x"],
     "--precision only applies with --until-sure"),
    (["run", "cauldron-master", "--chunk-size", "0", "--out", "x"],
     "--chunk-size must be at least 1"),
    (["run", "cauldron-master", "--threads", "64", "--out", "x"], "--threads must be between"),
    (["run", "cauldron-master", "--param", "greedy.points_weight=-1", "--out", "x"],
     "out of range"),
    (["run", "cauldron-master", "--set", "nonsense", "--out", "x"], "expected KEY=VALUE"),
    (["strategies", "chess"], "unknown game"),
]


@pytest.mark.parametrize("args,message", BAD)
def test_bad_input_is_one_clear_line(cli, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = cli(*args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert result.output.strip().startswith("Error:")
    assert not (tmp_path / "x" / "games.parquet").exists()


def write_config(tmp_path, old: str, new: str):
    from simkit.config import CONFIG_DIR

    text = (CONFIG_DIR / "cauldron_master.toml").read_text()
    assert old in text
    path = tmp_path / "custom.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("old,new,message", [
    ('colour = "red"', 'colour = "purple"', "ingredients.bats_heart.colour = 'purple'"),
    ("scores = [4, 10, 18, 28]", "scores = [4, 10]", "ingredients.bats_heart.scores"),
    ("copies = 3", "copies = -3", "ingredients.bats_heart.copies = -3"),
    ("initiative = 1", 'initiative = "first"', "witches.apprentice.initiative = 'first'"),
    ("spider_venom = 2, frogs_blood = 1", "spider_venom = 2, dragon = 1",
     "recipe_cards.venom_draught.recipes.0.ingredients.dragon"),
    ("[game]", "[game", "not valid TOML"),
])
def test_bad_config_names_file_key_value(cli, tmp_path, old, new, message):
    path = write_config(tmp_path, old, new)
    result = cli("run", "cauldron-master", "--config", str(path), "--out", str(tmp_path / "o"))
    assert result.exit_code != 0
    assert str(path) in result.output and message in result.output
    assert "Traceback" not in result.output


def test_refuses_to_overwrite_a_different_run(cli, tmp_path):
    out = str(tmp_path / "run")
    assert cli("run", "cauldron-master", "--games", "50", "--out", out).exit_code == 0
    before = (tmp_path / "run" / "games.parquet").read_bytes()
    result = cli("run", "cauldron-master", "--games", "60", "--out", out)
    assert result.exit_code != 0 and "already holds a different run" in result.output
    assert (tmp_path / "run" / "games.parquet").read_bytes() == before
    again = cli("run", "cauldron-master", "--games", "50", "--out", out)
    assert again.exit_code == 0 and "nothing to do" in again.output
    forced = cli("run", "cauldron-master", "--games", "60", "--out", out, "--force")
    assert forced.exit_code == 0
    assert pl.read_parquet(tmp_path / "run" / "games.parquet").height == 240


def test_help_everywhere(cli):
    for cmd in ([], ["run"], ["play"], ["show"], ["bench"], ["games"], ["strategies"],
                ["studio"]):
        result = cli(*cmd, "-h")
        assert result.exit_code == 0 and "Usage:" in result.output


def test_report_prints_the_scorecard_verdicts(tmp_path):
    from simkit.cli import main as cli_main

    out = tmp_path / "run"
    r = CliRunner().invoke(cli_main, ["run", "cauldron-master", "--players", "4", "--strategies",
                                      "greedy", "--games", "400", "--out", str(out), "--report"])
    assert r.exit_code == 0, r.output
    assert "Balance scorecard:" in r.output
    for title in ("Seat advantage", "Component effect", "Tie rate", "Game length"):
        assert any(line.strip().split()[0] in ("PASS", "FAIL", "NOT") and title in line
                   for line in r.output.splitlines()), title


@pytest.mark.parametrize("args,expect", [
    (["play", "cauldron-master", "--game-index", str(10**20)], "--game-index"),
    (["run", "cauldron-master", "--games", "10", "--scheduler", "garbage"], "--scheduler"),
    (["run", "cauldron-master", "--games", "10", "--set", "ingredients.\u00b2.scores=[1]"],
     "ingredients.\u00b2"),
])
def test_more_bad_input_is_one_line(tmp_path, args, expect):
    if "run" in args:
        args = [*args, "--out", str(tmp_path / "out")]
    r = CliRunner().invoke(main, args)
    lines = [x for x in r.output.splitlines() if x.startswith("Error:")]
    assert r.exit_code == 1 and len(lines) == 1 and expect in lines[0], r.output
    assert "Traceback" not in r.output


def test_a_config_that_is_not_utf8_is_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'x = "\xff"\n')
    r = CliRunner().invoke(main, ["run", "cauldron-master", "--games", "10", "--config",
                                  str(bad), "--out", str(tmp_path / "out")])
    assert r.exit_code == 1 and "not UTF-8" in r.output and str(bad) in r.output


def test_a_damaged_manifest_is_refused_then_replaced_with_force(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text("{bad")
    args = ["run", "cauldron-master", "--games", "10", "--out", str(out)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and "manifest.json: cannot be read as JSON" in r.output
    assert "--force" in r.output
    r = CliRunner().invoke(main, [*args, "--force"])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "manifest.json").read_text())["games"] == 10


def test_an_absurd_number_of_games_is_refused_at_once(tmp_path):
    r = CliRunner().invoke(main, ["run", "cauldron-master", "--games", str(10**30),
                                  "--chunk-size", "1000", "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "--games must be between 1 and" in r.output
    assert not (tmp_path / "o").exists()


def test_a_bad_override_is_blamed_on_set_not_the_config_file(tmp_path):
    r = CliRunner().invoke(main, ["run", "cauldron-master", "--games", "10", "--set",
                                  "supply.size.4=1000", "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "Error: --set (on " in r.output, r.output
    assert "cauldron_master.toml): supply.size.4 = 1000" in r.output
    r = CliRunner().invoke(main, ["compare", str(tmp_path), str(tmp_path), "--components",
                                  "-1"])
    assert r.exit_code == 1 and "--components must be 0 or more" in r.output


RUN_THEN_LIST_MODULES = """
import runpy, sys
sys.argv = ["simkit"] + sys.argv[1:]
try:
    runpy.run_module("simkit.cli", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
print(sorted(m for m in sys.modules if m.split(".")[0] in ("matplotlib", "pandas",
                                                            "reports")))
"""


def test_a_run_without_a_report_does_not_load_the_renderer_or_pandas(cm, tmp_path):
    """matplotlib and the report's renderer take about half a second to import, pandas a
    quarter: a run that writes no report (its end asks the game's report hooks about
    placeholders) must not wait for them."""
    done = subprocess.run([sys.executable, "-c", RUN_THEN_LIST_MODULES, "run", "cauldron-master",
                           "--games", "20", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    assert "reports.hooks" in loaded  # the placeholders were counted
    assert "matplotlib" not in loaded and "reports.render" not in loaded, loaded
    assert "pandas" not in loaded, loaded
    assert "win share" in done.stdout  # the summary table, printed without pandas


def test_a_summary_only_run_plans_its_queries_without_drawing_charts(cm, tmp_path):
    """A summary-only run builds the report over a sample to learn its queries
    (`reports/plan.py`): its charts are not drawn, nor matplotlib loaded, for that."""
    done = subprocess.run([sys.executable, "-c", RUN_THEN_LIST_MODULES, "run", "cauldron-master",
                           "--games", "20", "--summary-only", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    assert "reports.build" in loaded and "reports.charts" in loaded  # the report was built
    assert "matplotlib" not in loaded, loaded


RUN_THEN_REPORT_FREEZE = """
import atexit, gc, runpy, sys
# Registered first, so it runs last of the exit handlers: just before the interpreter's
# own shutdown, which is where the garbage collection that simkit skips would run.
atexit.register(lambda: print("frozen", gc.get_freeze_count()))
sys.argv = ["simkit"] + sys.argv[1:]
runpy.run_module("simkit.cli", run_name="__main__")
"""


def test_a_command_leaves_its_objects_out_of_the_shutdown_collection(cm, tmp_path):
    """The interpreter's shutdown walks every live object in its collections; after numba
    has loaded a kernel that took 0.3-0.4 s of every command. simkit freezes them first,
    and the run's files are complete when it exits."""
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", RUN_THEN_REPORT_FREEZE, "run",
                           "cauldron-master", "--games", "20", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    frozen = int(done.stdout.strip().splitlines()[-1].split()[1])
    assert frozen > 10_000, frozen
    assert pl.read_parquet(out / "games.parquet").height == 20 * 4


def test_counts_read_as_english():
    from simkit.words import count
    assert count(1, "key") == "1 key" and count(4, "key") == "4 keys"
    assert count(0, "placeholder value") == "0 placeholder values"
    assert count(1, "match", "matches") == "1 match" and count(12_000, "game") == "12,000 games"


def test_report_on_another_command_s_folder_says_what_it_holds(tmp_path):
    (tmp_path / "tour").mkdir()
    (tmp_path / "tour" / "tournament.json").write_text("{}")
    out = CliRunner().invoke(main, ["report", str(tmp_path / "tour")]).output
    assert "holds a tournament, not a run; its report is" in out and "tournament.html" in out


def test_a_first_run_says_its_rate_includes_the_compile(tmp_path, monkeypatch):
    import simkit.commands.runs as runs
    monkeypatch.setattr(runs, "say_if_compiling", lambda *a, **k: True)
    out = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "3", "--games",
                                    "300", "--out", str(tmp_path / "r")]).output
    assert "games/s, the first compile included)" in out
    monkeypatch.setattr(runs, "say_if_compiling", lambda *a, **k: False)
    out = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "3", "--games",
                                    "300", "--out", str(tmp_path / "s")]).output
    assert "games/s)." in out and "compile" not in out


def test_a_lineup_that_repeats_is_told_its_rotations_replay(tmp_path):
    from simkit.engine import build_lineup
    from simkit.games import get_game
    cm = get_game("cauldron-master")
    for names, period in ((["greedy", "random", "greedy", "random"], 2),
                          (["planner", "greedy", "random", "greedy"], 4),
                          (["greedy", "greedy", "greedy", "random"], 4),
                          (["greedy", "random", "planner"], 3), (["greedy"], 1)):
        assert build_lineup(cm, names, len(names)).period == period
    out = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "4", "--strategies",
                                    "greedy,random,greedy,random", "--games", "400", "--out",
                                    str(tmp_path / "r")]).output
    assert "this lineup repeats every 2 seats" in out
    games = pl.read_parquet(tmp_path / "r" / "games.parquet").sort("game", "seat")
    score = games["score"].to_numpy().reshape(-1, 4, 4)  # deal, game in the deal, seat
    assert (score[:, 0] == score[:, 2]).all() and (score[:, 1] == score[:, 3]).all()


def test_a_rerun_with_nothing_to_do_keeps_a_current_report(cli, tmp_path):
    """run --report a second time: the report stands (its verdicts printed again), until
    something it reads changes (a targets file, a value run, the results)."""
    out = tmp_path / "run"
    args = ("run", "cauldron-master", "--games", "60", "--out", str(out), "--report")
    first = cli(*args)
    assert first.exit_code == 0, first.output
    page = out / "report.html"
    written = page.stat().st_mtime_ns
    again = cli(*args)
    assert again.exit_code == 0 and "is up to date" in again.output, again.output
    assert page.stat().st_mtime_ns == written
    verdicts = [ln for ln in first.output.splitlines() if ln.startswith("  ")]
    assert verdicts and all(ln in again.output for ln in verdicts)
    (out / "manifest.json").touch()  # newer results than the page: written again
    third = cli(*args)
    assert "is up to date" not in third.output and page.stat().st_mtime_ns > written
    # no one's home folder on the page: simkit's own config and targets by their place
    text = (out / "summary.md").read_text()
    assert "**Config**: configs/cauldron_master.toml" in text
    assert "**Targets**: configs/targets.toml" in text
