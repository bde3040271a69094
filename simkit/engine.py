"""The batch driver: validate a run, simulate it in chunks, write results and manifest."""

from __future__ import annotations

import math
import os
import shlex
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np
import polars as pl
import pyarrow as pa

from simkit import folders, plugins
from simkit.errors import SimkitError
from simkit.games import Game, Lineup, get_game
from simkit.paramfile import read_params, split_token
from simkit.results import (
    GAMES_FILE,
    RUN_FILE,
    SUMMARY_DATA_FILE,
    SUMMARY_FILE,
    CorruptFile,
    chunk_path,
    clear_chunks,
    finished_chunks,
    long_table,
    merge_chunks,
    missing_ranges,
    read_json,
    read_manifest,
    versions,
    write_chunk,
    write_csv,
    write_json,
    write_manifest,
)
from simkit.slices import Interrupted, Slicer
from simkit.stopping import METHOD, StopRule, schedule
from simkit.summary import (
    Aggregate,
    chunk_totals,
    merge_chunk_summaries,
    read_aggregate,
    reduce,
    win_scale,
    write_aggregate,
)

DEFAULT_CHUNK = 1 << 17
MAX_SEED = (1 << 64) - 1
MAX_GAMES = 10**12  # game indices are int64 in the kernels; a trillion is days of play


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (and nothing that does not)."""

    game: str
    players: int
    strategies: tuple[str, ...]
    games: int
    seed: int
    overrides: tuple[str, ...] = ()
    params: tuple[str, ...] = ()  # "strategy.param=value"
    config_path: str | None = None  # a config file other than configs/<game>.toml
    until_sure: StopRule | None = None  # play in rounds until the verdicts are decided
    summary_only: bool = False  # keep exact per-chunk totals (summary.json), not rows

    def command(self, out: str) -> str:
        """The shell command that reproduces this run."""
        parts = ["simkit", "run", self.game, "--players", str(self.players), "--strategies",
                 ",".join(self.strategies), "--games", str(self.games), "--seed", str(self.seed),
                 "--out", out]
        parts += option_args(self.config_path, self.overrides, self.params, self.until_sure,
                             self.summary_only)
        return shlex.join(parts)


def option_args(config_path: str | None, overrides: Sequence[str], params: Sequence[str],
                until_sure: StopRule | None, summary_only: bool = False) -> list[str]:
    """The command-line options that reproduce these settings (run and sweep share them)."""
    parts: list[str] = ["--summary-only"] if summary_only else []
    if config_path:
        parts += ["--config", config_path]
    for item in overrides:
        parts += ["--set", item]
    for item in params:
        parts += ["--param", item]
    if until_sure is not None:
        parts.append("--until-sure")
        if until_sure.precision is not None:
            parts += ["--precision", f"{until_sure.precision:g}"]
        if until_sure.targets is not None:
            parts += ["--targets", str(until_sure.targets)]
        for item in until_sure.set_targets:
            parts += ["--set-target", item]
    return parts


def parse_params(items: Sequence[str]) -> dict[str, dict[str, float]]:
    """`strategy.param=value` items -> {strategy: {param: value}}."""
    result: dict[str, dict[str, float]] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        strategy, dot, param = key.strip().rpartition(".")  # a token may hold dots
        if not sep or not dot or not param:
            raise SimkitError(f"--param {item!r}: expected STRATEGY.PARAM=VALUE, "
                              "e.g. planner.discount=0.5")
        try:
            value = float(raw)
        except ValueError:
            raise SimkitError(f"--param {item!r}: {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise SimkitError(f"--param {item!r}: {raw!r} is not a finite number")
        result.setdefault(strategy, {})[param] = value
    return result


def build_lineup(game: Game, strategies: Sequence[str], players: int,
                 params: Sequence[str] = ()) -> Lineup:
    """Resolve strategy names (one per seat, or one for all seats) and their parameters.

    A name may be `NAME@FILE`: strategy NAME with the parameters in FILE
    (`simkit/paramfile.py`); the lineup keeps the whole token as the seat's name, so a
    tuned and an untuned copy of one strategy stay apart in the results.
    """
    specs = game.strategies()
    names = list(strategies)
    loaded = load_plugins(game, names, specs)
    specs = specs | {token: plugin.spec() for token, plugin in loaded.items()}
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise SimkitError(f"--strategies lists {len(names)} strategies for {players} players; "
                          f"give one per seat or a single one for all seats")
    base: dict[str, str] = {}  # token -> built-in strategy name
    for token in names:
        name = token if token in loaded else split_token(token)[0]
        if name not in specs:
            hint = " (a plug-in is FILE.py:FUNCTION)" if name.endswith(".py") else ""
            raise SimkitError(f"unknown strategy '{name}' for {game.name}; "
                              f"known: {', '.join(specs)}{hint}")
        base[token] = name
    values = plugins.param_targets(parse_params(params), names)
    for strategy in values:
        if strategy not in names:
            raise SimkitError(f"--param names strategy '{strategy}', which is not playing "
                              f"({', '.join(sorted(set(names)))})")
    for token in dict.fromkeys(names):
        _, path = split_token(token)
        if path is not None:  # a --param naming the whole token overrides the file
            values[token] = read_params(path, specs[base[token]], game.name) | values.get(
                token, {})
    vectors = np.stack([specs[base[n]].vector(values.get(n)) for n in names])
    resolved = tuple(specs[base[n]].resolved(values.get(n)) for n in names)
    ids = np.array([specs[base[n]].sid for n in names], np.int64)
    hashes = tuple((token, plugin.sha256) for token, plugin in loaded.items())
    return Lineup(tuple(names), ids, vectors, resolved, hashes)


def load_plugins(game: Game, names: Sequence[str],
                 builtin: dict[str, Any]) -> dict[str, plugins.Plugin]:
    """Compile the plug-ins among `names`: `FILE.py:FUNCTION` tokens and names registered
    under the simkit.strategies entry points (built-in names win)."""
    loaded: dict[str, plugins.Plugin] = {}
    for token in dict.fromkeys(names):
        name, _ = split_token(token)
        if name in builtin:
            continue
        plugin = plugins.load(game.name, name)
        if plugin is not None:
            loaded[token] = plugin
    return loaded


@dataclass
class Prepared:
    """A validated run: the game, its compiled rules and the lineup."""

    spec: RunSpec
    game: Game
    config: Any
    compiled: Any
    lineup: Lineup


def prepare(spec: RunSpec) -> Prepared:
    """Validate everything about a run before any game is played."""
    game = get_game(spec.game)
    config = game.load_config(spec.overrides,
                              Path(spec.config_path) if spec.config_path else None)
    compiled = game.compile(config)
    supported = game.players(compiled)
    if spec.players not in supported:
        raise SimkitError(f"{game.title} is played by {', '.join(map(str, supported))} players, "
                          f"not {spec.players}")
    if not 1 <= spec.games <= MAX_GAMES:
        raise SimkitError(f"--games must be between 1 and {MAX_GAMES:,}, not {spec.games}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SimkitError(f"--seed must be between 0 and 2**64-1, not {spec.seed}")
    lineup = build_lineup(game, spec.strategies, spec.players, spec.params)
    if spec.until_sure is not None:
        spec.until_sure.check(game.name)
    return Prepared(spec, game, config, compiled, lineup)


def set_threads(threads: int | None) -> int:
    """Use `threads` numba threads (default: all); returns the number in use."""
    available = numba.config.NUMBA_NUM_THREADS
    if threads is not None:
        if not 1 <= threads <= available:
            raise SimkitError(f"--threads must be between 1 and {available}, not {threads}")
        numba.set_num_threads(threads)
    return numba.get_num_threads()


def identity(p: Prepared) -> dict[str, Any]:
    """What makes two runs the same run."""
    out = {"game": p.spec.game, "players": p.spec.players, "strategies": list(p.lineup.names),
           "params": list(p.lineup.resolved_params), "games": p.spec.games,
           "seed": p.spec.seed, "config_hash": p.config.hash,
           "until_sure": None if p.spec.until_sure is None else repr(p.spec.until_sure)}
    if p.lineup.plugins:  # only when used, likewise: a changed plug-in file is another run
        out["plugins"] = dict(p.lineup.plugins)
    if p.spec.summary_only:  # only when set: full runs made before the option still match
        out["summary_only"] = True
    return out


def results_file(p: Prepared) -> str:
    """The file a finished run keeps its results in."""
    return SUMMARY_DATA_FILE if p.spec.summary_only else GAMES_FILE


def check_run_options(chunk_size: int, workers: int | None) -> None:
    """Options that shape how a run is played (never what it plays)."""
    if chunk_size < 1:
        raise SimkitError(f"--chunk-size must be at least 1, not {chunk_size}")
    if workers is not None and workers < 1:
        raise SimkitError(f"--workers must be at least 1, not {workers}")


def check_output(run_dir: Path, p: Prepared, force: bool) -> str:
    """What `run_dir` holds for this run: "new", "resume" (same run, unfinished) or "done".

    Refuses a folder holding a different run, finished or not, unless `force`, and a
    folder holding anything but a simkit run unless it is empty (`simkit/folders.py`).
    """
    if folders.check_writable(run_dir, folders.RUN) == "new":
        return "new"
    if not os.access(run_dir, os.W_OK):
        raise SimkitError(f"--out {run_dir}: the folder is not writable")
    try:
        manifest = read_manifest(run_dir)
        unfinished = read_json(run_dir / RUN_FILE)
    except CorruptFile as exc:
        if not force:
            raise SimkitError(f"--out {run_dir}: {exc}; choose another folder, or pass "
                              "--force to replace the run in it") from None
        return "new"
    if manifest is not None:
        if manifest.get("identity") == identity(p) and (run_dir / results_file(p)).exists():
            return "done"
        if not force:
            raise SimkitError(f"--out {run_dir} already holds a different run "
                              f"({manifest.get('command', '?')}); choose another folder "
                              "or pass --force to replace it")
    elif unfinished is not None:
        if unfinished.get("identity") == identity(p):
            return "resume"
        if not force:
            raise SimkitError(f"--out {run_dir} holds an unfinished different run "
                              f"({unfinished.get('command', '?')}); rerun that command to "
                              "finish it, choose another folder, or pass --force")
    return "new"


def run(spec: RunSpec, run_dir: Path, threads: int | None = None,
        chunk_size: int = DEFAULT_CHUNK, force: bool = False,
        progress: Callable[[int], None] | None = None,
        prepared: Prepared | None = None, scheduler: str | None = None,
        workers: int | None = None) -> dict[str, Any]:
    """Simulate `spec` into `run_dir`; returns the manifest.

    Each chunk of games is written atomically as it finishes, and Ctrl-C saves the games
    of the chunk in play (`simkit/slices.py`), so an interrupted run (Ctrl-C, a killed
    process, a full disk) started again with the same command plays only the missing
    games; its files equal an uninterrupted run's byte for byte. The folder is locked
    while the run writes it (`simkit/folders.py`). A run already complete is left as it
    is (the manifest comes back with "skipped").
    With `scheduler` (a dask scheduler address) or `workers` (a local dask cluster of
    that many processes) the chunks are played on the cluster; the results are the same.
    """
    p = prepared or prepare(spec)
    used_threads = set_threads(threads)
    check_run_options(chunk_size, workers)
    if scheduler is not None:  # before anything is written
        from simkit.cluster import check_scheduler

        check_scheduler(scheduler)
    with folders.locked(run_dir):
        state = check_output(run_dir, p, force)  # again, now that the folder is ours
        if state == "done":
            return _already_done(run_dir)
        return _run(p, run_dir, state, used_threads, chunk_size, progress, scheduler,
                    workers)


def _already_done(run_dir: Path) -> dict[str, Any]:
    """The manifest of a finished run, after tidying what a kill right after it was
    written may have left (the unfinished-run marker, the chunks, the summary table)."""
    manifest = read_manifest(run_dir)
    assert manifest is not None
    try:
        if not (run_dir / SUMMARY_FILE).exists():
            write_summary(run_dir)
        (run_dir / RUN_FILE).unlink(missing_ok=True)
        clear_chunks(run_dir)
    except OSError as exc:
        raise SimkitError(f"--out {run_dir}: cannot write there ({exc.strerror})") from None
    manifest["skipped"] = True
    return manifest


def _run(p: Prepared, run_dir: Path, state: str, used_threads: int, chunk_size: int,
         progress: Callable[[int], None] | None, scheduler: str | None,
         workers: int | None) -> dict[str, Any]:
    spec = p.spec
    try:
        if state == "new":
            folders.remove_owned(run_dir, folders.RUN)
            write_json(run_dir / RUN_FILE, {"identity": identity(p),
                                            "command": spec.command(str(run_dir))})
    except OSError as exc:
        raise SimkitError(f"--out {run_dir}: cannot write there ({exc.strerror})") from None
    started = time.perf_counter()
    kind = "summary" if spec.summary_only else "games"
    done = finished_chunks(run_dir, kind)
    if progress is not None and done:
        progress(sum(n for _, n in done))
    looks = schedule(spec.games) if spec.until_sure is not None else [spec.games]
    stopping = None
    reducer = None  # a summary-only run reduces its chunks (on the workers, with dask)
    played = 0
    try:
        for look, upto in enumerate(looks, start=1):
            done = finished_chunks(run_dir, kind)
            missing = missing_ranges(done, upto)
            todo = ((first, min(chunk_size, gap_first + gap_n - first))  # lazily: a long
                    for gap_first, gap_n in missing  # run may have millions of chunks
                    for first in range(gap_first, gap_first + gap_n, chunk_size))
            if missing and spec.summary_only and not (scheduler or workers) and reducer is None:
                reducer = summary_reducer(p)
            _play_and_save(p, todo, run_dir, scheduler, workers, progress, reducer)
            played = upto
            if spec.until_sure is not None:
                stop, reason = spec.until_sure.decide(_so_far(p, run_dir), manifest_stub(p),
                                                      look)
                stopping = {"method": METHOD, "rule": spec.until_sure.describe(),
                            "looks": look, "reason": reason, "max_games": spec.games}
                if stop:
                    break
        rows = (merge_chunk_summaries(run_dir, played) if spec.summary_only
                else merge_chunks(run_dir, played))
        if rows != played * spec.players:
            raise SimkitError(f"--out {run_dir}: the merged results hold {rows:,} rows, not "
                              f"{played:,} games x {spec.players} players; rerun with --force")
        # Every file is written before the manifest marks the run finished: a kill at any
        # point leaves a folder the same command completes.
        write_summary(run_dir)
        elapsed = time.perf_counter() - started
        write_manifest(run_dir, _manifest(p, run_dir, played, rows, stopping, used_threads,
                                          chunk_size, scheduler, workers, state, elapsed))
        (run_dir / RUN_FILE).unlink(missing_ok=True)
        clear_chunks(run_dir)
    except OSError as exc:  # e.g. a full disk: what is written stays; rerun to resume
        raise SimkitError(f"--out {run_dir}: cannot write results ({exc.strerror}); every "
                          "finished chunk is kept: fix this and rerun the same command to "
                          "resume") from None
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


def _so_far(p: Prepared, run_dir: Path) -> Any:
    """Every finished chunk of an unfinished run: one frame of rows, or for a summary-only
    run a source over the merged totals (what --until-sure judges)."""
    if p.spec.summary_only:
        from reports.source import SummarySource

        return SummarySource(chunk_totals(run_dir), p.spec.players)
    return pl.read_parquet([chunk_path(run_dir, f, n) for f, n in finished_chunks(run_dir)])


def manifest_stub(p: Prepared) -> dict[str, Any]:
    """What the report needs to know of a run that has no manifest yet."""
    return {"game": p.game.name, "title": p.game.title, "players": p.spec.players,
            "strategies": [{"seat": s, "name": n} for s, n in enumerate(p.lineup.names)],
            "rotation": p.lineup.rotate, "seed": p.spec.seed, "games": p.spec.games,
            "rows": p.spec.games * p.spec.players, "command": "",
            "config": {"source": p.config.source, "hash": p.config.hash,
                       "overrides": list(p.spec.overrides),
                       "placeholders": p.config.placeholders(), "resolved": p.config.data}}


def summary_reducer(p: Prepared) -> Callable[[pa.Table], Aggregate]:
    """Rows of a chunk -> the exact totals of every query the report asks (`reports/plan`)."""
    from reports.plan import summary_plan

    queries = summary_plan(p)
    scale = win_scale(p.spec.players)
    rotation = p.spec.players if p.lineup.rotate else 1

    def reducer(rows: pa.Table) -> Aggregate:
        frame = pl.from_arrow(rows)
        assert isinstance(frame, pl.DataFrame)
        return reduce(frame, queries, scale=scale, rotation=rotation)
    return reducer


def _play_and_save(p: Prepared, chunks: Iterable[tuple[int, int]], run_dir: Path,
                   scheduler: str | None, workers: int | None,
                   progress: Callable[[int], None] | None,
                   reducer: Callable[[pa.Table], Aggregate] | None = None) -> None:
    """Play the chunks and write each one; a chunk is saved while the next one plays.
    With `reducer`, a chunk's rows are reduced to their totals before they are written."""
    categories = p.game.categories(p.compiled)

    def save(first: int, n: int, rows: Any) -> None:
        if isinstance(rows, dict):  # columns from this process's kernel
            rows = long_table(rows, first, p.lineup.rotate, list(p.lineup.names), categories)
        if reducer is not None:  # reduced here, in the writer thread
            rows = reducer(rows)
        if isinstance(rows, Aggregate):  # reduced here or on a dask worker
            write_aggregate(chunk_path(run_dir, first, n, "summary"), rows)
        else:
            write_chunk(run_dir, first, n, rows)

    local = scheduler is None and workers is None  # local play counts its own progress

    def finish(saving: tuple[Future[None], int]) -> None:
        saving[0].result()  # re-raises a write error here, in the caller's thread
        if progress is not None and not local:
            progress(saving[1])

    with ThreadPoolExecutor(max_workers=1) as writer:
        # pyarrow's first array imports pandas (about half a second): done here while the
        # first games play, not after a Ctrl-C that waits for the save.
        writer.submit(pa.array, np.zeros(1))
        pending: tuple[Future[None], int] | None = None
        for first, n, rows in _play(p, chunks, scheduler, workers, progress):
            if pending is not None:
                finish(pending)
            pending = (writer.submit(save, first, n, rows), n)
        if pending is not None:
            finish(pending)


