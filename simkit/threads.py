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

# Blocks shrink as the batch goes (guided scheduling): each is a SHARE-th of the games left
# per thread, and at least a LEAST-th of the batch per thread, so the threads finish within
# a small block of each other. Eight equal blocks a thread left one thread idle for half a
# block at the end of every batch, longer when a summary run's writer thread had taken its
# core for a while: 4.5% of a Carnuta summary-only run's two cores (docs/speed.md).
SHARE = 2
LEAST = 32


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
    """Games 0 .. n_games - 1 cut into consecutive (start, stop) blocks for `threads`, from
    large to small (one block on one thread: each block is one call of the kernel)."""
    if threads == 1 or n_games <= 1:
        return [(0, n_games)] if n_games else []
    least = max(1, n_games // (threads * LEAST))
    cut, start = [], 0
    while start < n_games:
        stop = min(n_games, start + max(least, (n_games - start) // (threads * SHARE)))
        cut.append((start, stop))
        start = stop
    return cut


# Batches whose threads have each taken a block: a thread of the process about to hold
# the GIL for a while (a summary-only run's writer reducing a chunk) first lets the
# next batch begin (`wait_for_batch`). Starting a batch takes the GIL for a moment in
# each of its threads, and each of those moments waited for the writer's switch
# interval: 1-2% of the two cores of a Carnuta run (docs/speed.md).
_begun = threading.Condition()
_batches = 0


def batches_begun() -> int:
    """The batches begun so far in this process (for `wait_for_batch`)."""
    return _batches


def wait_for_batch(seen: int, timeout: float) -> None:
    """Wait until a batch begins after `batches_begun()` read `seen`, or `timeout` s."""
    with _begun:
        _begun.wait_for(lambda: _batches > seen, timeout)


def _began() -> None:
    global _batches
    with _begun:
        _batches += 1
        _begun.notify_all()


def play_blocks(play: Callable[[int, int], None], n_games: int,
                threads: int | None = None) -> None:
    """Call `play(start, stop)` over blocks of games 0 .. n_games - 1 on `threads` threads
    (default: get_threads()), the calling thread one of them; each thread takes the next
    block when it is free. An exception in any thread is raised here once all stop."""
    todo = blocks(n_games, threads or _threads)
    workers = min(threads or _threads, len(todo))
    if workers <= 1:
        _began()
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
                if position[0] == workers:  # each thread has a block
                    _began()
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
