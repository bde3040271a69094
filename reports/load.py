"""Open a run folder for reporting, with one clear error for anything that is not a run."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from reports.source import RowsSource, Source, SummarySource
from simkit.errors import SimkitError
from simkit.results import (
    CHUNK_DIR,
    GAMES_FILE,
    MANIFEST_FILE,
    RUN_FILE,
    SHARED_COLUMNS,
    SUMMARY_DATA_FILE,
)
from simkit.summary import Aggregate, read_aggregate

# Signs of a run that started but has not finished (see simkit/engine.py).
UNFINISHED = (RUN_FILE, CHUNK_DIR, GAMES_FILE + ".partial")
MANIFEST_KEYS = ("game", "title", "command", "players", "strategies", "seed", "games", "rows",
                 "config")


@dataclass
class Run:
    """A finished run: its folder, manifest and results: one row per game and seat in
    `frame`, or for a summary-only run (`frame` None) the merged totals in `summary`."""

    path: Path
    manifest: dict[str, Any]
    frame: pl.DataFrame | None
    summary: Aggregate | None = None
    _source: Source | None = field(default=None, repr=False)

    @property
    def source(self) -> Source:
        """Where the report's numbers come from (one source per run, so computed totals
        are shared by every section)."""
        if self._source is None:
            if self.frame is not None:
                self._source = RowsSource(self.frame)
            elif self.summary is not None:
                self._source = SummarySource(self.summary, self.n_players)
            else:
                raise SimkitError(f"{self.path}: the run holds neither rows nor a summary")
        return self._source

    @property
    def summary_only(self) -> bool:
        return self.frame is None

    @property
    def game(self) -> str:
        return str(self.manifest["game"])

    @property
    def n_players(self) -> int:
        return int(self.manifest["players"])

    @property
    def resolved(self) -> dict[str, Any]:
        return self.manifest["config"].get("resolved") or {}


# Folders other simkit commands write, which `simkit report` is sometimes pointed at:
# (the file that marks one, what it holds, the page its command already wrote).
_OTHER_FOLDERS = (("tournament.json", "tournament", "tournament.html"),
                  ("balance.json", "balance search", "balance.html"),
                  ("value.json", "simkit value result", "value.html"))


def read_run_manifest(run_dir: Path) -> dict[str, Any]:
    """manifest.json of `run_dir`, checked to be a simkit run manifest."""
    if not run_dir.exists():
        raise SimkitError(f"{run_dir}: no such folder")
    if not run_dir.is_dir():
        raise SimkitError(f"{run_dir}: is a file, not a run folder (give the folder that "
                          f"holds {GAMES_FILE} and {MANIFEST_FILE})")
    path = run_dir / MANIFEST_FILE
    if not path.exists():
        if any((run_dir / name).exists() for name in UNFINISHED):
            raise SimkitError(f"{run_dir}: holds an unfinished run (no {MANIFEST_FILE} yet); "
                              "run the same command again to finish it")
        other = next(((kind, page) for marker, kind, page in _OTHER_FOLDERS
                      if (run_dir / marker).exists()), None)
        if other is not None:
            raise SimkitError(f"{run_dir}: holds a {other[0]}, not a run; its report is "
                              f"{run_dir / other[1]} (`simkit report` reads runs and sweeps)")
        raise SimkitError(f"{run_dir}: not a simkit run folder (no {MANIFEST_FILE}); make one "
                          "with `simkit run GAME ... --out DIR`")
    try:
        manifest = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(manifest, dict):
        raise SimkitError(f"{path}: not a simkit run manifest (expected a JSON object)")
    missing = [k for k in MANIFEST_KEYS if k not in manifest]
    if missing:
        raise SimkitError(f"{path}: not a simkit run manifest (missing {', '.join(missing)})")
    _check_manifest_fields(path, manifest)
    return manifest


FIELD_TYPES: dict[str, tuple[type, str]] = {
    "game": (str, "a game name"), "title": (str, "a title"), "command": (str, "a command"),
    "players": (int, "a whole number"), "strategies": (list, "a list of seats"),
    "seed": (int, "a whole number"), "games": (int, "a whole number"),
    "rows": (int, "a whole number"), "config": (dict, "a table")}


def _check_manifest_fields(path: Path, m: dict[str, Any]) -> None:
    """Every field the report reads has its type, and they agree with each other."""
    def bad(key: str, why: str) -> SimkitError:
        shown = json.dumps(m.get(key))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return SimkitError(f"{path}: {key} = {shown}: {why}; the manifest was changed")

    for key, (kind, word) in FIELD_TYPES.items():
        value = m[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise bad(key, f"expected {word}")
    if m["players"] < 1:
        raise bad("players", "expected 1 or more")
    seats = m["strategies"]
    if len(seats) != m["players"] or not all(
            isinstance(s, dict) and isinstance(s.get("name"), str) for s in seats):
        raise bad("strategies", f"expected one {{seat, name}} entry per player "
                                f"({m['players']})")
    if m["games"] < 0 or m["rows"] != m["games"] * m["players"]:
        raise bad("games", f"the manifest's rows ({m['rows']:,}) are not games x players "
                           f"({m['players']})")


def open_run(run_dir: Path) -> Run:
    """Validate `run_dir` and load its results into memory (narrow dtypes: about 55 bytes a
    row for Cauldron Master, so a 4-million-row run takes about 220 MB)."""
    run_dir = Path(run_dir)
    manifest = read_run_manifest(run_dir)
    if manifest.get("summary_only"):
        return _open_summary(run_dir, manifest)
    games_path = run_dir / GAMES_FILE
    again = f"rerun its command with --force to play it again: {manifest.get('command', '?')}"
    if not games_path.exists():
        raise SimkitError(f"{run_dir}: the manifest is there but {GAMES_FILE} is missing; "
                          f"{again}")
    try:
        meta = pq.read_metadata(games_path)
        schema = meta.schema.to_arrow_schema()
    except (pa.ArrowException, OSError) as exc:
        raise SimkitError(f"{games_path}: not a readable Parquet file (truncated or corrupt?): "
                          f"{exc}; {again}") from None
    missing = [c for c in SHARED_COLUMNS if c not in schema.names]
    if missing:
        raise SimkitError(f"{games_path}: not simkit results (no column {', '.join(missing)}); "
                          "was it written by another tool?")
    _check_columns(games_path, manifest, schema.names)
    if meta.num_rows == 0 or int(manifest.get("games") or 0) == 0:
        raise SimkitError(f"{run_dir}: the run has zero games; nothing to report")
    if meta.num_rows != manifest["rows"]:
        raise SimkitError(f"{games_path}: holds {meta.num_rows:,} rows but {MANIFEST_FILE} "
                          f"says {manifest['rows']:,}; the file was replaced or cut short")
    try:
        frame = pl.scan_parquet(games_path).collect()
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        raise SimkitError(f"{games_path}: could not be read (corrupt?): {exc}") from None
    # simkit writes games in order; saying so lets polars group by game and deal much faster.
    frame = frame.with_columns(pl.col(c).set_sorted() for c in ("game", "deal")
                               if frame[c].is_sorted())
    seats = int(frame["seat"].max()) + 1  # type: ignore[arg-type]
    if seats != manifest["players"]:
        raise SimkitError(f"{games_path}: has {seats} seats but {MANIFEST_FILE} says "
                          f"{manifest['players']} players")
    return Run(run_dir, manifest, frame)


def _check_columns(path: Path, manifest: dict[str, Any], names: list[str]) -> None:
    """Refuse rows that are not the named game's: the columns a run of that game, with
    that config, writes (computed from the config alone: no kernel is compiled)."""
    from simkit.config import GameConfig
    from simkit.games import get_game
    from simkit.games.base import KernelGame

    try:
        game = get_game(str(manifest["game"]))
    except SimkitError:  # a game simkit does not know: its report is the generic one
        return
    if not isinstance(game, KernelGame):
        return
    resolved = manifest.get("config", {}).get("resolved")
    if not isinstance(resolved, dict):
        return
    try:
        compiled = game.compile(GameConfig(game.module, str(path), resolved))
        cols = game.columns(compiled, game.new_outputs(compiled, 1, int(manifest["players"])))
    except (SimkitError, KeyError, ValueError, TypeError, IndexError):
        raise SimkitError(f"{path.parent / MANIFEST_FILE}: its config is not a valid "
                          f"{game.title} config; the manifest was changed") from None
    expected = set(SHARED_COLUMNS) | set(cols)
    missing, extra = sorted(expected - set(names)), sorted(set(names) - expected)
    if missing or extra:
        said = "; ".join(x for x in (f"missing {', '.join(missing[:4])}" if missing else "",
                                     f"unexpected {', '.join(extra[:4])}" if extra else "") if x)
        raise SimkitError(f"{path}: these are not the results of the {game.title} run "
                          f"that {MANIFEST_FILE} describes ({said}); the manifest or the file "
                          "was changed")


def _open_summary(run_dir: Path, manifest: dict[str, Any]) -> Run:
    """A summary-only run: its merged totals (a few hundred KB whatever the games)."""
    path = run_dir / SUMMARY_DATA_FILE
    if not path.exists():
        raise SimkitError(f"{run_dir}: the manifest is there but {SUMMARY_DATA_FILE} is "
                          "missing (a summary-only run keeps its results there)")
    summary = read_aggregate(path)
    missing = [c for c in SHARED_COLUMNS if c not in summary.columns]
    if missing:
        raise SimkitError(f"{path}: not a summary of simkit results (no column "
                          f"{', '.join(missing)})")
    if summary.games == 0 or int(manifest.get("games") or 0) == 0:
        raise SimkitError(f"{run_dir}: the run has zero games; nothing to report")
    if summary.rows != manifest["rows"]:
        raise SimkitError(f"{path}: sums {summary.rows:,} rows but {MANIFEST_FILE} says "
                          f"{manifest['rows']:,}; the file was replaced or cut short")
    return Run(run_dir, manifest, None, summary)
