"""Calling a plug-in strategy from a kernel.

Plug-in strategies (simkit/plugins.py) are separately compiled C functions of signature
`PLUGIN_SIG`; a kernel reaches one through `call_plugin` with its address as data (the
seat's strategy id is minus the address), so a new plug-in never recompiles a kernel.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from simkit.kernels.jit import data_pointer

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
    return _call_address(np.int64(address), data_pointer(opts), np.int64(n),
                         np.int64(opts.shape[1]), data_pointer(pub), np.int64(pub.shape[0]),
                         data_pointer(params), np.int64(params.shape[0]),
                         data_pointer(rng))
