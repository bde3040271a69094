"""Compiled pieces every game's rules share, one job per module: `jit` (compile modes, an
array's data pointer), `inline_copy` (numba's inliner copying a function once),
`as_compiled` (numba's second optimisation of a caller's linked callees, skipped for the
callers named), `frame_chunks` (CPython's frame-stack chunks kept, not mapped again),
`trace` (one traced game's buffers), `seating` (seeds and seats of a run), `lookahead` (a
playout's value and hidden piles), `templates` (compiling the pieces every game shares
into a game: the rollout player `rollout.py` and the batch loop `batch.py`) and
`plugin_call` (calling a plug-in strategy)."""

from pathlib import Path

SOURCES = tuple(str(p) for p in sorted(Path(__file__).parent.glob("*.py")))
"""Every file here: a game's kernel lists them among its numba cache dependencies."""
