"""`simkit balance`: search design parameters for a config where the balance targets pass.

The search space is the `--tune` keys: integers and reals in a range, or a set of values
(options). Optuna's TPE sampler proposes candidates: it handles integers, reals and
categorical options in one model and works with the few dozen noisy candidates a budget of
games affords, where CMA-ES needs a continuous space and large generations; its ask/tell
interface leaves the games per candidate to simkit, and a log of evaluations replays it
exactly (resume).

Every candidate is played on the same deals (common random numbers), so candidates differ
by their rules, not their luck. Successive halving then gives the promising ones more
games: a third of them goes on, each round, on three times the deals. A candidate is
scored by how far the 95% intervals of its estimates reach past each target, on the
side it reaches furthest (0: all inside, as the scorecard's PASS), plus a small cost for
the size of the change, so that among candidates that pass the smallest change wins:
fewer keys changed, and less.

The winner (and the original, for comparison) is then played again on fresh deals the
search never saw (a different master seed), because the best of many noisy candidates
looks better than it is; the caller judges that run's scorecard. Everything is
deterministic in the seed; every evaluation is logged as it finishes, so an interrupted
search resumes where it stopped and ends with the same result.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit import tomlwrite
from simkit.config import GameConfig, lookup, parse_value
from simkit.engine import MAX_SEED, build_lineup
from simkit.errors import ConfigError, SimkitError
from simkit.games import Game, Lineup, get_game
from simkit.intervals import wilson
from simkit.prepare import Settings
from simkit.words import count

SEARCHED = ("seat_advantage", "tie_rate", "game_length")  # targets the search scores
VERIFY_SEED_MIX = 0x9E3779B97F4A7C15  # fresh deals: the verification's master seed
CHANGE_COST = 0.02  # per unit of change (a whole range, or one option), in target units
Z = 1.959963984540054
RUNG_GAMES = 2_000  # the winner at every rung: fewer games than the main verification


@dataclass(frozen=True)
class Knob:
    """One `--tune` key: a range of numbers, or a set of values."""

    key: str
    start: Any
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] = ()
    integer: bool = False

    def distance(self, value: Any) -> float:
        """How big a change `value` is: a fraction of the range, or 1 for another option."""
        if self.choices:
            return 0.0 if value == self.start else 1.0
        assert self.lo is not None and self.hi is not None
        return abs(float(value) - float(self.start)) / max(self.hi - self.lo, 1e-12)

    def describe(self) -> str:
        if self.choices:
            return f"{self.key} in {{{', '.join(map(_show, self.choices))}}}"
        return f"{self.key} in [{_show(self.lo)}, {_show(self.hi)}]"


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def parse_knob(item: str, data: Mapping[str, Any]) -> Knob:
    """`KEY=LO..HI` (a number range) or `KEY=A|B|C` (values) for a key of config `data`."""
    key, sep, raw = item.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise SimkitError(f"--tune {item!r}: expected KEY=LO..HI or KEY=A|B|C, e.g. "
                          "--tune compensation.points.1=0..10")
    start = _lookup(data, key, item)
    if "|" in raw:
        choices = tuple(parse_value(v.strip()) for v in raw.split("|"))
        if len(set(map(repr, choices))) < 2:
            raise SimkitError(f"--tune {item!r}: give at least two different values")
        if start not in choices:
            choices = (start, *choices)
        return Knob(key, start, choices=choices)
    lo_text, dots, hi_text = raw.partition("..")
    lo, hi = parse_value(lo_text.strip()), parse_value(hi_text.strip())
    if not dots or not all(isinstance(v, int | float) and not isinstance(v, bool)
                           for v in (lo, hi)):
        raise SimkitError(f"--tune {item!r}: expected a range LO..HI of numbers, or values "
                          "A|B|C")
    if isinstance(start, bool) or not isinstance(start, int | float):
        raise SimkitError(f"--tune {item!r}: {key} is {_show(start)}, not a number; give "
                          "its values as A|B|C")
    if not lo < hi:
        raise SimkitError(f"--tune {item!r}: the range is empty ({_show(lo)} is not below "
                          f"{_show(hi)})")
    if not lo <= start <= hi:
        raise SimkitError(f"--tune {item!r}: the range must include the current value "
                          f"{_show(start)} (the search starts from it)")
    integer = isinstance(start, int)
    if integer and not (float(lo).is_integer() and float(hi).is_integer()):
        raise SimkitError(f"--tune {item!r}: {key} holds whole numbers; give a whole range")
    return Knob(key, start, int(lo) if integer else float(lo), int(hi) if integer else
                float(hi), integer=integer)


def _lookup(data: Any, key: str, item: str) -> Any:
    try:  # the same addressing as --set: list entries by id or position
        node = lookup(data, key)
    except ConfigError as exc:
        raise SimkitError(f"--tune {item!r}: {exc.key}: {exc.problem}") from None
    if isinstance(node, dict | list):
        raise SimkitError(f"--tune {item!r}: {key} is a table or list; tune one value in it "
                          f"(e.g. {key}.0)")
    return node


@dataclass(frozen=True)
class BalanceSpec(Settings):
    """Everything that determines a balance search's result."""

    game: str
    players: int
    strategies: tuple[str, ...]
    tune: tuple[str, ...]
    budget: int
    seed: int
    targets: Mapping[str, Mapping[str, float]]  # metric -> setting -> value (the scorecard's)
    overrides: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    config_path: str | None = None
    games_per_candidate: int | None = None  # rung 0 (default: from the budget)
    verify_games: int = 20_000
    rung_games: int = RUNG_GAMES  # fresh games per ladder rung judging the winner (0: none)
    # judged at the strongest converged rung: (margin, games of a convergence check); the
    # strategies are then () until simkit.strongest finds the rung
    strongest: tuple[float, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["targets"] = {k: dict(v) for k, v in self.targets.items()}
        if self.strongest is None:  # a search's record from before --rung strongest
            del out["strongest"]
        return out


@dataclass
class Totals:
    """What a candidate's games add up to (extended as it gets more games)."""

    games: int = 0
    share: list[float] = field(default_factory=list)  # per seat: sum of win shares
    share_sq: list[float] = field(default_factory=list)  # per seat: sum of squares
    ties: int = 0
    rounds: float = 0.0
    rounds_sq: float = 0.0

    def add(self, other: Totals) -> Totals:
        if not self.games:
            return Totals(**other.__dict__)
        return Totals(self.games + other.games,
                      [a + b for a, b in zip(self.share, other.share, strict=True)],
                      [a + b for a, b in zip(self.share_sq, other.share_sq, strict=True)],
                      self.ties + other.ties, self.rounds + other.rounds,
                      self.rounds_sq + other.rounds_sq)


def totals_of(cols: Mapping[str, np.ndarray]) -> Totals:
    share = np.asarray(cols["win_share"], np.float64)
    rounds = np.asarray(cols["rounds"], np.float64)[:, 0]
    winners = (np.asarray(cols["rank"]) == 1).sum(axis=1)
    return Totals(int(share.shape[0]), share.sum(axis=0).tolist(),
                  (share ** 2).sum(axis=0).tolist(), int((winners > 1).sum()),
                  float(rounds.sum()), float((rounds ** 2).sum()))


def estimates(t: Totals, players: int) -> dict[str, list[tuple[str, float, float, float]]]:
    """Per searched metric, its items as (label, estimate, lo, hi): each seat's distance
    from the fair share, the tie rate, the mean length (normal intervals; Wilson for ties)."""
    n = t.games
    seats = []
    for s in range(players):
        mean = t.share[s] / n
        var = max(t.share_sq[s] / n - mean * mean, 0.0)
        half = Z * math.sqrt(var / max(n - 1, 1))
        adv = mean - 1.0 / players
        seats.append((f"seat {s}", adv, adv - half, adv + half))
    lo, hi = wilson(t.ties / n, n)
    mean = t.rounds / n
    half = Z * math.sqrt(max(t.rounds_sq / n - mean * mean, 0.0) / max(n - 1, 1))
    return {"seat_advantage": seats, "tie_rate": [("tie rate", t.ties / n, lo, hi)],
            "game_length": [("mean length", mean, mean - half, mean + half)]}


def badness(t: Totals, players: int, targets: Mapping[str, Mapping[str, float]]
            ) -> tuple[float, float]:
    """(how far the intervals reach past the searched targets, summed in units of each
    target's allowance; how far the estimates themselves lie past them). 0 = passes.

    An interval counts on the side it reaches furthest past its band, not both: one wider
    than the band reaches past both limits, and the two overshoots add up to its width
    less the band's whatever its estimate, so a lopsided candidate with a narrower interval
    would rank above a fair one."""
    est = estimates(t, players)
    reach = point = 0.0
    for metric in SEARCHED:
        if metric not in targets:
            continue
        s = targets[metric]
        if metric == "seat_advantage":
            lower, upper = -s["max_points"] / 100, s["max_points"] / 100
            scale = upper
        elif metric == "tie_rate":
            lower, upper = None, s["max_percent"] / 100
            scale = max(upper, 0.01)
        else:
            lower, upper = s.get("min_rounds"), s.get("max_rounds")
            scale = (upper - lower) if lower is not None and upper is not None else \
                max(abs(upper if upper is not None else lower or 1.0), 1.0)
        for _label, e, lo, hi in est[metric]:
            over = max(0.0, hi - upper) if upper is not None else 0.0
            under = max(0.0, lower - lo) if lower is not None else 0.0
            reach += max(over, under) / scale
            point += (max(0.0, e - upper) if upper is not None else 0.0) / scale
            point += (max(0.0, lower - e) if lower is not None else 0.0) / scale
    return reach, point


@dataclass
class Candidate:
    values: dict[str, Any]
    totals: Totals = field(default_factory=Totals)
    rung: int = 0
    order: int = 0  # when the search proposed it
    compiled: Any = field(default=None, repr=False)  # its rules, compiled when first played

    def key(self) -> str:
        return json.dumps(self.values, sort_keys=True)


@dataclass
class Search:
    """A prepared balance search (validated before any game is played)."""

    spec: BalanceSpec
    game: Game
    config: GameConfig
    lineup: Lineup
    knobs: list[Knob]
    per: int  # rung-0 games per candidate (whole deals)
    first_rung: int  # candidates the first rung may play
    log: Path | None = None
    cache: dict[tuple[str, int, int], Totals] = field(default_factory=dict)
    played: int = 0  # games played in this process (not from the log)

    def overrides(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        return (*self.spec.overrides, *(f"{k}={json.dumps(v)}" for k, v in values.items()
                                        if v != self.start[k]))

    @functools.cached_property
    def start(self) -> dict[str, Any]:
        """The original value of every tuned key."""
        return {k.key: k.start for k in self.knobs}

    def change(self, values: Mapping[str, Any]) -> tuple[int, float]:
        """(keys changed, summed size of the change) from the original config."""
        moved = [k.distance(values[k.key]) for k in self.knobs]
        return sum(d > 0 for d in moved), sum(moved)

    def score(self, c: Candidate) -> float:
        reach, _ = badness(c.totals, self.spec.players, self.spec.targets)
        return reach + CHANGE_COST * self.change(c.values)[1]

    def evaluate(self, c: Candidate, first: int, n: int) -> None:
        """Play candidate `c` on games first..first+n-1 of the search's seed (the same
        games for every candidate), or read them from the log."""
        cache_key = (c.key(), first, n)
        if cache_key not in self.cache:
            if c.compiled is None:  # once per candidate, whatever rungs it plays
                config = self.game.load_config(self.overrides(c.values), self.config_path)
                try:
                    c.compiled = self.game.compile(config)
                except ConfigError as exc:
                    raise SimkitError(f"--tune: candidate {c.values} is not a valid config: "
                                      f"{exc}") from None
            cols = self.game.simulate(c.compiled, self.lineup, self.spec.seed, first, n)
            self.cache[cache_key] = totals_of(cols)
            self.played += n
            if self.log is not None:
                append_line(self.log, {"values": c.values, "first": first, "games": n,
                                       "totals": self.cache[cache_key].__dict__})
        c.totals = c.totals.add(self.cache[cache_key])

    @property
    def config_path(self) -> Path | None:
        return Path(self.spec.config_path) if self.spec.config_path else None


def append_line(path: Path, record: Mapping[str, Any]) -> None:
    """Append one JSON line and make it durable before going on (resume reads it)."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read_log(path: Path) -> dict[tuple[str, int, int], Totals]:
    """The evaluations a previous, interrupted search logged (a torn last line is
    dropped: that evaluation is played again)."""
    out: dict[tuple[str, int, int], Totals] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        out[(json.dumps(r["values"], sort_keys=True), r["first"], r["games"])] = \
            Totals(**r["totals"])
    return out


def prepare(spec: BalanceSpec) -> Search:
    """Validate a balance search: every key, range and the budget, in one line each."""
    game = get_game(spec.game)
    path = Path(spec.config_path) if spec.config_path else None
    config = game.load_config(spec.overrides, path)
    compiled = game.compile(config)
    if spec.players not in game.players(compiled):
        raise SimkitError(f"{game.title} is played by "
                          f"{', '.join(map(str, game.players(compiled)))} players, not "
                          f"{spec.players}")
    if not spec.tune:
        raise SimkitError("--tune: name at least one config key to search, e.g. "
                          "--tune compensation.points.1=0..10")
    knobs = [parse_knob(item, config.data) for item in spec.tune]
    if len({k.key for k in knobs}) < len(knobs):
        raise SimkitError("--tune: a key is given twice")
    for k in knobs:  # both ends of every range (and every value) must be a valid config
        for v in (k.choices or (k.lo, k.hi)):
            try:
                game.compile(game.load_config((*spec.overrides, f"{k.key}={json.dumps(v)}"),
                                              path))
            except ConfigError as exc:
                raise SimkitError(f"--tune {k.key}: {_show(v)} is outside what the game "
                                  f"allows: {exc}") from None
    if not 0 <= spec.seed <= MAX_SEED:
        raise SimkitError(f"--seed must be between 0 and 2**64-1, not {spec.seed}")
    if not any(m in spec.targets for m in SEARCHED):
        raise SimkitError("the targets set none of seat_advantage, tie_rate, game_length: "
                          "nothing to search for")
    lineup = build_lineup(game, list(spec.strategies), spec.players, spec.params)
    per = spec.games_per_candidate or max(100 * spec.players, spec.budget // 100)
    per = -(-per // spec.players) * spec.players
    first_rung = spec.budget // (2 * per)
    if first_rung < 2:
        raise SimkitError(f"--budget {spec.budget:,} games is too small: the search needs "
                          f"at least {4 * per:,} (2 candidates x {per:,} games, then more "
                          "games for the better one); raise --budget or lower "
                          "--games-per-candidate")
    if spec.rung_games and spec.rung_games < spec.players:
        raise SimkitError(f"--rung-games must be 0 (no check at every rung) or at least "
                          f"{spec.players}, not {spec.rung_games}")
    if spec.verify_games < spec.players:
        raise SimkitError(f"--verify-games must be at least {spec.players}, not "
                          f"{spec.verify_games}")
    return Search(spec, game, config, lineup, knobs, per, first_rung)


@dataclass
class Outcome:
    """The search's result: candidates best first, and its trajectory."""

    ranked: list[Candidate]
    trajectory: list[tuple[int, float, float]]  # (games so far, candidate score, best so far)
    games: int


def search(s: Search, progress: Callable[[int, str], None] | None = None) -> Outcome:
    """Propose candidates with TPE on rung 0, then race the best on more games."""
    import optuna
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists: dict[str, Any] = {}
    for k in s.knobs:
        if k.choices:
            dists[k.key] = CategoricalDistribution([json.dumps(c) for c in k.choices])
        elif k.integer:
            dists[k.key] = IntDistribution(int(k.lo), int(k.hi))
        else:
            dists[k.key] = FloatDistribution(float(k.lo), float(k.hi))
    sampler = optuna.samplers.TPESampler(seed=int(s.spec.seed % (2**32)),
                                         n_startup_trials=min(10, s.first_rung // 2),
                                         multivariate=True)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.enqueue_trial({k.key: json.dumps(k.start) if k.choices else k.start
                         for k in s.knobs})
    seen: dict[str, Candidate] = {}
    trajectory: list[tuple[int, float, float]] = []
    games = 0
    best = math.inf

    def note(c: Candidate, n: int) -> None:
        nonlocal games, best
        games += n
        value = s.score(c)
        best = min(best, value)
        trajectory.append((games, value, best))
        if progress is not None:
            progress(n, f"rung {c.rung}: {len(seen)} candidates, best score {best:.3f}")

    attempts = 0
    while len(seen) < s.first_rung and attempts < 20 * s.first_rung:
        attempts += 1
        trial = study.ask(dists)
        values = {k.key: _round(k, trial.params[k.key]) for k in s.knobs}
        c = Candidate(values, order=len(seen))
        if c.key() in seen:  # the same config again: its score, without playing it again
            study.tell(trial, s.score(seen[c.key()]))
            continue
        seen[c.key()] = c
        s.evaluate(c, 0, s.per)
        note(c, s.per)
        study.tell(trial, s.score(c))
    # Successive halving: a third goes on each rung, on three times the games.
    alive = sorted(seen.values(), key=lambda c: (s.score(c), c.order))
    have, rung = s.per, 0
    left = s.spec.budget - games
    while left > 0 and len(alive) > 1:
        rung += 1
        keep = max(min(3, len(alive)), len(alive) // 3)
        alive = alive[:keep]
        target = have * 3
        if (target - have) * len(alive) > left:  # the last rung: what the budget allows
            target = have + (left // len(alive)) // s.spec.players * s.spec.players
        if target <= have:
            break
        for c in alive:
            c.rung = rung
            s.evaluate(c, have, target - have)
            note(c, target - have)
        left -= (target - have) * len(alive)
        have = target
        alive.sort(key=lambda c: (s.score(c), c.order))
        if len(alive) <= 3:
            break
    finalists = {c.key() for c in alive}
    rest = sorted((c for c in seen.values() if c.key() not in finalists),
                  key=lambda c: (-c.totals.games, s.score(c), c.order))
    return Outcome(rank(s, alive) + rest, trajectory, games)


def rank(s: Search, finalists: list[Candidate]) -> list[Candidate]:
    """Finalists best first: those whose intervals meet every searched target, smallest
    change first (fewer keys, then less); then the rest by how far they miss."""
    def key(c: Candidate) -> tuple:
        reach, point = badness(c.totals, s.spec.players, s.spec.targets)
        keys, size = s.change(c.values)
        return (reach > 0, (reach, point) if reach > 0 else (keys, size), c.order)
    return sorted(finalists, key=key)


def _round(k: Knob, value: Any) -> Any:
    """A proposed value as the config holds it (reals to 4 significant digits of the
    range, so near-identical candidates are one)."""
    if k.choices:
        return json.loads(value)
    if k.integer:
        return int(value)
    step = (k.hi - k.lo) / 10_000
    return float(round(round(value / step) * step, 10))


def verify_seed(seed: int) -> int:
    """The master seed of the verification runs: deals the search never played."""
    return seed ^ VERIFY_SEED_MIX


def patch_text(s: Search, values: Mapping[str, Any]) -> str:
    """The winning change as TOML (dotted keys) with the equivalent `--set` arguments."""
    changed = {k: v for k, v in values.items() if v != s.start[k]}
    return change_text(s.spec.game, changed, s.start, "simkit balance", "balanced.toml")


def change_text(game: str, changed: Mapping[str, Any], before: Mapping[str, Any],
                found_by: str, whole: str) -> str:
    """patch.toml: a change as `--set` arguments, each key's value before it, and the
    command that plays it (`simkit balance` and `simkit studio` write it)."""
    sets = [f"{k}={json.dumps(v)}" for k, v in changed.items()]
    lines = [f"# The change `{found_by}` found: each item is a --set argument. Play it with",
             f"#   simkit run {game} "
             f"{' '.join(f'--set {x}' for x in sets) or '(no change needed)'} ...",
             f"# or with --config {whole} (the whole config with this change).",
             f"game = {json.dumps(game)}",
             f"set = {tomlwrite.value(sets)}", "", "[from]  # each changed key's value before"]
    lines += [f"{tomlwrite.key(k)} = {tomlwrite.value(before[k])}" for k in changed]
    return "\n".join(lines) + "\n"


def result(s: Search, outcome: Outcome, verified: Mapping[str, Any]) -> dict[str, Any]:
    """The search's result for the manifest: the winner, the candidates shown, the
    verdict in words (from the verification runs' scorecards, one row per target)."""
    winner = outcome.ranked[0]
    after = {r["metric"]: r["verdict"] for r in verified["after"].iter_rows(named=True)}
    before = {r["metric"]: r["verdict"] for r in verified["before"].iter_rows(named=True)}
    searched = [m for m in SEARCHED if m in after]
    passed = all(after[m] == "PASS" for m in searched)
    keys, size = s.change(winner.values)
    changes = {k: v for k, v in winner.values.items() if v != s.start[k]}
    if not keys:
        verdict = ("No change: the original config is the best candidate. " +
                   ("Its searched targets all PASS on fresh deals." if passed else
                    "No candidate did better on the searched targets; closest is the "
                    "original itself (see the candidates)."))
    elif passed:
        verdict = (f"Found: {', '.join(f'{k} = {_show(v)}' for k, v in changes.items())} "
                   f"({count(keys, 'key')} changed) passes every searched target on "
                   f"{s.spec.verify_games:,} fresh games.")
    else:
        verdict = (f"No candidate passes every searched target on fresh deals. The closest: "
                   f"{', '.join(f'{k} = {_show(v)}' for k, v in changes.items())}; "
                   + "; ".join(f"{m} {after[m]}" for m in searched) + ".")
    return {
        "verdict": verdict, "passed": passed, "winner": winner.values, "changes": changes,
        "keys_changed": keys, "change_size": size, "search_games": outcome.games,
        "verify_seed": verify_seed(s.spec.seed), "before": before, "after": after,
        "candidates": [candidate_row(s, c) for c in outcome.ranked[:5]],
        "trajectory": outcome.trajectory,
    }


def candidate_row(s: Search, c: Candidate) -> dict[str, Any]:
    """One candidate as the report's table shows it (its search games' estimates)."""
    est = estimates(c.totals, s.spec.players)
    keys, size = s.change(c.values)
    reach, _ = badness(c.totals, s.spec.players, s.spec.targets)
    worst = max(est["seat_advantage"], key=lambda it: abs(it[1]))
    return {"values": c.values, "keys_changed": keys, "change_size": round(size, 4),
            "games": c.totals.games, "misses_by": round(reach, 4),
            "worst_seat": worst[0], "worst_seat_advantage": worst[1],
            "tie_rate": est["tie_rate"][0][1], "mean_length": est["game_length"][0][1]}


def write_manifest(path: Path, spec: BalanceSpec, command: str,
                   outcome: Mapping[str, Any] | None) -> None:
    """balance.json: the spec (what a resume must match), the command, and the result
    once there is one."""
    from simkit.paramfile import write_text_atomic

    data = {"kind": "balance", "command": command, "spec": spec.as_dict(),
            "result": outcome}
    write_text_atomic(path, json.dumps(data, indent=1, default=str) + "\n")

