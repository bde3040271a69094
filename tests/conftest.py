"""Shared fixtures: the Cauldron Master game compiled once per test session; with several
test processes (pytest-xdist), the game kernels compiled once before they start."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game

# Compiles the named kernels into numba's cache: GAME without the lookahead player,
# GAME:rollout with it (a kernel's traced and option variants are the same compiled code).
WARM = """
import sys
from simkit.engine import build_lineup
from simkit.games import get_game
for name in sys.argv[1:]:
    name, _, with_rollout = name.partition(":")
    game = get_game(name)
    compiled = game.compile(game.load_config())
    lineup = ["rollout", "greedy"] if with_rollout else ["greedy"]
    game.simulate(compiled, build_lineup(game, lineup, 2), 0, 0, 2)
"""
# Two lists for two cores, of about equal compile time; each list runs in order, so a
# variant never compiles twice at once. Alone, with an empty cache (2026-12-03, the machine
# at half speed): inori:rollout 168 s, carnuta:rollout 110, cauldron-master:rollout 96,
# inori 94, carnuta 65, cauldron-master 56; a game's second variant reuses the helpers its
# first compiled. These lists took 249 and 228 s side by side (the old ones 337 s).
WARM_JOBS = (["inori:rollout", "cauldron-master:rollout"],
             ["carnuta", "carnuta:rollout", "inori", "cauldron-master"])


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """With `-n 2` and an empty cache, both test processes would compile the first game
    they meet at the same time (measured: Inori, 5 CPU-minutes, twice). So the controller
    compiles every game's kernels once, on both cores (WARM_JOBS), before the test
    processes start; a warm cache makes this a few seconds."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    print("\nCompiling the game kernels once for all test processes "
          "(minutes on a first run, seconds after)...", flush=True)
    start = time.perf_counter()
    jobs = [subprocess.Popen([sys.executable, "-c", WARM, *games]) for games in WARM_JOBS]
    for job in jobs:
        job.wait()  # a failure here shows again, with its test, in the suite
    print(f"Kernels ready in {time.perf_counter() - start:.0f} s.", flush=True)


@pytest.fixture(scope="session")
def cm():
    """(game, compiled) for the built-in Cauldron Master config; warms the kernels once."""
    game = get_game("cauldron-master")
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["greedy", "planner", "random"], 3)
    game.simulate(compiled, lineup, 0, 0, 8)
    game.replay(compiled, lineup, 0, 0)
    return game, compiled


@pytest.fixture(scope="session")
def cm_ids(cm):
    """Ingredient, witch and recipe-card id -> index."""
    names = cm[1].names
    index = {n: i for i, n in enumerate(names.ingredient_ids)}
    index |= {n: i for i, n in enumerate(names.witch_ids)}
    index |= {n: i for i, n in enumerate(names.recipe_ids)}
    return index


def as_rows(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Copy every column (they may be views of kernel buffers)."""
    return {k: np.array(v) for k, v in columns.items()}
