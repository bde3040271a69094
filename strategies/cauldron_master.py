"""Cauldron Master players (option table and `pub` layout: simkit/games/cauldron_master/layout.py).

- random:  a uniformly random legal option.
- greedy:  the best immediate value: the witch that could take the most valuable cards
           now; the card whose placement scores the most now (or adds most to a set).
- planner: plans potions: values a placement by what the cauldron can become (sets of one
           ingredient, its recipe card), discounted by the cards still missing; weighs a
           witch's haul against acting late.
- rollout: chooses its witch each round by playing the rest of the game forward several
           times per witch with greedy players, from what its seat can see (the undealt
           deck re-shuffled, the others' witches chosen by greedy); places cards like
           greedy. The rollouts need the rules, so they live in the kernel
           (simkit/games/cauldron_master/play.py, `rollout_witch`); `choose` only
           handles its placements (and its recipe choices, below).

With options.recipe_choice = "player", greedy, planner and rollout score each potion's
recipe with the highest bonus; random picks one at random.

Ties between equally valued options: each strategy's last parameter, `ties`
(simkit/kernels/ties.py): 0 one at random from the seat's own stream, 1 the first row.
"""

from __future__ import annotations

from numba import njit

from simkit.games.cauldron_master import layout as L
from simkit.kernels.jit import njit_without_refcounts
from simkit.kernels.plugin_call import call_plugin
from simkit.kernels.ties import at_random, contest
from simkit.rng import randint

from . import Param, StrategySpec, search_strategy
from .ties import TIES

STRATEGIES = [
    StrategySpec("random", L.RANDOM, "Picks a uniformly random legal option."),
    StrategySpec(
        "greedy",
        L.GREEDY,
        "Best immediate value: the richest witch now, the card that scores most now.",
        (
            Param("points_weight", 1.0, 0.0, 100.0, "weight of points a completed potion scores"),
            Param("gain_weight", 1.0, 0.0, 100.0, "weight of the score-table gain of a placement"),
            TIES,
        ),
    ),
    StrategySpec(
        "planner",
        L.PLANNER,
        "Plans potions: builds sets and its recipe, discounts missing cards, times witches.",
        (
            Param("discount", 0.3, 0.0, 1.0, "value kept per card still missing from a cauldron"),
            Param("recipe_weight", 1.0, 0.0, 10.0, "weight of progress toward a recipe bonus"),
            Param("mix_penalty", 1.0, 0.0, 20.0, "cost per extra ingredient type in one cauldron"),
            Param("late_penalty", 2.0, 0.0, 10.0, "value lost per initiative step of a witch"),
            Param("count_weight", 0.0, 0.0, 20.0, "value per card a witch could take"),
            TIES,
        ),
    ),
    StrategySpec(
        "rollout",
        L.ROLLOUT,
        "Lookahead: picks the witch whose greedy playouts of the rest of the game win most.",
        (
            Param("rollouts", 8.0, 1.0, 64.0,
                  "playouts per witch option (rounded to a whole number)"),
            Param("horizon", 0.0, 0.0, 50.0,
                  "rounds each playout plays (0: to the end of the game)"),
            TIES,  # its own card and recipe choices and its playouts' greedy players'
        ),
    ),
]
# The search player (simkit/kernels/search.py): every decision, planner playouts by default.
STRATEGIES.append(search_strategy(L.SEARCH, STRATEGIES[:L.ROLLOUT], L.PLANNER, iterations=64.0))



@njit(cache=True, inline="always")
def greedy(opts, n, params, rng):
    """Witch: most one-card value now. Card: points_weight*points + gain_weight*gain.
    Recipe: the highest bonus."""
    return greedy_w(opts, n, params[0], params[1], params[L.GREEDY_TIES], rng)


@njit(cache=True, inline="always")
def greedy_w(opts, n, w_points, w_gain, ties, rng):
    """`greedy` with its weights and `ties` as arguments (the rollout player's playouts
    use it)."""
    random_ties = at_random(ties)
    best = 0
    best_score = -1e300
    seen = 0
    for i in range(n):
        if opts[i, L.KIND] == L.OPT_WITCH:
            score = float(opts[i, L.GAIN])
        elif opts[i, L.KIND] == L.OPT_CARD:
            score = w_points * opts[i, L.POINTS] + w_gain * opts[i, L.GAIN]
        elif opts[i, L.KIND] == L.OPT_RECIPE:
            score = float(opts[i, L.GAIN])
        else:
            score = 0.0
        take, best_score, seen = contest(score, best_score, seen, random_ties, rng)
        if take:
            best = i
    return best