def _play(p: Prepared, chunks: Iterable[tuple[int, int]], scheduler: str | None,
          workers: int | None, progress: Callable[[int], None] | None = None,
          ) -> Iterator[tuple[int, int, Any]]:
    """(first, n, rows) for each chunk: in this process (the kernel releases the GIL, so
    the previous chunk is written meanwhile; on Ctrl-C, the games of the chunk in play
    that finished come as a shorter chunk; `progress` hears of every slice), or on a
    dask cluster."""
    if scheduler is None and workers is None:
        slicer = Slicer(lambda first, n: p.game.simulate(p.compiled, p.lineup, p.spec.seed,
                                                         first, n), numba.get_num_threads(),
                         progress, step=p.spec.players if p.lineup.rotate else 1)
        for first, n in chunks:
            try:
                rows = slicer.chunk(first, n)
            except Interrupted as stop:  # Ctrl-C: the games finished are saved first
                if stop.columns is not None:
                    yield first, stop.done, stop.columns
                raise stop.cause from None
            yield first, n, rows
        return
    from simkit.cluster import connect, play_chunks

    with connect(scheduler, workers) as client:
        yield from play_chunks(client, p.spec, chunks)


def summary_frame(run_dir: Path) -> pl.DataFrame:
    """Win share and mean score by strategy and seat (a first look; see `simkit report`)."""
    if not (run_dir / GAMES_FILE).exists() and (run_dir / SUMMARY_DATA_FILE).exists():
        return _summary_frame_of(read_aggregate(run_dir / SUMMARY_DATA_FILE))
    frame = pl.scan_parquet(run_dir / GAMES_FILE)
    return (
        frame.group_by("strategy", "seat")
        .agg(games=pl.len(), win_share=pl.col("win_share").cast(pl.Float64).mean(),
             mean_score=pl.col("score").cast(pl.Float64).mean(),
             mean_rounds=pl.col("rounds").cast(pl.Float64).mean())
        .with_columns(pl.col("strategy").cast(pl.String))
        .sort("strategy", "seat")
        .collect(engine="streaming")  # batch by batch: a few MB whatever the run's size
    )


def _summary_frame_of(agg: Aggregate) -> pl.DataFrame:
    """`summary_frame` from a summary-only run's totals."""
    from reports.plan import CSV_QUERY

    table = agg.table(CSV_QUERY)
    if table is None:
        raise SimkitError("the run's summary holds no totals by strategy and seat")
    (ws, ss, rs) = table.scales
    return table.frame.select(
        "strategy", pl.col("seat").cast(pl.UInt8), games=pl.col("_m").cast(pl.UInt32),
        win_share=pl.col("_y0") / (pl.col("_m") * ws), mean_score=pl.col("_y1") / (
            pl.col("_m") * ss), mean_rounds=pl.col("_y2") / (pl.col("_m") * rs),
    ).sort("strategy", "seat")


def write_summary(run_dir: Path) -> pl.DataFrame:
    table = summary_frame(run_dir)
    write_csv(table, run_dir / SUMMARY_FILE)
    return table
