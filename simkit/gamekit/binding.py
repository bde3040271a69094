"""`bind`: compile the shared play loop (`simkit/gamekit/loop.py`), with the rollout
player and the batch loop every game shares, into a game's `play.py`.

They are templates (simkit/kernels/templates.py says why), run in the game's namespace,
where `setup`, `next_decision` ... are the game's own: the result is ordinary cached numba
functions, with the game's rules inlined as if the loop had been written in the game's
file.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from pathlib import Path
from typing import Any

import numba

import simkit.rng
from simkit.errors import SimkitError
from simkit.gamekit import LOOP_OUTPUTS, with_search
from simkit.gamekit.cache import cache_folder, copy_template, drop_stale
from simkit.kernels import SOURCES
from simkit.kernels.templates import (
    BATCH,
    ROLLOUT,
    SEARCH,
    bind_batch,
    bind_rollout,
    bind_search,
    compile_into,
)
from simkit.outputs import Output

LOOP = Path(__file__).with_name("loop.py")
SCRATCH = Path(__file__).with_name("scratch.py")  # the loop's work arrays, named

# What the loop needs from the game, by the file it comes from (docs/new-game.md).
NEEDS = {
    "layout.py": ("PUB_SIZE", "HID_SIZE", "CT_SIZE", "N_COLS", "MAX_OPTIONS", "MAX_PLAYERS",
                  "MAX_DECISIONS", "SEAT", "ROUND", "KIND", "OUTPUTS"),
    "rules.py": ("setup", "next_decision", "apply_option", "ranking_key", "points", "redeal"),
    "play.py": ("results",),
    "players.py": ("choose", "ROLLOUT", "PLAYOUT", "STRATEGIES"),
}
# Rules the loop reaches only through hooks: a game that defines the hooks itself (its
# state has more arrays than pub, hid, cnt) need not give them in the API's shape.
HOOKED = {"setup": ("state_setup",), "next_decision": ("state_next",),
          "apply_option": ("state_apply",),
          "redeal": ("rollout_deal", "search_deal")}
# The loop's functions -> numba options, in the order `bind` compiles them. The turn loop
# runs without numba's reference counting (simkit/kernels/jit.py says why); only the
# functions that allocate keep it.
JITTED = {
    "check": {"inline": "always"},
    "action_key": {"inline": "always"},
    "state_setup": {"inline": "always"},
    "state_next": {"inline": "always"},
    "state_next_fused": {"inline": "always"},
    "state_apply": {"inline": "always"},
    "state_decision": {"inline": "always"},
    "rollout_decides": {"inline": "always"},
    "search_decides": {"inline": "always"},
    "decision_kind": {"inline": "always"},
    "new_scratch": {},
    "new_lookahead_scratch": {},
    "ask": {"inline": "always"},
    "playout": {"_nrt": False},
    "rollout_work": {"inline": "always"},
    "rollout_candidates": {"inline": "always"},
    "rollout_deal": {"inline": "always"},
    "rollout_play": {"inline": "always"},
    "new_search_scratch": {},
    "search_work": {"inline": "always"},
    "search_deal": {"inline": "always"},
    "search_seat": {"inline": "always"},
    "search_key": {"inline": "always"},
    "search_apply": {"inline": "always"},
    "search_next": {"inline": "always"},
    "search_prefer": {"inline": "always"},
    "search_values": {"inline": "always"},
    "search_playout": {"inline": "always"},
    "search_end": {"inline": "always"},
    "game_end": {"inline": "always"},
    "play_game": {"_nrt": False},
}


def bind(namespace: MutableMapping[str, Any], outputs: tuple[Output, ...] = LOOP_OUTPUTS,
         sources: Iterable[Path] = (), reoptimise_batch: bool = True) -> None:
    """Compile the shared loop into `namespace` (a game's play.py: `bind(globals())`),
    after checking that the game provides every name it needs; defines `simulate_batch`,
    `play_game`, `playout`, `rollout_choice` (the rollout player every game shares,
    simkit/kernels/rollout.py), `search_choice` (the search player, search.py; its id
    `SEARCH` is the next after the game's strategies), `new_scratch`, `LOOKAHEAD` and
    `SEARCHING` there. A loop function the game defines itself (its scratch, its state
    hooks, a specialised rollout or search hook) is kept: the loop calls the game's.
    `outputs`: the columns the game's OUTPUTS begin with (a built-in game's files predate
    `decisions`: CORE_OUTPUTS, and the loop then does not count them); `sources`: files
    the game's kernel is built from outside its folder (a built-in game's players);
    `reoptimise_batch`: as bind_batch's `reoptimise` (simkit/kernels/templates.py)."""
    play_file = Path(str(namespace.get("__file__", "play.py")))
    own = {name: namespace[name] for name in JITTED if name in namespace}
    for source, names in NEEDS.items():
        for name in names:
            if name not in namespace and not set(HOOKED.get(name, ())) <= own.keys():
                raise SimkitError(f"{play_file.parent / source}: the game API needs "
                                  f"'{name}' (import it into play.py; docs/new-game.md)")
    check_layout(namespace, play_file.parent / "layout.py")
    search = with_search(namespace["STRATEGIES"], namespace["ROLLOUT"], namespace["PLAYOUT"])
    namespace["SEARCH"] = next(spec.sid for spec in search if spec.name == "search")
    # seats that need the playouts compiled; of them, those that search (base.py says why)
    namespace["LOOKAHEAD"] = (namespace["ROLLOUT"], namespace["SEARCH"])
    namespace["SEARCHING"] = (namespace["SEARCH"],)
    namespace["KEEPS_DECISIONS"] = LOOP_OUTPUTS[-1] in outputs
    core = tuple(o.name for o in outputs)
    names = tuple(o.name for o in namespace["OUTPUTS"])
    if tuple(namespace["OUTPUTS"][:len(core)]) != outputs:
        raise SimkitError(f"{play_file.parent / 'layout.py'}: OUTPUTS must begin with "
                          f"{', '.join(core)}, as simkit.gamekit.LOOP_OUTPUTS (found "
                          f"{', '.join(names[:len(core)])})")
    # Compiled from copies of the templates in a folder keyed by the game folder's path, so
    # that two games never share one (simkit/gamekit/cache.py); dropped when a file the
    # kernel is built from changes.
    place = cache_folder(play_file.parent)
    cache = place is not None
    copies = dict.fromkeys((LOOP, ROLLOUT, SEARCH, BATCH))
    if place is not None:
        copies = {t: copy_template(place, t) for t in copies}
        drop_stale(place, play_file.parent, [LOOP, SCRATCH, Path(simkit.rng.__file__),
                                             *map(Path, SOURCES)], sources)
    namespace["COMPILED_IN"] = place  # where the kernel is cached (None: nowhere)
    compile_into(namespace, LOOP, {name: numba.njit(cache=cache, **options)
                                   for name, options in JITTED.items() if name not in own},
                 copies[LOOP])
    namespace.update(own)
    bind_rollout(namespace, numba.njit(cache=cache, _nrt=True), copies[ROLLOUT])
    bind_search(namespace, numba.njit(cache=cache, _nrt=True), copies[SEARCH])
    bind_batch(namespace, copies[BATCH], cache, reoptimise_batch)


def check_layout(ns: MutableMapping[str, Any], where: Path) -> None:
    """The layout's sizes and offsets agree with each other (one line naming the first
    that does not)."""
    sizes = ("PUB_SIZE", "HID_SIZE", "CT_SIZE", "N_COLS", "MAX_OPTIONS", "MAX_PLAYERS",
             "MAX_DECISIONS")
    for name in sizes:
        if not isinstance(ns[name], int) or ns[name] < 1:
            raise SimkitError(f"{where}: {name} = {ns[name]!r}: must be a whole number, 1 "
                              "or more")
    for name, size in (("SEAT", "PUB_SIZE"), ("ROUND", "PUB_SIZE"), ("KIND", "N_COLS")):
        if not isinstance(ns[name], int) or not 0 <= ns[name] < ns[size]:
            raise SimkitError(f"{where}: {name} = {ns[name]!r}: must be a position in "
                              f"0..{size} - 1 = {ns[size] - 1}")
