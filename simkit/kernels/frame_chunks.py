"""Keep a few of CPython's frame-stack chunks instead of unmapping and mapping them again.

CPython 3.11 and 3.12 keep a thread's Python frames in 16 KiB chunks. When a call does
not fit, a new chunk is mapped (mmap), and it is unmapped as soon as that call returns, so
a loop that calls across the boundary maps and unmaps a chunk on every call
(python/cpython#142183; 3.13 and 3.14 keep one chunk since). numba's compiler recurses
across such boundaries all the time: a cold compile of the Inori kernel mapped a chunk
about a million times, some 10 of its 65 CPU-seconds, all of it in the kernel's memory
management (`strace -c`, docs/speed.md).

`keep_frame_chunks()` puts a small cache in front of the interpreter's arena allocator
(`PyObject_SetArenaAllocator`, public C API), which maps both these chunks and obmalloc's
arenas: a freed block of a chunk's size is kept (up to KEEP of them) and handed out again;
everything else goes to the allocator as before. The two functions are numba `cfunc`s,
so they run without the interpreter (they are called while it allocates a frame).
"""

from __future__ import annotations

import atexit
import ctypes
import sys

import numpy as np
from llvmlite import ir
from numba import carray, cfunc, types
from numba.extending import intrinsic

CHUNK = 16 * 1024  # CPython's DATA_STACK_CHUNK_SIZE; obmalloc's arenas are larger
KEEP = 8  # freed chunks kept: 128 KiB at most
CTX, ALLOC, FREE, COUNT, SLOTS = range(5)  # the state: the allocator before, then the cache
STATE_SIZE = SLOTS + KEEP

_BYTE_PTR = ir.IntType(8).as_pointer()


@intrinsic
def _pointer(typingctx, address):
    """The uint64 `address` as a void pointer."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], _BYTE_PTR)
    return types.voidptr(types.uint64), codegen


@intrinsic
def _address(typingctx, pointer):
    """The void `pointer` as a uint64 address."""
    def codegen(context, builder, signature, args):
        return builder.ptrtoint(args[0], ir.IntType(64))
    return types.uint64(types.voidptr), codegen


@intrinsic
def _call_alloc(typingctx, function, ctx, size):
    """Call the C function at address `function`: void *alloc(void *ctx, size_t size)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(_BYTE_PTR, [_BYTE_PTR, ir.IntType(64)])
        return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), [args[1], args[2]])
    return types.voidptr(types.uint64, types.voidptr, types.uintp), codegen


@intrinsic
def _call_free(typingctx, function, ctx, pointer, size):
    """Call the C function at address `function`: void free(void *ctx, void *p, size_t)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [_BYTE_PTR, _BYTE_PTR, ir.IntType(64)])
        builder.call(builder.inttoptr(args[0], fnty.as_pointer()), list(args[1:]))
        return context.get_dummy_value()
    return types.void(types.uint64, types.voidptr, types.voidptr, types.uintp), codegen


@cfunc(types.voidptr(types.voidptr, types.uintp), cache=True)
def _alloc(ctx, size):
    state = carray(ctx, STATE_SIZE, dtype=np.uint64)
    if size == CHUNK and state[COUNT] > 0:
        state[COUNT] -= 1
        return _pointer(state[SLOTS + state[COUNT]])
    return _call_alloc(state[ALLOC], _pointer(state[CTX]), size)


@cfunc(types.void(types.voidptr, types.voidptr, types.uintp), cache=True)
def _free(ctx, pointer, size):
    state = carray(ctx, STATE_SIZE, dtype=np.uint64)
    if size == CHUNK and state[COUNT] < KEEP:
        state[SLOTS + state[COUNT]] = _address(pointer)
        state[COUNT] += 1
    else:
        _call_free(state[FREE], _pointer(state[CTX]), pointer, size)


class _ArenaAllocator(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("alloc", ctypes.c_void_p),
                ("free", ctypes.c_void_p)]


_state = np.zeros(STATE_SIZE, np.uint64)  # lives as long as the interpreter


def _current() -> _ArenaAllocator:
    allocator = _ArenaAllocator()
    ctypes.pythonapi.PyObject_GetArenaAllocator(ctypes.byref(allocator))
    return allocator


def _set(allocator: _ArenaAllocator) -> None:
    ctypes.pythonapi.PyObject_SetArenaAllocator(ctypes.byref(allocator))


def keep_frame_chunks() -> bool:
    """Put the cache in front of the arena allocator (once; CPython before 3.13 only).
    True if it is in place."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 13):
        return False
    if installed():
        return True
    before = _current()
    _state[CTX], _state[ALLOC], _state[FREE] = before.ctx or 0, before.alloc, before.free
    _set(_ArenaAllocator(_state.ctypes.data, _alloc.address, _free.address))
    # Put the allocator back before the interpreter tears down its modules, `_state` and
    # the compiled functions among them: it frees arenas and chunks until its very end.
    atexit.register(restore)
    return True


def installed() -> bool:
    """Whether the interpreter allocates through the cache."""
    return _current().alloc == _alloc.address


def restore() -> None:
    """The allocator as it was before `keep_frame_chunks` (the kept chunks stay mapped,
    owned by the cache, until it is put back)."""
    if installed():
        _set(_ArenaAllocator(int(_state[CTX]) or None, int(_state[ALLOC]),
                             int(_state[FREE])))
