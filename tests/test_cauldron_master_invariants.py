"""Invariants of whole games, over hypothesis-chosen seeds, lineups and rule options."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.engine import build_lineup
from simkit.games.cauldron_master import layout as L

OPTIONS = st.sampled_from([
    (),
    ("options.picking_compulsory=false",),
    ("options.recipe_match=\"exact\"",),
    ("options.recipe_choice=\"player\"",),
    ("options.tie_break=\"most_potions\"",),
    ("options.tie_break=\"hecate\"",),
    ("options.amateur_witch=true",),
    ("options.end_trigger=\"deck_empty\"",),
])


@settings(max_examples=120, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**64 - 1), index=st.integers(0, 10**6),
       names=st.lists(st.sampled_from(["random", "greedy", "planner"]), min_size=4, max_size=4),
       overrides=OPTIONS)
def test_game_invariants(cm, players, seed, index, names, overrides):
    game = cm[0]
    compiled = game.compile(game.load_config(overrides)) if overrides else cm[1]
    t = compiled.tables
    lineup = build_lineup(game, names[:players], players)
    rep = game.replay(compiled, lineup, seed, index)
    n_cards = t.deck.size
    supply0 = int(t.supply_size[players])

    fill = [[0] * t.capacity.size for _ in range(players)]
    taken = brewed_cards = 0
    points = [0] * players
    deck_left = n_cards - supply0
    in_supply = supply0
    ends = 0
    for _rnd, event, seat, a, b, c in rep.events.tolist():
        if event == L.EV_TAKE:
            fill[seat][b] += 1
            taken += 1
            in_supply -= 1
            assert fill[seat][b] <= t.capacity[b], "cauldron over capacity"
            assert in_supply >= 0
        elif event == L.EV_POTION:
            assert fill[seat][a] == t.capacity[a], "only full cauldrons brew"
            brewed_cards += fill[seat][a]
            fill[seat][a] = 0
            points[seat] += b + c
        elif event == L.EV_REFILL:
            in_supply += a
            deck_left -= a
            assert in_supply == supply0 and deck_left == b
        elif event == L.EV_END:
            ends += 1
            if seat == -1:  # the deck could not refill the supply
                assert a > b == deck_left
            elif seat == -3:  # options.end_trigger = "deck_empty"
                assert deck_left == 0
        # Every card is somewhere: deck, supply, a cauldron, or brewed.
        in_cauldrons = sum(map(sum, fill))
        assert deck_left + in_supply + in_cauldrons + brewed_cards == n_cards

    out = rep.out
    assert ends == 1, "every game ends exactly once"
    assert 1 <= out[L.O_ROUNDS][0] <= t.max_rounds
    assert list(out[L.O_SCORE][0]) == points, "scores are the sum of brewed potions"
    assert list(out[L.O_CARDS_LEFT][0]) == [sum(f) for f in fill], "unbrewed cards score nothing"
    assert out[L.O_SCORED][0].sum() == brewed_cards
    assert (out[L.O_WITCH][0].sum(axis=1) == out[L.O_ROUNDS][0]).all(), \
        "one witch per player per round"
    # Witches cycle: within each block of len(hand) rounds each witch is played once.
    if out[L.O_ROUNDS][0] >= t.initiative.size:
        assert (out[L.O_WITCH][0] >= out[L.O_ROUNDS][0] // t.initiative.size).all()
    shares = out[L.O_WIN_SHARE][0]
    assert abs(float(shares.sum()) - 1.0) < 1e-6
    best = out[L.O_SCORE][0].max()
    assert all((r == 1) == (s > 0) for r, s in zip(out[L.O_RANK][0], shares, strict=True))
    assert all(out[L.O_SCORE][0][s] == best for s in range(players) if out[L.O_RANK][0][s] == 1)


def test_secret_witch_choice_ignores_others(cm):
    """A seat's round-1 witch depends only on public information, not others' choices."""
    game, compiled = cm
    a = game.replay(compiled, build_lineup(game, ["planner", "greedy", "greedy"], 3), 5, 0)
    b = game.replay(compiled, build_lineup(game, ["planner", "random", "random"], 3), 5, 0)
    first = [e for e in a.events.tolist() if e[1] == L.EV_REVEAL and e[0] == 0 and e[2] == 0]
    other = [e for e in b.events.tolist() if e[1] == L.EV_REVEAL and e[0] == 0 and e[2] == 0]
    assert first == other
    # The kernel hides choices in `pub` until all have chosen: witch options in round 1
    # are offered identically whatever the others will choose.
    assert (a.options[: a.decisions[0, 3]] == b.options[: b.decisions[0, 3]]).all()
