"""Carnuta: one step of play, written once for batch play, traced play and every
lookahead player's playouts: `next_decision` plays the automatic steps up to the next
decision and lists its options, `apply_option` applies the chosen row."""

from __future__ import annotations

from numba import njit

from . import layout as L
from . import options, rules


@njit(cache=True, inline="always")
def next_decision(t, n_players, pub, hid, cnt, deck, discard, tops, rng, opts, caches, hass,
                  ver, memo, cols, trace, tracing):
    """Play the automatic steps up to the next decision; its options go into `opts` and
    their count is returned (0: the game is over, and scored)."""
    cd = t.card
    while True:
        s = pub[L.SEAT]
        step = pub[L.STEP]
        if step == L.STEP_ACTION:
            if pub[L.ACTIONS_LEFT] > 0:
                return options.action_options(cd, t.rules[L.R_TAKE_CHOOSE],
                                              t.rules[L.R_FLIP_SOME], pub, s, opts, caches[s],
                                              hass[s], ver, memo, options.banned_card(t, s))
            pub[L.STEP] = L.STEP_END
        elif step == L.STEP_END:
            if t.rules[L.R_SICKLE_AFTER]:
                n = options.end_options(pub, s, opts)
                if n > 0:
                    return n
            pub[L.STEP] = L.STEP_DISCARD
        elif step == L.STEP_DISCARD:
            if pub[L.player_at(s, L.P_HAND_N)] > t.rules[L.R_HAND_LIMIT]:
                return options.discard_options(cd, pub, s, opts, caches[s], hass[s], ver, memo)
            rules.begin_counter(pub, hid, s)
        else:  # STEP_TOKEN: the counter climbs level by level; tokens one at a time
            if hid[L.TOKENS_DUE] > 0:
                n = options.token_options(cd, pub, s, opts, caches[s], hass[s], ver,
                                          options.banned_token(t, s))
                if n > 0:
                    return n
                hid[L.TOKENS_DUE] = 0  # none left in the centre
            if hid[L.LEVEL] < min(pub[L.player_at(s, L.P_PLAYED)], t.rules[L.R_TOP]):
                rules.reach_level(t, pub, hid, s, trace, tracing)
                continue
            rules.end_turn(t, pub, hid, s)
            if s + 1 < n_players:
                rules.begin_turn(pub, cnt, s + 1)
            elif rules.end_of_round(t, pub, hid, trace, tracing):
                rules.final_scoring(t, n_players, pub, cnt, cols, trace, tracing)
                return 0
            else:
                rules.begin_turn(pub, cnt, 0)


@njit(cache=True, inline="always")
def apply_option(t, pub, hid, cnt, deck, discard, tops, rng, opts, c, ver, trace, tracing):
    """Apply option row `c` of the pending decision."""
    s = pub[L.SEAT]
    step = pub[L.STEP]
    kind = opts[c, L.KIND]
    a = opts[c, L.A]
    if kind == L.OPT_SICKLE:  # free, in the action step or after it
        rules.use_sickle(t.card, pub, cnt, s, a, deck, discard, tops, rng, trace, tracing)
    elif step == L.STEP_ACTION:
        pub[L.ACTIONS_LEFT] -= 1
        if kind == L.OPT_TAKE:
            rules.take_card(pub, s, a, deck, discard, tops, rng, trace, tracing)
        elif kind == L.OPT_PLAY:
            rules.play_card(t, pub, cnt, s, a, opts[c, L.C], opts[c, L.POINTS], ver, trace, tracing)
        elif kind == L.OPT_RUNES:
            rules.take_runes(pub, cnt, s, a, opts[c, L.B], trace, tracing)
        elif kind == L.OPT_FLIP:
            rules.flip_runes(pub, cnt, s, a, opts[c, L.C], trace, tracing)
        else:
            rules.pass_action(pub, s, trace, tracing)
    elif step == L.STEP_END:  # OPT_END
        pub[L.STEP] = L.STEP_DISCARD
    elif step == L.STEP_DISCARD:
        rules.discard_card(t.card, pub, cnt, s, a, discard, tops, trace, tracing)
    else:
        rules.take_token(pub, hid, cnt, s, a, opts[c, L.POINTS], ver, trace, tracing)
