"""TOML out: the one writer behind every file simkit writes as TOML (a tuned strategy's
parameters, a balance patch, a whole balanced config). Written here rather than taken
from a writer library: the subset needed is small, and `tomllib` reads it back in tests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def key(k: str) -> str:
    """A TOML key: bare when it may be, else quoted."""
    return k if k and all(ch.isalnum() or ch in "_-" for ch in k) else json.dumps(k)


def value(v: Any) -> str:
    """A TOML value: a boolean, number, string, list or inline table of them."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)  # nan, inf and -inf are TOML's own spellings
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} to TOML")


def document(data: Mapping[str, Any], header: str = "") -> str:
    """`data` as a TOML document, `header` as its opening comment: each level's plain
    keys first, then its [tables] and [[arrays of tables]]; tomllib reads it back to
    `data`."""
    lines = [f"# {line}" for line in header.splitlines()]

    def table(node: Mapping[str, Any], name: str) -> None:
        if name:
            lines.extend(["", f"[{name}]"])
        lines.extend(f"{key(k)} = {value(v)}" for k, v in node.items()
                     if not _is_table(v) and not _is_tables(v))
        for k, v in node.items():
            sub = f"{name}.{key(k)}" if name else key(k)
            if _is_table(v):
                table(v, sub)
            elif _is_tables(v):
                for entry in v:
                    lines.extend(["", f"[[{sub}]]"])
                    lines.extend(f"{key(a)} = {value(b)}" for a, b in entry.items())

    table(data, "")
    return "\n".join(lines) + "\n"


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping)


def _is_tables(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(e, Mapping) for e in v)
