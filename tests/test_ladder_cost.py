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
    # 1,000 cheap games (10 us of kernel each), then 100 dear ones (100 ms each)
    bar = lc.CostProgress([1000, 100], [1e-5, 0.1], "ladder", stream=io.StringIO(),
                          threads=1)
    bar.update(100)  # the first slice starts the timing, as in Progress (not a compile)
    clock.now += 0.09
    bar.update(900)  # 100 us a game: 90 of them the rows written, not the kernel
    speed, overhead = bar.model()
    assert speed == 1.0 and overhead == pytest.approx(9e-5)
    # the dear point at 1 CPU-second a second: 100 x (0.1 + 0.00009) s, where counting
    # games (100 left at 10,000 games/s) would promise a hundredth of a second
    assert bar.time_left(10_000.0) == pytest.approx(10.009)
    bar.at(1)
    clock.now += 10.0
    bar.update(50)  # the machine is busy: 200 ms a game, twice the CPU measured
    speed, _ = bar.model()
    assert speed == pytest.approx((0.2 - 9e-5) / 0.1)
    assert bar.time_left(1.0) == pytest.approx(10.0)
    assert "10 s left" in bar.line()


def test_a_bar_of_equal_points_is_a_plain_progress_bar(clock):
    bar = lc.CostProgress([500, 500], [1e-3, 1e-3], "ladder", stream=io.StringIO(),
                          threads=2)
    bar.update(100)
    clock.now += 0.2
    bar.update(100)  # 2 ms a game on 2 threads: the kernel's CPU over two threads is 0.5
    assert bar.time_left(500.0) == pytest.approx(800 * 0.002)


def test_each_points_cost_is_measured_and_a_finished_point_costs_nothing(tmp_path):
    spec = ld.LadderSpec(ld.load_ladder(GAME), 2, 200, 3)
    out = tmp_path / "lad"
    plan = ld.plan(spec, out)
    costs = dict(zip([p.name for p in plan.points], lc.point_costs(plan, out), strict=True))
    assert all(c > 0 for c in costs.values())
    # rollout players play each option forward: dearer than random ones by far (16-19x
    # since they stopped counting references, jit.uncounted; 5x leaves room for the noise
    # of timing a few deals)
    assert costs["field_2_rollout"] > 5 * costs["field_0_random"], costs
    # the doubled budget (one seat) costs more than the top's field, less than twice it
    assert costs["field_2_rollout"] < costs["budget_x2"] < 2.5 * costs["field_2_rollout"]
    ld.run_ladder(plan, out, threads=1)
    assert lc.point_costs(plan, out) == [0.0] * len(plan.points)


def test_a_busy_machine_slows_the_dear_points_estimate(clock):
    # on a loaded machine the dear point plays 5 times slower than its CPU cost: its own
    # time per game sets the speed, not the cheap points' overhead
    bar = lc.CostProgress([1000, 100, 100], [1e-5, 1e-5, 0.1], "ladder",
                          stream=io.StringIO(), threads=1)
    bar.update(100)
    clock.now += 0.09
    bar.update(900)
    bar.at(1)
    clock.now += 0.01
    bar.update(100)
    bar.at(2)
    clock.now += 5.0
    bar.update(10)
    speed, overhead = bar.model()
    assert overhead == pytest.approx(9e-5)
    assert speed == pytest.approx((0.5 - 9e-5) / 0.1)
    assert bar.time_left(1.0) == pytest.approx(90 * 0.5)
