"""numba's failure to compile a game, said in one line at the game's own file, line and
function.

numba names the innermost place it stopped first, then its callers. When that place is
in the game's folder, it is the line to name. When it is simkit's loop (a template
compiled into the game, simkit/kernels/templates.py), the loop's line calls one of the
game's functions that does not fit it (a result of the wrong type, other arguments, a
name it lacks): that function is named, at its own file and line.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from simkit.gamekit.binding import LOOP
from simkit.kernels.templates import BATCH, ROLLOUT

TEMPLATES = frozenset(t.name for t in (LOOP, ROLLOUT, BATCH))

# numba's deepest reasons that say little to someone new to it, said in the game's terms.
_PLAIN = (
    ("Only accept returning of array passed into the function as argument",
     "a rule makes a new array (np.zeros, np.empty, a slice copy...), which the game's "
     "compiled rules cannot: keep it in a slot of hid or cnt (docs/new-game.md)"),
    ("NRT required but not enabled",
     "a rule makes a new array, which the game's compiled rules cannot: keep it in a slot "
     "of hid or cnt (docs/new-game.md)"),
)


def compile_error_line(folder: Path, namespace: Mapping[str, Any], message: str) -> str:
    """numba's `message` about the game in `folder` (whose play.py namespace is
    `namespace`) as `file:line: function: numba cannot compile the game: <reason>`."""
    message = re.sub(r"\x1b\[[0-9;]*m", "", message)
    places = [(m.group(1) or m.group(3), int(m.group(2) or m.group(4))) for m in
              re.finditer(r'File "([^"]+)", line (\d+)|\bat (/\S+\.py) \((\d+)\)', message)]
    reason = _reason(message)
    mine = [p for p in places if Path(p[0]).resolve().parent == folder]
    if mine:
        file, line = mine[0]
        return _said(file, line, _enclosing(file, line), reason)
    if places and Path(places[0][0]).name in TEMPLATES:
        blamed = _blame_callee(namespace, folder, *places[0], message, reason)
        if blamed is not None:
            return blamed
    file, line = (places or [(str(folder / "rules.py"), 0)])[0]
    return _said(file, line, _enclosing(file, line), reason)


def shown(file: str) -> str:
    """A file as messages name it: relative to the working folder when inside it (numba
    names some places in full)."""
    path = Path(file).resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else file


def _said(file: str, line: int, function: str | None, reason: str) -> str:
    place = f"{shown(file)}:{line if line else '?'}:"
    return f"{place} {function + ': ' if function else ''}numba cannot compile the game: {reason}"


def _reason(message: str) -> str:
    """numba's first line that says what is wrong, or a plainer one."""
    plain = next((plain for known, plain in _PLAIN if known in message), None)
    if plain is not None:
        return plain
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        if ln.startswith(("During:", "File", "Failed in")):
            continue
        if ln.endswith("found for signature:") and i + 1 < len(lines):
            return f"{ln} {lines[i + 1].removeprefix('>>> ')}"
        return ln
    return message.strip()


def _blame_callee(namespace: Mapping[str, Any], folder: Path, file: str, line: int,
                  message: str, reason: str) -> str | None:
    """The game's function that the loop's line `file:line` calls, named at its own place
    with what does not fit; None if the line calls none."""
    code = _source_line(file, line)
    for name in re.findall(r"\b([A-Za-z_]\w*)\s*\(", code):
        fn = getattr(namespace.get(name), "py_func", None)
        if fn is None or Path(inspect.getfile(fn)).resolve().parent != folder:
            continue
        where, first = inspect.getfile(fn), _def_line(fn)
        missing = re.search(r"NameError: name '(\w+)' is not defined", message)
        if missing:
            at = _first_use(fn, missing.group(1))
            return _said(where, at or first, name, f"name '{missing.group(1)}' is not "
                         f"defined (import it into {Path(where).name})")
        bind = re.search(r"to signature '(\([^']*\))' due to \"TypeError: ([^\"]+)\"", message)
        if bind:
            call = code.strip()
            return _said(where, first, name, f"simkit's loop calls it as `{call}`, but it "
                         f"is defined as {name}{bind.group(1)} ({bind.group(2)}); "
                         "docs/new-game.md lists each function's arguments")
        stored = re.search(r"setitem\(.*, ([^,()]+(?:\[[^\]]*\])?(?:\([^)]*\))?)\)\s*$",
                           reason)
        if stored and "=" in code:
            kind = re.sub(r"^(Literal\[str\]\(.*\)|unicode_type)$", "text", stored.group(1))
            return _said(where, first, name, f"simkit's loop stores what it returns in a "
                         f"number array (`{code.strip()}`), but it returns {kind}")
        return _said(where, first, name, f"{reason} (where simkit's loop calls it: "
                     f"`{code.strip()}`)")
    return None


def _source_line(file: str, line: int) -> str:
    try:
        return Path(file).read_text().splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


def _enclosing(file: str, line: int) -> str | None:
    """The function whose body holds `file:line`, by the nearest `def` above it."""
    try:
        lines = Path(file).read_text().splitlines()[:line]
    except OSError:
        return None
    for text in reversed(lines):
        found = re.match(r"\s*def (\w+)\(", text)
        if found:
            return found.group(1)
    return None


def _def_line(fn: Any) -> int:
    """The line of `fn`'s `def` (its code starts at its first decorator)."""
    try:
        source, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return fn.__code__.co_firstlineno
    return next((first + i for i, text in enumerate(source)
                 if text.lstrip().startswith("def ")), first)


def _first_use(fn: Any, name: str) -> int | None:
    """The line of `fn`'s source where `name` first appears."""
    try:
        source, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    return next((first + i for i, text in enumerate(source)
                 if re.search(rf"\b{re.escape(name)}\b", text)), None)
