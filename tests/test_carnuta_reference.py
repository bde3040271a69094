"""Differential tests: the Carnuta numba kernel against the plain-Python reference.

The reference (tests/reference/carnuta.py) is written from the rule text and does not
import the kernel. For every game we compare each decision (seat, step, the whole option
table, the row chosen), every event (cards revealed, taken, played, runes, sickles,
discards, bonuses, the end, the per-card scoring) and all per-seat results. The reference
also checks that every ingredient card and rune is accounted for after every turn, that
no hand is above the limit at the end of a turn and no board holds more runes than it has
unlocked spaces.

A failure message names (overrides, lineup, seed, game): replay it with
`game.replay(...)` / `reference.play(...)`.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.games.carnuta import layout as L
from simkit.kernels.trace import MAX_DECISIONS, MAX_EVENTS
from tests.reference import carnuta as reference

VARIANT = (
    'options.flip_runes="some"',
    'options.take_runes="choose"',
    "options.final_turns=false",
    "options.starting_card_counts=false",
    "options.sickle_after_actions=false",
    'options.tie_break="shared"',
    "options.salt_on_starting_card=false",
    "compensation.points=[0, 7, -5, 3]",  # seat compensation (not a rule option)
    "compensation.half=[0, 1, 0, 1]",  # and its half points (ties on the final score)
)
# Small decks (reshuffles), tight hand, more sickles, a short track.
STRESS = (
    "board.hand_limit=1",
    "board.sickles=4",
    "track.end_cards=7",
    "track.padlock=[2, 3]",
    "track.bonus=[2, 4, 5, 6]",
    "reserve.2=[4, 0]",
    "reserve.4=[0, 5]",
)
MIXED = {
    2: ["random", "greedy"],
    3: ["greedy", "random", "planner"],
    4: ["random", "greedy", "planner", "random"],
}
BIG_SEED = (1 << 64) - 1


@pytest.fixture(scope="module")
def cn_kernel():
    """get(overrides, names, params) -> (game, compiled, lineup); compiles each config once."""
    game = get_game("carnuta")
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
    for rnd, seat, step, n, chosen, first in rep.decisions.tolist():
        rows = [tuple(r) for r in rep.options[first: first + n].tolist()]
        decisions.append((rnd, seat, step, rows, chosen))
    out = rep.out
    n = out[L.O_SCORE].shape[1]
    return {
        "decisions": decisions,
        "events": [tuple(e) for e in rep.events.tolist()],
        "scores": _ints(out[L.O_SCORE][0]),
        "ranks": _ints(out[L.O_RANK][0]),
        "win_share": [float(v) for v in out[L.O_WIN_SHARE][0]],
        "rounds": int(out[L.O_ROUNDS][0]),
        "strategy": _ints(out[L.O_STRATEGY][0]),
        "starting_card": _ints(out[L.O_STARTING_CARD][0]),
        "best_ingredient": _ints(out[L.O_BEST_INGREDIENT_POINTS][0]),
        "points_by_kind": [_ints(out[L.O_POINTS][0, s]) for s in range(n)],
        "start_points": _ints(out[L.O_START_POINTS][0]),
        "tokens": [_ints(out[L.O_TOKEN][0, s]) for s in range(n)],
        "stats": [dict(played=_ints(out[L.O_PLAYED][0, s]),
                       doubles=int(out[L.O_DOUBLES][0, s]),
                       salts=int(out[L.O_SALTS][0, s]),
                       sickles=int(out[L.O_SICKLES_USED][0, s]),
                       taken=int(out[L.O_RUNES_TAKEN][0, s]),
                       flipped=int(out[L.O_RUNES_FLIPPED][0, s]),
                       paid_flip=int(out[L.O_RUNES_PAID_FLIP][0, s]),
                       returned=int(out[L.O_RUNES_RETURNED][0, s]),
                       turns=int(out[L.O_TURNS][0, s]),
                       discarded=int(out[L.O_CARDS_DISCARDED][0, s]),
                       cards=sorted(np.flatnonzero(out[L.O_CARD][0, s]).tolist()),
                       triggered=int(out[L.O_TRIGGERED_END][0, s])) for s in range(n)],
    }


def first_difference(ker: dict, ref: dict) -> str | None:
    """A readable description of the first disagreement, or None."""
    for i, (k, r) in enumerate(zip(ker["decisions"], ref["decisions"], strict=False)):
        if k != r:
            lines = [f"decision {i}: kernel {k[:3]} chose {k[4]}; reference {r[:3]} chose {r[4]}"]
            for j in range(max(len(k[3]), len(r[3]))):
                a = k[3][j] if j < len(k[3]) else None
                b = r[3][j] if j < len(r[3]) else None
                if a != b:
                    lines.append(f"  option row {j}: kernel {a} reference {b}")
            return "\n".join(lines)
    if len(ker["decisions"]) != len(ref["decisions"]):
        return f"decisions: kernel {len(ker['decisions'])} reference {len(ref['decisions'])}"
    for i, (k, r) in enumerate(zip(ker["events"], ref["events"], strict=False)):
        if k != r:
            return f"event {i}: kernel {k} reference {r}"
    if len(ker["events"]) != len(ref["events"]):
        return f"events: kernel {len(ker['events'])} reference {len(ref['events'])}"
    ref_stats = [dict(st, cards=sorted(st["cards"])) for st in ref["stats"]]
    for key in ("scores", "ranks", "win_share", "rounds", "strategy", "starting_card",
                "best_ingredient", "points_by_kind", "start_points", "tokens"):
        if ker[key] != ref[key]:
            return f"{key}: kernel {ker[key]} reference {ref[key]}"
    if ker["stats"] != ref_stats:
        return f"stats: kernel {ker['stats']} reference {ref_stats}"
    return None


def check_reference_invariants(ref: dict) -> str | None:
    for rnd, where, cards, runes, hands_ok, boards_ok in ref["checks"]:
        if cards != ref["total_cards"]:
            return f"round {rnd} after {where}: {cards} of {ref['total_cards']} cards"
        if runes != ref["total_runes"]:
            return f"round {rnd} after {where}: {runes} of {ref['total_runes']} runes"
        if not hands_ok:
            return f"round {rnd} after {where}: a hand is above the limit"
        if not boards_ok:
            return f"round {rnd} after {where}: a rune sits on a padlocked space"
    if abs(sum(ref["win_share"]) - 1.0) > 1e-9 or min(ref["ranks"]) != 1:
        return "win shares do not sum to 1"
    return None


def run_games(get, overrides: tuple[str, ...], names: list[str], seed: int, games: range,
              params: tuple[str, ...] = ()) -> int:
    game, compiled, lineup = get(overrides, names, params)
    vectors = [[float(v) for v in row] for row in lineup.params]
    for g in games:
        rep = game.replay(compiled, lineup, seed, g)
        assert len(rep.decisions) < MAX_DECISIONS, "kernel trace truncated"
        assert len(rep.events) < MAX_EVENTS, "kernel trace truncated"
        ref = reference.play(overrides, len(names), seed, g, list(lineup.names), vectors)
        where = f"overrides={overrides} lineup={names} params={params} seed={seed} game={g}"
        problem = check_reference_invariants(ref)
        assert problem is None, f"reference invariant broken, {where}: {problem}"
        diff = first_difference(kernel_view(rep), ref)
        assert diff is None, f"kernel != reference, {where}:\n{diff}"
    return len(games)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_random(cn_kernel, n):
    run_games(cn_kernel, (), ["random"] * n, 20240601, range(60))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_greedy(cn_kernel, n):
    run_games(cn_kernel, (), ["greedy"] * n, 7, range(150))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_mixed_rotating(cn_kernel, n):
    run_games(cn_kernel, (), MIXED[n], BIG_SEED, range(1001, 1201))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_greedy_params(cn_kernel, n):
    params = ("greedy.take_weight=2.5", "greedy.rune_weight=0")
    run_games(cn_kernel, (), ["greedy"] + ["random"] * (n - 1), 99, range(60), params)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rule_variants(cn_kernel, n):
    run_games(cn_kernel, VARIANT, MIXED[n], 31337, range(120))
    run_games(cn_kernel, VARIANT, ["random"] * n, 4242, range(40))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_stress_config(cn_kernel, n):
    run_games(cn_kernel, STRESS, MIXED[n], 5, range(100))
    run_games(cn_kernel, STRESS + VARIANT, ["random"] * n, 6, range(40))
