"""Numbers in sentences: "1 key", "4 keys" (the output a designer reads)."""

from __future__ import annotations


def count(n: int, word: str, plural: str | None = None) -> str:
    """`n` and `word`, in the plural unless n is 1: count(1, "key") == "1 key";
    count(28, "placeholder value") == "28 placeholder values"."""
    return f"{n:,} {word if n == 1 else plural or word + 's'}"
