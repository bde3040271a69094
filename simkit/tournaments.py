"""`simkit tournament`: every strategy in every seat over the same deals; a win matrix and
Plackett-Luce ratings.

Lineups. With K strategies and N seats, every lineup holds min(K, N) different strategies:
- K >= N: every N-combination of the K strategies;
- K < N: every multiset of N seats that uses each strategy at least once (K=2, N=4:
  aaab, aabb, abbb), so no strategy is favoured by holding more seats overall.
Every lineup plays the same deals (the same seed: deal d is the same cards for all of
them), and within a deal the lineup rotates through the seats as in any run, so each
strategy sits in each seat once per deal.

The games are played in-process with `Game.simulate` rather than as one run folder per
lineup: a tournament needs only each game's ranks and win shares, and playing every
lineup chunk by chunk lets the ratings see the games in deal order (the same order
whatever the chunk size). It is meant for up to a few million games.

Resuming. With a folder, `play` saves each lineup's games of a chunk of deals as they
finish (ranks and win shares, `lineups.partial/`), and after each whole chunk the exact
state (integer totals, the ratings' mu and sigma, deals done) in
`tournament.progress.json`, dropping that chunk's lineup files. The same command started
again continues from there, skipping the lineups already played in the unfinished chunk;
totals are integers and the ratings see the games in the same order, so the final files
are byte for byte those of an uninterrupted run (timing lives apart, in timing.json).
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import time
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit import folders
from simkit.deals import DealTotals
from simkit.engine import MAX_SEED, build_lineup
from simkit.errors import SimkitError, on_disk
from simkit.games import Game, Lineup, get_game
from simkit.paramfile import write_text_atomic
from simkit.prepare import PlaySpec
from simkit.ratings import RATING, RATING_ORDER, Ratings
from simkit.results import versions
from simkit.slices import Interrupted, Slicer
from simkit.summary import win_scale
from simkit.threads import get_threads

TOURNAMENT_FILE = "tournament.json"
PROGRESS_FILE = "tournament.progress.json"  # an unfinished tournament's state
PARTS_DIR = "lineups.partial"  # lineups finished in the unfinished chunk, one file each
TIMING_FILE = "timing.json"  # when and how long: kept out of tournament.json
DEFAULT_CHUNK_DEALS = 4096
@dataclass(frozen=True)
class TournamentSpec(PlaySpec):
    """Everything that determines a tournament's results. `games` is per lineup, rounded up
    to whole deals (a multiple of players); `strategies` are the strategies to rank."""

    overrides: tuple[str, ...] = ()
    config_path: str | None = None

    def command(self, out: str) -> str:
        return shlex.join(["simkit", "tournament", self.game, *self.play_args(out),
                           *self.setting_args()])


def lineups_of(k: int, n: int) -> list[tuple[int, ...]]:
    """The lineups (strategy indices, one per seat) a tournament of k strategies plays."""
    if k >= n:
        return list(itertools.combinations(range(k), n))
    return [c for c in itertools.combinations_with_replacement(range(k), n)
            if len(set(c)) == k]


@dataclass
class Plan:
    """A validated tournament: the game, its rules and one `Lineup` per combination."""

    spec: TournamentSpec
    game: Game
    config: Any
    compiled: Any
    combos: list[tuple[int, ...]]
    lineups: list[Lineup]
    params: list[dict[str, float]]  # resolved parameters per strategy
    deals: int  # deals each lineup plays

    @property
    def games_per_lineup(self) -> int:
        return self.deals * self.spec.players

    @property
    def total_games(self) -> int:
        return self.games_per_lineup * len(self.lineups)

    def identity(self) -> dict[str, Any]:
        out = {"game": self.spec.game, "players": self.spec.players,
               "strategies": list(self.spec.strategies), "params": self.params,
               "games_per_lineup": self.games_per_lineup, "seed": self.spec.seed,
               "config_hash": self.config.hash}
        plugins = {name: digest for lineup in self.lineups for name, digest in lineup.plugins}
        if plugins:  # only when used: a changed plug-in file is another tournament
            out["plugins"] = dict(sorted(plugins.items()))
        return out


def plan(spec: TournamentSpec) -> Plan:
    """Validate a tournament before any game is played."""
    game = get_game(spec.game)
    config = game.load_config(spec.overrides,
                              Path(spec.config_path) if spec.config_path else None)
    compiled = game.compile(config)
    if spec.players not in game.players(compiled):
        raise SimkitError(f"{game.title} is played by "
                          f"{', '.join(map(str, game.players(compiled)))} players, "
                          f"not {spec.players}")
    names = list(spec.strategies)
    if len(names) < 2:
        raise SimkitError("--strategies: a tournament needs at least 2 strategies, "
                          f"got {len(names)}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise SimkitError(f"--strategies lists {', '.join(repeated)} more than once")
    if spec.games < 1:
        raise SimkitError(f"--games must be at least 1, not {spec.games}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SimkitError(f"--seed must be between 0 and 2**64-1, not {spec.seed}")
    combos = lineups_of(len(names), spec.players)
    lineups = [build_lineup(game, [names[i] for i in c], spec.players) for c in combos]
    params: list[dict[str, float]] = [{} for _ in names]
    for combo, lineup in zip(combos, lineups, strict=True):
        for i, resolved in zip(combo, lineup.resolved_params, strict=True):
            params[i] = resolved
    deals = -(-spec.games // spec.players)
    return Plan(spec, game, config, compiled, combos, lineups, params, deals)


@dataclass
class Totals:
    """What a tournament accumulates: per ordered pair, i ahead of j (ties 1/2, scaled by
    2) per comparison of a seat of i with a seat of j; per strategy, win share per seat."""

    k: int
    players: int
    pairs: list[list[DealTotals]] = field(default_factory=list)
    wins: list[DealTotals] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.pairs = [[DealTotals(2) for _ in range(self.k)] for _ in range(self.k)]
        self.wins = [DealTotals(win_scale(self.players)) for _ in range(self.k)]


def _accumulate(totals: Totals, tid: np.ndarray, rank: np.ndarray, share: np.ndarray,
                deals: int) -> tuple[np.ndarray, ...]:
    """Per-deal totals of one lineup's games (tid, rank, share: (games, seats) arrays;
    the games cover `deals` whole deals): pair y, pair m, win y, win m."""
    k, n = totals.k, totals.players
    deal = np.arange(tid.shape[0]) // n
    size = k * k * deals
    pair_y = np.zeros(size, np.int64)
    pair_m = np.zeros(size, np.int64)
    win_y = np.zeros(k * deals, np.int64)
    win_m = np.zeros(k * deals, np.int64)
    for s in range(n):
        idx = tid[:, s] * deals + deal
        win_y += np.bincount(idx, weights=share[:, s], minlength=k * deals).astype(np.int64)
        win_m += np.bincount(idx, minlength=k * deals)
        for u in range(n):
            keep = tid[:, s] != tid[:, u]
            if u == s or not keep.any():
                continue
            ahead = 2 * (rank[:, s] < rank[:, u]) + (rank[:, s] == rank[:, u])
            idx = (tid[:, s] * k + tid[:, u]) * deals + deal
            pair_y += np.bincount(idx[keep], weights=ahead[keep],
                                  minlength=size).astype(np.int64)
            pair_m += np.bincount(idx[keep], minlength=size)
    return pair_y, pair_m, win_y, win_m


@dataclass
class Result:
    plan: Plan
    totals: Totals
    ratings: list[tuple[float, float, float]]  # (mu, sigma, ordinal) per strategy
    elapsed: float  # seconds playing, this session
    resumed_games: int = 0  # games of whole chunks played by earlier sessions
    total_elapsed: float | None = None  # seconds over every session
    sessions: int = 1

    def matrix(self) -> list[dict[str, Any]]:
        """Per ordered pair (i, j): the share of comparisons in which i finished ahead of j
        (ties 1/2), with its deal-clustered 95% interval."""
        names = self.plan.spec.strategies
        out = []
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i == j:
                    continue
                t = self.totals.pairs[i][j]
                p, lo, hi = t.share()
                out.append({"strategy": a, "opponent": b, "ahead": p, "ahead_lo": lo,
                            "ahead_hi": hi, "comparisons": t.m, "deals": t.c})
        return out

    def standings(self) -> list[dict[str, Any]]:
        """Strategies by rating ordinal, best first, with their win share per seat."""
        names = self.plan.spec.strategies
        rows = []
        for i, name in enumerate(names):
            mu, sigma, ordinal = self.ratings[i]
            ws, lo, hi = self.totals.wins[i].share()
            rows.append({"strategy": name, "mu": mu, "sigma": sigma, "ordinal": ordinal,
                         "win_share": ws, "win_share_lo": lo, "win_share_hi": hi,
                         "seats_played": self.totals.wins[i].m})
        rows.sort(key=lambda r: -r["ordinal"])
        for place, row in enumerate(rows, start=1):
            row["place"] = place
        return rows


class Stopped(KeyboardInterrupt):
    """Ctrl-C while a lineup played a chunk: `part` holds its first `deals` deals' games
    (None if none), to be saved; `cause` is the interrupt, raised again after."""

    def __init__(self, deals: int, part: tuple[np.ndarray, ...] | None,
                 cause: BaseException) -> None:
        super().__init__()
        self.deals, self.part, self.cause = deals, part, cause


def _simulate(p: Plan, index: int, d0: int, cd: int,
              slicers: dict[int, Slicer] | None = None) -> tuple[np.ndarray, ...]:
    """Lineup `index`'s games on deals d0..d0+cd: (strategy index, rank, scaled win share)
    per game and seat. Played in slices (`simkit/slices.py`) so that Ctrl-C stops within
    about a second, raising Stopped with the deals finished."""
    n = p.spec.players
    try:
        cols = _slicer(p, index, {} if slicers is None else slicers).chunk(d0 * n, cd * n)
    except Interrupted as stop:
        part = None if stop.columns is None else _part_of(p, index, stop.columns)
        raise Stopped(stop.done // n, part, stop.cause) from None
    return _part_of(p, index, cols)


def _slicer(p: Plan, index: int, slicers: dict[int, Slicer]) -> Slicer:
    """Lineup `index`'s slicer (made once: it learns the lineup's pace)."""
    if index not in slicers:
        n, lineup = p.spec.players, p.lineups[index]
        slicers[index] = Slicer(lambda first, k: p.game.simulate(
            p.compiled, lineup, p.spec.seed, first, k), get_threads() * n, step=n)
    return slicers[index]


def _part_of(p: Plan, index: int, cols: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    n = p.spec.players
    tid = np.asarray(p.combos[index], np.int64)[cols["strategy"].astype(np.int64)]
    rank = cols["rank"].astype(np.int64)
    share = np.rint(cols["win_share"].astype(np.float64) * win_scale(n)).astype(np.int64)
    return tid, rank, share


def _join(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    return tuple(np.concatenate([x, y]) for x, y in zip(a, b, strict=True))


class Checkpoint:
    """An unfinished tournament's files in its folder (module docstring, "Resuming")."""

    def __init__(self, out: Path, p: Plan) -> None:
        self.out, self.p = out, p
        self.parts = out / PARTS_DIR

    def _part(self, d0: int, cd: int, index: int, deals: int | None = None) -> Path:
        head = "" if deals is None else f"_first_{deals}"  # a Ctrl-C's first deals
        return self.parts / f"deals_{d0}_{cd}_lineup_{index}{head}.npz"

    def read_head(self, d0: int, cd: int, index: int) -> tuple[int, tuple[np.ndarray, ...]] | None:
        """The first deals of a lineup's chunk saved at a Ctrl-C: (deals, part), or None."""
        found = sorted(self.parts.glob(f"deals_{d0}_{cd}_lineup_{index}_first_*.npz")
                       ) if self.parts.is_dir() else []
        for path in found:
            deals = int(path.stem.rsplit("_", 1)[1])
            part = self.read_part(d0, deals, index, path)
            if part is not None and 0 < deals < cd:
                return deals, part
        return None

    def read_part(self, d0: int, cd: int, index: int,
                  path: Path | None = None) -> tuple[np.ndarray, ...] | None:
        """A lineup's games of the chunk at d0 (cd deals), if saved whole; else None."""
        path = self._part(d0, cd, index) if path is None else path
        if not path.exists():
            return None
        try:
            with np.load(path) as data:
                part = (data["tid"].astype(np.int64), data["rank"].astype(np.int64),
                        data["share"].astype(np.int64))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None  # unreadable: play it again
        rows = cd * self.p.spec.players
        return part if all(a.shape == (rows, self.p.spec.players) for a in part) else None

    def write_part(self, d0: int, cd: int, index: int, part: tuple[np.ndarray, ...],
                   deals: int | None = None) -> None:
        """Save a lineup's games of the chunk at d0, or with `deals` its first deals."""
        path = self._part(d0, cd, index, deals)
        tmp = path.with_name(path.name + ".tmp")
        tid, rank, share = part
        try:
            self.parts.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                np.savez(f, tid=tid.astype(np.int16), rank=rank.astype(np.int16),
                         share=share.astype(np.int32))
            os.replace(tmp, path)
        except OSError as exc:
            raise SimkitError(f"--out {self.out}: cannot save progress "
                              f"({on_disk(exc, self.out)})") from None

    def load(self) -> dict[str, Any] | None:
        """The saved state of this very tournament, or None."""
        state = _read_json(self.out / PROGRESS_FILE)
        if state is None or state.get("identity") != self.p.identity():
            return None
        return state

    def save(self, deals_done: int, totals: Totals, ratings: Ratings, elapsed: float,
             sessions: int) -> None:
        """The state after `deals_done` whole deals of every lineup; then that chunk's
        lineup files are no longer needed."""
        state = {"identity": self.p.identity(), "command": self.p.spec.command(str(self.out)),
                 "deals_done": deals_done, "deals": self.p.deals,
                 "wins": [asdict(t) for t in totals.wins],
                 "pairs": [[asdict(t) for t in row] for row in totals.pairs],
                 "ratings": ratings.state(), "elapsed_seconds": elapsed, "sessions": sessions}
        write_text_atomic(self.out / PROGRESS_FILE, json.dumps(state) + "\n")
        for path in self.parts.glob("deals_*.npz") if self.parts.exists() else ():
            if not path.name.startswith(f"deals_{deals_done}_"):
                path.unlink(missing_ok=True)

    def games_done(self, chunk_deals: int) -> int:
        """Games already played: whole chunks, and saved lineups (or their first deals) of
        the next chunk."""
        state = self.load()
        done = 0 if state is None else state["deals_done"]
        n, count = self.p.spec.players, len(self.p.lineups)
        cd = min(chunk_deals, self.p.deals - done)
        saved = 0
        for i in range(count if cd else 0):
            head = self.read_head(done, cd, i)
            saved += cd if self.read_part(done, cd, i) is not None else (
                head[0] if head else 0)
        return (done * count + saved) * n

    def clear(self) -> None:
        """Remove the progress files (a finished, or a replaced, tournament)."""
        (self.out / PROGRESS_FILE).unlink(missing_ok=True)
        folders.clear_subfolder(self.parts, folders.TOURNAMENT.pattern(PARTS_DIR))


