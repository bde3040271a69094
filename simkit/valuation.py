"""`simkit value`: what each component is worth, by intervention on the same deals.

Every deal is played as configured and once per intervention (`simkit/interventions.py`),
with the same seed, so the random streams stay in step. Per intervention and deal the
integer totals of the touched seats' paired differences are kept (`simkit/causal.py`), a
chunk of games at a time: an interrupted run resumes without losing or repeating games, and
the result is the same whatever the chunk size or thread count.

Cost: (interventions + 2) x games kernel games (the configured game, the A/A control on
fresh deals, and one variant per intervention). With `precision`, games are played in
rounds (10,000, then doubling, up to `games`) until every value interval is that narrow,
each look k judged at level 1 - 0.05/(k(k+1)) (`simkit/stopping.py`).
"""

from __future__ import annotations

import functools
import importlib
import math
import os
import shlex
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simkit import causal, folders
from simkit.engine import Prepared, RunSpec, prepare
from simkit.errors import ConfigError, SimkitError, on_disk
from simkit.interventions import Intervention, a_a
from simkit.prepare import PlaySpec
from simkit.results import (
    check_coverage,
    damaged_chunk,
    missing_ranges,
    read_json,
    versions,
    write_csv,
    write_json,
)
from simkit.rng import py_mix64
from simkit.slices import Slicer, join_along, stop_point
from simkit.stopping import METHOD, look_z, schedule
from simkit.summary import win_scale
from simkit.threads import get_threads, set_threads

VALUE_FILE = "value.json"  # the finished result (its presence marks a finished run)
PARTIAL_FILE = "value.partial.json"  # identity of an unfinished run
DEALS_FILE = "value_deals.npz"  # per-intervention, per-deal totals of the whole run
TABLE_FILE = "value.csv"
CHUNK_DIR = "value_chunks.partial"
FIELDS = ("m", "wp", "wn", "s", "b")
FIRST_LOOK = 10_000
AA_SEED_SALT = 0xA5A5_0F0F_C3C3_3C3C  # the A/A control's deals: another seed entirely


@dataclass(frozen=True)
class ValueSpec(PlaySpec):
    """Everything that determines a value run's results."""

    overrides: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    config_path: str | None = None
    kinds: tuple[str, ...] = ()  # component kinds to value (default: all)
    components: tuple[str, ...] = ()  # component keys to value (default: all)
    precision: float | None = None  # stop once every value interval is this narrow

    def command(self, out: str) -> str:
        parts = ["simkit", "value", self.game, *self.play_args(out)]
        for k in self.kinds:
            parts += ["--kind", k]
        for c in self.components:
            parts += ["--component", c]
        if self.precision is not None:
            parts += ["--precision", f"{self.precision:g}"]
        return shlex.join(parts + self.setting_args())


@dataclass
class ValuePlan:
    """A validated value run: the configured game, and one compiled variant per
    intervention (the A/A control first)."""

    spec: ValueSpec
    base: Prepared
    interventions: list[Intervention]
    variants: list[Any] = field(default_factory=list)  # compiled rules, one per intervention

    @property
    def rotation(self) -> int:
        return self.spec.players if self.base.lineup.rotate else 1


def interventions_of(game: Any, config: Any, compiled: Any,
                     players: int) -> tuple[list[Intervention], dict[str, str]]:
    """A game's interventions and why each kind is changed as it is."""
    if hasattr(game, "optional"):  # a game written to the game API: its interventions.py
        mod = game.optional("interventions")
    else:
        try:
            mod = importlib.import_module(f"simkit.games.{game.module}.interventions")
        except ModuleNotFoundError:
            mod = None
    if mod is None:
        raise SimkitError(f"{game.title} has no interventions yet: `simkit value` cannot "
                          "value its components")
    return mod.interventions(config, compiled, players), dict(mod.WHY)


