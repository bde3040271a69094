"""Writing a report's files: pages, CSV tables and the tables' index, one way for all.

Every report (balance, sweep, value) goes through `write_report_files`, so each is
written the same careful way: the tables are staged in a side folder and swapped in
whole, every page is written aside and renamed, and the tables folder lists its own files
in `index.csv`, so a later report replaces those and nothing a user put beside them
(`simkit/folders.py`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from simkit import folders
from simkit.errors import SimkitError, naming, on_disk
from simkit.results import write_csv

STAGING = ".partial"  # the tables folder is built as <name>.partial, then renamed


def atomic_write(path: Path, text: str) -> None:
    """Write `text` aside, then rename it into place: never a half-written page."""
    tmp = path.with_name(path.name + ".partial")
    with naming(tmp):
        tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def check_report_folder(out: Path, home: Path) -> None:
    """`out` may take a report of the results in `home`: it is `home` itself, absent,
    empty, or a folder simkit wrote; anything else is refused in one line."""
    if out.resolve() != home.resolve():
        folders.check_writable(out, folders.REPORT)


def check_tables_folder(final: Path) -> None:
    """Refuse a report's tables folder that is a link or holds files simkit did not write
    (`simkit run --report` asks before it plays, not after)."""
    folders.check_subfolder(final)
    if final.is_dir():
        theirs = sorted({f.name for f in final.iterdir()} - set(folders.table_files(final)))
        if theirs:
            raise SimkitError(f"{final} holds files simkit did not write "
                              f"({', '.join(theirs[:3])}); move them out and run again")


def write_report_files(out: Path, pages: Sequence[tuple[str, str]],
                       tables: Sequence[tuple[str, str, pl.DataFrame]],
                       tables_dir: str = "report_tables") -> list[Path]:
    """Write `pages` (name, text) and `tables` (file stem, title, frame) into `out`;
    returns the table paths. Refuses, before writing anything, a tables folder that is a
    link or holds files simkit did not write."""
    final = out / tables_dir
    check_tables_folder(final)
    staging = out / (tables_dir + STAGING)
    try:
        with folders.locked(out):
            folders.clear_subfolder(staging, r".+\.csv")
            staging.mkdir()
            names: list[str] = []
            for stem, _, frame in tables:
                name = f"{stem}.csv"
                if name in names or name == folders.TABLES_INDEX:
                    raise ValueError(f"two report tables would both be written to {name}")
                write_csv(frame, staging / name)
                names.append(name)
            write_csv(pl.DataFrame({"file": names, "title": [t for _, t, _ in tables]},
                                   schema={"file": pl.String, "title": pl.String}),
                      staging / folders.TABLES_INDEX)
            *first, last = pages  # the main page last: it appears when all else is there
            for name, text in first:
                atomic_write(out / name, text)
            folders.remove_tables(final)
            os.replace(staging, final)
            atomic_write(out / last[0], last[1])
    except OSError as exc:
        raise SimkitError(f"{on_disk(exc, out)}: cannot write the report") from None
    return [final / n for n in names]


def report_is_current(run_dir: Path, game: str) -> bool:
    """Whether the run's report.html was written after everything it reads that a rerun
    could have changed: the results (manifest.json), a value run in RUN/value, and the
    targets files in force (simkit's and the game's own)."""
    from reports.targets import DEFAULT_TARGETS, game_targets

    page = Path(run_dir) / "report.html"
    if not page.is_file() or not (Path(run_dir) / "report_tables" / "scorecard.csv").is_file():
        return False
    inputs = [Path(run_dir) / "manifest.json", Path(run_dir) / "value" / "value.json",
              DEFAULT_TARGETS, game_targets(game)]
    written = page.stat().st_mtime
    return all(p is None or not p.exists() or p.stat().st_mtime <= written for p in inputs)