def play(p: Plan, chunk_deals: int = DEFAULT_CHUNK_DEALS,
         progress: Callable[[int], None] | None = None, out: Path | None = None) -> Result:
    """Play every lineup over the same deals, chunk by chunk; results never depend on the
    chunk size (integer totals; ratings fed in deal order). With `out`, progress is saved
    there as it goes and a saved tournament continues where it stopped (module docstring);
    `progress` then counts only the games played now."""
    if chunk_deals < 1:
        raise SimkitError(f"--chunk-size must be at least 1, not {chunk_deals}")
    n, k = p.spec.players, len(p.spec.strategies)
    totals = Totals(k, n)
    ratings = Ratings(k)
    started = time.perf_counter()
    checkpoint = None if out is None else Checkpoint(out, p)
    slicers: dict[int, Slicer] = {}  # each lineup learns its own pace
    state = None if checkpoint is None else checkpoint.load()
    first, before, sessions = 0, 0.0, 1
    if state is not None:
        first, before, sessions = (state["deals_done"], state["elapsed_seconds"],
                                   state["sessions"] + 1)
        ratings.restore(state["ratings"])
        totals.wins = [DealTotals(**t) for t in state["wins"]]
        totals.pairs = [[DealTotals(**t) for t in row] for row in state["pairs"]]
    elif checkpoint is not None:  # mark the folder as this tournament's before any part
        checkpoint.save(0, totals, ratings, 0.0, sessions)
    for d0 in range(first, p.deals, chunk_deals):
        cd = min(chunk_deals, p.deals - d0)
        pair_y = np.zeros(k * k * cd, np.int64)
        pair_m = np.zeros_like(pair_y)
        win_y = np.zeros(k * cd, np.int64)
        win_m = np.zeros_like(win_y)
        games = []
        for index in range(len(p.lineups)):
            part = None if checkpoint is None else checkpoint.read_part(d0, cd, index)
            if part is None:
                part = _play_part(p, index, d0, cd, slicers, checkpoint, progress)
            tid, rank, share = part
            for total, add in zip((pair_y, pair_m, win_y, win_m),
                                  _accumulate(totals, tid, rank, share, cd), strict=True):
                total += add
            games.append((tid.tolist(), rank.tolist()))
        for i in range(k):
            totals.wins[i].add(win_y[i * cd:(i + 1) * cd], win_m[i * cd:(i + 1) * cd])
            for j in range(k):
                at = (i * k + j) * cd
                totals.pairs[i][j].add(pair_y[at:at + cd], pair_m[at:at + cd])
        for d in range(cd):  # ratings in deal order, whatever the chunking
            for tids, ranks in games:
                for g in range(d * n, (d + 1) * n):
                    ratings.update(tids[g], ranks[g])
        if checkpoint is not None:
            checkpoint.save(d0 + cd, totals, ratings,
                            before + time.perf_counter() - started, sessions)
    elapsed = time.perf_counter() - started
    return Result(p, totals, ratings.table(), elapsed, first * n * len(p.lineups),
                  before + elapsed, sessions)


