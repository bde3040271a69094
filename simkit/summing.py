"""Compiled sums behind a summary-only run's totals (`simkit.totals`): a chunk's rows, one
pass per group-by, summed per cluster and group, then into the totals a ratio mean and
its cluster-robust interval need. Plain arrays in, plain arrays out: no dataframe here.

Every sum is int64, with the same wrapping arithmetic as polars's, so the same integers.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.extending import intrinsic

from simkit.folding import fold_laid, fold_products, lay_regular, regular
from simkit.grouping import number_rows
from simkit.jitcache import drop_stale_modules, modules_cached

# The compiled reductions call one another across these files, and numba's cache of a
# function notices changes to its own file only: an edit to folding.py would leave
# summing's cached passes running the old fold. One stamp over all of them, checked
# before any is called (each of the others imports this module first).
REDUCTION_MODULES = ("grouping", "folding", "summing", "row_pairs", "cluster_sums")
drop_stale_modules(Path(__file__).parent, REDUCTION_MODULES, "reductions.stamp")


def reductions_cached() -> bool:
    """Whether the reductions load from numba's cache (else a summary-only run's first
    chunk compiles them: about 30 CPU-s)."""
    return modules_cached(Path(__file__).parent, REDUCTION_MODULES)

ROWS, ONE, DISTINCT = 0, 1, 2  # how a group's games are counted: its rows, 1, distinct games


@intrinsic
def _int64_pointer(typingctx, address):
    """The uint64 `address` as a pointer to int64s."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())
    return types.CPointer(types.int64)(types.uint64), codegen


def _pointer_to(nbtype: types.Type) -> Any:
    @intrinsic
    def pointer(typingctx, address):
        """The uint64 `address` as a pointer to values of `nbtype`."""
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(nbtype).as_pointer())
        return types.CPointer(nbtype)(types.uint64), codegen
    return pointer


_i8, _u8, _i16, _u16 = (_pointer_to(t) for t in (types.int8, types.uint8, types.int16,
                                                  types.uint16))
_i32, _u32, _f32, _f64 = (_pointer_to(t) for t in (types.int32, types.uint32, types.float32,
                                                    types.float64))

# A program's operations (`simkit.programs`): rows of (opcode, target, a, b). Registers
# are rows of `ireg` (int64; booleans as 0/1) or `freg` (float64), one value per row of
# the block.
LOADI, LOADF, CONSTI, CONSTF, TOFLOAT, NOT, AND, OR, ROUND = range(9)  # a: column, value...
ADD, SUB, MUL, EQ, NE, LT, LE, GT, GE = range(10, 19)  # integer ones
FLOAT_OPS = 9  # the float form of ADD..GE is this much further on
# The stored type of an input column.
I8, U8, I16, U16, I32, U32, I64, F32, F64 = range(9)


@njit(cache=True, nogil=True, inline="always")
def _load_int(kind: int, address: int, n: int, a: int, count: int, out: np.ndarray) -> None:
    if kind == I8:
        c8 = carray(_i8(address), n)
        for i in range(count):
            out[i] = c8[a + i]
    elif kind == U8:
        u8 = carray(_u8(address), n)
        for i in range(count):
            out[i] = u8[a + i]
    elif kind == I16:
        c16 = carray(_i16(address), n)
        for i in range(count):
            out[i] = c16[a + i]
    elif kind == U16:
        u16 = carray(_u16(address), n)
        for i in range(count):
            out[i] = u16[a + i]
    elif kind == I32:
        c32 = carray(_i32(address), n)
        for i in range(count):
            out[i] = c32[a + i]
    elif kind == U32:
        u32 = carray(_u32(address), n)
        for i in range(count):
            out[i] = u32[a + i]
    else:
        c64 = carray(_int64_pointer(address), n)
        for i in range(count):
            out[i] = c64[a + i]


