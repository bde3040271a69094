"""Strategy parameter files: `--strategies NAME@params.toml` reads one, `simkit tune` writes one.

The file names its strategy (and, optionally, its game) and holds a `[params]` table:

    strategy = "planner"
    game = "cauldron-master"
    [params]
    discount = 0.41

Any other tables (`simkit tune` adds `[tuning]` and `[evaluation]`) are ignored when read.
Parameters the file leaves out keep their defaults; every value is range-checked against
the strategy's `Param`s. For a plug-in `FILE.py:FUNCTION`, `strategy` may be FUNCTION.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path

from simkit.errors import SimkitError, naming, on_disk
from simkit.players import StrategySpec


def split_token(token: str) -> tuple[str, str | None]:
    """"planner@tuned.toml" -> ("planner", "tuned.toml"); "planner" -> ("planner", None)."""
    name, at, path = token.partition("@")
    if not at:
        return token, None
    if not path.strip():
        raise SimkitError(f"--strategies {token!r}: expected NAME@FILE, e.g. planner@tuned.toml")
    return name.strip(), path.strip()


def read_params(path: str | Path, spec: StrategySpec, game: str) -> dict[str, float]:
    """The parameters in the file at `path` for `spec` (validated), as {name: value}."""
    where = f"parameter file {path}"
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimkitError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{where}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SimkitError(f"{where}: not valid TOML ({exc})") from None
    named = data.get("strategy")
    if named is None:
        raise SimkitError(f"{where}: no 'strategy' key naming the strategy it is for")
    if named != spec.name and not (":" in spec.name and named == spec.name.rpartition(":")[2]):
        raise SimkitError(f"{where}: holds parameters for strategy {named!r}, not "
                          f"{spec.name!r}")
    if "game" in data and data["game"] != game:
        raise SimkitError(f"{where}: holds parameters for game {data['game']!r}, not {game!r}")
    table = data.get("params", {})
    if not isinstance(table, dict):
        raise SimkitError(f"{where}: 'params' must be a table of NAME = number")
    known = {p.name: p for p in spec.params}
    values: dict[str, float] = {}
    for key, value in table.items():
        if key not in known:
            raise SimkitError(f"{where}: params.{key}: strategy '{spec.name}' has no such "
                              f"parameter; known: {', '.join(known) or 'none'}")
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise SimkitError(f"{where}: params.{key} = {value!r}: not a number")
        p = known[key]
        if not p.lo <= value <= p.hi:
            raise SimkitError(f"{where}: params.{key} = {value}: out of range "
                              f"[{p.lo:g}, {p.hi:g}]")
        values[key] = float(value)
    return values


def write_text_atomic(path: Path, text: str) -> None:
    """Write aside, then rename into place: never a half-written file."""
    tmp = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with naming(tmp):
            tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise SimkitError(f"{on_disk(exc, path)}: cannot write it") from None
