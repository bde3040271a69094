"""Keep numba's on-disk cache honest about cross-module changes.

numba's `cache=True` notices changes to a cached function's own source file only. A
game's kernel inlines its strategies and the shared helpers, so editing
`strategies/<game>.py` would silently keep running the old compiled strategy. Each game's
kernel module calls `drop_stale_cache` at import: when the hash of its dependencies has
changed since the cache was written, the kernel's cache files are deleted and numba
compiles afresh.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba


def drop_stale_cache(module_file: str, *dependencies: str) -> bool:
    """Delete `module_file`'s numba cache if it or a dependency changed; True if it did."""
    source = Path(module_file)
    digest = hashlib.sha256()
    for path in (source, *map(Path, dependencies)):
        digest.update(path.read_bytes())
    stamp = source.parent / "__pycache__" / f"{source.stem}.deps-sha256"
    if stamp.exists() and stamp.read_text() == digest.hexdigest():
        return False
    folders = [source.parent / "__pycache__"]
    if numba.config.CACHE_DIR:
        folders.append(Path(numba.config.CACHE_DIR))
    for folder in folders:
        if folder.is_dir():
            for f in folder.rglob(f"{source.stem}.*.nb[ic]"):
                f.unlink(missing_ok=True)
    try:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba will not cache there either
        pass
    return True
