"""Game configs: TOML in, validated data out, with `--set key=value` overrides.

A config is plain data (dicts, lists, numbers, strings). Entries of a list of tables are
addressed by their `id` (or by position) in override keys, e.g.
`ingredients.spider_venom.scores=[1,3,6,10]` or `options.picking_compulsory=false`.
Any table may carry `placeholder = true` (the whole entry is not from a published source)
or `placeholder = ["key", ...]` (only those keys are); `placeholders()` lists them.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"


@dataclass(frozen=True)
class GameConfig:
    """A resolved game config: the data after overrides, and where it came from."""

    game: str
    source: str
    data: dict[str, Any]
    overrides: tuple[str, ...] = field(default_factory=tuple)

    @property
    def hash(self) -> str:
        """Short content hash of the resolved data (same data, same hash)."""
        text = json.dumps(self.data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def placeholders(self) -> list[str]:
        """Dotted keys of every value marked as a placeholder, less those a `--set`
        replaced (the value is then the designer's own, and the warning would mislead)."""
        mine = [_id_path(self.data, item.partition("=")[0].strip()) for item in self.overrides]
        return [k for k in _walk_placeholders(self.data, "")
                if not any(k == m or k.startswith(m + ".") for m in mine)]


def load_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file, turning a syntax error into a ConfigError naming the file."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(str(path), "(file)", None, "file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), "(syntax)", None, f"not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), "(encoding)", None,
                          f"not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    except OSError as exc:
        raise ConfigError(str(path), "(file)", None, f"cannot read it ({exc.strerror})") from None


def load_config(game: str, path: Path | None = None, overrides: Iterable[str] = (),
                default: Path | None = None) -> GameConfig:
    """Load `configs/<game>.toml` (or the game's `default`, or `path`) and apply
    `key=value` overrides (a cards file as `path`: `simkit.cards.load_config`)."""
    path = path or default or CONFIG_DIR / f"{game.replace('-', '_')}.toml"
    data = load_toml(path)
    overrides = tuple(overrides)
    for item in overrides:
        apply_override(data, item)
    return GameConfig(game=game, source=str(path), data=data, overrides=overrides)