@njit(cache=True, nogil=True)
def evaluate(ops: np.ndarray, consts: np.ndarray, columns: np.ndarray, kinds: np.ndarray,
             n: int, a: int, b: int, ireg: np.ndarray, freg: np.ndarray,
             worst: np.ndarray) -> None:
    """Run a program over rows a..b-1 of its input columns (`columns`: addresses of
    arrays of n values, of `kinds`) into the registers' first b - a values. A ROUND
    keeps its slot's largest distance from a whole number in `worst` (NaN when a value
    is NaN or beyond int64, as `whole_units`)."""
    count = b - a
    for k in range(ops.shape[0]):
        op, t, x, y = ops[k, 0], ops[k, 1], ops[k, 2], ops[k, 3]
        if op == LOADI:
            _load_int(kinds[x], columns[x], n, a, count, ireg[t])
        elif op == LOADF:
            if kinds[x] == F32:
                f32 = carray(_f32(columns[x]), n)
                for i in range(count):
                    freg[t, i] = f32[a + i]
            else:
                f64 = carray(_f64(columns[x]), n)
                for i in range(count):
                    freg[t, i] = f64[a + i]
        elif op == CONSTI:
            ireg[t, :count] = x
        elif op == CONSTF:
            freg[t, :count] = consts[x]
        elif op == TOFLOAT:
            for i in range(count):
                freg[t, i] = ireg[x, i]
        elif op == NOT:
            for i in range(count):
                ireg[t, i] = 1 - ireg[x, i]
        elif op == AND:
            for i in range(count):
                ireg[t, i] = ireg[x, i] & ireg[y, i]
        elif op == OR:
            for i in range(count):
                ireg[t, i] = ireg[x, i] | ireg[y, i]
        elif op == ROUND:
            w = worst[y]
            for i in range(count):
                v = freg[x, i]
                if not abs(v) < 9.0e18:
                    w = np.nan
                    ireg[t, i] = 0
                    continue
                r = math.floor(v + 0.5)
                d = abs(v - r)
                if d > w:
                    w = d
                ireg[t, i] = np.int64(r)
            worst[y] = w
        elif op < ADD + FLOAT_OPS:
            _integer_op(op, ireg[t], ireg[x], ireg[y], count)
        elif op <= MUL + FLOAT_OPS:
            _float_arithmetic(op - FLOAT_OPS, freg[t], freg[x], freg[y], count)
        else:  # float comparisons (their inputs hold no NaN: `programs.usable`)
            _integer_op(op - FLOAT_OPS, ireg[t], freg[x], freg[y], count)


@njit(cache=True, nogil=True)
def evaluate_column(ops: np.ndarray, consts: np.ndarray, columns: np.ndarray,
                    kinds: np.ndarray, n: int, n_int: int, n_float: int, output: int
                    ) -> np.ndarray:
    """A program's int register `output` over all n rows (a filter, a block at a time)."""
    return evaluate_columns(ops, consts, columns, kinds, n, n_int, n_float,
                            np.full(1, output, np.int64), np.zeros(1))[0]


@njit(cache=True, nogil=True)
def evaluate_columns(ops: np.ndarray, consts: np.ndarray, columns: np.ndarray,
                     kinds: np.ndarray, n: int, n_int: int, n_float: int,
                     outputs: np.ndarray, worst: np.ndarray) -> np.ndarray:
    """A program's int registers `outputs` over all n rows, a block at a time (its
    ROUNDs' distances into `worst`): summands that several passes share, computed
    once."""
    out = np.empty((outputs.shape[0], n), np.int64)
    ireg = np.zeros((n_int, BLOCK), np.int64)
    freg = np.zeros((n_float, BLOCK), np.float64)
    for a in range(0, n, BLOCK):
        b = min(n, a + BLOCK)
        evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
        for o in range(outputs.shape[0]):
            out[o, a:b] = ireg[outputs[o], :b - a]
    return out


