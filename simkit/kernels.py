"""Compiled pieces every game's kernel shares: seating a run's strategies, and tracing.

Each kernel still has its own short `simulate_batch` and `play_traced` loops: sharing
them would mean passing `play_game` as a function argument, which makes numba recompile
per game and defeats the on-disk cache (DESIGN.md, Numba notes).

Trace buffers (one traced game, for `simkit play` and the differential tests):

    decisions   int32[D, 6]   round, seat, kind of decision, options, chosen row,
                              index of its first row in `options`
    options     int32[O, C]   the option rows offered at each decision (C = table width)
    events      int32[E, 6]   round, event code, seat, a, b, c (codes: the game's layout)
    counts      int64[3]      decisions, option rows and events recorded

Plug-in strategies (simkit/plugins.py) are separately compiled C functions of signature
`PLUGIN_SIG`; a kernel reaches one through `call_plugin` with its address as data (the
seat's strategy id is minus the address), so a new plug-in never recompiles a kernel.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.extending import intrinsic

from simkit.rng import game_seed


def njit_without_refcounts(fn):
    """@njit(cache=True) for a game's turn loop (`play_game`): compiled without numba's
    reference counting.

    numba counts references to every array a function holds, with a call into its runtime
    at each copy and end of use, even for the uncounted views of `unowned`; in the Inori
    turn loop those calls and the registers they clobber took about 40% of a game. Without
    counting, the loop and the functions it calls must not allocate arrays: numba refuses
    to compile one that does ("Only accept returning of array passed into the function").
    A function that allocates and is called from such a loop takes
    `njit_with_refcounts`. Mark the loop's other helpers with this one: an unmarked
    function takes the mode of whichever caller happens to compile it first.
    """
    return njit(cache=True, _nrt=False)(fn)


def njit_with_refcounts(fn):
    """@njit(cache=True) for a function that allocates arrays (a planner's work array, a
    rollout's copies of the state) and is called from an `njit_without_refcounts` loop:
    without it, it would inherit the loop's mode and not compile."""
    return njit(cache=True, _nrt=True)(fn)


MAX_DECISIONS = 4096
MAX_TRACED_OPTIONS = 1 << 17
MAX_EVENTS = 8192


def new_trace(n_cols: int) -> tuple:
    """Buffers for one traced game whose option tables are `n_cols` wide."""
    return (
        np.zeros((MAX_DECISIONS, 6), np.int32),
        np.zeros((MAX_TRACED_OPTIONS, n_cols), np.int32),
        np.zeros((MAX_EVENTS, 6), np.int32),
        np.zeros(3, np.int64),
    )


@njit(cache=True)
def new_trace_stub(n_cols):
    """Empty buffers of the same types, for untraced play."""
    return (
        np.zeros((1, 6), np.int32),
        np.zeros((1, n_cols), np.int32),
        np.zeros((1, 6), np.int32),
        np.zeros(3, np.int64),
    )


@njit(cache=True, inline="always")
def record_event(trace, tracing, rnd, event, seat, a, b, c):
    """Append one event to the trace (a no-op when not tracing or when full)."""
    if not tracing:
        return
    i = trace[3][2]
    if i < trace[2].shape[0]:
        ev = trace[2]
        ev[i, 0] = rnd
        ev[i, 1] = event
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        trace[3][2] = i + 1


@njit(cache=True, inline="always")
def record_decision(trace, tracing, rnd, seat, kind, opts, n, chosen):
    """Append one decision (of a game-defined `kind`) and its option rows."""
    if not tracing:
        return
    d = trace[3][0]
    o = trace[3][1]
    if d >= trace[0].shape[0] or o + n > trace[1].shape[0]:
        return
    dec = trace[0]
    dec[d, 0] = rnd
    dec[d, 1] = seat
    dec[d, 2] = kind
    dec[d, 3] = n
    dec[d, 4] = chosen
    dec[d, 5] = o
    for i in range(n):
        for col in range(trace[1].shape[1]):
            trace[1][o + i, col] = opts[i, col]
    trace[3][0] = d + 1
    trace[3][1] = o + n


@njit(cache=True, inline="always")
def playout_value(keys, points, seat, n_players):
    """What a playout is worth to `seat` (every game's rollout player scores its playouts
    so): its win share by `keys` (higher ranks first, equal keys share the win) plus 0.001
    per point of `points` over the best other seat."""
    better = 0
    level = 0
    best_other = -(1 << 30)
    for q in range(n_players):
        if q == seat:
            continue
        better += keys[q] > keys[seat]
        level += keys[q] == keys[seat]
        best_other = max(best_other, points[q])
    value = 0.001 * (points[seat] - best_other)
    if better == 0:
        value += 1.0 / (level + 1)
    return value


@njit(cache=True)
def canonical(src, lo, hi, dst):
    """dst[:hi - lo] = the cards src[lo:hi] sorted: what a lookahead player may know of a
    hidden pile is its contents, not its order. Returns hi - lo."""
    m = max(hi - lo, 0)
    dst[:m] = np.sort(src[lo:lo + m])
    return m


@njit(cache=True)
def seat_buffers(n_players, strategy_params):
    """The (strategy ids, strategy parameters) arrays prepare_game fills, one per thread."""
    return (np.empty(n_players, np.int64),
            np.empty((n_players, strategy_params.shape[1]), np.float64))


@njit(cache=True)
def prepare_game(n_players, master_seed, game, lineup, rotate, strategy_ids, strategy_params,
                 strategy_out, row, sids, params):
    """Seed of game `game` of a run; fills each seat's strategy id and params into sids
    and params (seat_buffers: reused across games, not allocated per game).

    When `rotate`, the run's strategies rotate through the seats over each deal: games
    n*d .. n*d + n-1 share deal d (common random numbers), game n*d + r shifting by r.
    Writes each seat's strategy index into strategy_out[row].
    """
    deal = game // n_players if rotate else game
    shift = game % n_players if rotate else 0
    for s in range(n_players):
        index = lineup[(s + shift) % n_players]
        sids[s] = strategy_ids[index]
        params[s] = strategy_params[index]
        strategy_out[row, s] = index
    return game_seed(np.uint64(master_seed), np.uint64(deal))


@intrinsic
def _data_pointer(typingctx, arr):
    """The data pointer of a C-contiguous array."""
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


@njit(cache=True, inline="always")
def unowned(a):
    """A view of C-contiguous `a` without a reference count, for hot loops.

    numba counts references to every array passed to a function (an atomic add and
    subtract per array and call); in a game's turn loop that was half the time, and with
    two threads the shared counts bounce between cores. A view without a count skips that.
    The caller must keep `a` itself alive (referenced) for as long as the view is used.
    """
    return carray(_data_pointer(a), a.shape)


@njit(cache=True)
def keep_alive(*arrays):
    """Marks `arrays` as used here, so numba keeps them alive until this point (it frees an
    array after its last use, which would leave `unowned` views of it dangling)."""
    return len(arrays)


# A plug-in's C signature: opts, n, n_cols, pub, pub_len, params, n_params, rng state.
PLUGIN_SIG = types.int64(types.CPointer(types.int32), types.int64, types.int64,
                         types.CPointer(types.int32), types.int64,
                         types.CPointer(types.float64), types.int64,
                         types.CPointer(types.uint64))


@intrinsic
def _call_address(typingctx, address, opts, n, n_cols, pub, pub_len, params, n_params, rng):
    """Call the C function at integer `address` with PLUGIN_SIG's arguments."""
    sig = types.int64(address, *PLUGIN_SIG.args)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64),
                               [context.get_value_type(a) for a in PLUGIN_SIG.args])
        return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), args[1:])

    return sig, codegen


@njit(cache=True, inline="always")
def call_plugin(address, opts, n, pub, params, rng):
    """Ask the plug-in compiled at `address` for a row of `opts[:n]` (arrays C-contiguous)."""
    return _call_address(np.int64(address), _data_pointer(opts), np.int64(n),
                         np.int64(opts.shape[1]), _data_pointer(pub), np.int64(pub.shape[0]),
                         _data_pointer(params), np.int64(params.shape[0]),
                         _data_pointer(rng))
