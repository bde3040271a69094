"""The search player's tree (simkit/kernels/search.py): preallocated arrays and the few
operations on them that do not depend on the game.

The tree is open-loop: a node is a sequence of moves from the decision being made, a
move named by its action identity (the game's `search_key`), so a child means the same
move in every re-deal. Each node keeps its visits, its availability (how often its move
was legal when its parent was reached: the UCB of information-set MCTS counts those, not
the parent's visits), its summed value to every seat and its head start (the policy's
own move's `prior`, counted in its mean). One node is added per iteration,
so MAX_ITERATIONS + 1 nodes always suffice: no allocation while searching.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_ITERATIONS = 4096  # the search player's budget limit (its `iterations` parameter)
SEARCH_PARAMS = 5  # its own parameters (simkit.players.search_strategy); its policy's follow
WIDEN = 1.0  # progressive widening: a node reached v times may have tried ...
WIDEN_POWER = 0.5  # ... 1 + WIDEN * v ** WIDEN_POWER of its moves
(KEY, FIRST, NEXT, VISITS, AVAIL, VALUE, PATH, ROOT_KEYS, SEAT_VALUE, STREAM, USED, HEAD,
 ROW_VALUES) = range(13)


@njit(cache=True)
def new_tree(max_players, max_options):
    """A tree's arrays for a game of `max_players` seats and `max_options` rows."""
    n = MAX_ITERATIONS + 1
    return (
        np.zeros(n, np.int64),  # KEY       the move leading to the node
        np.zeros(n, np.int64),  # FIRST     its first child (-1: none)
        np.zeros(n, np.int64),  # NEXT      its next sibling (-1: none)
        np.zeros(n, np.int64),  # VISITS    iterations through it
        np.zeros(n, np.int64),  # AVAIL     times its move was legal at its parent
        np.zeros((n, max_players), np.float64),  # VALUE  summed value to each seat
        np.zeros(n + 1, np.int64),  # PATH  the nodes of this iteration, root first
        np.zeros(max_options, np.int64),  # ROOT_KEYS  the decision's rows' moves
        np.zeros(max_players, np.float64),  # SEAT_VALUE  this iteration's value per seat
        np.zeros(1, np.uint64),  # STREAM    this iteration's random stream
        np.zeros(1, np.int64),  # USED      nodes in use
        np.zeros(n, np.float64),  # HEAD      added to its mean (the policy's own move)
        np.zeros(max_options, np.float64),  # ROW_VALUES  the policy's values of a node's rows
    )


@njit(cache=True, inline="always")
def clear(tree):
    """An empty tree: the root alone."""
    tree[FIRST][0] = -1
    tree[VISITS][0] = 0
    tree[USED][0] = 1


@njit(cache=True, inline="always")
def child(tree, node, key):
    """The child of `node` reached by move `key`, or -1."""
    c = tree[FIRST][node]
    while c >= 0:
        if tree[KEY][c] == key:
            return c
        c = tree[NEXT][c]
    return -1


@njit(cache=True, inline="always")
def add_child(tree, node, key, head):
    """A new child of `node` for move `key`, its mean `head` ahead; -1 when the tree is
    full."""
    c = tree[USED][0]
    if c >= tree[KEY].shape[0]:
        return -1
    tree[USED][0] = c + 1
    tree[KEY][c] = key
    tree[FIRST][c] = -1
    tree[NEXT][c] = tree[FIRST][node]
    tree[FIRST][node] = c
    tree[VISITS][c] = 0
    tree[AVAIL][c] = 1
    tree[VALUE][c, :] = 0.0
    tree[HEAD][c] = head
    return c


@njit(cache=True, inline="always")
def ucb(tree, c, seat, explore):
    """UCB1 of child `c` for the seat choosing at its parent, over its availability, its
    head start added to its mean."""
    visits = tree[VISITS][c]
    return (tree[VALUE][c, seat] / visits + tree[HEAD][c]
            + explore * np.sqrt(np.log(max(tree[AVAIL][c], 1)) / visits))


@njit(cache=True, inline="always")
def width(visits):
    """How many moves a node reached `visits` times may have tried (progressive widening:
    a new move only once the tried ones have been visited enough to compare)."""
    return 1 + np.int64(WIDEN * visits ** WIDEN_POWER)


@njit(cache=True, inline="always")
def back_up(tree, depth, n_players):
    """Add this iteration's value per seat to every node of its path."""
    path, value, seat_value, visits = tree[PATH], tree[VALUE], tree[SEAT_VALUE], tree[VISITS]
    for d in range(depth):
        node = path[d]
        visits[node] += 1
        for s in range(n_players):
            value[node, s] += seat_value[s]


@njit(cache=True, inline="always")
def most_visited(tree, n, seat):
    """The root row whose move was searched most (ties: the better mean, then the earlier
    row); row 0 when none was searched."""
    best, best_visits, best_mean = 0, -1, -np.inf
    for i in range(n):
        c = child(tree, 0, tree[ROOT_KEYS][i])
        if c < 0:
            continue
        v = tree[VISITS][c]
        mean = tree[VALUE][c, seat] / max(v, 1)
        if v > best_visits or (v == best_visits and mean > best_mean):
            best, best_visits, best_mean = i, v, mean
    return best


@njit(cache=True, inline="always")
def settled(tree, left):
    """Whether the root's most-visited move leads every other by more than `left` visits:
    `left` more iterations cannot change `most_visited` (a move not yet tried, too, starts
    from none)."""
    first, second = 0, 0
    c = tree[FIRST][0]
    while c >= 0:
        v = tree[VISITS][c]
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
        c = tree[NEXT][c]
    return first - second > left


@njit(cache=True, inline="always")
def row_key(opts, i):
    """A row's action identity when the game gives none: a hash of the whole row (FNV-1a),
    the same move wherever the same row is offered."""
    h = np.uint64(14695981039346656037)
    for col in range(opts.shape[1]):
        h = (h ^ np.uint64(np.int64(opts[i, col]) & 0xFFFFFFFF)) * np.uint64(1099511628211)
    return np.int64(h >> np.uint64(1))