@njit(cache=True, nogil=True, inline="always")
def _integer_op(op: int, out: np.ndarray, x: np.ndarray, y: np.ndarray, count: int) -> None:
    # One loop per operation, not a test per value: each loop is vectorised.
    if op == ADD:
        for i in range(count):
            out[i] = x[i] + y[i]
    elif op == SUB:
        for i in range(count):
            out[i] = x[i] - y[i]
    elif op == MUL:
        for i in range(count):
            out[i] = x[i] * y[i]
    elif op == EQ:
        for i in range(count):
            out[i] = x[i] == y[i]
    elif op == NE:
        for i in range(count):
            out[i] = x[i] != y[i]
    elif op == LT:
        for i in range(count):
            out[i] = x[i] < y[i]
    elif op == LE:
        for i in range(count):
            out[i] = x[i] <= y[i]
    elif op == GT:
        for i in range(count):
            out[i] = x[i] > y[i]
    else:
        for i in range(count):
            out[i] = x[i] >= y[i]


@njit(cache=True, nogil=True, inline="always")
def _float_arithmetic(op: int, out: np.ndarray, x: np.ndarray, y: np.ndarray,
                      count: int) -> None:
    if op == ADD:
        for i in range(count):
            out[i] = x[i] + y[i]
    elif op == SUB:
        for i in range(count):
            out[i] = x[i] - y[i]
    else:
        for i in range(count):
            out[i] = x[i] * y[i]


def addresses(columns: list[np.ndarray]) -> np.ndarray:
    """The data addresses of C-contiguous `columns`, as `evaluate` reads them (polars's
    own buffers, without a copy into one array, or a typed list: its first use in a
    process compiles for half a second). The caller keeps the columns alive through
    the call."""
    assert all(c.flags.c_contiguous for c in columns)
    return np.array([c.ctypes.data for c in columns], np.uint64)


@njit(cache=True, nogil=True)
def whole_units(x: np.ndarray) -> tuple[np.ndarray, float]:
    """Values in units of 1/scale (float64) rounded to int64, and the largest distance of
    one from its rounding: the summands and the check that they are whole, in one read.
    NaN for the distance when a value is NaN or beyond int64 (the caller then leaves the
    column to polars). Half-way values round up; they are never whole, so never summed."""
    out = np.empty(x.shape[0], np.int64)
    worst = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if not abs(v) < 9.0e18:
            return out, np.nan
        r = math.floor(v + 0.5)
        d = abs(v - r)
        if d > worst:
            worst = d
        out[i] = np.int64(r)
    return out, worst


BLOCK = 256  # rows summed a block at a time, at least: their partial sums stay in the cache
REGISTERS = 1 << 15  # a block's register values, at most (256 KB), when over BLOCK rows


