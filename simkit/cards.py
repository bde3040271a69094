"""Cards in and out of a spreadsheet: each component kind's table as CSV and as .xlsx.

A component kind is a list of tables with ids in the game's config (Cauldron Master's
`ingredients`, `witches`, `recipe_cards`). `write_cards` writes one sheet per kind: a
row per component (its id first), a column per field (a list or table as a TOML inline
value, `[4, 10, 18, 28]`), and a `placeholder` column naming the fields not from a
published source; with a `simkit value` result, `value: ...` columns add each component's
causal worth, interval and verdict. `--config FILE` takes such a file back (`cards.xlsx`,
one kind's `.csv`, or their folder): `changes` reads it against the game's own config and
returns a `--set` item per changed cell, so a file read back unedited changes nothing and
plays the same games bit for bit. Every problem is one line naming file, sheet, row and
column.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from simkit import config, tomlwrite
from simkit.config import GameConfig, parse_value
from simkit.errors import ConfigError, SimkitError
from simkit.paramfile import write_text_atomic

WORKBOOK = "cards.xlsx"
SUFFIXES = (".xlsx", ".csv")
PLACEHOLDER = "placeholder"
VALUE_PREFIX = "value: "  # columns a value run adds; read back, they are ignored


def is_cards(path: Path) -> bool:
    """A cards file or folder (rather than a TOML config)."""
    path = Path(path)
    return path.suffix.lower() in SUFFIXES or (path.is_dir() and any(
        f.suffix.lower() in SUFFIXES for f in path.iterdir()))


def kinds(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The config's component kinds: every top-level list of tables with ids."""
    return {k: v for k, v in data.items() if isinstance(v, list) and v
            and all(isinstance(e, dict) and "id" in e for e in v)}


def _fields(entries: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for e in entries:
        for k in e:
            if k not in ("id", PLACEHOLDER):
                seen.setdefault(k)
    return list(seen)


def _cell(value: Any) -> Any:
    """A field as a spreadsheet cell: numbers, text and booleans as themselves, lists and
    tables as TOML inline values."""
    if isinstance(value, bool | int | float | str):
        return value
    return tomlwrite.value(value)


def _marks(entry: dict[str, Any]) -> str:
    mark = entry.get(PLACEHOLDER)
    if mark is True:
        return "all"
    return ", ".join(map(str, mark)) if isinstance(mark, list) else ""


def sheets(data: dict[str, Any], value: dict[str, Any] | None = None
           ) -> dict[str, tuple[list[str], list[list[Any]]]]:
    """kind -> (header, rows) as written; `value` (a value.json) adds its columns."""
    worth = {}
    if value is not None:
        for r in value.get("table", []):
            if not r.get("a_a"):
                worth[str(r["key"])] = r
    out = {}
    for kind, entries in kinds(data).items():
        fields = _fields(entries)
        header = ["id", *fields, PLACEHOLDER]
        extra = worth and any(str(e["id"]) in worth for e in entries)
        if extra:
            header += [VALUE_PREFIX + c for c in ("vs average (points)", "vs average low",
                                                  "vs average high", "worth (points)",
                                                  "verdict")]
        rows = []
        for e in entries:
            row = [e["id"], *[_cell(e[f]) if f in e else None for f in fields], _marks(e)]
            if extra:
                r = worth.get(str(e["id"]))
                row += ([_points(r["vs_average"]), _points(r["vs_average_lo"]),
                         _points(r["vs_average_hi"]), _points(r["value"]), r["verdict"]]
                        if r else [None] * 5)
            rows.append(row)
        out[kind] = (header, rows)
    return out


def _points(x: Any) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x * 100, 2)


def write_cards(data: dict[str, Any], out: Path, value: dict[str, Any] | None = None
                ) -> list[Path]:
    """`out/<kind>.csv` for every kind and `out/cards.xlsx` with a sheet each."""
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tables = sheets(data, value)
    written = []
    book = Workbook()
    book.remove(book.active)
    marked = PatternFill("solid", fgColor="FDF1D6")  # the reports' NOT YET SURE colour
    for kind, (header, rows) in tables.items():
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([["" if c is None else _csv_text(c) for c in row] for row in rows])
        path = out / f"{kind}.csv"
        write_text_atomic(path, buf.getvalue())
        written.append(path)
        sheet = book.create_sheet(kind)
        sheet.append(header)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        mark_col = header.index(PLACEHOLDER)
        for row in rows:
            sheet.append(row)
            marks = str(row[mark_col])
            for i, name in enumerate(header[1:mark_col], start=2):
                if marks == "all" or name in marks.split(", "):
                    sheet.cell(sheet.max_row, i).fill = marked
        sheet.freeze_panes = "B2"
    path = out / WORKBOOK
    aside = path.with_name(path.name + ".partial")
    book.save(aside)
    aside.replace(path)
    written.append(path)
    return written


def _csv_text(value: Any) -> str:
    return tomlwrite.value(value) if isinstance(value, bool) else str(value)


# ------------------------------------------------------------------ reading back
def load_config(game: str, path: Path | None = None, overrides: tuple[str, ...] = (),
                default: Path | None = None) -> GameConfig:
    """`config.load_config`, where a cards file as `path` is the game's own config with
    each changed cell as a `--set` item before `overrides` (source: the cards file)."""
    if path is None or not is_cards(Path(path)):
        return config.load_config(game, path, overrides, default)
    own = config.load_config(game, None, (), default)
    sets = tuple(changes(Path(path), own.data))
    return dataclasses.replace(config.load_config(game, None, sets + tuple(overrides), default),
                               source=str(path))


