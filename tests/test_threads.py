"""simkit.threads: every game of a batch played once, on as many threads as asked."""

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.errors import SimkitError
from simkit.threads import (
    LEAST,
    available,
    batches_begun,
    blocks,
    get_threads,
    play_blocks,
    set_threads,
    using,
    wait_for_batch,
)


@given(st.integers(0, 5000), st.integers(1, 16))
def test_blocks_cover_the_batch_once_in_order(n_games, threads):
    cut = blocks(n_games, threads)
    assert [g for start, stop in cut for g in range(start, stop)] == list(range(n_games))
    assert all(stop > start for start, stop in cut)
    if threads == 1:
        assert len(cut) <= 1  # one call: the work arrays allocated once


@given(st.integers(2, 10**7), st.integers(2, 16))
def test_blocks_shrink_to_a_small_last_block(n_games, threads):
    """Large blocks first, small ones last: the threads end within a small block of each
    other, and the calls stay few (one per block)."""
    sizes = [stop - start for start, stop in blocks(n_games, threads)]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[-1] <= max(1, n_games // (threads * LEAST))
    assert len(sizes) <= 12 * threads  # about the 8 equal blocks a thread of before


def test_a_writer_waits_for_the_next_batch_to_begin():
    seen = batches_begun()
    began = threading.Event()

    def writer() -> None:
        wait_for_batch(seen, timeout=30)
        began.set()

    thread = threading.Thread(target=writer)
    thread.start()
    assert not began.wait(0.1)  # no batch yet: still waiting
    play_blocks(lambda start, stop: None, 10, threads=2)
    thread.join(30)
    assert began.is_set() and batches_begun() > seen
    wait_for_batch(batches_begun(), timeout=0.01)  # no batch comes: the timeout ends it


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 3000), st.integers(1, 4))
def test_every_game_played_once_on_the_threads_asked(n_games, threads):
    played = [0] * n_games
    names: set[str] = set()
    lock = threading.Lock()

    def play(start: int, stop: int) -> None:
        with lock:
            names.add(threading.current_thread().name)
        for g in range(start, stop):
            played[g] += 1

    play_blocks(play, n_games, threads)
    assert played == [1] * n_games
    assert len(names) <= threads


def test_both_threads_play_at_once():
    """Two threads each wait for the other to start a block: only concurrent play ends."""
    barrier = threading.Barrier(2, timeout=10)
    play_blocks(lambda start, stop: barrier.wait(), 2, threads=2)


def test_an_error_in_a_helper_thread_reaches_the_caller():
    def play(start: int, stop: int) -> None:
        if start > 0 and threading.current_thread() is not threading.main_thread():
            raise ValueError(f"block {start}")
        threading.Event().wait(0.05)  # let a helper thread take the later blocks

    with pytest.raises(ValueError, match="block"):
        play_blocks(play, 100, threads=2)


def test_thread_count_checked_and_restored():
    before = get_threads()
    with pytest.raises(SimkitError, match="--threads must be between 1 and"):
        set_threads(available() + 1)
    with pytest.raises(SimkitError, match="not 0"):
        set_threads(0)
    with using(1):
        assert get_threads() == 1
    assert get_threads() == before


def test_the_count_holds_in_every_thread():
    """A run plays in a helper thread (simkit/slices.py): the count set in the main thread
    holds there too (numba's own count was per thread, so `--threads 1` did not)."""
    names: set[str] = set()

    def play(start: int, stop: int) -> None:
        names.add(threading.current_thread().name)

    with using(1):
        helper = threading.Thread(target=play_blocks, args=(play, 64), name="slice")
        helper.start()
        helper.join()
    assert names == {"slice"}
