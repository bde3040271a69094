"""A game folder's compiled code is its own (simkit/gamekit/cache.py): keyed by the folder's
path, kept in the user's cache, dropped when a file the kernel is built from changes and
only then."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import simkit
from simkit.gamekit.cache import drop_stale, folder_key
from simkit.gamekit.skeleton import new_game

# One run of a game folder: its mean score and rounds over 2,000 greedy games, and
# whether it had to compile.
RUN = """
import sys
from simkit.engine import build_lineup
from simkit.games import get_game
game = get_game(sys.argv[1])
compiled = game.compile(game.load_config())
needs_compile = game.needs_compile()
cols = game.simulate(compiled, build_lineup(game, ["greedy"], 2), 1, 0, 2000)
print(cols["score"].mean(), cols["rounds"].mean(), needs_compile)
"""


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return env | {"XDG_CACHE_HOME": str(cache)} | extra


def _start(folder: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", RUN, str(folder)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(job: subprocess.Popen) -> tuple[str, str]:
    out, err = job.communicate(timeout=600)
    assert job.returncode == 0, err
    score, rounds, needs_compile = out.split()
    return f"{score} {rounds}", needs_compile


def test_two_same_named_folders_compiled_at_once_keep_their_own_rules(tmp_path):
    """Issue 47, fault 1: `twin` in two folders, one with a changed roll, compiled at the
    same time; each plays its own rules then and on every later run (checked against the
    rules run as plain Python), and nothing is cached inside simkit's package."""
    a = new_game("twin", tmp_path / "a")
    b = new_game("twin", tmp_path / "b")
    rules = b / "rules.py"
    old = "pub[TURN_TOTAL] += t.faces[face, FA_POINTS]"
    assert old in rules.read_text()
    rules.write_text(rules.read_text().replace(
        old, "pub[TURN_TOTAL] += 3 * t.faces[face, FA_POINTS]"))
    cache = tmp_path / "cache"
    env = _env(cache)
    plain = _env(cache, NUMBA_DISABLE_JIT="1")
    truth = {f: _result(_start(f, plain))[0] for f in (a, b)}
    assert truth[a] != truth[b]
    together = [_start(b, env), _start(a, env)]
    first = {f: _result(job)[0] for f, job in zip((b, a), together, strict=True)}
    again = {f: _result(_start(f, env)) for f in (a, b)}
    for f in (a, b):
        assert first[f] == truth[f] and again[f] == (truth[f], "False"), f
    keys = sorted(p.name for p in (cache / "simkit" / "games").iterdir())
    assert keys == sorted([folder_key(a), folder_key(b)])
    package = Path(simkit.__file__).parent
    assert not [p for p in package.rglob("*twin*")], "a game's code cached in simkit"
    # Issue 49: files the kernel is not built from change without a compile.
    for name, line in (("report.py", "\n# edited\n"), ("targets.toml", "\n# edited\n"),
                       ("config.py", "\n# edited\n")):
        with open(a / name, "a") as f:
            f.write(line)
    assert _result(_start(a, env)) == (truth[a], "False")


def test_only_a_kernel_file_drops_the_compiled_code(tmp_path):
    """The compiled code goes when a kernel file (rules.py) or a shared kernel changes,
    not when report.py, config.py or targets.toml does."""
    game = tmp_path / "game"
    game.mkdir()
    for name in ("rules.py", "report.py", "config.py", "targets.toml"):
        (game / name).write_text("x = 1\n")
    shared = tmp_path / "loop.py"
    shared.write_text("y = 1\n")
    place = tmp_path / "place"
    (place / "__pycache__").mkdir(parents=True)
    compiled = [place / "__pycache__" / "loop.play_game-1.py311.nbi",
                game / "__pycache__" / "rules.roll-1.py311.nbi"]

    def cached() -> bool:
        return all(f.exists() for f in compiled)

    def compile_again() -> None:
        for f in compiled:
            f.parent.mkdir(exist_ok=True)
            f.write_text("")

    drop_stale(place, game, [shared])
    compile_again()
    for name in ("report.py", "config.py", "targets.toml"):
        (game / name).write_text("x = 2\n")
        assert not drop_stale(place, game, [shared]) and cached(), name
    for changed in (game / "rules.py", shared):
        changed.write_text("x = 3\n")
        assert drop_stale(place, game, [shared]) and not any(f.exists() for f in compiled)
        compile_again()


def test_a_built_in_games_players_drop_with_its_compiled_code(tmp_path):
    """A file outside the game folder that the kernel is built from for this game alone
    (Cauldron Master's strategies/cauldron_master.py, `own`) drops the game's compiled code
    and its own when it changes; another game's players' cache in the same folder stays."""
    game = tmp_path / "game"
    game.mkdir()
    (game / "rules.py").write_text("x = 1\n")
    players = tmp_path / "strategies" / "game.py"
    players.parent.mkdir()
    players.write_text("z = 1\n")
    place = tmp_path / "place"
    (place / "__pycache__").mkdir(parents=True)
    ours = [place / "__pycache__" / "loop.play_game-1.py311.nbi",
            game / "__pycache__" / "rules.roll-1.py311.nbi",
            players.parent / "__pycache__" / "game.choose-1.py311.nbi"]
    other = players.parent / "__pycache__" / "other_game.choose-1.py311.nbi"
    for f in [*ours, other]:
        f.parent.mkdir(exist_ok=True)
        f.write_text("")
    assert drop_stale(place, game, [], [players])  # no stamp yet: dropped once
    for f in ours:
        f.write_text("")
    assert not drop_stale(place, game, [], [players]) and all(f.exists() for f in ours)
    players.write_text("z = 2\n")
    assert drop_stale(place, game, [], [players])
    assert not any(f.exists() for f in ours) and other.exists()
