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
folded at the end (`Aggregate.folded`).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from simkit.errors import SimkitError

FORMAT = 1  # layout version of the summary file
STATS = ("_c", "_m", "_mm", "_g")  # clusters, rows, sum of squared cluster sizes, games
SIZE = "_size"  # the cluster size, a group key of `by_size` queries
_KINDS = {"str": pl.String, "int": pl.Int64, "bool": pl.Boolean, "float": pl.Float64}
_TOLERANCE = 1e-3  # a float32 win share times the scale lies this close to an integer


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
    score = np.sort(frame["score"].to_numpy().reshape(-1, n).astype(np.int32), axis=1)
    return pl.DataFrame({
        "game": game[:, 0], "deal": frame["deal"].to_numpy()[::n],
        "rounds": frame["rounds"].to_numpy()[::n], "top": score[:, -1],
        "second": score[:, -2], "tie": frame["win_share"].to_numpy().reshape(-1, n).max(
            axis=1) < 1})


@dataclass(frozen=True, eq=False)
class Query:
    """Sums over the rows of a run, per group of `by` (see the module docstring).

    `level` "row" reads one row per game and seat, "game" one row per game (`game_rows`).
    `where` keeps only the rows it is true for. `cluster` is the column whose groups are
    the clusters ("deal", "game"), or None for one cluster per row. With `by_size` the
    clusters are also grouped by their size (the seat advantage keeps complete deals).
    Two queries with equal `key`s are the same query.
    """

    by: tuple[str, ...] = ()
    values: tuple[tuple[str, pl.Expr], ...] = ()
    where: pl.Expr | None = None
    level: str = "row"
    cluster: str | None = "deal"
    by_size: bool = False

    @classmethod
    def of(cls, by: Sequence[str] = (), values: Sequence[str] | Mapping[str, pl.Expr] = (),
           *, where: pl.Expr | None = None, level: str = "row", cluster: str | None = "deal",
           by_size: bool = False) -> Query:
        """A query from column names, or from {name: expression} values."""
        pairs = (tuple(values.items()) if isinstance(values, Mapping)
                 else tuple((v, pl.col(v)) for v in values))
        return cls(tuple(by), pairs, where, level, cluster, by_size)

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

    def folded(self) -> Aggregate:
        """A copy with every open deal folded in."""
        return copy.deepcopy(self).fold_all()

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
        schema = {k: _KINDS[kind] for k, kind in zip(keys, part.kinds, strict=True)}
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


# ------------------------------------------------------------------ reducing rows
def _kind(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.Categorical | pl.Enum | pl.String):
        return "str"
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer():
        return "int"
    if dtype.is_float():
        return "float"
    raise SimkitError(f"cannot group results by a column of type {dtype}")


def _value_scales(frames: Mapping[str, pl.LazyFrame], queries: Sequence[Query], scale: int,
                  exact: bool) -> dict[tuple[str, str], int]:
    """How each value is summed: 1 (integers, booleans), `scale` (floats that are multiples
    of 1/scale, i.e. win shares) or 0 (other floats: summed as floats, not exact)."""
    floats: dict[str, dict[str, pl.Expr]] = {}
    out: dict[tuple[str, str], int] = {}
    for q in queries:
        schema = frames[q.level].select(e.alias(f"v{i}") for i, (_, e) in
                                        enumerate(q.values)).collect_schema()
        for (_, e), dtype in zip(q.values, schema.values(), strict=True):
            if dtype.is_float():
                floats.setdefault(q.level, {})[str(e)] = e
            elif dtype.is_integer() or dtype == pl.Boolean:
                out[(q.level, str(e))] = 1
            else:
                raise SimkitError(f"summary value {e}: a {dtype} column cannot be summed")
    for level, exprs in floats.items():
        names = list(exprs)
        row = frames[level].select(
            ((e.cast(pl.Float64) * scale) - (e.cast(pl.Float64) * scale).round()).abs().max()
            .alias(f"d{i}") for i, e in enumerate(exprs.values())).collect().row(0)
        for name, dev in zip(names, row, strict=True):
            whole = dev is None or dev <= _TOLERANCE
            if exact and not whole:
                raise SimkitError(f"summary value {name}: not a multiple of 1/{scale}; a "
                                  "summary keeps exact integer sums only")
            out[(level, name)] = scale if whole else 0
    return out


