"""Plug-in strategies: from a file through `simkit run`, the call path, no recompiles, and a
clear one-line error for every kind of bad plug-in."""

from __future__ import annotations

import json
from importlib.metadata import EntryPoint
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from simkit import plugins
from simkit.cli import main
from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games import get_game
from simkit.threads import available
from strategies import MAX_PARAMS

EXAMPLES = Path(__file__).resolve().parent.parent / "strategies" / "examples"
CM_EXAMPLE = (EXAMPLES / "cauldron_master_sets.py").read_text()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def run_cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_plugin_through_simkit_run(cm, tmp_path):
    path = write(tmp_path, "mine.py", CM_EXAMPLE)
    token = f"{path}:sets"
    common = ["run", "cauldron-master", "--players", "2", "--games", "600", "--seed", "3"]
    many = str(min(2, available()))
    for out, threads in (("a", "1"), ("b", many), ("c", "1")):
        result = run_cli(*common, "--strategies", f"{token},random", "--out",
                         str(tmp_path / out), "--threads", threads, "--chunk-size", "250")
        assert result.exit_code == 0, result.output
    run_cli(*common, "--strategies", "random", "--out", str(tmp_path / "r"))
    a, b, c = (pl.read_parquet(tmp_path / x / "games.parquet") for x in "abc")
    assert a.equals(b) and a.equals(c)  # deterministic, whatever the threads or chunks
    mine = a.filter(pl.col("strategy") == token)
    assert mine["win_share"].mean() > 0.7  # it plays: far better than its random opponent
    rand = pl.read_parquet(tmp_path / "r" / "games.parquet")
    assert not a.select("score").equals(rand.select("score"))
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    digest = manifest["identity"]["plugins"][token]
    assert len(digest) == 64
    # A changed plug-in file is a different run: the finished folder refuses it.
    path.write_text(CM_EXAMPLE + "\n# changed\n")
    result = run_cli(*common, "--strategies", f"{token},random", "--out", str(tmp_path / "a"))
    assert result.exit_code != 0 and "different run" in result.output


@pytest.mark.parametrize("overrides", [(), ('options.recipe_choice="player"',)])
def test_greedy_plugin_plays_exactly_as_greedy(cm, tmp_path, overrides):
    game, compiled = cm
    if overrides:  # its recipe choices too
        compiled = game.compile(game.load_config(overrides))
    path = write(tmp_path, "g.py", CM_EXAMPLE)
    mimic = build_lineup(game, [f"{path}:greedy", "planner", "random"], 3)
    builtin = build_lineup(game, ["greedy", "planner", "random"], 3)
    a = game.simulate(compiled, mimic, 11, 0, 3000)
    a = {k: np.array(v) for k, v in a.items()}
    b = game.simulate(compiled, builtin, 11, 0, 3000)
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def test_a_new_plugin_does_not_recompile_the_kernel(cm, tmp_path):
    game, compiled = cm
    kernel = game.kernel.simulate_batch
    first = write(tmp_path, "one.py", CM_EXAMPLE)
    game.simulate(compiled, build_lineup(game, [f"{first}:sets", "greedy"], 2), 1, 0, 50)
    signatures = len(kernel.signatures)
    second = write(tmp_path, "two.py", CM_EXAMPLE.replace("10000.0", "5000.0"))
    lineup = build_lineup(game, [f"{second}:sets", "greedy"], 2)
    game.simulate(compiled, lineup, 1, 0, 50)
    # No new kernel signature: only the plug-in compiled (no test asserts a timing).
    assert len(kernel.signatures) == signatures


def test_out_of_range_answers_fall_back_to_row_zero(cm, tmp_path):
    game, compiled = cm
    path = write(tmp_path, "r.py", "def zero(opts, n, pub, params, state):\n    return 0\n\n"
                 "def bad(opts, n, pub, params, state):\n    return n + 5\n")
    zero = game.simulate(compiled, build_lineup(game, [f"{path}:zero"], 2), 2, 0, 200)
    zero = {k: np.array(v) for k, v in zero.items()}
    bad = game.simulate(compiled, build_lineup(game, [f"{path}:bad"], 2), 2, 0, 200)
    assert np.array_equal(zero["score"], bad["score"])


