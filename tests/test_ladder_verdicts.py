"""The verdict across skill (reports/skill.py): its words, and its error rates measured by
simulation, as the other intervals are (tests/test_coverage.py)."""

from __future__ import annotations

import numpy as np
import pytest

from reports.skill import (
    CLIMBING,
    CONVERGED,
    DEPENDS,
    EVERY_FAIL,
    EVERY_PASS,
    NOT_STRONG,
    NOT_SURE,
    across_skill,
    between,
    convergence,
    flips,
)
from reports.stats import Z
from reports.targets import FAIL, PASS, UNSURE, Item, judge_item

RUNGS = ["random", "greedy", "planner", "tuned", "rollout"]
LIMIT = 0.03  # a seat within +-3 points
SE = 0.01
SIMS = 4000


def test_the_words():
    assert across_skill(RUNGS, [PASS] * 5)[0] == EVERY_PASS
    assert across_skill(RUNGS, [FAIL] * 5)[0] == EVERY_FAIL
    verdict, detail = across_skill(RUNGS, [PASS, FAIL, FAIL, UNSURE, PASS])
    assert verdict == DEPENDS
    assert "flips between random and greedy" in detail
    assert "flips between planner and rollout" in detail  # the undecided rung skipped
    assert across_skill(RUNGS, [FAIL] * 5, CLIMBING)[0] == NOT_STRONG
    assert across_skill(RUNGS, [PASS] * 4 + [UNSURE])[0] == "not yet sure at rollout"
    assert flips(RUNGS, [UNSURE] * 5) == []


def test_convergence_and_between():
    assert convergence(-0.01, 0.015, 0.02) == CONVERGED
    assert convergence(0.03, 0.05, 0.02) == CLIMBING
    assert convergence(0.0, 0.04, 0.02) == NOT_SURE
    assert between(0.1, 0.2, -0.2, -0.1, -0.35, -0.25) == "sign flips"
    assert between(0.1, 0.2, 0.02, 0.05, -0.15, -0.08) == "changes"
    assert between(0.1, 0.2, -0.2, -0.1, -0.5, 0.01) == "no clear change"


def _verdicts(truth: np.ndarray, rng: np.random.Generator, se: float = SE) -> list[str]:
    est = truth + rng.normal(0, se, truth.shape)
    return [judge_item(Item("seat", e, e - Z * se, e + Z * se), -LIMIT, LIMIT)[0]
            for e in est]


def _rate(truth: list[float], word: str, seed: int) -> float:
    rng = np.random.default_rng(seed)
    t = np.array(truth)
    return sum(across_skill(RUNGS, _verdicts(t, rng))[0] == word for _ in range(SIMS)) / SIMS


def _upper(rate: float) -> float:
    """A rate's 99.9% upper bound after SIMS draws (so a true rate at the bound fails
    the test about once in a thousand)."""
    return rate + 3.1 * np.sqrt(rate * (1 - rate) / SIMS)


@pytest.mark.parametrize("truth", [LIMIT, -LIMIT])
def test_a_game_the_same_at_every_rung_on_the_line_rarely_reads_depends_on_skill(truth):
    # the worst case: every rung's true value on the target's line, where a rung reads
    # PASS 2.5% and FAIL 2.5% of the time; a false flip needs both among the five rungs:
    # 1 - 2 x 0.975^5 + 0.95^5 = 1.1% (measured 1.1%)
    rate = _rate([truth] * 5, DEPENDS, 1)
    assert rate <= _upper(1 - 2 * 0.975 ** 5 + 0.95 ** 5), rate


def test_every_level_claims_are_rarely_wrong():
    # truly inside at every rung but on the line: "FAIL at every skill level" needs all
    # five rungs wrong
    assert _rate([LIMIT - 1e-9] * 5, EVERY_FAIL, 2) <= _upper(0.025 ** 5 + 1e-4)
    # truly failing at one rung: "PASS at every skill level" needs that rung wrong
    assert _rate([0.0, 0.0, LIMIT, 0.0, 0.0], EVERY_PASS, 3) <= _upper(0.025)


