"""Result files: games.parquet (one row per game and seat) and manifest.json."""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from simkit.errors import CorruptFile, SimkitError, naming
from simkit.folders import RUN, clear_subfolder

GAMES_FILE = "games.parquet"
MANIFEST_FILE = "manifest.json"
SUMMARY_FILE = "summary.csv"
SUMMARY_DATA_FILE = "summary.json"  # a --summary-only run's exact totals (simkit/summary.py)
RUN_FILE = "run.json"  # an unfinished run's identity, removed when the run completes
CHUNK_DIR = "chunks.partial"  # finished chunks of an unfinished run, one file each
# Written by `simkit report` (reports/render.py); a new run in the folder removes them.
REPORT_FILE = "report.html"
REPORT_SUMMARY_FILE = "summary.md"
REPORT_TABLES_DIR = "report_tables"
SHARED_COLUMNS = ("game", "deal", "seat", "strategy", "score", "rank", "win_share", "rounds")


def long_table(columns: Mapping[str, np.ndarray], first_game: int, rotate: bool,
               strategy_names: list[str], categories: Mapping[str, list[str]]) -> pa.Table:
    """Per-(game, seat) arrays of shape (games, seats) -> one Arrow row per game and seat.

    `game` is the game index in the run, `deal` the deal it was played on (games that
    share a deal differ only in which seat each strategy sat in), `seat` 0 = first player.
    """
    n_games, n_players = columns["score"].shape
    game = np.repeat(np.arange(first_game, first_game + n_games, dtype=np.int64), n_players)
    deal = game // n_players if rotate else game
    arrays: dict[str, pa.Array] = {
        "game": numbers(game),
        "deal": numbers(deal),
        "seat": numbers(np.tile(np.arange(n_players, dtype=np.uint8), n_games)),
    }
    for name, values in columns.items():
        flat = np.ascontiguousarray(values).ravel()
        if name == "strategy":
            arrays[name] = named(flat, strategy_names)
        elif name in categories:
            arrays[name] = named(flat, categories[name])
        else:
            arrays[name] = numbers(flat)
    ordered = {k: arrays[k] for k in SHARED_COLUMNS} | arrays
    # No value is ever missing: columns declared so need no Parquet definition levels
    # (a fifth of the encoding time).
    return pa.table(list(ordered.values()), schema=pa.schema(
        [pa.field(k, v.type, nullable=False) for k, v in ordered.items()]))


# The columns are built from their buffers, not with `pa.array`: pyarrow's conversions
# from numpy and Python objects import pandas (0.25-0.3 CPU-s and 40 MB), which a run
# otherwise never needs.
def numbers(values: np.ndarray) -> pa.Array:
    """A 1-d numpy array as an Arrow array, sharing its memory (booleans bit-packed)."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(values)])


def values(array: pa.Array) -> np.ndarray:
    """An Arrow array of numbers (no missing values) as numpy, sharing its memory."""
    dtype = array.type.to_pandas_dtype()
    return np.frombuffer(array.buffers()[1], dtype, len(array),
                         array.offset * np.dtype(dtype).itemsize)


def texts(values: list[str]) -> pa.Array:
    """Python strings as an Arrow string array."""
    data = [v.encode() for v in values]
    offsets = np.zeros(len(data) + 1, np.int32)
    offsets[1:] = np.cumsum([len(b) for b in data])
    return pa.Array.from_buffers(pa.string(), len(data),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def named(codes: np.ndarray, names: list[str]) -> pa.DictionaryArray:
    """Codes into `names` as a dictionary column, each name stored once. Arrow's Parquet
    writer (pyarrow 26) fills a dictionary entry listed twice (greedy in two seats) with
    memory it never set, so the file's bytes would differ from process to process."""
    unique = list(dict.fromkeys(names))
    if len(unique) < len(names):
        codes = np.array([unique.index(n) for n in names], np.int8)[codes]
    codes = np.ascontiguousarray(codes, dtype=np.int8)
    return pa.DictionaryArray.from_buffers(pa.dictionary(pa.int8(), pa.string()), len(codes),
                                           [None, pa.py_buffer(codes)],
                                           dictionary=texts(unique))


def long_table_of_slices(slices: Iterable[Mapping[str, np.ndarray]], first_game: int,
                         rotate: bool, strategy_names: list[str],
                         categories: Mapping[str, list[str]]) -> pa.Table:
    """`long_table` of consecutive slices' columns, each slice a record batch of its own:
    nothing copies them into one (building a 131,072-game Inori chunk's table took 0.09
    CPU-s with the copy, 0.04 without), and the files written from it are the same bytes."""
    batches: list[pa.RecordBatch] = []
    at = first_game
    for columns in slices:
        batches += long_table(columns, at, rotate, strategy_names, categories).to_batches()
        at += columns["score"].shape[0]
    return pa.Table.from_batches(batches)


