"""Exact aggregates of run results: what `simkit run --summary-only` keeps instead of rows.

A `Query` names one thing the balance report reads from the rows: per group of its `by`
columns, over the clusters of the run (the deals), the number of clusters `c`, of rows `m`,
the sum of squared cluster sizes `mm`, the games, and per value the sum `y`, the sum of
squared cluster sums `yy` and of cluster sums times cluster sizes `ym`. That is all a ratio
mean and its cluster-robust interval need (`reports/metrics.py`). With `cluster=None` every
row is a cluster of its own: `yy` is then a plain sum of squares (Welch's interval), and a
query without values is a histogram of its `by` columns.

Every number is an integer: win shares are stored as numerators over lcm(1..players) (a
k-way tie gives 1/k), booleans as 0/1, and game results are integers. So aggregates merge
by integer addition, in any order, and the merged totals equal those of the whole run
reduced at once, bit for bit. Their size depends on the number of distinct groups (seats,
strategies, score values...), never on the number of games.

A deal whose games fall into two chunks is kept as per-deal partial sums ("open") until
its last game is merged, then folded into the totals; a run's last, incomplete deal is
folded at the end (`Aggregate.fold_all`). `simkit/totals.py` reduces rows to these totals.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simkit.errors import SimkitError

FORMAT = 1  # layout version of the summary file
STATS = ("_c", "_m", "_mm", "_g")  # clusters, rows, sum of squared cluster sizes, games
SIZE = "_size"  # the cluster size, a group key of `by_size` queries
# The stored type of a group key column, by its kind (Part.kinds).
KINDS = {"str": pl.String, "int": pl.Int64, "bool": pl.Boolean, "float": pl.Float64}


def win_scale(players: int) -> int:
    """The common denominator of every win share with `players` players: lcm(1..players)."""
    return math.lcm(*range(1, players + 1))


def game_rows(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """One row per game: deal, rounds, the top and second score, the winner's margin, and
    whether the win was shared (`tie`: no player holds a whole win)."""
    fast = _game_rows_whole(frame) if isinstance(frame, pl.DataFrame) else None
    if fast is not None:
        return fast.lazy().with_columns(margin=pl.col("top") - pl.col("second"))
    s = pl.col("score").cast(pl.Int32)
    return (frame.lazy().group_by("game")
            .agg(deal=pl.col("deal").first(), rounds=pl.col("rounds").first(),
                 top=s.max(), second=s.sort(descending=True).get(1),
                 tie=pl.col("win_share").max() < 1)
            .with_columns(margin=pl.col("top") - pl.col("second")))


def _game_rows_whole(frame: pl.DataFrame) -> pl.DataFrame | None:
    """`game_rows` of results laid out as simkit writes them (each game's rows together,
    the same number per game), in a tenth of the time; None for any other layout."""
    if not frame.height or frame["seat"].dtype.is_float():
        return None
    n = int(frame["seat"].max()) + 1  # type: ignore[arg-type]
    if n < 2 or frame.height % n:
        return None
    game = frame["game"].to_numpy().reshape(-1, n)
    if not (game == game[:, :1]).all():
        return None
    # The top two scores and the top win share a seat at a time: numpy's sort and max
    # along rows of n were a twentieth of a Cauldron Master slice's reduction.
    score = frame["score"].to_numpy().reshape(-1, n).astype(np.int32)
    share = frame["win_share"].to_numpy().reshape(-1, n)
    top, best = score[:, 0].copy(), share[:, 0].copy()
    second = np.full(len(top), np.iinfo(np.int32).min, np.int32)
    for seat in range(1, n):
        second = np.maximum(second, np.minimum(top, score[:, seat]))
        top = np.maximum(top, score[:, seat])
        best = np.maximum(best, share[:, seat])
    return pl.DataFrame({
        "game": game[:, 0], "deal": frame["deal"].to_numpy()[::n],
        "rounds": frame["rounds"].to_numpy()[::n], "top": top, "second": second,
        "tie": best < 1})


@dataclass(frozen=True, eq=False)
class Combination:
    """A value that is, row by row, a whole-number combination of other row values plus a
    constant (e.g. (1 - h) * y = y - h * y for an indicator h). Its sum over a cluster is
    the same combination of their sums and the cluster's size, so `reduce` sums only the
    terms, each once however many values share it: the card-value table's values are
    nine such per card. It must equal its value exactly, each term's rounding to its
    scale included (tests/test_summary.py checks the report's)."""

    terms: tuple[tuple[pl.Expr, int], ...]
    const: int = 0


@dataclass(frozen=True, eq=False)
class Query:
    """Sums over the rows of a run, per group of `by` (see the module docstring).

    `level` "row" reads one row per game and seat, "game" one row per game (`game_rows`).
    `where` keeps only the rows it is true for. `cluster` is the column whose groups are
    the clusters ("deal", "game"), or None for one cluster per row. With `by_size` the
    clusters are also grouped by their size (the seat advantage keeps complete deals).
    `combinations` names values that are combinations of others (`Combination`): a way
    to sum them, not part of what the query means. Two queries with equal `key`s are the
    same query.
    """

    by: tuple[str, ...] = ()
    values: tuple[tuple[str, pl.Expr], ...] = ()
    where: pl.Expr | None = None
    level: str = "row"
    cluster: str | None = "deal"
    by_size: bool = False
    combinations: tuple[tuple[str, Combination], ...] = ()

    @classmethod
    def of(cls, by: Sequence[str] = (), values: Sequence[str] | Mapping[str, pl.Expr] = (),
           *, where: pl.Expr | None = None, level: str = "row", cluster: str | None = "deal",
           by_size: bool = False, combinations: Mapping[str, Combination] | None = None
           ) -> Query:
        """A query from column names, or from {name: expression} values."""
        pairs = (tuple(values.items()) if isinstance(values, Mapping)
                 else tuple((v, pl.col(v)) for v in values))
        return cls(tuple(by), pairs, where, level, cluster, by_size,
                   tuple((combinations or {}).items()))

    @cached_property
    def key(self) -> str:
        return json.dumps({"level": self.level, "by": list(self.by),
                           "values": [[n, str(e)] for n, e in self.values],
                           "where": None if self.where is None else str(self.where),
                           "cluster": self.cluster, "by_size": self.by_size},
                          separators=(",", ":"))

    @cached_property
    def shape_key(self) -> str:
        """The key of this query without its values: queries that share it are summed in
        one group-by (`reduce`)."""
        return Query(self.by, (), self.where, self.level, self.cluster, self.by_size).key

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self.values]


