"""The game API (docs/new-game.md): games from folders and entry points, the skeleton,
and one clear line for every way a game can break the contract."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import simkit.games as games
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.gamekit.skeleton import new_game
from simkit.games import get_game
from simkit.testing import check_game

ROOT = Path(__file__).resolve().parent.parent
PIG = ROOT / "examples" / "pig"


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory):
    """A fresh skeleton game (the Pig example renamed), written once for this module."""
    return new_game("brokegame", tmp_path_factory.mktemp("games"))


# Games these tests write are written where the last session wrote them (this checkout's
# tests/.games, rewritten every session) rather than in a new tmp dir: a compiled kernel is
# cached per resolved path (simkit/gamekit/cache.py) and stays valid while the kernel files
# are unchanged, so a later session loads it instead of compiling it again.
GAMES = ROOT / "tests" / ".games"


def broken(skeleton: Path, name: str, file: str, old: str, new: str) -> Path:
    """A copy of the skeleton named `name` with `old` replaced by `new` in `file`, in
    GAMES."""
    folder = GAMES / name
    shutil.rmtree(folder, ignore_errors=True)
    GAMES.mkdir(exist_ok=True)
    shutil.copytree(skeleton, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / file
    text = path.read_text()
    assert old in text, (file, old)
    path.write_text(text.replace(old, new, 1))
    init = folder / "__init__.py"
    init.write_text(init.read_text().replace('"brokegame"', f'"{name}"'))
    return folder


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text.strip(), text
    return text


def test_a_game_is_found_by_its_folder():
    game = get_game(str(PIG))
    assert game.title == "Pig" and game.name == str(PIG)
    assert get_game(str(PIG)) is game  # loaded once per process
    assert "players" in game.strategy_module.__name__


def test_a_game_is_found_by_its_entry_point(monkeypatch):
    pig = get_game(str(PIG))

    class EntryPoint:
        name, value, dist = "pig", "pig", None

        def load(self):
            return pig.package

    monkeypatch.setattr(games, "_entry_points", lambda: {"pig": EntryPoint()})
    games._plugin.cache_clear()
    assert "pig" in games.game_names()
    assert get_game("pig").title == "Pig"
    out = CliRunner().invoke(main, ["games"]).output
    assert re.search(r"^pig\s+Pig \(2, 3, 4 players\)\s+\[plug-in pig\]", out, re.M), out
    games._plugin.cache_clear()


def test_new_game_writes_a_game_that_keeps_the_contract(tmp_path):
    place = GAMES / "new"  # GAMES: compiled once per checkout
    shutil.rmtree(place, ignore_errors=True)  # written anew every session
    place.mkdir(parents=True)
    folder = new_game("fresh", place)
    assert folder == place / "fresh"
    check_game(str(folder), n_games=60)
    # Its pyproject registers it as a plug-in game once installed (pip install -e).
    import tomllib
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["simkit.games"] == {"fresh": "fresh"}
    assert project["tool"]["setuptools"]["package-dir"]["fresh"] == "."
    out = CliRunner().invoke(main, ["run", str(folder), "--players", "2", "--strategies",
                                    "greedy,random", "--games", "200", "--out",
                                    str(tmp_path / "run"), "--report"])
    assert out.exit_code == 0, out.output
    assert (tmp_path / "run" / "report.html").exists()
    # the skeleton's placeholder `goal` is the designer's own: no "published card data"
    assert "values its config marks as placeholders" in out.output
    assert "published" not in out.output
    # It never writes over anything.
    with pytest.raises(SimkitError, match="already exists"):
        new_game("fresh", place)
    with pytest.raises(SimkitError, match="lower-case Python name"):
        new_game("Bad-Name", place)
    assert sorted(p.name for p in place.iterdir()) == ["fresh"]


def test_the_skeleton_readme_names_its_folder_as_a_path(tmp_path, monkeypatch):
    """`simkit run mygame` means an installed game: a folder made here is `./mygame`."""
    monkeypatch.chdir(tmp_path)
    folder = new_game("here", Path("."))
    readme = (folder / "README.md").read_text()
    assert "simkit run ./here " in readme and "simkit check ./here" in readme
    assert "Pig's targets until you change them" in (folder / "targets.toml").read_text()


@pytest.mark.parametrize(("name", "file", "old", "new", "message"), [
    ("nolog", "log.py", "def format_log(", "def format_lines(",
     r"log\.py: the game API needs a function format_log"),
    ("noredeal", "play.py", "    redeal,\n", "",
     r"rules\.py: the game API needs 'redeal'"),
    ("badoutputs", "layout.py", "    *LOOP_OUTPUTS,",
     '    Output("place", np.int8), *LOOP_OUTPUTS[1:],',
     r"layout\.py: OUTPUTS must begin with strategy, score, rank"),
    ("badsyntax", "rules.py", "def setup(", "def setup(:",
     r"rules\.py:\d+: syntax error"),
    ("badseat", "layout.py", "SCORE = 6\n", "SCORE = 6\nSEAT = 99\n",
     r"layout\.py: SEAT = 99: must be a position in 0\.\.PUB_SIZE - 1 = 9"),
])
def test_a_broken_game_is_named_in_one_line(skeleton, tmp_path, name, file, old, new,
                                            message):
    folder = broken(skeleton, name, file, old, new)
    with pytest.raises(SimkitError) as info:
        get_game(str(folder))
    assert re.search(message, one_line(info.value)), str(info.value)


@pytest.mark.parametrize(("name", "file", "old", "new", "message"), [
    ("neverends", "rules.py", "            return GAME_OVER", "            return 2",
     r"rules\.py: next_decision did not end the game within MAX_DECISIONS"),
    ("nooption", "options.py", "    return 2\n", "    return 0\n",
     r"rules\.py: next_decision offered no legal option"),
    ("badcheck", "rules.py", "    if pub[TURN_TOTAL] < 0:\n        return 3",
     "    if pub[TURN_TOTAL] >= 0:\n        return 3",
     r"rules\.py: check returned 3 \(a conservation check failed\)"),
    ("notypes", "rules.py", "    pub[ROLLS] += 1\n", "    pub[ROLLS] = 'one'\n",
     r"rules\.py:\d+: roll: numba cannot compile the game"),
    ("nondeterministic", "rules.py", "    face = randint(rng, t.faces.shape[0])",
     "    face = np.random.randint(t.faces.shape[0])",
     r"rules\.py: column \w+ differs .*not deterministic"),
    ("toomany", "options.py", "    return 2\n", "    return 3\n",
     r"rules\.py: next_decision returned more rows than MAX_OPTIONS = 2"),
    ("badchoice", "players.py", "                return i\n", "                return n\n",
     r"players\.py: choose: strategy greedy chose a row outside 0\.\.n - 1.*, in game \d+"),
    ("lowwins", "rules.py", "    return pub[SCORE + s]\n\n\n@jit\ndef redeal",
     "    return -pub[SCORE + s]\n\n\n@jit\ndef redeal",
     r"rules\.py: ranking_key and points disagree: .*lowest score wins, return the score "
     r"negated from both"),
    ("allocates", "rules.py", "    pub[ROLLS] += 1\n",
     "    pub[ROLLS] += np.zeros(1, np.int32)[0]\n",
     r"^Error: \S*allocates/rules\.py:\d+: roll: numba cannot compile the game: a rule makes "
     r"a new "
     r"array"),
    ("crashes", "rules.py", "    pub[ROLLS] += 1\n", "    pub[ROLLS + 1_000_000_000] += 1\n",
     r"rules\.py:\d+: roll raised IndexError: index 100000000\d is out of bounds .*crashed "
     r"with a segmentation fault; found by replaying in plain Python"),
    ("badreport", "report.py", "class ", "x = (\nclass ",
     r"report\.py:\d+: syntax error"),
    ("staleinterventions", "interventions.py", "from .layout import RU_BAN_FACE",
     "from .layout import RU_BAN_SIDE",
     r"interventions\.py: importing it failed: ImportError: cannot import name 'RU_BAN_SIDE'"),
])
def test_a_game_that_breaks_the_contract_fails_in_one_line(skeleton, tmp_path, name, file,
                                                           old, new, message):
    folder = broken(skeleton, name, file, old, new)
    if name == "neverends":  # a low limit keeps the test quick
        layout = folder / "layout.py"
        layout.write_text(layout.read_text().replace("MAX_DECISIONS = 100_000",
                                                     "MAX_DECISIONS = 500"))
    if name in ("nondeterministic", "allocates"):
        rules = folder / "rules.py"
        rules.write_text("import numpy as np\n" + rules.read_text())
    result = CliRunner().invoke(main, ["check", str(folder), "--games", "40"])
    assert result.exit_code != 0
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("Error: ") and re.search(message, line), result.output
    sys.modules.pop(name, None)


@pytest.mark.parametrize(("name", "file", "old", "new", "message"), [
    # issue 47, fault 3: a rule that raises (a 70-line traceback before)
    ("raises", "rules.py", "    pub[ROLLS] += 1\n", "    raise ValueError('no more rolls')\n",
     r"^Error: \S*raises/rules\.py:\d+: roll raised ValueError: no more rolls$"),
    # fault 4: numba's typing errors at the game's function, not simkit/gamekit/loop.py
    ("pointstext", "rules.py", "    return pub[SCORE + s]\n\n\n@jit\ndef ranking_key",
     "    return 'a score'\n\n\n@jit\ndef ranking_key",
     r"^Error: \S*pointstext/rules\.py:\d+: points: numba cannot compile the game: simkit's "
     r"loop stores what it returns in a number array .* but it returns text$"),
    ("applyargs", "rules.py", "def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, "
     "trace, tracing):", "def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, "
     "trace, tracing, extra):",
     r"^Error: \S*applyargs/rules\.py:\d+: apply_option: numba cannot compile the game: "
     r"simkit's loop calls it as `apply_option\(.*\)`, but it is defined as "
     r"apply_option\(.*extra\) \(missing a required argument: 'extra'\)"),
    ("missingname", "play.py", "    O_TURNS,\n", "",
     r"^Error: \S*missingname/play\.py:\d+: results: numba cannot compile the game: name "
     r"'O_TURNS' is not defined \(import it into play\.py\)$"),
])
def test_an_error_in_the_game_names_its_file_line_and_function(skeleton, tmp_path, name,
                                                                file, old, new, message):
    folder = broken(skeleton, name, file, old, new)
    result = CliRunner().invoke(main, ["run", str(folder), "--players", "2", "--strategies",
                                       "greedy", "--games", "200", "--out",
                                       str(tmp_path / "out")])
    assert result.exit_code != 0
    line = result.output.strip().splitlines()[-1]
    assert re.search(message, line), result.output
    if name == "missingname":  # the line that uses the name
        assert "O_TURNS" in (folder / file).read_text().splitlines()[
            int(re.search(r"play\.py:(\d+)", line).group(1)) - 1]
    sys.modules.pop(name, None)


def test_every_command_works_on_a_game_written_to_the_api(tmp_path):
    """Pig through every command: run (report, summary-only, until-sure, two workers,
    rollout), play, sweep, compare, value, tournament, tune; the same games whether played
    by threads or by dask workers."""
    pig = str(PIG)
    cli = CliRunner()

    def ok(*args: str) -> str:
        result = cli.invoke(main, list(args))
        assert result.exit_code == 0, (args, result.output)
        return result.output

    lineup = ["--players", "2", "--strategies", "greedy,random", "--seed", "3"]
    ok("run", pig, *lineup, "--games", "2000", "--out", str(tmp_path / "a"), "--report")
    assert (tmp_path / "a" / "report.html").exists()
    ok("run", pig, *lineup, "--games", "2000", "--out", str(tmp_path / "w"), "--workers", "2")
    import polars as pl
    assert pl.read_parquet(tmp_path / "a" / "games.parquet").equals(
        pl.read_parquet(tmp_path / "w" / "games.parquet"))
    ok("run", pig, *lineup, "--games", "2000", "--summary-only", "--out",
       str(tmp_path / "s"), "--report")
    out = ok("run", pig, *lineup, "--games", "20000", "--until-sure", "--out",
             str(tmp_path / "u"))
    assert "--until-sure: stopped after" in out
    ok("run", pig, "--players", "2", "--strategies", "greedy,rollout", "--param",
       "rollout.rollouts=2", "--games", "20", "--out", str(tmp_path / "r"))
    assert "holds" in ok("play", pig, *lineup)
    ok("sweep", pig, "--vary", "game.goal=50..100:50", *lineup, "--games", "1000", "--out",
       str(tmp_path / "sweep"))
    out = ok("compare", str(tmp_path / "sweep" / "00_game.goal=50"),
             str(tmp_path / "sweep" / "01_game.goal=100"))
    assert "Game length" in out
    out = ok("value", pig, "--players", "2", "--strategies", "greedy", "--games", "2000",
             "--out", str(tmp_path / "v"))
    assert "A/A control" in out and "Faces stronger than average" in out
    ok("tournament", pig, "--players", "2", "--strategies", "random,greedy", "--games", "400",
       "--out", str(tmp_path / "t"))
    ok("tune", pig, "--strategy", "greedy", "--against", "greedy", "--budget", "2000",
       "--eval-games", "400", "--out", str(tmp_path / "tuned.toml"))
    assert "threshold" in (tmp_path / "tuned.toml").read_text()


def test_a_fraction_in_a_ranking_key_breaks_a_tie(skeleton, tmp_path):
    """Keys are compared as returned: a tie-break folded in as a fraction is kept, not
    truncated away (here seat 0 always wins by a quarter point)."""
    folder = broken(skeleton, "fractionkey", "rules.py",
                    "    return pub[SCORE + s]\n\n\n@jit\ndef redeal",
                    "    return 0.25 * (s == 0)\n\n\n@jit\ndef redeal")
    from simkit.engine import build_lineup
    game = get_game(str(folder))
    compiled = game.compile(game.load_config())
    cols = game.simulate(compiled, build_lineup(game, ["greedy"], 3), 5, 0, 40)
    assert (cols["rank"][:, 0] == 1).all() and (cols["rank"][:, 1:] == 2).all()
    assert (cols["win_share"][:, 0] == 1.0).all()
    sys.modules.pop("fractionkey", None)


def test_a_loop_function_the_game_defines_is_the_one_played(skeleton):
    """`bind` keeps a loop function the game's play.py defines itself (Cauldron Master
    keeps its state and lookahead hooks so): here `rollout_decides`, saying no decision is
    the rollout player's, so its seat plays what `choose` answers for its id (the random
    player's answer in Pig's players) on the same streams, and every column is that of the
    lineup with a random seat."""
    folder = broken(skeleton, "ownhook", "play.py", "\n\n@jit\ndef results(",
                    "\n\n@jit\ndef rollout_decides(t, n_players, scratch):\n"
                    "    return False\n\n\n@jit\ndef results(")
    from simkit.engine import build_lineup
    game = get_game(str(folder))
    compiled = game.compile(game.load_config())
    played = game.simulate(compiled, build_lineup(game, ["rollout", "greedy"], 2), 5, 0, 300)
    random = game.simulate(compiled, build_lineup(game, ["random", "greedy"], 2), 5, 0, 300)
    assert game.kernel.rollout_decides.py_func.__module__ == "ownhook.play"
    assert played.keys() == random.keys()
    for name, column in played.items():
        assert np.array_equal(column, random[name]), name
    assert len(np.unique(played["score"])) > 10  # real games, not a stub
    sys.modules.pop("ownhook", None)
