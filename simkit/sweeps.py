"""What-if sweeps: a grid (or zip) of config values and strategy parameters, one run per point.

A sweep varies one or more keys. A key is any config key that `--set` takes (e.g.
`supply.size.4`, `options.picking_compulsory`, `ingredients.spider_venom.scores`) or a
strategy parameter written `param:STRATEGY.PARAM` (e.g. `param:planner.discount`).
Values are a comma-separated list (each item read as TOML: `10`, `0.5`, `false`,
`[1,3,6,10]`, `exact`) or a range: `2..6` (integers, both ends included) or
`0.1..0.5:0.1` (from, to, step). Several keys form a grid; with `zip` the i-th values of
every key go together.

Every point is played with the same seed, so all points share their deals (common random
numbers) and differences between points are paired. Each point is an ordinary run folder
inside the sweep folder, written by `engine.run` (so it is resumable on its own and every
single-run tool works on it). `sweep.json` in the sweep folder holds the sweep's identity;
a different sweep into the same folder is refused. All points run in one process, so the
kernels compile (or load from the cache) once; the rule tables are kernel arguments.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shlex
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from simkit import engine, folders
from simkit.config import parse_value
from simkit.errors import ConfigError, SimkitError
from simkit.prepare import PlaySpec
from simkit.results import read_json, write_json
from simkit.stopping import StopRule

SWEEP_FILE = "sweep.json"
PARAM_PREFIX = "param:"
DEFAULT_MAX_POINTS = 50
_NUM = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUM})\s*\.\.\s*({_NUM})\s*(?::\s*({_NUM})\s*)?$")
_MAX_RANGE = 10_000  # values one range may expand to


@dataclass(frozen=True)
class Axis:
    """One varied key and its values, in order."""

    key: str
    values: tuple[Any, ...]

    @property
    def is_param(self) -> bool:
        return self.key.startswith(PARAM_PREFIX)

    @property
    def label(self) -> str:
        """The key as shown in reports: `planner.discount` for a strategy parameter."""
        return self.key[len(PARAM_PREFIX):] if self.is_param else self.key


@dataclass(frozen=True)
class SweepSpec(PlaySpec):
    """Everything that determines a sweep's results, plus how many points it may have."""

    axes: tuple[Axis, ...]
    zip: bool = False
    overrides: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    config_path: str | None = None
    max_points: int = DEFAULT_MAX_POINTS
    until_sure: StopRule | None = None  # each point stops once its verdicts are decided
    summary_only: bool = False  # each point keeps exact totals, not rows


@dataclass(frozen=True)
class Point:
    """One point of a sweep: its folder name, the varied values and the run to play."""

    index: int
    name: str
    values: dict[str, Any]  # axis key -> value
    run: engine.RunSpec


