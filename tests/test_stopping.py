"""--until-sure: the sequential rule keeps its error rate under repeated looks."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from reports.analysis import ANALYSIS
from simkit import engine
from simkit.engine import RunSpec
from simkit.errors import SimkitError
from simkit.stopping import Z95, StopRule, look_z, schedule


def run(*args, **kwargs):
    """engine.run with the report's analysis, as the CLI passes it."""
    return engine.run(*args, analysis=ANALYSIS, **kwargs)


def false_alarm_rate(z_for_look, sequences=3000, first=100, looks=10, seed=0):
    """Share of fair-coin sequences that any look wrongly declares unfair."""
    rng = np.random.default_rng(seed)
    n_max = first * 2 ** (looks - 1)
    flips = rng.random((sequences, n_max)) < 0.5
    wrong = np.zeros(sequences, bool)
    for k in range(1, looks + 1):
        n = first * 2 ** (k - 1)
        mean = flips[:, :n].mean(axis=1)
        half = z_for_look(k) * np.sqrt(mean * (1 - mean) / n)
        wrong |= np.abs(mean - 0.5) > half
    return wrong.mean()


def test_alpha_spending_keeps_false_alarms_at_nominal_level():
    spent = false_alarm_rate(look_z)
    naive = false_alarm_rate(lambda k: Z95)
    assert spent <= 0.05 + 0.012  # at most alpha, up to sampling noise (3000 sequences)
    assert naive > 0.10  # looking ten times at plain 95% intervals errs far more often


def test_schedule_doubles_up_to_the_maximum():
    assert schedule(100_000) == [10_000, 20_000, 40_000, 80_000, 100_000]
    assert schedule(5_000) == [5_000]
    assert look_z(1) > Z95 and look_z(5) > look_z(1)


EASY = RunSpec("cauldron-master", 2, ("greedy", "random"), 40_000, 1,
               until_sure=StopRule(set_targets=("component_effect.max_points=100",
                                                "tie_rate.max_percent=100")))


def test_stops_early_on_a_clear_verdict_with_the_same_games(cm, tmp_path):
    manifest = run(EASY, tmp_path / "sure", chunk_size=5_000)
    stop = manifest["stopping"]
    assert manifest["games"] == 10_000 and stop["looks"] == 1
    assert stop["reason"] == "every scorecard verdict decided"
    sure = pl.read_parquet(tmp_path / "sure" / "games.parquet")
    plain = RunSpec("cauldron-master", 2, ("greedy", "random"), 10_000, 1)
    run(plain, tmp_path / "plain", chunk_size=10_000)
    assert sure.equals(pl.read_parquet(tmp_path / "plain" / "games.parquet"))


def test_precision_mode_runs_until_narrow_or_the_maximum(cm, tmp_path):
    spec = RunSpec("cauldron-master", 2, ("greedy",), 30_000, 2,
                   until_sure=StopRule(precision=0.001))
    manifest = run(spec, tmp_path / "p", chunk_size=10_000)
    assert manifest["games"] == 30_000 and manifest["stopping"]["looks"] == 3
    assert manifest["stopping"]["reason"].startswith("widest interval")


@pytest.mark.parametrize("rule,message", [
    (StopRule(precision=2.0), "--precision must be between 0 and 1"),
    (StopRule(set_targets=("speed.max=1",)), "speed"),
])
def test_bad_stopping_rules(cm, tmp_path, rule, message):
    spec = RunSpec("cauldron-master", 2, ("greedy",), 100, 1, until_sure=rule)
    with pytest.raises(SimkitError, match=message):
        run(spec, tmp_path / "x")


class Stop(Exception):
    """Stands for Ctrl-C mid-run."""


def test_a_run_interrupted_in_a_later_look_resumes_to_the_same_games(cm, tmp_path):
    """Stopped with games of its third look saved, a run resumed: each look is judged on
    its own games, not on every game saved (with them, the first look already looked sure
    and the run stopped there, its saved games more than it kept: stuck for good)."""
    spec = RunSpec("cauldron-master", 2, ("greedy",), 40_000, 2,
                   until_sure=StopRule(precision=0.008))
    whole = run(spec, tmp_path / "whole", chunk_size=5_000)
    assert whole["games"] == 40_000 and whole["stopping"]["looks"] == 3
    seen = [0]

    def progress(n: int) -> None:
        seen[0] += n
        if seen[0] >= 30_000:
            raise Stop

    with pytest.raises(Stop):
        run(spec, tmp_path / "cut", chunk_size=5_000, progress=progress)
    again = run(spec, tmp_path / "cut", chunk_size=5_000)
    assert again["games"] == 40_000 and again["stopping"] == whole["stopping"]
    assert (tmp_path / "cut" / "games.parquet").read_bytes() == \
        (tmp_path / "whole" / "games.parquet").read_bytes()