def plan(spec: ValueSpec) -> ValuePlan:
    """Validate a value run before any game is played (one line per problem)."""
    if spec.precision is not None and not 0 < spec.precision < 1:
        raise SimkitError(f"--precision must be between 0 and 1 (a share, e.g. 0.01 for "
                          f"1 point), not {spec.precision}")
    base = prepare(RunSpec(spec.game, spec.players, spec.strategies, spec.games, spec.seed,
                           spec.overrides, spec.params, spec.config_path))
    found, _ = interventions_of(base.game, base.config, base.compiled, spec.players)
    kinds = list(dict.fromkeys(i.kind for i in found))
    for k in spec.kinds:
        if k not in kinds:
            raise SimkitError(f"--kind {k!r}: {base.game.title} has no such component kind; "
                              f"known kinds: {', '.join(kinds)}")
    keys = {i.key for i in found if not spec.kinds or i.kind in spec.kinds}
    for c in spec.components:
        if c not in keys:
            raise SimkitError(f"--component {c!r}: no such component"
                              f"{' of kind ' + '/'.join(spec.kinds) if spec.kinds else ''}; "
                              f"known: {', '.join(sorted(keys))}")
    chosen = [i for i in found if (not spec.kinds or i.kind in spec.kinds)
              and (not spec.components or i.key in spec.components)]
    chosen = [a_a()] + chosen
    p = ValuePlan(spec, base, chosen)
    for iv in chosen:
        if iv.fresh_deals:
            p.variants.append(base.compiled)
            continue
        if iv.patch is not None:
            p.variants.append(iv.patch(base.compiled))
            continue
        try:
            config = base.game.load_config(spec.overrides + iv.sets,
                                           Path(spec.config_path) if spec.config_path else None)
            p.variants.append(base.game.compile(config))
        except ConfigError as exc:
            raise SimkitError(f"{iv.label}: the game cannot be played with this component "
                              f"neutralised ({'; '.join(iv.sets)}): {exc}") from None
    return p


def identity(p: ValuePlan) -> dict[str, Any]:
    return {"game": p.spec.game, "players": p.spec.players,
            "strategies": list(p.base.lineup.names),
            "params": list(p.base.lineup.resolved_params), "games": p.spec.games,
            "seed": p.spec.seed, "config_hash": p.base.config.hash,
            "interventions": [[i.kind, i.key, list(i.sets), i.seat] for i in p.interventions],
            "precision": p.spec.precision}


