"""Per-game report hooks: the small game-specific part of a report, keyed by game name.

A game's hooks say which components it has (cards, witches, spaces... and how a results
row shows that a player had or used one), which placeholder marks matter for a run, and
which extra sections tell a designer something about that game. Everything else in the
report is generic. To add a game: write `reports/<module>.py` with a `GameHooks` subclass
decorated `@register("<game name>")`, and list the module in `_MODULES`. A game written
to the game API (docs/new-game.md) names its class `HOOKS` in its own `report.py`.

Hooks that read their numbers only through `ctx.source` (the metric functions accept it in
place of a frame), `ctx.columns` and `ctx.present`, never `ctx.frame` or `ctx.games`, and
that ask for the same queries whatever the data (filter groups after the fact rather than
choosing queries from the data), set `summary_ready = True`: their components and
sections then also work on a `--summary-only` run, with the same numbers.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from reports.document import Section
from reports.load import Run
from reports.metrics import Component
from reports.source import RowsSource, Source
from reports.targets import Targets
from simkit.summary import Query

_MODULES = {"cauldron-master": "reports.cauldron_master", "carnuta": "reports.carnuta",
            "inori": "reports.inori"}
_REGISTRY: dict[str, type[GameHooks]] = {}


@dataclass
class Context:
    """What a hook may use: the run, its results and the generic per-game frame, or (for
    every run, summary-only too) `source`, `columns` and `present`."""

    run: Run
    frame: pl.DataFrame | None  # one row per game and seat (None: a summary-only run)
    games: pl.DataFrame | None  # metrics.per_game(frame), when a hook needs it
    targets: Targets
    seat_label: Callable[[int], str]
    source: Source | None = None  # default: the rows of `frame`

    def __post_init__(self) -> None:
        if self.source is None:
            if self.frame is None:
                raise ValueError("a Context needs a frame or a source")
            self.source = RowsSource(self.frame)

    @property
    def n_players(self) -> int:
        return self.run.n_players

    @property
    def columns(self) -> list[str]:
        """The run's result columns."""
        assert self.source is not None
        return self.source.columns

    def present(self, column: str) -> list[Any]:
        """The values `column` takes in the results (category columns as text)."""
        assert self.source is not None
        table = self.source.table(Query.of([column], cluster=None))
        return table.frame[column].to_list()


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class GameHooks:
    """Defaults that suit any game: no components, no extra sections."""

    length_unit = "rounds"  # what the results' `rounds` column counts
    seat_note = "Seat 0 is the first player."
    summary_ready = False  # components and sections work from ctx.source alone (see above)

    def seat_label(self, seat: int) -> str:
        return f"{ordinal(seat + 1)} player"

    def components(self, ctx: Context) -> list[Component]:
        return []

    def sections(self, ctx: Context) -> list[Section]:
        return []

    def placeholders(self, run: Run) -> tuple[list[tuple[str, str]], list[str]]:
        """(placeholder values this run used as (label, value), notes on marks left out)."""
        keys = run.manifest["config"].get("placeholders") or []
        return [describe_placeholder(run.resolved, k) for k in keys], []


def used_placeholders(manifest: dict[str, Any]) -> list[tuple[str, str]]:
    """The placeholder values a run used, as its report lists them (what a run does not
    use, such as an optional witch left out, is not counted)."""
    from pathlib import Path

    from reports.load import Run

    run = Run(Path("."), manifest, None)
    return hooks_for(str(manifest["game"])).placeholders(run)[0]


def register(game: str) -> Callable[[type[GameHooks]], type[GameHooks]]:
    def deco(cls: type[GameHooks]) -> type[GameHooks]:
        _REGISTRY[game] = cls
        return cls
    return deco


def hooks_for(game: str) -> GameHooks:
    """The hooks for `game`: a built-in game's module, the `HOOKS` class of a plug-in
    game's `report.py` (docs/new-game.md), else the generic defaults."""
    if game not in _REGISTRY and game in _MODULES:
        importlib.import_module(_MODULES[game])
    if game not in _REGISTRY and game not in _MODULES:
        _REGISTRY[game] = _plugin_hooks(game)
    return _REGISTRY.get(game, GameHooks)()


def _plugin_hooks(game: str) -> type[GameHooks]:
    from simkit.errors import SimkitError
    from simkit.games import get_game

    try:
        found = get_game(game)
    except SimkitError:  # a run of a game no longer installed: the generic report
        return GameHooks
    # A report.py that is there but fails to import is an error, said in one line: left
    # out silently, its sections and components would just be missing from the report.
    module = getattr(found, "optional", lambda _: None)("report")
    hooks = getattr(module, "HOOKS", GameHooks) if module is not None else GameHooks
    if not (isinstance(hooks, type) and issubclass(hooks, GameHooks)):
        raise SimkitError(f"{module.__file__}: HOOKS must be a reports.hooks.GameHooks "
                          "subclass")
    return hooks


def _title(key: str) -> str:
    return key.replace("_", " ").capitalize()


def _compact(value: Any) -> str:
    """A config value in a line: scalars as JSON, tables as "key value" pairs."""
    if isinstance(value, dict):
        items = [(k.replace("_", " "), v) for k, v in value.items()
                 if k not in ("id", "name", "placeholder", "optional")]
        if all(not isinstance(v, dict | list) for _, v in items):
            return ", ".join(f"{k} {_compact(v)}" for k, v in items)
        return " · ".join(f"{k}: {_compact(v)}" for k, v in items)
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return "; ".join(_compact(v) for v in value)
    return json.dumps(value, ensure_ascii=False)


def describe_placeholder(resolved: dict[str, Any], key: str) -> tuple[str, str]:
    """A placeholder mark as (readable label, value), e.g. ("Ingredients › Bat's Heart ›
    scores", "[4, 10, 18, 28]"). List entries are found by `id` and shown by `name`."""
    node: Any = resolved
    labels: list[str] = []
    for depth, part in enumerate(key.split(".")):
        if isinstance(node, dict) and part in node:
            node = node[part]
            labels.append(_title(part) if depth == 0 else part.replace("_", " "))
        elif isinstance(node, list):
            match = next((e for e in node if isinstance(e, dict) and str(e.get("id")) == part),
                         None)
            if match is None and part.isdigit() and int(part) < len(node):
                match = node[int(part)]
            if match is None:
                return key, "(not in the resolved config)"
            node = match
            labels.append(str(match.get("name", part)) if isinstance(match, dict) else part)
        else:
            return key, "(not in the resolved config)"
    return " › ".join(labels), _compact(node)