@njit_without_refcounts
def recipe_gain(t, pub, p, k, x):
    """How much a card of type x adds to cauldron k's best recipe prospect: the best
    bonus * (share of a feasible recipe the cauldron holds) with the card, less the same
    without it (tests/reference/cauldron_master.py `recipe_progress` is that definition,
    and a test holds the two to the same float). One pass over each recipe's types: a
    card of type x either fills a place its type is named for (when the cauldron holds
    fewer than needed) or is one more spare card of its colour, so each recipe's share
    with it follows from its share without. The spare cards are summed per colour as the
    types go by (MAX_COLOURS == 4)."""
    card = pub[L.RECIPE + p]
    n_types = t.types.shape[0]
    base = L.cauldron_at(p, k, 0)
    named = 0
    colour = t.types[x, L.TY_COLOUR]
    with_x = 0.0
    without = 0.0
    for j in range(L.MAX_RECIPES):
        bonus = t.recipe[card, j, L.RE_BONUS]
        if bonus == 0:
            continue
        size = 0
        have = 0
        s0 = s1 = s2 = s3 = 0
        for y in range(n_types):
            need = t.recipe[card, j, L.RE_TYPES + y]
            held = pub[base + y]
            size += need
            have += min(held, need)
            spare = max(0, held - need)
            c = t.types[y, L.TY_COLOUR]
            if c == 0:
                s0 += spare
            elif c == 1:
                s1 += spare
            elif c == 2:
                s2 += spare
            else:
                s3 += spare
            if y == x:
                named = 1 if held < need else 0
        have_x = have + named
        for c in range(t.rules[L.RU_COLOURS]):
            need = t.recipe[card, j, L.RE_COLOURS + c]
            size += need
            spare = s0 if c == 0 else s1 if c == 1 else s2 if c == 2 else s3
            have += min(spare, need)
            have_x += min(spare + (1 if c == colour and named == 0 else 0), need)
        if size > t.rules[L.RU_CAP + k]:
            continue
        value = bonus * have / size
        if value > without:
            without = value
        value = bonus * have_x / size
        if value > with_x:
            with_x = value
    return with_x - without


@njit_without_refcounts
def planner(opts, n, pub, t, params, rng):
    """Value placements by the potion they lead to; witches by haul minus lateness;
    recipes by their bonus."""
    discount, w_recipe, w_mix = params[0], params[1], params[2]
    w_late, w_count = params[3], params[4]
    random_ties = at_random(params[L.PLANNER_TIES])
    p = pub[L.SEAT]
    best = 0
    best_score = -1e300
    seen = 0
    for i in range(n):
        kind = opts[i, L.KIND]
        if kind == L.OPT_WITCH:
            score = opts[i, L.GAIN] + w_count * opts[i, L.POINTS] - w_late * opts[i, L.B]
        elif kind == L.OPT_CARD:
            x = opts[i, L.A]
            k = opts[i, L.B]
            free = opts[i, L.FREE]
            same = opts[i, L.SAME]
            if free == 0:
                score = float(opts[i, L.POINTS])
            else:
                # What this cauldron is worth if the rest of it is more of this ingredient;
                # cards of x still in the supply make that likelier.
                top = min(same + free, L.MAX_CAPACITY)
                grow = t.types[x, L.TY_SCORE + top] - t.types[x, L.TY_SCORE + same - 1]
                chance = discount ** free
                if pub[L.SUPPLY + x] > 1 and discount > 0.0:
                    chance = min(1.0, chance / discount)
                types = 0
                base = L.cauldron_at(p, k, 0)
                for y in range(t.types.shape[0]):
                    if pub[base + y] > 0 or y == x:
                        types += 1
                recipe = recipe_gain(t, pub, p, k, x)
                score = chance * (grow + w_recipe * recipe) - w_mix * (types - 1)
        elif kind == L.OPT_RECIPE:
            score = float(opts[i, L.GAIN])
        else:
            score = 0.0
        take, best_score, seen = contest(score, best_score, seen, random_ties, rng)
        if take:
            best = i
    return best


@njit(cache=True, inline="always")
def choose(sid, opts, n, pub, t, params, rng):
    """Dispatch to the built-in strategy `sid` (a plug-in when negative: simkit/plugins.py);
    returns an option row in [0, n)."""
    if sid < 0:
        return call_plugin(-sid, opts, n, pub, params, rng)
    if sid == L.GREEDY:
        return greedy(opts, n, params, rng)
    if sid == L.PLANNER:
        return planner(opts, n, pub, t, params, rng)
    if sid == L.ROLLOUT:  # its witch choice never gets here: the kernel makes it by playouts;
        # its cards and recipes are greedy's (no playouts: a recipe is only its bonus)
        return greedy_w(opts, n, 1.0, 1.0, params[L.ROLLOUT_TIES], rng)
    return randint(rng, n)