def _play_part(p: Plan, index: int, d0: int, cd: int, slicers: dict[int, Slicer],
               checkpoint: Checkpoint | None,
               progress: Callable[[int], None] | None) -> tuple[np.ndarray, ...]:
    """Play (and save) lineup `index`'s chunk at d0, after the first deals a Ctrl-C
    saved; at a Ctrl-C, the deals finished are saved and the interrupt raised again."""
    head = None if checkpoint is None else checkpoint.read_head(d0, cd, index)
    done, before = (0, None) if head is None else head
    _slicer(p, index, slicers).progress = progress  # counted every slice, not every chunk
    try:
        rest = _simulate(p, index, d0 + done, cd - done, slicers)
    except Stopped as stop:
        if checkpoint is not None and stop.part is not None:
            kept = stop.part if before is None else _join(before, stop.part)
            checkpoint.write_part(d0, cd, index, kept, done + stop.deals)
        raise stop.cause from None
    part = rest if before is None else _join(before, rest)
    if checkpoint is not None:
        checkpoint.write_part(d0, cd, index, part)
    return part


def check_folder(out: Path, p: Plan, force: bool) -> str:
    """"new", "resume" (this tournament, unfinished) or "done" (this tournament, finished);
    refuses a different tournament unless `force`, and a folder holding anything but a
    simkit tournament unless it is empty (`folders.claim`)."""
    return folders.claim(out, folders.TOURNAMENT, p.identity(),
                         lambda: (read_record(out), _read_json(out / PROGRESS_FILE)), force)


