"""Inori players (option table and `pub` layout: simkit/games/inori/layout.py).

- random:  a uniformly random legal option.
- greedy:  the best immediate value of each option row alone: points now, tokens and
           Rune tiles gained, a card completed (worth the tokens held of its colour),
           minus a cost paid; plays Rune tiles that give tokens; takes the colour it
           holds most of; blocks to complete a card it is on.
- planner: plans for the season end and the game end: values every token by the points
           it will bring (complete cards it is on, the majorities on the tree it can
           still win), completes cards it is on, avoids completing cards that score
           only for opponents, and keeps its markers where cards are likely to complete.
- rollout: lookahead: chooses each offering by playing the rest of the game forward
           several times per candidate offering with planner (or greedy) players, from
           what its seat can see (each deck's and the Rune stack's hidden order
           re-shuffled); its other decisions are the planner's (or greedy's). The playouts
           need the rules, so they live with them (simkit/games/inori/play.py,
           the `rollout_*` hooks); `choose` only handles the rest.

Ties between equally valued options: each strategy's last parameter, `ties`
(simkit/kernels/ties.py): 0 one at random from the seat's own stream, 1 the first row (a
greedy seat's fused tables, simkit/games/inori/options.py, settle them the same way).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.games.inori import layout as L
from simkit.games.inori.layout import MAX_COLOURS
from simkit.games.inori.scoring import greedy_score
from simkit.kernels.jit import njit_without_refcounts, stack_array
from simkit.kernels.plugin_call import call_plugin
from simkit.kernels.ties import at_random, contest
from simkit.rng import randint

from . import Param, StrategySpec, policy_weights, search_strategy
from .ties import TIES

PLANNER_PARAMS = (
    Param("complete_weight", 1.0, 0.0, 5.0,
          "weight of the points a card it is on will score when completed"),
    Param("presence_weight", 0.5, 0.0, 5.0,
          "weight of joining a card, by the chance it completes this season"),
    Param("majority_weight", 1.0, 0.0, 5.0,
          "weight of the majority points a token may swing at the end"),
    Param("deny_weight", 0.5, 0.0, 5.0,
          "weight of the points a completion hands to opponents"),
    Param("rune_value", 1.5, 0.0, 10.0, "value of a Rune tile in hand"),
    Param("token_value", 2.0, 0.0, 5.0, "base value of any Favor token"),
)

STRATEGIES = [
    StrategySpec("random", L.RANDOM, "Picks a uniformly random legal option."),
    StrategySpec(
        "greedy",
        L.GREEDY,
        "Best immediate value: points, tokens and runes now, cards completed, costs paid.",
        (
            Param("token_weight", 1.0, 0.0, 20.0, "value of a Favor token gained"),
            Param("rune_weight", 1.0, 0.0, 20.0, "value of a Rune tile drawn"),
            Param("complete_weight", 1.0, 0.0, 20.0,
                  "weight of the tokens held of a card's colour when completing it"),
            Param("cost_weight", 1.0, 0.0, 20.0, "value lost per token paid"),
            TIES,
        ),
    ),
    StrategySpec(
        "planner",
        L.PLANNER,
        "Plans for season-end cards and end-game majorities; denies completions to rivals.",
        PLANNER_PARAMS + (TIES,),
    ),
    StrategySpec(
        "rollout",
        L.ROLLOUT,
        "Lookahead: picks the offering whose playouts of the rest of the game win most.",
        (
            Param("rollouts", 8.0, 1.0, 64.0,
                  "playouts per candidate offering (rounded to a whole number)"),
            Param("horizon", 0.0, 0.0, 4.0,
                  "seasons each playout plays (0: to the end of the game)"),
            Param("candidates", 8.0, 1.0, 64.0,
                  "offerings tried: the best ones by greedy's score, and the policy's own"),
            Param("policy", 1.0, 0.0, 1.0,
                  "players in the playouts and its own other decisions: 0 greedy, 1 planner"),
        ) + policy_weights(PLANNER_PARAMS)  # the planner's, for policy 1
        + (TIES,),  # its own and its playouts' players': right after the planner's weights,
        # so that the planner reads it at its own column from params[ROLLOUT_WEIGHTS:]
    ),
]
# The search player (simkit/kernels/search.py): every decision, planner playouts by default.
STRATEGIES.append(search_strategy(L.SEARCH, STRATEGIES[:L.ROLLOUT], L.PLANNER, iterations=64.0))


# The planner's default weights; the rollout player's planner weights start at column
# ROLLOUT_WEIGHTS of its parameters.
PLANNER_DEFAULTS = np.array([p.default for p in STRATEGIES[L.PLANNER].params], np.float64)


@njit(cache=True, inline="always")
def greedy(opts, n, params, rng):
    """Score each row from its own columns; the best row wins (ties: `ties`)."""
    return greedy_w(opts, n, params[0], params[1], params[2], params[3], params[L.GREEDY_TIES],
                    rng)


@njit(cache=True, inline="always")
def greedy_w(opts, n, w_token, w_rune, w_complete, w_cost, ties, rng):
    """`greedy` with its weights and `ties` as arguments (the rollout player's policy uses
    it)."""
    random_ties = at_random(ties)
    best = 0
    best_score = -1e300
    seen = 0
    for i in range(n):
        score = greedy_score(opts, i, w_token, w_rune, w_complete, w_cost)
        take, best_score, seen = contest(score, best_score, seen, random_ties, rng)
        if take:
            best = i
    return best


# ---------------------------------------------------------------- planner
@njit_without_refcounts
def colour_values(pub, t, p, params, values):
    """values[x]: what one more token of colour x is worth to seat p, in points.

    A token scores on every card of that colour p is on (if it completes), on New Start
    cards whose bottom-right colour it is, and may win a majority where a tile of that
    colour sits on the tree.
    """
    w_complete, w_major, base = params[0], params[2], params[5]
    n_col = t.rules[L.R_N_COLOURS]
    n_players = pub[L.N_PLAYERS]
    for x in range(n_col):
        values[x] = base
    for i in range(pub[L.N_SLOTS]):
        c = pub[L.slot_at(i, L.S_CARD)]
        if c < 0:
            continue
        free, present = card_state(pub, t, i, p)
        if present:
            # Fewer free spaces: likelier to complete by the season's end.
            values[t.card[c, L.CARD_COLOUR]] += w_complete * (1.0 / (1.0 + free))
    # Majorities: a tile of colour x on the tree; how close p is to 1st or 2nd.
    first, second = t.rules[L.R_MAJ_FIRST], t.rules[L.R_MAJ_SECOND]
    for x in range(n_col):
        if pub[L.TILE_USED + x] == 0:
            continue
        mine = pub[L.player_at(p, L.P_TOKENS + x)]
        best_other = 0
        for q in range(n_players):
            if q != p:
                best_other = max(best_other, pub[L.player_at(q, L.P_TOKENS + x)])
        gap = best_other - mine
        if gap >= -1 and gap <= 3:  # contested: a token may move p up a place
            values[x] += w_major * (first - second) / (2.0 + max(gap, 0))
        elif gap > 3:
            values[x] += w_major * second / (2.0 + gap)
    return values


@njit_without_refcounts
def card_state(pub, t, i, p):
    """(free spaces, 1 if seat p has a marker on it) of the card in slot i."""
    c = pub[L.slot_at(i, L.S_CARD)]
    n_sp = t.card[c, L.CARD_N_SPACES]
    free = 0
    present = 0
    for s in range(n_sp):
        if pub[L.slot_at(i, L.S_OCC + s)] < 0:
            free += 1
        if pub[L.slot_at(i, L.S_OCC + s)] == p or (pub[L.slot_at(i, L.S_OCC2 + s)] >> p) & 1:
            present = 1
    return free, present


@njit_without_refcounts
def rival_gain(pub, t, i, p, colour):
    """Points the other players on slot i's card would score at its completion."""
    total = 0
    for q in range(pub[L.N_PLAYERS]):
        if q == p:
            continue
        on = False
        for s in range(L.MAX_SPACES):
            if pub[L.slot_at(i, L.S_OCC + s)] == q or (pub[L.slot_at(i, L.S_OCC2 + s)] >> q) & 1:
                on = True
        if on:
            total += pub[L.player_at(q, L.P_TOKENS + colour)]
    return total


