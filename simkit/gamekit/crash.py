"""`simkit check` in a child process, so that a game that crashes it is still named in one
line.

Compiled code does not check indices: a rule that writes past the end of `pub`, `hid`,
`cnt` or the option table damages memory, and the process may die of a segmentation
fault with nothing said. When the child dies of a signal, the same games are replayed in
plain Python (`NUMBA_DISABLE_JIT=1`), where such an index raises IndexError at its line.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

REPLAY_GAMES = 20  # games per player count replayed in plain Python after a crash


def check_in_child(game: str, n_games: int, out: Callable[[str], None],
                   err: Callable[[str], None]) -> int:
    """Run `simkit check GAME --here` in a child, its lines passed on as they come;
    returns its exit code (negative: the signal that killed it)."""
    cmd = [sys.executable, "-m", "simkit.cli", "check", game, "--games", str(n_games),
           "--here"]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    relay = threading.Thread(target=lambda: [out(ln.rstrip("\n")) for ln in child.stdout])
    relay.start()
    for line in child.stderr:
        err(line.rstrip("\n"))
    relay.join()
    return child.wait()


def crash_name(code: int) -> str:
    """What a negative exit code means, in words."""
    try:
        sig = signal.Signals(-code)
    except ValueError:
        return f"signal {-code}"
    return {signal.SIGSEGV: "a segmentation fault", signal.SIGBUS: "a bus error",
            signal.SIGABRT: "an abort"}.get(sig, sig.name)


def find_in_plain_python(game: str, folder: Path | None) -> str | None:
    """Replay the check's games in plain Python; `file:line: error` where one raised,
    else None."""
    code = f"from simkit.gamekit.crash import replay; replay({game!r})"
    env = os.environ | {"NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env)
    if done.returncode == 0:
        return None
    return last_place(done.stderr, folder)


def last_place(traceback: str, folder: Path | None) -> str | None:
    """`file:line: the error` from a Python traceback: the deepest frame in the game's
    folder (else the deepest frame), and its last line."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', traceback)
    if not frames:
        return None
    lines = [ln for ln in traceback.strip().splitlines() if ln.strip()]
    said = lines[-1].strip().removeprefix("simkit.errors.SimkitError: ")
    if said != lines[-1].strip():  # already one line naming the place (folder.raised_line)
        return said
    mine = [f for f in frames if folder is not None and Path(f[0]).resolve().parent == folder]
    file, line = (mine or frames)[-1]
    return f"{file}:{line}: {lines[-1].strip()}"


def replay(game: str) -> None:
    """The check's lineups, REPLAY_GAMES games each, traced and not (run with
    NUMBA_DISABLE_JIT=1; an error propagates with its traceback)."""
    from simkit.games import get_game
    from simkit.testing import check_lineup

    found = get_game(game)
    compiled = found.compile(found.load_config())
    for players in found.players(compiled):
        lineup = check_lineup(found, players)
        found.simulate(compiled, lineup, 12345, 0, REPLAY_GAMES)
        for g in range(2):
            found.play_log(compiled, lineup, 12345, g)
