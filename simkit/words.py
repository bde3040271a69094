"""Words a designer reads: numbers in sentences ("1 key", "4 keys"), and names from a
config shown as the plain text they are."""

from __future__ import annotations

import re

# A terminal escape sequence (ANSI colours, cursor moves, a title change) and any other
# control byte: a config's names may hold them, and a terminal or a page would obey them.
ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|[@-_])")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def count(n: int, word: str, plural: str | None = None) -> str:
    """`n` and `word`, in the plural unless n is 1: count(1, "key") == "1 key";
    count(28, "placeholder value") == "28 placeholder values"."""
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def shown(text: object) -> str:
    """`text` (which may hold names from a config) as one line of plain text, for a terminal
    or a page: escape sequences dropped, every other control byte (a newline, a tab, a
    carriage return, a bell) one space, so a name can neither recolour nor rewrite the
    terminal nor split a line or a table row."""
    return CONTROL.sub(" ", ESCAPE.sub("", str(text)))
