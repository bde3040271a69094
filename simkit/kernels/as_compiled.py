"""numba's second optimisation of a caller's linked callees, skipped for the callers named.

numba links every callee's finished (already optimised) module into its caller's library
and runs the module pipelines over the whole again (`CPUCodeLibrary.finalize` ->
`_optimize_final_module`: the cheap pipeline, reference-count pruning, the full O3
pipeline). So a batch loop loaded from numba's cache runs a twice-optimised copy of the
turn loop, while a process that compiled it runs the loop's own. That second pass is a
coin toss per game: Inori's turn loop on the shared loop ran 10% slower for it, Inori's
former own loop 7% faster, Cauldron Master's 2% faster before its rules took the API's
shape and about 5% slower after (docs/decisions.md). A caller named
here skips it: its callees run as their own compile left them, its own functions keep
numba's per-function passes.

numba internals: a private method, wrapped once. Optimisation passes never change what
the code computes, so skipping them changes speed only. If this numba has no such method,
or one of another shape, numba is left as it is (the caller is then optimised as usual:
slower, never different); tests/test_jit.py fails on such a numba so that it is noticed.
"""

from __future__ import annotations

import inspect

from numba.core import codegen

KEPT: set[str] = set()  # libraries (a compiled function's qualified name) left unoptimised


def skip_reoptimising_kept() -> bool:
    """Wrap numba's `CPUCodeLibrary._optimize_final_module` to return at once for the
    libraries named in KEPT; True if wrapped (now or before)."""
    library = getattr(codegen, "CPUCodeLibrary", None)
    original = getattr(library, "_optimize_final_module", None)
    if original is None:  # another numba: nothing to wrap, numba optimises every library
        return False
    if getattr(original, "skips_kept", False):
        return True
    try:
        parameters = list(inspect.signature(original).parameters)
    except (TypeError, ValueError):
        return False
    if parameters != ["self"]:  # a method of another shape is not the one known here
        return False

    def optimize_final_module(self) -> None:
        if getattr(self, "name", None) in KEPT:
            return  # the linked callees stay as their own compile left them
        original(self)

    optimize_final_module.skips_kept = True  # type: ignore[attr-defined]
    optimize_final_module.original = original  # type: ignore[attr-defined]
    library._optimize_final_module = optimize_final_module  # type: ignore[union-attr]
    return True


def keep_callees_as_compiled(qualname: str) -> bool:
    """Compile the function whose qualified name is `qualname` (numba names its library
    so) without re-optimising the callees linked into it; True if numba lets us."""
    KEPT.add(qualname)
    return skip_reoptimising_kept()
