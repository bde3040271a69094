"""How a page names a file or folder: relative to where simkit runs, when it lies below,
and the game's own config by its place in simkit (`configs/...`), so that a report or
summary.md mailed elsewhere shows no one's home folder."""

from __future__ import annotations

from pathlib import Path

from simkit.config import CONFIG_DIR


def shown_path(path: str | Path) -> str:
    """`path` relative to the current folder when it lies below it, else as given."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def shown_config(source: str | Path) -> str:
    """A config file as a page shows it: `configs/<game>.toml` for simkit's own."""
    path = Path(source)
    try:
        return str(Path("configs") / path.resolve().relative_to(CONFIG_DIR))
    except (ValueError, OSError):
        return shown_path(path)