@njit_without_refcounts
def tile_prospect(pub, p, colour, params):
    """Placing a tile makes its colour a majority colour: good if p leads in it."""
    mine = pub[L.player_at(p, L.P_TOKENS + colour)]
    others = 0
    for q in range(pub[L.N_PLAYERS]):
        if q != p:
            others = max(others, pub[L.player_at(q, L.P_TOKENS + colour)])
    return params[2] * 0.5 * (mine - others)


@njit_without_refcounts
def planner(opts, n, pub, t, params, rng):
    """Value each option as points now + tokens valued by colour + card prospects."""
    w_complete, w_presence, w_deny, rune_value = params[0], params[1], params[3], params[4]
    random_ties = at_random(params[L.PLANNER_TIES])
    seen = 0
    p = pub[L.SEAT]
    values = stack_array(MAX_COLOURS, np.float64)  # in this frame: no allocation a call
    values[:] = 0.0
    colour_values(pub, t, p, params, values)
    markers_left = 0
    for q in range(pub[L.N_PLAYERS]):
        markers_left += pub[L.player_at(q, L.P_MARKERS)]
    best = 0
    best_score = -1e300
    for i in range(n):
        kind = opts[i, L.KIND]
        score = 0.0
        if kind in (L.OPT_CARD, L.OPT_TREE):
            score = float(opts[i, L.POINTS]) + rune_value * opts[i, L.F3]
            if opts[i, L.C] >= 0:
                score -= values[opts[i, L.C]]
            if kind == L.OPT_CARD:
                slot = opts[i, L.A]
                c = pub[L.slot_at(slot, L.S_CARD)]
                x = t.card[c, L.CARD_COLOUR]
                free, present = card_state(pub, t, slot, p)
                # Tokens: fixed gains at their colour's value, choices at the best value.
                score += opts[i, L.F1] * values[x] if opts[i, L.F4] > 0 else opts[i, L.F1] * 0.5
                if opts[i, L.F2] == 1:
                    score += w_complete * opts[i, L.F4]
                    score -= w_deny * rival_gain(pub, t, slot, p, x)
                elif pub[L.slot_at(slot, L.S_OCC + opts[i, L.B])] < 0:
                    # Joining a card: worth its completion, by the chance it completes.
                    chance = 1.0 / (1.0 + free - 1) if markers_left > free - 1 else 0.0
                    score += w_presence * chance * opts[i, L.F4] * (1 - present * 0.5)
            else:
                colour = opts[i, L.B]
                if colour >= 0:
                    score += opts[i, L.F1] * values[colour]
                else:
                    # A root space (random colours) or a tile still to choose (STEP_TILE):
                    # tokens at the mean value, plus the best tile's majority prospect.
                    mean = 0.0
                    for x in range(t.rules[L.R_N_COLOURS]):
                        mean += values[x] / t.rules[L.R_N_COLOURS]
                    score += opts[i, L.F1] * mean
        elif kind == L.OPT_TILE:
            colour = opts[i, L.A]
            score = (float(opts[i, L.POINTS]) + rune_value * opts[i, L.F3]
                     + opts[i, L.F1] * values[colour] + tile_prospect(pub, p, colour, params))
        elif kind == L.OPT_RUNE:
            if opts[i, L.C] == L.RUNE_GAIN:
                score = opts[i, L.F1] * 0.5 - rune_value * 0.5
            elif opts[i, L.C] == L.RUNE_OCCUPIED:
                score = -rune_value * 0.25
            else:
                score = -rune_value * 0.5
        elif kind == L.OPT_MOVE:
            score = opts[i, L.F2] * (w_complete * opts[i, L.F4] + 0.1) - 0.2
            if opts[i, L.C] != p:
                # Another's piece (options.move_piece = "any"): completing the target
                # card helps only the players on it; helping rivals alone is avoided.
                target = opts[i, L.B] // L.MAX_SPACES
                x = t.card[pub[L.slot_at(target, L.S_CARD)], L.CARD_COLOUR]
                if card_state(pub, t, target, p)[1] == 0:
                    score = -0.2 - opts[i, L.F2] * 0.1 * (1 + rival_gain(pub, t, target, p, x))
        elif kind == L.OPT_BLOCK:
            slot = opts[i, L.A]
            c = pub[L.slot_at(slot, L.S_CARD)]
            x = t.card[c, L.CARD_COLOUR]
            if opts[i, L.F2] == 1:
                score = (w_complete * opts[i, L.F4] * opts[i, L.POINTS]
                         - w_deny * rival_gain(pub, t, slot, p, x))
            else:
                # Blocking a card only rivals are on makes it easier for them: avoid.
                score = -0.1 * rival_gain(pub, t, slot, p, x)
        elif kind == L.OPT_COLOUR:
            score = values[opts[i, L.A]] + 1e-3 * opts[i, L.POINTS]
        elif kind == L.OPT_NEW_START:
            score = values[opts[i, L.B]] + 0.5 * values[opts[i, L.C]]
        elif kind == L.OPT_PASS:
            score = -1e9
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
    if sid == L.ROLLOUT:  # its offerings never get here: play.rollout_choice makes them
        return policy_choice(opts, n, pub, t, params, rng)
    return randint(rng, n)


@njit(cache=True, inline="always")
def policy_choice(opts, n, pub, t, params, rng):
    """The rollout player's own decisions other than offerings, by its policy: greedy
    (policy 0, default weights) or the planner with the rollout's planner weights (1);
    ties as the rollout's `ties`."""
    if params[3] >= 0.5:
        return planner(opts, n, pub, t, params[L.ROLLOUT_WEIGHTS:], rng)
    return greedy_w(opts, n, 1.0, 1.0, 1.0, 1.0, params[L.ROLLOUT_TIES], rng)
