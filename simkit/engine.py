"""The batch driver: validate a run, simulate it in chunks, write results and manifest."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from simkit import folders
from simkit.errors import SimkitError, on_disk
from simkit.prepare import (  # re-exported: the names callers know the engine by
    CHUNK_BYTES,
    DEFAULT_CHUNK,
    MAX_GAMES,
    MAX_SEED,
    Analysis,
    Judge,
    Prepared,
    RunSpec,
    build_lineup,
    check_run_options,
    chunk_games,
    identity,
    load_plugins,
    needs,
    option_args,
    parse_params,
    prepare,
    results_file,
)
from simkit.results import (
    GAMES_FILE,
    RUN_FILE,
    SUMMARY_DATA_FILE,
    SUMMARY_FILE,
    GamesFile,
    SeatTotals,
    chunk_path,
    clear_chunks,
    finished_chunks,
    long_table_of_slices,
    missing_ranges,
    read_chunk,
    read_csv,
    read_json,
    read_manifest,
    versions,
    write_chunk,
    write_csv,
    write_json,
    write_manifest,
)
from simkit.slices import Parts, Slicer
from simkit.stopping import METHOD, schedule
from simkit.summary import (
    CSV_QUERY,
    Aggregate,
    Query,
    chunk_totals,
    merge_chunk_summaries,
    read_aggregate,
    write_aggregate,
)
from simkit.threads import batches_begun, get_threads, set_threads, wait_for_batch
from simkit.totals import chunk_reducer


def check_output(run_dir: Path, p: Prepared, force: bool) -> str:
    """What `run_dir` holds for this run: "new", "resume" (same run, unfinished) or "done"
    (`folders.claim`: a different run, finished or not, is refused unless `force`, and a
    folder holding anything but a simkit run unless it is empty). A finished run whose
    results cannot be read back is played again with `force`, else refused."""
    state = folders.claim(run_dir, folders.RUN, identity(p),
                          lambda: (read_manifest(run_dir), read_json(run_dir / RUN_FILE)),
                          force, "run")
    if state != "done":
        return state
    manifest = read_manifest(run_dir)
    assert manifest is not None
    damage = _damaged_results(run_dir, p, manifest)
    if damage is None:
        return "done"
    if not force:  # the same run, but its results cannot be read back
        raise SimkitError(f"--out {run_dir}: {damage}; pass --force to play the run again")
    return "new"


def run(spec: RunSpec, run_dir: Path, threads: int | None = None,
        chunk_size: int | None = None, force: bool = False,
        progress: Callable[[int], None] | None = None,
        prepared: Prepared | None = None, scheduler: str | None = None,
        workers: int | None = None, analysis: Analysis | None = None,
        resumed: Callable[[int], None] | None = None,
        started: Callable[[str, int], Callable[[int], None] | None] | None = None,
        ) -> dict[str, Any]:
    """Simulate `spec` into `run_dir`; returns the manifest.

    Each chunk of games (`chunk_size`, by default `chunk_games`) is written atomically as
    it finishes, and Ctrl-C saves the games of the chunk in play (`simkit/slices.py`), so
    an interrupted run (Ctrl-C, a killed process, a full disk) started again with the
    same command plays only the missing games; its files equal an uninterrupted run's
    byte for byte. The folder is locked while the run writes it (`simkit/folders.py`). A
    run already complete is left as it is (the manifest comes back with "skipped").
    With `scheduler` (a dask scheduler address) or `workers` (a local dask cluster of
    that many processes) the chunks are played on the cluster; the results are the same.
    A --summary-only or --until-sure run needs `analysis` (see `Analysis`). The games an
    interrupted run had played are counted once through `resumed`, if given, else through
    `progress`. `started(state, games played before)`, if given, is told once the folder
    is claimed ("new" or "resume"; not for a finished run) and before any game is played,
    and returns the progress callback (it replaces `progress` and `resumed`): the command
    line says what it resumes and draws its bar from there, with no check of its own.
    """
    p = prepared or prepare(spec)
    used_threads = set_threads(threads)
    check_run_options(chunk_size, workers)
    chunk_size = chunk_size or chunk_games(p)
    judge = (None if spec.until_sure is None else
             needs(analysis, "--until-sure").judge(spec.until_sure, p.game.name))
    queries = needs(analysis, "--summary-only").queries if spec.summary_only else None
    if scheduler is not None:  # before anything is written
        from simkit.cluster import check_scheduler

        check_scheduler(scheduler)
    with folders.locked(run_dir):
        state = check_output(run_dir, p, force)
        if state == "done":
            return _already_done(run_dir)
        if started is not None:
            progress = started(state, played_before(run_dir, p) if state == "resume" else 0)
            resumed = _ignore  # counted from the start
        return _run(p, run_dir, state, used_threads, chunk_size, progress, scheduler,
                    workers, judge, queries, resumed or progress)


def _ignore(_n: int) -> None:
    pass


def _damaged_results(run_dir: Path, p: Prepared, manifest: dict[str, Any]) -> str | None:
    """What is wrong with a finished run's results file, or None: games.parquet's footer
    must read and hold the manifest's rows (a cheap check: the footer only)."""
    path = run_dir / results_file(p)
    if p.spec.summary_only:
        try:
            read_aggregate(path)
        except SimkitError as exc:
            return str(exc)
        return None
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (pa.ArrowInvalid, OSError) as exc:
        return f"{path.name} cannot be read ({exc})"
    if rows != manifest.get("rows"):
        return f"{path.name} holds {rows:,} rows, not the manifest's {manifest.get('rows')}"
    return None


