"""Nim's players: random, greedy (takes the most), rollout."""

from simkit.gamekit import jit
from simkit.rng import randint
from strategies import Param, StrategySpec

RANDOM, GREEDY, ROLLOUT = 0, 1, 2
PLAYOUT = RANDOM

STRATEGIES = [
    StrategySpec("random", RANDOM, "takes at random"),
    StrategySpec("greedy", GREEDY, "takes the most it may"),
    StrategySpec("rollout", ROLLOUT, "plays each take forward with random players",
                 (Param("rollouts", 64.0, 1.0, 4096.0, "playouts per option"),
                  Param("horizon", 0.0, 0.0, 1000.0, "decisions looked ahead (0: all)"))),
]


@jit
def choose(sid, opts, n, pub, t, params, rng):
    if sid == GREEDY:
        return n - 1
    return randint(rng, n)
