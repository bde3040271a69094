"""Carnuta players (option table and `pub` layout: simkit/games/carnuta/layout.py).

- random:  a uniformly random legal option.
- greedy:  the best immediate value: play the card that scores most now, else take the
           card that would score most if played now, else runes; discard the weakest card.
- planner: values its hand by what each card would score and how close its runes are to
           paying for it, and picks the action (take, play, runes, flip) that raises that
           value most; hurries in the last turns, and keeps the Sickle for a poor display.
- rollout: lookahead: chooses each action by playing the rest of the game forward several
           times per candidate action with planner (or greedy) players, from what its seat
           can see (the Day and Night decks' hidden order re-shuffled); its other decisions
           (end-of-turn Sickle, discards, tokens) are the policy's. The playouts need the
           rules, so they live with them (simkit/games/carnuta/play.py,
           the `rollout_*` hooks); `choose` only handles the rest.

Ties between equally valued options: each strategy's last parameter, `ties`
(simkit/kernels/ties.py): 0 one at random from the seat's own stream, 1 the first row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.games.carnuta import layout as L
from simkit.games.carnuta.scoring import best_gain, gain_table
from simkit.kernels.jit import njit_with_refcounts
from simkit.kernels.plugin_call import call_plugin
from simkit.kernels.search_tree import SEARCH_PARAMS
from simkit.kernels.ties import at_random, contest
from simkit.rng import randint

from . import Param, StrategySpec, policy_weights, search_strategy
from .ties import TIES

PLANNER_PARAMS = (
    Param("discount", 0.45, 0.0, 1.0, "value kept per cost icon the runes cannot pay"),
    Param("hand_weight", 0.7, 0.0, 5.0, "weight of the hand's value after an action"),
    Param("take_weight", 1.0, 0.0, 5.0, "weight of a taken card's value"),
    Param("rune_weight", 0.25, 0.0, 5.0, "value per rune on the board"),
    Param("sickle_below", 1.0, 0.0, 50.0, "use a Sickle on the poorer row when no card "
          "on offer is worth this much"),
)

STRATEGIES = [
    StrategySpec("random", L.RANDOM, "Picks a uniformly random legal option."),
    StrategySpec(
        "greedy",
        L.GREEDY,
        "Best immediate value: plays the best-scoring card, else takes the best card.",
        (
            Param("play_weight", 1.0, 0.0, 100.0, "weight of the points a play scores now"),
            Param("take_weight", 0.8, 0.0, 100.0, "weight of the points a taken card would score"),
            Param("rune_weight", 0.3, 0.0, 100.0, "value per rune taken from the reserve"),
            TIES,
        ),
    ),
    StrategySpec(
        "planner",
        L.PLANNER,
        "Plans plays: values its hand by points and rune reach, manages runes toward costs.",
        PLANNER_PARAMS + (TIES,),
    ),
    StrategySpec(
        "rollout",
        L.ROLLOUT,
        "Lookahead: picks the action whose playouts of the rest of the game win most.",
        (
            Param("rollouts", 8.0, 1.0, 64.0,
                  "playouts per candidate action (rounded to a whole number)"),
            Param("horizon", 0.0, 0.0, 30.0,
                  "rounds each playout plays (0: to the end of the game)"),
            Param("candidates", 8.0, 1.0, 64.0,
                  "actions tried: the best ones by the policy's own values"),
            Param("policy", 1.0, 0.0, 1.0,
                  "players in the playouts and its own other decisions: 0 greedy, "
                  "1 planner (with the weights below)"),
            Param("prior", 0.1, 0.0, 1.0,
                  "win share the policy's own choice is given in advance: another "
                  "action's playouts must beat it by more"),
        ) + policy_weights(PLANNER_PARAMS)  # the planner's, for policy 1
        + (TIES,),  # its own and its playouts' players': right after the planner's weights,
        # so that the planner reads it at its own column from params[ROLLOUT_WEIGHTS:]
    ),
]
# The search player (simkit/kernels/search.py): actions, planner playouts by default; its
# other decisions are its policy's (as the rollout player's are).
STRATEGIES.append(search_strategy(L.SEARCH, STRATEGIES[:L.ROLLOUT], L.PLANNER, iterations=64.0,
                                  prior=0.1))

# The rollout player's policies: greedy with its default weights, or the planner with
# the weights in the rollout's own parameters from column ROLLOUT_WEIGHTS on (a tuned
# planner's are a parameter file: configs/tuned/carnuta_rollout.toml).
GREEDY_DEFAULTS = np.array([p.default for p in STRATEGIES[L.GREEDY].params], np.float64)
PLANNER_DEFAULTS = np.array([p.default for p in STRATEGIES[L.PLANNER].params], np.float64)


@njit(cache=True, inline="always")
def greedy(opts, n, params, ties, rng):
    """Play: points; take: points (halved if unpayable now); runes: per rune; discard the
    card that would score least; token: most points. `ties` as the parameter (the rollout
    player's policy passes its own)."""
    # The same values as greedy_score, written out: calling it here (even inlined) made
    # 4-greedy games 21% slower (simkit.bench.kernel_rate, 1 thread: 17,300 against
    # 21,800 games/s). tests/test_strategies.py checks the two agree.
    random_ties = at_random(ties)
    best = 0
    best_score = -1e300
    seen = 0
    for i in range(n):
        kind = opts[i, L.KIND]
        if kind == L.OPT_PLAY:
            score = params[0] * opts[i, L.POINTS] + 0.5
        elif kind == L.OPT_TAKE:
            score = params[1] * opts[i, L.POINTS] * (1.0 if opts[i, L.F1] else 0.5)
        elif kind == L.OPT_RUNES:
            score = params[2] * opts[i, L.B]
        elif kind == L.OPT_FLIP:
            score = 0.05
        elif kind == L.OPT_SICKLE:
            score = -1.0
        elif kind == L.OPT_DISCARD:
            score = -float(opts[i, L.POINTS])
        elif kind == L.OPT_TOKEN:
            score = float(opts[i, L.POINTS])
        else:  # end of turn, pass
            score = 0.0
        take, best_score, seen = contest(score, best_score, seen, random_ties, rng)
        if take:
            best = i
    return best


@njit(cache=True, inline="always")
def reach(cd, c, sun, moon, discount):
    """How payable card c is with these runes: 1 if payable, discount**icons short."""
    short = (max(0, cd[c, L.CARD_COST + L.SUN_FLIP] + cd[c, L.CARD_COST + L.SUN_RETURN] - sun)
             + max(0, cd[c, L.CARD_COST + L.MOON_FLIP] + cd[c, L.CARD_COST + L.MOON_RETURN] - moon))
    return discount ** short


@njit(cache=True)
def hand_value(cd, hand, gains, n_hand, skip, sun, moon, discount):
    """Sum over hand cards (but `skip`) of gain * reach with these runes."""
    v = 0.0
    for h in range(n_hand):
        if h != skip and gains[h] > 0:
            v += gains[h] * reach(cd, hand[h], sun, moon, discount)
    return v


@njit_with_refcounts
def planner(opts, n, pub, t, params, rng):
    """Pick the action whose resulting hand, runes and points are worth most."""
    values = np.empty(n, np.float64)
    planner_values(opts, n, pub, t, params, values)
    random_ties = at_random(params[L.PLANNER_TIES])
    best = 0
    best_score = -1e300
    seen = 0
    for i in range(n):
        take, best_score, seen = contest(values[i], best_score, seen, random_ties, rng)
        if take:
            best = i
    return best


@njit(cache=True)
def planner_values(opts, n, pub, t, params, values):
    """The planner's value of each option row into values[:n] (the rollout player ranks
    its candidates by it)."""
    discount, w_hand, w_take, w_rune, sickle_below = (params[0], params[1], params[2],
                                                      params[3], params[4])
    p = pub[L.SEAT]
    cd = t.card
    hand_limit = t.rules[L.R_HAND_LIMIT]
    sun = pub[L.player_at(p, L.P_SUN)]
    moon = pub[L.player_at(p, L.P_MOON)]
    n_hand = pub[L.player_at(p, L.P_HAND_N)]
    hand = np.zeros(L.MAX_HAND, np.int64)
    gains = np.zeros(L.MAX_HAND, np.float64)
    cache = np.zeros(L.GAIN_SIZE, np.int64)
    has = np.zeros(L.MAX_TYPES, np.int64)
    gain_table(cd, pub, p, cache, has)
    for h in range(n_hand):
        hand[h] = pub[L.player_at(p, L.P_HAND + h)]
        g, _col = best_gain(cd, pub, p, hand[h], cache, has)
        gains[h] = g
    last_turn = pub[L.FINAL] == 1 or (pub[L.TRIGGERED] == 1 and p == pub[1] - 1)
    # In the final turn, cards left in hand are worth nothing.
    future = 0.0 if pub[L.FINAL] == 1 and pub[L.ACTIONS_LEFT] <= 1 else w_hand
    if last_turn and pub[L.ACTIONS_LEFT] <= 1:
        future = 0.0
    now = hand_value(cd, hand, gains, n_hand, -1, sun, moon, discount)
    best_offer = 0.0
    row_best = np.zeros(2, np.float64)  # best card value on offer in the Day / Night row
    for s in range(L.N_SLOTS):
        c = pub[L.DISPLAY + s]
        if c >= 0:
            g, _col = best_gain(cd, pub, p, c, cache, has)
            v = g * reach(cd, c, sun, moon, discount)
            d = s // L.SLOTS_PER_ROW
            row_best[d] = max(row_best[d], v)
            best_offer = max(best_offer, v)

    for i in range(n):
        kind = opts[i, L.KIND]
        score = 0.0
        if kind == L.OPT_PLAY:
            c = opts[i, L.B]
            sf, mf = cd[c, L.CARD_COST + L.SUN_FLIP], cd[c, L.CARD_COST + L.MOON_FLIP]
            s2 = sun - sf - cd[c, L.CARD_COST + L.SUN_RETURN] + mf
            m2 = moon - mf - cd[c, L.CARD_COST + L.MOON_RETURN] + sf
            rest = hand_value(cd, hand, gains, n_hand, opts[i, L.A], s2, m2, discount)
            score = (opts[i, L.POINTS] + future * (rest - now)
                     + w_rune * (s2 + m2 - sun - moon) + 0.5)
        elif kind == L.OPT_TAKE:
            c = opts[i, L.B]
            value = max(opts[i, L.POINTS], 0) * reach(cd, c, sun, moon, discount)
            # A card beyond the hand limit only replaces the weakest one.
            score = future * w_take * value
            if n_hand >= hand_limit + pub[L.ACTIONS_LEFT] - 1:
                score -= future * w_take * now / max(n_hand, 1)
        elif kind == L.OPT_RUNES:
            k = opts[i, L.B]
            s2 = sun + (k if opts[i, L.A] == L.SUN else 0)
            m2 = moon + (k if opts[i, L.A] == L.MOON else 0)
            after = hand_value(cd, hand, gains, n_hand, -1, s2, m2, discount)
            score = future * (after - now) + w_rune * k
        elif kind == L.OPT_FLIP:
            k = opts[i, L.C]
            s2 = sun + (k if opts[i, L.A] == L.SUN else -k)
            m2 = moon + (k if opts[i, L.A] == L.MOON else -k)
            after = hand_value(cd, hand, gains, n_hand, -1, s2, m2, discount)
            score = future * (after - now) - 0.01
        elif kind == L.OPT_SICKLE:
            # Refresh the poorer row when nothing on offer is worth sickle_below.
            if best_offer < sickle_below and pub[L.ACTIONS_LEFT] > 0:
                score = 1e-3 + 1e-6 * (best_offer - row_best[opts[i, L.A]])
            else:
                score = -1.0
        elif kind == L.OPT_DISCARD:
            h = opts[i, L.A]
            score = -gains[h] * reach(cd, hand[h], sun, moon, discount)
        elif kind == L.OPT_TOKEN:
            score = float(opts[i, L.POINTS])
        elif kind == L.OPT_PASS:
            score = -1.0
        values[i] = score


@njit(cache=True, inline="always")
def choose(sid, opts, n, pub, t, params, rng):
    """Dispatch to the built-in strategy `sid` (a plug-in when negative: simkit/plugins.py);
    returns an option row in [0, n)."""
    if sid < 0:
        return call_plugin(-sid, opts, n, pub, params, rng)
    if sid == L.GREEDY:
        return greedy(opts, n, params, params[L.GREEDY_TIES], rng)
    if sid == L.PLANNER:
        return planner(opts, n, pub, t, params, rng)
    if sid == L.ROLLOUT:  # its actions never get here: the kernel makes them by playouts
        return policy_choice(opts, n, pub, t, params, rng)
    if sid == L.SEARCH:  # ... nor the search player's: the kernel searches them
        return search_policy(opts, n, pub, t, params, rng)
    return randint(rng, n)


@njit(cache=True, inline="always")
def search_policy(opts, n, pub, t, params, rng):
    """The search player's own decisions other than actions, by its playout policy
    (`params[3]`: 0 random, 1 greedy, 2 planner) with the weights after its own, as its
    playouts play them (play.py: search_prefer)."""
    policy, weights = np.int64(params[3] + 0.5), params[SEARCH_PARAMS:]
    if policy == L.PLANNER:
        return planner(opts, n, pub, t, weights, rng)
    if policy == L.GREEDY:
        return greedy(opts, n, weights, weights[L.GREEDY_TIES], rng)
    return randint(rng, n)


@njit(cache=True, inline="always")
def policy_choice(opts, n, pub, t, params, rng):
    """The rollout player's own decisions other than actions, by its policy: greedy
    (policy 0, default weights) or the planner with the rollout's planner weights (1);
    ties as the rollout's `ties`."""
    if params[3] >= 0.5:
        return planner(opts, n, pub, t, params[L.ROLLOUT_WEIGHTS:], rng)
    return greedy(opts, n, GREEDY_DEFAULTS, params[L.ROLLOUT_TIES], rng)
