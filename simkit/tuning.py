"""`simkit tune`: search a strategy's parameters (CMA-ES) to maximise its win share.

The search works in [0, 1]^d, each parameter scaled from its [lo, hi] range. Generation g
plays every candidate against the `--against` strategies on the same deals (common random
numbers, seats rotating within each deal), so candidates differ by their play, not by
their cards; the next generation gets new deals, so the search cannot fit one set of
deals. CMA-ES (the `cma` package, seeded) proposes the candidates; the result is its final
mean (`xfavorite`), which a noisy objective estimates better than the single luckiest
candidate.

The strategy is resolved as `simkit run` resolves it (`engine.build_lineup`): a built-in,
a plug-in `FILE.py:FUNCTION` or a registered plug-in name, each searched over the
parameters it declares, within their declared ranges. Opponents may be plug-ins too.

The result is then measured on fresh deals, which the search never played (deals from
2**40 on): the tuned and the untuned (starting) parameters against the same lineup, paired
by deal, and the tuned strategy against copies of its untuned self.
"""

from __future__ import annotations

import math
import shlex
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit import plugins, tomlwrite
from simkit.deals import DealTotals
from simkit.engine import MAX_SEED, build_lineup, load_plugins
from simkit.errors import SimkitError
from simkit.games import Game, Lineup, get_game
from simkit.paramfile import split_token, write_text_atomic
from simkit.prepare import Settings
from simkit.summary import win_scale
from strategies import Param, StrategySpec

EVAL_DEAL = 1 << 40  # the evaluation's first deal: far beyond any search
SIGMA0 = 0.25  # initial step size, in the [0, 1]-scaled space
GENERATIONS = 20  # what the default games per candidate aims for
DIGITS = 4  # decimals kept per parameter (the file holds what was evaluated)


@dataclass(frozen=True)
class TuneSpec(Settings):
    """Everything that determines a tuning's result."""

    game: str
    strategy: str  # NAME or FILE.py:FUNCTION, optionally @start.toml to start from a file
    against: tuple[str, ...]
    budget: int  # games the search may play
    seed: int
    population: int | None = None  # CMA-ES default: 4 + floor(3 ln d)
    games_per_candidate: int | None = None  # default: budget / (population * 20)
    eval_games: int = 10_000
    overrides: tuple[str, ...] = ()
    config_path: str | None = None

    def command(self, out: str) -> str:
        parts = ["simkit", "tune", self.game, "--strategy", self.strategy, "--against",
                 ",".join(self.against), "--budget", str(self.budget), "--seed",
                 str(self.seed), "--eval-games", str(self.eval_games), "--out", out]
        if self.population is not None:
            parts += ["--population", str(self.population)]
        if self.games_per_candidate is not None:
            parts += ["--games-per-candidate", str(self.games_per_candidate)]
        return shlex.join(parts + self.setting_args())


@dataclass
class Setup:
    """A validated tuning: the game, the strategy, its start and the search's shape."""

    spec: TuneSpec
    game: Game
    config: Any
    compiled: Any
    name: str  # the strategy tuned: a built-in's name, FILE.py:FUNCTION or a plug-in NAME
    strategy: StrategySpec
    start: dict[str, float]  # the untuned parameters (defaults, or the start file's)
    base: Lineup  # seat 0: the strategy at `start`; then the opponents
    population: int
    games_per_candidate: int
    generations: int
    eval_games: int
    plugin: plugins.Plugin | None = None  # when the strategy tuned is a plug-in

    @property
    def players(self) -> int:
        return self.base.n_players

    @property
    def search_games(self) -> int:
        return self.generations * self.population * self.games_per_candidate

    def lineup(self, values: dict[str, float], label: str) -> Lineup:
        """The base lineup with seat 0's parameters replaced by `values`."""
        params = self.base.params.copy()
        params[0] = self.strategy.vector(values)
        names = (label,) + self.base.names[1:]
        return Lineup(names, self.base.ids, params,
                      (self.strategy.resolved(values),) + self.base.resolved_params[1:],
                      self.base.plugins)

    @property
    def searched(self) -> tuple[Param, ...]:
        """The parameters the search moves: every one but the rules (`Param.tune` False,
        such as `ties`), which keep their start value."""
        return searched(self.strategy)

    def values(self, x: np.ndarray) -> dict[str, float]:
        """A point of [0, 1]^d -> parameter values (rounded to what the file keeps), the
        parameters not searched at their start values."""
        moved = {}
        for xi, p in zip(np.clip(x, 0.0, 1.0), self.searched, strict=True):
            moved[p.name] = min(max(round(p.lo + float(xi) * (p.hi - p.lo), DIGITS), p.lo),
                                p.hi)
        return {p.name: moved.get(p.name, self.start.get(p.name, p.default))
                for p in self.strategy.params}

    def point(self, values: dict[str, float]) -> np.ndarray:
        return np.array([(values[p.name] - p.lo) / (p.hi - p.lo) if p.hi > p.lo else 0.5
                         for p in self.searched])