@pytest.mark.parametrize("game_name, file, function, lineup", [
    ("carnuta", "carnuta_cheap_cards.py", "cheap_cards", ["random", "random"]),
    ("inori", "inori_hoarder.py", "hoarder", ["random", "random"]),
])
def test_examples_beat_random(game_name, file, function, lineup):
    game = get_game(game_name)
    compiled = game.compile(game.load_config())
    token = f"{EXAMPLES / file}:{function}"
    cols = game.simulate(compiled, build_lineup(game, [token, lineup[1]], 2), 5, 0, 400)
    cols = {k: np.array(v) for k, v in cols.items()}
    wins = np.array(cols["win_share"])[np.array(cols["strategy"]) == 0]
    assert wins.mean() > 0.6
    again = game.simulate(compiled, build_lineup(game, [token, lineup[1]], 2), 5, 0, 400)
    assert np.array_equal(np.array(cols["score"]), np.array(again["score"]))


GOOD = "def choose(opts, n, pub, params, state):\n    return 0\n"


@pytest.mark.parametrize("text, function, problem", [
    (None, "choose", "no such file"),
    ("def choose(opts, n, pub, params, state)\n    return 0\n", "choose", "syntax error at line 1"),
    ("import no_such_module_here\n" + GOOD, "choose", "importing it failed: ModuleNotFoundError"),
    (GOOD, "chose", "has no function 'chose' (functions in it: choose)"),
    ("choose = 3\n", "choose", "is a int, not a function"),
    ("def choose(opts, n, pub):\n    return 0\n", "choose", "takes 3 argument(s); a strategy "
     "takes 5"),
    ("def choose(opts, n, pub, params, state):\n    return opts.no_such_thing\n", "choose",
     "numba cannot compile it"),
])
def test_bad_plugins_name_the_file_and_the_problem(cm, tmp_path, text, function, problem):
    game, _ = cm
    path = tmp_path / "bad.py"
    if text is not None:
        path.write_text(text)
    with pytest.raises(SimkitError) as err:
        build_lineup(game, [f"{path}:{function}", "greedy"], 2)
    message = str(err.value)
    assert str(path) in message and problem in message
    assert "\n" not in message


def test_bad_plugin_on_the_command_line_is_one_error_line(cm, tmp_path):
    result = run_cli("run", "cauldron-master", "--players", "2", "--strategies",
                     f"{tmp_path}/nope.py:choose,greedy", "--games", "10", "--out",
                     str(tmp_path / "out"))
    assert result.exit_code != 0
    assert result.output.strip() == f"Error: plug-in {tmp_path}/nope.py: no such file"


def columns(game, compiled, lineup, seed=6, games=1500):
    return {k: np.array(v) for k, v in game.simulate(compiled, lineup, seed, 0, games).items()}


def test_plugin_parameters_defaults_and_overrides(cm, tmp_path):
    """The example's greedy declares greedy's parameters: its defaults play as the
    built-in, and --param or a parameter file change its play exactly as they change the
    built-in's."""
    game, compiled = cm
    path = write(tmp_path, "g.py", CM_EXAMPLE)
    token = f"{path}:greedy"
    others = ["planner", "random"]
    default = build_lineup(game, [token, *others], 3)
    assert default.resolved_params[0] == {"points_weight": 1.0, "gain_weight": 1.0, "ties": 0.0}
    assert default.params[0][:3].tolist() == [1.0, 1.0, 0.0]
    heavy = build_lineup(game, [token, *others], 3, ["greedy.points_weight=7"])
    assert heavy.resolved_params[0] == {"points_weight": 7.0, "gain_weight": 1.0, "ties": 0.0}
    assert heavy.ids[0] == default.ids[0]  # the same compiled code: no recompile
    builtin = build_lineup(game, ["greedy", *others], 3, ["greedy.points_weight=7"])
    a, b = columns(game, compiled, heavy), columns(game, compiled, builtin)
    assert all(np.array_equal(a[k], b[k]) for k in a)  # as the built-in at the same weight
    plain = columns(game, compiled, default)
    assert not np.array_equal(a["score"], plain["score"])  # the parameter changes play
    # The whole token works too (a built-in greedy may be playing), and a file.
    whole = build_lineup(game, [token, "greedy", "random"], 3, [f"{token}.points_weight=7"])
    assert whole.resolved_params[:2] == (
        {"points_weight": 7.0, "gain_weight": 1.0, "ties": 0.0},
        {"points_weight": 1.0, "gain_weight": 1.0, "ties": 0.0})
    write(tmp_path, "w.toml", 'strategy = "greedy"\n[params]\npoints_weight = 7\n')
    filed = build_lineup(game, [f"{token}@{tmp_path}/w.toml", *others], 3)
    assert filed.names[0] == f"{token}@{tmp_path}/w.toml"
    assert filed.resolved_params[0] == {"points_weight": 7.0, "gain_weight": 1.0, "ties": 0.0}
    c = columns(game, compiled, filed)
    assert all(np.array_equal(a[k], c[k]) for k in a)
    both = build_lineup(game, [f"{token}@{tmp_path}/w.toml", *others], 3,
                        ["greedy.gain_weight=2"])  # --param on top of the file
    assert both.resolved_params[0] == {"points_weight": 7.0, "gain_weight": 2.0, "ties": 0.0}


