"""The ladder's time left counts cost, not games (simkit/ladder_cost.py): each point's
cost per game is measured on one deal before play, and the bar weighs the games left by
it, so a dear top rung after cheap ones is not promised in seconds."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from simkit import ladder_cost as lc
from simkit import ladders as ld

GAME = str(Path(__file__).parent / "ladder_games" / "dice_pick")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(lc.time, "perf_counter", c)
    monkeypatch.setattr("simkit.progress.time.perf_counter", c)
    return c


def test_the_time_left_weighs_each_points_games_by_its_cost(clock):
    # 1,000 cheap games (1 ms each), then 100 dear ones (100 ms): 1 s, then 10 s of work
    bar = lc.CostProgress([1000, 100], [0.001, 0.1], "ladder", stream=io.StringIO())
    bar.update(10)  # the first slice starts the pace, as in Progress
    clock.now += 0.49
    bar.update(490)  # half the cheap point in 0.49 s: the pace is 1 cost-second a second
    assert bar.left() == pytest.approx(0.5 + 10.0, rel=1e-6)
    # counting games would say 600 games left at 1,000 games/s: 0.6 s
    assert "10 s left" in bar.line() or "11 s left" in bar.line()
    clock.now += 0.5
    bar.update(500)
    bar.at(1)
    clock.now += 5.0
    bar.update(50)  # half the dear point: 5 cost-seconds in 5 s
    assert bar.left() == pytest.approx(5.0, rel=0.02)


def test_each_points_cost_is_measured_and_a_finished_point_costs_nothing(tmp_path):
    spec = ld.LadderSpec(ld.load_ladder(GAME), 2, 200, 3)
    out = tmp_path / "lad"
    plan = ld.plan(spec, out)
    costs = dict(zip([p.name for p in plan.points], lc.point_costs(plan, out), strict=True))
    assert all(c > 0 for c in costs.values())
    # rollout players play each option forward: dearer than random ones by far
    assert costs["field_2_rollout"] > 20 * costs["field_0_random"], costs
    # the doubled budget (one seat) costs more than the top's field, less than twice it
    assert costs["field_2_rollout"] < costs["budget_x2"] < 2.5 * costs["field_2_rollout"]
    ld.run_ladder(plan, out, threads=1)
    assert lc.point_costs(plan, out) == [0.0] * len(plan.points)
