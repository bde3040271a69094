"""Reducing rows to exact totals (`simkit.summary`): the report's queries over a frame of
results, in one go (`reduce`), a chunk of a summary-only run a slice at a time
(`chunk_reducer`), or a whole run a slice of whole deals at a time
(`reduce_whole_deals`, for a report). Every way gives the same integers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from simkit.compiled_totals import compiled_totals, summable
from simkit.errors import SimkitError
from simkit.shapes import Shape, kind, scaled, shapes_of, summand
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
                    exact: bool, memo: dict[str, Any] | None,
                    pending: dict[str, dict[str, pl.Expr]] | None = None
                    ) -> Mapping[tuple[str, str], int]:
    """`_value_scales`, decided once for rows of the same columns (a chunk's slices):
    with `exact` a value's scale follows from its type alone, unless a float value is not
    a whole number of 1/scale, which is an error; so the next slices only check that
    (one select, not a schema per query), or with `pending` leave it to the caller: the
    float values to check go there (`_check_slice`)."""
    if memo is None or not exact:
        return _value_scales(frames, queries, scale, exact)
    key = tuple((level, tuple(lf.collect_schema().items())) for level, lf in frames.items())
    if memo.get("key") != key:
        floats: dict[str, dict[str, pl.Expr]] = {}
        scales = _value_scales(frames, queries, scale, exact, floats)
        memo.clear()  # what was planned for other columns
        memo.update(key=key, scales=scales, floats=floats)
        return scales
    if pending is None:
        _check_whole(frames, memo["floats"], scale, exact, {})
    else:
        pending.update(memo["floats"])
    return memo["scales"]


def _check_whole(frames: Mapping[str, pl.LazyFrame], floats: Mapping[str, Mapping[str, pl.Expr]],
                 scale: int, exact: bool, out: dict[tuple[str, str], int]) -> None:
    """Into `out`: `scale` for each float value that is a whole number of 1/scale in every
    row, else 0 (with `exact`, an error)."""
    for level, exprs in floats.items():
        if not exprs:
            continue
        row = frames[level].select(
            (scaled(e, scale) - scaled(e, scale).round()).abs()
            .max().alias(f"d{i}") for i, e in enumerate(exprs.values())).collect().row(0)
        for name, dev in zip(exprs, row, strict=True):
            whole = dev is None or dev <= _TOLERANCE
            if exact and not whole:
                raise _not_whole(name, scale)
            out[(level, name)] = scale if whole else 0


def _not_whole(name: str, scale: int) -> SimkitError:
    return SimkitError(f"summary value {name}: not a multiple of 1/{scale}; a summary keeps "
                       "exact integer sums only")


def _check_slice(frames: Mapping[str, pl.LazyFrame],
                 floats: Mapping[str, Mapping[str, pl.Expr]],
                 deviations: Mapping[str, Mapping[str, float]], scale: int) -> None:
    """`_check_whole` with `exact` of `floats`: from the largest distances the compiled
    passes measured as they rounded them (`deviations`), the rest by polars."""
    for level, exprs in floats.items():
        measured = deviations.get(level, {})
        for name in exprs:
            if name in measured and not measured[name] <= _TOLERANCE:
                raise _not_whole(name, scale)
        _check_whole(frames, {level: {k: e for k, e in exprs.items() if k not in measured}},
                     scale, True, {})


def _plans(lf: pl.LazyFrame, shape: Shape, schema: Mapping[str, pl.DataType],
           open_deals: list[int], one_game_deals: bool = False
           ) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """(closed totals, open per-deal rows or None) of one shape, as lazy queries.
    `one_game_deals`: every deal is one game (the strategies do not rotate)."""
    q = shape.query
    if q.where is not None:
        lf = lf.filter(q.where)
    # Keys stay as they are while grouping (categories group by their codes); the few
    # result rows are cast to their stored type at the end.
    casts = [pl.col(b).cast(KINDS[kind(schema[b])]) for b in q.by]
    vals = [summand(e, s).alias(f"_v{i}") for i, (e, s) in enumerate(shape.values.values())]
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
                    *[summand(*found[key]).alias(col) for key, col in summed.items()])
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
    # Shapes are summed in compiled code, and the deals cut short found from the columns'
    # steps, when the deals and games come in order (as simkit writes them: each deal's
    # rows, and each game's, together).
    steps = {c: np.diff(rows[c].to_numpy()) for c in ("deal", "game")
             if rows.height and c in rows.columns}
    dealt = len(steps) == 2 and all(bool((d >= 0).all()) for d in steps.values())
    open_deals: dict[int, int] = {}
    if rotation is not None and rotation > 1 and rows.height:
        # Rows come in game order, so only the first and the last deal can be cut short.
        open_deals = (_short_end_deals(rows["deal"], steps, rotation) if dealt else
                      _short_deals(rows, rotation))
    pending: dict[str, dict[str, pl.Expr]] = {}  # float values this slice must check
    if scales is None:
        scales = _decided_scales(frames, queries, scale, exact, memo, pending)
    schemas = {level: lf.collect_schema() for level, lf in frames.items()}
    planned = memo.get("shapes") if memo is not None and scales is memo.get("scales") else None
    if planned is None:
        planned = shapes_of(queries, schemas, scales)
        if memo is not None and scales is memo.get("scales"):
            memo["shapes"] = planned
    shapes, members, picks = planned
    plans: list[pl.LazyFrame] = []
    direct = {}
    deviations: dict[str, dict[str, float]] = {}
    for level, frame in eager.items() if dealt else ():
        direct |= compiled_totals(
            frame, {sig: shape for sig, shape in shapes.items()
                    if shape.query.level == level and summable(shape, frame)},
            list(open_deals), rotation == 1,
            None if memo is None else memo.setdefault(f"passes {level} {rotation}", {}),
            deviations.setdefault(level, {}))
    _check_slice(frames, pending, deviations, scale)
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
        kinds = [kind(schemas[q0.level][b]) for b in q0.by] + (["int"] if q0.by_size else [])
        for q in members[sig]:
            pick, part_scales = picks[q.key]
            part = Part(kinds, list(part_scales), q.by_size)
            # A query's columns of the shape's rows, picked in C (a generator per row
            # was a twentieth of a Cauldron Master slice's reduction).
            stats = itemgetter(*range(nk, nk + 4),
                               *(nk + 4 + 3 * i + j for i in pick for j in range(3)))
            part.closed = {tuple(r[:nk]): list(stats(r)) for r in closed}
            partial = itemgetter(1 + nb, 2 + nb, *(3 + nb + i for i in pick))
            for r in opened:
                part.open.setdefault(r[0], {})[tuple(r[1:1 + nb])] = list(partial(r))
            parts[q.key] = part
    return Aggregate(scale, rotation or 0, list(rows.columns),
                     (int(np.count_nonzero(steps["game"])) + 1 if dealt else
                      rows["game"].n_unique() if rows.height else 0), rows.height,
                     open_deals, parts)


def _short_deals(rows: pl.DataFrame, rotation: int) -> dict[int, int]:
    """The first and the last deal of `rows`, with their games, if fewer than `rotation`."""
    ends = {int(rows["deal"][0]), int(rows["deal"][-1])}
    counts = rows.filter(pl.col("deal").is_in(list(ends))).group_by("deal").agg(
        pl.col("game").n_unique().alias("n")).filter(pl.col("n") < rotation)
    return dict(zip(counts["deal"].to_list(), counts["n"].to_list(), strict=True))


def _short_end_deals(deal: pl.Series, steps: Mapping[str, np.ndarray], rotation: int
                     ) -> dict[int, int]:
    """`_short_deals` of rows in deal and game order, from the columns' steps (`reduce`):
    an end deal's rows are a run of them, its games one more than the game steps within
    (a polars group-by per slice cost a twelfth of a Cauldron Master slice's reduction)."""
    new_deal = np.flatnonzero(steps["deal"])  # the last row of every deal but the last
    runs = {int(deal[0]): (0, int(new_deal[0]) if len(new_deal) else len(deal) - 1),
            int(deal[-1]): (int(new_deal[-1]) + 1 if len(new_deal) else 0, len(deal) - 1)}
    games = {d: int(np.count_nonzero(steps["game"][a:b])) + 1 for d, (a, b) in runs.items()}
    return {d: n for d, n in games.items() if n < rotation}


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

    A chunk is reduced a slice at a time and the totals added (exactly, a deal cut
    between two slices included, as between two chunks): the same totals, with the
    memory of the report's many group-bys held to a slice's (REDUCE_GAMES games, fewer
    when the summands held at once would exceed REDUCE_CELLS values: Carnuta's 72 cards
    at the first slice; once the passes are planned, only the summands left to a polars
    select are held, as a program computes the others a block of rows at a time). The
    first slice decides how each value is summed and plans the compiled passes; the next
    ones reuse that.
    """
    scale = win_scale(players)
    rotation = players if rotate else 1
    memo: dict[str, Any] = {}  # decided and planned at the first slice
    summed = _summed(queries)  # once: it reads every expression as text

    def step() -> int:  # rows
        held = summed - sum(len(p.sums) for key, passes in memo.items()
                                      if key.startswith("passes ") for p in passes.values()
                                      if p.program is not None)
        return players * max(256, min(REDUCE_GAMES, REDUCE_CELLS // max(1, players * held)))

    def slices(rows: pa.Table) -> Iterator[Aggregate]:
        at = 0
        while at < max(rows.num_rows, 1):
            n = step()
            yield _reduce_rows(rows.slice(at, n), queries, scale, rotation, memo)
            at += n

    def reducer(rows: pa.Table) -> Aggregate:
        total = merge_all(slices(rows))
        assert total is not None
        return total
    return reducer


REDUCE_GAMES = 32768  # games reduced at once, at most
REDUCE_CELLS = 1 << 22  # summands (rows times values summed) held at once: 32 MB
REPORT_CELLS = 1 << 25  # values (rows times values summed) a report reduces at once


def _reduce_rows(rows: pa.Table, queries: Sequence[Query], scale: int, rotation: int,
                 memo: dict[str, Any] | None = None) -> Aggregate:
    frame = pl.from_arrow(rows)
    assert isinstance(frame, pl.DataFrame)
    return reduce(frame, queries, scale=scale, rotation=rotation, memo=memo)
