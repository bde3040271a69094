"""Errors a user can fix; the CLI prints them as one line, never a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


class SimkitError(Exception):
    """A problem with the user's input or environment, with a message saying what to fix."""


class ConfigError(SimkitError):
    """A config value is malformed or inconsistent; names the file, key and value."""

    def __init__(self, source: str, key: str, value: object, problem: str) -> None:
        self.source, self.key, self.value, self.problem = source, key, value, problem
        shown = "" if value is None else f" = {value!r}"
        super().__init__(f"{source}: {key}{shown}: {problem}")


def on_disk(exc: OSError, where: object) -> str:
    """`FILE: REASON` for a failed read or write: the file the error names (else `where`,
    the file or folder being written), and its reason even when the library that raised
    it gave none (polars and pyarrow raise OSError without `strerror`)."""
    reason = (exc.strerror or (os.strerror(exc.errno) if exc.errno else "")
              or " ".join(str(a) for a in exc.args))
    return f"{exc.filename or where}: {reason or type(exc).__name__}"


@contextmanager
def naming(path: object) -> Iterator[None]:
    """Name `path` on an OSError raised inside that names no file (a write's error does
    not), so that `on_disk` can say which file failed."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


class CorruptFile(SimkitError):
    """A file simkit wrote is damaged (not JSON, or not a JSON object)."""
