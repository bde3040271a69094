"""Shuffling an array in a kernel on a seat's or the deal's stream (simkit/rng.py).

Apart from rng.py, which is numba alone: shuffle is a helper the kernels call, compiled
once per argument types without reference counts (simkit/kernels/jit.py)."""

from __future__ import annotations

from simkit.kernels.jit import njit_without_refcounts
from simkit.rng import randint


@njit_without_refcounts
def shuffle(arr, n, rng):
    """Fisher-Yates over arr[:n], last position first, on stream `rng`."""
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        arr[i], arr[j] = arr[j], arr[i]