def played_before(run_dir: Path, p: Prepared) -> int:
    """The games an interrupted run of `p` in `run_dir` has already saved."""
    return sum(n for _, n in finished_chunks(run_dir, "summary" if p.spec.summary_only
                                             else "games"))


def _readable_summary(run_dir: Path) -> bool:
    try:
        return read_csv(run_dir / SUMMARY_FILE, SUMMARY_SCHEMA).height > 0
    except (OSError, SimkitError, pl.exceptions.PolarsError):
        return False


def _already_done(run_dir: Path) -> dict[str, Any]:
    """The manifest of a finished run, after tidying what a kill right after it was
    written may have left (the unfinished-run marker, the chunks, the summary table)."""
    manifest = read_manifest(run_dir)
    assert manifest is not None
    try:
        if not _readable_summary(run_dir):  # missing, or torn by a kill or a full disk
            write_summary(run_dir)
        (run_dir / RUN_FILE).unlink(missing_ok=True)
        clear_chunks(run_dir)
    except OSError as exc:
        raise SimkitError(f"--out {run_dir}: cannot write there "
                          f"({on_disk(exc, run_dir)})") from None
    manifest["skipped"] = True
    return manifest


def _run(p: Prepared, run_dir: Path, state: str, used_threads: int, chunk_size: int,
         progress: Callable[[int], None] | None, scheduler: str | None,
         workers: int | None, judge: Judge | None,
         queries_of: Callable[[Prepared], Sequence[Query]] | None,
         resumed: Callable[[int], None] | None) -> dict[str, Any]:
    spec = p.spec
    try:
        if state == "new":
            folders.remove_owned(run_dir, folders.RUN)
            write_json(run_dir / RUN_FILE, {"identity": identity(p),
                                            "command": spec.command(str(run_dir))})
    except OSError as exc:
        raise SimkitError(f"--out {run_dir}: cannot write there "
                          f"({on_disk(exc, run_dir)})") from None
    started = time.perf_counter()
    kind = "summary" if spec.summary_only else "games"
    done = finished_chunks(run_dir, kind)
    if resumed is not None and done:
        resumed(sum(n for _, n in done))
    looks = schedule(spec.games) if spec.until_sure is not None else [spec.games]
    stopping = None
    # What a summary-only run keeps of each chunk (planned in a thread of its own).
    queries: Sequence[Query] | Future[Sequence[Query]] | None = None
    played = 0
    # games.parquet is written as the chunks are saved; it starts with those of a run
    # interrupted before, read back from their files.
    games_file = None if spec.summary_only else GamesFile(run_dir, done)
    try:
        for look, upto in enumerate(looks, start=1):
            done = finished_chunks(run_dir, kind)
            missing = missing_ranges(done, upto)
            todo = ((first, min(chunk_size, gap_first + gap_n - first))  # lazily: a long
                    for gap_first, gap_n in missing  # run may have millions of chunks
                    for first in range(gap_first, gap_first + gap_n, chunk_size))
            if missing and queries_of is not None and queries is None:
                # Once, and only if a game is left to play; here, while the first chunk
                # plays (a cluster's workers need them first).
                queries = (_planned(queries_of, p) if scheduler is None and workers is None
                           else queries_of(p))
            _play_and_save(p, todo, run_dir, scheduler, workers, progress, queries,
                           games_file)
            played = upto
            if judge is not None:
                assert spec.until_sure is not None
                stop, reason = judge(_so_far(p, run_dir, upto), manifest_stub(p), look)
                stopping = {"method": METHOD, "rule": spec.until_sure.describe(),
                            "looks": look, "reason": reason, "max_games": spec.games}
                if stop:
                    break
        rows = (merge_chunk_summaries(run_dir, played) if games_file is None
                else games_file.finish(played))
        if rows != played * spec.players:
            raise SimkitError(f"--out {run_dir}: the merged results hold {rows:,} rows, not "
                              f"{played:,} games x {spec.players} players; rerun with --force")
        # Every file is written before the manifest marks the run finished: a kill at any
        # point leaves a folder the same command completes.
        write_summary(run_dir, None if games_file is None else games_file.totals)
        elapsed = time.perf_counter() - started
        write_manifest(run_dir, _manifest(p, run_dir, played, rows, stopping, used_threads,
                                          chunk_size, scheduler, workers, state, elapsed))
        (run_dir / RUN_FILE).unlink(missing_ok=True)
        clear_chunks(run_dir)
    except OSError as exc:  # e.g. a full disk: what is written stays; rerun to resume
        raise SimkitError(f"--out {run_dir}: cannot write results ({on_disk(exc, run_dir)}); "
                          "every "
                          "finished chunk is kept: fix this and rerun the same command to "
                          "resume") from None
    finally:
        if games_file is not None:  # a half-written file goes; the chunks stay for a rerun
            games_file.discard()
    manifest = read_manifest(run_dir)
    assert manifest is not None
    return manifest


