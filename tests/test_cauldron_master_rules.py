"""The rulebook's worked examples, played through the rules' own functions."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.games.cauldron_master import layout as L
from simkit.games.cauldron_master import options as O
from simkit.games.cauldron_master import rules as R
from simkit.games.cauldron_master import scoring as S


def new_pub(recipe_card: int = 0) -> np.ndarray:
    pub = np.zeros(L.PUB_SIZE, np.int32)
    pub[L.N_PLAYERS] = 4
    pub[L.RECIPE : L.RECIPE + 4] = recipe_card
    return pub


def brew(t, pub, seat, cauldron, cards):
    """Put `cards` (type indices) into a cauldron and score it as phase 4 would."""
    for x in cards:
        pub[L.cauldron_at(seat, cauldron, x)] += 1
        pub[L.fill_at(seat, cauldron)] += 1
    counts = np.zeros(L.MAX_COLOURS, np.int64)
    S.colour_counts(t, pub, seat, cauldron, counts)
    base = S.potion_points(t, pub, seat, cauldron, -1)
    bonus = S.recipe_points(t, pub, seat, cauldron, -1, counts, len(cards))
    return base, bonus


SIZE = {2: 0, 3: 1, 4: 2}  # cauldron index by capacity in the built-in config


def test_spell_points_examples(cm, cm_ids):
    t = cm[1].tables
    no_recipe = cm_ids["ravens_brew"]  # needs Raven's Head: matches none of these potions
    sv, ss, fb = cm_ids["spider_venom"], cm_ids["snake_skin"], cm_ids["frogs_blood"]
    # Charlie: 2 Spider Venom + 2 Snake Skin in a size 4 cauldron = 3 + 6 = 9.
    assert brew(t, new_pub(no_recipe), 0, SIZE[4], [sv, sv, ss, ss]) == (9, 0)
    # Zoe: 3 Frog's Blood in a size 3 cauldron = 12.
    assert brew(t, new_pub(no_recipe), 0, SIZE[3], [fb, fb, fb]) == (12, 0)
    # One Frog's Blood is worth 2 (Paul's example: 2 Spider Venom + 1 Frog's Blood = 5).
    assert t.score[fb, 1] == 2
    assert brew(t, new_pub(no_recipe), 0, SIZE[3], [sv, sv, fb]) == (5, 0)


def test_recipe_example(cm, cm_ids):
    t = cm[1].tables
    sv, fb = cm_ids["spider_venom"], cm_ids["frogs_blood"]
    # Paul: size 3 cauldron, 2 Spider Venom + 1 Frog's Blood, with the recipe card: 5 + 2.
    base, bonus = brew(t, new_pub(cm_ids["venom_draught"]), 0, SIZE[3], [sv, sv, fb])
    assert (base, bonus, base + bonus) == (5, 2, 7)


def test_only_one_recipe_per_potion(cm, cm_ids):
    """Venom Draught's two recipes both match 2 SV + 1 FB + 1 green: only the best counts."""
    t = cm[1].tables
    sv, fb, cr = cm_ids["spider_venom"], cm_ids["frogs_blood"], cm_ids["crickets"]
    base, bonus = brew(t, new_pub(cm_ids["venom_draught"]), 0, SIZE[4], [sv, sv, fb, cr])
    assert bonus == 2


def test_recipe_match_exact_option(cm_ids):
    from simkit.games import get_game

    game = get_game("cauldron-master")
    exact = game.compile(game.load_config(("options.recipe_match=\"exact\"",))).tables
    sv, fb = cm_ids["spider_venom"], cm_ids["frogs_blood"]
    card = cm_ids["venom_draught"]
    assert brew(exact, new_pub(card), 0, SIZE[3], [sv, sv, fb])[1] == 2
    # With an extra card the potion is no longer exactly the recipe.
    assert brew(exact, new_pub(card), 0, SIZE[4], [sv, sv, fb, fb])[1] == 0


