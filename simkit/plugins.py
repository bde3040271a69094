"""Plug-in strategies: a designer's own Python function, compiled apart from the kernels.

A plug-in is a plain function `choose(opts, n, pub, params, state) -> int` (README, "Your
own strategies"), named on the command line as `path/to/file.py:function` or registered
under the entry-point group `simkit.strategies` as `GAME:NAME = module:function`.

simkit compiles it with numba as a C function of the fixed signature
`simkit.kernels.plugin_call.PLUGIN_SIG`, rebuilding the arrays from the pointers inside. The kernel
gets only the C function's address, as data: the seat's strategy id is minus the address
(built-in ids are >= 0). The kernel is therefore compiled once for every plug-in, and
adding or editing a plug-in costs only the plug-in's own compile.

Parameters. A plug-in declares its tunable parameters next to it, in its module:
`<FUNCTION>_PARAMS` for that function, else `PARAMS` for every function of the file; a
dict NAME -> default, or NAME -> (default, lo, hi) or (default, lo, hi, "doc"), or a
sequence of `strategies.Param` as the built-ins use. The function reads them from its
`params` argument in that order (`params[0]` is the first). They reach it through the
seat's parameter vector the kernel already passes, so `--param FUNCTION.NAME=VALUE` and
`FILE.py:FUNCTION@params.toml` change play without compiling anything again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError
from simkit.players import MAX_PARAMS, Param, StrategySpec

ENTRY_POINT_GROUP = "simkit.strategies"
ARGUMENTS = ("opts", "n", "pub", "params", "state")


@dataclass(frozen=True)
class Plugin:
    """A compiled plug-in: where it came from, its content hash and its C entry point."""

    token: str  # as named in --strategies (the lineup's name for it)
    source: str  # the file (or entry point) it was loaded from, for messages
    sha256: str  # of the file's contents: a changed plug-in is a different run
    address: int  # of the compiled C function
    cfunc: Any  # keeps the compiled code alive for as long as the process runs
    params: tuple[Param, ...] = ()  # as the file declares them (module docstring)

    def spec(self) -> StrategySpec:
        """The plug-in as a strategy: kernel id -address and its declared parameters."""
        return StrategySpec(self.token, -self.address, f"plug-in from {self.source}",
                            self.params)


# (source, function name, content hash) -> Plugin: one compile per process, and the
# compiled code stays alive while kernels may hold its address.
_LOADED: dict[tuple[str, str, str], Plugin] = {}


def is_file_token(token: str) -> bool:
    """True for `path/to/file.py:function`."""
    path, colon, name = token.rpartition(":")
    return bool(colon) and path.endswith(".py") and bool(name)


def load_file(token: str) -> Plugin:
    """Compile the function `token` (`path/to/file.py:function`) names."""
    raw_path, _, name = token.rpartition(":")
    path = Path(raw_path)
    where = f"plug-in {raw_path}"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SimkitError(f"{where}: no such file") from None
    except OSError as exc:
        raise SimkitError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    digest = hashlib.sha256(data).hexdigest()
    key = (str(path.resolve()), name, digest)
    if key in _LOADED:
        return _LOADED[key]
    module_name = f"simkit_plugin_{digest[:16]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SimkitError(f"{where}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise SimkitError(f"{where}: syntax error at line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:  # noqa: BLE001 - any error in the user's file is reported
        raise SimkitError(f"{where}: importing it failed: {type(exc).__name__}: {exc}") from None
    if not hasattr(module, name):
        found = sorted(k for k, v in vars(module).items()
                       if inspect.isfunction(v) and v.__module__ == module_name)
        raise SimkitError(f"{where}: has no function '{name}' (functions in it: "
                          f"{', '.join(found) or 'none'})")
    params = declared_params(vars(module), name, f"{where}:{name}")
    plugin = compile_plugin(token, getattr(module, name), f"{where}:{name}", digest, params)
    _LOADED[key] = plugin
    return plugin


def declared_params(namespace: dict[str, Any], function: str, where: str) -> tuple[Param, ...]:
    """The parameters a plug-in module declares for `function` (module docstring), checked;
    every problem is one SimkitError naming `where` and the key."""
    label = f"{function}_PARAMS"
    table = namespace.get(label)
    if table is None:
        label, table = "PARAMS", namespace.get("PARAMS")
    if table is None:
        return ()
    shape = (f"{where}: {label} must be a dict of NAME = default or (default, lo, hi) or "
             "(default, lo, hi, \"doc\"), or a list of strategies.Param")
    tune: dict[str, bool] = {}  # a Param may be a rule tuning leaves alone (`ties`)
    if isinstance(table, dict):
        items = list(table.items())
    elif isinstance(table, list | tuple) and all(isinstance(p, Param) for p in table):
        items = [(p.name, (p.default, p.lo, p.hi, p.doc)) for p in table]
        tune = {p.name: p.tune for p in table}
    else:
        raise SimkitError(shape)
    if len(items) > MAX_PARAMS:
        raise SimkitError(f"{where}: {label} declares {len(items)} parameters; a strategy "
                          f"takes at most {MAX_PARAMS}")
    out = []
    for name, value in items:
        if not isinstance(name, str) or not name.isidentifier():
            raise SimkitError(f"{where}: {label}: parameter name {name!r} is not a name "
                              "(letters, digits and _)")
        key = f"{label}[{name!r}]"
        if isinstance(value, list | tuple):
            if len(value) not in (3, 4) or (len(value) == 4 and not isinstance(value[3], str)):
                raise SimkitError(f"{where}: {key} = {value!r}: expected a number, "
                                  "(default, lo, hi) or (default, lo, hi, \"doc\")")
            numbers, doc = value[:3], value[3] if len(value) == 4 else ""
        else:
            numbers, doc = (value, -math.inf, math.inf), ""
        for what, v in zip(("default", "lo", "hi"), numbers, strict=True):
            if isinstance(v, bool) or not isinstance(v, int | float) or math.isnan(v) \
                    or (what == "default" and not math.isfinite(v)):
                raise SimkitError(f"{where}: {key}: the {what} {v!r} is not a number")
        default, lo, hi = (float(v) for v in numbers)
        if not lo <= default <= hi:
            raise SimkitError(f"{where}: {key}: the default {default:g} is outside "
                              f"[{lo:g}, {hi:g}]")
        out.append(Param(name, default, lo, hi, doc, tune.get(name, True)))
    return tuple(out)


def find_entry_point(game: str, name: str) -> Any | None:
    """The entry point registered as `GAME:NAME` in group simkit.strategies, if any."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == f"{game}:{name}":
            return ep
    return None