def _manifest(p: Prepared, run_dir: Path, games: int, rows: int, stopping: Any,
              used_threads: int, chunk_size: int, scheduler: str | None,
              workers: int | None, state: str, elapsed: float) -> dict[str, Any]:
    spec = p.spec
    return {
        "game": p.game.name,
        "title": p.game.title,
        "identity": identity(p),
        "command": spec.command(str(run_dir)),
        "players": spec.players,
        "strategies": [{"seat": s, "name": n, "params": prm}
                       for s, (n, prm) in enumerate(zip(p.lineup.names, p.lineup.resolved_params,
                                                        strict=True))],
        "rotation": p.lineup.rotate,
        "seed": spec.seed,
        "games": games,
        "rows": rows,
        "summary_only": spec.summary_only,
        "stopping": stopping,
        "config": {"source": p.config.source, "hash": p.config.hash,
                   "overrides": list(spec.overrides), "placeholders": p.config.placeholders(),
                   "resolved": p.config.data},
        "threads": used_threads,
        "cluster": ({"scheduler": scheduler, "workers": workers}
                    if scheduler or workers else None),
        "chunk_size": chunk_size,
        "resumed": state == "resume",
        "elapsed_seconds": round(elapsed, 3),
        "versions": versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _so_far(p: Prepared, run_dir: Path, upto: int) -> pl.DataFrame | Aggregate:
    """The finished chunks of games 0..upto-1 of an unfinished run: one frame of rows, or
    for a summary-only run their merged totals (what --until-sure judges at a look). A run
    interrupted after a later look has chunks past it: judged with them, a resumed run
    would stop at an earlier look than the run it resumes."""
    if p.spec.summary_only:
        return chunk_totals(run_dir, upto)
    return pl.from_arrow(pa.concat_tables([read_chunk(run_dir, f, n)
                                           for f, n in finished_chunks(run_dir) if f < upto]))


def manifest_stub(p: Prepared) -> dict[str, Any]:
    """What the report needs to know of a run that has no manifest yet."""
    return {"game": p.game.name, "title": p.game.title, "players": p.spec.players,
            "strategies": [{"seat": s, "name": n} for s, n in enumerate(p.lineup.names)],
            "rotation": p.lineup.rotate, "seed": p.spec.seed, "games": p.spec.games,
            "rows": p.spec.games * p.spec.players, "command": "",
            "config": {"source": p.config.source, "hash": p.config.hash,
                       "overrides": list(p.spec.overrides),
                       "placeholders": p.config.placeholders(), "resolved": p.config.data}}


BATCH_WAIT = 0.02  # seconds the writer waits for the next chunk's batch to begin, at most


def _play_and_save(p: Prepared, chunks: Iterable[tuple[int, int]], run_dir: Path,
                   scheduler: str | None, workers: int | None,
                   progress: Callable[[int], None] | None,
                   queries: Sequence[Query] | Future[Sequence[Query]] | None = None,
                   games_file: GamesFile | None = None) -> None:
    """Play the chunks and write each one; a chunk is saved, and added to `games_file`,
    while the next one plays. With `queries` (or their planning, `_planned`: the first
    chunk is saved once they are known), a chunk's rows are reduced to their totals before
    they are written (here, in the writer thread, or on the dask worker)."""
    reducers: list[Callable[[Any], Aggregate]] = []  # made at the first save
    categories = p.game.categories(p.compiled)

    def save(first: int, n: int, rows: Any, seen: int | None) -> None:
        if seen is not None:  # the next chunk's threads first (`threads.wait_for_batch`)
            wait_for_batch(seen, BATCH_WAIT)
        if isinstance(rows, Parts):  # slices from this process's kernel
            rows = long_table_of_slices(rows, first, p.lineup.rotate, list(p.lineup.names),
                                        categories)
        if queries is not None and not isinstance(rows, Aggregate):  # not by a dask worker
            if not reducers:
                reducers.append(chunk_reducer(
                    queries.result() if isinstance(queries, Future) else queries,
                    p.spec.players, p.lineup.rotate))
            rows = _reduced(reducers[0], rows)
        if isinstance(rows, Aggregate):  # reduced here or on a dask worker
            write_aggregate(chunk_path(run_dir, first, n, "summary"), rows)
        else:
            write_chunk(run_dir, first, n, rows)
            if games_file is not None:
                games_file.add(first, n, rows)

    local = scheduler is None and workers is None  # local play counts its own progress

    def finish(saving: tuple[Future[None], int]) -> None:
        saving[0].result()  # re-raises a write error here, in the caller's thread
        if progress is not None and not local:
            progress(saving[1])

    with ThreadPoolExecutor(max_workers=1) as writer:
        pending: tuple[Future[None], int] | None = None
        for first, n, rows in _play(p, chunks, scheduler, workers, progress,
                                    None if isinstance(queries, Future) else queries):
            if pending is not None:
                finish(pending)
            pending = (writer.submit(save, first, n, rows,
                                     batches_begun() if local else None), n)
        if pending is not None:
            finish(pending)


def _planned(queries_of: Callable[[Prepared], Sequence[Query]], p: Prepared
             ) -> Future[Sequence[Query]]:
    """`queries_of(p)`, planned in a thread of its own while the first chunk plays: it
    builds the report over a small sample of games, which kept both of the kernel's
    threads waiting before (0.37 s of a 10^6-game Cauldron Master run). A Ctrl-C polars
    takes as its own too does not stop it (`_reduced`)."""
    planner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="simkit-plan")
    try:
        return planner.submit(_reduced, queries_of, p)
    finally:
        planner.shutdown(wait=False)  # the thread ends with the planning


