"""Compiling a template into a game: the pieces of play written once for every game.

numba resolves the functions a compiled function calls when it compiles it, and caches
on disk only functions whose callees are module globals (a closure over a compiled
function, or one passed as an argument, compiles again in every process). So a piece
every game shares is written once, as a template file of plain functions over names it
does not define, and `compile_into` runs its source in the game's `play.py` namespace,
where those names are the game's own: the result is ordinary cached numba functions, the
game's rules inlined as if the piece had been written in the game's file. Every game is
bound by simkit/gamekit/binding.py (a game folder and the built-in games alike), which
compiles copies of the templates in a folder keyed by its folder's path
(simkit/gamekit/cache.py), as two folders may share a package name.

The templates: `rollout.py` (the rollout player, over the game's `rollout_*` hooks),
`search.py` (the search player, over the game's `search_*` hooks) and `batch.py` (a block
of games, over the game's `new_scratch` and `play_game`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import numba

from simkit.errors import SimkitError
from simkit.kernels.as_compiled import keep_callees_as_compiled

ROLLOUT = Path(__file__).with_name("rollout.py")
SEARCH = Path(__file__).with_name("search.py")
BATCH = Path(__file__).with_name("batch.py")
NEEDS = {
    ROLLOUT: ("rollout_work", "rollout_candidates", "rollout_deal", "rollout_play"),
    SEARCH: ("search_work", "search_deal", "search_seat", "search_key", "search_apply",
             "search_next", "search_prefer", "search_values", "search_playout", "search_end"),
    BATCH: ("new_scratch", "play_game"),
}


def cache_tag(module: str) -> str:
    """What a template's copy compiled into `module` (a dotted name) is named after: its
    cache files are `<template>.<tag>.*` beside the template."""
    return module.replace(".", "_")


def compile_into(namespace: MutableMapping[str, Any], template: Path,
                 decorators: Mapping[str, Callable[[Any], Any]],
                 source: Path | None = None) -> None:
    """Run `template`'s source in `namespace`, then compile each function named in
    `decorators` with its decorator, under a name of the namespace's module. `source`:
    a copy of the template to compile from instead (numba caches beside it)."""
    where = Path(str(namespace.get("__file__", "play.py")))
    for name in NEEDS.get(template, ()):
        if name not in namespace:
            raise SimkitError(f"{where}: simkit/kernels/{template.name} needs '{name}' "
                              "(its docstring lists what it needs)")
    source = source or template
    exec(compile(source.read_text(), str(source), "exec"), namespace)  # noqa: S102
    tag = cache_tag(str(namespace.get("__name__", "game")))
    for name, decorate in decorators.items():
        fn = namespace[name]
        fn.__qualname__ = f"{tag}.{name}"
        namespace[name] = decorate(fn)


def bind_rollout(namespace: MutableMapping[str, Any],
                 decorate: Callable[[Any], Any], source: Path | None = None) -> Any:
    """The rollout player compiled into a game's play.py with `decorate`
    (`rollout_choice = bind_rollout(globals(), njit_with_refcounts)`); `source` as in
    `compile_into`."""
    compile_into(namespace, ROLLOUT, {"rollout_choice": decorate}, source)
    return namespace["rollout_choice"]


def bind_search(namespace: MutableMapping[str, Any],
                decorate: Callable[[Any], Any], source: Path | None = None) -> Any:
    """The search player compiled into a game's play.py with `decorate`, as
    `search_choice` there; returns `searched`, the call a game's loop makes
    (`searched = bind_search(globals(), njit_with_refcounts)`), which compiles the search
    only into the kernel variant for lineups with a searching seat. `source` as in
    `compile_into`."""
    compile_into(namespace, SEARCH, {"search_choice": decorate}, source)
    return namespace["searched"]


def bind_batch(namespace: MutableMapping[str, Any], source: Path | None = None,
               cache: bool = True, reoptimise: bool = True) -> Any:
    """The batch loop compiled into a game's play.py (`simulate_batch =
    bind_batch(globals())`): called from Python, without the GIL. `source` as in
    `compile_into`; `cache`: whether numba caches it on disk; `reoptimise` False: the
    batch runs play_game as play_game's own compile left it, not re-optimised inside the
    batch's library (simkit/kernels/as_compiled.py: a speed choice, same results)."""
    compile_into(namespace, BATCH, {"simulate_batch": numba.njit(cache=cache, nogil=True)},
                 source)
    batch = namespace["simulate_batch"]
    if not reoptimise:  # a plain function under NUMBA_DISABLE_JIT: nothing to compile
        keep_callees_as_compiled(getattr(batch, "py_func", batch).__qualname__)
    return batch
