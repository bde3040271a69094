"""Carnuta: one step of play, written once for batch play, traced play and every
lookahead player's playouts, in the game API's signatures (docs/new-game.md):
`next_decision` plays the automatic steps up to the next decision and lists its options,
`apply_option` applies the chosen row. The state is `pub`, `hid` (the piles and option
caches included: layout.py) and `cnt`."""

from __future__ import annotations

from numba import njit

from .layout import (ACTIONS_LEFT, GAME_OVER, KIND, LEVEL, OPT_FLIP, OPT_PLAY, OPT_RUNES,
                     OPT_SICKLE, OPT_TAKE, P_HAND_N, P_PLAYED, POINTS, R_FLIP_SOME, R_HAND_LIMIT,
                     R_SICKLE_AFTER, R_TAKE_CHOOSE, R_TOP, SEAT, STEP, STEP_ACTION, STEP_DISCARD,
                     STEP_END, TOKENS_DUE, A, B, C, player_at)
from .options import (action_options, banned_card, banned_token, discard_options, end_options,
                      token_options)
from .rules import (begin_counter, begin_turn, discard_card, end_of_round, end_turn, final_scoring,
                    flip_runes, pass_action, play_card, reach_level, take_card, take_runes,
                    take_token, use_sickle)


@njit(cache=True, inline="always")
def next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing):
    """Play the automatic steps up to the next decision; its options go into `opts` and
    their count is returned (GAME_OVER: the game is over, and scored)."""
    cd = t.card
    while True:
        s = pub[SEAT]
        step = pub[STEP]
        if step == STEP_ACTION:
            if pub[ACTIONS_LEFT] > 0:
                return action_options(cd, t.rules[R_TAKE_CHOOSE], t.rules[R_FLIP_SOME], pub,
                                      hid, s, opts, banned_card(t, s))
            pub[STEP] = STEP_END
        elif step == STEP_END:
            if t.rules[R_SICKLE_AFTER]:
                n = end_options(pub, s, opts)
                if n > 0:
                    return n
            pub[STEP] = STEP_DISCARD
        elif step == STEP_DISCARD:
            if pub[player_at(s, P_HAND_N)] > t.rules[R_HAND_LIMIT]:
                return discard_options(cd, pub, hid, s, opts)
            begin_counter(pub, hid, s)
        else:  # STEP_TOKEN: the counter climbs level by level; tokens one at a time
            if hid[TOKENS_DUE] > 0:
                n = token_options(cd, pub, hid, s, opts, banned_token(t, s))
                if n > 0:
                    return n
                hid[TOKENS_DUE] = 0  # none left in the centre
            if hid[LEVEL] < min(pub[player_at(s, P_PLAYED)], t.rules[R_TOP]):
                reach_level(t, pub, hid, s, trace, tracing)
                continue
            end_turn(t, pub, hid, s)
            if s + 1 < n_players:
                begin_turn(pub, cnt, s + 1)
            elif end_of_round(t, pub, hid, trace, tracing):
                final_scoring(t, n_players, pub, hid, cnt, trace, tracing)
                return GAME_OVER
            else:
                begin_turn(pub, cnt, 0)


@njit(cache=True, inline="always")
def apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing):
    """Apply option row `c` of the pending decision."""
    s = pub[SEAT]
    step = pub[STEP]
    kind = opts[c, KIND]
    a = opts[c, A]
    if kind == OPT_SICKLE:  # free, in the action step or after it
        use_sickle(t.card, pub, hid, cnt, s, a, rng, trace, tracing)
    elif step == STEP_ACTION:
        pub[ACTIONS_LEFT] -= 1
        if kind == OPT_TAKE:
            take_card(t.card, pub, hid, s, a, rng, trace, tracing)
        elif kind == OPT_PLAY:
            play_card(t, pub, hid, cnt, s, a, opts[c, C], opts[c, POINTS], trace, tracing)
        elif kind == OPT_RUNES:
            take_runes(pub, cnt, s, a, opts[c, B], trace, tracing)
        elif kind == OPT_FLIP:
            flip_runes(pub, cnt, s, a, opts[c, C], trace, tracing)
        else:
            pass_action(pub, s, trace, tracing)
    elif step == STEP_END:  # OPT_END
        pub[STEP] = STEP_DISCARD
    elif step == STEP_DISCARD:
        discard_card(t.card, pub, hid, cnt, s, a, trace, tracing)
    else:
        take_token(pub, hid, cnt, s, a, opts[c, POINTS], trace, tracing)
