"""The two compiled variants of every game's kernel: without the rollout player (a lineup
with no lookahead seat; numba prunes the rollout call, so a first run compiles less) and
with it. Both play the same games; a run without a lookahead seat never compiles the
playouts."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game

GAMES = ["cauldron-master", "carnuta", "inori"]

# In a fresh process: a greedy run, then how many signatures the playout function has.
FRESH = """
import sys
from simkit.engine import build_lineup
from simkit.games import get_game
game = get_game(sys.argv[1])
compiled = game.compile(game.load_config())
game.simulate(compiled, build_lineup(game, ["greedy", "planner", "random"], 3), 3, 0, 6)
print(len(game.kernel.playout.signatures), game.needs_compile())
"""


@pytest.mark.parametrize("name", GAMES)
def test_both_variants_play_the_same_games(name, monkeypatch):
    game = get_game(name)
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["greedy", "planner", "random"], 3)
    assert game.lookahead(lineup) is None
    assert game.lookahead(build_lineup(game, ["rollout", "greedy"], 2)) is True
    without = {k: np.array(v) for k, v in game.simulate(compiled, lineup, 5, 0, 300).items()}
    monkeypatch.setattr(game, "lookahead", lambda lineup: True)
    with_it = game.simulate(compiled, lineup, 5, 0, 300)
    assert without.keys() == with_it.keys()
    for key, column in without.items():
        assert np.array_equal(column, with_it[key]), key


@pytest.mark.parametrize("name", GAMES)
def test_a_run_without_a_lookahead_seat_never_compiles_the_playouts(name):
    done = subprocess.run([sys.executable, "-c", FRESH, name], capture_output=True,
                          text=True, timeout=1800, check=True)
    signatures, needs_compile = done.stdout.split()
    assert signatures == "0"
    assert needs_compile == "False"  # that variant is in the cache now


def test_the_compile_message_names_the_variant_a_lineup_needs(cm):
    game, compiled = cm
    greedy = build_lineup(game, ["greedy"], 2)
    rollout = build_lineup(game, ["rollout", "greedy"], 2, ["rollout.rollouts=1"])
    game.simulate(compiled, greedy, 0, 0, 2)
    game.simulate(compiled, rollout, 0, 0, 2)
    assert not game.needs_compile(greedy)
    assert not game.needs_compile(rollout)
    variants = {str(sig[-1]) for sig in game.kernel.simulate_batch.signatures}
    assert variants == {"none", "bool"}


def test_a_file_the_kernel_is_not_built_from_does_not_say_compiling():
    """An edit to the game's log (or report, config) changes no compiled code: a later
    process must not announce a compile on every run (it did after an edit to log.py)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import simkit.games.cauldron_master.log as log
    path = Path(log.__file__)
    before = path.stat()
    code = ("from simkit.games import get_game; g = get_game('cauldron-master'); "
            "from simkit.engine import build_lineup; "
            "print(g.needs_compile(build_lineup(g, ['greedy'], 2)))")
    try:
        os.utime(path, None)  # touched now: newer than the kernel's cache
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.strip()
    finally:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert out == "False"


@pytest.mark.parametrize("name", GAMES)
def test_the_search_variant_plays_the_same_games(name, monkeypatch):
    """The third variant (a searching seat: `lookahead` is 1) plays heuristic seats
    exactly as the others do."""
    game = get_game(name)
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["greedy", "planner", "random"], 3)
    assert game.lookahead(build_lineup(game, ["search", "rollout"], 2)) == 1
    without = {k: np.array(v) for k, v in game.simulate(compiled, lineup, 5, 0, 300).items()}
    monkeypatch.setattr(game, "lookahead", lambda lineup: 1)
    with_it = game.simulate(compiled, lineup, 5, 0, 300)
    for key, column in without.items():
        assert np.array_equal(column, with_it[key]), key

