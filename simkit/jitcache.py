"""Keep numba's on-disk cache honest about cross-module changes: the one cache check of
every game, built-in or written to the game API.

numba's `cache=True` notices changes to a cached function's own source file only. A
game's kernel inlines its strategies and the shared helpers, so editing
`strategies/<game>.py` would silently keep running the old compiled strategy; and a
function of an unchanged module (an option table) would load its cached code, built with
the old version of a function it calls (a score) from a changed one. So a game's compiled
code is stamped with one hash of every file it is built from (`drop_if_changed`): when
the hash differs, its cache files are deleted and numba compiles them afresh. Inori's
kernel module calls `drop_stale_cache` at import; a game folder's binding calls
`simkit.gamekit.cache.drop_stale`; both are this check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numba
from numba.core.caching import _CacheLocator

from simkit.kernels.templates import BATCH, ROLLOUT, cache_tag

TEMPLATES = (ROLLOUT, BATCH)

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


def drop_stale_cache(module_file: str, *dependencies: str) -> bool:
    """A built-in game's check: delete the numba caches of `module_file` and of every
    dependency if any of them changed; True if it did. Of a template
    (simkit/kernels/templates.py), only the copy compiled into this module: another
    game's copy stays."""
    source = Path(module_file)
    sources = [source, *map(Path, dependencies)]
    tag = cache_tag(_module_name(source))

    def cache_files() -> Iterable[Path]:
        for path in sources:
            pattern = f"{path.stem}.{tag}." if path in TEMPLATES else f"{path.stem}."
            for folder in numba_caches(path.parent):
                if folder.is_dir():
                    yield from folder.glob(f"{pattern}*.nb[ic]")

    return drop_if_changed(stamp_path(module_file), sources, cache_files)


def stamp_path(module_file: str) -> Path:
    """Where `drop_stale_cache` keeps the hash of a kernel module's sources: its being
    there says the module's cache is kept honest at import."""
    source = Path(module_file)
    return source.parent / "__pycache__" / f"{source.stem}.deps-sha256"


def _module_name(path: Path) -> str:
    """The dotted name of the module in `path`, from the packages (folders with an
    __init__.py) that hold it: what a template's compiled copy is named after."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)