def play_chunk(p: ValuePlan, first: int, n: int,
               tick: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
    """Per-deal totals (FIELDS -> int64[interventions, deals]) of games first..first+n-1."""
    game, lineup, seed = p.base.game, p.base.lineup, p.spec.seed
    scale = win_scale(p.spec.players)
    base = game.simulate(p.base.compiled, lineup, seed, first, n)
    if tick:
        tick(n)
    deal = (np.arange(n) // p.rotation)[:, None]
    n_deals = -(-n // p.rotation)
    bw = np.rint(np.asarray(base["win_share"], np.float64) * scale).astype(np.int64)
    bs = np.asarray(base["score"], np.int64)
    out = {f: np.zeros((len(p.interventions), n_deals), np.int64) for f in FIELDS}
    cols = dict(base) | {"_first_game": np.int64(first)}
    for i, (iv, compiled) in enumerate(zip(p.interventions, p.variants, strict=True)):
        stop_point()  # Ctrl-C: one kernel call's wait, not the whole slice's
        vseed = py_mix64(seed ^ AA_SEED_SALT) if iv.fresh_deals else seed
        var = game.simulate(compiled, lineup, vseed, first, n)
        touched = np.asarray(iv.touched(cols), bool)
        vw = np.rint(np.asarray(var["win_share"], np.float64) * scale).astype(np.int64)
        vs = np.asarray(var["score"], np.int64)
        d = np.broadcast_to(deal, touched.shape)[touched]
        out["m"][i] = np.bincount(d, minlength=n_deals)
        diff = (bw - vw)[touched]
        out["wp"][i] = np.bincount(d, np.maximum(diff, 0), minlength=n_deals).round()
        out["wn"][i] = np.bincount(d, np.maximum(-diff, 0), minlength=n_deals).round()
        out["s"][i] = np.bincount(d, (bs - vs)[touched], minlength=n_deals).round()
        out["b"][i] = np.bincount(d, bw[touched], minlength=n_deals).round()
        if tick:
            tick(n)
    return out


def measure(p: ValuePlan, games: int | None = None, chunk_size: int = 20_000) -> pl.DataFrame:
    """The value table of games 0..games-1, in memory (no folder, no resume)."""
    games = p.spec.games if games is None else games
    step = max(p.rotation, chunk_size // p.rotation * p.rotation)
    parts = [play_chunk(p, first, min(step, games - first)) for first in range(0, games, step)]
    totals = {f: np.concatenate([t[f] for t in parts], axis=1) for f in FIELDS}
    return table(p, totals)


@functools.lru_cache(maxsize=2)
def _worker_plan(spec: ValueSpec) -> ValuePlan:
    """A dask worker's plan, made once per process (one thread: one process per core)."""
    set_threads(1)
    return plan(spec)


def worker_chunk(spec: ValueSpec, first: int, n: int) -> dict[str, np.ndarray]:
    """Worker side of `--workers`/`--scheduler`: the per-deal totals of one chunk."""
    return play_chunk(_worker_plan(spec), first, n)


def _play(p: ValuePlan, chunks: list[tuple[int, int]], scheduler: str | None,
          workers: int | None, tick: Callable[[int], None] | None,
          ) -> Iterator[tuple[int, int, dict[str, np.ndarray]]]:
    """(first, n, totals) per chunk: here (in slices, so that Ctrl-C stops within about a
    second: the deals finished come as a shorter chunk), or on a dask cluster (in any
    order; each chunk depends only on its games, so the result is the same)."""
    if scheduler is None and workers is None:
        slicer = Slicer(lambda first, n: play_chunk(p, first, n, tick),
                        get_threads() * p.rotation, step=p.rotation,
                        join=lambda parts: join_along(parts, 1))  # totals are per deal
        yield from slicer.chunks(chunks)  # on Ctrl-C, the deals finished come first
        return
    from dask.distributed import as_completed

    from simkit.cluster import connect

    per = len(p.interventions) + 1
    with connect(scheduler, workers) as client:
        futures = {client.submit(worker_chunk, p.spec, first, n,
                                 key=f"simkit-value-{first}-{n}", pure=False): (first, n)
                   for first, n in chunks}
        for future in as_completed(futures):
            first, n = futures[future]
            totals = future.result()
            if tick:
                tick(n * per)
            yield first, n, totals


def _chunk_file(out: Path, first: int, n: int) -> Path:
    return out / CHUNK_DIR / f"value-{first:012d}-{n:09d}.npz"


def _finished(out: Path) -> list[tuple[int, int]]:
    folder = out / CHUNK_DIR
    if not folder.is_dir():
        return []
    found = []
    for f in folder.glob("value-*-*.npz"):
        _, first, n = f.stem.split("-")
        found.append((int(first), int(n)))
    return sorted(found)


def _save_chunk(out: Path, first: int, n: int, totals: dict[str, np.ndarray]) -> None:
    final = _chunk_file(out, first, n)
    final.parent.mkdir(exist_ok=True)
    tmp = final.with_name(final.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **totals)
    os.replace(tmp, final)


def _load(files: Sequence[Path], k: int) -> dict[str, np.ndarray]:
    parts: dict[str, list[np.ndarray]] = {f: [] for f in FIELDS}
    for path in files:
        try:
            with np.load(path) as z:
                for f in FIELDS:
                    parts[f].append(z[f])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise damaged_chunk(path, exc) from None
    return {f: (np.concatenate(parts[f], axis=1) if parts[f] else np.zeros((k, 0), np.int64))
            for f in FIELDS}


def components(p: ValuePlan) -> list[list[int]]:
    """Indices of the interventions of each component, in order (a restricted-play
    component has one variant per seat; their rows are pooled)."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, iv in enumerate(p.interventions):
        groups.setdefault((iv.kind, iv.key), []).append(i)
    return list(groups.values())


def table(p: ValuePlan, totals: dict[str, np.ndarray]) -> pl.DataFrame:
    """The value table of these totals: one row per component (seats pooled)."""
    groups = components(p)
    pooled = {f: np.stack([totals[f][g].sum(axis=0) for g in groups]) for f in FIELDS}
    first = [p.interventions[g[0]] for g in groups]
    return causal.estimate([i.kind for i in first], [i.key for i in first],
                           [i.name for i in first], pooled, win_scale(p.spec.players),
                           [i.fresh_deals for i in first])


def check_folder(out: Path, p: ValuePlan, force: bool) -> str:
    """"new", "resume" or "done"; refuses another value run unless `force`, and a folder
    holding anything but a simkit value run unless it is empty (`folders.claim`)."""
    return folders.claim(out, folders.VALUE, identity(p),
                         lambda: (read_json(out / VALUE_FILE), read_json(out / PARTIAL_FILE)),
                         force, "value run")


def run(p: ValuePlan, out: Path, chunk_size: int = 20_000, force: bool = False,
        progress: Callable[[int], None] | None = None, scheduler: str | None = None,
        workers: int | None = None) -> dict[str, Any]:
    """Play the value run into `out`; returns the result (also written to value.json).
    With `scheduler` or `workers` the chunks are played on a dask cluster, with the same
    result."""
    if chunk_size < 1:
        raise SimkitError(f"--chunk-size must be at least 1, not {chunk_size}")
    chunk_size = max(p.rotation, chunk_size // p.rotation * p.rotation)
    if scheduler is not None:  # before anything is written
        from simkit.cluster import check_scheduler

        check_scheduler(scheduler)
    with folders.locked(out):
        state = check_folder(out, p, force)  # again, now that the folder is ours
        if state == "done":
            result = read_json(out / VALUE_FILE) or {}
            _tidy(out)  # what a kill right after value.json was written may have left
            return result | {"skipped": True}
        return _run(p, out, state, chunk_size, progress, scheduler, workers)


def _tidy(out: Path) -> None:
    """Remove the unfinished-run marker and the chunks (value.json is written)."""
    try:
        (out / PARTIAL_FILE).unlink(missing_ok=True)
        folders.clear_subfolder(out / CHUNK_DIR, folders.VALUE.pattern(CHUNK_DIR))
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write there "
                          f"({on_disk(exc, out)})") from None


def _run(p: ValuePlan, out: Path, state: str, chunk_size: int,
         progress: Callable[[int], None] | None, scheduler: str | None,
         workers: int | None) -> dict[str, Any]:
    spec = p.spec
    command = spec.command(str(out))
    try:
        out.mkdir(parents=True, exist_ok=True)
        if state == "new":
            folders.remove_owned(out, folders.VALUE)
            write_json(out / PARTIAL_FILE, {"identity": identity(p), "command": command})
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write there "
                          f"({on_disk(exc, out)})") from None
    started = time.perf_counter()
    k = len(p.interventions)
    per_game = k + 1  # kernel games per configured game
    if progress is not None:
        progress(sum(n for _, n in _finished(out)) * per_game)
    looks = (schedule(spec.games, max(FIRST_LOOK // p.rotation * p.rotation, p.rotation))
             if spec.precision is not None else [spec.games])
    stopping = None
    try:
        for look, upto in enumerate(looks, start=1):
            todo = [(first, min(chunk_size, g0 + gn - first))
                    for g0, gn in missing_ranges(_finished(out), upto)
                    for first in range(g0, g0 + gn, chunk_size)]
            for first, n, totals in _play(p, todo, scheduler, workers, progress):
                _save_chunk(out, first, n, totals)
            if spec.precision is not None:
                chunks = [c for c in _finished(out) if c[0] < upto]
                t = table(p, _load([_chunk_file(out, *c) for c in chunks], k))
                half = causal.half_width(t) * look_z(look) / causal.Z
                stopping = {"method": METHOD, "rule": f"precision={spec.precision:g}",
                            "looks": look, "widest_half_width": half,
                            "max_games": spec.games}
                if half <= spec.precision:
                    stopping["reason"] = (f"every value interval within "
                                          f"±{spec.precision * 100:g} points")
                    break
                stopping["reason"] = (f"reached --games; widest interval ±{half * 100:.2f} "
                                      "points")
        chunks = _finished(out)
        played = max((f + n for f, n in chunks), default=0)
        check_coverage(chunks, played)  # games 0..played-1, each exactly once
        totals = _load([_chunk_file(out, *c) for c in chunks], k)
        t = table(p, totals)
        tmp = out / (DEALS_FILE + ".partial")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **totals)
        os.replace(tmp, out / DEALS_FILE)
        write_csv(t, out / TABLE_FILE)
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write results ({on_disk(exc, out)}); "
                          "every "
                          "finished chunk is kept: rerun the same command to resume") from None
    _, why = interventions_of(p.base.game, p.base.config, p.base.compiled,
                              spec.players)
    result = {
        "kind": "value",
        "game": p.base.game.name, "title": p.base.game.title,
        "identity": identity(p), "command": command,
        "players": spec.players,
        "strategies": [{"seat": s, "name": n, "params": prm} for s, (n, prm) in
                       enumerate(zip(p.base.lineup.names, p.base.lineup.resolved_params,
                                     strict=True))],
        "rotation": p.base.lineup.rotate, "seed": spec.seed,
        "games": played, "deals": int(totals["m"].shape[1]),
        "kernel_games": played * per_game,
        "stopping": stopping,
        "config": {"source": p.base.config.source, "hash": p.base.config.hash,
                   "overrides": list(spec.overrides),
                   "placeholders": p.base.config.placeholders()},
        "interventions": [{"kind": i.kind, "key": i.key, "name": i.name, "sets": list(i.sets),
                           "withheld_from_seat": i.seat, "a_a": i.fresh_deals}
                          for i in p.interventions],
        "why": why,
        "method": {"estimate": "paired difference per touched seat, as configured minus "
                               "neutralised, on the same deals",
                   "interval": "95%, cluster-robust over deals (linearised ratio)",
                   "multiplicity": f"Benjamini-Hochberg within each kind, FDR "
                                   f"{causal.FDR:g}, on the difference from the kind's "
                                   "average beyond the margin (stronger, weaker) and within "
                                   "it (about average)"},
        "table": t.to_dicts(),
        "elapsed_seconds": round(time.perf_counter() - started, 3),
        "versions": versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    result = json_safe(result)
    write_json(out / VALUE_FILE, result)
    _tidy(out)
    return result


def json_safe(x: Any) -> Any:
    """NaN and infinities as None (JSON has neither)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, list):
        return [json_safe(v) for v in x]
    return x
