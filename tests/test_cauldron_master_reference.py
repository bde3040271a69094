"""Differential tests: the numba kernel against the plain-Python reference.

The reference (tests/reference/cauldron_master.py) is written from the rule text and does
not import the kernel. For every game we compare each decision (seat, the whole option
table, the row chosen), the turn orders, potions, refills and end of game, and all
per-seat results. The reference also checks that all ingredient cards are accounted for
(deck + supply + cauldrons + brewed) at every phase boundary and that no cauldron ever
holds more than its capacity.

A failure message names (overrides, lineup, seed, game): replay it with
`game.replay(...)` / `reference.play(...)`.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.cauldron_master import layout as L
from simkit.kernels.trace import MAX_DECISIONS
from tests.reference import cauldron_master as reference

VARIANT = (
    "options.picking_compulsory=false",
    'options.recipe_match="exact"',
    'options.tie_break="most_potions"',
    "options.amateur_witch=true",
    'options.end_trigger="deck_empty"',
    "compensation.points=[0, 7, -5, 3]",  # seat compensation (not a rule option)
    "compensation.half=[0, 1, 0, 1]",  # and its half points (ties on the final score)
)
# Recipes mixing specific ingredients with icons of the same colour (the default cards
# never do), four cauldrons including a size-1 one, a smaller supply, a bigger Goddess.
STRESS = (
    "cauldrons.sizes=[1,2,3,4]",
    "supply.size={2=6, 3=7, 4=9}",
    "witches.goddess.max_cards=4",
    "witches.goddess.colour_limits={red=3, orange=1, green=4}",
    "recipe_cards.venom_draught.recipes=[{ingredients={spider_venom=1}, colours={green=1}, "
    "bonus=3}, {colours={green=2}, bonus=1}]",
    "recipe_cards.ravens_brew.recipes=[{ingredients={ravens_head=1}, colours={red=1}, "
    "bonus=5}, {colours={red=1, green=1}, bonus=2}]",
    "recipe_cards.bat_elixir.recipes=[{ingredients={fairy_wings=1, toadstools=1}, "
    "colours={orange=1}, bonus=4}, {colours={orange=1}, bonus=1}]",
    "recipe_cards.skull_tonic.recipes=[{ingredients={cats_skull=1}, colours={red=1, green=1}, "
    "bonus=6}, {colours={green=1}, bonus=1}, {ingredients={pigs_foot=1}, bonus=2}, "
    "{colours={red=2}, bonus=3}]",
    "recipe_cards.fae_philtre.recipes=[{ingredients={swamp_moss=2}, colours={green=1}, bonus=3}]",
)
# options.recipe_choice = "player": the potion's owner chooses among the matching recipes.
PLAYER = ('options.recipe_choice="player"',)
MIXED = {
    2: ["random", "greedy"],
    3: ["greedy", "random", "greedy"],
    4: ["random", "greedy", "greedy", "random"],
}
BIG_SEED = (1 << 64) - 1


@pytest.fixture(scope="module")
def cmref_kernel():
    """get(overrides, names, params) -> (game, compiled, lineup); compiles each config once."""
    game = get_game("cauldron-master")
    compiled: dict[tuple[str, ...], object] = {}

    def get(overrides: tuple[str, ...], names: list[str], params: tuple[str, ...] = ()):
        if overrides not in compiled:
            compiled[overrides] = game.compile(game.load_config(overrides))
        return game, compiled[overrides], build_lineup(game, names, len(names), params)

    return get


def _ints(a) -> list[int]:
    return [int(v) for v in np.asarray(a).ravel()]


def kernel_view(rep) -> dict:
    """The kernel's trace and outputs in the reference's result format."""
    decisions = []
    for rnd, seat, kind, n, chosen, first in rep.decisions.tolist():
        rows = [tuple(r) for r in rep.options[first: first + n].tolist()]
        decisions.append((rnd, seat, kind, rows, chosen))
    ev = rep.events.tolist()
    orders: dict[int, list[int]] = {}
    for rnd, e, seat, _pos, _, _ in ev:
        if e == L.EV_ORDER:
            orders.setdefault(rnd, []).append(seat)
    out = rep.out
    ends = [(rnd, a, b) if seat == -1 else (rnd, seat, 0)  # seat -2/-3: other end reasons
            for rnd, e, seat, a, b, _ in ev if e == L.EV_END]
    return {
        "decisions": decisions,
        "turn_orders": [orders[r] for r in sorted(orders)],
        "potion_log": [(rnd, s, a, b, c) for rnd, e, s, a, b, c in ev if e == L.EV_POTION],
        "recipe_log": [(rnd, s, a, b, c) for rnd, e, s, a, b, c in ev if e == L.EV_RECIPE],
        "refills": [(rnd, a, b) for rnd, e, _, a, b, _ in ev if e == L.EV_REFILL],
        "end": ends[0] if len(ends) == 1 else ends,
        "scores": _ints(out[L.O_SCORE][0]),
        "ranks": _ints(out[L.O_RANK][0]),
        "win_share": [float(v) for v in out[L.O_WIN_SHARE][0]],
        "rounds": int(out[L.O_ROUNDS][0]),
        "strategy": _ints(out[L.O_STRATEGY][0]),
        "recipe_card": _ints(out[L.O_RECIPE_CARD][0]),
        "potions": _ints(out[L.O_POTIONS][0]),
        "recipe_bonus": _ints(out[L.O_RECIPE_BONUS][0]),
        "cards_left": _ints(out[L.O_CARDS_LEFT][0]),
        "witches_played": [_ints(row) for row in out[L.O_WITCH][0]],
        "scored_cards": [_ints(row) for row in out[L.O_SCORED][0]],
    }


def first_difference(ker: dict, ref: dict) -> str | None:
    """A readable description of the first disagreement, or None."""
    for i, (k, r) in enumerate(zip(ker["decisions"], ref["decisions"], strict=False)):
        if k != r:
            (kr, ks, kk, kopts, kc), (rr, rs, rk, ropts, rc) = k, r
            lines = [f"decision {i}: kernel round {kr} seat {ks} kind {kk} chose {kc}; "
                     f"reference round {rr} seat {rs} kind {rk} chose {rc}"]
            for j in range(max(len(kopts), len(ropts))):
                a = kopts[j] if j < len(kopts) else None
                b = ropts[j] if j < len(ropts) else None
                if a != b:
                    lines.append(f"  option row {j}: kernel {a} reference {b}")
            return "\n".join(lines)
    if len(ker["decisions"]) != len(ref["decisions"]):
        return (f"decision count: kernel {len(ker['decisions'])}, "
                f"reference {len(ref['decisions'])}")
    for key in ("turn_orders", "potion_log", "recipe_log", "refills", "end", "rounds",
                "scores", "ranks", "potions", "recipe_bonus", "cards_left", "strategy",
                "recipe_card", "witches_played", "scored_cards"):
        if ker[key] != ref[key]:
            return f"{key}: kernel {ker[key]} reference {ref[key]}"
    want = [float(np.float32(v)) for v in ref["win_share"]]
    if ker["win_share"] != want:
        return f"win_share: kernel {ker['win_share']} reference {want}"
    return None


def check_reference_invariants(ref: dict, rules: reference.Rules) -> str | None:
    for rnd, where, total, caps_ok in ref["checks"]:
        if total != ref["n_cards"]:
            return f"round {rnd} after {where}: {total} of {ref['n_cards']} cards accounted for"
        if not caps_ok:
            return f"round {rnd} after {where}: a cauldron holds more than its capacity"
    for _, _, _, rows, chosen in ref["decisions"]:
        if not 0 <= chosen < len(rows):
            return "chosen row out of range"
        for kind, _, k, _, _, same, free in rows:
            if kind == L.OPT_CARD and not (0 <= free < rules.capacity[k] and same >= 1):
                return f"card option into cauldron {k} leaves {free} free"
    if sum(ref["win_share"]) != pytest.approx(1.0) or min(ref["ranks"]) != 1:
        return "win shares do not sum to 1"
    return None


def run_games(get, overrides: tuple[str, ...], names: list[str], seed: int, games: range,
              params: tuple[str, ...] = ()) -> int:
    """Compare the games; returns how many recipe decisions they held (two rows or more:
    options.recipe_choice = "player" asks only then)."""
    game, compiled, lineup = get(overrides, names, params)
    n = len(names)
    rules = reference.load_rules(overrides)
    vectors = [[float(v) for v in row] for row in lineup.params]
    recipe_decisions = 0
    for g in games:
        rep = game.replay(compiled, lineup, seed, g)
        assert len(rep.decisions) < MAX_DECISIONS, "kernel trace truncated"
        ref = reference.play(overrides, n, seed, g, list(lineup.names), vectors)
        where = f"overrides={overrides} lineup={names} params={params} seed={seed} game={g}"
        problem = check_reference_invariants(ref, rules)
        assert problem is None, f"reference invariant broken, {where}: {problem}"
        diff = first_difference(kernel_view(rep), ref)
        assert diff is None, f"kernel != reference, {where}:\n{diff}"
        recipe_decisions += sum(1 for _, _, kind, rows, _ in ref["decisions"]
                                if kind == L.OPT_RECIPE and len(rows) >= 2)
    return recipe_decisions


# ------------------------------------------------------------------ differential runs
@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_random(cmref_kernel, n):
    run_games(cmref_kernel, (), ["random"] * n, 20240601, range(300))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_greedy(cmref_kernel, n):
    run_games(cmref_kernel, (), ["greedy"] * n, 7, range(150))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_mixed_rotating(cmref_kernel, n):
    # Rotating lineups: deal = game // n, seats shift by game % n; odd start on purpose.
    run_games(cmref_kernel, (), MIXED[n], BIG_SEED, range(1001, 1301))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_greedy_params_vs_random(cmref_kernel, n):
    params = ("greedy.points_weight=2.5", "greedy.gain_weight=0.25")
    run_games(cmref_kernel, (), ["greedy"] + ["random"] * (n - 1), 99, range(120), params)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rule_variants(cmref_kernel, n):
    run_games(cmref_kernel, VARIANT, MIXED[n], 31337, range(200))
    run_games(cmref_kernel, VARIANT, ["random"] * n, 4242, range(100))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_stress_config(cmref_kernel, n):
    run_games(cmref_kernel, STRESS, MIXED[n], 5, range(100))
    run_games(cmref_kernel, STRESS + ('options.recipe_match="exact"',), ["random"] * n, 6,
              range(60))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_recipe_choice_player(cmref_kernel, n):
    """options.recipe_choice = "player": the recipe decisions (option rows, the row chosen,
    the recipe each potion scored) agree too, and the games do ask them. The default cards
    rarely match two recipes at once; STRESS's often do."""
    asked = run_games(cmref_kernel, PLAYER + STRESS, MIXED[n], 8, range(120))
    asked += run_games(cmref_kernel, PLAYER + STRESS, ["random"] * n, 9, range(60))
    asked += run_games(cmref_kernel, PLAYER + STRESS + VARIANT, MIXED[n], 10, range(60))
    assert asked >= 50
    assert run_games(cmref_kernel, PLAYER, ["random"] * n, 11, range(200)) > 0
    names = ["planner", "random", "greedy", "planner"][:n]
    assert run_games(cmref_kernel, PLAYER + STRESS, names, 12, range(20)) > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_with_planner(cmref_kernel, n):
    # The reference calls the compiled planner with a `pub` it builds per layout.py.
    names = ["planner", "random", "greedy", "planner"][:n]
    run_games(cmref_kernel, (), names, 12, range(40))
    run_games(cmref_kernel, VARIANT, ["planner"] * n, 13, range(15))


