"""Skill ladders: the fields of players, weakest to strongest, that every verdict is read at.

A ladder is data. The built-in games name theirs in `configs/ladders.toml`; a game written
to the game API may put a `ladder.toml` in its folder, and otherwise gets a default made of
the players it has (random, greedy, planner, rollout, in that order):

    rungs = [
      { name = "random", strategy = "random" },
      { name = "greedy", strategy = "greedy" },
      { name = "rollout", strategy = "rollout", budget = "rollouts", games = 4000 },
    ]

A rung is a name, a strategy token (NAME or NAME@params.toml; a parameter file's path is
read relative to the ladder file) and, optionally, `games`: the most games it plays (the
top rungs are dear) and `budget`, the parameter whose doubling checks convergence; only
the top rung's is used, so a stronger player on top is one more line.

`simkit ladder` plays three kinds of point, each an ordinary run in DIR/<point> played by
the sweep machinery (`simkit/sweeps.py`: resumable, progress, dask) on one seed, so every
point shares its deals:
- `field_<i>_<rung>`: the rung's mirror field, its strategy in every seat: the verdicts;
- `climb_<i>_<rung>`: the rung in one seat against the rung below in the others, seats
  rotating over each deal: how much stronger each rung is;
- `budget_x2`: the top rung with its budget doubled against the top rung: converged when
  the doubled player's gain over the fair share is shown to stay under `margin`.
"""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit import engine, folders
from simkit import sweeps as sw
from simkit.config import CONFIG_DIR
from simkit.errors import SimkitError
from simkit.paramfile import read_params, split_token, write_text_atomic
from simkit.prepare import Settings
from simkit.results import read_json, write_json
from simkit.stopping import StopRule
from simkit.tomlwrite import document

LADDERS_FILE = CONFIG_DIR / "ladders.toml"
GAME_LADDER = "ladder.toml"  # a game folder's own ladder
LADDER_FILE = "ladder.json"  # a ladder folder's record
BUDGET_FILE = "budget_x2.toml"  # the top rung with its budget doubled
DEFAULT_ORDER = ("random", "greedy", "planner", "rollout")  # a folder game's default ladder
DEFAULT_BUDGET = "rollouts"
DEFAULT_MARGIN = 0.02  # converged: doubling the budget gains less than 2 points
RUNG_KEYS = ("name", "strategy", "budget", "games")


@dataclass(frozen=True)
class Rung:
    """One skill level: a field of one strategy."""

    name: str
    strategy: str  # a --strategies token: NAME or NAME@params.toml
    budget: str | None = None  # the parameter doubled in the convergence check (top rung)
    games: int | None = None  # at most this many games (a dear rung)


@dataclass(frozen=True)
class Ladder:
    """A game's rungs, weakest first, and where they were read."""

    game: str
    rungs: tuple[Rung, ...]
    source: str
    above: tuple[str, ...] = ()  # stronger rungs left out (`up_to`): not played

    @property
    def top(self) -> Rung:
        return self.rungs[-1]

    def up_to(self, name: str) -> Ladder:
        """The ladder stopped at the rung `name` (a dear top left out, e.g. for a demo);
        the rungs above are named in `above`. An unknown rung is one `Error:` line."""
        names = [r.name for r in self.rungs]
        if name not in names:
            raise SimkitError(f"--up-to {name!r}: {self.game}'s ladder ({self.source}) has "
                              f"no such rung; its rungs: {', '.join(names)}")
        i = names.index(name)
        return Ladder(self.game, self.rungs[:i + 1], self.source,
                      tuple(names[i + 1:]) + self.above)


def _parse(source: str, rungs: Any, base: Path | None) -> tuple[Rung, ...]:
    """The rungs of one ladder table, checked key by key (paths resolved from `base`)."""
    if not isinstance(rungs, list) or not rungs:
        raise SimkitError(f"{source}: rungs: expected a list of rungs, e.g. "
                          "{ name = \"greedy\", strategy = \"greedy\" }")
    out: list[Rung] = []
    for i, r in enumerate(rungs):
        where = f"{source}: rungs[{i}]"
        if not isinstance(r, dict):
            raise SimkitError(f"{where}: expected a table {{ name = ..., strategy = ... }}")
        for key in r:
            if key not in RUNG_KEYS:
                raise SimkitError(f"{where}: unknown key '{key}'; known: {', '.join(RUNG_KEYS)}")
        for key in ("name", "strategy"):
            if not isinstance(r.get(key), str) or not r[key].strip():
                raise SimkitError(f"{where}: {key}: expected a text")
        if "budget" in r and not isinstance(r["budget"], str):
            raise SimkitError(f"{where}: budget = {r['budget']!r}: expected a parameter name")
        games = r.get("games")
        if games is not None and (isinstance(games, bool) or not isinstance(games, int)
                                  or games < 1):
            raise SimkitError(f"{where}: games = {games!r}: expected a positive integer")
        name, path = split_token(r["strategy"].strip())
        token = name if path is None else f"{name}@{_resolve(path, base)}"
        out.append(Rung(r["name"].strip(), token, r.get("budget"), games))
    names = [r.name for r in out]
    for n in names:
        if names.count(n) > 1:
            raise SimkitError(f"{source}: the rung '{n}' is listed twice")
    return tuple(out)  # a budget below the top is kept, unused: a new top is one line