# A chunk holds rows ("games") or, in a --summary-only run, their exact totals ("summary").
# Rows are kept as LZ4-compressed Arrow IPC: writing one costs a tenth of Parquet's
# encoding, which games.parquet then does once (GamesFile).
CHUNK_SUFFIX = {"games": ".arrow", "summary": ".json"}
CHUNK_IPC = pa.ipc.IpcWriteOptions(compression="lz4")


def chunk_path(run_dir: Path, first: int, n: int, kind: str = "games") -> Path:
    return run_dir / CHUNK_DIR / f"{kind}-{first:012d}-{n:09d}{CHUNK_SUFFIX[kind]}"


def write_chunk(run_dir: Path, first: int, n: int, table: pa.Table) -> None:
    """Write games first..first+n-1 atomically: a chunk file exists only if complete."""
    final = chunk_path(run_dir, first, n)
    final.parent.mkdir(exist_ok=True)
    tmp = final.with_suffix(".tmp")
    with pa.OSFile(str(tmp), "wb") as sink, \
            pa.ipc.new_file(sink, table.schema, options=CHUNK_IPC) as out:
        out.write_table(table)
    os.replace(tmp, final)


def read_chunk(run_dir: Path, first: int, n: int) -> pa.Table:
    """The rows of a finished chunk (a damaged file is one error line naming it)."""
    path = chunk_path(run_dir, first, n)
    try:
        with pa.OSFile(str(path), "rb") as source:
            return pa.ipc.open_file(source).read_all()
    except (pa.ArrowInvalid, OSError) as exc:
        raise damaged_chunk(path, exc) from None


def damaged_chunk(path: Path, exc: Exception) -> SimkitError:
    """A saved chunk that cannot be read is removed (simkit's own partial file, never the
    results): the same command then plays its games again, and every other chunk stays."""
    with contextlib.suppress(OSError):
        path.unlink()
    return SimkitError(f"{path}: a saved chunk could not be read ({exc}), so it was "
                       "removed; rerun the same command to play its games again")


def finished_chunks(run_dir: Path, kind: str = "games") -> list[tuple[int, int]]:
    """(first game, games) of every complete chunk file, in game order."""
    folder = run_dir / CHUNK_DIR
    if not folder.is_dir():
        return []
    chunks = []
    for path in folder.glob(f"{kind}-*-*{CHUNK_SUFFIX[kind]}"):
        _, first, n = path.stem.split("-")
        chunks.append((int(first), int(n)))
    return sorted(chunks)


def missing_ranges(chunks: list[tuple[int, int]], games: int) -> list[tuple[int, int]]:
    """(first, n) ranges of games 0..games-1 that no chunk covers."""
    gaps, at = [], 0
    for first, n in chunks:
        if first > at:
            gaps.append((at, first - at))
        at = max(at, first + n)
    if at < games:
        gaps.append((at, games - at))
    return gaps


ROW_GROUP = 1 << 16  # rows per Parquet row group, whatever the chunks: same bytes


def check_coverage(chunks: list[tuple[int, int]], games: int) -> None:
    """Refuse to merge unless the chunks hold games 0..games-1, each exactly once."""
    at = 0
    for first, n in chunks:
        if first != at:
            what = "overlap" if first < at else "leave a gap"
            raise SimkitError(f"the finished chunks {what} at game {min(first, at):,}; "
                              "the folder was written by two processes at once. Rerun "
                              "with --force to play the run again")
        at = first + n
    if at != games:
        raise SimkitError(f"the finished chunks hold {at:,} games, not {games:,}; rerun the "
                          "same command to play the rest")


def parquet_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    """games.parquet's encoding: LZ4 pages, dictionaries for the small columns, and the
    ever-rising game and deal numbers delta-coded (smaller and quicker than a dictionary)."""
    rising = [c for c in ("game", "deal") if c in schema.names]
    return pq.ParquetWriter(path, schema, compression="lz4",
                            use_dictionary=[c for c in schema.names if c not in rising],
                            column_encoding=dict.fromkeys(rising, "DELTA_BINARY_PACKED"))


