"""What the Python API's functions share: Python arguments (dicts, lists, paths) turned
into the command line's (`--set`, `--param`, `--vary`, `--set-target`), the output folder,
the progress bar and the stopping rule."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError

Overrides = Mapping[str, Any] | None
Params = Mapping[str, Mapping[str, float]] | None


def value_text(v: Any) -> str:
    """A Python value as `--set` reads it (TOML)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    return repr(v)


def set_args(set_: Overrides) -> tuple[str, ...]:
    return tuple(f"{k}={value_text(v)}" for k, v in (set_ or {}).items())


def param_args(params: Params) -> tuple[str, ...]:
    return tuple(f"{s}.{k}={v!r}" for s, values in (params or {}).items()
                 for k, v in values.items())


def strategy_names(strategies: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(strategies, str):
        return tuple(s.strip() for s in strategies.split(",") if s.strip())
    return tuple(strategies)


def out_folder(out: str | Path | None, what: str) -> Path:
    return Path(out) if out is not None else Path(tempfile.mkdtemp(prefix=f"simkit-{what}-"))


def progress_bar(show: bool, total: int, label: str, unit: str = "games") -> Any:
    from contextlib import nullcontext

    from simkit.progress import Progress

    return Progress(total, label, unit=unit) if show else nullcontext(None)


def say_compiling(show: bool, game: Any, lineups: Any = ()) -> None:
    if show:
        from simkit.progress import say_if_compiling

        say_if_compiling(game, lineups)


def bar_update(bar: Any) -> Any:
    return None if bar is None else bar.update


def as_path(p: str | Path | None) -> Path | None:
    return None if p is None else Path(p)


def target_args(values: Mapping[str, float] | None) -> tuple[str, ...]:
    return tuple(f"{k}={v}" for k, v in (values or {}).items())


def stop_rule(until_sure: bool, precision: float | None, targets: str | Path | None,
               set_targets: Mapping[str, float] | None) -> Any:
    from simkit.stopping import StopRule

    if precision is not None and not until_sure:
        raise SimkitError("precision only applies with until_sure=True")
    return (StopRule(precision, as_path(targets), target_args(set_targets)) if until_sure
            else None)


def vary_args(vary: Mapping[str, Any]) -> tuple[str, ...]:
    out = []
    for key, values in vary.items():
        text = values if isinstance(values, str) else ",".join(value_text(v) for v in values)
        out.append(f"{key}={text}")
    return tuple(out)