def _resolve(path: str, base: Path | None) -> str:
    """A parameter file's path: relative to the ladder file, shown relative to the current
    folder when it lies below it (the token is the seat's name in the results)."""
    p = Path(path)
    if not p.is_absolute() and base is not None:
        p = (base / p).resolve()
    try:
        return os.path.relpath(p) if p.is_relative_to(Path.cwd()) else str(p)
    except ValueError:
        return str(p)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimkitError(f"{path}: ladder file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{path}: cannot read the ladder ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SimkitError(f"{path}: not valid TOML ({exc})") from None


def load_ladder(game: str, path: Path | None = None) -> Ladder:
    """The ladder of `game`: from `path` (a file with `rungs`, or `[<game>]` tables), else
    the game folder's ladder.toml, else configs/ladders.toml, else a folder game's default
    from its players. A game with none gets one `Error:` line."""
    from simkit.games import get_game

    g = get_game(game)
    folder = getattr(g, "folder", None)
    candidates = [Path(path)] if path is not None else []
    if path is None and folder is not None and (Path(folder) / GAME_LADDER).is_file():
        candidates.append(Path(folder) / GAME_LADDER)
    if path is None and folder is None:
        candidates.append(LADDERS_FILE)
    for file in candidates:
        data = _read_toml(file)
        if "rungs" in data:
            table, source = data, str(file)
        elif isinstance(data.get(g.name), dict):
            table, source = data[g.name], f"{file} [{g.name}]"
        else:
            raise SimkitError(f"{file}: no ladder for {g.name} (expected `rungs = [...]` or a "
                              f"[{g.name}] table with rungs)")
        for key in table:
            if key != "rungs":
                raise SimkitError(f"{source}: unknown key '{key}'; a ladder holds `rungs`")
        return Ladder(g.name, _parse(source, table["rungs"], file.parent.resolve()), source)
    names = [n for n in DEFAULT_ORDER if n in g.strategies()]
    if folder is None or len(names) < 2:
        where = (f"add a [{g.name}] table to {LADDERS_FILE}" if folder is None else
                 f"add {Path(folder) / GAME_LADDER}")
        raise SimkitError(f"{g.name} has no skill ladder: {where} (rungs = [{{ name = "
                          "\"greedy\", strategy = \"greedy\" }, ...], weakest first)")
    spec = g.strategies()[names[-1]]
    budget = DEFAULT_BUDGET if any(p.name == DEFAULT_BUDGET for p in spec.params) else None
    rungs = tuple(Rung(n, n, budget if n == names[-1] else None) for n in names)
    return Ladder(g.name, rungs, f"the default ladder of {g.name} (its players "
                                 f"{', '.join(names)}; {Path(folder) / GAME_LADDER} overrides)")


def rung_named(game: str, name: str) -> Rung:
    """The rung called `name` in `game`'s ladder (one `Error:` line naming the rungs)."""
    ladder = load_ladder(game)
    for r in ladder.rungs:
        if r.name == name:
            return r
    raise SimkitError(f"--rung {name!r}: {ladder.game}'s ladder ({ladder.source}) has no such "
                      f"rung; its rungs: {', '.join(r.name for r in ladder.rungs)}")


def whose_play(game: str, tokens: list[str]) -> str:
    """Whose play a figure reflects, in words: "rollout players" when one rung of the
    game's ladder holds every seat, else the lineup ("a mixed lineup: planner, greedy,
    random, greedy")."""
    if len(set(tokens)) == 1:
        try:
            rungs = load_ladder(game).rungs
        except SimkitError:
            rungs = ()
        named = next((r.name for r in rungs if r.strategy == tokens[0]), tokens[0])
        return f"{named} players (every seat)"
    return "a mixed lineup: " + ", ".join(tokens)


def verify_command(spec: Any, changes: dict[str, Any], out: Path) -> str:
    """What a balance change was judged with, and the `simkit ladder` command that judges
    it at every skill level (a change found for one field may fail for another)."""
    import json

    sets: list[str] = []
    for key, value in changes.items():
        sets += ["--set", f"{key}={json.dumps(value)}"]
    parts = ["simkit", "ladder", spec.game, "--players", str(spec.players), "--seed",
             str(spec.seed), *engine.option_args(spec.config_path, spec.overrides, (), None),
             *sets, "--out", str(Path(out) / "ladder")]
    return (f"{whose_play(spec.game, list(spec.strategies))}. At every skill level: "
            + shlex.join(parts))


def check_ladder(ladder: Ladder, players: int) -> None:
    """Every rung's strategy and parameter file, and the top's budget, named in one line
    per problem before any game is played."""
    from simkit.games import get_game
    from simkit.prepare import build_lineup

    if len(ladder.rungs) < 2:
        raise SimkitError(f"{ladder.source}: a ladder needs at least 2 rungs")
    game = get_game(ladder.game)
    for r in ladder.rungs:
        try:
            build_lineup(game, [r.strategy], players)
        except SimkitError as exc:
            raise SimkitError(f"{ladder.source}: rung '{r.name}': {exc}") from None
    top = ladder.top
    if top.budget is not None:
        spec = game.strategies().get(split_token(top.strategy)[0])
        known = [p.name for p in spec.params] if spec is not None else []
        if top.budget not in known:
            raise SimkitError(f"{ladder.source}: rung '{top.name}': budget '{top.budget}': "
                              f"strategy {split_token(top.strategy)[0]} has no such "
                              f"parameter; known: {', '.join(known) or 'none'}")


def doubled_params(ladder: Ladder, rung: Rung | None = None) -> dict[str, Any] | None:
    """A rung's parameter file (the top's by default) with its budget doubled (None: the
    rung has no budget). An unknown budget, or one past the parameter's range, is one
    `Error:` line."""
    from simkit.games import get_game

    top = ladder.top if rung is None else rung
    if top.budget is None:
        return None
    name, path = split_token(top.strategy)
    spec = get_game(ladder.game).strategies()[name]
    param = next((p for p in spec.params if p.name == top.budget), None)
    if param is None:
        raise SimkitError(f"{ladder.source}: rung '{top.name}': budget '{top.budget}': "
                          f"strategy {name} has no such parameter; known: "
                          f"{', '.join(p.name for p in spec.params) or 'none'}")
    values = read_params(path, spec, ladder.game) if path is not None else {}
    budget = values.get(top.budget, param.default)
    if 2 * budget > param.hi:
        raise SimkitError(f"{ladder.source}: rung '{top.name}': its budget {top.budget} = "
                          f"{budget:g} cannot be doubled (at most {param.hi:g}); lower it "
                          "in the rung's parameter file")
    return {"strategy": name, "game": ladder.game,
            "params": values | {top.budget: 2 * budget}}


@dataclass(frozen=True)
class LadderSpec(Settings):
    """Everything that determines a ladder run's results."""

    ladder: Ladder
    players: int
    games: int
    seed: int
    overrides: tuple[str, ...] = ()
    config_path: str | None = None
    margin: float = DEFAULT_MARGIN
    until_sure: StopRule | None = None
    ladder_path: str | None = None  # --ladder, for the command that reproduces it
    summary_only: bool = False  # never: the report pairs the fields deal by deal


def slug(text: str) -> str:
    """A rung name as a folder name."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", text).strip("-") or "rung"


def point_kinds(ladder: Ladder) -> list[tuple[str, str, tuple[int, ...]]]:
    """(point name, kind, rung indices) of every point: the fields, the climb, the budget."""
    out = [(f"field_{i}_{slug(r.name)}", "field", (i,)) for i, r in enumerate(ladder.rungs)]
    out += [(f"climb_{i}_{slug(r.name)}", "climb", (i, i - 1))
            for i, r in enumerate(ladder.rungs) if i > 0]
    if ladder.top.budget is not None:
        out.append(("budget_x2", "budget", (len(ladder.rungs) - 1,)))
    return out


def _games(spec: LadderSpec, rungs: list[Rung]) -> int:
    caps = [r.games for r in rungs if r.games is not None]
    return min([spec.games, *caps])


def command(spec: LadderSpec, out: str) -> str:
    """The shell command that reproduces this ladder run."""
    parts = ["simkit", "ladder", spec.ladder.game, "--players", str(spec.players), "--games",
             str(spec.games), "--seed", str(spec.seed), "--out", out]
    if spec.ladder_path:
        parts += ["--ladder", spec.ladder_path]
    if spec.ladder.above:
        parts += ["--up-to", spec.ladder.top.name]
    if spec.margin != DEFAULT_MARGIN:
        parts += ["--margin", f"{spec.margin * 100:g}"]
    return shlex.join(parts + spec.setting_args())


def plan(spec: LadderSpec, out: Path) -> sw.Plan:
    """Every point of the ladder run into `out`, prepared before any game is played."""
    if not 0 < spec.margin < 1:
        raise SimkitError(f"--margin must be between 0 and 100 points, not "
                          f"{spec.margin * 100:g}")
    check_ladder(spec.ladder, spec.players)
    doubled = doubled_params(spec.ladder)
    rungs = spec.ladder.rungs
    points = []
    for i, (name, kind, idx) in enumerate(point_kinds(spec.ladder)):
        if kind == "field":
            lineup = (rungs[idx[0]].strategy,)
            games = _games(spec, [rungs[idx[0]]])
        elif kind == "climb":
            lineup = (rungs[idx[0]].strategy,) + (rungs[idx[1]].strategy,) * (spec.players - 1)
            games = _games(spec, [rungs[idx[0]], rungs[idx[1]]])
        else:
            top = rungs[idx[0]]
            x2 = f"{split_token(top.strategy)[0]}@{out / BUDGET_FILE}"
            lineup = (x2,) + (top.strategy,) * (spec.players - 1)
            games = _games(spec, [top])
        run = engine.RunSpec(spec.ladder.game, spec.players, lineup, games, spec.seed,
                             spec.overrides, (), spec.config_path, spec.until_sure)
        points.append(sw.Point(i, name, {"point": name}, run))
    sweep = sw.SweepSpec(spec.ladder.game, spec.players, (spec.ladder.top.strategy,),
                         spec.games, spec.seed, (sw.Axis("point", tuple(p.name for p in points)),),
                         overrides=spec.overrides, config_path=spec.config_path,
                         max_points=len(points), until_sure=spec.until_sure)
    p = sw.Plan(sweep, points, kind=folders.LADDER, shell=command(spec, str(out)))
    record = record_of(spec, p)
    def records() -> tuple[folders.Record, folders.Record]:
        saved = read_json(out / LADDER_FILE)
        finished = (read_json(out / sw.SWEEP_FILE) or {}).get("finished") if saved else False
        return (saved, None) if finished else (None, saved)

    with folders.locked(out):  # the one folder rule (no --force: a ladder is never replaced)
        folders.claim(out, folders.LADDER, record["identity"], records, None, "ladder run")
        write_json(out / LADDER_FILE, record)  # first: it marks the folder as a ladder's
        if doubled is not None:
            write_text_atomic(out / BUDGET_FILE, document(
                doubled, "The top rung with its budget doubled (written by simkit ladder)."))
    return sw.prepare_points(p)


def record_of(spec: LadderSpec, p: sw.Plan) -> dict[str, Any]:
    """ladder.json: the rungs, what each point plays, the margin and the command."""
    ladder = spec.ladder
    return {
        "identity": {"game": ladder.game, "players": spec.players, "games": spec.games,
                     "seed": spec.seed, "overrides": list(spec.overrides),
                     "config": spec.config_path, "margin": spec.margin,
                     "until_sure": None if spec.until_sure is None else repr(spec.until_sure),
                     "rungs": [vars(r) for r in ladder.rungs]},
        "command": p.shell,
        "game": ladder.game,
        "players": spec.players,
        "source": ladder.source,
        "margin": spec.margin,
        "rungs": [vars(r) for r in ladder.rungs],
        "not_played": list(ladder.above),  # stronger rungs of the ladder left out
        "points": [{"name": name, "kind": kind, "rungs": list(idx),
                    "games": pt.run.games, "strategies": list(pt.run.strategies)}
                   for (name, kind, idx), pt in zip(point_kinds(ladder), p.points, strict=True)],
    }


def run_ladder(p: sw.Plan, out: Path, **options: Any) -> dict[str, Any]:
    """Play every point (sweeps.run_sweep: finished points skipped, a half-played one
    resumed); returns the sweep record."""
    return sw.run_sweep(p, out, **options)


def read_ladder(folder: Path) -> dict[str, Any] | None:
    """ladder.json of `folder`, or None if it is not a ladder folder."""
    return read_json(Path(folder) / LADDER_FILE)
