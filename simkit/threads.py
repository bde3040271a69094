"""The threads that play a batch of games: how many, and how they share its games.

A game's `simulate_batch` plays a range of games on the thread that calls it (compiled
with `nogil`, so threads play at once). `play_blocks` cuts a batch into blocks and lets
each thread take the next block as soon as it is free, so a thread the shared machine
slows does not hold the batch up. Every game depends only on its index, so neither the
thread count nor the cut ever changes a result.

Why not numba's parallel loop (`prange`): numba compiles a parallel loop's body into a
function of its own and wraps it twice, and each of those compiles links in and
optimises the whole turn again: about 9 s of LLVM work in a cold Inori compile of
67 CPU-s (docs/speed.md).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from simkit.errors import SimkitError

BLOCKS_PER_THREAD = 8  # enough that threads finish together; each block is one call


def available() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_threads = available()


def get_threads() -> int:
    """The threads a batch is played on."""
    return _threads


def set_threads(threads: int | None) -> int:
    """Play on `threads` threads (None: leave as is); returns the number in use."""
    global _threads
    if threads is not None:
        if not 1 <= threads <= available():
            raise SimkitError(f"--threads must be between 1 and {available()}, not {threads}")
        _threads = threads
    return _threads


@contextmanager
def using(threads: int) -> Iterator[None]:
    """`set_threads(threads)` for the `with` block, then the number before."""
    before = _threads
    set_threads(threads)
    try:
        yield
    finally:
        set_threads(before)


def blocks(n_games: int, threads: int) -> list[tuple[int, int]]:
    """Games 0 .. n_games - 1 cut into consecutive (start, stop) blocks for `threads`."""
    n = min(n_games, 1 if threads == 1 else threads * BLOCKS_PER_THREAD)
    return [(b * n_games // n, (b + 1) * n_games // n) for b in range(n)]


def play_blocks(play: Callable[[int, int], None], n_games: int,
                threads: int | None = None) -> None:
    """Call `play(start, stop)` over blocks of games 0 .. n_games - 1 on `threads` threads
    (default: get_threads()), the calling thread one of them; each thread takes the next
    block when it is free. An exception in any thread is raised here once all stop."""
    todo = blocks(n_games, threads or _threads)
    workers = min(threads or _threads, len(todo))
    if workers <= 1:
        for start, stop in todo:
            play(start, stop)
        return
    lock = threading.Lock()
    position = [0]
    failed: list[BaseException] = []

    def work() -> None:
        while True:
            with lock:
                if failed or position[0] == len(todo):
                    return
                start, stop = todo[position[0]]
                position[0] += 1
            try:
                play(start, stop)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                with lock:
                    failed.append(exc)
                return

    helpers = [threading.Thread(target=work, daemon=True, name=f"simkit-play-{k}")
               for k in range(1, workers)]
    for h in helpers:
        h.start()
    work()
    for h in helpers:
        h.join()
    if failed:
        raise failed[0]
