"""Differential tests: the Inori numba kernel against the plain-Python reference.

The reference (tests/reference/inori.py) is written from docs/inori.md and the rule text
and does not import the kernel. For every game we compare each decision (season, seat,
step, the whole option table, the row chosen), every event and all per-seat outputs. The
reference also checks, after every turn and every season end, that every Favor token,
card and Rune tile is accounted for, that each player's markers add up to the season's
count, that no space holds two markers of one player, that no count went negative and
that every cost was paid from tokens held; and that the game lasts `seasons` seasons.

A failure message names (overrides, lineup, params, seed, game): replay it with
`game.replay(...)` / `reference.play(...)`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.inori import layout as L
from simkit.kernels.trace import MAX_DECISIONS, MAX_EVENTS
from tests.reference import inori as reference

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "inori.toml"

# Every option of configs/inori.toml [options], flipped one at a time.
VARIANTS = {
    "cost_hold": ('options.cost_payment="hold"',),
    "majority_unpayable": ('options.majority_tie="unpayable"',),
    "altar_cost_0": ("options.altar_cost=0",),
    "altar_cost_2": ("options.altar_cost=2",),
    "altar_no_repeat": ("options.altar_repeat_effect=false",),
    "tie_reverse": ('options.fewest_points_tie="reverse_turn_order"',),
    "tie_random": ('options.fewest_points_tie="random"',),
    "new_start_none": ('options.new_start_use="none"',),
    "leave_empty": ('options.empty_deck="leave_empty"',),
    "root_fixed": ('options.root_tokens="fixed"',),
    "specific_per_token": ('options.specific_colours="per_token"',),
    "rune_before": ('options.rune_timing="before_offering"',),
    "move_own": ('options.move_piece="own"',),
    "win_most_tokens": ('options.win_tie="most_tokens"',),
    "occupied_cards": ('options.occupied_spaces="cards"',),
    "occupied_one": ('options.occupied_count="one"',),
    "compensation": ("compensation.points=[0, 7, -5, 3]",),  # seat compensation
    "half": ("compensation.half=[0, 1, 0, 1]",),  # half points: ties on the final score
}
MIXED = {
    2: ["random", "planner"],
    3: ["greedy", "random", "planner"],
    4: ["random", "greedy", "planner", "planner"],
}
BIG_SEED = (1 << 64) - 1


# ------------------------------------------------------------------ stress configs
def _toml(value: Any) -> str:
    """A value as inline TOML (strings, ints, lists, tables)."""
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"


def _config() -> dict[str, Any]:
    with open(CONFIG, "rb") as f:
        return tomllib.load(f)


def small_decks(per_colour: int) -> tuple[str, ...]:
    """Keep only the first `per_colour` Journey cards of each colour: decks run out."""
    kept: dict[str, int] = {}
    cards = []
    for card in _config()["cards"]:
        kept[card["colour"]] = kept.get(card["colour"], 0) + 1
        if kept[card["colour"]] <= per_colour:
            cards.append({k: v for k, v in card.items() if k != "placeholder"})
    return ("cards=" + _toml(cards),)


def many_runes() -> tuple[str, ...]:
    """Every space scoring points_distinct / points_majority draws 2 Rune tiles instead."""
    out = []
    data = _config()
    for table in ("cards", "start_cards", "new_start_cards"):
        for card in data[table]:
            for s, space in enumerate(card["spaces"]):
                if space["effect"] in ("points_distinct", "points_majority"):
                    out += [f'{table}.{card["id"]}.spaces.{s}.effect="rune"',
                            f"{table}.{card['id']}.spaces.{s}.amount=2"]
    return (*out, "tree.altar_rune.amount=3")


CROWDED = (
    # Scarce tokens (supply-limited gains, unpayable costs, passes), many neutral
    # markers and blocks, more markers per season, occupied-space Runes.
    *(f"colours.{c}.tokens=4" for c in ("yellow", "green", "red", "blue", "purple", "grey")),
    "setup.neutral_markers=8",
    "tree.altar_block.amount=4",
    "tree.altar_any.amount=5",
    "markers.2=[6, 7, 8, 9]",
    "markers.3=[5, 6, 7, 8]",
    "markers.4=[4, 5, 6, 7]",
    'runes.gain_green.kind="occupied"',
    'runes.gain_blue.kind="occupied"',
)
STRESS = {
    "small_decks": small_decks(1),
    "small_decks_leave_empty": small_decks(2) + ('options.empty_deck="leave_empty"',),
    "many_runes": many_runes() + ("setup.new_start_draw=4",),
    "crowded": CROWDED,
    "crowded_variant": CROWDED + small_decks(2) + (
        'options.cost_payment="hold"', 'options.majority_tie="unpayable"',
        "options.altar_cost=2", 'options.fewest_points_tie="random"',
        'options.root_tokens="fixed"'),
}


# ------------------------------------------------------------------ comparison
@pytest.fixture(scope="module")
def inori_kernel():
    """get(overrides, names, params) -> (game, compiled, lineup); compiles each config once."""
    game = get_game("inori")
    compiled: dict[tuple[str, ...], Any] = {}

    def get(overrides: tuple[str, ...], names: list[str], params: tuple[str, ...] = ()):
        if overrides not in compiled:
            compiled[overrides] = game.compile(game.load_config(overrides))
        return game, compiled[overrides], build_lineup(game, names, len(names), params)

    return get


def _ints(a: Any) -> list[int]:
    return [int(v) for v in np.asarray(a).ravel()]


STAT_OUTPUTS = (  # reference stats key -> result array (per seat)
    ("points", L.O_POINTS), ("tree_uses", L.O_TREE), ("runes_played", L.O_RUNE),
    ("runes_drawn", L.O_RUNES_DRAWN), ("completed", L.O_CARDS_COMPLETED),
    ("completed_cards", L.O_CARD), ("seasons_first", L.O_SEASONS_FIRST),
    ("passes", L.O_MARKERS_PASSED), ("tiles", L.O_TILES_PLACED), ("turns", L.O_TURNS),
    ("paid", L.O_TOKENS_PAID), ("gained", L.O_TOKENS_GAINED),
    ("neutral", L.O_NEUTRAL_PLACED), ("new_starts", L.O_NEW_STARTS_KEPT),
    ("card_offerings", L.O_CARD_OFFERINGS),
)


def kernel_view(rep: Any) -> dict:
    """The kernel's trace and outputs in the reference's result format."""
    decisions = []
    for season, seat, step, n, chosen, first in rep.decisions.tolist():
        rows = [tuple(r) for r in rep.options[first: first + n].tolist()]
        decisions.append((season, seat, step, rows, chosen))
    out = rep.out
    n = out[L.O_SCORE].shape[1]
    stats = []
    for s in range(n):
        st = {}
        for key, i in STAT_OUTPUTS:
            v = _ints(out[i][0, s])
            st[key] = v if np.ndim(out[i][0, s]) else v[0]
        stats.append(st)
    return {
        "decisions": decisions,
        "events": [tuple(e) for e in rep.events.tolist()],
        "scores": _ints(out[L.O_SCORE][0]),
        "ranks": _ints(out[L.O_RANK][0]),
        "win_share": [float(v) for v in out[L.O_WIN_SHARE][0]],
        "rounds": int(out[L.O_ROUNDS][0]),
        "strategy": _ints(out[L.O_STRATEGY][0]),
        "tokens": [_ints(out[L.O_TOKENS][0, s]) for s in range(n)],
        "stats": stats,
    }


def first_difference(ker: dict, ref: dict) -> str | None:
    """A readable description of the first disagreement, or None."""
    for i, (k, r) in enumerate(zip(ker["decisions"], ref["decisions"], strict=False)):
        if k != r:
            lines = [f"decision {i} (season, seat, step): kernel {k[:3]} chose {k[4]}; "
                     f"reference {r[:3]} chose {r[4]}"]
            for j in range(max(len(k[3]), len(r[3]))):
                a = k[3][j] if j < len(k[3]) else None
                b = r[3][j] if j < len(r[3]) else None
                if a != b:
                    lines.append(f"  option row {j}: kernel {a} reference {b}")
            e = ref["decision_events"][i]
            lines.append(f"  reference events before it: {ref['events'][max(0, e - 6): e]}")
            return "\n".join(lines)
    if len(ker["decisions"]) != len(ref["decisions"]):
        return f"decisions: kernel {len(ker['decisions'])} reference {len(ref['decisions'])}"
    for i, (k, r) in enumerate(zip(ker["events"], ref["events"], strict=False)):
        if k != r:
            return (f"event {i} (season, event, seat, a, b, c): kernel {k} reference {r}\n"
                    f"  previous events: {ref['events'][max(0, i - 4): i]}")
    if len(ker["events"]) != len(ref["events"]):
        return f"events: kernel {len(ker['events'])} reference {len(ref['events'])}"
    for key in ("scores", "ranks", "rounds", "strategy", "tokens"):
        if ker[key] != ref[key]:
            return f"{key}: kernel {ker[key]} reference {ref[key]}"
    if not np.allclose(ker["win_share"], ref["win_share"], atol=1e-6):  # float32 in kernel
        return f"win_share: kernel {ker['win_share']} reference {ref['win_share']}"
    for s, (k, r) in enumerate(zip(ker["stats"], ref["stats"], strict=True)):
        for key, _ in STAT_OUTPUTS:
            if k[key] != r[key]:
                return f"stats seat {s} {key}: kernel {k[key]} reference {r[key]}"
    return None


def check_reference_invariants(ref: dict, compensation: list[int]) -> str | None:
    for season, where, problem in ref["checks"]:
        if problem:
            return f"season {season} after {where}: {problem}"
    if ref["rounds"] != ref["seasons"]:
        return f"the game lasted {ref['rounds']} seasons, not {ref['seasons']}"
    if abs(sum(ref["win_share"]) - 1.0) > 1e-9 or min(ref["ranks"]) != 1:
        return "win shares do not sum to 1"
    for st, score, extra in zip(ref["stats"], ref["scores"], compensation, strict=False):
        if sum(st["points"]) + extra != score:  # the seat compensation is no source
            return "points by source do not add up to the score"
    return None


def run_games(get: Any, overrides: tuple[str, ...], names: list[str], seed: int,
              games: range, params: tuple[str, ...] = ()) -> int:
    game, compiled, lineup = get(overrides, names, params)
    vectors = [[float(v) for v in row] for row in lineup.params]
    for g in games:
        ref = reference.play(overrides, len(names), seed, g, list(lineup.names), vectors)
        where = f"overrides={overrides} lineup={names} params={params} seed={seed} game={g}"
        problem = check_reference_invariants(ref, reference.load_rules(overrides).compensation)
        assert problem is None, f"reference invariant broken, {where}: {problem}"
        rep = game.replay(compiled, lineup, seed, g)
        assert len(rep.decisions) < MAX_DECISIONS, "kernel trace truncated"
        assert len(rep.events) < MAX_EVENTS, "kernel trace truncated"
        diff = first_difference(kernel_view(rep), ref)
        assert diff is None, f"kernel != reference, {where}:\n{diff}"
    return len(games)


# ------------------------------------------------------------------ tests
def test_reference_deterministic():
    """Same (overrides, seed, game): same game; another game index: another deal."""
    names = MIXED[3]
    params = [reference.default_params(n) for n in names]
    a = reference.play((), 3, 11, 5, names, params)
    b = reference.play((), 3, 11, 5, names, params)
    c = reference.play((), 3, 11, 8, names, params)
    assert a["events"] == b["events"] and a["decisions"] == b["decisions"]
    assert a["events"][:3] != c["events"][:3] or a["events"] != c["events"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_random(inori_kernel, n):
    run_games(inori_kernel, (), ["random"] * n, 20240601, range(250))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_greedy(inori_kernel, n):
    run_games(inori_kernel, (), ["greedy"] * n, 7, range(150))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_mixed_rotating(inori_kernel, n):
    run_games(inori_kernel, (), MIXED[n], BIG_SEED, range(1001, 1241))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_greedy_params(inori_kernel, n):
    params = ("greedy.token_weight=3", "greedy.rune_weight=0", "greedy.complete_weight=6",
              "greedy.cost_weight=0.25")
    run_games(inori_kernel, (), ["greedy"] + ["random"] * (n - 1), 99, range(90), params)
    planner = ("planner.deny_weight=3", "planner.rune_value=0", "planner.majority_weight=4")
    run_games(inori_kernel, (), ["planner", "greedy"] + ["planner"] * (n - 2), 98, range(45),
              params + planner)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_rule_variants(inori_kernel, n, variant):
    run_games(inori_kernel, VARIANTS[variant], MIXED[n], 31337, range(48))
    run_games(inori_kernel, VARIANTS[variant], ["random"] * n, 4242, range(24))


@pytest.mark.parametrize("stress", sorted(STRESS))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_stress_config(inori_kernel, n, stress):
    run_games(inori_kernel, STRESS[stress], MIXED[n], 5, range(60))
    run_games(inori_kernel, STRESS[stress], ["random"] * n, 6, range(40))