def searched(strategy: StrategySpec) -> tuple[Param, ...]:
    """A strategy's parameters that tuning searches (`Param.tune`)."""
    return tuple(p for p in strategy.params if p.tune)


def _whole_deals(games: int, players: int) -> int:
    return max(1, -(-games // players)) * players


def prepare(spec: TuneSpec) -> Setup:
    """Validate a tuning before any game is played."""
    game = get_game(spec.game)
    config = game.load_config(spec.overrides,
                              Path(spec.config_path) if spec.config_path else None)
    compiled = game.compile(config)
    players = 1 + len(spec.against)
    if not spec.against:
        raise SimkitError("--against: name at least one opponent strategy")
    if players not in game.players(compiled):
        raise SimkitError(f"{game.title} is played by "
                          f"{', '.join(map(str, game.players(compiled)))} players, not "
                          f"{players} (the tuned strategy and {len(spec.against)} in --against)")
    name, _ = split_token(spec.strategy)
    # The engine resolves every seat (built-ins, FILE.py:FUNCTION and registered plug-ins)
    # and reads a NAME@start.toml file; seat 0's resolved values are the start.
    base = build_lineup(game, [spec.strategy, *spec.against], players)
    strategy, plugin = strategy_spec(game, name)
    where = plugin.source if plugin is not None else f"strategy '{name}'"
    if not searched(strategy):
        hint = ""
        if plugin is not None:
            function = plugins.function_of(name) or "FUNCTION"
            hint = (f"; declare them in its file as {function}_PARAMS = "
                    '{"NAME": (default, lo, hi)} (README, "Your own strategies")')
        raise SimkitError(f"{where}: has no parameters to tune{hint}")
    for p in searched(strategy):
        if not (math.isfinite(p.lo) and math.isfinite(p.hi)):
            raise SimkitError(f"{where}: parameter {p.name} has no finite range "
                              f"[{p.lo:g}, {p.hi:g}] to search; declare it as "
                              "(default, lo, hi)")
    start = dict(base.resolved_params[0])
    if spec.budget < 1:
        raise SimkitError(f"--budget must be at least 1 game, not {spec.budget}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SimkitError(f"--seed must be between 0 and 2**64-1, not {spec.seed}")
    d = len(searched(strategy))
    population = spec.population or 4 + int(3 * math.log(d))
    if population < 2:
        raise SimkitError(f"--population must be at least 2, not {population}")
    per = spec.games_per_candidate
    if per is None:
        per = max(10 * players, spec.budget // (population * GENERATIONS))
    if per < 1:
        raise SimkitError(f"--games-per-candidate must be at least 1, not {per}")
    per = _whole_deals(per, players)
    generations = spec.budget // (population * per)
    if generations < 1:
        raise SimkitError(f"--budget {spec.budget:,} is less than one generation: "
                          f"{population} candidates x {per:,} games = {population * per:,}")
    if spec.eval_games < 1:
        raise SimkitError(f"--eval-games must be at least 1, not {spec.eval_games}")
    return Setup(spec, game, config, compiled, name, strategy, start, base, population, per,
                 generations, _whole_deals(spec.eval_games, players), plugin)


def strategy_spec(game: Game, name: str) -> tuple[StrategySpec, plugins.Plugin | None]:
    """The strategy `name` means for `game` (a built-in, or a plug-in loaded as the engine
    loads it: compiled once per process, so this reuses `build_lineup`'s compile)."""
    builtin = game.strategies()
    if name in builtin:
        return builtin[name], None
    plugin = load_plugins(game, [name], builtin)[name]
    return plugin.spec(), plugin


def seat0_totals(s: Setup, lineup: Lineup, first: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-deal win share of lineup seat 0's strategy (scaled to integers) and games per
    deal, over games first..first+n (whole deals)."""
    cols = s.game.simulate(s.compiled, lineup, s.spec.seed, first, n)
    mine = cols["strategy"] == 0  # exactly one seat per game
    share = np.rint(cols["win_share"][mine].astype(np.float64) * win_scale(s.players))
    y = share.astype(np.int64).reshape(-1, s.players).sum(axis=1)
    return y, np.full(y.shape, s.players, np.int64)


@dataclass
class Outcome:
    """A tuning's result: the parameters, the search's trace and the fresh measurement."""

    setup: Setup
    params: dict[str, float]
    history: list[tuple[float, float]] = field(default_factory=list)  # (mean, best) share
    evaluation: dict[str, Any] = field(default_factory=dict)
    elapsed: float = 0.0


def search(s: Setup, progress: Callable[[int, str], None] | None = None) -> Outcome:
    """Run CMA-ES for `s.generations` generations; the result is its final mean."""
    import cma

    started = time.perf_counter()
    options = {"seed": s.spec.seed % (2**31 - 2) + 1, "bounds": [0.0, 1.0],
               "popsize": s.population, "verbose": -9, "verb_log": 0, "verb_disp": 0}
    es = cma.CMAEvolutionStrategy(s.point(s.start).tolist(), SIGMA0, options)
    outcome = Outcome(s, dict(s.start))
    per = s.games_per_candidate
    for g in range(s.generations):
        xs = es.ask()
        shares = []
        for x in xs:  # every candidate of a generation on the same deals
            y, m = seat0_totals(s, s.lineup(s.values(x), f"{s.name} (candidate)"), g * per, per)
            shares.append(int(y.sum()) / (int(m.sum()) * win_scale(s.players)))
        es.tell(xs, [-v for v in shares])
        outcome.history.append((float(np.mean(shares)), max(shares)))
        if progress is not None:
            progress(s.population * per, f"generation {g + 1}/{s.generations}: mean "
                     f"{np.mean(shares):.3f}, best {max(shares):.3f}")
    outcome.params = s.values(np.asarray(es.result.xfavorite))
    outcome.evaluation = evaluate(s, outcome.params, progress)
    outcome.elapsed = time.perf_counter() - started
    return outcome


def evaluate(s: Setup, tuned: dict[str, float],
             progress: Callable[[int, str], None] | None = None) -> dict[str, Any]:
    """Tuned and untuned parameters on the same fresh deals: each against the --against
    lineup (and their paired difference), and tuned against copies of untuned."""
    n, games = s.players, s.eval_games
    first = EVAL_DEAL * n
    tuned_t, untuned_t, diff_t, h2h_t = (DealTotals(win_scale(n)) for _ in range(4))
    y_tuned, m = seat0_totals(s, s.lineup(tuned, f"{s.name} (tuned)"), first, games)
    if progress is not None:
        progress(games, "evaluating tuned")
    y_untuned, _ = seat0_totals(s, s.lineup(s.start, f"{s.name} (untuned)"), first, games)
    if progress is not None:
        progress(games, "evaluating untuned")
    tuned_t.add(y_tuned, m)
    untuned_t.add(y_untuned, m)
    diff_t.add(y_tuned - y_untuned, m)
    # Head to head: seat 0 tuned, every other seat the untuned strategy.
    copies = Lineup((f"{s.name} (tuned)",) + (f"{s.name} (untuned)",) * (n - 1),
                    np.full(n, s.strategy.sid, np.int64),
                    np.stack([s.strategy.vector(tuned)] + [s.strategy.vector(s.start)]
                             * (n - 1)),
                    (s.strategy.resolved(tuned),) + (s.strategy.resolved(s.start),) * (n - 1),
                    s.base.plugins)
    h2h_t.add(*seat0_totals(s, copies, first, games))
    if progress is not None:
        progress(games, "evaluating head to head")
    out: dict[str, Any] = {"games": games, "first_game": first, "fair_share": 1 / n}
    for key, (p, lo, hi) in (("tuned", tuned_t.share()), ("untuned", untuned_t.share()),
                             ("difference", diff_t.difference()),
                             ("head_to_head", h2h_t.share())):
        out[key] = p
        out[f"{key}_lo"] = lo
        out[f"{key}_hi"] = hi
    return out


def write(outcome: Outcome, out: Path, seen: tuple[int, int] | None = None) -> str:
    """Write the parameter file (`--strategies NAME@FILE`, or `FILE.py:FUNCTION@FILE` for a
    plug-in, reads it); returns its text. `seen`: the file as `check_out` found it, which
    another command must not have changed since (two tunes into one file)."""
    if _seen(out) != seen:
        raise SimkitError(f"--out {out}: another command wrote it while this one tuned, so "
                          "this result was not written over it; rerun with another --out "
                          "(the same seed gives the same result)")
    import cma

    s = outcome.setup
    ev = outcome.evaluation
    comment = (f"Tuned by simkit tune. Use it with --strategies {s.name}@{out}\n"
               f"{s.name} against {', '.join(s.spec.against)}: win share "
               f"{ev['tuned']:.4f} tuned, {ev['untuned']:.4f} untuned, on "
               f"{ev['games']:,} fresh games each.")
    tuning = {
        "command": s.spec.command(str(out)),
        "against": list(s.spec.against),
        "players": s.players,
        "budget": s.spec.budget,
        "games_played": s.search_games,
        "seed": s.spec.seed,
        "method": f"CMA-ES (cma {cma.__version__}), parameters scaled to [0, 1], "
                  f"initial step {SIGMA0}; every candidate of a generation on the same "
                  "deals; result: the final mean",
        "population": s.population,
        "generations": s.generations,
        "games_per_candidate": s.games_per_candidate,
        "config_hash": s.config.hash,
        **({"plugin": s.plugin.source.removeprefix("plug-in "),
            "plugin_sha256": s.plugin.sha256} if s.plugin is not None else {}),
        "mean_win_share_by_generation": [round(a, 4) for a, _ in outcome.history],
        "best_win_share_by_generation": [round(b, 4) for _, b in outcome.history],
    }
    evaluation = {"note": "fresh deals (never used by the search), the same for every "
                          "lineup; 95% intervals clustered by deal"} | ev
    # A plug-in's file names its function (what `FILE.py:FUNCTION@FILE` checks), so the
    # file still fits when the plug-in is named by another path.
    strategy = plugins.function_of(s.name) or s.name
    text = tomlwrite.document({"strategy": strategy, "game": s.game.name,
                               "params": outcome.params, "start": s.start, "tuning": tuning,
                               "evaluation": evaluation}, comment)
    write_text_atomic(out, text)
    return text


def check_out(out: Path, force: bool) -> tuple[int, int] | None:
    """Never overwrite a file silently, and never one simkit did not write (a parameter
    file with a [tuning] table), even with --force. Returns what is there now (`seen`),
    for `write` to check that nothing wrote it meanwhile."""
    seen = _seen(out)
    if out.is_dir():
        raise SimkitError(f"--out {out}: is a folder, not a file")
    if not out.exists() and not out.is_symlink():
        return seen
    if not force:
        raise SimkitError(f"--out {out}: already exists; choose another file or pass --force")
    try:
        data = tomllib.loads(out.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}
    if out.is_symlink() or not isinstance(data.get("tuning"), dict):
        raise SimkitError(f"--out {out}: is not a parameter file simkit tuned, so --force "
                          "will not replace it; choose another file")
    return seen


def _seen(out: Path) -> tuple[int, int] | None:
    """The file at `out` as it is now (modified time, size), or None if there is none."""
    try:
        st = out.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def same_tune(out: Path, setup: Setup) -> dict[str, Any] | None:
    """The parameter file at `out` if this very tune wrote it (its command and config),
    else None: the same command twice then does nothing the second time."""
    try:
        data = tomllib.loads(out.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    tuning = data.get("tuning")
    if not isinstance(tuning, dict) or not isinstance(data.get("params"), dict):
        return None
    if tuning.get("command") != setup.spec.command(str(out)) \
            or tuning.get("config_hash") != setup.config.hash:
        return None
    return data
