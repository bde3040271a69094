"""numba's inliner, made to copy an inlined function once instead of once per block.

numba inlines a function marked `inline="always"` by copying its IR at every place it is
inlined (`InlineWorker.inline_ir`, twice per place). It deep-copies each block on its own,
and every block refers to the function's scope, which holds all its variables, so each
block's copy copies the whole scope again: blocks x variables. In Inori's turn loop that
was a fifth of a cold compile (docs/speed.md). Copying the blocks with one shared memo
copies the scope once, as a deep copy of the whole function would; the blocks and
variables come out the same, and so does the machine code (checked on all three games'
kernels: the same LLVM IR, 2026-12-03).

`share_scope_when_inlining` rewrites that one line of numba's own source. If numba's
source differs (another version), numba is left as it is: compiling is slower, never
different.
"""

from __future__ import annotations

import inspect
import re
import textwrap

from numba.core import inline_closurecall

_COPY = "new_block = copy.deepcopy(the_ir.blocks[block_label])"
_SHARED_COPY = "new_block = copy.deepcopy(the_ir.blocks[block_label], memo)"
_NEW_BLOCKS = re.compile(r"\n( *)kernel_copy\.blocks = \{\}\n")


def share_scope_when_inlining() -> bool:
    """Patch `InlineWorker.inline_ir` to copy the blocks with one memo; True if patched
    (now or before)."""
    worker = inline_closurecall.InlineWorker
    if getattr(worker.inline_ir, "shares_scope", False):
        return True
    try:
        source = textwrap.dedent(inspect.getsource(worker.inline_ir))
    except (OSError, TypeError):  # no source at hand (a frozen install)
        return False
    if source.count(_COPY) != 1 or len(_NEW_BLOCKS.findall(source)) != 1:
        return False
    source = _NEW_BLOCKS.sub(r"\n\1kernel_copy.blocks = {}\n\1memo = {}\n", source)
    source = source.replace(_COPY, _SHARED_COPY)
    namespace: dict = {}
    exec(compile(source, inline_closurecall.__file__, "exec"),  # noqa: S102 - numba's own code
         inline_closurecall.__dict__, namespace)
    patched = namespace["inline_ir"]
    patched.shares_scope = True
    patched.original = worker.inline_ir  # numba's own, for the test that compares them
    worker.inline_ir = patched
    return True