# The first look at a finished run (`summary.csv`): win share, score and length by
# strategy and seat.
CSV_QUERY = Query.of(["strategy", "seat"], ["win_share", "score", "rounds"], cluster=None)


@dataclass
class Table:
    """A query's totals: `frame` has the `by` columns (and `_size`), `_c`, `_m`, `_mm`,
    `_g`, then `_y{i}`, `_yy{i}`, `_ym{i}` per value i; `scales[i]` divides value i's sums
    (0: an inexact float value, summed as floats)."""

    frame: pl.DataFrame
    names: list[str]
    scales: list[int]


@dataclass
class Part:
    """One query's sums: `closed` per group key, `open` per deal split between chunks."""

    kinds: list[str]  # dtype kind of each key column ("str", "int", "bool", "float")
    scales: list[int]
    by_size: bool = False
    closed: dict[tuple[Any, ...], list[Any]] = field(default_factory=dict)
    open: dict[int, dict[tuple[Any, ...], list[Any]]] = field(default_factory=dict)

    def add(self, other: Part, what: str) -> None:
        if (other.scales, other.kinds, other.by_size) != (self.scales, self.kinds,
                                                          self.by_size):
            raise SimkitError(f"summary query {what}: the chunks disagree on its layout "
                              "(written by different simkit versions?)")
        _add_rows(self.closed, other.closed)
        for deal, rows in other.open.items():
            _add_rows(self.open.setdefault(deal, {}), rows)

    def fold(self, deal: int) -> None:
        """Fold a complete deal's partial sums into the totals."""
        for key, row in self.open.pop(deal, {}).items():
            m, g, ys = row[0], row[1], row[2:]
            stats = [1, m, m * m, g]
            for y in ys:
                stats += [y, y * y, y * m]
            _add_rows(self.closed, {key + (m,) if self.by_size else key: stats})


