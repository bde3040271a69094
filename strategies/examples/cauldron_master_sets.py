"""Cauldron Master plug-in strategies (README, "Your own strategies").

Run them against the built-ins:

    simkit run cauldron-master --players 4 --games 20000 --seed 1 --out runs/sets \
        --strategies strategies/examples/cauldron_master_sets.py:sets,greedy,greedy,greedy

`opts[:n]` is the option table, `pub` the public state: both laid out in
simkit/games/cauldron_master/layout.py. `params` is unused by plug-ins (all zeros) and
`state` is the seat's random stream, for `simkit.rng.randint(state, k)`.
"""

from simkit.games.cauldron_master.layout import GAIN, KIND, OPT_CARD, OPT_WITCH, POINTS, SAME


def sets(opts, n, pub, params, state):
    """Collect sets: the witch that takes the most cards now; the card that makes the
    biggest set of one ingredient in its cauldron (ties: points now, then score gain)."""
    best = 0
    best_score = -1.0e300
    for i in range(n):
        if opts[i, KIND] == OPT_WITCH:
            score = 100.0 * opts[i, POINTS] + opts[i, GAIN]
        elif opts[i, KIND] == OPT_CARD:
            score = 10000.0 * opts[i, SAME] + 100.0 * opts[i, POINTS] + opts[i, GAIN]
        else:  # stop picking: only when nothing else is offered
            score = -1.0e200
        if score > best_score:
            best_score = score
            best = i
    return best


def greedy(opts, n, pub, params, state):
    """The built-in `greedy` at its default weights, as a plug-in (a template to start
    from; it plays exactly as `--strategies greedy`)."""
    best = 0
    best_score = -1e300
    for i in range(n):
        if opts[i, KIND] == OPT_WITCH:
            score = float(opts[i, GAIN])
        elif opts[i, KIND] == OPT_CARD:
            score = 1.0 * opts[i, POINTS] + 1.0 * opts[i, GAIN]
        else:
            score = 0.0
        if score > best_score:
            best_score = score
            best = i
    return best
