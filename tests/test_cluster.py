"""dask.distributed runs: the same results as the threaded run, clear errors."""

from __future__ import annotations

import polars as pl
import pytest

from simkit import engine
from simkit.engine import RunSpec
from simkit.errors import SimkitError

SPEC = RunSpec("cauldron-master", 4, ("planner", "greedy", "random", "greedy"), 3000, 5)


def test_two_worker_cluster_equals_threads(cm, tmp_path):
    engine.run(SPEC, tmp_path / "threads", chunk_size=3000)
    manifest = engine.run(SPEC, tmp_path / "dask", chunk_size=400, workers=2)
    assert manifest["cluster"] == {"scheduler": None, "workers": 2}
    a = pl.read_parquet(tmp_path / "threads" / "games.parquet")
    b = pl.read_parquet(tmp_path / "dask" / "games.parquet")
    assert a.equals(b)


def test_unreachable_scheduler_is_a_clear_error(cm, tmp_path):
    with pytest.raises(SimkitError, match="cannot reach the dask scheduler"):
        engine.run(SPEC, tmp_path / "x", scheduler="tcp://127.0.0.1:1")


def test_bad_worker_count(cm, tmp_path):
    with pytest.raises(SimkitError, match="--workers must be at least 1"):
        engine.run(SPEC, tmp_path / "x", workers=0)
