"""How kernels are compiled: with or without numba's reference counting, helpers once per
argument types and without a CPython wrapper, an array's data pointer (for a plug-in's
call), tuples of arrays without reference counts (`uncounted`), work arrays in the
caller's frame (`stack_array`), views of an array's cells built in place (`segment`,
`grid`), and the lowest set bit's index (`trailing_zeros`)."""

from __future__ import annotations

import sys
import types as pytypes

import numpy as np
from numba import carray, njit, types
from numba.core import cgutils, config, event
from numba.core.imputils import impl_ret_borrowed
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

from simkit.kernels.inline_copy import share_scope_when_inlining

share_scope_when_inlining()  # before any kernel compiles


class _KeepFrameChunksWhenCompiling(event.Listener):
    """At the first compile of the process, CPython's frame chunks are kept
    (simkit/kernels/frame_chunks.py), so that the compiler's deep recursion stops mapping
    them again and again. Only then: loading its two functions would cost a warm start
    (nothing to compile) about 90 ms."""

    started = False

    def on_start(self, ev):
        if self.started:
            return
        importing = sys.modules.get("simkit.kernels.frame_chunks")
        if importing is not None and not hasattr(importing, "keep_frame_chunks"):
            return  # its import is compiling its own functions: at the next compile
        self.started = True
        from simkit.kernels.frame_chunks import keep_frame_chunks

        keep_frame_chunks()

    def on_end(self, ev):
        pass


event.register("numba:compile", _KeepFrameChunksWhenCompiling())


class CalledHelper(CPUDispatcher):
    """The dispatcher of a helper the kernels call: one compiled version per argument
    types, not one per constant passed, and none with a CPython wrapper.

    numba types a constant argument by its value (`Literal[int](7)`) and compiles the
    callee again for each: Inori's trace event took 28 versions and its option row 24.
    A helper never needs a constant's value (LLVM still sees it wherever it inlines the
    call), so the constants are typed as plain integers here.
    """

    def get_call_template(self, args, kws):
        return super().get_call_template(
            tuple(types.unliteral(a) for a in args),
            {k: types.unliteral(v) for k, v in kws.items()})

    def __call__(self, *args, **kws):
        """A call from Python (a test, a notebook) goes to a twin compiled with the
        CPython wrapper that the kernels' versions leave out."""
        twin = self.__dict__.get("_from_python")
        if twin is None:
            fn = self.py_func
            copy = pytypes.FunctionType(fn.__code__, fn.__globals__, fn.__name__,
                                        fn.__defaults__, fn.__closure__)
            copy.__qualname__ = f"{fn.__qualname__}.from_python"  # a cache file of its own
            copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
            twin = njit(cache=True, _nrt=self.targetoptions["_nrt"],
                        no_cfunc_wrapper=True)(copy)
            self._from_python = twin
        return twin(*args, **kws)


def _helper(fn, nrt: bool):
    # Neither wrapper numba adds to every function: kernels call helpers directly, and
    # Python calls reach a twin (CalledHelper.__call__). The CPython wrapper was about a
    # tenth of a first compile; the C-callable one serves only first-class function values.
    dispatcher = njit(cache=True, _nrt=nrt, no_cfunc_wrapper=True,
                      no_cpython_wrapper=True)(fn)
    if isinstance(dispatcher, CPUDispatcher):  # not the plain function NUMBA_DISABLE_JIT gives
        dispatcher.__class__ = CalledHelper  # numba's decorators take no dispatcher class
    return dispatcher


def njit_without_refcounts(fn):
    """@njit(cache=True) for a game's turn loop (`play_game`): compiled without numba's
    reference counting.

    numba counts references to every array a function holds, with a call into its runtime
    at each copy and end of use; in the Inori turn loop those calls and the registers they
    clobber took about 40% of a game. Without counting, the loop and the functions it calls
    must not allocate arrays: numba refuses to compile one that does ("Only accept
    returning of array passed into the function"). A function that allocates and is called
    from such a loop takes `njit_with_refcounts`. Mark the loop's other helpers with this
    one: an unmarked function takes the mode of whichever caller happens to compile it
    first.

    Inlining: a helper marked with this is compiled once and called, and LLVM inlines the
    small ones where they are called (the same machine code as numba's inlining). Keep
    numba's `inline="always"` for the turn's large steps, each inlined at one or two
    places, where a call's dozens of array arguments would cost more than the work: numba
    copies a function's whole IR at every place it inlines it, at a cost that grows with
    the square of its size (Inori's loop with every helper inlined took 4 minutes and
    2 GB to compile; docs/speed.md).
    """
    return _helper(fn, nrt=False)


def njit_with_refcounts(fn):
    """@njit(cache=True) for a function that allocates arrays (a rollout or search
    player's copies of the state) and is called from an `njit_without_refcounts` loop:
    without it, it would inherit the loop's mode and not compile. A work array of a
    fixed size needs neither: `stack_array`."""
    return _helper(fn, nrt=True)


@intrinsic
def data_pointer(typingctx, arr):
    """The data pointer of a C-contiguous array."""
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


def uncounted(t):
    """`t` (a tuple of arrays: the rule tables, a decision's state, a player's work
    arrays), its C-contiguous writable arrays as views without reference counts; nested
    tuples likewise; anything else as it is.

    For the lookahead players, which count references because they allocate: numba counts
    every array it reads out of a tuple (an atomic add and subtract), and a playout reads
    the tables, the state and its work arrays at every step. Counted, they took about 60%
    of the search player's time (docs/decisions.md). The caller keeps what the views are
    of alive while they are used: an argument is, until its function returns; an array
    made inside the function, until `keep_alive`. Plain Python (NUMBA_DISABLE_JIT) counts
    nothing: `t` itself."""
    return t


