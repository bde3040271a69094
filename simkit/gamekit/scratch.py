"""The work arrays of the play loop every game-API game shares (simkit/gamekit/loop.py
builds them), with named fields: numba compiles each as a tuple.

They live in a module of their own, not in loop.py, because loop.py is run inside each
game's namespace and numba's on-disk cache names a tuple's class by its module."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Scratch(NamedTuple):
    """Per-thread work arrays, reused across games (loop.new_scratch)."""

    pub: np.ndarray  # public state
    opts: np.ndarray  # option table
    hid: np.ndarray  # hidden state
    cnt: np.ndarray  # per-seat counters
    rngs: np.ndarray  # random streams: chance, then seats
    ranking: np.ndarray  # ranking keys (a fraction breaks a tie), points
    rollout: RolloutScratch  # the rollout player's playouts
    search: SearchScratch  # the search player's tree and re-deals


class RolloutScratch(NamedTuple):
    """The rollout player's work arrays, apart from the game's so a playout never
    touches it (loop.new_lookahead_scratch)."""

    pub: np.ndarray  # a playout's state ...
    hid: np.ndarray
    cnt: np.ndarray
    opts: np.ndarray  # ... and option table
    dealt_pub: np.ndarray  # the re-dealt state every option starts from ...
    dealt_hid: np.ndarray
    dealt_cnt: np.ndarray
    streams: np.ndarray  # the rollout's stream, and a playout's copy of it
    total: np.ndarray  # summed playout value per option
    ranking: np.ndarray  # a playout's ranking keys, points
    trace: tuple  # playouts are never traced
    sids: np.ndarray  # every playout seat plays PLAYOUT ...
    params: np.ndarray  # ... with these parameters


class SearchScratch(NamedTuple):
    """The search player's work arrays, apart from the game's and the rollout player's
    (loop.new_search_scratch)."""

    tree: tuple  # the tree (simkit/kernels/search_tree.new_tree)
    pub: np.ndarray  # a re-deal's state ...
    hid: np.ndarray
    cnt: np.ndarray
    opts: np.ndarray  # ... and option table
    sids: np.ndarray  # every playout seat's strategy ...
    params: np.ndarray  # ... and its parameters
    ranking: np.ndarray  # a playout's ranking keys, points
    trace: tuple  # searches are never traced


class Decision(NamedTuple):
    """What the rollout and search players decide from: the game's state and the
    player's own work arrays (RolloutScratch or SearchScratch)."""

    pub: np.ndarray
    hid: np.ndarray
    cnt: np.ndarray
    work: tuple
