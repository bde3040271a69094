"""Dice Pick's players.

- random:  one die or two, half and half.
- greedy:  plays safe (one die) while nobody has rolled yet, then two dice: a
           deterministic heuristic whose caution only the first seat ever meets.
- rollout: plays both options forward with greedy players, takes the one that wins most
           (two dice, which always win more).
"""

from simkit.gamekit import jit
from simkit.kernels.plugin_call import call_plugin
from simkit.rng import randint
from strategies import Param, StrategySpec

from .layout import SEEN

RANDOM, GREEDY, ROLLOUT = 0, 1, 2
PLAYOUT = GREEDY

STRATEGIES = [
    StrategySpec("random", RANDOM, "one die or two at random"),
    StrategySpec("greedy", GREEDY, "one die while nobody has rolled, else two"),
    StrategySpec("rollout", ROLLOUT, "plays both options forward with greedy players",
                 (Param("rollouts", 32.0, 1.0, 4096.0, "playouts per option"),
                  Param("horizon", 0.0, 0.0, 1000.0, "decisions each playout looks ahead"))),
]


@jit
def choose(sid, opts, n, pub, t, params, rng):
    if sid < 0:
        return call_plugin(-sid, opts, n, pub, params, rng)
    if sid == GREEDY:
        return 0 if opts[0, SEEN] == 0 else 1
    return randint(rng, n)
