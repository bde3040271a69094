"""Keep numba's on-disk cache honest about cross-module changes: the one cache check of
every game, built-in or written to the game API.

numba's `cache=True` notices changes to a cached function's own source file only. A
game's kernel inlines its strategies and the shared helpers, so editing
`strategies/<game>.py` would silently keep running the old compiled strategy; and a
function of an unchanged module (an option table) would load its cached code, built with
the old version of a function it calls (a score) from a changed one. So a game's compiled
code is stamped with one hash of every file it is built from (`drop_if_changed`): when
the hash differs, its cache files are deleted and numba compiles them afresh. Every game's
binding (a game folder's and the built-in games') calls `simkit.gamekit.cache.drop_stale`,
which is this check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numba
from numba.core.caching import _CacheLocator

SCHEME = b"one cache check for every game, v3"  # a new scheme drops caches the old one kept


def sources_digest(paths: Iterable[Path]) -> str:
    """One hash of the files' names and contents, in order."""
    digest = hashlib.sha256(SCHEME)
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def drop_if_changed(stamp: Path, sources: Sequence[Path],
                    cache_files: Callable[[], Iterable[Path]]) -> bool:
    """The cache check: when the hash of `sources` differs from the one in `stamp`, delete
    `cache_files()` and write the new hash; True if it did. Without a writable `stamp`
    (a read-only install, where numba does not cache either) it checks again next time."""
    digest = sources_digest(sources)
    if stamp.exists() and stamp.read_text() == digest:
        return False
    for f in cache_files():
        f.unlink(missing_ok=True)
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return True


def numba_caches(*source_folders: Path) -> list[Path]:
    """The folders where numba keeps the cache of functions whose files are in
    `source_folders`: beside them, or under NUMBA_CACHE_DIR by numba's own naming."""
    found = [f / "__pycache__" for f in source_folders]
    if numba.config.CACHE_DIR:
        found += [Path(numba.config.CACHE_DIR) /
                  _CacheLocator.get_suitable_cache_subpath(str(f / "x.py"))
                  for f in source_folders]
    return found


def drop_stale_modules(folder: Path, stems: Sequence[str], stamp: str) -> bool:
    """The same check for modules compiled apart from any game (the summary's reductions,
    `simkit.summing.REDUCTION_MODULES`): the cached functions of every module in `stems`
    (files of `folder`) are deleted when any of those files changed. True if they were."""

    def cache_files() -> Iterable[Path]:
        for stem in stems:
            yield from module_cache_files(folder, stem)

    return drop_if_changed(folder / "__pycache__" / stamp,
                           [folder / f"{stem}.py" for stem in stems], cache_files)


def modules_cached(folder: Path, stems: Sequence[str]) -> bool:
    """Whether every module in `stems` (files of `folder`) has compiled code in numba's
    cache: if one has none, its first call compiles it (after an install, or once
    `drop_stale_modules` dropped them)."""
    return all(next(module_cache_files(folder, stem, "nbi"), None) for stem in stems)


def module_cache_files(folder: Path, stem: str, kinds: str = "nb[ic]") -> Iterator[Path]:
    """numba's cache files of the functions of module `stem` (a file of `folder`), wherever
    numba keeps them: their index (.nbi) and compiled code (.nbc) files."""
    for d in numba_caches(folder):
        yield from d.glob(f"{stem}.*.{kinds}")
