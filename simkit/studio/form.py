"""The game's config as form fields: every key `simkit show` lists, its kind, the
choices of a named option and whether it is a placeholder."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, replace
from typing import Any

from simkit.config import GameConfig, flatten
from simkit.errors import ConfigError, SimkitError
from simkit.games import Game
from simkit.ladders import load_ladder

CHOICES = "must be one of: "  # how `Reader.choice` names a named option's choices
_PROBE = "\x00not-a-choice"


@dataclass(frozen=True)
class Field:
    """One config key as the form shows it."""

    key: str
    value: Any
    kind: str  # "number", "bool", "choice", "text" or "list"
    choices: tuple[str, ...] = ()
    placeholder: bool = False

    @property
    def text(self) -> str:
        """The value as typed in the form (and after `--set KEY=`)."""
        return self.value if isinstance(self.value, str) else json.dumps(self.value)

    @property
    def section(self) -> str:
        return self.key.split(".", 1)[0]


def fields(game: Game, config: GameConfig) -> list[Field]:
    """Every key of `config` as a field, in `simkit show`'s order."""
    marks = set(config.placeholders())
    out = []
    for key, value in flatten(config.data):
        mark = any(key == m or key.startswith(m + ".") for m in marks)
        choices = _choices(game, config, key, value)
        out.append(Field(key, value, "choice" if choices else _kind(value), choices, mark))
    return out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    return "list"


def _choices(game: Game, config: GameConfig, key: str, value: Any) -> tuple[str, ...]:
    """A named option's documented choices, as the game's own check names them (a value
    no game takes is tried; its one-line error lists the choices)."""
    if not isinstance(value, str):
        return ()
    from simkit.config import apply_override

    data = copy.deepcopy(config.data)
    try:
        apply_override(data, f"{key}={json.dumps(_PROBE)}")
        game.compile(replace(config, data=data, overrides=()))
    except ConfigError as exc:
        if exc.problem.startswith(CHOICES):
            return tuple(c.strip() for c in exc.problem[len(CHOICES):].split(","))
    except SimkitError:
        pass
    return ()


def override(field: Field, text: str) -> str:
    """The `--set` argument that gives `field` the value typed as `text`: a named option
    or a text is quoted, anything else is read as TOML (as `--set` reads it)."""
    text = text.strip()
    if field.kind in ("choice", "text"):
        return f"{field.key}={json.dumps(text)}"
    return f"{field.key}={text}"


def players_offered(game: Game) -> list[tuple[str, str]]:
    """The players the page offers, as (token, label): the game's strategies, then each
    rung of its skill ladder (docs/ladder.md), whose token alone puts that rung's player
    in every seat ("tuned planner players")."""
    offered = [(name, name) for name in game.strategies()]
    try:
        rungs = load_ladder(game.name).rungs
    except SimkitError:  # a game without a ladder offers its strategies
        rungs = ()
    known = {token for token, _ in offered}
    offered += [(r.strategy, f"rung: {r.name} players") for r in rungs
                if r.strategy not in known]
    return offered
