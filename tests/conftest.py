"""Shared fixtures: the Cauldron Master game compiled once per test session; with several
test processes (pytest-xdist), the game kernels compiled once before they start."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
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
for job in sys.argv[1:]:
    print("START", job, flush=True)
    name, _, with_rollout = job.partition(":")
    game = get_game(name)
    compiled = game.compile(game.load_config())
    lineup = ["rollout", "greedy"] if with_rollout else ["greedy"]
    game.simulate(compiled, build_lineup(game, lineup, 2), 0, 0, 2)
    print("DONE", job, flush=True)
"""
# Two lists for two cores, of about equal compile time; each list runs in order, so a
# variant never compiles twice at once. Alone, with an empty cache (2026-12-03, the machine
# at half speed): inori:rollout 168 s, carnuta:rollout 110, cauldron-master:rollout 96,
# inori 94, carnuta 65, cauldron-master 56; a game's second variant reuses the helpers its
# first compiled. These lists took 249 and 228 s side by side (the old ones 337 s).
WARM_JOBS = (["inori:rollout", "cauldron-master:rollout"],
             ["carnuta", "carnuta:rollout", "inori", "cauldron-master"])
# Each kernel's share of a cold compile (the times above), for the time left.
WARM_SECONDS = {"inori:rollout": 168, "carnuta:rollout": 110, "cauldron-master:rollout": 96,
                "inori": 94, "carnuta": 65, "cauldron-master": 56}
HEARTBEAT = 20.0  # seconds between "still compiling" lines


def _lines(job: subprocess.Popen, out: queue.Queue) -> None:
    assert job.stdout is not None
    for line in job.stdout:
        out.put(line.split())
    out.put(None)  # this list is finished


def warm_kernels(say=print) -> float:
    """Compile every game's kernels (WARM_JOBS, one list per core), saying which kernel
    each core compiles, each one done, and every HEARTBEAT seconds the time so far and
    an estimate of the time left (from WARM_SECONDS); a warm cache takes seconds."""
    start = time.perf_counter()
    lines: queue.Queue = queue.Queue()
    jobs = [subprocess.Popen([sys.executable, "-c", WARM, *games], stdout=subprocess.PIPE,
                             text=True) for games in WARM_JOBS]
    for job in jobs:
        threading.Thread(target=_lines, args=(job, lines), daemon=True).start()
    total = sum(WARM_SECONDS.values())
    done: list[str] = []
    running: set[str] = set()
    open_lists = len(jobs)
    while open_lists:
        try:
            item = lines.get(timeout=HEARTBEAT)
        except queue.Empty:
            item = []
        took = time.perf_counter() - start
        if item is None:
            open_lists -= 1
            continue
        if len(item) == 2 and item[0] == "START":
            running.add(item[1])
            continue
        if len(item) == 2 and item[0] == "DONE":
            running.discard(item[1])
            done.append(item[1])
            say(f"  compiled {item[1]} ({len(done)} of {len(WARM_SECONDS)} kernels, "
                f"{took:.0f} s)")
            continue
        if not running:  # the compilers are starting up, or all is done
            continue
        share = sum(WARM_SECONDS.get(k, 0) for k in done) / total
        left = f", about {took / share * (1 - share):.0f} s left" if share else ""
        say(f"  still compiling {', '.join(sorted(running))} ({took:.0f} s so "
            f"far{left})")
    for job in jobs:
        job.wait()  # a failure here shows again, with its test, in the suite
    return time.perf_counter() - start


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
    took = warm_kernels(lambda line: print(line, flush=True))
    print(f"Kernels ready in {took:.0f} s.", flush=True)


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