def start(out: Path, p: Plan) -> None:
    """Make `out` ready for a new tournament: an earlier one's files go, and only they."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        folders.remove_owned(out, folders.TOURNAMENT)
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write there "
                          f"({on_disk(exc, out)})") from None


def run(p: Plan, out: Path, chunk_deals: int = DEFAULT_CHUNK_DEALS, force: bool = False,
        started: Callable[[str, int], Callable[[int], None] | None] | None = None,
        write_report: Callable[[dict[str, Any], Path], Any] | None = None,
        ) -> tuple[dict[str, Any], str, int]:
    """Play tournament `p` into `out`, holding its lock: a new one, the rest of an
    interrupted one, or nothing if it is done. Returns (record, state, games played
    before). `started(state, games before)` is told before any game and may return the
    progress callback; `write_report` writes the CSVs and pages (`tn.write`)."""
    if chunk_deals < 1:
        raise SimkitError(f"--chunk-size must be at least 1, not {chunk_deals}")
    with folders.locked(out):
        state = check_folder(out, p, force)
        if state == "done":
            record = read_record(out)
            assert record is not None
            return record, state, p.total_games
        done = 0
        if state == "new":
            start(out, p)
        else:
            done = Checkpoint(out, p).games_done(chunk_deals)
        progress = started(state, done) if started is not None else None
        result = play(p, chunk_deals, progress=progress, out=out)
        return write(result, out, write_report), state, done


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def read_record(out: Path) -> dict[str, Any] | None:
    return _read_json(out / TOURNAMENT_FILE)


def record(result: Result, out: Path) -> dict[str, Any]:
    """tournament.json: identity, the command, the lineups and every result."""
    p = result.plan
    return {
        "identity": p.identity(),
        "command": p.spec.command(str(out)),
        "game": p.game.name,
        "title": p.game.title,
        "players": p.spec.players,
        "strategies": [{"name": n, "params": prm}
                       for n, prm in zip(p.spec.strategies, p.params, strict=True)],
        "lineups": [list(lineup.names) for lineup in p.lineups],
        "deals": p.deals,
        "games_per_lineup": p.games_per_lineup,
        "games": p.total_games,
        "seed": p.spec.seed,
        "config": {"source": p.config.source, "hash": p.config.hash,
                   "overrides": list(p.spec.overrides),
                   "placeholders": p.config.placeholders()},
        "rating": {"model": RATING, "order": RATING_ORDER},
        "standings": result.standings(),
        "win_matrix": result.matrix(),
        "versions": versions(),
    }  # no time in it: the same tournament gives the same bytes (timing.json has them)


def write(result: Result, out: Path,
          write_report: Callable[[dict[str, Any], Path], Any] | None) -> dict[str, Any]:
    """Write tournament.json and timing.json, and with `write_report` (the caller's:
    `reports.tournament.write_report`) win_matrix.csv, ratings.csv, tournament.md and
    .html."""
    rec = record(result, out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / TOURNAMENT_FILE).unlink(missing_ok=True)  # until the new files are complete
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write there "
                          f"({on_disk(exc, out)})") from None
    try:
        if write_report is not None:
            write_report(rec, out)
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write the tournament's files "
                          f"({on_disk(exc, out)}); its progress is kept: rerun the same command"
                          ) from None
    elapsed = result.elapsed if result.total_elapsed is None else result.total_elapsed
    write_text_atomic(out / TIMING_FILE, json.dumps({
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "elapsed_seconds": round(elapsed, 3), "sessions": result.sessions}, indent=2) + "\n")
    write_text_atomic(out / TOURNAMENT_FILE, json.dumps(rec, indent=2) + "\n")
    Checkpoint(out, result.plan).clear()
    return rec