class SeatTotals:
    """Games, wins, score and rounds summed by strategy and seat (summary.csv), from rows
    a batch at a time. Sums are whole numbers (win shares in units of 1/SHARE_SCALE), so
    the means are exact whatever the batches, and the same as a summary-only run's.

    The totals module's reducer (`chunk_reducer([CSV_QUERY])`) gives the same table, but
    in the writer thread, beside the kernel, it cost a 10^6-game Carnuta run 0.5-3.7 s
    of wall time and 21-25 MB of peak memory (polars' group-bys and thread pool), in two
    alternated pairs; numpy over the Arrow buffers costs about 1 ms a chunk."""

    SHARE_SCALE = math.lcm(*range(1, 13))  # a win shared by up to 12 seats, as a whole
    COLUMNS = ("strategy", "seat", "win_share", "score", "rounds")

    def __init__(self) -> None:
        self.sums: dict[tuple[str, int], np.ndarray] = {}

    @classmethod
    def of_file(cls, path: Path) -> SeatTotals:
        """The totals of a games.parquet, read a few columns and rows at a time."""
        totals = cls()
        for batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(
                batch_size=ROW_GROUP, columns=list(cls.COLUMNS), use_threads=False):
            totals.add(batch)
        return totals

    def add(self, rows: pa.Table | pa.RecordBatch) -> None:
        for batch in (rows.to_batches() if isinstance(rows, pa.Table) else [rows]):
            self._add(batch)

    def _add(self, batch: pa.RecordBatch) -> None:
        names = batch.column("strategy")
        if not pa.types.is_dictionary(names.type):
            names = names.dictionary_encode()
        key = values(names.indices).astype(np.int64) * 256 + values(batch.column("seat"))
        share = values(batch.column("win_share")).astype(np.float64) * self.SHARE_SCALE
        wins = np.rint(share)
        if len(share) and np.abs(share - wins).max() > 1e-3:  # as totals._TOLERANCE
            raise SimkitError(f"a win share is not a whole number of 1/{self.SHARE_SCALE}: "
                              "more than 12 seats tied?")
        sums = [np.bincount(key, w) for w in (None, wins, values(batch.column("score")),
                                                values(batch.column("rounds")))]
        dictionary = names.dictionary.to_pylist()
        for k in np.flatnonzero(sums[0]):
            name = (dictionary[k // 256], int(k % 256))
            add = np.array([round(s[k]) for s in sums], np.int64)  # exact: each < 2**53
            self.sums[name] = self.sums[name] + add if name in self.sums else add

    def frame(self) -> pl.DataFrame:
        """strategy, seat, games, win_share, mean_score, mean_rounds; by strategy, seat."""
        keys = sorted(self.sums)
        t = np.array([self.sums[k] for k in keys], np.float64).reshape(len(keys), 4)
        return pl.DataFrame({
            "strategy": [k[0] for k in keys],
            "seat": pl.Series([k[1] for k in keys], dtype=pl.UInt8),
            "games": pl.Series(t[:, 0], dtype=pl.UInt32),
            "win_share": t[:, 1] / (t[:, 0] * self.SHARE_SCALE),
            "mean_score": t[:, 2] / t[:, 0], "mean_rounds": t[:, 3] / t[:, 0]})


class GamesFile:
    """games.parquet, written while the run plays (in the writer thread, so Parquet's
    encoding overlaps the play): each saved chunk goes in as soon as every game before it
    is in, from the rows at hand or, out of turn (a resumed run, a dask cluster), read
    back from its file. The row groups hold ROW_GROUP rows whatever the chunks, so the
    file is the same byte for byte however the run was chunked, played or interrupted.
    It appears only complete (`finish`); after a failure `discard` drops the half-written
    file, and the chunks stay for a rerun."""

    def __init__(self, run_dir: Path, saved: Iterable[tuple[int, int]] = ()) -> None:
        self.run_dir = run_dir
        self.partial = run_dir / (GAMES_FILE + ".partial")
        self.next = 0  # the first game not yet in the file
        self.waiting = dict(saved)  # first game -> games, of chunks saved but not yet in
        self.writer: pq.ParquetWriter | None = None
        self.pending: list[pa.RecordBatch] = []  # rows of the row group being filled
        self.held = 0
        self.rows = 0
        self.totals = SeatTotals()  # summary.csv's, as the rows go in

    def add(self, first: int, n: int, table: pa.Table) -> None:
        """Chunk first..first+n-1, its rows `table`, is saved."""
        self._catch_up()  # a resumed run's earlier chunks go in before the first new one
        if first != self.next:
            self.waiting[first] = n  # its turn comes later: read back from its file then
            return
        self._append(table)
        self.next = first + n
        self._catch_up()

    def _catch_up(self) -> None:
        while self.next in self.waiting:
            k = self.waiting.pop(self.next)
            self._append(read_chunk(self.run_dir, self.next, k))
            self.next += k

    def finish(self, games: int) -> int:
        """Complete the file with games 0..games-1 and put it in place; the rows written.
        (On a failure here or earlier, the caller calls `discard`.)"""
        chunks = finished_chunks(self.run_dir)
        check_coverage(chunks, games)
        # Chunks saved but never handed in are read back, in turn.
        self.waiting.update((first, n) for first, n in chunks if first >= self.next)
        self._catch_up()
        assert self.writer is not None and self.next == games  # at least one game
        if self.held:
            self.writer.write_table(pa.Table.from_batches(self.pending),
                                    row_group_size=ROW_GROUP)
        self.writer.close()
        self.writer = None
        os.replace(self.partial, self.run_dir / GAMES_FILE)
        return self.rows

    def discard(self) -> None:
        """Drop the half-written file: the chunks stay, and a rerun writes it again."""
        if self.writer is not None:
            # Closing flushes what is buffered, which fails again on a full disk: the file
            # goes anyway, and the error that brought us here is the one reported.
            with contextlib.suppress(OSError, pa.ArrowException):
                self.writer.close()
            self.writer = None
        with contextlib.suppress(OSError):
            self.partial.unlink(missing_ok=True)

    def _append(self, table: pa.Table) -> None:
        if self.writer is None:
            self.writer = parquet_writer(self.partial, table.schema)
        self.rows += table.num_rows
        self.totals.add(table)
        for batch in table.to_batches(max_chunksize=ROW_GROUP):
            self.pending.append(batch)
            self.held += batch.num_rows
            if self.held >= ROW_GROUP:
                group = pa.Table.from_batches(self.pending)
                self.writer.write_table(group.slice(0, ROW_GROUP), row_group_size=ROW_GROUP)
                rest = group.slice(ROW_GROUP)
                self.pending, self.held = rest.to_batches(), rest.num_rows


def clear_chunks(run_dir: Path) -> None:
    """Remove an unfinished run's chunk files (only those: the folder goes if empty)."""
    clear_subfolder(run_dir / CHUNK_DIR, RUN.pattern(CHUNK_DIR))
    (run_dir / (GAMES_FILE + ".partial")).unlink(missing_ok=True)


def versions() -> dict[str, str]:
    """Versions of everything that can change a result."""
    import numba
    import polars

    from simkit.version import __version__

    return {"simkit": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "pyarrow": pa.__version__,
            "polars": polars.__version__}


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write manifest.json atomically (its presence marks a complete run)."""
    write_json(run_dir / MANIFEST_FILE, manifest)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write a JSON file atomically."""
    tmp = path.with_name(path.name + ".partial")
    with naming(tmp):
        tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def write_csv(frame: pl.DataFrame, path: Path) -> None:
    """Write `frame` as CSV with text cells a spreadsheet would run as a formula (a name
    from a config starting with = + - @) prefixed with a quote, as OWASP advises, and so
    are cells that start with a quote (so `read_csv` gives back every name as it was);
    numbers are written as they are."""
    text = [c for c, t in frame.schema.items() if t in (pl.String, pl.Categorical, pl.Enum)]
    if text:
        def safe(c: str) -> pl.Expr:
            v = pl.col(c).cast(pl.String)
            risky = pl.any_horizontal([v.str.starts_with(s) for s in (*FORMULA_STARTS, "'")])
            return pl.when(risky).then(pl.lit("'") + v).otherwise(v).alias(c)
        frame = frame.with_columns(safe(c) for c in text)
    tmp = path.with_name(path.name + ".partial")  # atomic: never a half-written table
    with naming(tmp):
        frame.write_csv(tmp)
    os.replace(tmp, path)


def read_csv(path: Path, schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """A table `write_csv` wrote, as it was: its columns typed by `schema`, each text cell
    without the quote written before it. Numbers come back to the bit (polars writes the
    shortest digits that read back as the same float)."""
    frame = pl.read_csv(path, schema=dict(schema))
    text = [c for c, t in schema.items() if t == pl.String]
    return frame.with_columns(
        pl.when(pl.col(c).str.starts_with("'")).then(pl.col(c).str.slice(1))
        .otherwise(pl.col(c)).alias(c) for c in text)


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object simkit wrote, None if the file is absent; CorruptFile (one line that
    names the file) if it cannot be read as one."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        raise CorruptFile(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CorruptFile(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    return read_json(run_dir / MANIFEST_FILE)
