"""Running chunks of a run on a dask.distributed cluster (`--scheduler` / `--workers`).

Each task plays one chunk of games, identified by its first game and size, and returns
its rows (or, with --summary-only, their exact totals, reduced on the worker); the client
writes each chunk once, as its result arrives. Results depend only
on (seed, game index), so they equal a single-process run's bit for bit, and a chunk that
dask recomputes after losing a worker is still written exactly once. Nothing here is
imported unless one of the two options is given.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from simkit.errors import SimkitError


@functools.lru_cache(maxsize=4)
def _prepared(spec: Any) -> Any:
    """Validate and compile once per worker process (loads the cached kernels)."""
    from simkit.prepare import prepare
    from simkit.threads import set_threads

    set_threads(1)  # one worker process per core: no oversubscription
    return prepare(spec)


def play_chunk(spec: Any, first: int, n: int, queries: Any = None) -> Any:
    """Worker side: games first..first+n-1 of `spec` as result rows, or with `queries`
    (a summary-only run) as their exact totals (a few hundred KB sent back instead of
    the rows). The queries come from the client: a worker never plans a report."""
    from simkit.results import long_table
    from simkit.totals import chunk_reducer

    p = _prepared(spec)
    columns = p.game.simulate(p.compiled, p.lineup, spec.seed, first, n)
    rows = long_table(columns, first, p.lineup.rotate, list(p.lineup.names),
                      p.game.categories(p.compiled))
    return rows if queries is None else chunk_reducer(queries, p.spec.players,
                                                      p.lineup.rotate)(rows)


WORKER_TIMEOUT = 30.0  # seconds to wait for a scheduler's first worker


def check_scheduler(scheduler: str) -> None:
    """Refuse, in one line and before anything is written, a scheduler that cannot be
    reached or that has no worker within WORKER_TIMEOUT seconds."""
    with connect(scheduler, None):
        pass


@contextmanager
def connect(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """A dask Client: to an existing scheduler, or to a local cluster of `workers` processes."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise SimkitError(f"--scheduler/--workers need dask.distributed: {exc}") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise SimkitError(f"--scheduler {scheduler}: cannot reach the dask scheduler "
                              f"({exc}); expected an address like tcp://host:8786") from None
        with client:
            try:
                client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
            except (TimeoutError, OSError) as exc:
                raise SimkitError(f"--scheduler {scheduler}: no worker joined within "
                                  f"{WORKER_TIMEOUT:.0f} s ({type(exc).__name__}); start "
                                  f"some with `dask worker {scheduler}`") from None
            yield client
        return
    if workers is None or workers < 1:
        raise SimkitError(f"--workers must be at least 1, not {workers}")
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


@contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """A local dask cluster of `workers` processes for several runs in turn (a sweep's or
    a ladder's points): its scheduler's address. Starting one per run cost seconds each."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def play_chunks(client: Any, spec: Any, chunks: Iterable[tuple[int, int]],
                queries: Any = None) -> Iterator[tuple[int, int, Any]]:
    """Submit every chunk; yield (first, n, rows) as each finishes, in any order."""
    from dask.distributed import as_completed

    shared = None  # the queries go to every worker once, not with every task
    if queries is not None:
        [shared] = client.scatter([list(queries)], broadcast=True, hash=False)
    futures = {client.submit(play_chunk, spec, first, n, shared,
                             key=f"simkit-chunk-{first}-{n}", pure=False): (first, n)
               for first, n in chunks}
    for future in as_completed(futures):
        first, n = futures[future]
        yield first, n, future.result()
        future.release()
