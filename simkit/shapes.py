"""How `simkit.totals` sums the report's queries: queries that differ only in their
values share one group-by (`Shape`), and each value is summed as an integer, a whole
number of 1/scale, or a float (`summand`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from simkit.errors import SimkitError
from simkit.summary import Combination, Query


def kind(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.Categorical | pl.Enum | pl.String):
        return "str"
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer():
        return "int"
    if dtype.is_float():
        return "float"
    raise SimkitError(f"cannot group results by a column of type {dtype}")


@dataclass
class Shape:
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


def summand(e: pl.Expr, scale: int) -> pl.Expr:
    """Value e as it is summed: a whole number of 1/scale (scale > 1), an integer (1), or a
    float (0)."""
    if scale > 1:
        return scaled(e, scale).round().cast(pl.Int64)
    return e.cast(pl.Float64) if scale == 0 else e.cast(pl.Int64)


def scaled(e: pl.Expr, scale: int) -> pl.Expr:
    """Value e in units of 1/scale, before rounding (a win share times 12: whole when it
    is one)."""
    return e.cast(pl.Float64) * scale


def shapes_of(queries: Sequence[Query], schemas: Mapping[str, Mapping[str, pl.DataType]],
            scales: Mapping[tuple[str, str], int]
            ) -> tuple[dict[str, Shape], dict[str, list[Query]],
                       dict[str, tuple[list[int], list[int]]]]:
    """The shapes of `queries` (`Shape`: those of one group-by), each one's queries, and
    per query its values' places among its shape's values and their scales."""
    shapes: dict[str, Shape] = {}
    members: dict[str, list[Query]] = {}
    for q in queries:
        missing = [b for b in q.by if b not in schemas[q.level]]
        if missing:
            raise SimkitError(f"summary query by {', '.join(missing)}: no such result column")
        shape = shapes.setdefault(q.shape_key, Shape(q))
        members.setdefault(q.shape_key, []).append(q)
        combos = dict(q.combinations)
        for name, e in q.values:
            shape.add(e, combos.get(name), scales)
    picks = {}
    for sig, shape in shapes.items():
        index = {v: i for i, v in enumerate(shape.values)}
        for q in members[sig]:
            picks[q.key] = ([index[str(e)] for _, e in q.values],
                            [shape.values[str(e)][1] for _, e in q.values])
    return shapes, members, picks
