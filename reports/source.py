"""Where a report's numbers come from: a run's rows, or a summary-only run's totals.

Every metric asks its source for the exact totals of a `simkit.summary.Query` and turns
them into estimates (`reports/metrics.py`). `RowsSource` reduces the rows on demand;
`SummarySource` looks the totals up in the merged summary of a `--summary-only` run. Both
hand back the same integers for the same games, so a report is the same from either.
`Recorder` notes every query a report asks, which is how a summary-only run learns what to
keep (`plan`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from simkit.errors import SimkitError
from simkit.summary import Aggregate, Query, Table, game_rows, win_scale
from simkit.totals import reduce_whole_deals


class Source:
    """Totals of queries over one run. `level` is the default level of the queries a
    metric builds ("row": one row per game and seat; "game": one row per game); `games`
    is the same source at game level."""

    level: str = "row"
    players: int
    columns: list[str]

    def table(self, query: Query) -> Table:
        raise NotImplementedError

    def prefetch(self, queries: list[Query]) -> None:
        """Compute several queries at once (a speed-up; results are the same)."""

    @property
    def games(self) -> Source:
        raise NotImplementedError

    @property
    def summary_only(self) -> bool:
        return False


class RowsSource(Source):
    """Totals computed from the rows (a whole run's, or any results frame's)."""

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame, level: str = "row",
                 shared: dict[str, Any] | None = None) -> None:
        rows = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
        self.level = level
        self._shared = shared if shared is not None else {"rows": rows, "cache": {}}
        rows = self._shared["rows"]
        self.columns = list(rows.columns)
        self.players = (int(rows["seat"].max()) + 1  # type: ignore[arg-type]
                        if "seat" in rows.columns and rows.height else 1)

    @property
    def rows(self) -> pl.DataFrame:
        return self._shared["rows"]

    @property
    def games(self) -> RowsSource:
        return RowsSource(self.rows, "game", self._shared)

    def _games_frame(self) -> pl.DataFrame:
        if "games" not in self._shared:
            self._shared["games"] = game_rows(self.rows).collect()
        return self._shared["games"]

    def prefetch(self, queries: list[Query]) -> None:
        cache = self._shared["cache"]
        todo = [q for q in queries if q.key not in cache]
        if not todo:
            return
        games = self._games_frame() if any(q.level == "game" for q in todo) else None
        # A large run is reduced a slice of deals at a time, within a slice's memory.
        agg = reduce_whole_deals(self.rows, todo, scale=win_scale(self.players),
                                 exact=False, games=games)
        for q in todo:
            cache[q.key] = agg.table(q)

    def table(self, query: Query) -> Table:
        self.prefetch([query])
        return self._shared["cache"][query.key]


class MissingQuery(SimkitError):
    """A summary-only run does not hold what a report section asks for."""


class SummarySource(Source):
    """Totals looked up in a summary-only run's merged aggregate."""

    def __init__(self, agg: Aggregate, players: int, level: str = "row") -> None:
        self.agg = agg
        self.players = players
        self.level = level
        self.columns = list(agg.columns)

    @property
    def games(self) -> SummarySource:
        return SummarySource(self.agg, self.players, "game")

    @property
    def summary_only(self) -> bool:
        return True

    def table(self, query: Query) -> Table:
        table = self.agg.table(query)
        if table is None:
            raise MissingQuery(f"this summary-only run does not hold {_describe(query)}; "
                               "rerun without --summary-only for it")
        return table


class Recorder(Source):
    """A source that answers from another one and notes every query asked of it."""

    def __init__(self, inner: Source, seen: dict[str, Query] | None = None) -> None:
        self.inner = inner
        self.seen: dict[str, Query] = seen if seen is not None else {}
        self.level = inner.level
        self.players = inner.players
        self.columns = inner.columns

    @property
    def games(self) -> Recorder:
        return Recorder(self.inner.games, self.seen)

    @property
    def summary_only(self) -> bool:
        return True  # record what a summary-only report asks, not what a full one would

    def prefetch(self, queries: list[Query]) -> None:
        for q in queries:
            self.seen.setdefault(q.key, q)
        self.inner.prefetch(queries)

    def table(self, query: Query) -> Table:
        self.seen.setdefault(query.key, query)
        return self.inner.table(query)


def _describe(q: Query) -> str:
    what = ", ".join(q.names) or "counts"
    by = f" by {', '.join(q.by)}" if q.by else ""
    where = f" where {q.where}" if q.where is not None else ""
    return f"the {q.level}-level totals of {what}{by}{where}"


def source_of(data: pl.DataFrame | pl.LazyFrame | Source) -> Source:
    """`data` as a source: a results frame is reduced on demand."""
    return data if isinstance(data, Source) else RowsSource(data)