def entry_point_names(game: str) -> list[str]:
    """Names registered for `game` in group simkit.strategies."""
    prefix = f"{game}:"
    return sorted(ep.name[len(prefix):] for ep in entry_points(group=ENTRY_POINT_GROUP)
                  if ep.name.startswith(prefix))


@dataclass(frozen=True)
class Listed:
    """An entry-point plug-in as `simkit strategies` lists it: imported, not compiled."""

    name: str  # NAME of `GAME:NAME`
    origin: str  # `GAME:NAME = module:function`, and the package that registers it
    summary: str  # the first line of the function's docstring
    problem: str | None = None  # why it cannot be loaded (one line), or None
    params: tuple[Param, ...] = ()


def _origin(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    package = f" (package {dist.name} {dist.version})" if dist is not None else ""
    return f"entry point {ep.name} = {ep.value}{package}"


def list_entry_points(game: str) -> list[Listed]:
    """The plug-ins registered for `game`, each imported (to read its docstring) but not
    compiled; one that cannot be loaded is listed with its problem instead of raising."""
    prefix = f"{game}:"
    found = sorted((ep for ep in entry_points(group=ENTRY_POINT_GROUP)
                    if ep.name.startswith(prefix)), key=lambda ep: ep.name)
    out = []
    for ep in found:
        name, origin = ep.name[len(prefix):], _origin(ep)
        try:
            fn = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken package must not stop the list
            problem = " ".join(f"{type(exc).__name__}: {exc}".split())
            out.append(Listed(name, origin, "", f"loading it failed: {problem}"))
            continue
        if not inspect.isfunction(fn):
            out.append(Listed(name, origin, "", f"is a {type(fn).__name__}, not a function"))
            continue
        try:
            params = declared_params(_namespace(ep, fn), (ep.attr or "").rpartition(".")[2], origin)
        except SimkitError as exc:
            out.append(Listed(name, origin, "", str(exc).removeprefix(origin + ": ")))
            continue
        doc = inspect.getdoc(fn) or ""
        summary = " ".join(doc.split("\n\n")[0].split())
        out.append(Listed(name, origin, summary if len(summary) <= 90
                          else summary[:89].rstrip() + "…", None, params))
    return out


def _namespace(ep: Any, fn: Callable[..., Any]) -> dict[str, Any]:
    """The module an entry point names (where its parameters are declared)."""
    module = sys.modules.get(ep.module)
    return vars(module) if module is not None else fn.__globals__


def load_entry_point(ep: Any, token: str) -> Plugin:
    """Compile the function an entry point names (hashing the file that defines it)."""
    where = f"plug-in entry point {ep.name} = {ep.value}"
    try:
        fn = ep.load()
    except Exception as exc:  # noqa: BLE001 - any error in the user's package is reported
        raise SimkitError(f"{where}: loading it failed: {type(exc).__name__}: {exc}") from None
    try:
        digest = hashlib.sha256(Path(inspect.getsourcefile(fn) or "").read_bytes()).hexdigest()
    except (TypeError, OSError):
        digest = hashlib.sha256(ep.value.encode()).hexdigest()
    key = (ep.value, token, digest)
    if key not in _LOADED:
        params = declared_params(_namespace(ep, fn), (ep.attr or "").rpartition(".")[2], where)
        _LOADED[key] = compile_plugin(token, fn, where, digest, params)
    return _LOADED[key]


def compile_plugin(token: str, fn: Callable[..., Any], where: str, digest: str,
                   params: tuple[Param, ...] = ()) -> Plugin:
    """Check `fn`'s signature and compile it into a C function of PLUGIN_SIG."""
    if not inspect.isfunction(fn):
        raise SimkitError(f"{where}: is a {type(fn).__name__}, not a function "
                          f"def {getattr(fn, '__name__', 'choose')}({', '.join(ARGUMENTS)})")
    arguments = inspect.signature(fn).parameters.values()
    positional = [a for a in arguments
                  if a.kind in (a.POSITIONAL_ONLY, a.POSITIONAL_OR_KEYWORD)]
    if len(positional) != len(ARGUMENTS) or len(positional) != len(arguments):
        raise SimkitError(f"{where}: takes {len(arguments)} argument(s); a strategy takes 5: "
                          f"({', '.join(ARGUMENTS)})")
    from numba import carray, cfunc, njit
    from numba.core.errors import NumbaError

    from simkit.kernels.plugin_call import PLUGIN_SIG

    user = njit(fn)

    def entry(opts, n, n_cols, pub, pub_len, params, n_params, state):  # pragma: no cover
        return user(carray(opts, (n, n_cols)), n, carray(pub, pub_len),
                    carray(params, n_params), carray(state, 1))

    try:
        compiled = cfunc(PLUGIN_SIG)(entry)
    except NumbaError as exc:
        raise SimkitError(f"{where}: numba cannot compile it{numba_problem(exc, fn)}") from None
    return Plugin(token, where, digest, int(compiled.address), compiled, params)


def numba_problem(exc: Exception, fn: Callable[..., Any]) -> str:
    """numba's many-line typing error, cut to where in the user's file and what went wrong."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in str(exc).splitlines()]
    lines = [line for line in lines if line and not line.startswith("Failed in")]
    if not lines:
        return ""
    what = lines[0]
    if "from none to int64" in what:
        what = ("it never returns an option row: it has no `return ROW` (a strategy that "
                "only raises cannot play)" if not _returns_a_value(fn) else
                "it must return an option row (an int) on every path, but may return None")
    elif what.endswith(":") and len(lines) > 1:  # "No implementation ... for signature:"
        what = f"{what} {lines[1].lstrip('> ')}"
    file = inspect.getsourcefile(fn) or ""
    where = next((m.group(1) for line in lines
                  if (m := re.match(rf"During: .* at {re.escape(file)} \((\d+)\)", line))),
                 None)
    return f" (line {where}): {what}" if where else f": {what}"


def _returns_a_value(fn: Callable[..., Any]) -> bool:
    """Whether `fn`'s own body has a `return VALUE` anywhere (nested functions aside)."""
    import ast
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return True  # cannot tell: keep the general message
    body = tree.body[0]
    stack = list(ast.iter_child_nodes(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def function_of(token: str) -> str | None:
    """The function a `FILE.py:FUNCTION[@params.toml]` token names, else None."""
    base = token.partition("@")[0]
    return base.rpartition(":")[2] if is_file_token(base) else None


def param_targets(values: dict[str, dict[str, float]],
                  tokens: list[str]) -> dict[str, dict[str, float]]:
    """--param values with a plug-in's short name (`FUNCTION.NAME=VALUE`) moved to the
    playing `FILE.py:FUNCTION` token it means (`tokens`: the lineup). A playing token's
    own name (a built-in, or a whole plug-in token) always means itself."""
    out: dict[str, dict[str, float]] = {}
    for key, params in values.items():
        matches = [t for t in dict.fromkeys(tokens) if function_of(t) == key]
        if key in tokens or not matches:
            out.setdefault(key, {}).update(params)
        elif len(matches) == 1:
            out.setdefault(matches[0], {}).update(params)
        else:
            raise SimkitError(f"--param {key}.{next(iter(params))}: several plug-ins play as "
                              f"'{key}' ({', '.join(matches)}); name the whole token, e.g. "
                              f"--param {matches[0]}.{next(iter(params))}=VALUE")
    return out


def load(game: str, token: str) -> Plugin | None:
    """The plug-in `token` names for `game` (a file token or a registered name), or None."""
    if is_file_token(token):
        return load_file(token)
    ep = find_entry_point(game, token)
    return None if ep is None else load_entry_point(ep, token)
