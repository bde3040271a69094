"""Trace buffers: one traced game's decisions, option rows and events, for `simkit play`
and the differential tests.

    decisions   int32[D, 6]   round, seat, kind of decision, options, chosen row,
                              index of its first row in `options`
    options     int32[O, C]   the option rows offered at each decision (C = table width)
    events      int32[E, 6]   round, event code, seat, a, b, c (codes: the game's layout)
    counts      int64[3]      decisions, option rows and events recorded (indices
                              N_DECISIONS, N_OPTIONS, N_EVENTS)

Batch play passes a stub of the same types with `tracing` false, so one compiled function
serves both (a game's `simulate_batch` plays one traced game as readily as a million).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from simkit.kernels.jit import njit_without_refcounts

MAX_DECISIONS = 4096
MAX_TRACED_OPTIONS = 1 << 17
MAX_EVENTS = 8192
N_DECISIONS, N_OPTIONS, N_EVENTS = range(3)  # what `counts` counts


class Trace(NamedTuple):
    """The buffers above (numba compiles them as a tuple with named fields)."""

    decisions: np.ndarray
    options: np.ndarray
    events: np.ndarray
    counts: np.ndarray


def new_trace(n_cols: int) -> Trace:
    """Buffers for one traced game whose option tables are `n_cols` wide."""
    return Trace(
        np.zeros((MAX_DECISIONS, 6), np.int32),
        np.zeros((MAX_TRACED_OPTIONS, n_cols), np.int32),
        np.zeros((MAX_EVENTS, 6), np.int32),
        np.zeros(3, np.int64),
    )


def trace_stub(n_cols: int) -> Trace:
    """`new_trace_stub` from Python: what batch play passes with `tracing` false."""
    return Trace(np.zeros((1, 6), np.int32), np.zeros((1, n_cols), np.int32),
                 np.zeros((1, 6), np.int32), np.zeros(3, np.int64))


@njit(cache=True)
def new_trace_stub(n_cols):
    """Empty buffers of the same types, for untraced play."""
    return Trace(
        np.zeros((1, 6), np.int32),
        np.zeros((1, n_cols), np.int32),
        np.zeros((1, 6), np.int32),
        np.zeros(3, np.int64),
    )


@njit_without_refcounts
def record_event(trace, tracing, rnd, event, seat, a, b, c):
    """Append one event to the trace (a no-op when not tracing or when full).

    Compiled once and called: LLVM inlines the test of `tracing` where an event happens,
    and the append stays out of line. The rules record dozens of events, and numba's own
    inlining at each of them made compiling a game's loop minutes longer."""
    if tracing:
        append_event(trace, rnd, event, seat, a, b, c)


@njit_without_refcounts
def append_event(trace, rnd, event, seat, a, b, c):
    """record_event's append."""
    i = trace.counts[N_EVENTS]
    if i < trace.events.shape[0]:
        ev = trace.events
        ev[i, 0] = rnd
        ev[i, 1] = event
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        trace.counts[N_EVENTS] = i + 1


@njit(cache=True, inline="always")
def record_decision(trace, tracing, rnd, seat, kind, opts, n, chosen):
    """Append one decision (of a game-defined `kind`) and its option rows."""
    if not tracing:
        return
    d = trace.counts[N_DECISIONS]
    o = trace.counts[N_OPTIONS]
    if d >= trace.decisions.shape[0] or o + n > trace.options.shape[0]:
        return
    dec = trace.decisions
    dec[d, 0] = rnd
    dec[d, 1] = seat
    dec[d, 2] = kind
    dec[d, 3] = n
    dec[d, 4] = chosen
    dec[d, 5] = o
    for i in range(n):
        for col in range(trace.options.shape[1]):
            trace.options[o + i, col] = opts[i, col]
    trace.counts[N_DECISIONS] = d + 1
    trace.counts[N_OPTIONS] = o + n