def _add_rows(into: dict[tuple[Any, ...], list[Any]],
              rows: Mapping[tuple[Any, ...], list[Any]]) -> None:
    for key, row in rows.items():
        have = into.get(key)
        into[key] = list(row) if have is None else [a + b for a, b in zip(have, row,
                                                                         strict=True)]


@dataclass
class Aggregate:
    """The exact totals of some games of a run, one `Part` per query key."""

    scale: int  # win shares are numerators over this
    rotation: int  # games per deal (0: every deal is complete, e.g. a whole run's rows)
    columns: list[str]  # the result columns the rows had
    games: int = 0
    rows: int = 0
    open_deals: dict[int, int] = field(default_factory=dict)  # deal -> games merged so far
    parts: dict[str, Part] = field(default_factory=dict)

    def merge(self, other: Aggregate) -> None:
        """Add `other` (which is consumed) to these totals; the order never matters."""
        if (other.scale, other.rotation, other.columns) != (self.scale, self.rotation,
                                                            self.columns):
            raise SimkitError("cannot merge summaries of different runs (their players, "
                              "seat rotation or result columns differ)")
        self.games += other.games
        self.rows += other.rows
        for deal, n in other.open_deals.items():
            self.open_deals[deal] = self.open_deals.get(deal, 0) + n
        for key, part in other.parts.items():
            if key in self.parts:
                self.parts[key].add(part, key)
            else:
                self.parts[key] = part
        complete = [d for d, n in self.open_deals.items() if n >= self.rotation]
        self._fold(complete)

    def _fold(self, deals: Iterable[int]) -> None:
        for deal in deals:
            for part in self.parts.values():
                part.fold(deal)
            del self.open_deals[deal]

    def fold_all(self) -> Aggregate:
        """Fold every open deal in (the run is over, or --until-sure takes a look): a run's
        last deal may be incomplete. Returns self."""
        self._fold(list(self.open_deals))
        return self

    def table(self, query: Query) -> Table | None:
        """The totals of `query` (None if this aggregate does not hold it)."""
        part = self.parts.get(query.key)
        if part is None:
            return None
        if self.open_deals:
            raise SimkitError("internal error: a summary with open deals was read")
        keys = list(query.by) + ([SIZE] if query.by_size else [])
        names = query.names
        cols = keys + list(STATS) + [f"{s}{i}" for i in range(len(names))
                                     for s in ("_y", "_yy", "_ym")]
        schema = {k: KINDS[kind] for k, kind in zip(keys, part.kinds, strict=True)}
        for c in cols[len(keys):]:
            schema[c] = pl.Int64
        for i, s in enumerate(part.scales):
            if s == 0:
                schema |= {f"_y{i}": pl.Float64, f"_yy{i}": pl.Float64, f"_ym{i}": pl.Float64}
        rows = [list(k) + v for k, v in sorted(part.closed.items(), key=_sort_key)]
        frame = pl.DataFrame(rows, schema=schema, orient="row")
        return Table(frame, names, list(part.scales))

    # ------------------------------------------------------------------ files
    def to_json(self) -> dict[str, Any]:
        """The aggregate as JSON data, in a canonical order: the same totals always give
        the same file, however the chunks were merged."""
        return {"format": FORMAT, "scale": self.scale, "rotation": self.rotation,
                "columns": self.columns, "games": self.games, "rows": self.rows,
                "open_deals": [[d, n] for d, n in sorted(self.open_deals.items())],
                "queries": {key: {"kinds": p.kinds, "scales": p.scales, "by_size": p.by_size,
                                  "closed": [list(k) + v for k, v in
                                             sorted(p.closed.items(), key=_sort_key)],
                                  "open": [[d, *k, *v] for d, rows in sorted(p.open.items())
                                           for k, v in sorted(rows.items(), key=_sort_key)]}
                            for key, p in sorted(self.parts.items())}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Aggregate:
        if data.get("format") != FORMAT:
            raise ValueError(f"unknown summary format {data.get('format')!r}")
        parts = {}
        for key, q in data["queries"].items():
            n = len(q["kinds"])
            part = Part(list(q["kinds"]), list(q["scales"]), bool(q["by_size"]))
            part.closed = {tuple(r[:n]): r[n:] for r in q["closed"]}
            n_open = n - (1 if part.by_size else 0)
            for r in q["open"]:
                part.open.setdefault(r[0], {})[tuple(r[1:1 + n_open])] = r[1 + n_open:]
            parts[key] = part
        return cls(int(data["scale"]), int(data["rotation"]), list(data["columns"]),
                   int(data["games"]), int(data["rows"]),
                   {int(d): int(n) for d, n in data["open_deals"]}, parts)


def _sort_key(item: tuple[tuple[Any, ...], list[Any]]) -> tuple[Any, ...]:
    return tuple((v is None, str(type(v)), v) for v in item[0])


def write_aggregate(path: Path, agg: Aggregate) -> None:
    """Write `agg` as JSON atomically (written aside, then renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(agg.to_json(), separators=(",", ":")))
    os.replace(tmp, path)


def read_aggregate(path: Path) -> Aggregate:
    """Read a summary file; a clear error if it is not one."""
    try:
        return Aggregate.from_json(json.loads(path.read_text()))
    except FileNotFoundError:
        raise SimkitError(f"{path}: missing") from None
    except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{path}: not a readable simkit summary (truncated or corrupt?): "
                          f"{exc}") from None


def merge_all(aggregates: Iterable[Aggregate]) -> Aggregate | None:
    """Merge aggregates one at a time (memory: one aggregate and the running totals)."""
    total: Aggregate | None = None
    for agg in aggregates:
        if total is None:
            total = agg
        else:
            total.merge(agg)
    return total


def chunk_totals(run_dir: Path, upto: int | None = None) -> Aggregate:
    """The merged totals of a summary-only run's finished chunks (those of games before
    `upto`, if given), every deal folded in."""
    from simkit.results import chunk_path, finished_chunks

    paths = [chunk_path(run_dir, f, n, "summary")
             for f, n in finished_chunks(run_dir, "summary") if upto is None or f < upto]
    total = merge_all(_read_chunk_totals(p) for p in paths)
    if total is None:
        raise SimkitError(f"{run_dir}: no finished chunk to summarise")
    return total.fold_all()


def _read_chunk_totals(path: Path) -> Aggregate:
    from simkit.results import damaged_chunk

    try:
        return read_aggregate(path)
    except SimkitError as exc:
        raise damaged_chunk(path, exc) from None


def merge_chunk_summaries(run_dir: Path, games: int) -> int:
    """Merge the chunk files of games 0..games-1 into summary.json (atomically); returns
    the rows. The chunks stay until the run is marked finished."""
    from simkit.results import SUMMARY_DATA_FILE, check_coverage, finished_chunks

    check_coverage(finished_chunks(run_dir, "summary"), games)
    total = chunk_totals(run_dir)
    write_aggregate(run_dir / SUMMARY_DATA_FILE, total)
    return total.rows