def test_plugin_parameter_forms(cm, tmp_path):
    game, _ = cm
    path = write(tmp_path, "forms.py", GOOD.replace("choose", "one") + GOOD.replace(
        "choose", "two") + "from strategies import Param\n"
        "PARAMS = {'w': 2.5, 'k': (3, 0, 10)}\n"
        "two_PARAMS = [Param('x', 0.5, 0.0, 1.0, 'a share')]\n")
    one = build_lineup(game, [f"{path}:one"], 2, ["one.w=-40"])
    assert one.resolved_params[0] == {"w": -40.0, "k": 3.0}  # a bare default: any number
    two = build_lineup(game, [f"{path}:two"], 2)
    assert two.resolved_params[0] == {"x": 0.5}


def test_plugin_parameters_recorded_in_the_manifest(cm, tmp_path):
    path = write(tmp_path, "g.py", CM_EXAMPLE)
    token = f"{path}:greedy"
    result = run_cli("run", "cauldron-master", "--players", "2", "--games", "40", "--seed",
                     "1", "--strategies", f"{token},random", "--param",
                     "greedy.gain_weight=4", "--out", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["identity"]["params"][0] == {"points_weight": 1.0, "gain_weight": 4.0,
                                                 "ties": 0.0}
    assert "--param greedy.gain_weight=4" in manifest["command"]
    listed = run_cli("strategies", "cauldron-master").output  # no plug-in registered: as before
    assert "plug-in" not in listed


@pytest.mark.parametrize("declared, params, toml, problem", [
    (None, ["choose.nope=1"], None, "strategy '{token}' has no parameter 'nope'; known: w"),
    (None, ["choose.w=11"], None, "strategy '{token}': parameter w = 11.0 is out of range"),
    (None, ["choose.w=nan"], None, "'nan' is not a finite number"),
    (None, [], "[params]\nnope = 1\n", "params.nope: strategy '{token}' has no such parameter"),
    (None, [], "[params]\nw = 'x'\n", "params.w = 'x': not a number"),
    (None, [], "[params]\nw = 12\n", "params.w = 12: out of range [0, 10]"),
    ("choose_PARAMS = {'w': 'abc'}", [], None, "choose_PARAMS['w']: the default 'abc' is not "
     "a number"),
    ("choose_PARAMS = {'w': (5, 0)}", [], None, "choose_PARAMS['w'] = (5, 0): expected a "
     "number, (default, lo, hi)"),
    ("choose_PARAMS = {'w': (50, 0, 10)}", [], None, "choose_PARAMS['w']: the default 50 is "
     "outside [0, 10]"),
    ("PARAMS = 3", [], None, "PARAMS must be a dict of NAME = default"),
    ("PARAMS = {'my w': 1}", [], None, "PARAMS: parameter name 'my w' is not a name"),
    (f"PARAMS = {{f'w{{i}}': 1 for i in range({MAX_PARAMS + 1})}}", [], None,
     f"PARAMS declares {MAX_PARAMS + 1} parameters; a strategy takes at most {MAX_PARAMS}"),
])
def test_bad_plugin_parameters_are_one_clear_line(cm, tmp_path, declared, params, toml,
                                                  problem):
    game, _ = cm
    path = write(tmp_path, "p.py", GOOD + (declared or "choose_PARAMS = {'w': (1, 0, 10)}")
                 + "\n")
    token = f"{path}:choose"
    name = token
    if toml is not None:
        write(tmp_path, "p.toml", 'strategy = "choose"\n' + toml)
        name = f"{token}@{tmp_path}/p.toml"
    with pytest.raises(SimkitError) as err:
        build_lineup(game, [name, "greedy"], 2, params)
    message = str(err.value)
    assert problem.format(token=token) in message, message
    at_fault = str(path) if toml is None else f"parameter file {tmp_path}/p.toml"
    assert at_fault in message or message.startswith("--param 'choose.w=")  # as typed
    assert "\n" not in message


def test_a_short_parameter_name_must_be_unambiguous(cm, tmp_path):
    game, _ = cm
    a = write(tmp_path, "a.py", GOOD + "PARAMS = {'w': 1.0}\n")
    b = write(tmp_path, "b.py", GOOD + "PARAMS = {'w': 1.0}\n")
    with pytest.raises(SimkitError, match="several plug-ins play as 'choose'"):
        build_lineup(game, [f"{a}:choose", f"{b}:choose"], 2, ["choose.w=2"])
    lineup = build_lineup(game, [f"{a}:choose", f"{b}:choose"], 2, [f"{b}:choose.w=2"])
    assert [p["w"] for p in lineup.resolved_params] == [1.0, 2.0]
    with pytest.raises(SimkitError, match="holds parameters for strategy 'other'"):
        write(tmp_path, "o.toml", 'strategy = "other"\n[params]\nw = 2\n')
        build_lineup(game, [f"{a}:choose@{tmp_path}/o.toml"], 2)


def test_entry_point_plugin(cm, tmp_path, monkeypatch):
    game, compiled = cm
    write(tmp_path, "my_simkit_strategies.py", CM_EXAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = EntryPoint(name="cauldron-master:sets", value="my_simkit_strategies:greedy",
                    group=plugins.ENTRY_POINT_GROUP)
    monkeypatch.setattr(plugins, "entry_points",
                        lambda group: [ep] if group == plugins.ENTRY_POINT_GROUP else [])
    lineup = build_lineup(game, ["sets", "random"], 2)
    assert lineup.ids[0] < 0 and lineup.plugins[0][0] == "sets"
    a = game.simulate(compiled, lineup, 4, 0, 300)
    a = {k: np.array(v) for k, v in a.items()}
    b = game.simulate(compiled, build_lineup(game, ["greedy", "random"], 2), 4, 0, 300)
    assert np.array_equal(a["score"], b["score"])
    assert plugins.entry_point_names("cauldron-master") == ["sets"]
    with pytest.raises(SimkitError, match="unknown strategy 'other'"):
        build_lineup(game, ["other"], 2)


def test_strategies_lists_entry_point_plugins_without_compiling(cm, tmp_path, monkeypatch):
    """A package's entry points, found through a real dist-info on sys.path: listed with
    where they come from, imported but never compiled; a broken one is one line."""
    write(tmp_path, "my_listed_strategies.py", CM_EXAMPLE + "\nnot_a_function = 3\n")
    info = tmp_path / "simkit_demo_strategies-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: simkit-demo-strategies\n"
                                   "Version: 1.2\n")
    (info / "entry_points.txt").write_text(
        "[simkit.strategies]\n"
        "cauldron-master:sets = my_listed_strategies:sets\n"
        "cauldron-master:greedy = my_listed_strategies:greedy\n"
        "cauldron-master:broken = no_such_module_anywhere:choose\n"
        "cauldron-master:odd = my_listed_strategies:not_a_function\n"
        "carnuta:elsewhere = my_listed_strategies:sets\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def no_compiling(*args, **kwargs):
        raise AssertionError("listing must not compile a plug-in")

    monkeypatch.setattr(plugins, "compile_plugin", no_compiling)
    result = run_cli("strategies", "cauldron-master")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "Traceback" not in result.output and "elsewhere" not in result.output
    where = "(package simkit-demo-strategies 1.2)"
    at = next(i for i, line in enumerate(lines) if line.startswith("sets "))
    assert lines[at].startswith("sets       plug-in: Collect sets: the witch that takes")
    assert lines[at + 1] == ("    from entry point cauldron-master:sets = "
                             f"my_listed_strategies:sets {where}")
    [greedy] = [line for line in lines if line.startswith("greedy") and "plug-in" in line]
    assert "not used: the built-in of that name wins" in greedy
    at = lines.index(greedy)
    assert lines[at + 2].startswith("    points_weight = 1  [0, 100]  weight of points")
    [broken] = [line for line in lines if line.startswith("broken")]
    assert "cannot be used: loading it failed: ModuleNotFoundError" in broken
    assert "no_such_module_anywhere:choose" in broken and where in broken
    [odd] = [line for line in lines if line.startswith("odd")]
    assert "is a int, not a function" in odd
    assert lines[0].startswith("random")  # the built-ins first, as before