def test_turn_order_example(cm, cm_ids):
    """Sam (Hecate) Shaman 4, Kit Mage 2, Charlie Mage 2, Paul Shaman 4.

    The rulebook's order: Kit, Charlie, Sam, Paul."""
    t = cm[1].tables
    sam, kit, charlie, paul = 0, 1, 2, 3  # clockwise seating: Kit sits to Sam's left
    chosen = np.zeros(L.MAX_PLAYERS, np.int64)
    chosen[sam] = chosen[paul] = cm_ids["shaman"]
    chosen[kit] = chosen[charlie] = cm_ids["mage"]
    assert t.initiative[cm_ids["shaman"]] == 4 and t.initiative[cm_ids["mage"]] == 2
    order = np.zeros(L.MAX_PLAYERS, np.int64)
    R.turn_order(t, 4, sam, chosen, order, np.zeros(L.MAX_PLAYERS, np.int64))
    assert list(order) == [kit, charlie, sam, paul]


@pytest.mark.parametrize(
    "hecate,expected", [(0, [0, 1, 2, 3]), (2, [2, 3, 0, 1]), (3, [3, 0, 1, 2])]
)
def test_full_tie_goes_clockwise_from_hecate(cm, cm_ids, hecate, expected):
    t = cm[1].tables
    chosen = np.full(L.MAX_PLAYERS, cm_ids["goddess"], np.int64)
    order = np.zeros(L.MAX_PLAYERS, np.int64)
    R.turn_order(t, 4, hecate, chosen, order, np.zeros(L.MAX_PLAYERS, np.int64))
    assert list(order) == expected


def pick_options(t, pub, seat, witch):
    pub[L.PICKS_LEFT] = t.max_cards[witch]
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    n = O.card_options(t, pub, seat, witch, opts, np.zeros(L.MAX_COLOURS, np.int64),
                        np.zeros(L.MAX_TYPES, np.int64))
    return opts[:n]


def test_mage_may_not_take_red(cm, cm_ids):
    """Kit's Mage faces 2 red cards and 1 green: she can only take the green one."""
    t = cm[1].tables
    pub = new_pub()
    pub[L.SUPPLY + cm_ids["bats_heart"]] = 1
    pub[L.SUPPLY + cm_ids["cats_skull"]] = 1
    pub[L.SUPPLY + cm_ids["crickets"]] = 1
    opts = pick_options(t, pub, 1, cm_ids["mage"])
    assert set(opts[:, L.A]) == {cm_ids["crickets"]}
    assert len(opts) == 3  # the one green card, into any of the three cauldrons


def test_shaman_takes_one_red_and_one_green(cm, cm_ids):
    t = cm[1].tables
    pub = new_pub()
    for ident in ("ravens_head", "bats_heart", "spider_venom", "crickets", "snake_skin"):
        pub[L.SUPPLY + cm_ids[ident]] = 1
    shaman = cm_ids["shaman"]
    opts = pick_options(t, pub, 0, shaman)
    colours = {t.colour[x] for x in opts[:, L.A]}
    assert colours == {0, 2}  # red and green, never orange
    # After one red card, only green remains takeable.
    pub[L.TAKEN + 0] = 1
    pub[L.PICKS_LEFT] = 1
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    n = O.card_options(t, pub, 0, shaman, opts, np.zeros(L.MAX_COLOURS, np.int64),
                        np.zeros(L.MAX_TYPES, np.int64))
    assert {t.colour[x] for x in opts[:n, L.A]} == {2}


