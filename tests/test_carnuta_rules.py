"""Carnuta rule examples: hand-checked scoring of small tableaus (every scoring kind,
Double, Salt, Bonus tokens) through the kernel's scoring functions and the reference,
the end-of-game sequence, padlocks and bonus spaces, the tiebreaker."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.carnuta import layout as L
from simkit.games.carnuta import options as O
from simkit.games.carnuta import play as P
from simkit.games.carnuta import rules as R
from simkit.games.carnuta import scoring as S
from simkit.kernels.trace import new_trace_stub
from simkit.rng import py_stream_state
from tests.reference import carnuta as reference

# Test cards, written over placeholder entries with --set so the examples do not depend
# on the placeholder list. Ingredient order: clover flower egg honey skull butterfly
# berry mushroom.
OVERRIDES = (
    # A Mushroom (Night) card scoring 2 points per Egg (Day), as on the published cards.
    'cards.mushroom_2.score="each"', 'cards.mushroom_2.ingredients=["egg"]',
    "cards.mushroom_2.points=2",
    'cards.clover_4.score="set3"', 'cards.clover_4.ingredients=["clover", "flower", "egg"]',
    "cards.clover_4.points=6",
    'cards.skull_3.score="set2"', 'cards.skull_3.ingredients=["skull", "berry"]',
    "cards.skull_3.points=4",
    'cards.honey_5.score="two_types"', 'cards.honey_5.ingredients=["clover", "honey"]',
    "cards.honey_5.points=1",
    'cards.egg_1.score="own"', "cards.egg_1.points=1",
    'cards.berry_6.score="flat5"', "cards.berry_6.points=5",
    'cards.flower_7.score="flat2"', "cards.flower_7.points=2",
    'cards.egg_8.kind="double"', 'cards.egg_8.score="flat2"', 'cards.egg_8.ingredients=[]',
    "cards.egg_8.points=2",
    'cards.day_salt_1.score="own"', "cards.day_salt_1.points=1",
    'cards.clover_3.score="set2"', 'cards.clover_3.ingredients=["clover", "clover"]',
    "cards.clover_3.points=4",
)


@pytest.fixture(scope="module")
def ex():
    game = get_game("carnuta")
    compiled = game.compile(game.load_config(OVERRIDES))
    ids = {c: i for i, c in enumerate(compiled.names.card_ids)}
    types = {x: i for i, x in enumerate(compiled.names.ingredient_ids)}
    return compiled.tables, ids, types, reference.load_rules(OVERRIDES)


def score(ex, cards: list[tuple[str, str]], tokens: dict[str, int] | None = None) -> int:
    """Score a tableau [(card id, column)] with the kernel and check the reference agrees."""
    t, ids, types, rules = ex
    pub = np.zeros(L.PUB_SIZE, np.int32)
    base = L.PLAYER
    tok = [0] * t.n_types
    for x, v in (tokens or {}).items():
        tok[types[x]] = v
        pub[base + L.P_COUNT + types[x]] += v
    tableau = []
    for i, (card, col) in enumerate(cards):
        c = ids[card]
        pub[base + L.P_CARDS + i] = c
        pub[base + L.P_COLUMN + i] = types[col]
        pub[base + L.P_COUNT + types[col]] += t.card_amount[c]
        tableau.append((c, types[col]))
    pub[base + L.P_N_CARDS] = len(cards)
    kernel = int(S.tableau_points(t.card, pub, 0, -1, 0))
    assert kernel == reference.score_tableau(rules, tableau, tok)
    # The kernel's per-decision gain table agrees with a rescoring.
    cache = np.zeros(L.GAIN_SIZE, np.int64)
    has = np.zeros(L.MAX_TYPES, np.int64)
    S.gain_table(t.card, pub, 0, cache, has)
    for x in range(t.n_types):
        more = list(tok)
        more[x] += 1
        assert cache[3 * x + 1] == reference.score_tableau(rules, tableau, more) - kernel
    return kernel


def test_set_of_three(ex):
    # 6 points per set of Clover + Flower + Egg: 2 Clover, 2 Flower, 1 Egg = one set.
    cards = [("clover_4", "clover"), ("clover_1", "clover"), ("flower_1", "flower"),
             ("flower_2", "flower"), ("egg_2", "egg")]
    assert score(ex, [("clover_4", "clover")]) == 0
    t, ids, *_ = ex
    others = sum(reference.line_points(ex[3], ex[3].cards[ids[c]], ex[2][col],
                                       [2, 2, 1, 0, 0, 0, 0, 0]) for c, col in cards[1:])
    assert score(ex, cards) == 6 + others
    # A second Egg completes a second set.
    more = cards + [("egg_3", "egg")]
    assert reference.line_points(ex[3], ex[3].cards[ids["clover_4"]], 0,
                                 [2, 2, 2, 0, 0, 0, 0, 0]) == 12
    assert score(ex, more) > score(ex, cards)


def test_set_of_two_and_repeated_ingredient(ex):
    rules, ids = ex[3], ex[1]
    skull_berry = rules.cards[ids["skull_3"]]
    assert reference.line_points(rules, skull_berry, 4, [0, 0, 0, 0, 3, 0, 2, 0]) == 8
    assert reference.line_points(rules, skull_berry, 4, [0, 0, 0, 0, 3, 0, 0, 0]) == 0
    # "set of 2" listing Clover twice: 4 points per pair of Clovers.
    pair = rules.cards[ids["clover_3"]]
    assert reference.line_points(rules, pair, 0, [5, 0, 0, 0, 0, 0, 0, 0]) == 8
    assert score(ex, [("clover_3", "clover"), ("clover_1", "clover"), ("clover_2", "clover")]) \
        >= 4


def test_each_and_night_card_scoring_day_ingredient(ex):
    # Mushroom card: 2 points per Egg. Alone: 0; with 2 Eggs: 4 (+ the Eggs' own lines).
    assert score(ex, [("mushroom_2", "mushroom")]) == 0
    rules, ids = ex[3], ex[1]
    assert reference.line_points(rules, rules.cards[ids["mushroom_2"]], 7,
                                 [0, 0, 2, 0, 0, 0, 0, 1]) == 4


def test_two_types_own_and_flat(ex):
    rules, ids = ex[3], ex[1]
    # 1 point per Clover and per Honey: 2 Clover + 3 Honey = 5.
    assert reference.line_points(rules, rules.cards[ids["honey_5"]], 3,
                                 [2, 0, 0, 3, 0, 0, 0, 0]) == 5
    # 1 point per ingredient shown, the card itself included: alone it scores 1.
    assert score(ex, [("egg_1", "egg")]) == 1
    assert score(ex, [("berry_6", "berry")]) == 5
    assert score(ex, [("flower_7", "flower")]) == 2


def test_double_counts_two(ex):
    # Egg (own: 1 per Egg) + a Double Egg (flat 2): the Egg column holds 3 Eggs.
    assert score(ex, [("egg_1", "egg"), ("egg_8", "egg")]) == 3 + 2


def test_salt_counts_one_of_its_column(ex):
    # Salt stacked on the Egg column: one more Egg for the Egg card; its own line ("own")
    # counts the Egg column too.
    assert score(ex, [("egg_1", "egg"), ("day_salt_1", "egg")]) == 2 + 2


def test_bonus_tokens_count_as_ingredients(ex):
    assert score(ex, [("egg_1", "egg")], {"egg": 1}) == 2
    assert score(ex, [("mushroom_2", "mushroom")], {"egg": 2}) == 4


def test_salt_options_only_on_played_columns(ex):
    """A Salt card is offered once per column that already holds a card."""
    game = get_game("carnuta")
    compiled = game.compile(game.load_config(OVERRIDES))
    lineup = build_lineup(game, ["random", "random"], 2)
    seen = 0
    for g in range(40):
        rep = game.replay(compiled, lineup, 11, g)
        for _rnd, _seat, _step, n, _c, first in rep.decisions.tolist():
            rows = rep.options[first: first + n]
            for r in rows:
                if r[L.KIND] == L.OPT_PLAY and compiled.tables.card_kind[r[L.B]] == L.SALT:
                    seen += 1
    assert seen > 0


def turns_after_trigger(rep, n):
    """(trigger round, trigger seat, last round, turns per seat after the trigger)."""
    trig = [e for e in rep.events.tolist() if e[1] == L.EV_TRIGGER]
    assert len(trig) == 1
    rnd, _, seat = trig[0][:3]
    return rnd, seat, int(rep.out[L.O_ROUNDS][0]) - 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_end_of_game_sequence(n):
    """The 11th card triggers the end: the round is finished, then one final turn each."""
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["greedy"] * n, n)
    triggered = 0
    for g in range(30):
        rep = game.replay(compiled, lineup, 3, g)
        if not any(e[1] == L.EV_TRIGGER for e in rep.events.tolist()):
            # A few greedy games in 10,000 stall until the `max_rounds` safety stop, with
            # either tie rule; this test is about the games whose end is triggered.
            assert int(rep.out[L.O_ROUNDS][0]) == 100
            continue
        triggered += 1
        rnd, seat, last = turns_after_trigger(rep, n)
        assert last == rnd + 1  # the trigger round, then exactly one more round
        assert (rep.out[L.O_TURNS][0] == last + 1).all()  # every seat took the same turns
        assert rep.out[L.O_TRIGGERED_END][0, seat] == 1 and rep.out[L.O_TRIGGERED_END][0].sum() == 1
        plays = [e for e in rep.events.tolist() if e[1] == L.EV_PLAY and e[2] == seat]
        trigger_play = [e for e in plays if e[0] == rnd]
        assert any(e[5] == 11 for e in trigger_play)
    assert triggered >= 28
    # final_turns = false: the game ends when the trigger round is finished.
    short = game.compile(game.load_config(("options.final_turns=false",)))
    for g in range(10):
        rep = game.replay(short, lineup, 3, g)
        rnd, _seat, last = turns_after_trigger(rep, n)
        assert last == rnd


def test_players_may_pass_eleven_cards():
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    cols = game.simulate(compiled, build_lineup(game, ["greedy"], 2), 1, 0, 400)
    assert cols["cards_played"].max() + 1 > 11  # the starting card counts


def test_padlocks_and_bonus_spaces():
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    lineup = build_lineup(game, ["greedy"] * 3, 3)
    for g in range(20):
        rep = game.replay(compiled, lineup, 8, g)
        ev = rep.events.tolist()
        for s in range(3):
            played = 1 + int(rep.out[L.O_CARDS_PLAYED][0, s])
            locks = [e[4] for e in ev if e[1] == L.EV_PADLOCK and e[2] == s]
            tokens = [e[4] for e in ev if e[1] == L.EV_TOKEN and e[2] == s]
            assert locks == [lv for lv in (4, 8) if lv <= played]
            assert tokens == [lv for lv in (6, 10) if lv <= min(played, 11)]


def test_tiebreaker_best_ingredient():
    """Tied scores: the most points in a single ingredient wins; still tied: shared."""
    game = get_game("carnuta")
    compiled = game.compile(game.load_config())
    cols = game.simulate(compiled, build_lineup(game, ["random"], 2), 5, 0, 20000)
    score, best, rank = cols["score"], cols["best_ingredient_points"], cols["rank"]
    ties = score[:, 0] == score[:, 1]
    assert ties.sum() > 10
    for g in np.flatnonzero(ties):
        if best[g, 0] == best[g, 1]:
            assert (rank[g] == 1).all() and (cols["win_share"][g] == 0.5).all()
        else:
            assert rank[g, int(np.argmax(best[g]))] == 1 and sorted(rank[g]) == [1, 2]


def test_flip_runes_options():
    """Rule text: flip so all runes show one type; BGA ("some"): any number of one side."""
    game = get_game("carnuta")
    for overrides, some in (((), False), (('options.flip_runes="some"',), True)):
        compiled = game.compile(game.load_config(overrides))
        rep = game.replay(compiled, build_lineup(game, ["random"] * 2, 2), 2, 0)
        n, first = rep.decisions[0, 3], rep.decisions[0, 5]
        flips = [tuple(r) for r in rep.options[first: first + n] if r[L.KIND] == L.OPT_FLIP]
        # Setup: 2 Sun + 2 Moon; "all": to Sun (2 flipped) and to Moon (2 flipped).
        if some:
            assert [(r[L.A], r[L.C]) for r in flips] == [(0, 1), (0, 2), (1, 1), (1, 2)]
        else:
            assert [(r[L.A], r[L.C]) for r in flips] == [(0, 2), (1, 2)]


@pytest.mark.parametrize("on_start", [True, False])
def test_salt_on_a_column_holding_only_the_starting_card(on_start):
    """options.salt_on_starting_card: a Salt "on top of a card already played" may go on
    the column of the starting card alone (true) or only on a column holding a card played
    from hand (false)."""
    game = get_game("carnuta")
    flag = "true" if on_start else "false"
    compiled = game.compile(game.load_config((f"options.salt_on_starting_card={flag}",)))
    t = compiled.tables
    sc = P.new_scratch(t)
    pub, opts, hid, cnt, rngs = sc.pub, sc.opts, sc.hid, sc.cnt, sc.rngs
    rngs[0, 0] = py_stream_state(5, 0)
    R.setup(t, 2, pub, hid, cnt, rngs[0], new_trace_stub(L.N_COLS), False)
    starts = hid[L.STARTS:]  # setup's starting cards, seat 0's first
    salt = int(np.flatnonzero(t.card_kind == L.SALT)[0])
    base = L.player_at(0, 0)
    pub[base + L.P_HAND] = salt
    pub[base + L.P_HAND_N] = 1
    pub[base + L.P_SUN] = pub[base + L.P_MOON] = 3  # enough to pay any cost
    n = O.action_options(t.card, 0, 0, pub, hid, 0, opts, -1)
    salt_columns = [int(opts[i, L.C]) for i in range(n)
                    if opts[i, L.KIND] == L.OPT_PLAY and opts[i, L.B] == salt]
    assert salt_columns == ([int(t.card[starts[0], L.CARD_ING])] if on_start else [])