def _reduced(reducer: Callable[[Any], Any], rows: Any) -> Any:
    """`reducer(rows)` in the writer thread, whatever Ctrl-C does. polars takes a Ctrl-C
    as its own too and stops its query, which lost the chunk being saved (and, its error
    re-raised in the main thread, the games in play): the chunk is reduced to the end
    instead, while the main thread stops the run as on any Ctrl-C."""
    for _ in range(3):  # a second and third Ctrl-C still let the chunk be saved
        try:
            return reducer(rows)
        except KeyboardInterrupt:
            continue
    raise KeyboardInterrupt


def _play(p: Prepared, chunks: Iterable[tuple[int, int]], scheduler: str | None,
          workers: int | None, progress: Callable[[int], None] | None = None,
          queries: Sequence[Query] | None = None) -> Iterator[tuple[int, int, Any]]:
    """(first, n, rows) for each chunk: in this process (the kernel releases the GIL, so
    the previous chunk is written meanwhile; on Ctrl-C, the games of the chunk in play
    that finished come as a shorter chunk; `progress` hears of every slice), or on a
    dask cluster."""
    if scheduler is None and workers is None:
        slicer = Slicer(lambda first, n: p.game.simulate(p.compiled, p.lineup, p.spec.seed,
                                                         first, n), get_threads(),
                         progress, step=p.spec.players if p.lineup.rotate else 1,
                         join=Parts)  # a table of them in the writer thread
        yield from slicer.chunks(chunks)  # on Ctrl-C, the games finished come first
        return
    from simkit.cluster import connect, play_chunks

    with connect(scheduler, workers) as client:
        yield from play_chunks(client, p.spec, chunks, queries)


