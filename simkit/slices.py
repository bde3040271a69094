"""Play a chunk of games in short slices, so that Ctrl-C stops within about a second.

The kernel runs in a helper thread while the main thread waits, so Ctrl-C is taken at
once whatever the chunk size. The first Ctrl-C lets the slice in play finish (about
SLICE_SECONDS) and hands back every game finished so far, to be saved; a second Ctrl-C
stops without waiting (a plug-in strategy stuck in a loop never finishes its slice).
Games depend only on their index, so slicing never changes a result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

SLICE_SECONDS = 0.25  # the longest stretch of play between two looks for Ctrl-C
GROWTH = 4  # a slice is at most this many times the last one (the first call compiles)

Columns = dict[str, np.ndarray]

# Told when a first Ctrl-C waits for the slice in play (the CLI prints a line there).
on_wait: Callable[[], None] | None = None
# Set once a second Ctrl-C has left a slice playing in its thread: the process should
# then exit without waiting for it (os._exit), as the thread may never finish.
abandoned = False


# Set by a first Ctrl-C while a slice plays. A play made of several kernel calls (a value
# run plays the game once per component) looks at it between calls, through
# `stop_point()`, and gives its slice up: a dear player's slice of a value run was a
# dozen seconds and more, and Ctrl-C waited for all of it.
_stop = threading.Event()


class SliceGivenUp(Exception):
    """Raised in the playing thread by `stop_point()`: the slice's games are dropped
    (a rerun plays them again; the games finished before the slice are kept)."""


def stop_point() -> None:
    """Give the slice in play up if Ctrl-C has asked to stop (call between kernel calls)."""
    if _stop.is_set():
        raise SliceGivenUp


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a chunk: `columns` holds its first `done` games (None if none);
    `cause` is the interrupt itself, to raise again once they are saved."""

    def __init__(self, done: int, columns: Columns | None, cause: BaseException) -> None:
        super().__init__()
        self.done = done
        self.columns = columns
        self.cause = cause


class Parts(list):
    """A chunk's slices, not joined: with `Slicer(join=Parts)` the run's writer thread
    makes each slice a record batch of the chunk's table (`results.long_table_of_slices`),
    and no copy joins them."""


def concat(parts: list[Columns]) -> Columns:
    """Per-game columns of consecutive slices -> the columns of all their games."""
    return join_along(parts, 0)


def join_along(parts: list[Columns], axis: int) -> Columns:
    """Consecutive slices' arrays, joined along `axis` (their games' or deals' axis)."""
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts], axis=axis) for k in parts[0]}


class Slicer:
    """Plays chunks with `play(first, n) -> columns` in slices of about SLICE_SECONDS."""

    def __init__(self, play: Callable[[int, int], Columns], min_slice: int,
                 progress: Callable[[int], None] | None = None, step: int = 1,
                 join: Callable[[list[Columns]], Any] = concat) -> None:
        self.play = play
        self.progress = progress  # told the games of every finished slice
        self.step = step  # slices are whole multiples of this many games (a deal's games)
        self.join = join  # the results of consecutive slices -> those of all their games
        self.min_slice = max(step, -(-min_slice // step) * step)
        self.size = self.min_slice  # games in the next slice
        self.seconds = SLICE_SECONDS

    def chunk(self, first: int, n: int) -> Columns:
        """The columns of games first..first+n-1 (as `join` leaves them); Interrupted on
        Ctrl-C."""
        parts: list[Columns] = []
        done = 0
        try:
            while done < n:
                k = min(self.size // self.step * self.step, n - done)
                started = time.perf_counter()
                try:
                    parts.append(_in_thread(self.play, first + done, k))
                except _Finished as stop:  # Ctrl-C, but the slice in play finished
                    parts.append(stop.columns)
                    done += k
                    raise stop.cause from None
                done += k
                if self.progress is not None:
                    self.progress(k)
                per_game = max(time.perf_counter() - started, 1e-9) / k
                self.size = max(self.min_slice, min(int(self.seconds / per_game), k * GROWTH))
        except _Abandoned as stop:
            raise Interrupted(done, self.join(parts) if parts else None, stop.cause) from None
        except KeyboardInterrupt as exc:  # here or in `progress`: the games done are kept
            raise Interrupted(done, self.join(parts) if parts else None, exc) from None
        return self.join(parts)


    def chunks(self, chunks: Iterable[tuple[int, int]]
               ) -> Iterator[tuple[int, int, Columns]]:
        """(first, n, columns) of each chunk in turn. On Ctrl-C the chunk's finished games
        come first, as a shorter chunk (first, done, columns), then the interrupt itself."""
        for first, n in chunks:
            try:
                columns = self.chunk(first, n)
            except Interrupted as stop:
                if stop.columns is not None:
                    yield first, stop.done, stop.columns
                raise stop.cause from None
            yield first, n, columns


class _Abandoned(Exception):
    """A second Ctrl-C: the slice in play is left behind."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__()
        self.cause = cause


class _Finished(Exception):
    """Ctrl-C while a slice played; it finished."""

    def __init__(self, columns: Columns, cause: BaseException) -> None:
        super().__init__()
        self.columns = columns
        self.cause = cause


def _in_thread(play: Callable[[int, int], Columns], first: int, n: int) -> Columns:
    """play(first, n) in a helper thread; the main thread stays free to take Ctrl-C."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["columns"] = play(first, n)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    # A daemon thread: a process that stops without waiting for it can still exit.
    _stop.clear()
    threading.Thread(target=work, name="simkit-play", daemon=True).start()
    interrupted: BaseException | None = None
    while True:
        try:
            # With a timeout: the OS may hand SIGINT to another thread, and only a wait
            # that comes back to Python lets the main thread notice it.
            if done.wait(0.05):
                break
        except KeyboardInterrupt as exc:
            if interrupted is not None:
                global abandoned
                abandoned = True
                raise _Abandoned(exc) from None
            interrupted = exc  # let the slice finish (its games are kept) or give up
            _stop.set()
            if on_wait is not None:
                on_wait()
    if isinstance(box.get("error"), SliceGivenUp) and interrupted is not None:
        raise _Abandoned(interrupted)  # its thread has ended: nothing is left playing
    if "error" in box:
        raise box["error"]
    if interrupted is not None:
        raise _Finished(box["columns"], interrupted)
    return box["columns"]