# ------------------------------------------------------------------ parsing
def format_value(value: Any) -> str:
    """A value as TOML text (what `--set KEY=...` takes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SimkitError(f"sweep value {value!r}: not a finite number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    raise SimkitError(f"sweep value {value!r}: only numbers, true/false, text and lists "
                      "can be swept")


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets and quotes (so `[1,3,6,10],[1,3,6,12]` is 2 items)."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [s.strip() for s in items]


def parse_range(text: str, where: str) -> list[int | float] | None:
    """`a..b` (integers, both included) or `a..b:step`; None if `text` is not a range."""
    m = _RANGE.match(text)
    if m is None:
        if ".." in text and not text.lstrip().startswith(("[", '"', "'")):
            raise SimkitError(f"{where}: bad range {text!r}; expected FROM..TO (integers, "
                              "e.g. 2..6) or FROM..TO:STEP (e.g. 0.1..0.5:0.1)")
        return None
    a_text, b_text, step_text = m.groups()
    as_int = all(t is None or re.fullmatch(r"[-+]?\d+", t) for t in (a_text, b_text, step_text))
    if as_int:
        a, b, step = int(a_text), int(b_text), int(step_text) if step_text else 1
    else:
        if step_text is None:
            raise SimkitError(f"{where}: range {text!r} has decimals but no step; write "
                              "FROM..TO:STEP, e.g. 0.1..0.5:0.1")
        a, b, step = float(a_text), float(b_text), float(step_text)
    if step <= 0:
        raise SimkitError(f"{where}: range {text!r}: the step must be positive")
    if b < a:
        raise SimkitError(f"{where}: range {text!r} is empty (it ends before it starts)")
    count = math.floor((b - a) / step + 1e-9) + 1
    if count > _MAX_RANGE:
        raise SimkitError(f"{where}: range {text!r} has {count:,} values; at most "
                          f"{_MAX_RANGE:,}")
    if as_int:
        return [a + i * step for i in range(count)]
    return [round(a + i * step, 10) for i in range(count)]


def parse_values(raw: Any, where: str) -> tuple[Any, ...]:
    """The values of one axis: from `V1,V2,...` or a range (text), or a TOML list."""
    if isinstance(raw, list):
        values: list[Any] = []
        for item in raw:
            expanded = parse_range(item, where) if isinstance(item, str) else None
            values += expanded if expanded is not None else [item]
    elif isinstance(raw, str):
        if not raw.strip():
            raise SimkitError(f"{where}: no values; give V1,V2,... or a range FROM..TO")
        values = []
        for item in _split_top(raw):
            if not item:
                raise SimkitError(f"{where}: empty value in {raw!r}")
            expanded = parse_range(item, where)
            values += expanded if expanded is not None else [parse_value(item)]
    elif isinstance(raw, bool | int | float):
        values = [raw]
    else:
        raise SimkitError(f"{where}: expected a list of values or a text like '2..6'")
    if not values:
        raise SimkitError(f"{where}: no values")
    seen: list[str] = []
    for v in values:
        text = format_value(v)
        if text in seen:
            raise SimkitError(f"{where}: the value {text} is listed twice")
        seen.append(text)
    return tuple(values)


def _check_key(key: str, where: str) -> str:
    key = key.strip()
    if key.startswith(PARAM_PREFIX):
        strategy, dot, param = key[len(PARAM_PREFIX):].partition(".")
        if not strategy or not dot or not param:
            raise SimkitError(f"{where}: a strategy parameter is written param:STRATEGY.PARAM, "
                              f"e.g. param:planner.discount (not {key!r})")
    elif not key or not re.fullmatch(r"[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*", key):
        raise SimkitError(f"{where}: {key!r} is not a config key (e.g. supply.size.4) or a "
                          "strategy parameter (param:planner.discount)")
    return key


def parse_vary(item: str) -> Axis:
    """`KEY=V1,V2,...` or `KEY=FROM..TO[:STEP]` -> Axis."""
    key, sep, raw = item.partition("=")
    if not sep:
        raise SimkitError(f"--vary {item!r}: expected KEY=V1,V2,... or KEY=FROM..TO, e.g. "
                          "supply.size.4=8,10,12 or param:planner.discount=0.1..0.5:0.1")
    key = _check_key(key, f"--vary {item!r}")
    return Axis(key, parse_values(raw, f"--vary {key}"))


def check_axes(axes: Sequence[Axis], zipped: bool) -> None:
    if not axes:
        raise SimkitError("a sweep needs at least one varied key (--vary KEY=V1,V2,...)")
    keys = [a.key for a in axes]
    for k in keys:
        if keys.count(k) > 1:
            raise SimkitError(f"--vary {k} is given twice; list all its values in one --vary")
    if zipped:
        lengths = {a.key: len(a.values) for a in axes}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            raise SimkitError(f"zip pairs the i-th values of every key, so every key needs "
                              f"the same number of values ({shown})")


def combinations(axes: Sequence[Axis], zipped: bool) -> list[tuple[Any, ...]]:
    """The value tuples of every point, in order (grid: the last key varies fastest)."""
    check_axes(axes, zipped)
    if zipped:
        return list(zip(*(a.values for a in axes), strict=True))
    return list(itertools.product(*(a.values for a in axes)))


def _slug(value: Any) -> str:
    if isinstance(value, list | tuple):
        text = "-".join(_slug(v) for v in value)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text).strip("_") or "_"


def point_name(index: int, count: int, axes: Sequence[Axis], values: Sequence[Any]) -> str:
    """A readable, unique folder name, e.g. `03_supply.size.4=10` or `07_discount=0.3_...`."""
    width = max(2, len(str(count - 1)))
    parts = [f"{a.label}={_slug(v)}" for a, v in zip(axes, values, strict=True)]
    name = f"{index:0{width}d}_" + "_".join(parts)
    return name[:150]


def expand(spec: SweepSpec) -> list[Point]:
    """Every point of the sweep, with the run it plays (the base settings plus its values)."""
    combos = combinations(spec.axes, spec.zip)
    points = []
    for i, values in enumerate(combos):
        overrides = list(spec.overrides)
        params = list(spec.params)
        for axis, value in zip(spec.axes, values, strict=True):
            if axis.is_param:
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise SimkitError(f"--vary {axis.key}: strategy parameters are numbers, "
                                      f"not {format_value(value)}")
                params.append(f"{axis.label}={float(value)!r}")
            else:
                overrides.append(f"{axis.key}={format_value(value)}")
        run = engine.RunSpec(spec.game, spec.players, spec.strategies, spec.games, spec.seed,
                             tuple(overrides), tuple(params), spec.config_path,
                             spec.until_sure, spec.summary_only)
        values_map = {a.key: v for a, v in zip(spec.axes, values, strict=True)}
        points.append(Point(i, point_name(i, len(combos), spec.axes, values), values_map, run))
    return points


# ------------------------------------------------------------------ spec files
SPEC_KEYS = ("game", "players", "strategies", "games", "seed", "zip", "vary", "set", "param",
             "config", "max_points")


def load_spec(path: Path) -> dict[str, Any]:
    """Read a sweep spec (TOML) into plain settings, checked key by key.

    ```toml
    game = "cauldron-master"
    players = 4
    strategies = ["planner", "greedy", "random", "greedy"]
    games = 100000
    seed = 1
    zip = false                     # true: pair the i-th values instead of a grid
    set = ["options.max_rounds=100"]    # fixed overrides for every point
    param = ["planner.recipe_weight=1"]  # fixed strategy parameters
    [vary]
    "supply.size.4" = [8, 10, 12]
    "param:planner.discount" = "0.1..0.5:0.2"
    ```
    """
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise SimkitError(f"{path}: sweep spec not found") from None
    except IsADirectoryError:
        raise SimkitError(f"{path}: is a folder, not a sweep spec (a .toml file)") from None
    except UnicodeDecodeError:
        raise SimkitError(f"{path}: not UTF-8 text; save the sweep spec as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise SimkitError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise SimkitError(f"{path}: cannot read the sweep spec ({exc.strerror})") from None
    for key in data:
        if key not in SPEC_KEYS:
            raise SimkitError(f"{path}: unknown setting '{key}'; known: {', '.join(SPEC_KEYS)}")
    out: dict[str, Any] = {}
    for key in ("game", "config"):
        if key in data:
            if not isinstance(data[key], str):
                raise SimkitError(f"{path}: {key} = {data[key]!r}: expected text")
            out[key] = data[key]
    for key in ("players", "games", "seed", "max_points"):
        if key in data:
            if isinstance(data[key], bool) or not isinstance(data[key], int):
                raise SimkitError(f"{path}: {key} = {data[key]!r}: expected an integer")
            out[key] = data[key]
    if "zip" in data:
        if not isinstance(data["zip"], bool):
            raise SimkitError(f"{path}: zip = {data['zip']!r}: expected true or false")
        out["zip"] = data["zip"]
    if "strategies" in data:
        s = data["strategies"]
        if isinstance(s, str):
            s = [x.strip() for x in s.split(",") if x.strip()]
        if not isinstance(s, list) or not s or not all(isinstance(x, str) for x in s):
            raise SimkitError(f"{path}: strategies: expected a list of strategy names")
        out["strategies"] = tuple(s)
    for key in ("set", "param"):
        if key in data:
            items = data[key]
            if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
                raise SimkitError(f"{path}: {key}: expected a list of \"KEY=VALUE\" texts")
            out[key] = tuple(items)
    vary = data.get("vary", {})
    if not isinstance(vary, dict):
        raise SimkitError(f"{path}: vary: expected a table of KEY = [values] or \"FROM..TO\"")
    out["axes"] = tuple(Axis(_check_key(k, f"{path}: vary.{k}"),
                             parse_values(v, f"{path}: vary.{k}")) for k, v in vary.items())
    if "config" in out and not Path(out["config"]).is_absolute():
        # A config path in a spec is relative to the spec's folder.
        out["config"] = str((Path(path).parent / out["config"]).resolve())
    return out


def make_spec(target: str, *, vary: Sequence[str] = (), zipped: bool | None = None,
              players: int | None = None, strategies: Sequence[str] | None = None,
              games: int | None = None, seed: int | None = None,
              overrides: Sequence[str] = (), params: Sequence[str] = (),
              config_path: str | None = None, max_points: int | None = None) -> SweepSpec:
    """A SweepSpec from a game name or a spec file plus command-line options.

    Options given here override the spec file's; `--vary` given here replaces the spec's
    varied keys, `--set`/`--param` add to its fixed ones (and win over them).
    """
    base: dict[str, Any] = {}
    if target.endswith(".toml") or Path(target).is_file():
        base = load_spec(Path(target))
        if "game" not in base:
            raise SimkitError(f"{target}: the sweep spec names no game (game = \"...\")")
        game = base["game"]
    else:
        game = target
    axes = tuple(parse_vary(v) for v in vary) if vary else base.get("axes", ())
    spec = SweepSpec(
        game=game,
        players=players if players is not None else base.get("players", 4),
        strategies=tuple(strategies) if strategies else base.get("strategies", ("greedy",)),
        games=games if games is not None else base.get("games", 100_000),
        seed=seed if seed is not None else base.get("seed", 0),
        axes=axes,
        zip=zipped if zipped is not None else base.get("zip", False),
        overrides=tuple(base.get("set", ())) + tuple(overrides),
        params=tuple(base.get("param", ())) + tuple(params),
        config_path=config_path if config_path is not None else base.get("config"),
        max_points=max_points if max_points is not None else base.get("max_points",
                                                                       DEFAULT_MAX_POINTS),
    )
    check_axes(spec.axes, spec.zip)
    return spec


# ------------------------------------------------------------------ running
@dataclass
class Plan:
    """A validated sweep: its points, each prepared (config applied, lineup checked)."""

    spec: SweepSpec
    points: list[Point]
    prepared: list[engine.Prepared] = field(default_factory=list)
    kind: folders.Kind = folders.SWEEP  # a skill ladder's folder is a sweep of its own kind
    shell: str | None = None  # the command that reproduces it, if not `simkit sweep`

    def identity(self) -> dict[str, Any]:
        """What makes two sweeps the same sweep (the spec, and each point's run identity)."""
        s = self.spec
        return {
            "game": s.game, "players": s.players, "strategies": list(s.strategies),
            "games": s.games, "seed": s.seed, "zip": s.zip,
            "axes": [{"key": a.key, "values": list(a.values)} for a in s.axes],
            "overrides": list(s.overrides), "params": list(s.params),
            "until_sure": None if s.until_sure is None else repr(s.until_sure),
            "points": [{"name": pt.name, "run": engine.identity(p)}
                       for pt, p in zip(self.points, self.prepared, strict=True)],
        }


def plan(spec: SweepSpec, yes: bool = False) -> Plan:
    """Expand and validate every point before any game is played."""
    points = expand(spec)
    if len(points) > spec.max_points and not yes:
        raise SimkitError(f"this sweep has {len(points):,} points ({len(points) * spec.games:,} "
                          f"games), more than the limit of {spec.max_points}; pass --yes to "
                          "run it anyway, or raise --max-points")
    return prepare_points(Plan(spec, points))


def prepare_points(out: Plan) -> Plan:
    """Prepare every point of `out` (config applied, lineup checked), naming the point in
    any error."""
    for pt in out.points:
        try:
            out.prepared.append(engine.prepare(pt.run))
        except ConfigError as exc:
            axis = next((k for k in pt.values if k == exc.key or k.startswith(exc.key + ".")),
                        None)
            if exc.source == "--set" and axis is not None:
                raise SimkitError(f"--vary {axis} (point {pt.name}): {exc.key}"
                                  f"{'' if exc.value is None else f' = {exc.value!r}'}: "
                                  f"{exc.problem}") from None
            raise SimkitError(f"sweep point {pt.name}: {exc}") from None
        except SimkitError as exc:
            raise SimkitError(f"sweep point {pt.name}: {exc}") from None
    return out


def command(spec: SweepSpec, out: str) -> str:
    """The shell command that reproduces this sweep."""
    parts = ["simkit", "sweep", spec.game]
    for a in spec.axes:
        parts += ["--vary", f"{a.key}=" + ",".join(format_value(v) for v in a.values)]
    if spec.zip:
        parts.append("--zip")
    parts += spec.play_args(out)
    parts += spec.setting_args()
    return shlex.join(parts)


def check_sweep_folder(out: Path, p: Plan) -> str:
    """"new" or "resume" (the same sweep, maybe partly played, maybe finished: its finished
    points are skipped); a different sweep is refused (`folders.claim`, no --force)."""
    def records() -> tuple[folders.Record, folders.Record]:
        saved = read_json(out / SWEEP_FILE)  # None in a ladder's folder before its first point
        return (saved, None) if saved and saved.get("finished") else (None, saved)

    state = folders.claim(out, p.kind, p.identity(), records, None, "sweep")
    return "new" if state == "new" else "resume"


def run_sweep(p: Plan, out: Path, threads: int | None = None,
              chunk_size: int | None = None,
              progress: Callable[[int], None] | None = None,
              on_point: Callable[[Point, dict[str, Any]], None] | None = None,
              analysis: engine.Analysis | None = None, scheduler: str | None = None,
              workers: int | None = None) -> dict[str, Any]:
    """Play every point of `p` into `out/<point name>`; returns the sweep record.

    Finished points are skipped and a half-played point resumes (engine.run); the record
    (`sweep.json`) is written before the first point and updated after each one.
    `analysis` is handed to every point's run (`engine.Analysis`), and so are `scheduler`
    and `workers` (each point's chunks played on a dask cluster).
    """
    engine.set_threads(threads)
    engine.check_run_options(chunk_size, workers)
    with folders.locked(out):
        state = check_sweep_folder(out, p)
        if workers is not None and scheduler is None:  # one local cluster for every point
            from simkit.cluster import local_cluster

            with local_cluster(workers) as address:
                return _run_sweep(p, out, state, threads, chunk_size, progress, on_point,
                                  analysis, address)
        return _run_sweep(p, out, state, threads, chunk_size, progress, on_point, analysis,
                          scheduler)


def _run_sweep(p: Plan, out: Path, state: str, threads: int | None, chunk_size: int | None,
               progress: Callable[[int], None] | None,
               on_point: Callable[[Point, dict[str, Any]], None] | None,
               analysis: engine.Analysis | None, scheduler: str | None = None,
               workers: int | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    saved = read_json(out / SWEEP_FILE) or {}
    record: dict[str, Any] = {
        "identity": p.identity(),
        "command": p.shell or command(p.spec, str(out)),
        "game": p.spec.game,
        "varied": [{"key": a.key, "label": a.label, "values": list(a.values)}
                   for a in p.spec.axes],
        "zip": p.spec.zip,
        "games_per_point": p.spec.games,
        "points": [{"name": pt.name, "values": pt.values, "status": "todo"}
                   for pt in p.points],
        "finished": False,
        "created": saved.get("created") or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_json(out / SWEEP_FILE, record)
    played_seconds = 0.0
    played_games = 0
    for pt, prepared, entry in zip(p.points, p.prepared, record["points"], strict=True):
        manifest = engine.run(pt.run, out / pt.name, threads=threads, chunk_size=chunk_size,
                              progress=progress, prepared=prepared, analysis=analysis,
                              scheduler=scheduler, workers=workers)
        if manifest.get("skipped"):
            entry["status"] = "done before"
            if progress is not None:
                progress(pt.run.games)
        else:
            entry["status"] = "resumed" if manifest.get("resumed") else "played"
            played_seconds += float(manifest["elapsed_seconds"])
            played_games += int(manifest["games"])
        entry["elapsed_seconds"] = manifest.get("elapsed_seconds")
        entry["games"] = manifest.get("games")  # fewer than asked after --until-sure stops
        write_json(out / SWEEP_FILE, record)
        if on_point is not None:
            on_point(pt, manifest)
    total = time.perf_counter() - started
    record["finished"] = True
    record["resumed"] = state == "resume"
    record["timing"] = {
        "seconds": round(total, 3),
        "playing_seconds": round(played_seconds, 3),
        "played_games": played_games,
        "overhead_seconds": round(max(total - played_seconds, 0.0), 3),
        "overhead_share": round(max(total - played_seconds, 0.0) / total, 4) if total else 0.0,
    }
    write_json(out / SWEEP_FILE, record)
    return record


def read_sweep(folder: Path) -> dict[str, Any] | None:
    """The sweep record of `folder`, or None if it is not a sweep folder."""
    return read_json(Path(folder) / SWEEP_FILE)


__all__ = ["Axis", "Plan", "Point", "SweepSpec", "expand", "make_spec", "parse_vary", "plan",
           "prepare_points", "replace", "run_sweep"]