@dataclass
class _Shape:
    """Queries that differ only in their values share one group-by."""

    query: Query  # the first of them: level, by, where, cluster, by_size
    values: dict[str, tuple[pl.Expr, int]] = field(default_factory=dict)  # str(e) -> (e, scale)


def _plans(lf: pl.LazyFrame, shape: _Shape, schema: Mapping[str, pl.DataType],
           open_deals: list[int], one_game_deals: bool = False
           ) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """(closed totals, open per-deal rows or None) of one shape, as lazy queries.
    `one_game_deals`: every deal is one game (the strategies do not rotate)."""
    q = shape.query
    if q.where is not None:
        lf = lf.filter(q.where)
    # Keys stay as they are while grouping (categories group by their codes); the few
    # result rows are cast to their stored type at the end.
    casts = [pl.col(b).cast(_KINDS[_kind(schema[b])]) for b in q.by]
    vals = []
    for i, (e, s) in enumerate(shape.values.values()):
        v = (e.cast(pl.Float64) * s).round().cast(pl.Int64) if s > 1 else (
            e.cast(pl.Float64) if s == 0 else e.cast(pl.Int64))
        vals.append(v.alias(f"_v{i}"))
    n = len(vals)
    ys = [f"{s}{i}" for i in range(n) for s in ("_y", "_yy", "_ym")]
    if q.cluster is None:
        sel = lf.select(*q.by, *vals)
        aggs = [pl.len().alias("_m")]
        for i in range(n):
            aggs += [pl.col(f"_v{i}").sum().alias(f"_y{i}"),
                     (pl.col(f"_v{i}") * pl.col(f"_v{i}")).sum().alias(f"_yy{i}")]
        out = _group(sel, list(q.by), aggs).with_columns(
            _c=pl.col("_m"), _mm=pl.col("_m"), _g=pl.col("_m"),
            **{f"_ym{i}": pl.col(f"_y{i}") for i in range(n)})
        return out.select(*casts, *STATS, *ys), None
    # Games behind a group: with the seat among the keys (or one row per game) every row is
    # a game of its own; within one game's cluster it is one; else count distinct games.
    extra = []
    if q.level == "game" or "seat" in q.by:
        games = pl.len()
    elif q.cluster == "game" or "game" in q.by or (one_game_deals and q.cluster == "deal"):
        games = pl.lit(1)
    else:
        games, extra = pl.col("game").n_unique(), [pl.col("game")]
    sel = lf.select(pl.col(q.cluster), *extra, *q.by, *vals)
    per = sel.group_by(q.cluster, *q.by).agg(
        *[pl.col(f"_v{i}").sum().alias(f"_y{i}") for i in range(n)],
        _m=pl.len(), _g=games.cast(pl.Int64))
    opened = None
    if open_deals and q.cluster == "deal":
        split = pl.col("deal").is_in(open_deals)
        opened = per.filter(split).select("deal", *casts, "_m", "_g",
                                          *[f"_y{i}" for i in range(n)])
        per = per.filter(~split)
    group = list(q.by)
    if q.by_size:
        per = per.with_columns(pl.col("_m").alias(SIZE))
        group.append(SIZE)
    m = pl.col("_m").cast(pl.Int64)
    aggs = [pl.len().alias("_c"), m.sum().alias("_m"), (m * m).sum().alias("_mm"),
            pl.col("_g").sum().alias("_g")]
    for i in range(n):
        y = pl.col(f"_y{i}")
        aggs += [y.sum().alias(f"_y{i}"), (y * y).sum().alias(f"_yy{i}"),
                 (y * m).sum().alias(f"_ym{i}")]
    out = _group(per, group, aggs)
    return out.select(*casts, *([SIZE] if q.by_size else []), *STATS, *ys), opened


def _group(lf: pl.LazyFrame, by: list[str], aggs: list[pl.Expr]) -> pl.LazyFrame:
    if by:
        return lf.group_by(by).agg(aggs)
    return lf.with_columns(_k=pl.lit(0)).group_by("_k").agg(aggs).drop("_k")