# ------------------------------------------------------------------ reference vs rulebook
def test_reference_rulebook_turn_order_example():
    # Sam (seat 0, Favour of Hecate) Shaman 4, Kit (1) Mage 2, Charlie (2) Mage 2,
    # Paul (3) Shaman 4 -> Kit, Charlie, Sam, Paul.
    assert reference.turn_order([4, 2, 2, 4], hecate=0) == [1, 2, 0, 3]
    # The tie-break follows the Favour of Hecate around the table.
    assert reference.turn_order([3, 3, 3], hecate=2) == [2, 0, 1]


def _pot(rules_names, counts: dict[str, int]) -> list[int]:
    ids = rules_names.ingredient_ids
    return [counts.get(x, 0) for x in ids]


def test_reference_rulebook_scoring_examples(cmref_kernel):
    game, compiled, _ = cmref_kernel((), ["random", "random"])
    names = compiled.names
    rules = reference.load_rules(())
    # Charlie: 2 Spider Venom + 2 Snake Skin = 3 + 6 = 9.
    assert reference.spell_points(rules, _pot(names, {"spider_venom": 2, "snake_skin": 2})) == 9
    # Zoe: 3 Frog's Blood = 12.
    assert reference.spell_points(rules, _pot(names, {"frogs_blood": 3})) == 12
    # Paul: 2 Spider Venom + 1 Frog's Blood = 5, + 2 from his recipe card = 7.
    paul = _pot(names, {"spider_venom": 2, "frogs_blood": 1})
    card = names.recipe_ids.index("venom_draught")
    assert reference.potion_value(rules, card, paul) == (5, 2)
    # Only one recipe per potion, the best: this potion also has 3 green cards (+1).
    bigger = _pot(names, {"spider_venom": 2, "frogs_blood": 1, "crickets": 1})
    assert reference.recipe_bonus(rules, card, bigger) == 2
    exact = reference.load_rules(('options.recipe_match="exact"',))
    assert reference.recipe_bonus(exact, card, paul) == 2
    assert reference.recipe_bonus(exact, card, bigger) == 0


