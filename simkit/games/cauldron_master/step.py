"""Cauldron Master: one step of play, written once for batch play, traced play and every
lookahead player's playouts: `next_decision` plays the automatic steps up to the next
decision and lists its options, `apply_option` applies the chosen row."""

from __future__ import annotations

from numba import njit

from .layout import (COUNTS, GAME_OVER, KIND, MAX_COLOURS, OPT_STOP, PHASE, PHASE_RECIPE,
                     PHASE_WITCH, ROUND, SEAT, TURN, A, B)
from .options import pending_options
from .rules import (begin_round, begin_turn, choose_recipe, choose_witch, create_potions,
                    end_of_round, end_turns, reveal_witches, take_card)


@njit(cache=True, inline="always")
def next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing):
    """Play the automatic phases up to the next decision; its options go into `opts` and
    their count is returned (GAME_OVER: the game is over). No step draws from `rng`."""
    while True:
        if pub[PHASE] == PHASE_WITCH or hid[TURN] < n_players:
            n = pending_options(t, pub, hid, opts)
            if n > 0 or pub[PHASE] == PHASE_WITCH:
                return n
            # Nothing (more) this witch may take: "pick up the ones you can".
            hid[TURN] += 1
            if hid[TURN] < n_players:
                begin_turn(t, pub, hid)
            continue
        end_turns(pub)
        n = create_potions(t, n_players, pub, hid, cnt, opts, hid[COUNTS:COUNTS + MAX_COLOURS],
                           trace, tracing)
        if n > 0:  # a potion's owner chooses its recipe (options.recipe_choice)
            return n
        if end_of_round(t, n_players, pub, hid, trace, tracing):
            return GAME_OVER
        begin_round(pub, n_players, pub[ROUND] + 1)


@njit(cache=True, inline="always")
def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing):
    """Apply option row `c` of the pending decision (the phase it ends is played by
    `next_decision`). No option draws from `rng`."""
    s = pub[SEAT]
    if pub[PHASE] == PHASE_WITCH:
        choose_witch(hid, s, opts[c, A])
        if s + 1 < n_players:
            pub[SEAT] = s + 1
        else:
            reveal_witches(t, n_players, pub, hid, cnt, trace, tracing)
            begin_turn(t, pub, hid)
    elif pub[PHASE] == PHASE_RECIPE:
        choose_recipe(t, pub, hid, cnt, opts[c, A], trace, tracing)
    elif opts[c, KIND] == OPT_STOP:
        hid[TURN] += 1
        if hid[TURN] < n_players:
            begin_turn(t, pub, hid)
    else:
        take_card(t, pub, s, opts[c, A], opts[c, B], trace, tracing)