def reduce(rows: pl.DataFrame, queries: Sequence[Query], *, scale: int,
           rotation: int | None = None, exact: bool = True,
           games: pl.DataFrame | None = None,
           scales: Mapping[tuple[str, str], int] | None = None) -> Aggregate:
    """The exact totals of `queries` over `rows` (one row per game and seat, whole games,
    in game order as simkit writes them).

    `rotation` is the number of games per deal: deals with fewer games in `rows` are kept
    open, to be completed by another chunk. None means `rows` is a whole run (every deal
    is folded). With `exact`, a float value that is not a win share is an error (a summary
    must merge exactly); without, it is summed as a float. `games` may pass in
    `game_rows(rows)` when it is already known, and `scales` how each value is summed
    (`_value_scales`; `reduce_whole_deals` decides it once for all its slices).
    """
    queries = list({q.key: q for q in queries}.values())
    frames = {"row": rows.lazy()}
    if any(q.level == "game" for q in queries):
        frames["game"] = (games if games is not None else game_rows(rows).collect()).lazy()
    open_deals: dict[int, int] = {}
    if rotation is not None and rotation > 1 and rows.height:
        # Rows come in game order, so only the first and the last deal can be cut short.
        ends = {int(rows["deal"][0]), int(rows["deal"][-1])}
        counts = rows.filter(pl.col("deal").is_in(list(ends))).group_by("deal").agg(
            pl.col("game").n_unique().alias("n")).filter(pl.col("n") < rotation)
        open_deals = dict(zip(counts["deal"].to_list(), counts["n"].to_list(), strict=True))
    if scales is None:
        scales = _value_scales(frames, queries, scale, exact)
    schemas = {level: lf.collect_schema() for level, lf in frames.items()}
    shapes: dict[str, _Shape] = {}
    members: dict[str, list[Query]] = {}  # the queries of each shape
    for q in queries:
        missing = [b for b in q.by if b not in schemas[q.level]]
        if missing:
            raise SimkitError(f"summary query by {', '.join(missing)}: no such result column")
        shape = shapes.setdefault(q.shape_key, _Shape(q))
        members.setdefault(q.shape_key, []).append(q)
        for _, e in q.values:
            shape.values.setdefault(str(e), (e, scales[(q.level, str(e))]))
    plans: list[pl.LazyFrame] = []
    for shape in shapes.values():
        closed, opened = _plans(frames[shape.query.level], shape, schemas[shape.query.level],
                                list(open_deals), one_game_deals=rotation == 1)
        plans += [closed] if opened is None else [closed, opened]
    results = iter(pl.collect_all(plans))
    parts = {}
    for sig, shape in shapes.items():
        q0 = shape.query
        nk, nb = len(q0.by) + (1 if q0.by_size else 0), len(q0.by)
        closed = next(results).rows()
        opened = next(results).rows() if open_deals and q0.cluster == "deal" else []
        index = {v: i for i, v in enumerate(shape.values)}
        kinds = [_kind(schemas[q0.level][b]) for b in q0.by] + (["int"] if q0.by_size else [])
        for q in members[sig]:
            pick = [index[str(e)] for _, e in q.values]
            part = Part(kinds, [shape.values[str(e)][1] for _, e in q.values], q.by_size)
            for r in closed:
                part.closed[tuple(r[:nk])] = [*r[nk:nk + 4],
                                              *(r[nk + 4 + 3 * i + j] for i in pick
                                                for j in range(3))]
            for r in opened:
                part.open.setdefault(r[0], {})[tuple(r[1:1 + nb])] = [
                    r[1 + nb], r[2 + nb], *(r[3 + nb + i] for i in pick)]
            parts[q.key] = part
    return Aggregate(scale, rotation or 0, list(rows.columns),
                     rows["game"].n_unique() if rows.height else 0, rows.height,
                     open_deals, parts)


