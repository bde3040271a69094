"""The lookahead every game's rollout player shares: the player itself (`bind_rollout`
compiles the template simkit/kernels/rollout.py over a game's hooks), what a playout is
worth, and what a seat may know of a hidden pile."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from simkit.errors import SimkitError

TEMPLATE = Path(__file__).with_name("rollout.py")
HOOKS = ("rollout_work", "rollout_candidates", "rollout_deal", "rollout_play")


def bind_rollout(namespace: MutableMapping[str, Any],
                 decorate: Callable[[Any], Any]) -> Any:
    """Compile the rollout player into a game's play.py namespace (`rollout_choice =
    bind_rollout(globals(), njit_with_refcounts)`), over the game's HOOKS; returns its
    `rollout_choice`, compiled with `decorate`.

    numba caches on disk only functions whose callees are module globals, so the player is
    written once, as a template, and run in the game's namespace: its cache file, beside the
    template, is named after the game's module (simkit/jitcache.py drops it with the
    game's own when a source changes)."""
    where = Path(str(namespace.get("__file__", "play.py")))
    for hook in HOOKS:
        if hook not in namespace:
            raise SimkitError(f"{where}: the rollout player needs '{hook}' "
                              "(simkit/kernels/rollout.py lists its hooks)")
    exec(compile(TEMPLATE.read_text(), str(TEMPLATE), "exec"), namespace)  # noqa: S102
    fn = namespace["rollout_choice"]
    fn.__qualname__ = f"{str(namespace.get('__name__', 'game')).replace('.', '_')}.{fn.__name__}"
    namespace["rollout_choice"] = decorate(fn)
    return namespace["rollout_choice"]


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
