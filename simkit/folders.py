"""Output folders: what simkit owns in one, whether it may write there, and its lock.

Every command that writes a folder (run, sweep, tournament, value, report) goes through
here, so one set of rules holds everywhere:

- A folder is simkit's if it holds a state file simkit wrote (`Kind.states`). A folder
  holding anything else is refused, with or without --force, unless it is empty.
- Replacing (--force, a new report) deletes only the names simkit writes for that kind
  (in a report's tables folder, only the files its `index.csv` lists) and never follows
  a symbolic link: a link where simkit keeps a subfolder is refused in one line.
- A process writing a folder holds its lock (`LOCK_FILE`). It is an flock, so the lock of
  a killed process is free at once (the stale file is taken over); a second process
  refuses in one line naming the owner's pid, host and command.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import socket
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.errors import CorruptFile, SimkitError, on_disk

LOCK_FILE = ".simkit.lock"
TABLES_INDEX = "index.csv"  # a report's tables folder lists its own files here
TEMP_SUFFIXES = ("", ".partial", ".tmp")  # atomic writes go through NAME.partial / .tmp
REPORT_FILES = ("report.html", "summary.md")
REPORT_TABLES = ("report_tables",)


@dataclass(frozen=True)
class Kind:
    """One kind of folder simkit writes: the files that mark it, and all it writes."""

    name: str
    states: tuple[str, ...]  # any of these marks a folder of this kind
    files: tuple[str, ...] = ()  # other top-level files it writes
    dirs: tuple[tuple[str, str], ...] = ()  # (subfolder, regex of the files it writes there)
    tables: tuple[str, ...] = ()  # report table folders (owned files listed in their index)

    def pattern(self, sub: str) -> str:
        """The names of the files this kind writes in subfolder `sub`."""
        return dict(self.dirs)[sub]

    def owned_files(self) -> list[str]:
        return [n + s for n in (*self.states, *self.files) for s in TEMP_SUFFIXES]


CHUNK_NAMES = r"(games|summary)-\d{12}-\d{9}\.(arrow|parquet|json)(\.tmp|\.partial)?|" \
              r"(games|summary)-\d{12}-\d{9}\.tmp"
RUN = Kind("run", ("manifest.json", "run.json"),
           ("games.parquet", "summary.csv", "summary.json", *REPORT_FILES),
           (("chunks.partial", CHUNK_NAMES), ("report_tables.partial", r".+\.csv")),
           REPORT_TABLES)
SWEEP = Kind("sweep", ("sweep.json",), REPORT_FILES, (("report_tables.partial", r".+\.csv"),),
             REPORT_TABLES)
TOURNAMENT = Kind("tournament", ("tournament.json", "tournament.progress.json"),
                  ("timing.json", "tournament.html", "tournament.md", "ratings.csv",
                   "win_matrix.csv"),
                  (("lineups.partial",
                    r"deals_\d+_\d+_lineup_\d+(_first_\d+)?\.npz(\.partial|\.tmp)?"),
                   ("report_tables.partial", r".+\.csv")), REPORT_TABLES)
VALUE = Kind("value", ("value.json", "value.partial.json"),
             ("value_deals.npz", "value.csv", "value.html", "value.md"),
             (("value_chunks.partial", r"value-\d{12}-\d{9}\.npz(\.partial|\.tmp)?"),
              ("value_tables.partial", r".+\.csv")), ("value_tables",))
# `simkit ladder`: a sweep (sweep.json, a run folder per point) with the ladder's record,
# the top rung's doubled-budget parameter file, and the ladder report.
LADDER = Kind("ladder", ("ladder.json",), ("sweep.json", "budget_x2.toml", *REPORT_FILES),
              (("report_tables.partial", r".+\.csv"),), REPORT_TABLES)
# A report written with `report --out` into a folder of its own.
REPORT = Kind("report", ("report.html",), ("summary.md",),
              (("report_tables.partial", r".+\.csv"),), REPORT_TABLES)
# `simkit compare --out`: the comparison's table, as CSV, Markdown and a page.
COMPARE = Kind("compare", ("compare.csv",), ("compare.md", "compare.html"))
# `simkit balance`: the search's log and result, and its two verification runs.
BALANCE = Kind("balance", ("balance.json",),
               ("balance_log.jsonl", "patch.toml", "balanced.toml", "candidates.csv",
                "balance.md", "balance.html", "trajectory.png"))
# `simkit cards --out`: the workbook and one CSV per component kind (named by the kind).
CARDS = Kind("cards", ("cards.xlsx",))
# `simkit studio --out`: the edits tried (studio.json), a saved change, and the run and
# report of the current state (a run folder of its own, `current`).
STUDIO = Kind("studio", ("studio.json",), ("patch.toml", "config.toml"))
# `simkit tournament --players 2,3,4`: a tournament folder per count (players-N) and the
# comparison of their orders.
PLAYER_COUNTS = Kind("tournament by player count", ("player_counts.json",),
                     ("player_counts.md", "player_counts.html", "player_counts.csv"))
KINDS = (RUN, LADDER, SWEEP, TOURNAMENT, VALUE, REPORT, COMPARE, BALANCE, CARDS,
         STUDIO, PLAYER_COUNTS)


def kind_of(folder: Path) -> Kind | None:
    """The kind of simkit folder `folder` is, or None (absent, empty or not simkit's)."""
    for kind in KINDS:
        if any((folder / s).is_file() for s in kind.states):
            return kind
    return None


def foreign(folder: Path) -> list[str]:
    """Names in `folder` that mark no simkit folder: all but the lock and a state file's
    half-written copy (a process killed while it wrote the first one)."""
    mine = {s + t for k in KINDS for s in k.states for t in TEMP_SUFFIXES[1:]} | {LOCK_FILE}
    return sorted(p.name for p in folder.iterdir() if p.name not in mine)


def check_writable(folder: Path, kind: Kind, flag: str = "--out") -> str:
    """"new" (absent or empty), "ours" (a `kind` folder) or refuse in one line.

    A simkit folder of another kind, or a folder holding files simkit did not write, is
    refused: --force replaces simkit's own results, never anything else.
    """
    if not folder.exists() and not folder.is_symlink():
        return "new"
    if not folder.is_dir():
        raise SimkitError(f"{flag} {folder}: exists and is not a folder")
    found = kind_of(folder)
    if found is None:
        others = foreign(folder)
        if not others:
            return "new"
        raise SimkitError(f"{flag} {folder} is not empty and holds no simkit {kind.name} "
                          f"({_names(others)}); choose another folder")
    if found is not kind and not (kind is REPORT and found is not VALUE):
        raise SimkitError(f"{flag} {folder} holds a simkit {found.name}, not a {kind.name}; "
                          "choose another folder")
    return "ours"


Record = dict[str, Any] | None


def claim(folder: Path, kind: Kind, identity: Any, records: Callable[[], tuple[Record, Record]],
          force: bool | None, what: str = "") -> str:
    """What `folder` holds for the work whose identity is `identity`, the one new / resume /
    refuse rule of every resumable output folder: "new" (start afresh: absent, empty,
    leftovers without a record, or what `force` replaces), "resume" (this work,
    unfinished) or "done" (this work, finished); anything else is refused in one line.

    `records()` reads the folder's record of finished work and its record of unfinished
    work, each None where absent; a damaged one raises CorruptFile. Call it holding the
    folder's lock (`locked`). `what` names the work in a refusal (default: the kind).
    `force` None: the command has no --force (a sweep, a ladder), so nothing is replaced
    and no refusal offers it.
    """
    what = what or kind.name
    offer = "" if force is None else " or pass --force to replace it"
    if check_writable(folder, kind) == "new":
        return "new"
    if not os.access(folder, os.W_OK):
        raise SimkitError(f"--out {folder}: the folder is not writable")
    try:
        finished, unfinished = records()
    except CorruptFile as exc:
        if not force:
            raise SimkitError(f"--out {folder}: {exc}; choose another folder"
                              + ("" if force is None else
                                 f", or pass --force to replace the {what} in it")) from None
        return "new"
    if finished is not None:
        if finished.get("identity") == identity:
            return "done"
        if not force:
            raise SimkitError(f"--out {folder} already holds a different {what} "
                              f"({finished.get('command', '?')}); choose another folder"
                              + offer)
    elif unfinished is not None:
        if unfinished.get("identity") == identity:
            return "resume"
        if not force:
            raise SimkitError(f"--out {folder} holds an unfinished different {what} "
                              f"({unfinished.get('command', '?')}); rerun that command to "
                              "finish it" + (" or choose another folder" if force is None
                                             else ", choose another folder, or pass --force"))
    return "new"


def _names(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def remove_owned(folder: Path, kind: Kind) -> None:
    """Delete what `kind` writes in `folder`; nothing else.

    A symbolic link is unlinked, never followed; a link where simkit keeps a subfolder is
    refused (`check_subfolder`).
    """
    for sub, _ in kind.dirs:
        check_subfolder(folder / sub)
    for sub in kind.tables:
        check_subfolder(folder / sub)
    for name in kind.owned_files():
        _unlink_file(folder / name)
    for sub, pattern in kind.dirs:
        clear_subfolder(folder / sub, pattern)
    for sub in kind.tables:
        remove_tables(folder / sub)


def _unlink_file(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()


def check_subfolder(path: Path) -> None:
    """Refuse a symbolic link (or a file) where simkit keeps a subfolder of its own."""
    if path.is_symlink():
        raise SimkitError(f"{path} is a symbolic link; simkit writes and deletes only inside "
                          "its own folders: remove the link and run again")
    if path.exists() and not path.is_dir():
        raise SimkitError(f"{path} should be a folder simkit made, but is a file; remove it "
                          "and run again")


def clear_subfolder(path: Path, pattern: str) -> None:
    """Delete the files simkit writes in subfolder `path` (names matching `pattern`), then
    the folder if nothing else is in it."""
    check_subfolder(path)
    if not path.is_dir():
        return
    for f in path.iterdir():
        if re.fullmatch(pattern, f.name) and (f.is_symlink() or f.is_file()):
            f.unlink()
    with contextlib.suppress(OSError):  # not empty: somebody else's files stay
        path.rmdir()


def table_files(path: Path) -> list[str]:
    """The files a report wrote in its tables folder `path`: those its index lists. (A
    folder without an index is nobody's simkit knows: a report refuses to replace it.)"""
    index = path / TABLES_INDEX
    if index.is_file() and not index.is_symlink():
        lines = index.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
        listed = [line.split(",", 1)[0] for line in lines]
        return [n for n in listed if n and "/" not in n and n not in (".", "..")] + [
            TABLES_INDEX]
    return []


def remove_tables(path: Path) -> None:
    """Delete a report's tables folder: the files it lists, then the folder if empty."""
    check_subfolder(path)
    if not path.is_dir():
        return
    for name in table_files(path):
        _unlink_file(path / name)
    with contextlib.suppress(OSError):
        path.rmdir()


# ------------------------------------------------------------------ the lock
_held: dict[str, int] = {}  # folders this process has locked -> depth (the lock nests)


def _owner_line(text: str) -> str:
    try:
        o = json.loads(text)
        return f"pid {o['pid']} on {o['host']}, since {o['started']}: {o['command']}"
    except (ValueError, KeyError, TypeError):
        return "an unknown process"


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold `folder`'s lock while the block writes it; refuse if another process holds it.

    Created with the folder if need be. Nested use in one process is allowed.
    """
    key = os.path.abspath(folder)
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    if folder.exists() and not folder.is_dir():
        raise SimkitError(f"--out {folder}: exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = _acquire(folder / LOCK_FILE, folder)
    except OSError as exc:
        raise SimkitError(f"{folder}: cannot write there ({on_disk(exc, folder)})") from None
    _held[key] = 1
    try:
        yield
    finally:
        del _held[key]
        with contextlib.suppress(OSError):
            os.unlink(folder / LOCK_FILE)  # while still holding it: nobody can slip in
        os.close(fd)


def _acquire(path: Path, folder: Path) -> int:
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            owner = os.read(fd, 4096).decode("utf-8", "replace")
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise SimkitError(f"{folder} is being written by another simkit process "
                                  f"({_owner_line(owner)}); wait for it to finish or stop "
                                  "it, or choose another folder") from None
            raise
        try:  # the previous owner may have removed the file between our open and flock
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    # A lock file left by a killed process is not locked by anyone: taken over here.
    owner = {"pid": os.getpid(), "host": socket.gethostname(),
             "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "command": " ".join(["simkit", *sys.argv[1:]])[:500]}
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(owner) + "\n").encode(), 0)
    return fd
