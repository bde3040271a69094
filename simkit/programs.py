"""The report's row expressions as programs of array operations, which
`summing.cluster_totals` runs a block of rows at a time over the result columns: a
summary-only chunk's summands computed where they are summed, never built as columns of
a frame (101 int64 columns a slice for Cauldron Master's card values: reading them back
was most of the reduction).

A program mirrors polars step by step, each step in the dtype polars gives it (asked of
polars, not guessed): int64 arithmetic with its wrapping, float64 with the same IEEE
operations in the same order, comparisons exact. A step that could come out otherwise
(arithmetic in a narrower type, a float literal float32 cannot hold, anything not listed
here) makes `program_of` return None, and the expression is left to polars.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from simkit import summing as s

# The stored type of an input column, as `summing.evaluate` reads it.
_KIND = {pl.Int8: s.I8, pl.UInt8: s.U8, pl.Int16: s.I16, pl.UInt16: s.U16, pl.Int32: s.I32,
         pl.UInt32: s.U32, pl.Int64: s.I64, pl.Boolean: s.U8, pl.Float32: s.F32,
         pl.Float64: s.F64}
_COMPARE = {"Eq": s.EQ, "NotEq": s.NE, "Lt": s.LT, "LtEq": s.LE, "Gt": s.GT, "GtEq": s.GE}
_ARITH = {"Plus": s.ADD, "Minus": s.SUB, "Multiply": s.MUL}


class Unsupported(Exception):
    """An expression a program does not mirror exactly."""


@dataclass
class Program:
    """Operations (`summing.evaluate`'s rows: opcode, target register, operands), their
    float constants, the input columns they read (in order), the registers of each
    output (an integer register; a rounded output's distance from a whole number goes to
    its slot of `worst`), and how many registers of each kind they use."""

    ops: np.ndarray
    consts: np.ndarray
    columns: list[str]
    outputs: list[int]
    n_int: int
    n_float: int
    rounded: list[int]  # per output: its slot in `worst`, or -1
    # Constants that are a category's code: (their op's row, the column, the name). The
    # codes are polars's, which may change once no series holds a category, so they
    # are looked up again for every frame (`ops_for`).
    categories: list[tuple[int, str, str]] = field(default_factory=list)

    def ops_for(self, frame: pl.DataFrame, codes: dict[tuple[str, str], int]) -> np.ndarray:
        """The operations, with the category codes of `frame`'s columns (`codes` keeps
        those looked up for this frame)."""
        if not self.categories:
            return self.ops
        ops = self.ops.copy()
        for row, column, name in self.categories:
            if (column, name) not in codes:
                codes[(column, name)] = _code(frame[column].dtype, name)
            ops[row, 2] = codes[(column, name)]
        return ops


def program_of(exprs: Mapping[str, pl.Expr], rounded: set[str],
               schema: Mapping[str, pl.DataType]) -> Program | None:
    """A program computing `exprs` (int64 outputs; those in `rounded` are floats rounded
    to int64, their distance from a whole number measured), or None if one of them is
    not mirrored exactly."""
    b = _Builder(schema)
    try:
        outputs, slots = [], []
        for key, e in exprs.items():
            kind, reg = b.node(json.loads(e.meta.serialize(format="json")))
            if key in rounded:
                if kind != "f":
                    raise Unsupported(key)
                out = b.new("i")
                b.ops.append((s.ROUND, out, reg, len(slots)))
                slots.append(len(slots))
                outputs.append(out)
            else:
                if kind != "i":
                    raise Unsupported(key)
                outputs.append(reg)
                slots.append(-1)
    except Unsupported:
        return None
    ops, categories = _indicator_products(b.ops, outputs, b.categories, b.flags)
    return Program(np.array(ops, np.int64).reshape(-1, 4), np.array(b.consts, np.float64),
                   list(b.columns), outputs, max(b.n["i"], 1), max(b.n["f"], 1),
                   [x if x < 0 else i for i, x in enumerate(slots)], categories)


_FLOAT_TARGET = {s.LOADF, s.CONSTF, s.TOFLOAT, *range(s.ADD + s.FLOAT_OPS, s.MUL + s.FLOAT_OPS + 1)}
_BOOLEAN = {s.NOT, s.AND, s.OR, *range(s.EQ, s.GE + 1),
            *range(s.EQ + s.FLOAT_OPS, s.GE + s.FLOAT_OPS + 1)}


def _indicator_products(ops: list[tuple[int, int, int, int]], outputs: list[int],
                        categories: list[tuple[int, str, str]], flags: set[int]
                        ) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, str, str]]]:
    """The operations with each rounded (float(h) * x) * c, h an indicator (0 or 1), taken
    as the integer h * round(x * c) when the program rounds x * c already (a card's share
    of the win: 4 float operations and a rounding become one product; h a comparison, a
    boolean operation or a boolean column, `flags`), then the operations nothing reads
    any more dropped. The same integers: h * x is x or a zero, exactly, and
    a value beyond int64 or NaN there is one in round(x * c) too, whose measured distance
    then leaves the shape to polars as before. The product's own distance from a whole
    number is not measured (0): where h is 1 it is round(x * c)'s, which is."""
    ops = list(ops)
    made = {(("f" if op in _FLOAT_TARGET else "i"), t): row for row, (op, t, _, _) in enumerate(ops)
            if op != s.ROUND}
    made.update({("i", t): row for row, (op, t, _, _) in enumerate(ops) if op == s.ROUND})
    boolean = flags | {t for op, t, _, _ in ops if op in _BOOLEAN}
    fmul = s.MUL + s.FLOAT_OPS

    def product(reg: int) -> tuple[int, int] | None:  # the operands of a float product
        row = made.get(("f", reg))
        return (ops[row][2], ops[row][3]) if row is not None and ops[row][0] == fmul else None

    rounds = {}  # the operands of a rounded product -> (its integer register, its row)
    for row, (op, t, x, _) in enumerate(ops):
        if op == s.ROUND and (xc := product(x)) is not None:
            rounds.setdefault(frozenset(xc), (t, row))
    for row, (op, t, v, _) in enumerate(ops):
        if op != s.ROUND or (uc := product(v)) is None:
            continue
        for u, c in (uc, uc[::-1]):
            hx = product(u)
            for h, x in (hx, hx[::-1]) if hx is not None else ():
                made_h = made.get(("f", h))
                if made_h is None or ops[made_h][0] != s.TOFLOAT or ops[made_h][2] not in boolean:
                    continue
                r = rounds.get(frozenset((x, c)))
                if r is not None and r[1] < row:
                    ops[row] = (s.MUL, t, ops[made_h][2], r[0])
                    break
            else:
                continue
            break
    # Drop what nothing reads (registers are written once), keeping the category rows'.
    live = {("i", t) for t in outputs}
    keep = [False] * len(ops)
    for row in range(len(ops) - 1, -1, -1):
        op, t, a, b = ops[row]
        target = ("f" if op in _FLOAT_TARGET else "i", t)
        if target not in live:
            continue
        keep[row] = True
        live |= _reads(op, a, b)
    at = {row: i for i, row in enumerate(r for r in range(len(ops)) if keep[r])}
    return ([o for o, k in zip(ops, keep, strict=True) if k],
            [(at[row], column, name) for row, column, name in categories if row in at])


