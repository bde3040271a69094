"""Counter-based randomness: splitmix64 seed derivation and an in-kernel generator.

Every game's randomness derives from (master seed, game index) alone, so results do not
depend on thread count, chunk size or worker. Each game uses independent streams: stream 0
deals the cards, stream 1 + seat drives that seat's strategy. The Python twins at the
bottom reproduce the compiled functions bit for bit (the reference implementation uses them).

All arithmetic stays in uint64 (mixing in an int64 would silently give float64 in numba).
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 finaliser: a bijective scramble of 64 bits."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def game_seed(master: np.uint64, index: np.uint64) -> np.uint64:
    """Seed of game `index` of a run with seed `master`."""
    return mix64(mix64(master) + GOLDEN * (index + np.uint64(1)))


@njit(cache=True, inline="always")
def stream_state(seed: np.uint64, stream: np.uint64) -> np.uint64:
    """Initial state of sub-stream `stream` of a game."""
    return mix64(seed ^ mix64(stream + np.uint64(0x5EED)))


@njit(cache=True, inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance a one-element uint64 state array and return 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@njit(cache=True, inline="always")
def randint(state: np.ndarray, n: np.int64) -> np.int64:
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift on the top 32 bits)."""
    return np.int64(((next_u64(state) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def seat_stream(rngs, p):
    """Seat p's strategy stream: row 1 + p of a game's streams (rows: the deal, then one
    per seat), or the only row of a playout's, which stands for every stream."""
    return rngs[1 + p] if rngs.shape[0] > 1 else rngs[0]


# ---- plain-Python twins (for the reference implementation and tooling) ----
_MASK = (1 << 64) - 1
_G, _P1, _P2 = int(GOLDEN), int(_M1), int(_M2)


def py_mix64(z: int) -> int:
    z &= _MASK
    z = ((z ^ (z >> 30)) * _P1) & _MASK
    z = ((z ^ (z >> 27)) * _P2) & _MASK
    return z ^ (z >> 31)


def py_game_seed(master: int, index: int) -> int:
    return py_mix64((py_mix64(master) + _G * (index + 1)) & _MASK)


def py_stream_state(seed: int, stream: int) -> int:
    return py_mix64(seed ^ py_mix64(stream + 0x5EED))


class PyStream:
    """Python twin of the in-kernel generator."""

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next_u64(self) -> int:
        self.state = (self.state + _G) & _MASK
        return py_mix64(self.state)

    def randint(self, n: int) -> int:
        return ((self.next_u64() >> 32) * n) >> 32