def test_reference_icons_not_covered_by_specific_cards(cmref_kernel):
    _, compiled, _ = cmref_kernel(STRESS, ["random", "random"])
    names = compiled.names
    rules = reference.load_rules(STRESS)
    card = names.recipe_ids.index("venom_draught")  # venom + 1 more green: +3; 2 green: +1
    assert reference.recipe_bonus(rules, card, _pot(names, {"spider_venom": 1})) == 0
    assert reference.recipe_bonus(rules, card, _pot(names, {"spider_venom": 2})) == 3
    assert reference.recipe_bonus(rules, card, _pot(names, {"crickets": 2})) == 1
    card = names.recipe_ids.index("bat_elixir")  # wings + toadstool + 1 more orange: +4
    wings_toad = {"fairy_wings": 1, "toadstools": 1}
    assert reference.recipe_bonus(rules, card, _pot(names, wings_toad)) == 1
    assert reference.recipe_bonus(rules, card, _pot(names, wings_toad | {"frogs_blood": 1})) == 4


@pytest.mark.parametrize("n", [2, 3, 4])
def test_favour_of_hecate_breaks_ties(cmref_kernel, n):
    """options.tie_break = "hecate": kernel and reference agree game by game, and on the
    same deals every shared win becomes the win of the tied seat nearest the Favour's
    holder, clockwise (seat + 1)."""
    hecate = ('options.tie_break="hecate"',)
    run_games(cmref_kernel, hecate, ["random"] * n, 2718, range(150))
    game, compiled, lineup = cmref_kernel((), ["random"] * n)
    _, compiled_h, _ = cmref_kernel(hecate, ["random"] * n)
    shared = game.simulate(compiled, lineup, 2718, 0, 3000)
    broken = game.simulate(compiled_h, lineup, 2718, 0, 3000)
    assert (broken["win_share"] == 1).sum(axis=1).tolist() == [1] * 3000
    tied = np.flatnonzero((shared["rank"] == 1).sum(axis=1) > 1)
    assert len(tied) > 10  # the sample does hold ties
    for g in tied:
        replay = game.replay(compiled_h, lineup, 2718, int(g))
        holder = next(e[2] for e in reversed(replay.events.tolist()) if e[1] == L.EV_HECATE) \
            if (replay.events[:, 1] == L.EV_HECATE).any() else 0
        seats = [s for s in range(n) if shared["rank"][g, s] == 1]
        winner = min(seats, key=lambda s: (s - holder) % n)
        assert broken["win_share"][g, winner] == 1, (g, holder, seats)