@njit(cache=True, nogil=True)
def block_rows(n_registers: int) -> int:
    """Rows evaluated a block at a time: more than BLOCK when the program has few
    registers (a one-value group-by's pass then loops over its blocks a tenth as
    often); the sums are integers, the same whatever the blocks."""
    return max(BLOCK, min(4096, REGISTERS // max(n_registers, 1)))


@njit(cache=True, nogil=True)
def block_end(starts: np.ndarray, c: int, cap: int) -> int:
    """The block of whole clusters from cluster c: its end d (clusters c..d-1, rows
    starts[c]..starts[d]-1), as many as fit in `cap` rows, and at least one."""
    a, d = starts[c], c + 1
    while d < len(starts) - 1 and starts[d + 1] - a <= cap:
        d += 1
    return d


@njit(cache=True, nogil=True)
def _single_rows(cluster: np.ndarray, opened: np.ndarray) -> bool:
    """Whether every cluster is one row, and none is kept apart."""
    for r in range(cluster.shape[0]):
        if opened[r] or (r > 0 and cluster[r] == cluster[r - 1]):
            return False
    return True


@njit(cache=True, nogil=True)
def _row_totals(keys: np.ndarray, which: np.ndarray, kept: np.ndarray, lo: np.ndarray,
                stride: np.ndarray, table: np.ndarray, first: np.ndarray, ops: np.ndarray,
                consts: np.ndarray, columns: np.ndarray, kinds: np.ndarray, n_int: int,
                n_float: int, summed: np.ndarray, worst: np.ndarray, ptr: np.ndarray,
                term: np.ndarray, coef: np.ndarray, const: np.ndarray, closed: np.ndarray
                ) -> int:
    """`cluster_totals` when every cluster is one row (a histogram, a plain mean): each
    row adds 1 to its group's c, m, mm and games, and y, y * y, y to its values'.
    Returns the groups numbered."""
    n = kept.shape[0]
    n_val = ptr.shape[0] - 1
    rows = block_rows(n_int + n_float)
    ireg = np.zeros((n_int, rows), np.int64)
    freg = np.zeros((n_float, rows), np.float64)
    gid = np.empty(rows, np.int64)
    groups = 0
    for a in range(0, n, rows):
        b = min(n, a + rows)
        groups = number_rows(keys, which, kept, lo, stride, table, first, groups, a, b, gid)
        if n_val:
            evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
        for r in range(a, b):
            g = gid[r - a]
            if g < 0:
                continue
            for k in range(4):
                closed[g, k] += 1
            for j in range(n_val):
                y = const[j]
                for e in range(ptr[j], ptr[j + 1]):
                    y += coef[e] * ireg[summed[term[e]], r - a]
                closed[g, 4 + 3 * j] += y
                closed[g, 5 + 3 * j] += y * y
                closed[g, 6 + 3 * j] += y
    return groups


@njit(cache=True, nogil=True)
def cluster_starts(cluster: np.ndarray) -> tuple[np.ndarray, int]:
    """Each cluster's first row, then the row count, and the longest cluster's rows (rows
    come cluster by cluster): found once per slice, for every group-by of its clusters."""
    n = cluster.shape[0]
    starts = np.empty(n + 1, np.int64)
    starts[0] = 0
    k = 1
    longest = 0
    for r in range(1, n + 1):
        if r == n or cluster[r] != cluster[r - 1]:
            longest = max(longest, r - starts[k - 1])
            starts[k] = r
            k += 1
    return starts[:k], longest


@njit(cache=True, nogil=True)
def cluster_totals(cluster: np.ndarray, starts: np.ndarray, longest: int, game: np.ndarray,
                   keys: np.ndarray, which: np.ndarray, kept: np.ndarray, lo: np.ndarray,
                   stride: np.ndarray, size: int, ops: np.ndarray, consts: np.ndarray,
                   columns: np.ndarray, kinds: np.ndarray, n_int: int, n_float: int,
                   summed: np.ndarray,
                   worst: np.ndarray, ptr: np.ndarray, term: np.ndarray, coef: np.ndarray,
                   const: np.ndarray, games: int, sizes: int, opened: np.ndarray,
                   products: np.ndarray, yy_ptr: np.ndarray, yy_of: np.ndarray,
                   yy_w: np.ndarray, ym_ptr: np.ndarray, ym_of: np.ndarray,
                   ym_w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The totals of one group-by over rows that come cluster by cluster (`starts` and
    `longest` as `cluster_starts` gives them).

    Its groups are those of key columns `which` of `keys` over the `kept` rows,
    numbered as the pass reaches them (`grouping.number_rows`, through `group_table`'s
    table of `size` entries: lo, stride), in the order `group_ids` numbers them.

    What is summed per cluster and group is computed a block of rows at a time by a
    program (`evaluate` of ops, consts, columns, kinds; `simkit.programs`) into int
    registers, `summed` naming each summand's; `worst` takes its ROUNDs' distances.
    Value j's cluster sum is const[j] * m + sum(coef[e] * sum of summand term[e])
    over its entries e in ptr[j]..ptr[j+1] (a plain value: one entry, coefficient 1).
    `games`: ROWS, ONE or DISTINCT (each game's rows together). `sizes` > 0 groups the
    clusters by their size too (group g, size m -> g * sizes + m; sizes exceeds every
    cluster's rows). A cluster whose first row is `opened` is kept apart, per cluster
    and group.

    With `products` (pairs of summands, the summand count standing for m, those with m
    last), a closed cluster adds its summands' sums and m, and those pairs' products, to
    its key's (with one key, a block's closed clusters at once: `folding`), and the
    values' totals are formed from them at the end (`Products`):
    fewer operations when many values share few summands (the card values: 278 from
    101), and the same integers, as int64 arithmetic wraps modulo 2^64 whatever the order.

    Returns (closed, open, first): closed[key] = c, m, mm, games, then per value y, yy,
    ym; open rows = cluster, group, m, games, then per value y; each group's first row.
    """
    n = cluster.shape[0]
    n_sum = summed.shape[0]
    n_val = ptr.shape[0] - 1
    width = size * sizes if sizes > 0 else size  # keys the table can number
    table, first = np.full(size, -1, np.int64), np.empty(size, np.int64)
    closed = np.zeros((width, 4 + 3 * n_val), np.int64)
    if sizes == 0 and _single_rows(cluster, opened):
        groups = _row_totals(keys, which, kept, lo, stride, table, first, ops, consts,
                             columns, kinds, n_int, n_float, summed, worst, ptr, term, coef,
                             const, closed)
        return closed[:groups].copy(), np.zeros((0, 4 + n_val), np.int64), first[:groups].copy()
    groups, open_rows = 0, 0  # the split deals' rows: at most one pair each
    for c in range(len(starts) - 1):
        if opened[starts[c]]:
            open_rows += starts[c + 1] - starts[c]
    out_open = np.zeros((open_rows, 4 + n_val), np.int64)
    k_open = 0
    # The block's (cluster, group) pairs: partial sums, group, first row, rows, games.
    cap = max(block_rows(n_int + n_float), longest)
    part = np.zeros((cap, n_sum), np.int64)
    pair_group = np.empty(cap, np.int64)
    pair_start = np.empty(cap, np.int64)
    pair_rows = np.zeros(cap, np.int64)
    pair_games = np.zeros(cap, np.int64)
    pair_of_row = np.empty(cap, np.int64)
    gid = np.empty(cap, np.int64)  # the block's rows' groups
    # A group's pair in the current cluster, and its last game.
    slot, last = np.full(size, -1, np.int64), np.full(size, -1, np.int64)
    ys = np.empty(n_val, np.int64)
    n_prod = products.shape[0]
    lin = np.zeros((width if n_prod else 0, n_sum + 1), np.int64)  # summands' sums, then m
    quad = np.zeros((width if n_prod else 0, n_prod), np.int64)
    sums = np.empty(n_sum + 1, np.int64)
    # The products with m (put last): x * m summed is m0 times x summed plus x * (m - m0),
    # so a pair of m0 rows skips them (modulo 2^64, whatever m0): m0 is the commonest
    # pair size of the first block (a game's seats, a full deal; a seat's row of a game).
    n_plain = 0
    while n_plain < n_prod and products[n_plain, 1] < n_sum:
        n_plain += 1
    m0 = -1
    seen = np.zeros(cap + 1, np.int64)  # the first block's pairs by size
    held, n_held = np.empty(cap, np.int64), 0  # a one-key pass's closed pairs in the block
    by_summand = np.empty((n_sum + 2, cap if n_prod and width == 1 else 0), np.int64)
    ireg = np.zeros((n_int, cap), np.int64)
    freg = np.zeros((n_float, cap), np.float64)
    c = 0
    while c < len(starts) - 1:
        d = block_end(starts, c, cap)  # the block: whole clusters c..d-1, rows a..b-1
        a, b = starts[c], starts[d]
        groups = number_rows(keys, which, kept, lo, stride, table, first, groups, a, b, gid)
        if (m0 > 0 and width == 1 and n_prod and games != DISTINCT
                and regular(gid, starts, c, d, m0, opened)):  # its pairs: its clusters
            evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
            lay_regular(ireg, summed, d - c, m0, by_summand)
            fold_laid(by_summand, d - c, False, products, n_plain, lin[0], quad[0])
            closed[0, 0] += d - c
            closed[0, 1] += (d - c) * m0
            closed[0, 2] += (d - c) * m0 * m0
            closed[0, 3] += (d - c) * (1 if games == ONE else m0)
            c = d
            continue
        pairs = 0
        for k in range(c, d):
            for r in range(starts[k], starts[k + 1]):
                g = gid[r - a]
                if g < 0:
                    pair_of_row[r - a] = -1
                    continue
                p = slot[g]
                if p < 0:
                    p = pairs
                    pairs += 1
                    slot[g] = p
                    pair_group[p] = g
                    pair_start[p] = starts[k]
                    last[g] = -1
                pair_of_row[r - a] = p
                pair_rows[p] += 1
                if game[r] != last[g]:
                    pair_games[p] += 1
                    last[g] = game[r]
            for r in range(starts[k], starts[k + 1]):
                if gid[r - a] >= 0:
                    slot[gid[r - a]] = -1
        if m0 < 0 and pairs:
            for p in range(pairs):
                seen[pair_rows[p]] += 1
            m0 = np.argmax(seen)
        evaluate(ops, consts, columns, kinds, n, a, b, ireg, freg, worst)
        for s in range(n_sum):  # a summand at a time, through the block
            col = ireg[summed[s]]
            for r in range(a, b):
                p = pair_of_row[r - a]
                if p >= 0:
                    part[p, s] += col[r - a]
        for p in range(pairs):
            g = pair_group[p]
            m = pair_rows[p]
            direct = n_prod == 0 or opened[pair_start[p]]
            for j in range(n_val if direct else 0):
                y = const[j] * m
                for e in range(ptr[j], ptr[j + 1]):
                    y += coef[e] * part[p, term[e]]
                ys[j] = y
            if games == ROWS:
                n_games = m
            elif games == ONE:
                n_games = 1
            else:
                n_games = pair_games[p]
            if opened[pair_start[p]]:
                out_open[k_open, 0] = cluster[pair_start[p]]
                out_open[k_open, 1] = g
                out_open[k_open, 2] = m
                out_open[k_open, 3] = n_games
                for j in range(n_val):
                    out_open[k_open, 4 + j] = ys[j]
                k_open += 1
            else:
                key = g * sizes + m if sizes > 0 else g
                closed[key, 0] += 1
                closed[key, 1] += m
                closed[key, 2] += m * m
                closed[key, 3] += n_games
                if n_prod and width == 1:  # one key: its products a block at a time
                    held[n_held] = p
                    n_held += 1
                    continue
                if n_prod:
                    for s in range(n_sum):
                        sums[s] = part[p, s]
                    sums[n_sum] = m
                    for s in range(n_sum + 1):
                        lin[key, s] += sums[s]
                    for q in range(n_plain):
                        quad[key, q] += sums[products[q, 0]] * sums[products[q, 1]]
                    if m != m0:
                        for q in range(n_plain, n_prod):
                            quad[key, q] += sums[products[q, 0]] * (m - m0)
                    continue
                for j in range(n_val):
                    y = ys[j]
                    closed[key, 4 + 3 * j] += y
                    closed[key, 5 + 3 * j] += y * y
                    closed[key, 6 + 3 * j] += y * m
        if n_held:
            fold_products(part, held[:n_held], pair_rows, m0, products, n_plain,
                           by_summand, lin[0], quad[0])
            n_held = 0
        for p in range(pairs):
            pair_rows[p] = 0
            pair_games[p] = 0
            part[p, :] = 0
        c = d
    m0 = max(m0, 0)
    for key in range(lin.shape[0]):
        for q in range(n_plain, n_prod):
            quad[key, q] += m0 * lin[key, products[q, 0]]
        for j in range(n_val):
            y = const[j] * lin[key, n_sum]
            for e in range(ptr[j], ptr[j + 1]):
                y += coef[e] * lin[key, term[e]]
            yy = np.int64(0)
            for e in range(yy_ptr[j], yy_ptr[j + 1]):
                yy += yy_w[e] * quad[key, yy_of[e]]
            ym = np.int64(0)
            for e in range(ym_ptr[j], ym_ptr[j + 1]):
                ym += ym_w[e] * quad[key, ym_of[e]]
            closed[key, 4 + 3 * j] = y
            closed[key, 5 + 3 * j] = yy
            closed[key, 6 + 3 * j] = ym
    used = groups * sizes if sizes > 0 else groups
    return closed[:used].copy(), out_open[:k_open], first[:groups].copy()