def read_sheets(path: Path) -> Iterator[tuple[str, str, list[list[Any]]]]:
    """(where, kind, rows with the header first) of a workbook, a CSV or a folder."""
    path = Path(path)
    if path.is_dir():
        for f in sorted(path.iterdir()):
            if f.suffix.lower() == ".csv":
                yield from read_sheets(f)
        return
    if path.suffix.lower() == ".csv":
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise ConfigError(str(path), "(file)", None, "file not found") from None
        except UnicodeDecodeError:
            raise ConfigError(str(path), "(encoding)", None, "not UTF-8 text; save the CSV "
                              "as UTF-8") from None
        yield str(path), path.stem, list(csv.reader(io.StringIO(text)))
        return
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except FileNotFoundError:
        raise ConfigError(str(path), "(file)", None, "file not found") from None
    except Exception as exc:  # openpyxl raises zipfile, KeyError, ValueError...
        raise ConfigError(str(path), "(file)", None, f"not an .xlsx workbook ({exc})") from None
    for sheet in book.worksheets:
        rows = [list(r) for r in sheet.iter_rows(values_only=True)]
        yield f"{path}: sheet {sheet.title}", sheet.title, rows


def _blank(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def _parse(old: Any, cell: Any) -> Any:
    """A cell as the type of the value it replaces (text stays text; a number typed in
    a CSV or as spreadsheet text is read as TOML)."""
    if isinstance(old, str):
        return str(cell) if not isinstance(cell, float) or not cell.is_integer() \
            else str(int(cell))
    if isinstance(cell, str):
        return parse_value(cell.strip())
    if isinstance(old, int) and not isinstance(old, bool) and isinstance(cell, float) \
            and cell.is_integer():
        return int(cell)  # a spreadsheet may keep 3 as 3.0
    return cell


def _same_type(old: Any, new: Any) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, float):
        return isinstance(new, int | float)
    return type(old) is type(new)


def changes(path: Path, data: dict[str, Any]) -> list[str]:
    """The `--set` items that turn `data` (the game's own config) into the cards file at
    `path`: one per changed cell. Unknown sheets, ids and columns, a missing id column,
    a blank or mistyped cell: one ConfigError naming the sheet, row and column."""
    known = kinds(data)
    items: list[str] = []
    seen_any = False
    for where, kind, rows in read_sheets(path):
        if kind not in known:
            raise ConfigError(where, "(sheet)", kind, "no component kind of that name; "
                              f"expected one of {', '.join(known)}")
        seen_any = True
        if not rows or not rows[0] or rows[0][0] != "id":
            raise ConfigError(where, "row 1", None, "the first column must be 'id' (the "
                              "header row as `simkit cards` writes it)")
        header = [str(h).strip() if h is not None else "" for h in rows[0]]
        entries = {str(e["id"]): e for e in known[kind]}
        fields = _fields(known[kind])
        for col, name in enumerate(header[1:], start=2):
            if name in ("", PLACEHOLDER) or name.startswith(VALUE_PREFIX):
                continue
            if name not in fields:
                raise ConfigError(where, f"row 1, column {_letter(col)}", name,
                                  f"no field of that name in {kind}; expected one of "
                                  f"{', '.join(fields)}")
        for number, row in enumerate(rows[1:], start=2):
            if all(_blank(c) for c in row):
                continue
            ident = str(row[0]).strip() if not _blank(row[0]) else ""
            if ident not in entries:
                raise ConfigError(where, f"row {number}, column A", row[0],
                                  f"no {kind} entry with this id (rows cannot be added or "
                                  "renamed here; edit the TOML config for that)")
            entry = entries[ident]
            for col, name in enumerate(header[1:], start=2):
                if name in ("", PLACEHOLDER) or name.startswith(VALUE_PREFIX):
                    continue
                cell = row[col - 1] if col - 1 < len(row) else None
                spot = f"row {number} ({ident}), column {_letter(col)} ({name})"
                if name not in entry:
                    if not _blank(cell):
                        raise ConfigError(where, spot, cell, f"{ident} has no field {name}; "
                                          "leave the cell empty")
                    continue
                if _blank(cell):
                    raise ConfigError(where, spot, None, "empty; expected a value like "
                                      f"{tomlwrite.value(entry[name])}")
                old = entry[name]
                new = _parse(old, cell)
                if not _same_type(old, new):
                    raise ConfigError(where, spot, cell, f"expected a value of type "
                                      f"{type(old).__name__} (currently "
                                      f"{tomlwrite.value(old)})")
                if isinstance(old, float):
                    new = float(new)
                if json.dumps(new, sort_keys=True) != json.dumps(old, sort_keys=True):
                    items.append(f"{kind}.{ident}.{name}={tomlwrite.value(new)}")
    if not seen_any:
        raise SimkitError(f"{path}: no cards sheet or CSV file (write one with `simkit "
                          "cards GAME --out DIR`)")
    return items


def _letter(col: int) -> str:
    """A 1-based column number as a spreadsheet's letters (1 -> A, 27 -> AA)."""
    out = ""
    while col:
        col, rest = divmod(col - 1, 26)
        out = chr(65 + rest) + out
    return out