def test_cauldrons_never_overfill(cm, cm_ids):
    """A full cauldron offers no place; cards only go where there is room."""
    t = cm[1].tables
    pub = new_pub()
    pub[L.SUPPLY + cm_ids["crickets"]] = 3
    for k, cap in enumerate(t.capacity):
        pub[L.fill_at(0, k)] = cap - (1 if k == 2 else 0)
        pub[L.cauldron_at(0, k, cm_ids["swamp_moss"])] = pub[L.fill_at(0, k)]
    opts = pick_options(t, pub, 0, cm_ids["herbalist"])
    assert set(opts[:, L.B]) == {2}
    assert (opts[:, L.FREE] == 0).all()


def test_option_points_match_scoring(cm, cm_ids):
    """An option's POINTS is exactly what phase 4 would score for that potion."""
    t = cm[1].tables
    sv, fb = cm_ids["spider_venom"], cm_ids["frogs_blood"]
    pub = new_pub(cm_ids["venom_draught"])
    pub[L.SUPPLY + fb] = 1
    pub[L.cauldron_at(0, SIZE[3], sv)] = 2
    pub[L.fill_at(0, SIZE[3])] = 2
    opts = pick_options(t, pub, 0, cm_ids["herbalist"])
    row = [r for r in opts if r[L.B] == SIZE[3]][0]
    assert row[L.POINTS] == 7 and row[L.FREE] == 0


def test_picking_optional_adds_stop(cm_ids):
    from simkit.games import get_game

    game = get_game("cauldron-master")
    t = game.compile(game.load_config(("options.picking_compulsory=false",))).tables
    pub = new_pub()
    pub[L.SUPPLY + cm_ids["crickets"]] = 1
    opts = pick_options(t, pub, 0, cm_ids["herbalist"])
    assert opts[-1, L.KIND] == L.OPT_STOP and (opts[:-1, L.KIND] == L.OPT_CARD).all()


# ------------------------------------------------------------------ options.recipe_choice
PLAYER = ('options.recipe_choice="player"',)


def _potions(t, pub, n_players=4):
    """Phase 4 through the rules: (options waiting, hid, counters, option table)."""
    from simkit.kernels.trace import new_trace_stub

    hid = np.zeros(L.HID_SIZE, np.int64)
    cnt = np.zeros((L.MAX_PLAYERS, L.CT_SIZE), np.int64)
    opts = np.zeros((L.MAX_OPTIONS, L.N_COLS), np.int32)
    counts = np.zeros(L.MAX_COLOURS, np.int64)
    trace = new_trace_stub(L.N_COLS)
    n = R.create_potions(t, n_players, pub, hid, cnt, opts, counts, trace, False)
    return n, hid, cnt, opts, trace


def test_recipe_choice_player_asks_the_owner(cm_ids):
    """Venom Draught's two recipes both match 2 SV + 1 FB + 1 Crickets (+2, +1). With
    "best" the +2 scores at once; with "player" the owner is asked, one row per recipe,
    and the +1 scores if chosen. A potion of seat 1 after it waits for that choice."""
    from simkit.games import get_game

    game = get_game("cauldron-master")
    best = game.compile(game.load_config(())).tables
    player = game.compile(game.load_config(PLAYER)).tables
    assert (best.recipe_choice, player.recipe_choice) == ("best", "player")
    sv, fb, cr = cm_ids["spider_venom"], cm_ids["frogs_blood"], cm_ids["crickets"]

    def potions_pub():
        pub = new_pub(cm_ids["venom_draught"])
        for seat in (0, 1):
            for x in (sv, sv, fb, cr):
                pub[L.cauldron_at(seat, SIZE[4], x)] += 1
            pub[L.fill_at(seat, SIZE[4])] = 4
        return pub

    pub = potions_pub()
    n, _, cnt, _, _ = _potions(best, pub)
    assert n == 0 and pub[L.SCORE] == pub[L.SCORE + 1] == 3 + 2 + 1 + 2
    assert cnt[0, L.CT_BONUS] == 2 and pub[L.fill_at(0, SIZE[4])] == 0

    pub = potions_pub()
    n, hid, cnt, opts, trace = _potions(player, pub)
    assert n == 2 and pub[L.PHASE] == L.PHASE_RECIPE and pub[L.SEAT] == 0
    assert opts[:n].tolist() == [[L.OPT_RECIPE, 0, SIZE[4], 8, 2, 0, 0],
                                 [L.OPT_RECIPE, 1, SIZE[4], 7, 1, 0, 0]]
    assert pub[L.SCORE] == 0 and pub[L.fill_at(0, SIZE[4])] == 4  # not brewed yet
    R.choose_recipe(player, pub, hid, cnt, 1, trace, False)  # the lower bonus
    assert pub[L.SCORE] == 7 and cnt[0, L.CT_BONUS] == 1 and cnt[0, L.CT_POTIONS] == 1
    assert pub[L.fill_at(0, SIZE[4])] == 0 and pub[L.PHASE] == L.PHASE_PICK
    counts = np.zeros(L.MAX_COLOURS, np.int64)
    n = R.create_potions(player, 4, pub, hid, cnt, opts, counts, trace, False)
    assert n == 2 and pub[L.SEAT] == 1  # seat 1's potion is next
    R.choose_recipe(player, pub, hid, cnt, 0, trace, False)
    assert R.create_potions(player, 4, pub, hid, cnt, opts, counts, trace, False) == 0
    assert pub[L.SCORE + 1] == 8 and cnt[1, L.CT_BONUS] == 2


