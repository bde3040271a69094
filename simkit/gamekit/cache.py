"""Where a game folder's compiled code lives: a folder of its own, keyed by the game
folder's identity, never inside simkit's package.

simkit's shared pieces (the loop, the rollout player, the batch loop) are templates
compiled into each game (simkit/kernels/templates.py). numba caches a function beside
its source file, under its module and function name, and looks the entry up by those
and its bytecode only: two game folders of one package name would load each other's
compiled loop, the other game's rules inlined. So each game folder gets a folder of its
own, named after its resolved path: the templates are copied there and compiled from the
copies, so numba caches them there (or, with NUMBA_CACHE_DIR, under the copy's path
there). The folder is in the user's cache ($XDG_CACHE_HOME/simkit or ~/.cache/simkit, or
NUMBA_CACHE_DIR/simkit when that is set), else beside the game (its __pycache__); with
neither writable the game compiles in every process.

The compiled code goes when a file it is built from changes: the game's kernel files
(every .py of the folder but those run in Python only, `NOT_KERNEL`), the loop and
simkit's shared kernels. An edit to report.py, config.py or targets.toml compiles nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import numba

from simkit.games.base import NOT_KERNEL
from simkit.jitcache import drop_if_changed, module_cache_files, numba_caches

STAMP = "sources.sha256"


def user_cache() -> Path:
    """The user's cache for simkit: NUMBA_CACHE_DIR/simkit when numba's cache is moved
    (as numba does), else $XDG_CACHE_HOME/simkit, else ~/.cache/simkit."""
    if numba.config.CACHE_DIR:
        return Path(numba.config.CACHE_DIR) / "simkit"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "simkit"


def folder_key(folder: Path) -> str:
    """A game folder's identity as a folder name: its name (for people) and a hash of its
    resolved path (for uniqueness)."""
    resolved = folder.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    return f"{resolved.name}-{digest}"


def cache_folder(folder: Path) -> Path | None:
    """The writable folder that holds the game folder `folder`'s compiled templates: in
    the user's cache, else in the game's own __pycache__; None if neither is writable."""
    for base in (user_cache() / "games", folder / "__pycache__" / "simkit"):
        place = base / folder_key(folder)
        try:
            place.mkdir(parents=True, exist_ok=True)
            probe = place / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError:
            continue
        return place
    return None


def kernel_sources(folder: Path) -> list[Path]:
    """The game's files its compiled kernel is built from, in a fixed order."""
    return sorted(p for p in folder.glob("*.py") if p.name not in NOT_KERNEL)


def copy_template(place: Path, template: Path) -> Path:
    """`template` copied into `place` (rewritten only if it differs, so that numba's
    cache, which checks the copy's contents, stays valid): the file to compile from."""
    copy = place / template.name
    text = template.read_bytes()
    if not copy.exists() or copy.read_bytes() != text:
        partial = copy.with_name(f"{copy.name}.{os.getpid()}.partial")
        partial.write_bytes(text)
        partial.replace(copy)  # a process compiling at the same time reads all or nothing
    return copy


def drop_stale(place: Path, folder: Path, shared: Iterable[Path],
               own: Iterable[Path] = ()) -> bool:
    """Delete the compiled code of the game folder `folder` (its templates' in `place`,
    its own functions' beside its files, and those of `own`: files outside the folder
    compiled for this game alone, a built-in game's players) when a file it is built from
    changed since it was compiled: the game's kernel files, `shared` (the loop, simkit's
    kernels) and `own`. True if it did. The built-in games' check (simkit/jitcache.py),
    stamped in `place`."""
    own = list(own)

    def cache_files() -> Iterable[Path]:
        for d in numba_caches(place, folder):
            yield from d.glob("*.nb[ic]")
        for path in own:
            yield from module_cache_files(path.parent, path.stem)

    return drop_if_changed(place / STAMP, [*kernel_sources(folder), *shared, *own],
                           cache_files)
