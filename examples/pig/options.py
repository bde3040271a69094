"""Pig's option table: the rows a player chooses from, and the numbers each row shows."""

from simkit.gamekit import jit

from .layout import (
    AFTER,
    KIND,
    LEAD,
    NEED,
    OPT_HOLD,
    OPT_ROLL,
    RU_GOAL,
    SCORE,
    SEAT,
    TURN,
    TURN_TOTAL,
)


@jit
def fill_options(t, n_players, pub, opts):
    """Roll again (row 0) or hold (row 1); returns 2."""
    s = pub[SEAT]
    after = pub[SCORE + s] + pub[TURN_TOTAL]
    best_other = -(1 << 30)
    for q in range(n_players):
        if q != s:
            best_other = max(best_other, pub[SCORE + q])
    for row, kind in ((0, OPT_ROLL), (1, OPT_HOLD)):
        opts[row, KIND] = kind
        opts[row, TURN] = pub[TURN_TOTAL]
        opts[row, AFTER] = after
        opts[row, NEED] = t.rules[RU_GOAL] - after
        opts[row, LEAD] = after - best_other
    return 2