@overload(uncounted)
def _uncounted(t):
    if not isinstance(t, types.BaseTuple):
        return None
    fields = []
    for i, ty in enumerate(t.types):
        if isinstance(ty, types.Array) and ty == types.Array(ty.dtype, ty.ndim, "C"):
            # C-contiguous, writable and aligned: its view has its own numba type
            fields.append(f"carray(data_pointer(t[{i}]), t[{i}].shape)")
        elif isinstance(ty, types.BaseTuple):
            fields.append(f"uncounted(t[{i}])")
        else:
            fields.append(f"t[{i}]")
    if isinstance(t, types.BaseNamedTuple):
        made = f"make({', '.join(fields)})"
    else:
        made = f"({', '.join(fields)}{',' if len(fields) == 1 else ''})"
    scope = {"carray": carray, "data_pointer": data_pointer, "uncounted": uncounted,
             "make": getattr(t, "instance_class", None)}
    exec(f"def impl(t):\n    return {made}\n", scope)  # noqa: S102 (source built above)
    return scope["impl"]


@intrinsic
def stack_array(typingctx, n, dtype):
    """A work array of `n` items of `dtype` in the calling function's stack frame, not
    yet written (as `np.empty`): no allocation and no reference count. It lives until that
    function returns, so it must not be returned or kept; a call in a loop gives the same
    array each time. `n` is a constant numba knows the value of: a literal or a
    module-level name (`MAX_HAND` imported, not `L.MAX_HAND`, which numba types as any
    integer).

    For a player called at every step of every playout (a planner's hand and gain
    table): its `np.zeros` took about a tenth of Carnuta's search player's time in
    numba's allocator (docs/decisions.md)."""
    if not isinstance(n, types.IntegerLiteral):
        return None  # numba retries with the constant's value in its type
    item = dtype.dtype if isinstance(dtype, types.DType) else dtype.instance_type
    array = types.Array(item, 1, "C")

    def codegen(context, builder, signature, args):
        # In the entry block, so a call inside a loop reuses the same bytes.
        llty = context.get_data_type(item)
        size = context.get_constant(types.intp, n.literal_value)
        data = cgutils.alloca_once(builder, llty, size=size)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(llty))
        made = context.make_array(array)(context, builder)
        context.populate_array(made, data=data, shape=[size], strides=[itemsize],
                               itemsize=itemsize, meminfo=None)
        return made._getvalue()

    return array(n, dtype), codegen


# Views of a 1-D array's cells, built in place: a slice clamps its bounds at every view
# and a `reshape` calls numba's runtime (numba_attempt_nocopy_reshape), which a view made
# at every step of a turn loop pays each time (Inori's piles and work slots in `hid`,
# docs/decisions.md). The bounds are the caller's, as unchecked as an index.
if config.DISABLE_JIT:  # numba's intrinsics cannot run as plain Python (README: debugging)
    def segment(a, start, n):
        """a[start:start + n] of the C-contiguous 1-D array `a`, the same memory."""
        return a[start:start + n]

    def grid(a, start, n_rows, n_cols):
        """a[start:start + n_rows * n_cols] as n_rows x n_cols, the same memory."""
        return a[start:start + n_rows * n_cols].reshape((n_rows, n_cols))
else:
    def _view(context, builder, signature, args, shape):
        """The view of args[0] from args[1] on, of `shape` (values of args[2:])."""
        src_ty, start_ty = signature.args[0], signature.args[1]
        intp = types.intp
        src = context.make_array(src_ty)(context, builder, args[0])
        dims = [context.cast(builder, v, ty, intp)
                for v, ty in zip(args[2:], signature.args[2:], strict=True)]
        start = context.cast(builder, args[1], start_ty, intp)
        item = context.get_constant(intp, context.get_abi_sizeof(
            context.get_data_type(src_ty.dtype)))
        strides = [item]
        for d in reversed(dims[1:]):
            strides.insert(0, builder.mul(strides[0], d))
        out = context.make_array(signature.return_type)(context, builder)
        populate_array(out, data=builder.gep(src.data, [start]), shape=dims, strides=strides,
                       itemsize=item, meminfo=src.meminfo)
        return impl_ret_borrowed(context, builder, signature.return_type, out._getvalue())

    @intrinsic
    def segment(typingctx, a, start, n):
        """a[start:start + n] of the C-contiguous 1-D array `a`, the same memory."""
        if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"):
            return None
        return types.Array(a.dtype, 1, "C")(a, start, n), \
            lambda context, builder, sig, args: _view(context, builder, sig, args, 1)

    @intrinsic
    def grid(typingctx, a, start, n_rows, n_cols):
        """a[start:start + n_rows * n_cols] as n_rows x n_cols, the same memory."""
        if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"):
            return None
        return types.Array(a.dtype, 2, "C")(a, start, n_rows, n_cols), \
            lambda context, builder, sig, args: _view(context, builder, sig, args, 2)


@njit(cache=True)
def keep_alive(*arrays):
    """Marks `arrays` as used here, so numba keeps them alive until this point (it frees an
    array after its last use, which would leave `uncounted` views of it dangling)."""
    return len(arrays)


if config.DISABLE_JIT:  # numba's intrinsic cannot run as plain Python (README: debugging)
    def stack_array(n, dtype):
        """Plain Python: a new array."""
        return np.empty(n, dtype)

    def trailing_zeros(x):
        """The index of the lowest set bit of `x` (x > 0)."""
        x = int(x)
        return (x & -x).bit_length() - 1
else:
    from numba.cpython.unsafe.numbers import trailing_zeros  # noqa: F401 (re-exported)
