"""Keep numba's on-disk cache honest about cross-module changes.

numba's `cache=True` notices changes to a cached function's own source file only. A
game's kernel inlines its strategies and the shared helpers, so editing
`strategies/<game>.py` would silently keep running the old compiled strategy; and a
function of an unchanged module (an option table) would load its cached code, built with
the old version of a function it calls (a score) from a changed one. Each game's kernel
module calls `drop_stale_cache` at import: when the hash of its sources has changed since
the cache was written, the cache files of every one of those modules are deleted and
numba compiles them afresh.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba

from simkit.kernels.templates import BATCH, ROLLOUT, cache_tag

TEMPLATES = (ROLLOUT, BATCH)

SCHEME = b"every source's cache, v2"  # a new scheme drops caches the old one kept


def drop_stale_cache(module_file: str, *dependencies: str) -> bool:
    """Delete the numba caches of `module_file` and of every dependency if any of them
    changed; True if it did. Of a template (simkit/kernels/templates.py), only the copy
    compiled into this module: another game's copy stays."""
    source = Path(module_file)
    sources = [source, *map(Path, dependencies)]
    tag = cache_tag(_module_name(source))
    digest = hashlib.sha256(SCHEME)
    for path in sources:
        digest.update(path.read_bytes())
    stamp = stamp_path(module_file)
    if stamp.exists() and stamp.read_text() == digest.hexdigest():
        return False
    for path in sources:
        folders = [path.parent / "__pycache__"]
        if numba.config.CACHE_DIR:  # caches kept elsewhere: by module name (over-broad)
            folders.append(Path(numba.config.CACHE_DIR))
        for folder in folders:
            if folder.is_dir():
                pattern = f"{path.stem}.{tag}." if path in TEMPLATES else f"{path.stem}."
                for f in folder.rglob(f"{pattern}*.nb[ic]"):
                    f.unlink(missing_ok=True)
    try:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba will not cache there either
        pass
    return True


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
