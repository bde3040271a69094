"""Validate a run before any game is played: what it is (`RunSpec`), its lineup and
parameters, and the checks every command shares (`prepare`)."""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit import plugins
from simkit.errors import SimkitError
from simkit.games import Game, Lineup, get_game
from simkit.paramfile import read_params, split_token
from simkit.results import GAMES_FILE, SUMMARY_DATA_FILE
from simkit.stopping import StopRule
from simkit.summary import Query

DEFAULT_CHUNK = 1 << 17  # games per chunk, at most, unless the run says (chunk_games)
CHUNK_BYTES = 10 << 20  # a chunk's result arrays, at most (chunk_games)
MIN_AUTO_CHUNK = 1 << 13
MAX_SEED = (1 << 64) - 1
MAX_GAMES = 10**12  # game indices are int64 in the kernels; a trillion is days of play


class Settings:
    """What every study's spec carries after its own leading fields: the config file and
    its --set overrides, and where the study has them, strategy parameters, the stopping
    rule and summary-only. A spec without one of these reads the default below.

    `setting_args()` gives the command-line options that reproduce them, the same in every
    command a study writes into its record."""

    overrides: tuple[str, ...]
    config_path: str | None
    params: tuple[str, ...] = ()
    until_sure: StopRule | None = None
    summary_only: bool = False

    def setting_args(self) -> list[str]:
        return option_args(self.config_path, self.overrides, self.params, self.until_sure,
                           self.summary_only)


@dataclass(frozen=True)
class PlaySpec(Settings):
    """What every study that plays a lineup over many games shares (a run, a sweep, a
    tournament, a value run), the first fields of each: the game, the player count, the
    strategies (one per seat, seat 0 first, or one for all; NAME@params.toml), the games
    and the master seed."""

    game: str
    players: int
    strategies: tuple[str, ...]
    games: int
    seed: int

    def play_args(self, out: str) -> list[str]:
        """These fields, and the output folder, as every such command takes them."""
        return ["--players", str(self.players), "--strategies", ",".join(self.strategies),
                "--games", str(self.games), "--seed", str(self.seed), "--out", out]


@dataclass(frozen=True)
class RunSpec(PlaySpec):
    """Everything that determines a run's results (and nothing that does not)."""

    overrides: tuple[str, ...] = ()
    params: tuple[str, ...] = ()  # "strategy.param=value"
    config_path: str | None = None  # a config file other than configs/<game>.toml
    until_sure: StopRule | None = None  # play in rounds until the verdicts are decided
    summary_only: bool = False  # keep exact per-chunk totals (summary.json), not rows

    def command(self, out: str) -> str:
        """The shell command that reproduces this run."""
        return shlex.join(["simkit", "run", self.game, *self.play_args(out),
                           *self.setting_args()])


def option_args(config_path: str | None, overrides: Sequence[str], params: Sequence[str],
                until_sure: StopRule | None, summary_only: bool = False) -> list[str]:
    """The command-line options that reproduce these settings (run and sweep share them)."""
    parts: list[str] = ["--summary-only"] if summary_only else []
    if config_path:
        parts += ["--config", config_path]
    for item in overrides:
        parts += ["--set", item]
    for item in params:
        parts += ["--param", item]
    if until_sure is not None:
        parts.append("--until-sure")
        if until_sure.precision is not None:
            parts += ["--precision", f"{until_sure.precision:g}"]
        if until_sure.targets is not None:
            parts += ["--targets", str(until_sure.targets)]
        for item in until_sure.set_targets:
            parts += ["--set-target", item]
    return parts


