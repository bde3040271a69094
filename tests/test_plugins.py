"""Plug-in strategies: from a file through `simkit run`, the call path, no recompiles, and a
clear one-line error for every kind of bad plug-in."""

from __future__ import annotations

import json
import time
from importlib.metadata import EntryPoint
from pathlib import Path

import numba
import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from simkit import plugins
from simkit.cli import main
from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games import get_game

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
    many = str(min(2, numba.config.NUMBA_NUM_THREADS))
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


def test_greedy_plugin_plays_exactly_as_greedy(cm, tmp_path):
    game, compiled = cm
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
    start = time.perf_counter()
    lineup = build_lineup(game, [f"{second}:sets", "greedy"], 2)
    game.simulate(compiled, lineup, 1, 0, 50)
    elapsed = time.perf_counter() - start
    assert len(kernel.signatures) == signatures
    assert elapsed < 10  # the plug-in alone compiles (under 1 s unloaded); a kernel takes >30 s


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


def test_plugin_with_a_parameter_file_is_refused(cm, tmp_path):
    game, _ = cm
    path = write(tmp_path, "p.py", GOOD)
    with pytest.raises(SimkitError, match="parameter files are not supported"):
        build_lineup(game, [f"{path}:choose@x.toml", "greedy"], 2)


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
    [broken] = [line for line in lines if line.startswith("broken")]
    assert "cannot be used: loading it failed: ModuleNotFoundError" in broken
    assert "no_such_module_anywhere:choose" in broken and where in broken
    [odd] = [line for line in lines if line.startswith("odd")]
    assert "is a int, not a function" in odd
    assert lines[0].startswith("random")  # the built-ins first, as before
