"""How simkit compiles kernels: numba's inliner patched to copy a function once, helpers
compiled once per argument types and without a CPython wrapper, and CPython's frame chunks
kept (simkit/kernels/inline_copy.py, jit.py, frame_chunks.py)."""

from __future__ import annotations

import importlib
import os
import re
import resource
import subprocess
import sys
from typing import NamedTuple

import numpy as np
import pytest
from numba import njit
from numba.core import inline_closurecall
from numba.core.errors import TypingError

from simkit.kernels import frame_chunks
from simkit.kernels.inline_copy import share_scope_when_inlining
from simkit.kernels.jit import CalledHelper, njit_without_refcounts, stack_array, uncounted


def _callee(a, k):
    s = 0
    for i in range(a.shape[0]):
        if a[i] > k:
            s += a[i]
        elif a[i] == k:
            s -= 1
        else:
            while s > 100:
                s //= 2
    return s


VALUES = np.arange(-50, 250, 7)


def _caller(a):
    return callee(a, 3) * 7 + callee(a, 5)  # noqa: F821 - bound per compile below


def _compiled_caller() -> tuple[int, str]:
    """_caller compiled afresh with _callee inlined at both places: its result and its
    LLVM IR, with the names a process numbers (labels, inlined variables) made neutral."""
    fn = type(_caller)(_caller.__code__, {"callee": njit(inline="always")(_callee)})
    compiled = njit(fn)
    result = compiled(VALUES)
    text = next(iter(compiled.inspect_llvm().values()))
    text = re.sub(r"0x[0-9a-f]+|\.bytes\.-?\d+|B\d+v\d+B\w+", "X", text)
    text = re.sub(r" +", " ", re.sub(r"_v\d+_", "_v_", text))
    labels: dict[str, str] = {}
    return result, re.sub(r"\bB\d+", lambda m: labels.setdefault(m.group(), f"L{len(labels)}"),
                          text)


def test_the_patched_inliner_makes_the_same_machine_code(monkeypatch):
    if not share_scope_when_inlining():
        pytest.skip("this numba's inliner is not the one the patch knows: left as it is")
    patched = inline_closurecall.InlineWorker.inline_ir
    assert patched.shares_scope
    with_patch = _compiled_caller()
    monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_ir", patched.original)
    without = _compiled_caller()
    assert with_patch[0] == without[0] == _callee(VALUES, 3) * 7 + _callee(VALUES, 5)
    assert with_patch[1] == without[1]


@njit_without_refcounts
def _shift(values, by):
    return values[0] + by


@njit  # not cached: loaded from the cache, it would never ask for _shift's versions
def _shifts(values):
    return _shift(values, 1) + _shift(values, 2) + _shift(values, np.int32(3))


def test_a_helper_compiles_once_per_argument_types_not_per_constant():
    values = np.array([10, 20], np.int64)
    assert isinstance(_shift, CalledHelper)
    assert _shifts(values) == 36
    # The constants 1 and 2 share one version (int64); the int32 takes another.
    assert len(_shift.overloads) == 2


def test_python_calls_a_helper_through_a_twin_with_the_wrapper():
    """The kernels' versions of a helper have no CPython wrapper (a tenth of a first
    compile); Python's calls go to a twin compiled with one, cached in a file of its own."""
    values = np.array([10, 20], np.int64)
    assert _shift.targetoptions["no_cpython_wrapper"]
    assert _shift(values, 5) == 15
    twin = _shift.__dict__["_from_python"]
    assert not isinstance(twin, CalledHelper) and not twin.targetoptions.get(
        "no_cpython_wrapper")
    assert twin.py_func.__qualname__ == "_shift.from_python"
    assert _shift(values, 7) == 17 and _shift.__dict__["_from_python"] is twin
    with pytest.raises(TypingError):
        _shift("not an array", 1)  # an error, not a crash


_PLAY_TWO = """
import hashlib, sys, numpy as np
from simkit.engine import build_lineup
from simkit.games import get_game
game = get_game(sys.argv[1])
compiled = game.compile(game.load_config())
columns = game.simulate(compiled, build_lineup(game, ["greedy", "random"], 2), 5, 0, 2)
digest = hashlib.sha256()
for key in sorted(columns):
    digest.update(key.encode() + np.ascontiguousarray(columns[key]).tobytes())
print(digest.hexdigest())
"""