def _reads(op: int, a: int, b: int) -> set[tuple[str, int]]:
    """The registers an operation reads."""
    if op in (s.LOADI, s.LOADF, s.CONSTI, s.CONSTF):
        return set()
    if op in (s.TOFLOAT, s.NOT):
        return {("i", a)}
    if op == s.ROUND:
        return {("f", a)}
    if op in (s.AND, s.OR) or s.ADD <= op <= s.GE:
        return {("i", a), ("i", b)}
    return {("f", a), ("f", b)}  # float arithmetic and comparisons


def loads(n: int) -> Program:
    """The program that reads n int64 columns as they are (summands a select made)."""
    ops = np.zeros((n, 4), np.int64)
    ops[:, 0] = s.LOADI
    ops[:, 1] = ops[:, 2] = np.arange(n)
    return Program(ops, np.zeros(0), [], list(range(n)), max(n, 1), 1, [-1] * n)


def inputs(program: Program, frame: pl.DataFrame,
           read: dict[str, tuple[np.ndarray, int]]) -> tuple[list[np.ndarray], np.ndarray]:
    """The program's input columns of `frame` as numpy arrays (kept alive by the caller
    through the call) and their kinds (categories by their physical codes); `read`
    keeps those of the frame read so far (most shapes share their columns)."""
    for c in program.columns:
        if c not in read:
            col = frame[c]
            if isinstance(col.dtype, pl.Categorical | pl.Enum):
                # Copied, to own its memory: the physical series is a temporary.
                col = col.to_physical()
                a = col.to_numpy().copy()
            else:
                a = col.to_numpy()
            read[c] = (np.ascontiguousarray(a.view(np.uint8) if a.dtype == np.bool_ else a),
                       _KIND[col.dtype.base_type()])
    return ([read[c][0] for c in program.columns],
            np.array([read[c][1] for c in program.columns], np.int64))


def usable(program: Program, frame: pl.DataFrame, checked: dict[str, bool]) -> bool:
    """Whether the program can read `frame`: its input columns hold no nulls and no NaN
    (a program knows nothing of them); `checked` keeps the columns' answers."""
    for c in program.columns:
        if c not in checked:
            col = frame[c]
            checked[c] = not (col.null_count() or (col.dtype.is_float()
                                                   and bool(col.is_nan().any())))
        if not checked[c]:
            return False
    return True