def parse_value(text: str) -> Any:
    """Parse an override value as TOML (`3`, `2.5`, `true`, `[1,2]`, `"x"`), else a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(data: dict[str, Any], item: str) -> None:
    """Apply one `dotted.key=value` override in place; the key must already exist."""
    if "=" not in item:
        raise ConfigError("--set", item, None, "expected KEY=VALUE, e.g. options.max_rounds=50")
    key, _, raw = item.partition("=")
    key = key.strip()
    value = parse_value(raw.strip())
    parent, slot = locate(data, key, value)
    parent[slot] = _checked(parent[slot], value, key)


def lookup(data: Any, key: str) -> Any:
    """The value at dotted `key` of `data`, addressed as `--set` addresses it (list
    entries by id or position); a `ConfigError` naming the key if there is none."""
    parent, slot = locate(data, key, None)
    return parent[slot]


def locate(data: Any, key: str, value: Any) -> tuple[Any, Any]:
    """The table or list holding dotted `key` of `data`, and the key or position in it;
    a `ConfigError` (for setting `value`) naming the first part that is not there."""
    parts = key.split(".")
    parent: Any = data
    for depth, part in enumerate(parts):
        where = ".".join(parts[: depth + 1])
        if isinstance(parent, dict):
            if part not in parent:
                known = [k for k in parent if k != "placeholder"]
                hint = difflib.get_close_matches(part, known, n=1)
                tip = f"; did you mean '{hint[0]}'?" if hint else f"; known: {', '.join(known)}"
                raise ConfigError("--set", key, value, f"unknown key '{where}'{tip}")
            slot: Any = part
        elif isinstance(parent, list):
            slot = _list_index(parent, part, where, key, value)
        else:
            raise ConfigError("--set", key, value, f"'{'.'.join(parts[:depth])}' is a "
                              "value, not a table: nothing lies below it")
        if depth == len(parts) - 1:
            return parent, slot
        parent = parent[slot]
    raise ConfigError("--set", key, value, "an empty key")


def _list_index(items: list[Any], part: str, where: str, key: str, value: Any) -> int:
    """The position `part` names in a list: its index, or the id of one of its tables."""
    if part.isascii() and part.isdigit() and int(part) < len(items):
        return int(part)
    ids = [e.get("id") for e in items if isinstance(e, dict)]
    if part in ids:
        return ids.index(part)
    listed = where.rpartition(".")[0]
    span = f"an index 0..{len(items) - 1}" if items else "nothing (the list is empty)"
    if any(i is not None for i in ids):
        hint = difflib.get_close_matches(part, [str(i) for i in ids], n=1)
        tip = f"did you mean '{hint[0]}'?" if hint else f"known: {', '.join(map(str, ids))}"
        raise ConfigError("--set", key, value, f"'{listed}' has no entry '{part}'; {tip} "
                          f"(or {span})")
    raise ConfigError("--set", key, value, f"'{listed}' is a list of {len(items)}: '{part}' "
                      f"must be {span}")


def _checked(old: Any, new: Any, key: str) -> Any:
    """Accept `new` only if it has the type of the value it replaces."""
    if isinstance(old, bool) or isinstance(new, bool):
        ok = isinstance(old, bool) and isinstance(new, bool)
    elif isinstance(old, float):
        ok = isinstance(new, (int, float))
        new = float(new) if ok else new
    else:
        ok = type(old) is type(new)
    if not ok:
        want = type(old).__name__
        raise ConfigError("--set", key, new, f"expected a value of type {want} (currently {old!r})")
    return copy.deepcopy(new)


def _id_path(data: Any, key: str) -> str:
    """An override key as `placeholders()` names it: a list's entries by id where they
    have one (`ingredients.0.scores` -> `ingredients.bats_heart.scores`)."""
    out, node = [], data
    for part in key.split("."):
        if isinstance(node, list) and part.isascii() and part.isdigit() \
                and int(part) < len(node):
            node = node[int(part)]
            out.append(str(node.get("id", part)) if isinstance(node, dict) else part)
        elif isinstance(node, list):
            node = next((e for e in node if isinstance(e, dict) and e.get("id") == part), None)
            out.append(part)
        else:
            node = node.get(part) if isinstance(node, dict) else None
            out.append(part)
    return ".".join(out)


def _walk_placeholders(node: Any, prefix: str) -> Iterator[str]:
    if isinstance(node, dict):
        mark = node.get("placeholder")
        if mark is True:
            yield prefix or "(whole config)"
        elif isinstance(mark, list):
            for key in mark:
                yield f"{prefix}.{key}" if prefix else str(key)
        for key, value in node.items():
            if key != "placeholder":
                yield from _walk_placeholders(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            name = value.get("id", i) if isinstance(value, dict) else i
            yield from _walk_placeholders(value, f"{prefix}.{name}")


class Reader:
    """Typed access to a config's data; every failure names file, key and value."""

    def __init__(self, config: GameConfig) -> None:
        self.source = config.source
        self.data = config.data
        self.overridden = [item.partition("=")[0].strip() for item in config.overrides]

    def error(self, key: str, value: Any, problem: str) -> ConfigError:
        """The error, blamed on `--set` when an override set this key (or a table around
        it or inside it), else on the config file."""
        for k in self.overridden:
            if key == k or key.startswith(k + ".") or k.startswith(key + "."):
                return ConfigError(f"--set (on {self.source})", key, value, problem)
        return ConfigError(self.source, key, value, problem)

    def get(self, key: str, node: Any = None) -> Any:
        """The value at dotted `key` (relative to `node`, else the root)."""
        current = self.data if node is None else node
        for part in key.split("."):
            if not isinstance(current, dict) or part not in current:
                raise self.error(key, None, "missing")
            current = current[part]
        return current

    def int(self, key: str, lo: int, hi: int, node: Any = None, where: str = "") -> int:
        value = self.get(key, node)
        name = where or key
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, value, "expected an integer")
        if not lo <= value <= hi:
            raise self.error(name, value, f"must be between {lo} and {hi}")
        return value

    def int_list(self, key: str, length: int, lo: int, hi: int) -> list[int]:
        """A list of exactly `length` integers, each in lo..hi (e.g. one per seat)."""
        value = self.get(key)
        if not isinstance(value, list) or len(value) != length or not all(
            isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi for v in value
        ):
            raise self.error(key, value,
                             f"expected a list of {length} integers between {lo} and {hi}")
        return value

    def bool(self, key: str, node: Any = None, where: str = "") -> bool:
        value = self.get(key, node)
        if not isinstance(value, bool):
            raise self.error(where or key, value, "expected true or false")
        return value

    def choice(self, key: str, choices: Iterable[str], node: Any = None, where: str = "") -> str:
        value = self.get(key, node)
        choices = list(choices)
        if value not in choices:
            raise self.error(where or key, value, f"must be one of: {', '.join(choices)}")
        return value

    def table_list(self, key: str, lo: int, hi: int) -> list[dict[str, Any]]:
        """A list of tables (`[[key]]`) with `lo..hi` entries, each with a unique `id`."""
        value = self.get(key)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(key, None, "expected a list of tables ([[...]] entries)")
        if not lo <= len(value) <= hi:
            raise self.error(key, len(value), f"needs between {lo} and {hi} entries")
        seen: set[str] = set()
        for i, entry in enumerate(value):
            ident = entry.get("id")
            if not isinstance(ident, str) or not ident:
                raise self.error(f"{key}[{i}].id", ident, "every entry needs a text id")
            if ident in seen:
                raise self.error(f"{key}.{ident}.id", ident, "duplicate id")
            seen.add(ident)
        return value


def flatten(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, leaf value) pairs, list-of-table entries keyed by id; skips marks."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in ("placeholder", "id"):
                yield from flatten(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
        for i, value in enumerate(node):
            yield from flatten(value, f"{prefix}.{value.get('id', i)}")
    else:
        yield prefix, node
