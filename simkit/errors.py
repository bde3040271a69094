"""Errors a user can fix; the CLI prints them as one line, never a traceback."""

from __future__ import annotations


class SimkitError(Exception):
    """A problem with the user's input or environment, with a message saying what to fix."""


class ConfigError(SimkitError):
    """A config value is malformed or inconsistent; names the file, key and value."""

    def __init__(self, source: str, key: str, value: object, problem: str) -> None:
        self.source, self.key, self.value, self.problem = source, key, value, problem
        shown = "" if value is None else f" = {value!r}"
        super().__init__(f"{source}: {key}{shown}: {problem}")