def parse_params(items: Sequence[str]) -> dict[str, dict[str, float]]:
    """`strategy.param=value` items -> {strategy: {param: value}}."""
    result: dict[str, dict[str, float]] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        strategy, dot, param = key.strip().rpartition(".")  # a token may hold dots
        if not sep or not dot or not param:
            raise SimkitError(f"--param {item!r}: expected STRATEGY.PARAM=VALUE, "
                              "e.g. planner.discount=0.5")
        try:
            value = float(raw)
        except ValueError:
            raise SimkitError(f"--param {item!r}: {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise SimkitError(f"--param {item!r}: {raw!r} is not a finite number")
        result.setdefault(strategy, {})[param] = value
    return result


def build_lineup(game: Game, strategies: Sequence[str], players: int,
                 params: Sequence[str] = ()) -> Lineup:
    """Resolve strategy names (one per seat, or one for all seats) and their parameters.

    A name may be `NAME@FILE`: strategy NAME with the parameters in FILE
    (`simkit/paramfile.py`); the lineup keeps the whole token as the seat's name, so a
    tuned and an untuned copy of one strategy stay apart in the results.
    """
    specs = game.strategies()
    names = list(strategies)
    loaded = load_plugins(game, names, specs)
    specs = specs | {token: plugin.spec() for token, plugin in loaded.items()}
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise SimkitError(f"--strategies lists {len(names)} strategies for {players} players; "
                          f"give one per seat or a single one for all seats")
    base: dict[str, str] = {}  # token -> built-in strategy name
    for token in names:
        name = token if token in loaded else split_token(token)[0]
        if name not in specs:
            hint = " (a plug-in is FILE.py:FUNCTION)" if name.endswith(".py") else ""
            raise SimkitError(f"unknown strategy '{name}' for {game.name}; "
                              f"known: {', '.join(specs)}{hint}")
        base[token] = name
    values = plugins.param_targets(parse_params(params), names)
    for strategy in values:
        if strategy not in names:
            raise SimkitError(f"--param names strategy '{strategy}', which is not playing "
                              f"({', '.join(sorted(set(names)))})")
    for token in dict.fromkeys(names):
        _, path = split_token(token)
        if path is not None:  # a --param naming the whole token overrides the file
            values[token] = read_params(path, specs[base[token]], game.name) | values.get(
                token, {})
    vectors = np.stack([specs[base[n]].vector(values.get(n)) for n in names])
    resolved = tuple(specs[base[n]].resolved(values.get(n)) for n in names)
    ids = np.array([specs[base[n]].sid for n in names], np.int64)
    hashes = tuple((token, plugin.sha256) for token, plugin in loaded.items())
    return Lineup(tuple(names), ids, vectors, resolved, hashes)


def load_plugins(game: Game, names: Sequence[str],
                 builtin: dict[str, Any]) -> dict[str, plugins.Plugin]:
    """Compile the plug-ins among `names`: `FILE.py:FUNCTION` tokens and names registered
    under the simkit.strategies entry points (built-in names win)."""
    loaded: dict[str, plugins.Plugin] = {}
    for token in dict.fromkeys(names):
        name, _ = split_token(token)
        if name in builtin:
            continue
        plugin = plugins.load(game.name, name)
        if plugin is not None:
            loaded[token] = plugin
    return loaded


# The --until-sure judgement: (the games so far: rows, or a summary-only run's totals;
# the run's manifest stub; the look, from 1) -> (stop?, why).
Judge = Callable[[Any, dict[str, Any], int], tuple[bool, str]]


@dataclass(frozen=True)
class Analysis:
    """What the balance report lends a run, handed in by the caller (the engine never
    imports the reports; the CLI and the Python API pass `reports.analysis.ANALYSIS`):
    the queries a --summary-only run keeps, and the --until-sure judgement."""

    queries: Callable[[Prepared], Sequence[Query]]
    judge: Callable[[StopRule, str], Judge]


def needs(analysis: Analysis | None, option: str) -> Analysis:
    if analysis is None:
        raise SimkitError(f"a {option} run reads the balance report's analysis: pass "
                          "analysis=reports.analysis.ANALYSIS (the CLI does)")
    return analysis


@dataclass
class Prepared:
    """A validated run: the game, its compiled rules and the lineup."""

    spec: RunSpec
    game: Game
    config: Any
    compiled: Any
    lineup: Lineup


def prepare(spec: RunSpec) -> Prepared:
    """Validate everything about a run before any game is played."""
    game = get_game(spec.game)
    config = game.load_config(spec.overrides,
                              Path(spec.config_path) if spec.config_path else None)
    compiled = game.compile(config)
    supported = game.players(compiled)
    if spec.players not in supported:
        raise SimkitError(f"{game.title} is played by {', '.join(map(str, supported))} players, "
                          f"not {spec.players}")
    if not 1 <= spec.games <= MAX_GAMES:
        raise SimkitError(f"--games must be between 1 and {MAX_GAMES:,}, not {spec.games}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SimkitError(f"--seed must be between 0 and 2**64-1, not {spec.seed}")
    lineup = build_lineup(game, spec.strategies, spec.players, spec.params)
    if spec.until_sure is not None:
        spec.until_sure.check()
    return Prepared(spec, game, config, compiled, lineup)


def identity(p: Prepared) -> dict[str, Any]:
    """What makes two runs the same run."""
    out = {"game": p.spec.game, "players": p.spec.players, "strategies": list(p.lineup.names),
           "params": list(p.lineup.resolved_params), "games": p.spec.games,
           "seed": p.spec.seed, "config_hash": p.config.hash,
           "until_sure": None if p.spec.until_sure is None else repr(p.spec.until_sure)}
    if p.lineup.plugins:  # only when used, likewise: a changed plug-in file is another run
        out["plugins"] = dict(p.lineup.plugins)
    if p.spec.summary_only:  # only when set: full runs made before the option still match
        out["summary_only"] = True
    return out


def results_file(p: Prepared) -> str:
    """The file a finished run keeps its results in."""
    return SUMMARY_DATA_FILE if p.spec.summary_only else GAMES_FILE


def chunk_games(p: Prepared) -> int:
    """Games per chunk when the run does not say: DEFAULT_CHUNK, halved while a chunk's
    result arrays would pass CHUNK_BYTES. A run holds about two chunks (one in play, one
    being written), so a game with wide results (Carnuta: 540 bytes a game, Cauldron
    Master: 128) runs in as little memory as a narrow one. Results never depend on it."""
    new_outputs = getattr(p.game, "new_outputs", None)  # a KernelGame's; others: the default
    if new_outputs is None:
        return DEFAULT_CHUNK
    per_game = sum(a.nbytes for a in new_outputs(p.compiled, 1, p.lineup.n_players))
    n = DEFAULT_CHUNK
    while n > MIN_AUTO_CHUNK and n * per_game > CHUNK_BYTES:
        n //= 2
    return n


def check_run_options(chunk_size: int | None, workers: int | None) -> None:
    """Options that shape how a run is played (never what it plays)."""
    if chunk_size is not None and chunk_size < 1:
        raise SimkitError(f"--chunk-size must be at least 1, not {chunk_size}")
    if workers is not None and workers < 1:
        raise SimkitError(f"--workers must be at least 1, not {workers}")
