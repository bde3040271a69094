"""A chunk's group-bys summed in compiled code (`simkit.summing`) over one polars select
of their summands, filters and key codes: what `simkit.totals.reduce` does for every
shape of exact integer values grouped by integer, boolean or categorical keys, when the
rows come as simkit writes them. The same integers as the polars plans
(`totals._plans`), which serve every other shape."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simkit import grouping, summing
from simkit.cluster_sums import cluster_sums
from simkit.programs import Program, inputs, loads, program_of, usable
from simkit.row_pairs import row_pair_totals
from simkit.shapes import Shape, kind, scaled, summand
from simkit.summary import KINDS

_GROUPS = 1 << 22  # key combinations a compiled group-by looks up in a table, at most
_NUMBERED = 1 << 20  # a pass's table entries times its sums per entry, numbered in it
_SHARED = 4  # outputs of a program run once for the passes that share it, at most


def summable(shape: Shape, frame: pl.DataFrame) -> bool:
    """Whether `_compiled_totals` sums this shape: exact integer values only, grouped by
    integer, boolean or categorical columns without nulls."""
    q = shape.query
    if q.cluster not in (None, "deal", "game") or not all(
            s for _, s in (*shape.values.values(), *shape.terms.values())):
        return False
    for b in q.by:
        dtype = frame[b].dtype
        if not (isinstance(dtype, pl.Categorical | pl.Enum) or dtype == pl.Boolean
                or (dtype.is_integer() and dtype != pl.UInt64)) or frame[b].null_count():
            return False
    return True


@dataclass
class Pass:
    """What one shape's compiled pass needs that does not change from slice to slice:
    its columns (summands, filter, key codes: key string -> expression), how its
    values are formed from the summands (`summing.cluster_totals`'s arrays), and which
    summands come in units of 1/scale, to be rounded (column key -> the value's key)."""

    sums: list[str]
    where: str | None
    keys: list[str]
    exprs: dict[str, pl.Expr]
    arrays: tuple[np.ndarray, ...]
    games: int
    whole: dict[str, str]
    program: Program | None = None  # the summands computed in the pass (`simkit.programs`)
    where_program: Program | None = None  # the filter, computed the same way
    row_pairs: bool = True  # each (cluster, group) pair one row so far (`row_pair_totals`)


def pass_of(shape: Shape, schema: Mapping[str, pl.DataType], one_game_deals: bool
             ) -> Pass:
    q = shape.query
    summed = [key for key in shape.values if key not in shape.combined]
    summed += [key for key in shape.terms if key not in summed]
    index = {k: i for i, k in enumerate(summed)}
    found = shape.values | shape.terms
    # A win share's summand is rounded here (`summing.whole_units`), which checks in the
    # same read that it is a whole number of twelfths, instead of polars rounding it and
    # a second polars pass measuring it (`totals._check_whole`).
    whole = {f"{found[k][1]}:{k}": k for k in summed if found[k][1] > 1}
    exprs = {f"{found[k][1]}:{k}": scaled(*found[k]) if found[k][1] > 1 else summand(*found[k])
             for k in summed}
    sums = list(exprs)
    where = None
    if q.where is not None:
        where = f"where:{q.where}"
        exprs[where] = q.where.fill_null(False)
    keys = [f"key:{b}" for b in q.by]
    exprs |= {f"key:{b}": key_code(schema[b], b) for b in q.by}
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
    arrays = (np.asarray(ptr, np.int64), np.asarray(term, np.int64),
              np.asarray(coef, np.int64), np.asarray(const, np.int64))
    return Pass(sums, where, keys, exprs,
                 arrays + products(ptr, term, coef, const, len(summed)), games, whole,
                 program_of({k: exprs[k] for k in sums}, set(whole), schema),
                 None if where is None else program_of({where: exprs[where]}, set(), schema))


def compiled_totals(frame: pl.DataFrame, shapes: Mapping[str, Shape],
                     open_deals: list[int], one_game_deals: bool,
                     passes: dict[str, Pass] | None = None,
                     deviations: dict[str, float] | None = None
                     ) -> dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
    """The rows `_plans` gives (closed totals; open deals' "deal", keys, "_m", "_g",
    "_y{i}") of each shape, from one polars `select` of every shape's summands, filters
    and key codes, then one compiled pass per shape over those arrays
    (`simkit.summing`): the same int64 arithmetic as polars's, so the same integers.
    A shape whose keys take too many combinations is left out (to `_plans`). `passes`
    keeps each shape's `Pass` for the next slice (the same queries and columns): what
    is left per slice is the select and the compiled code, which let go of the GIL, so
    the kernel's threads are not kept waiting for it. `deviations` receives, for each
    value summed in units of 1/scale, its rows' largest distance from a whole number of
    them (what `totals._check_whole` measures; a value not summed here is not in it)."""
    if not shapes:
        return {}
    passes = {} if passes is None else passes
    names: dict[str, str] = {}  # key string -> its column in the select
    exprs = []
    programs: dict[str, Program] = {}  # the shapes whose summands are computed in the pass
    checked: dict[str, bool] = {}  # the programs' columns, free of nulls and NaN
    category_codes: dict[tuple[str, str], int] = {}
    for sig, shape in shapes.items():
        if sig not in passes:
            passes[sig] = pass_of(shape, frame.schema, one_game_deals)
        how = passes[sig]
        if how.program is not None and usable(how.program, frame, checked):
            programs[sig] = how.program
        if how.where_program is not None and usable(how.where_program, frame, checked):
            programs[how.where] = how.where_program
        for key, e in how.exprs.items():
            if key in how.keys or key in programs or (sig in programs and key in how.sums):
                continue  # read from the columns, or computed in compiled code
            if key not in names:
                names[key] = f"_e{len(names)}"
                exprs.append(e.alias(names[key]))
    ev = frame.select(exprs) if exprs else frame.clear(0)
    n = frame.height
    deal = frame["deal"].to_numpy().astype(np.int64, copy=False)
    game = frame["game"].to_numpy().astype(np.int64, copy=False)
    rows = np.arange(n, dtype=np.int64)
    is_open = np.zeros(n, np.bool_)
    for d in open_deals:  # the first and the last deal at most: np.isin sorted the rows
        is_open |= deal == d
    none_open = np.zeros(n, np.bool_)
    summands: dict[str, np.ndarray | None] = {}  # column key -> int64s; None: to polars
    decoded: dict[str, dict[int, Any]] = {}  # key column -> its categories by code

    def summands_of(k: str, how: Pass) -> np.ndarray | None:
        if k not in summands:
            column = ev[names[k]]
            if column.null_count():
                summands[k] = None
            elif k in how.whole:
                units, worst = summing.whole_units(column.to_numpy().astype(np.float64,
                                                                           copy=False))
                summands[k] = None if np.isnan(worst) else units
                if deviations is not None and not np.isnan(worst):
                    deviations[how.whole[k]] = float(worst)
            else:
                summands[k] = np.ascontiguousarray(column.to_numpy(), np.int64)
        return summands[k]

    read: dict[str, tuple[np.ndarray, int]] = {}  # input columns of the programs
    # Every key column's int64 codes, as `key_code` gives them (categories' physical),
    # in one array (one allocation, not one per shape).
    by = {b: i for i, b in enumerate(dict.fromkeys(b for s in shapes.values()
                                                    for b in s.query.by))}
    codes = np.empty((len(by), n), np.int64)
    for b, i in by.items():
        col = frame[b]
        codes[i] = (col.to_physical() if isinstance(col.dtype, pl.Categorical | pl.Enum)
                    else col).to_numpy()
    ranges = grouping.key_ranges(codes)
    grouped: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # (by, filter) -> its table
    clusters: dict[str | None, tuple[np.ndarray, np.ndarray, int]] = {}  # by cluster column
    every_row = np.ones(n, np.bool_)

    def kept_of(how: Pass) -> np.ndarray:
        if how.where is None:
            return every_row
        if how.where in programs:
            w = programs[how.where]
            arrays, kinds = inputs(w, frame, read)
            return summing.evaluate_column(w.ops_for(frame, category_codes), w.consts,
                                           summing.addresses(arrays), kinds, n, w.n_int,
                                           w.n_float, w.outputs[0]).astype(np.bool_)
        return ev[names[how.where]].to_numpy().astype(np.bool_, copy=False)

    # A program of few outputs that several passes run over the same columns (one value
    # grouped by several keys: Cauldron Master's six by a witch count or cards left) is
    # run once; the passes read its outputs as they are (`loads`). Its ROUNDs' distances
    # are over every row either way; the blocks differ, the integers do not.
    def program_key(program: Program) -> tuple[Any, ...]:
        return (program.ops_for(frame, category_codes).tobytes(), program.consts.tobytes(),
                tuple(program.columns), tuple(program.outputs))

    ran: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    program_keys = {sig: program_key(programs[sig]) for sig in shapes if sig in programs}
    runs_of = Counter(program_keys.values())

    def shared_summands(program: Program, key: tuple[Any, ...]
                        ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, Program]:
        """The arrays, kinds, ROUND distances and program a pass of `program` (its
        `program_key`) reads."""
        arrays, kinds = inputs(program, frame, read)
        worst = np.zeros(len(program.outputs))
        if runs_of[key] < 2 or not 0 < len(program.outputs) <= _SHARED:
            return arrays, kinds, worst, program
        if key not in ran:
            columns = summing.evaluate_columns(
                program.ops_for(frame, category_codes), program.consts,
                summing.addresses(arrays), kinds, n, program.n_int, program.n_float,
                np.asarray(program.outputs, np.int64), worst)
            ran[key] = (list(columns), np.full(len(columns), summing.I64, np.int64),
                        worst, loads(len(columns)))
        columns, loaded_kinds, measured, loaded = ran[key]
        return columns, loaded_kinds, measured.copy(), loaded

    out = {}
    for sig, shape in shapes.items():
        q = shape.query
        how = passes[sig]
        by_where = (tuple(q.by), how.where)  # shapes that share it share their table
        if by_where not in grouped:
            which = np.array([by[b] for b in q.by], np.int64)
            kept = kept_of(how)
            grouped[by_where] = (codes, which, kept, *grouping.group_table(
                codes, which, kept, _GROUPS, ranges))
        program = programs.get(sig)
        if program is None:  # summands from the select, read as they are
            found = [summands_of(k, how) for k in how.sums]
            arrays = [c for c in found if c is not None]
            if len(arrays) < len(found):
                continue
            program = run = loads(len(arrays))
            kinds = np.full(len(arrays), summing.I64, np.int64)
            worst = np.zeros(len(program.outputs))
        else:
            arrays, kinds, worst, run = shared_summands(program, program_keys[sig])
        if q.cluster not in clusters:
            cluster = rows if q.cluster is None else deal if q.cluster == "deal" else game
            clusters[q.cluster] = (cluster, *summing.cluster_starts(cluster))
        cluster, starts, longest = clusters[q.cluster]
        sizes = longest + 1 if q.by_size and n else 0
        ptr, term, coef, const, *products = how.arrays
        key_codes, which, kept, lo, stride, size = grouped[by_where]
        # The pass numbers the groups as it goes, through a table of `size` entries, each
        # holding `width` sums; past _NUMBERED of them, the rows are numbered first (the
        # pass then reads their groups as its one key, a table of as many entries).
        width = (4 + 3 * (len(ptr) - 1) + len(program.outputs) + 1 + len(products[0])
                 ) * max(sizes, 1)
        if size < 0 or size * width > _NUMBERED:
            numbered = grouped.get((by_where, "numbered"))
            if numbered is None:
                gid, first = grouping.group_ids(key_codes, which, kept, _GROUPS, ranges)
                numbered = grouped[(by_where, "numbered")] = (
                    gid.reshape(1, -1), np.zeros(1, np.int64), kept, np.zeros(1, np.int64),
                    np.ones(1, np.int64), max(len(first), 1) if len(gid) == n else -1)
            key_codes, which, kept, lo, stride, size = numbered
            if size < 0:
                continue  # too many groups: left to polars
        args = (cluster, starts, longest, game, key_codes, which, kept, lo, stride, size,
                run.ops_for(frame, category_codes), run.consts,
                summing.addresses(arrays), kinds, run.n_int, run.n_float,
                np.asarray(run.outputs, np.int64), worst, ptr, term, coef, const,
                how.games, sizes, is_open if q.cluster == "deal" else none_open)
        # Pairs of one row (a plain mean, a game's seats) are summed row by row, until a
        # pass meets a larger one; without products, clusters of several rows group by
        # group as they come (`cluster_sums`); else through the pairs and products.
        done = False
        if how.row_pairs and not (open_deals and q.cluster == "deal"):
            done, closed, opened, first = row_pair_totals(*args)
            how.row_pairs = done
        if not done:
            closed, opened, first = (summing.cluster_totals(*args, *products)
                                     if len(products[0]) or q.cluster is None else
                                     cluster_sums(*args))
        if sig in programs:
            measured = {how.whole[k]: float(worst[slot])
                        for k, slot in zip(how.sums, program.rounded, strict=True) if slot >= 0}
            if any(np.isnan(d) for d in measured.values()):
                continue  # a NaN or a value beyond int64: left to polars, as whole_units
            if deviations is not None:
                deviations.update(measured)
        keys = list(zip(*(key_values(frame, b, codes[by[b], first], first,
                                     decoded.setdefault(b, {}))
                          for b in q.by), strict=True)
                    ) if q.by else [()] * len(first)
        if sizes:
            live = np.flatnonzero(closed[:, 0])
            out_closed = [(*keys[k // sizes], int(k % sizes), *closed[k].tolist())
                          for k in live.tolist()]
        else:
            out_closed = [(*keys[k], *row) for k, row in enumerate(closed.tolist()) if row[0]]
        out_open = [(r[0], *keys[r[1]], *r[2:]) for r in opened.tolist()]
        out[sig] = (out_closed, out_open)
    return out


PRODUCTS = 1.0  # sum products of summands when that takes under this share of the operations


def products(ptr: list[int], term: list[int], coef: list[int], const: list[int],
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
    # Those with m last: a cluster of the usual size skips them (`cluster_totals`).
    pairs = {p: i for i, p in enumerate(sorted(pairs, key=lambda p: p[1] == n_sum))}
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
    return (np.array(list(pairs), np.int64).reshape(-1, 2), *csr(yy), *csr(ym))


def csr(rows: list[list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of (index, weight) as offsets, indices and weights."""
    ptr = np.cumsum([0] + [len(r) for r in rows], dtype=np.int64)
    flat = [x for r in rows for x in r]
    return (ptr, np.array([i for i, _ in flat], np.int64),
            np.array([w for _, w in flat], np.int64))


def key_values(frame: pl.DataFrame, b: str, codes: np.ndarray, rows: np.ndarray,
               known: dict[int, Any] | None = None) -> list[Any]:
    """Key column b's values at `rows` as the totals store them (`KINDS`): integers and
    booleans are their own codes; categories are read from the rows, those of codes not
    in `known` (the categories of `frame`'s codes read so far: most shapes of a slice
    share their keys), which receives them."""
    of = kind(frame[b].dtype)
    if of == "int":
        return codes.tolist()
    if of == "bool":
        return codes.astype(bool).tolist()
    known = {} if known is None else known
    listed = codes.tolist()
    new = [i for i, c in enumerate(listed) if c not in known]
    if new:
        read = frame[b].gather(rows[new]).cast(KINDS[of]).to_list()
        known.update(zip((listed[i] for i in new), read, strict=True))
    return [known[c] for c in listed]


def key_code(dtype: pl.DataType, b: str) -> pl.Expr:
    """A group key column as int64 codes (categories by their physical codes)."""
    e = pl.col(b)
    return (e.to_physical() if isinstance(dtype, pl.Categorical | pl.Enum) else e
            ).cast(pl.Int64)