def reduce_whole_deals(rows: pl.DataFrame, queries: Sequence[Query], *, scale: int,
                       exact: bool = True, games: pl.DataFrame | None = None,
                       cells: int = 0) -> Aggregate:
    """`reduce` of a whole run's rows a slice of whole deals at a time (about `cells`
    values each, rows times values asked), the totals added: the same integers in a
    slice's memory (10^6 Cauldron Master games' card values took 5.2 GB at once). A float
    that is not a win share is a float sum in every slice (last bits may differ)."""
    values = len({(q.level, str(e)) for q in queries for _, e in q.values})
    slice_rows = max(4096, (cells or REPORT_CELLS) // max(1, values))
    bounds = _deal_bounds(rows, slice_rows) if rows.height > slice_rows else None
    if bounds is None:
        return reduce(rows, queries, scale=scale, exact=exact, games=games)
    queries = list({q.key: q for q in queries}.values())
    by_game = any(q.level == "game" for q in queries)
    slices = []
    scales: dict[tuple[str, str], int] = {}
    for a, b in itertools.pairwise(bounds):  # a value is summed one way in every slice
        part = rows.slice(a, b - a)
        per_game = game_rows(part).collect() if by_game else None
        frames = {"row": part.lazy(), **({"game": per_game.lazy()} if by_game else {})}
        for key, how in _value_scales(frames, queries, scale, exact).items():
            scales[key] = min(scales.get(key, how), how)  # 0 (a float sum) wins
        slices.append((part, per_game))
    total = merge_all(reduce(part, queries, scale=scale, exact=exact, games=per_game,
                             scales=scales) for part, per_game in slices)
    assert total is not None
    return total


def _deal_bounds(rows: pl.DataFrame, step: int) -> list[int] | None:
    """Offsets cutting `rows` into slices of about `step` rows of whole deals (0 first,
    the row count last); None unless the deals come in order, as simkit writes them."""
    if "deal" not in rows.columns:
        return None
    deal = rows["deal"].to_numpy()
    if (np.diff(deal) < 0).any():
        return None
    starts = np.flatnonzero(np.diff(deal)) + 1  # the first row of every deal but the first
    at = np.searchsorted(starts, np.arange(step, len(deal), step))  # the next deal's start
    cuts = np.unique(starts[at[at < len(starts)]])
    return [0, *(int(c) for c in cuts), len(deal)]


def chunk_reducer(queries: Sequence[Query], players: int, rotate: bool
                  ) -> Callable[[pa.Table], Aggregate]:
    """Rows of a chunk (Arrow) -> the exact totals of `queries` (those the report asks).

    A chunk is reduced REDUCE_GAMES games at a time and the totals added (exactly, a deal
    cut between two slices included, as between two chunks): the same totals, with the
    memory of the report's many group-bys held to a slice's.
    """
    scale = win_scale(players)
    rotation = players if rotate else 1

    def reducer(rows: pa.Table) -> Aggregate:
        step = REDUCE_GAMES * players  # rows
        total = merge_all(_reduce_rows(rows.slice(at, step), queries, scale, rotation)
                          for at in range(0, max(rows.num_rows, 1), step))
        assert total is not None
        return total
    return reducer


REDUCE_GAMES = 16384  # games reduced at once: a few hundred MB of polars at most
REPORT_CELLS = 1 << 25  # values (rows times values asked) a report reduces at once


def _reduce_rows(rows: pa.Table, queries: Sequence[Query], scale: int, rotation: int
                 ) -> Aggregate:
    frame = pl.from_arrow(rows)
    assert isinstance(frame, pl.DataFrame)
    return reduce(frame, queries, scale=scale, rotation=rotation)


def merge_all(aggregates: Iterable[Aggregate]) -> Aggregate | None:
    """Merge aggregates one at a time (memory: one aggregate and the running totals)."""
    total: Aggregate | None = None
    for agg in aggregates:
        if total is None:
            total = agg
        else:
            total.merge(agg)
    return total


def chunk_totals(run_dir: Path) -> Aggregate:
    """The merged totals of a summary-only run's finished chunks, every deal folded in."""
    from simkit.results import chunk_path, finished_chunks

    paths = [chunk_path(run_dir, f, n, "summary")
             for f, n in finished_chunks(run_dir, "summary")]
    total = merge_all(read_aggregate(p) for p in paths)
    if total is None:
        raise SimkitError(f"{run_dir}: no finished chunk to summarise")
    return total.fold_all()


def merge_chunk_summaries(run_dir: Path, games: int) -> int:
    """Merge the chunk files of games 0..games-1 into summary.json (atomically); returns
    the rows. The chunks stay until the run is marked finished."""
    from simkit.results import SUMMARY_DATA_FILE, check_coverage, finished_chunks

    check_coverage(finished_chunks(run_dir, "summary"), games)
    total = chunk_totals(run_dir)
    write_aggregate(run_dir / SUMMARY_DATA_FILE, total)
    return total.rows