@pytest.mark.parametrize("game", ["cauldron-master", "carnuta", "inori"])
def test_plain_python_plays_the_same_games(game):
    """NUMBA_DISABLE_JIT=1 (README: debugging) runs every built-in game's kernels, helpers
    and numba intrinsics included, as plain Python, with the same results as the compiled
    ones."""
    def play(disable: str) -> str:
        env = os.environ | {"NUMBA_DISABLE_JIT": disable}
        done = subprocess.run([sys.executable, "-c", _PLAY_TWO, game], env=env, text=True,
                              capture_output=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip().splitlines()[-1]

    assert play("1") == play("0")


def _leaf(a=0, b=0, c=0, d=0):
    x = y = z = 0
    return a + x + y + z


def _down(n: int, calls: int) -> None:
    """Recurse n deep, then call _leaf `calls` times there."""
    if n == 0:
        for _ in range(calls):
            _leaf()
        return
    _down(n - 1, calls)


def _page_faults_calling_at_every_depth() -> int:
    """Minor page faults of this thread while it calls _leaf 200 times at each depth to
    400: at a depth where _leaf's frame does not fit the chunk, each call needs a new one
    (a new mapping is a page fault when first written; a kept chunk is not)."""
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    for depth in range(400):
        _down(depth, 200)
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before


_FIRST_COMPILE = """
import sys
import simkit.kernels.jit
from numba import njit
loaded = "simkit.kernels.frame_chunks" in sys.modules
njit(lambda x: x + 1)(1)  # a compile: not cached
from simkit.kernels import frame_chunks
print(loaded, frame_chunks.installed())
"""


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="CPython keeps a chunk itself")
def test_frame_chunks_kept_from_the_first_compile_not_at_import():
    """A warm start compiles nothing and does not load the cache's functions."""
    done = subprocess.run([sys.executable, "-c", _FIRST_COMPILE], text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "True"]


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="CPython keeps a chunk itself")
def test_frame_chunks_are_kept_not_mapped_again():
    frame_chunks.keep_frame_chunks()  # as the first compile of a process does
    with_cache = _page_faults_calling_at_every_depth()
    frame_chunks.restore()
    try:
        assert not frame_chunks.installed()
        without = _page_faults_calling_at_every_depth()
    finally:
        assert frame_chunks.keep_frame_chunks()
    assert without > 1000  # hundreds of calls at each boundary, a new mapping each
    assert with_cache < without / 20


