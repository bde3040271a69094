"""Result files: games.parquet (one row per game and seat) and manifest.json."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

GAMES_FILE = "games.parquet"
MANIFEST_FILE = "manifest.json"
SUMMARY_FILE = "summary.csv"
SHARED_COLUMNS = ("game", "deal", "seat", "strategy", "score", "rank", "win_share", "rounds")


def long_table(columns: Mapping[str, np.ndarray], first_game: int, rotate: bool,
               strategy_names: list[str], categories: Mapping[str, list[str]]) -> pa.Table:
    """Per-(game, seat) arrays of shape (games, seats) -> one Arrow row per game and seat.

    `game` is the game index in the run, `deal` the deal it was played on (games that
    share a deal differ only in which seat each strategy sat in), `seat` 0 = first player.
    """
    n_games, n_players = columns["score"].shape
    game = np.repeat(np.arange(first_game, first_game + n_games, dtype=np.int64), n_players)
    deal = game // n_players if rotate else game
    arrays: dict[str, pa.Array] = {
        "game": pa.array(game),
        "deal": pa.array(deal),
        "seat": pa.array(np.tile(np.arange(n_players, dtype=np.uint8), n_games)),
    }
    for name, values in columns.items():
        flat = np.ascontiguousarray(values).ravel()
        if name == "strategy":
            arrays[name] = pa.DictionaryArray.from_arrays(flat.astype(np.int8), strategy_names)
        elif name in categories:
            arrays[name] = pa.DictionaryArray.from_arrays(flat.astype(np.int8), categories[name])
        else:
            arrays[name] = pa.array(flat)
    ordered = {k: arrays[k] for k in SHARED_COLUMNS} | arrays
    return pa.table(ordered)


class ResultWriter:
    """Writes games.parquet chunk by chunk (one row group each), atomically at close."""

    def __init__(self, run_dir: Path) -> None:
        self.final = run_dir / GAMES_FILE
        self.partial = run_dir / (GAMES_FILE + ".partial")
        self.writer: pq.ParquetWriter | None = None
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.partial, table.schema, compression="lz4")
        self.writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            os.replace(self.partial, self.final)

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.partial.unlink(missing_ok=True)


def versions() -> dict[str, str]:
    """Versions of everything that can change a result."""
    import numba
    import polars

    import simkit

    return {"simkit": simkit.__version__, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "pyarrow": pa.__version__,
            "polars": polars.__version__}


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write manifest.json atomically (its presence marks a complete run)."""
    tmp = run_dir / (MANIFEST_FILE + ".partial")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, run_dir / MANIFEST_FILE)


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    path = run_dir / MANIFEST_FILE
    if not path.exists():
        return None
    return json.loads(path.read_text())