SUMMARY_SCHEMA = {"strategy": pl.String, "seat": pl.UInt8, "games": pl.UInt32,
                  "win_share": pl.Float64, "mean_score": pl.Float64, "mean_rounds": pl.Float64}


def summary_frame(run_dir: Path) -> pl.DataFrame:
    """Win share and mean score by strategy and seat (a first look; see `simkit report`):
    summary.csv once the run has written it, else from its results."""
    path = run_dir / SUMMARY_FILE
    if path.exists():
        try:
            return read_csv(path, SUMMARY_SCHEMA)
        except (OSError, pl.exceptions.PolarsError) as exc:  # unreadable, or torn
            reason = (on_disk(exc, path) if isinstance(exc, OSError)
                      else f"{path}: {str(exc).strip().splitlines()[0]}")
            raise SimkitError(f"{reason}: cannot read the run's summary table; the games "
                              "are kept: rerun the same command to write it again") from None
    return _summary_of_results(run_dir)


def _summary_of_results(run_dir: Path) -> pl.DataFrame:
    """`summary_frame` from the run's totals (summary.json) or rows (games.parquet)."""
    if not (run_dir / GAMES_FILE).exists() and (run_dir / SUMMARY_DATA_FILE).exists():
        return _summary_frame_of(read_aggregate(run_dir / SUMMARY_DATA_FILE))
    return SeatTotals.of_file(run_dir / GAMES_FILE).frame()


def _summary_frame_of(agg: Aggregate) -> pl.DataFrame:
    """`summary_frame` from a summary-only run's totals."""
    table = agg.table(CSV_QUERY)
    if table is None:
        raise SimkitError("the run's summary holds no totals by strategy and seat")
    (ws, ss, rs) = table.scales
    return table.frame.select(
        "strategy", pl.col("seat").cast(pl.UInt8), games=pl.col("_m").cast(pl.UInt32),
        win_share=pl.col("_y0") / (pl.col("_m") * ws), mean_score=pl.col("_y1") / (
            pl.col("_m") * ss), mean_rounds=pl.col("_y2") / (pl.col("_m") * rs),
    ).sort("strategy", "seat")


def write_summary(run_dir: Path, totals: SeatTotals | None = None) -> pl.DataFrame:
    """summary.csv, from `totals` of the run's rows when the run kept them as it wrote
    games.parquet, or else read from its files."""
    table = _summary_of_results(run_dir) if totals is None else totals.frame()
    write_csv(table, run_dir / SUMMARY_FILE)
    return table


__all__ = [
    "CHUNK_BYTES", "DEFAULT_CHUNK", "MAX_GAMES", "MAX_SEED", "Analysis", "Judge", "Prepared",
    "RunSpec", "build_lineup", "check_run_options", "chunk_games", "identity", "load_plugins",
    "needs", "option_args", "parse_params", "prepare", "results_file", "set_threads",
    "check_output", "manifest_stub", "run", "summary_frame", "write_summary",
]
