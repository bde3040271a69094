"""The games played so far of one config, grown a slice at a time.

Game i of the baseline and game i of an edit are played from the same (seed, i), so
they share their deal (common random numbers): the paired difference of `simkit
compare`, over the games played so far. A slice's games depend only on their indices,
so the rows equal those `simkit run` writes for the same games.
"""

from __future__ import annotations

import threading
import time

import polars as pl
import pyarrow as pa

from simkit.prepare import Prepared
from simkit.results import long_table


class Games:
    """Games 0..n-1 of a prepared run (its seed), played on demand."""

    def __init__(self, p: Prepared) -> None:
        self.p = p
        self.step = p.spec.players if p.lineup.rotate else 1  # whole deals only
        self._tables: list[pa.Table] = []
        self._frame: pl.DataFrame | None = None
        self.played = 0
        self.seconds = 0.0  # kernel time spent so far (the pace of the next slice)
        self._lock = threading.Lock()  # the baseline is grown by one edit's work at a time
        self.memo: dict[tuple, object] = {}  # figures of its first games, kept across edits

    def grow(self, upto: int) -> None:
        """Play games up to `upto` (rounded up to whole deals), if not played yet."""
        upto = -(-upto // self.step) * self.step
        with self._lock:
            if upto <= self.played:
                return
            p = self.p
            started = time.perf_counter()
            columns = p.game.simulate(p.compiled, p.lineup, p.spec.seed, self.played,
                                      upto - self.played)
            self.seconds += time.perf_counter() - started
            self._tables.append(long_table(columns, self.played, p.lineup.rotate,
                                           list(p.lineup.names),
                                           p.game.categories(p.compiled)))
            self.played = upto
            self._frame = None

    def frame(self, games: int | None = None) -> pl.DataFrame:
        """One row per game and seat of the first `games` games (all played by default),
        as `reports.load.open_run` reads games.parquet."""
        with self._lock:
            if self._frame is None:
                frame = pl.from_arrow(pa.concat_tables(self._tables))
                assert isinstance(frame, pl.DataFrame)
                self._frame = frame
            frame = self._frame
        if games is not None and games < frame.height // self.p.spec.players:
            frame = frame.head(games * self.p.spec.players)
        return frame.with_columns(pl.col(c).set_sorted() for c in ("game", "deal"))