def test_a_real_flip_is_found():
    # an artifact of 9 points at the middle rungs, none at the others, each measured to
    # +-1 point: found (and named) nearly always
    rng = np.random.default_rng(4)
    truth = np.array([0.0, 0.09, 0.09, 0.0, 0.0])
    hits = 0
    for _ in range(SIMS):
        verdict, detail = across_skill(RUNGS, _verdicts(truth, rng, 0.005))
        hits += verdict == DEPENDS and "flips between random and greedy" in detail
    assert hits / SIMS > 0.9


def test_convergence_is_rarely_claimed_when_the_top_still_gains_the_margin():
    rng = np.random.default_rng(5)
    margin = 0.02
    gains = margin + rng.normal(0, SE, SIMS)  # the true gain exactly at the margin
    wrong = sum(convergence(g - Z * SE, g + Z * SE, margin) == CONVERGED for g in gains)
    assert wrong / SIMS <= _upper(0.025)


def _components(rng: np.random.Generator, truths: list[float], se: float,
                dealt: bool = True):
    import polars as pl

    est = np.asarray(truths) + rng.normal(0, se, len(truths))
    return pl.DataFrame({"kind": ["Card"] * len(truths), "estimate": est,
                         "lo": est - Z * se, "hi": est + Z * se, "dealt": [dealt] * len(truths)})


def test_component_verdicts_at_each_rung_are_family_controlled():
    """Nine identical components sitting on the component target's line at three rungs
    (the worst case): judged one raw interval at a time, some rung FAILs one of them in
    about half the ladders (1 - 0.975^27); held at a 5% false discovery rate within each
    kind at each rung (reports/ladder.judge_components) at most about 1 - 0.95^3 = 14%."""
    from reports.ladder import judge_components

    rng = np.random.default_rng(45)
    limit, sims = 0.02, 1000
    raw = controlled = 0
    for _ in range(sims):
        rungs = [_components(rng, [limit] * 9, 0.005) for _ in range(3)]
        raw += any(judge_item(Item("c", r["estimate"], r["lo"], r["hi"]), -limit, limit)[0]
                   == FAIL for part in rungs for r in part.iter_rows(named=True))
        controlled += any(v == FAIL for part in rungs for v in judge_components(part, limit))
    assert raw / sims > 0.35, raw / sims  # the uncontrolled rate this replaces
    assert controlled / sims < 0.14 + 3 * (0.14 * 0.86 / sims) ** 0.5, controlled / sims


def test_component_verdicts_find_real_effects_and_spare_associations():
    from reports.ladder import judge_components

    rng = np.random.default_rng(47)
    part = _components(rng, [0.10, -0.10, 0.0, 0.0], 0.005)
    assert judge_components(part, 0.02) == [FAIL, FAIL, PASS, PASS]
    chosen = _components(rng, [0.10, 0.0], 0.005, dealt=False)  # chosen: points, never convicts
    assert judge_components(chosen, 0.02) == [UNSURE, PASS]


def test_value_ladder_verdicts_are_each_rungs_family_controlled_calls(tmp_path):
    """`value --ladder` reads each rung's verdicts as its value page does (causal.verdicts:
    Benjamini-Hochberg within each kind), not raw: among nine cards on the margin, a card
    2.1 standard errors past it is "stronger" on its own (p 0.036), and one 2 standard
    errors inside it "about average" (p 0.023), so raw calls would say its verdict
    changes with skill; in their families of ten both are "not yet sure"."""
    import json

    from reports.value_ladder import changes_with_skill, per_rung

    def rung(folder, first):
        rows = [{"kind": "Card", "key": f"c{i}", "name": f"c{i}", "a_a": False,
                 "verdict": UNSURE, "vs_average": v, "vs_average_se": 0.01,
                 "vs_average_lo": v - Z * 0.01, "vs_average_hi": v + Z * 0.01}
                for i, v in enumerate([first] + [0.02] * 9)]
        folder.mkdir()
        (folder / "value.json").write_text(json.dumps(
            {"kind": "value", "game": "cauldron-master", "table": rows}))
        return folder

    a = rung(tmp_path / "a", 0.02 + 2.1 * 0.01)  # alone: p_beyond = 0.036
    b = rung(tmp_path / "b", 0.0)  # alone: p_within = 0.023
    rows = per_rung([("greedy", a), ("rollout", b)])
    verdicts = rows.filter(rows["name"] == "c0")["verdict"].to_list()
    assert verdicts == ["not yet sure", "not yet sure"], verdicts
    assert changes_with_skill(rows).height == 0
