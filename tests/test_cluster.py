"""dask.distributed runs: the same results as the threaded run, clear errors."""

from __future__ import annotations

import time

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


def test_a_scheduler_with_no_workers_is_reported_within_the_timeout(cm, tmp_path,
                                                                   monkeypatch):
    from dask.distributed import LocalCluster

    from simkit import cluster

    monkeypatch.setattr(cluster, "WORKER_TIMEOUT", 2.0)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as empty:
        started = time.perf_counter()
        with pytest.raises(SimkitError, match="no worker joined within 2 s"):
            engine.run(SPEC, tmp_path / "x", scheduler=empty.scheduler_address)
        assert time.perf_counter() - started < 20
    assert not (tmp_path / "x").exists()  # refused before anything was written


def test_bad_worker_count(cm, tmp_path):
    with pytest.raises(SimkitError, match="--workers must be at least 1"):
        engine.run(SPEC, tmp_path / "x", workers=0)