_EXIT = """
import atexit, sys
# Registered first, so it runs last of the exit functions: after frame_chunks' own.
atexit.register(lambda: print("at exit:", sys.modules["simkit.kernels.frame_chunks"]
                              .installed()))
from simkit.kernels import frame_chunks
print("running:", frame_chunks.keep_frame_chunks() and frame_chunks.installed())
"""


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="CPython keeps a chunk itself")
def test_the_allocator_is_put_back_before_the_interpreter_ends():
    """The interpreter frees arenas and chunks until its very end, after it has torn down
    the cache's state: the allocator must be its own again by then (a crash at exit in
    one run of three, before)."""
    done = subprocess.run([sys.executable, "-c", _EXIT], text=True, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["running:", "True", "at", "exit:", "False"]


def test_numba_lets_a_caller_keep_its_callees_as_compiled():
    """The wrapper of numba's private `_optimize_final_module` is in place on this numba
    (Inori's batch relies on it for its speed: a numba that drops the method fails here,
    not silently 10% slower)."""
    from numba.core import codegen

    from simkit.kernels.as_compiled import skip_reoptimising_kept

    assert skip_reoptimising_kept()
    wrapper = codegen.CPUCodeLibrary._optimize_final_module
    assert wrapper.skips_kept and wrapper.original is not wrapper
    assert skip_reoptimising_kept()  # wrapped once, not around itself
    assert codegen.CPUCodeLibrary._optimize_final_module is wrapper


def test_a_kept_function_runs_its_callees_as_their_own_compile_left_them():
    """keep_callees_as_compiled: numba's module passes over the caller's library (which
    would inline a small callee into it) are skipped for that caller only, and the
    results are the same."""
    from simkit.kernels.as_compiled import KEPT, keep_callees_as_compiled

    def make_caller(name):
        @njit
        def twice(x):
            return 2 * x

        def caller(x):
            return twice(x) + 1
        caller.__qualname__ = name
        return njit(caller)

    kept, plain = make_caller("kept_caller_of_twice"), make_caller("plain_caller_of_twice")
    assert keep_callees_as_compiled("kept_caller_of_twice")
    try:
        assert kept(4) == plain(4) == 9
        assert kept(-7) == plain(-7) == -13
        ir_kept = kept.inspect_llvm(kept.signatures[0])
        ir_plain = plain.inspect_llvm(plain.signatures[0])
    finally:
        KEPT.discard("kept_caller_of_twice")
    assert re.search(r"call .*5twice", ir_kept)  # left a call, as linked
    assert not re.search(r"call .*5twice", ir_plain)  # inlined by the module passes


def test_cauldron_master_keeps_its_turn_loop_as_compiled_in_its_batch():
    """Cauldron Master's play.py asks for it (bind's `reoptimise_batch=False`), under the
    name numba gives simulate_batch's library; Carnuta's and Inori's batches re-optimise
    (Inori's since its rules took the API's signatures: simkit/games/inori/play.py)."""
    from simkit.kernels.as_compiled import KEPT

    names = {game: importlib.import_module(f"simkit.games.{game}.play").simulate_batch
             .py_func.__qualname__ for game in ("inori", "cauldron_master", "carnuta")}
    assert names["cauldron_master"] in KEPT
    assert names["carnuta"] not in KEPT and names["inori"] not in KEPT


class _Tables(NamedTuple):
    card: np.ndarray
    rows: np.ndarray
    fixed: np.ndarray
    size: int
    inner: tuple


@njit
def _write_through_uncounted(t):
    t = uncounted(t)  # compiles only if the views have the tables' own types
    t.card[0, 1] = 7
    t.rows[1] = 8  # a strided view: kept as it is, still the caller's
    t.inner[0][2] = 9
    return t.size + t.inner[1] + t.fixed[0]


def test_uncounted_views_are_the_callers_arrays_with_their_types():
    """The lookahead players read the rule tables through `uncounted` views: the same
    memory (a write shows in the caller's array), the same numba types (so `t =
    uncounted(t)` compiles), nested tuples too; what is not a C-contiguous array passes
    as it is (a read-only array too)."""
    card = np.zeros((2, 3), np.int64)
    base = np.zeros(6, np.int64)
    fixed = np.ones(2, np.int64)
    fixed.setflags(write=False)
    inner = np.zeros(4, np.int64)
    t = _Tables(card, base[::2], fixed, 5, (inner, 3))
    assert _write_through_uncounted(t) == 9
    assert card[0, 1] == 7 and base[2] == 8 and inner[2] == 9
    assert uncounted(t) is t  # from Python (and under NUMBA_DISABLE_JIT): t itself


_WORK = 5  # a module-level constant: numba knows its value


@njit_without_refcounts
def _sums_in_frame(x):
    """Compiled without reference counting: it could not allocate (numba refuses)."""
    total = 0
    for k in range(x.shape[0]):
        work = stack_array(_WORK, np.int64)  # the same bytes at every turn of the loop
        for i in range(_WORK):
            work[i] = x[k] * i
        total += work.sum() * 10 + work.shape[0]
    return total


def test_stack_array_is_a_work_array_in_the_callers_frame():
    """A planner's work arrays (`stack_array`) need no allocation: a loop compiled without
    reference counts uses them, each call's writes read back as written, and their size is
    the constant asked for."""
    x = np.arange(-3, 40, 3, dtype=np.int64)
    expected = sum(int(v) * sum(range(_WORK)) * 10 + _WORK for v in x)
    assert _sums_in_frame(x) == expected


def test_stack_array_needs_a_constant_numba_knows():
    """A size only known at run time is refused at compile time (one clear numba error),
    never an array of the wrong size."""

    @njit
    def sized(n):
        return stack_array(n, np.float64).shape[0]

    with pytest.raises(TypingError):
        sized(4)