def test_recipe_choice_player_single_match_not_asked(cm_ids):
    """Paul's potion matches one recipe only: it scores without a decision."""
    from simkit.games import get_game

    game = get_game("cauldron-master")
    player = game.compile(game.load_config(PLAYER)).tables
    sv, fb = cm_ids["spider_venom"], cm_ids["frogs_blood"]
    pub = new_pub(cm_ids["venom_draught"])
    for x in (sv, sv, fb):
        pub[L.cauldron_at(0, SIZE[3], x)] += 1
    pub[L.fill_at(0, SIZE[3])] = 3
    n, _, cnt, _, _ = _potions(player, pub)
    assert n == 0 and pub[L.SCORE] == 7 and cnt[0, L.CT_BONUS] == 2


def test_recipe_choice_player_greedy_as_best_random_lower(cm):
    """On the same deals, "player" changes nothing for greedy, planner and the rollout
    player (they take the highest bonus, as "best" scores it), while a random seat does
    sometimes score a lower bonus than the best matching recipe."""
    from simkit.engine import build_lineup

    game, best = cm
    player = game.compile(game.load_config(PLAYER))
    for names, games in ((["greedy"] * 4, 3000), (["planner", "greedy", "planner"], 1500),
                         (["rollout", "greedy"], 40)):
        lineup = build_lineup(game, names, len(names))
        a = game.simulate(best, lineup, 5, 0, games)
        b = game.simulate(player, lineup, 5, 0, games)
        assert a.keys() == b.keys()
        for column in a:
            np.testing.assert_array_equal(a[column], b[column], err_msg=f"{names} {column}")
    lineup = build_lineup(game, ["random"] * 4, 4)
    asked = lower = 0
    for g in range(300):
        rep = game.replay(player, lineup, 5, g)
        scored = [e for e in rep.events.tolist() if e[1] == L.EV_RECIPE]
        for rnd, seat, kind, n, chosen, first in rep.decisions.tolist():
            if kind != L.OPT_RECIPE:
                continue
            rows = rep.options[first: first + n]
            asked += 1
            lower += rows[chosen, L.GAIN] < rows[:, L.GAIN].max()
            # The potion scores the chosen recipe (the next EV_RECIPE of this seat).
            ev = next(e for e in scored if e[0] == rnd and e[2] == seat and e[3] == rows[0, L.B])
            scored.remove(ev)
            assert (ev[4], ev[5]) == (rows[chosen, L.A], rows[chosen, L.GAIN])
    assert asked >= 5 and lower >= 1