class _Builder:
    def __init__(self, schema: Mapping[str, pl.DataType]) -> None:
        self.schema = dict(schema)
        self.empty = pl.LazyFrame(schema=self.schema)
        self.ops: list[tuple[int, int, int, int]] = []
        self.consts: list[float] = []
        self.columns: dict[str, int] = {}
        self.n = {"i": 0, "f": 0}
        self.memo: dict[str, tuple[str, int]] = {}
        self.categories: list[tuple[int, str, str]] = []
        self.floats: dict[int, int] = {}  # int register -> its value as a float
        self.flags: set[int] = set()  # int registers of boolean columns (0 or 1)

    def new(self, kind: str) -> int:
        self.n[kind] += 1
        return self.n[kind] - 1

    def dtype(self, tree: Any) -> pl.DataType:
        e = pl.Expr.deserialize(io.StringIO(json.dumps(tree)), format="json")
        try:
            return self.empty.select(e.alias("x")).collect_schema()["x"]
        except pl.exceptions.PolarsError:
            raise Unsupported(str(tree)) from None

    def node(self, tree: Any) -> tuple[str, int]:
        """(register kind "i" or "f", register) holding the node's value."""
        key = json.dumps(tree, sort_keys=True)
        if key not in self.memo:
            self.memo[key] = self._emit(tree)
        return self.memo[key]

    def _emit(self, tree: Any) -> tuple[str, int]:
        if not isinstance(tree, dict) or len(tree) != 1:
            raise Unsupported(str(tree))
        (what, body), = tree.items()
        if what == "Column":
            return self._column(body)
        if what == "Literal":
            value = _literal(body)
            if isinstance(value, bool | int):
                return self._const_int(int(value))
            if isinstance(value, float):
                return self._const_float(value)
            raise Unsupported(str(body))
        dtype = self.dtype(tree)
        if what == "Cast":
            kind, reg = self.node(body["expr"])
            if dtype == pl.Int64 and kind == "i":
                return kind, reg
            if dtype == pl.Float64:
                return ("f", reg) if kind == "f" else self._to_float(reg)
            raise Unsupported(f"cast to {dtype}")
        if what == "Function":
            return self._function(body)
        if what == "BinaryExpr":
            return self._binary(body, dtype)
        raise Unsupported(what)

    def _column(self, name: str, category: bool = False) -> tuple[str, int]:
        dtype = self.schema.get(name)
        if dtype is None:
            raise Unsupported(name)
        if isinstance(dtype, pl.Categorical | pl.Enum):
            if not category:  # its codes mean nothing but against a name's (`_compare`)
                raise Unsupported(f"{name}: a category as a number")
            dtype = pl.UInt32
        if dtype not in _KIND:
            raise Unsupported(f"{name}: {dtype}")
        at = self.columns.setdefault(name, len(self.columns))
        kind = "f" if dtype.is_float() else "i"
        reg = self.new(kind)
        self.ops.append((s.LOADF if kind == "f" else s.LOADI, reg, at, 0))
        if dtype == pl.Boolean:
            self.flags.add(reg)
        return kind, reg

    def _const_int(self, v: int) -> tuple[str, int]:
        if not -(2 ** 62) < v < 2 ** 62:
            raise Unsupported(str(v))
        reg = self.new("i")
        self.ops.append((s.CONSTI, reg, v, 0))
        return "i", reg

    def _const_float(self, v: float) -> tuple[str, int]:
        reg = self.new("f")
        self.ops.append((s.CONSTF, reg, len(self.consts), 0))
        self.consts.append(v)
        return "f", reg

    def _to_float(self, reg: int) -> tuple[str, int]:
        if reg not in self.floats:
            self.floats[reg] = self.new("f")
            self.ops.append((s.TOFLOAT, self.floats[reg], reg, 0))
        return "f", self.floats[reg]

    def _function(self, body: Any) -> tuple[str, int]:
        args, fn = body["input"], body["function"]
        if fn == "FillNull" and len(args) == 2:
            return self.node(args[0])  # the inputs hold no nulls (`usable`)
        if fn == {"Boolean": "Not"} and len(args) == 1:
            if self.dtype(args[0]) != pl.Boolean:
                raise Unsupported("not of a non-boolean")
            _, reg = self.node(args[0])
            out = self.new("i")
            self.ops.append((s.NOT, out, reg, 0))
            return "i", out
        raise Unsupported(str(fn))

    def _binary(self, body: Any, dtype: pl.DataType) -> tuple[str, int]:
        op, left, right = body["op"], body["left"], body["right"]
        if op in ("And", "Or"):
            if not (dtype == pl.Boolean and self.dtype(left) == pl.Boolean
                    and self.dtype(right) == pl.Boolean):
                raise Unsupported(f"{op} of non-booleans")
            (_, a), (_, b) = self.node(left), self.node(right)
            out = self.new("i")
            self.ops.append((s.AND if op == "And" else s.OR, out, a, b))
            return "i", out
        if op in _COMPARE:
            return self._compare(_COMPARE[op], left, right)
        if op in _ARITH:
            if dtype == pl.Int64:
                kind = "i"
            elif dtype == pl.Float64:
                kind = "f"
            else:  # arithmetic in a narrower type may wrap or round otherwise
                raise Unsupported(f"{op} in {dtype}")
            a, b = self._as(kind, left), self._as(kind, right)
            out = self.new(kind)
            self.ops.append((_ARITH[op] + (s.FLOAT_OPS if kind == "f" else 0), out, a, b))
            return kind, out
        raise Unsupported(op)

    def _as(self, kind: str, tree: Any) -> int:
        have, reg = self.node(tree)
        if have == kind:
            return reg
        if kind == "f":
            return self._to_float(reg)[1]
        raise Unsupported("a float operand of an integer operation")

    def _compare(self, code: int, left: Any, right: Any) -> tuple[str, int]:
        ld, rd = self._operand_type(left), self._operand_type(right)
        for col, lit, lit_type in ((left, right, rd), (right, left, ld)):
            if lit_type == pl.String and isinstance(self._operand_type(col),
                                                    pl.Categorical | pl.Enum):
                # A category against a name: their physical codes (`Program.ops_for`).
                if "Column" not in col:
                    raise Unsupported("a category that is not a column")
                name = _literal(lit["Literal"])
                key = "category " + json.dumps(col, sort_keys=True)
                if key not in self.memo:
                    self.memo[key] = self._column(col["Column"], category=True)
                (_, a), (_, b) = self.memo[key], self._const_int(0)
                self.categories.append((len(self.ops) - 1, col["Column"], name))
                out = self.new("i")
                self.ops.append((code, out, a, b) if col is left else (code, out, b, a))
                return "i", out
        for dtype, other in ((ld, right), (rd, left)):
            # polars compares a float32 in float32: exact as in float64 only against a
            # float32 column or a literal float32 holds exactly.
            if (dtype == pl.Float32 and self._operand_type(other) != pl.Float32
                    and ("Literal" not in other
                         or not _float32_exact(_literal(other["Literal"])))):
                raise Unsupported("a float32 comparison")
        for dtype in (ld, rd):
            if not (dtype == pl.Boolean or dtype.is_numeric()) or dtype == pl.UInt64:
                raise Unsupported(f"a comparison of {dtype}")
        lk, a = self.node(left)
        rk, b = self.node(right)
        if lk == rk == "i":
            for tree, dtype in ((left, rd), (right, ld)):  # a literal must fit the column
                if "Literal" in tree and dtype.is_integer():
                    v = _literal(tree["Literal"])
                    info = np.iinfo(_numpy_int(dtype))
                    if not info.min <= v <= info.max:
                        raise Unsupported("an integer literal beyond its column's type")
        kind = "i" if lk == rk == "i" else "f"
        a, b = self._as(kind, left), self._as(kind, right)
        out = self.new("i")
        self.ops.append((code + (s.FLOAT_OPS if kind == "f" else 0), out, a, b))
        return "i", out

    def _operand_type(self, tree: Any) -> pl.DataType:
        if "Literal" in tree:
            v = _literal(tree["Literal"])
            return (pl.String if isinstance(v, str) else pl.Boolean if isinstance(v, bool)
                    else pl.Int64 if isinstance(v, int) else pl.Float64)
        return self.dtype(tree)


def _literal(body: Any) -> Any:
    """A literal's Python value: {"Dyn": {"Int": 1}}, {"Scalar": {"Boolean": false}}..."""
    if isinstance(body, dict) and len(body) == 1:
        (_, inner), = body.items()
        if isinstance(inner, dict) and len(inner) == 1:
            (_, v), = inner.items()
            if isinstance(v, bool | int | float | str):
                return v
    raise Unsupported(str(body))


def _code(dtype: pl.DataType, name: str) -> int:
    """The physical code of category `name` of a column of `dtype` (-1, which no row
    has, for a name an Enum does not hold)."""
    try:
        return int(pl.Series([name]).cast(dtype).to_physical()[0])
    except pl.exceptions.PolarsError:
        return -1


def _float32_exact(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and float(np.float32(v)) == v


def _numpy_int(dtype: pl.DataType) -> type:
    return {pl.Int8: np.int8, pl.UInt8: np.uint8, pl.Int16: np.int16, pl.UInt16: np.uint16,
            pl.Int32: np.int32, pl.UInt32: np.uint32, pl.Int64: np.int64}[dtype.base_type()]
