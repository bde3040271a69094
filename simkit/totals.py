"""Reducing rows to exact totals (`simkit.summary`): the report's queries over a frame of
results, in one go (`reduce`), a chunk of a summary-only run a slice at a time
(`chunk_reducer`), or a whole run a slice of whole deals at a time
(`reduce_whole_deals`, for a report). Every way gives the same integers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from simkit import summing
from simkit.errors import SimkitError
from simkit.summary import (
    KINDS,
    SIZE,
    STATS,
    Aggregate,
    Combination,
    Part,
    Query,
    game_rows,
    merge_all,
    win_scale,
)

_TOLERANCE = 1e-3  # a float32 win share times the scale lies this close to an integer


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
                  exact: bool, checked: dict[str, dict[str, pl.Expr]] | None = None
                  ) -> dict[tuple[str, str], int]:
    """How each value is summed: 1 (integers, booleans), `scale` (floats that are multiples
    of 1/scale, i.e. win shares) or 0 (other floats: summed as floats, not exact). The
    terms of a value's `Combination` are scaled too; a float combination of whole terms
    is whole without being evaluated. `checked` receives the float values whose rows
    were checked."""
    floats: dict[str, dict[str, pl.Expr]] = {}
    combined: dict[tuple[str, str], tuple[pl.Expr, Combination]] = {}
    out: dict[tuple[str, str], int] = {}
    for q in queries:
        combos = dict(q.combinations) if q.cluster is not None else {}
        exprs = {str(e): e for _, e in q.values}
        for n, _ in q.values:
            if n in combos:
                exprs.update((str(t), t) for t, _ in combos[n].terms)
        schema = frames[q.level].select(e.alias(f"v{i}") for i, e in
                                        enumerate(exprs.values())).collect_schema()
        combo_of = {str(e): combos[n] for n, e in q.values if n in combos}
        for (key, e), dtype in zip(exprs.items(), schema.values(), strict=True):
            if dtype.is_float():
                if key in combo_of:
                    combined[(q.level, key)] = (e, combo_of[key])
                else:
                    floats.setdefault(q.level, {})[key] = e
            elif dtype.is_integer() or dtype == pl.Boolean:
                out[(q.level, key)] = 1
            else:
                raise SimkitError(f"summary value {e}: a {dtype} column cannot be summed")
    _check_whole(frames, floats, scale, exact, out)
    rest: dict[str, dict[str, pl.Expr]] = {}  # combinations of a term that is not whole
    for (level, key), (e, combo) in combined.items():
        if all(out.get((level, str(t))) for t, _ in combo.terms):
            out[(level, key)] = scale
        else:
            rest.setdefault(level, {})[key] = e
    _check_whole(frames, rest, scale, exact, out)
    if checked is not None:
        for level, exprs in (*floats.items(), *rest.items()):
            checked.setdefault(level, {}).update(exprs)
    return out


def _decided_scales(frames: Mapping[str, pl.LazyFrame], queries: Sequence[Query], scale: int,
                    exact: bool, memo: dict[str, Any] | None
                    ) -> Mapping[tuple[str, str], int]:
    """`_value_scales`, decided once for rows of the same columns (a chunk's slices):
    with `exact` a value's scale follows from its type alone, unless a float value is not
    a whole number of 1/scale, which is an error; so the next slices only check that
    (one select, not a schema per query)."""
    if memo is None or not exact:
        return _value_scales(frames, queries, scale, exact)
    key = tuple((level, tuple(lf.collect_schema().items())) for level, lf in frames.items())
    if memo.get("key") != key:
        floats: dict[str, dict[str, pl.Expr]] = {}
        scales = _value_scales(frames, queries, scale, exact, floats)
        memo.update(key=key, scales=scales, floats=floats)
        return scales
    _check_whole(frames, memo["floats"], scale, exact, {})
    return memo["scales"]


def _check_whole(frames: Mapping[str, pl.LazyFrame], floats: Mapping[str, Mapping[str, pl.Expr]],
                 scale: int, exact: bool, out: dict[tuple[str, str], int]) -> None:
    """Into `out`: `scale` for each float value that is a whole number of 1/scale in every
    row, else 0 (with `exact`, an error)."""
    for level, exprs in floats.items():
        row = frames[level].select(
            ((e.cast(pl.Float64) * scale) - (e.cast(pl.Float64) * scale).round()).abs()
            .max().alias(f"d{i}") for i, e in enumerate(exprs.values())).collect().row(0)
        for name, dev in zip(exprs, row, strict=True):
            whole = dev is None or dev <= _TOLERANCE
            if exact and not whole:
                raise SimkitError(f"summary value {name}: not a multiple of 1/{scale}; a "
                                  "summary keeps exact integer sums only")
            out[(level, name)] = scale if whole else 0


@dataclass
class _Shape:
    """Queries that differ only in their values share one group-by."""

    query: Query  # the first of them: level, by, where, cluster, by_size
    values: dict[str, tuple[pl.Expr, int]] = field(default_factory=dict)  # str(e) -> (e, scale)
    # Values summed per cluster as combinations of their terms' sums (clustered shapes
    # only), and those terms: str(e) -> Combination, str(term) -> (term, scale).
    combined: dict[str, Combination] = field(default_factory=dict)
    terms: dict[str, tuple[pl.Expr, int]] = field(default_factory=dict)

    def add(self, e: pl.Expr, combo: Combination | None,
            scales: Mapping[tuple[str, str], int]) -> None:
        """Value e, summed as `scales` says (`_value_scales`), a combination if it can be
        one: clustered, exact, and each term's scale dividing the value's."""
        level = self.query.level
        how = scales[(level, str(e))]
        self.values.setdefault(str(e), (e, how))
        if combo is None or self.query.cluster is None or not how:
            return
        term_scales = [scales[(level, str(t))] for t, _ in combo.terms]
        if not all(term_scales) or any(how % s for s in term_scales):
            return
        self.combined.setdefault(str(e), combo)
        for (t, _), s in zip(combo.terms, term_scales, strict=True):
            self.terms.setdefault(str(t), (t, s))


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
    casts = [pl.col(b).cast(KINDS[_kind(schema[b])]) for b in q.by]
    vals = [_summand(e, s).alias(f"_v{i}") for i, (e, s) in enumerate(shape.values.values())]
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
    # Per cluster, each value's sum: summed from the rows, or a combination of its terms'
    # sums (a term that is a value too is summed once).
    summed = {key: f"_y{i}" for i, key in enumerate(shape.values) if key not in shape.combined}
    for key in shape.terms:
        summed.setdefault(key, f"_t{len(summed)}")
    found = shape.values | shape.terms
    sel = lf.select(pl.col(q.cluster), *extra, *q.by,
                    *[_summand(*found[key]).alias(col) for key, col in summed.items()])
    per = sel.group_by(q.cluster, *q.by).agg(
        *[pl.col(col).sum() for col in summed.values()], _m=pl.len(), _g=games.cast(pl.Int64))
    if shape.combined:
        per = per.with_columns(
            _combined(shape.combined[key], s, summed, shape.terms).alias(f"_y{i}")
            for i, (key, (_, s)) in enumerate(shape.values.items()) if key in shape.combined)
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


_GROUPS = 1 << 22  # key combinations a compiled group-by looks up in a table, at most


def _compiled(shape: _Shape, frame: pl.DataFrame) -> bool:
    """Whether `_compiled_totals` sums this shape: exact integer values only, grouped by
    integer, boolean or categorical columns without nulls."""
    q = shape.query
    if q.cluster not in (None, "deal", "game") or not all(
            s for _, s in (*shape.values.values(), *shape.terms.values())):
        return False
    for b in q.by:
        dtype = frame.schema[b]
        if not (isinstance(dtype, pl.Categorical | pl.Enum) or dtype == pl.Boolean
                or (dtype.is_integer() and dtype != pl.UInt64)) or frame[b].null_count():
            return False
    return True


def _compiled_totals(frame: pl.DataFrame, shapes: Mapping[str, _Shape],
                     open_deals: list[int], one_game_deals: bool
                     ) -> dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
    """The rows `_plans` gives (closed totals; open deals' "deal", keys, "_m", "_g",
    "_y{i}") of each shape, from one polars `select` of every shape's summands, filters
    and key codes, then one compiled pass per shape over those arrays
    (`simkit.summing`): the same int64 arithmetic as polars's, so the same integers.
    A shape whose keys take too many combinations is left out (to `_plans`)."""
    if not shapes:
        return {}
    frame = frame.rechunk()  # one buffer per column: the compiled code reads them in place
    columns: dict[str, pl.Expr] = {}

    def column(key: str, e: pl.Expr) -> str:
        return columns.setdefault(key, e.alias(f"_e{len(columns)}")).meta.output_name()

    need = {}
    for sig, shape in shapes.items():
        q = shape.query
        summed = [key for key in shape.values if key not in shape.combined]
        summed += [key for key in shape.terms if key not in summed]
        found = shape.values | shape.terms
        need[sig] = (
            [column(f"{found[k][1]}:{k}", _summand(*found[k])) for k in summed],
            None if q.where is None else column(f"where:{q.where}",
                                               q.where.fill_null(False)),
            [column(f"key:{b}", _key_code(frame.schema[b], b)) for b in q.by],
            {k: i for i, k in enumerate(summed)})
    ev = frame.select(columns.values())
    n = frame.height
    deal = frame["deal"].to_numpy().astype(np.int64, copy=False)
    game = frame["game"].to_numpy().astype(np.int64, copy=False)
    rows = np.arange(n, dtype=np.int64)
    is_open = np.isin(deal, np.asarray(open_deals, np.int64))
    none_open = np.zeros(n, np.bool_)
    out = {}
    for sig, shape in shapes.items():
        q = shape.query
        sums, where, keys, index = need[sig]
        kept = (np.ones(n, np.bool_) if where is None
                else ev[where].to_numpy().astype(np.bool_, copy=False))
        codes = (np.stack([ev[k].to_numpy() for k in keys]) if keys
                 else np.zeros((0, n), np.int64))
        gid, first = summing.group_ids(codes, kept, _GROUPS)
        if len(gid) != n:
            continue
        if any(ev[k].null_count() for k in sums):
            continue
        columns_of = [np.ascontiguousarray(ev[k].to_numpy(), np.int64) for k in sums]
        ptr, term, coef, const = [0], [], [], []
        for key, (_, s) in shape.values.items():
            combo = shape.combined.get(key)
            if combo is None:
                term.append(index[key])
                coef.append(1)
                const.append(0)
            else:
                for t, c in combo.terms:
                    term.append(index[str(t)])
                    coef.append(c * (s // shape.terms[str(t)][1]))
                const.append(combo.const * s)
            ptr.append(len(term))
        if q.level == "game" or "seat" in q.by or q.cluster is None:
            games = summing.ROWS
        elif q.cluster == "game" or "game" in q.by or (one_game_deals and q.cluster == "deal"):
            games = summing.ONE
        else:
            games = summing.DISTINCT
        cluster = rows if q.cluster is None else deal if q.cluster == "deal" else game
        sizes = int(np.diff(np.flatnonzero(np.diff(cluster)), prepend=-1, append=n - 1).max()
                    ) + 1 if q.by_size and n else 0
        closed, opened = summing.cluster_totals(
            cluster, game, gid, len(first), summing.addresses(columns_of),
            np.asarray(ptr, np.int64), np.asarray(term, np.int64),
            np.asarray(coef, np.int64), np.asarray(const, np.int64), games, sizes,
            is_open if q.cluster == "deal" else none_open,
            *_products(ptr, term, coef, const, len(sums)))
        names = list(zip(*(_key_values(frame, b, codes[i, first], first)
                           for i, b in enumerate(q.by)), strict=True)
                     ) if q.by else [()] * len(first)
        if sizes:
            live = np.flatnonzero(closed[:, 0])
            out_closed = [(*names[k // sizes], int(k % sizes), *closed[k].tolist())
                          for k in live.tolist()]
        else:
            out_closed = [(*names[k], *row) for k, row in enumerate(closed.tolist()) if row[0]]
        out_open = [(r[0], *names[r[1]], *r[2:]) for r in opened.tolist()]
        out[sig] = (out_closed, out_open)
    return out


PRODUCTS = 1.0  # sum products of summands when that takes under this share of the operations


def _products(ptr: list[int], term: list[int], coef: list[int], const: list[int],
              n_sum: int) -> tuple[np.ndarray, ...]:
    """`summing.cluster_totals`'s products and the values' weights on them, when summing
    those pairs' products per cluster takes fewer operations than forming every value
    per cluster (else empty arrays). Value j = sum over its terms e of a_e x_e (x_n_sum
    is the cluster's size m, a_n_sum the constant): its sum of squares is
    sum a_e a_f (x_e x_f) over pairs e <= f, twice for e < f, and its sum times m
    sum a_e (x_e m)."""
    values = []
    for j in range(len(ptr) - 1):
        a: dict[int, int] = {}
        for e in range(ptr[j], ptr[j + 1]):
            a[term[e]] = a.get(term[e], 0) + coef[e]
        if const[j]:
            a[n_sum] = a.get(n_sum, 0) + const[j]
        values.append(a)
    pairs: dict[tuple[int, int], int] = {}
    for a in values:
        for e in a:
            pairs.setdefault((min(e, n_sum), n_sum), len(pairs))
            for f in a:
                if e <= f:
                    pairs.setdefault((e, f), len(pairs))
    direct = sum(ptr[j + 1] - ptr[j] + 3 for j in range(len(ptr) - 1))
    if not values or n_sum + 1 + len(pairs) >= PRODUCTS * direct:
        empty = np.zeros(0, np.int64)
        return np.zeros((0, 2), np.int64), *([np.zeros(1, np.int64), empty, empty] * 2)
    yy: list[list[tuple[int, int]]] = []
    ym: list[list[tuple[int, int]]] = []
    for a in values:
        yy.append([(pairs[(e, f)], a[e] * a[f] * (1 if e == f else 2))
                   for e in a for f in a if e <= f])
        ym.append([(pairs[(e, n_sum)], a[e]) for e in a])
    return (np.array(list(pairs), np.int64).reshape(-1, 2), *_csr(yy), *_csr(ym))


def _csr(rows: list[list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of (index, weight) as offsets, indices and weights."""
    ptr = np.cumsum([0] + [len(r) for r in rows], dtype=np.int64)
    flat = [x for r in rows for x in r]
    return (ptr, np.array([i for i, _ in flat], np.int64),
            np.array([w for _, w in flat], np.int64))


def _key_values(frame: pl.DataFrame, b: str, codes: np.ndarray, rows: np.ndarray
                ) -> list[Any]:
    """Key column b's values at `rows` as the totals store them (`KINDS`): integers and
    booleans are their own codes; categories are read from the rows."""
    kind = _kind(frame.schema[b])
    if kind == "int":
        return codes.tolist()
    if kind == "bool":
        return codes.astype(bool).tolist()
    return frame[b].gather(rows).cast(KINDS[kind]).to_list()


def _key_code(dtype: pl.DataType, b: str) -> pl.Expr:
    """A group key column as int64 codes (categories by their physical codes)."""
    e = pl.col(b)
    return (e.to_physical() if isinstance(dtype, pl.Categorical | pl.Enum) else e
            ).cast(pl.Int64)


def _summand(e: pl.Expr, scale: int) -> pl.Expr:
    """Value e as it is summed: a whole number of 1/scale (scale > 1), an integer (1), or a
    float (0)."""
    if scale > 1:
        return (e.cast(pl.Float64) * scale).round().cast(pl.Int64)
    return e.cast(pl.Float64) if scale == 0 else e.cast(pl.Int64)


def _combined(combo: Combination, scale: int, summed: Mapping[str, str],
              terms: Mapping[str, tuple[pl.Expr, int]]) -> pl.Expr:
    """A cluster's sum of a combination, in units of 1/scale, from its terms' sums (each
    in units of its own scale, which divides this one) and the cluster's rows `_m`."""
    total = pl.lit(combo.const * scale, pl.Int64) * pl.col("_m").cast(pl.Int64)
    for t, coef in combo.terms:
        total = total + pl.col(summed[str(t)]) * (coef * (scale // terms[str(t)][1]))
    return total


def _group(lf: pl.LazyFrame, by: list[str], aggs: list[pl.Expr]) -> pl.LazyFrame:
    if by:
        return lf.group_by(by).agg(aggs)
    return lf.with_columns(_k=pl.lit(0)).group_by("_k").agg(aggs).drop("_k")


def reduce(rows: pl.DataFrame, queries: Sequence[Query], *, scale: int,
           rotation: int | None = None, exact: bool = True,
           games: pl.DataFrame | None = None,
           scales: Mapping[tuple[str, str], int] | None = None,
           memo: dict[str, Any] | None = None) -> Aggregate:
    """The exact totals of `queries` over `rows` (one row per game and seat, whole games,
    in game order as simkit writes them).

    `rotation` is the number of games per deal: deals with fewer games in `rows` are kept
    open, to be completed by another chunk. None means `rows` is a whole run (every deal
    is folded). With `exact`, a float value that is not a win share is an error (a summary
    must merge exactly); without, it is summed as a float. `games` may pass in
    `game_rows(rows)` when it is already known, and `scales` how each value is summed
    (`_value_scales`; `reduce_whole_deals` decides it once for all its slices); `memo`
    keeps that decision for the next call over rows of the same columns
    (`_decided_scales`).
    """
    queries = list({q.key: q for q in queries}.values())
    eager = {"row": rows}
    if any(q.level == "game" for q in queries):
        eager["game"] = games if games is not None else game_rows(rows).collect()
    frames = {level: frame.lazy() for level, frame in eager.items()}
    open_deals: dict[int, int] = {}
    if rotation is not None and rotation > 1 and rows.height:
        # Rows come in game order, so only the first and the last deal can be cut short.
        ends = {int(rows["deal"][0]), int(rows["deal"][-1])}
        counts = rows.filter(pl.col("deal").is_in(list(ends))).group_by("deal").agg(
            pl.col("game").n_unique().alias("n")).filter(pl.col("n") < rotation)
        open_deals = dict(zip(counts["deal"].to_list(), counts["n"].to_list(), strict=True))
    if scales is None:
        scales = _decided_scales(frames, queries, scale, exact, memo)
    schemas = {level: lf.collect_schema() for level, lf in frames.items()}
    shapes: dict[str, _Shape] = {}
    members: dict[str, list[Query]] = {}  # the queries of each shape
    for q in queries:
        missing = [b for b in q.by if b not in schemas[q.level]]
        if missing:
            raise SimkitError(f"summary query by {', '.join(missing)}: no such result column")
        shape = shapes.setdefault(q.shape_key, _Shape(q))
        members.setdefault(q.shape_key, []).append(q)
        combos = dict(q.combinations)
        for name, e in q.values:
            shape.add(e, combos.get(name), scales)
    plans: list[pl.LazyFrame] = []
    # Shapes summed in compiled code, when the deals and games come in order (as simkit
    # writes them: each deal's rows, and each game's, together).
    dealt = bool(rows.height) and {"deal", "game"} <= set(schemas["row"]) and all(
        bool((np.diff(rows[c].to_numpy()) >= 0).all()) for c in ("deal", "game"))
    direct = {}
    for level, frame in eager.items() if dealt else ():
        direct |= _compiled_totals(
            frame, {sig: shape for sig, shape in shapes.items()
                    if shape.query.level == level and _compiled(shape, frame)},
            list(open_deals), rotation == 1)
    for sig, shape in shapes.items():
        if sig in direct:
            continue
        closed, opened = _plans(frames[shape.query.level], shape, schemas[shape.query.level],
                                list(open_deals), one_game_deals=rotation == 1)
        plans += [closed] if opened is None else [closed, opened]
    results = iter(pl.collect_all(plans))
    parts = {}
    for sig, shape in shapes.items():
        q0 = shape.query
        nk, nb = len(q0.by) + (1 if q0.by_size else 0), len(q0.by)
        if sig in direct:
            closed, opened = direct[sig]
        else:
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
    values each, rows times values summed), the totals added: the same integers in a
    slice's memory (10^6 Cauldron Master games' card values took 5.2 GB at once). A float
    that is not a win share is a float sum in every slice (last bits may differ)."""
    slice_rows = max(4096, (cells or REPORT_CELLS) // max(1, _summed(queries)))
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


def _summed(queries: Sequence[Query]) -> int:
    """How many values `reduce` sums from the rows for `queries`: each value once, a
    combination's terms in its place (what a slice's memory is in proportion to)."""
    summed = set()
    for q in queries:
        combos = dict(q.combinations) if q.cluster is not None else {}
        for name, e in q.values:
            terms = combos[name].terms if name in combos else ((e, 1),)
            summed.update((q.level, str(t)) for t, _ in terms)
    return len(summed)


def _deal_bounds(rows: pl.DataFrame, step: int) -> list[int] | None:
    """Offsets cutting `rows` into slices of about `step` rows of whole deals (0 first,
    the row count last); None unless the deals come in order, as simkit writes them."""
    if "deal" not in rows.columns:
        return None
    step_of_deal = np.diff(rows["deal"].to_numpy())
    if (step_of_deal < 0).any():
        return None
    starts = np.flatnonzero(step_of_deal) + 1  # the first row of every deal but the first
    at = np.searchsorted(starts, np.arange(step, rows.height, step))  # the next deal's start
    cuts = np.unique(starts[at[at < len(starts)]])
    return [0, *(int(c) for c in cuts), rows.height]


def chunk_reducer(queries: Sequence[Query], players: int, rotate: bool
                  ) -> Callable[[pa.Table], Aggregate]:
    """Rows of a chunk (Arrow) -> the exact totals of `queries` (those the report asks).

    A chunk is reduced REDUCE_GAMES games at a time and the totals added (exactly, a deal
    cut between two slices included, as between two chunks): the same totals, with the
    memory of the report's many group-bys held to a slice's.
    """
    scale = win_scale(players)
    rotation = players if rotate else 1

    memo: dict[str, Any] = {}  # how each value is summed, decided at the first slice

    def reducer(rows: pa.Table) -> Aggregate:
        step = REDUCE_GAMES * players  # rows
        total = merge_all(_reduce_rows(rows.slice(at, step), queries, scale, rotation, memo)
                          for at in range(0, max(rows.num_rows, 1), step))
        assert total is not None
        return total
    return reducer


REDUCE_GAMES = 8192  # games reduced at once: about 36 MB of summands (Cauldron Master)
REPORT_CELLS = 1 << 25  # values (rows times values summed) a report reduces at once


def _reduce_rows(rows: pa.Table, queries: Sequence[Query], scale: int, rotation: int,
                 memo: dict[str, Any] | None = None) -> Aggregate:
    frame = pl.from_arrow(rows)
    assert isinstance(frame, pl.DataFrame)
    return reduce(frame, queries, scale=scale, rotation=rotation, memo=memo)
