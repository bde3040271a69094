"""Pig's players (option table and `pub`: layout.py).

- random:  rolls or holds at random, half and half.
- greedy:  holds once the turn total reaches a threshold (20 by default: the rule that
           maximises a turn's expected points), or when holding wins the game. It
           compares no values, so it has no ties to settle (a player that takes the
           best of several keeps it with strategies.ties.contest: docs/new-game.md).
- rollout: plays each option forward several times with greedy players and takes the
           one that wins most often (simkit's shared lookahead, simkit/gamekit/loop.py).
           In Pig one decision moves the win chance by a point or two, less than the
           noise of a few dozen playouts: against greedy it wins 33% with the default
           64, 49% with 1,000 (`--param rollout.rollouts=1000`; docs/new-game.md).
"""

from simkit.gamekit import jit
from simkit.kernels.plugin_call import call_plugin
from simkit.rng import randint
from strategies import Param, StrategySpec, policy_weights

from .layout import NEED, OPT_HOLD, TURN

RANDOM, GREEDY, ROLLOUT = 0, 1, 2
PLAYOUT = GREEDY  # the strategy every seat plays in the rollout player's playouts

GREEDY_PARAMS = (
    Param("threshold", 20.0, 1.0, 200.0, "turn total at which to hold"),
)

STRATEGIES = [
    StrategySpec("random", RANDOM, "rolls or holds at random"),
    StrategySpec("greedy", GREEDY, "holds at a turn total of 20, or when holding wins",
                 GREEDY_PARAMS),
    StrategySpec("rollout", ROLLOUT,
                 "plays each option forward with greedy players; takes the one that wins "
                 "most",
                 (Param("rollouts", 64.0, 1.0, 4096.0, "playouts per option"),
                  Param("horizon", 0.0, 0.0, 1000.0,
                        "decisions each playout looks ahead (0: to the end)"),
                  *policy_weights(GREEDY_PARAMS))),
]


@jit
def greedy(opts, n, params):
    """Hold at the threshold, or when holding reaches the goal."""
    if opts[0, TURN] >= params[0] or opts[0, NEED] <= 0:
        for i in range(n):
            if opts[i, 0] == OPT_HOLD:
                return i
    return 0


@jit
def choose(sid, opts, n, pub, t, params, rng):
    """Dispatch to the strategy `sid` (a plug-in when negative); returns a row in [0, n)."""
    if sid < 0:
        return call_plugin(-sid, opts, n, pub, params, rng)
    if sid == GREEDY:
        return greedy(opts, n, params)
    return randint(rng, n)
