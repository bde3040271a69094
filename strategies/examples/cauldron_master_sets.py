"""Cauldron Master plug-in strategies (README, "Your own strategies").

Run them against the built-ins:

    simkit run cauldron-master --players 4 --games 20000 --seed 1 --out runs/sets \
        --strategies strategies/examples/cauldron_master_sets.py:sets,greedy,greedy,greedy

`opts[:n]` is the option table, `pub` the public state: both laid out in
simkit/games/cauldron_master/layout.py. `params` holds the parameters a function declares
in `<FUNCTION>_PARAMS` (below: `greedy_PARAMS`), in that order, and `state` is the seat's
random stream, for `simkit.rng.randint(state, k)`. Change a parameter without editing the
file, by the function's name (or the whole FILE.py:FUNCTION token when a built-in of that
name plays too):

    simkit run cauldron-master --players 4 --games 20000 --seed 1 --out runs/greedy_points \
        --strategies strategies/examples/cauldron_master_sets.py:greedy,planner,planner,planner \
        --param greedy.points_weight=3

or with a parameter file, `...cauldron_master_sets.py:greedy@weights.toml`, holding
`strategy = "greedy"` and a `[params]` table (README, "Parameter files").
"""

from simkit.games.cauldron_master.layout import (
    GAIN,
    KIND,
    OPT_CARD,
    OPT_RECIPE,
    OPT_WITCH,
    POINTS,
    SAME,
)
from strategies import Param
from strategies.ties import TIES, at_random, contest


def sets(opts, n, pub, params, state):
    """Collect sets: the witch that takes the most cards now; the card that makes the
    biggest set of one ingredient in its cauldron (ties: points now, then score gain);
    the recipe with the highest bonus (options.recipe_choice = "player")."""
    best = 0
    best_score = -1.0e300
    for i in range(n):
        if opts[i, KIND] == OPT_WITCH:
            score = 100.0 * opts[i, POINTS] + opts[i, GAIN]
        elif opts[i, KIND] == OPT_CARD:
            score = 10000.0 * opts[i, SAME] + 100.0 * opts[i, POINTS] + opts[i, GAIN]
        elif opts[i, KIND] == OPT_RECIPE:
            score = float(opts[i, GAIN])
        else:  # stop picking: only when nothing else is offered
            score = -1.0e200
        if score > best_score:
            best_score = score
            best = i
    return best


# greedy's parameters, as the built-in declares them: NAME = (default, lo, hi, "doc"), or
# a list of strategies.Param (here, to share the built-ins' `ties`: a rule `simkit tune`
# leaves alone). The function reads them in this order: params[0], params[1], params[2].
greedy_PARAMS = [
    Param("points_weight", 1.0, 0.0, 100.0, "weight of points a completed potion scores"),
    Param("gain_weight", 1.0, 0.0, 100.0, "weight of the score-table gain of a placement"),
    TIES,
]


def greedy(opts, n, pub, params, state):
    """The built-in `greedy`, as a plug-in with the same three parameters (a template to
    start from; at the same values it plays exactly as `--strategies greedy`): ties
    between equally valued options are settled by `strategies.ties.contest`, at random
    from the seat's stream unless `ties` = 1."""
    points_weight = params[0]
    gain_weight = params[1]
    random_ties = at_random(params[2])
    best = 0
    best_score = -1e300
    seen = 0
    for i in range(n):
        if opts[i, KIND] == OPT_WITCH:
            score = float(opts[i, GAIN])
        elif opts[i, KIND] == OPT_CARD:
            score = points_weight * opts[i, POINTS] + gain_weight * opts[i, GAIN]
        elif opts[i, KIND] == OPT_RECIPE:
            score = float(opts[i, GAIN])
        else:
            score = 0.0
        take, best_score, seen = contest(score, best_score, seen, random_ties, state)
        if take:
            best = i
    return best
