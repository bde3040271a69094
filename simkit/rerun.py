"""A finished run's game, config, lineup and seed, as the options of another command.

`simkit value RUN` plays with a run's own settings, and a report's next steps ("try:
`simkit balance ...`") name them; both read them back from the command the run's
manifest records (`RunSpec.command`), which is what reproduces the run.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError


@dataclass(frozen=True)
class RunSettings:
    """What a run was played with, as the commands that take a lineup spell it."""

    game: str  # as the command named it: a built-in's name or a game folder's path
    players: int
    strategies: tuple[str, ...]
    seed: int
    config_path: str | None = None
    overrides: tuple[str, ...] = ()
    params: tuple[str, ...] = ()

    def args(self) -> list[str]:
        """`GAME --players N --strategies A,B --seed S [--config F] [--set K=V]...`."""
        parts = [self.game, "--players", str(self.players), "--strategies",
                 ",".join(self.strategies), "--seed", str(self.seed)]
        if self.config_path:
            parts += ["--config", self.config_path]
        for item in self.overrides:
            parts += ["--set", item]
        for item in self.params:
            parts += ["--param", item]
        return parts

    def command(self, verb: str, *extra: str) -> str:
        """`simkit VERB <these settings> EXTRA...` as one shell line."""
        return shlex.join(["simkit", verb, *self.args(), *extra])


_TAKES_VALUE = {"--players", "--strategies", "--seed", "--config", "--set", "--param",
                "--games", "--out", "--precision", "--targets", "--set-target",
                "--chunk-size", "--threads", "--workers", "--scheduler", "--stronger"}


def settings_of(manifest: dict[str, Any]) -> RunSettings:
    """The settings of the run whose manifest this is (from its command; from the
    manifest's own fields where the command does not say)."""
    strategies = tuple(str(s["name"]) for s in manifest.get("strategies", []))
    config = manifest.get("config") or {}
    found: dict[str, Any] = {"game": str(manifest.get("game")),
                             "players": int(manifest.get("players", len(strategies))),
                             "strategies": strategies, "seed": int(manifest.get("seed", 0)),
                             "overrides": tuple(config.get("overrides") or ()), "params": ()}
    try:
        words = shlex.split(str(manifest.get("command", "")))
    except ValueError:
        words = []
    if words[:2] == ["simkit", "run"] and len(words) > 2:
        found["game"] = words[2]
        sets: list[str] = []
        params: list[str] = []
        i = 3
        while i < len(words):
            word, value = words[i], words[i + 1] if i + 1 < len(words) else ""
            if word == "--config":
                found["config_path"] = value
            elif word == "--set":
                sets.append(value)
            elif word == "--param":
                params.append(value)
            i += 2 if word in _TAKES_VALUE else 1
        found["overrides"], found["params"] = tuple(sets), tuple(params)
    return RunSettings(**found)


def run_folder(path: str | Path) -> Path | None:
    """`path` as a finished run folder (it holds manifest.json), or None."""
    folder = Path(path)
    return folder if (folder / "manifest.json").is_file() else None


def refuse_with_run(given: Sequence[str], folder: Path) -> None:
    """A run folder fixes the lineup: options that would change it are an error."""
    if given:
        raise SimkitError(f"{folder} is a run folder, which sets the game, config, lineup and "
                          f"seed; drop {', '.join(given)} (or name the game instead of the "
                          "run)")
