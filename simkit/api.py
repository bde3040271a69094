"""simkit from Python (a notebook, a script): `run`, `sweep`, `compare`, `tournament`,
`tune`, `value` and `balance`, each returning a result object.

They do what the commands of the same name do, with the same checks and files. With
`out=` the folder is the one the CLI writes (the same command resumes it, or finds it
done); without, the work goes to a fresh temporary folder, kept for the session.
Config overrides are a dict (`set={"supply.size.4": 10}`), strategy parameters a dict
of dicts (`params={"planner": {"discount": 0.5}}`). `docs/python.md` is the guide.

Example:
    import simkit
    r = simkit.run("cauldron-master", players=4,
                   strategies=["planner", "greedy", "random", "greedy"], games=20_000)
    r.summary()      # win share and mean score by strategy and seat
    r.scorecard()    # PASS / FAIL / NOT YET SURE per balance target
    r.report()       # report.html in the run folder
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from simkit.errors import SimkitError

if TYPE_CHECKING:
    import pandas as pd

from simkit.api_args import (
    Overrides,
    Params,
    as_path,
    bar_update,
    out_folder,
    param_args,
    progress_bar,
    say_compiling,
    set_args,
    stop_rule,
    strategy_names,
    target_args,
    vary_args,
)


# ------------------------------------------------------------------ run
@dataclass
class RunResult:
    """A finished run: its folder and manifest, and the tables a designer reads."""

    folder: Path
    manifest: dict[str, Any]
    _games: pl.DataFrame | None = field(default=None, repr=False)

    @property
    def games(self) -> pl.DataFrame:
        """One row per game and seat (`games.parquet`)."""
        if self.manifest.get("summary_only"):
            raise SimkitError(f"{self.folder}: a --summary-only run keeps totals, not rows; "
                              "run it without summary_only to read games")
        if self._games is None:
            self._games = pl.read_parquet(self.folder / "games.parquet")
        return self._games

    def to_pandas(self) -> pd.DataFrame:
        """`games` as a pandas DataFrame."""
        return self.games.to_pandas()

    def summary(self) -> pl.DataFrame:
        """Win share, mean score and length by strategy and seat (`summary.csv`)."""
        from simkit.engine import summary_frame

        return summary_frame(self.folder)

    def scorecard(self, targets: str | Path | None = None,
                  set_targets: Mapping[str, float] | None = None) -> pl.DataFrame:
        """The balance scorecard: one row per target, its verdict and the estimate."""
        from reports.build import scorecard_only
        from reports.load import open_run
        from reports.targets import load_targets

        run = open_run(self.folder)
        return scorecard_only(run, load_targets(as_path(targets), run.game,
                                                target_args(set_targets)))

    def report(self, out: str | Path | None = None, targets: str | Path | None = None,
               set_targets: Mapping[str, float] | None = None) -> Path:
        """Write the balance report (into the run folder, or `out`); returns report.html."""
        from reports import make_report

        return make_report(self.folder, None if out is None else Path(out), as_path(targets),
                           target_args(set_targets)).html

    def __repr__(self) -> str:
        m = self.manifest
        lineup = ", ".join(s["name"] for s in m["strategies"])
        return (f"RunResult({m['title']}, {m['players']} players [{lineup}], "
                f"{m['games']:,} games, seed {m['seed']}, folder {str(self.folder)!r})")


def run(game: str, *, players: int = 4, strategies: str | Sequence[str] = ("greedy",),
        games: int = 10_000, seed: int = 0, set: Overrides = None, params: Params = None,
        config: str | Path | None = None, out: str | Path | None = None,
        force: bool = False, threads: int | None = None, chunk_size: int | None = None,
        summary_only: bool = False, until_sure: bool = False,
        precision: float | None = None, targets: str | Path | None = None,
        set_targets: Mapping[str, float] | None = None,
        progress: bool = True) -> RunResult:
    """Simulate `games` games (`simkit run`); see the module docstring.

    `strategies` is one name for every seat or one per seat (a list, or "a,b,c").
    """
    from reports.analysis import ANALYSIS
    from simkit import engine

    spec = engine.RunSpec(game, players, strategy_names(strategies), games, seed, set_args(set),
                          param_args(params), None if config is None else str(config),
                          stop_rule(until_sure, precision, targets, set_targets),
                          summary_only)
    prepared = engine.prepare(spec)
    folder = out_folder(out, "run")
    say_compiling(progress, prepared.game, [prepared.lineup])
    with progress_bar(progress, games, game) as bar:
        manifest = engine.run(spec, folder, threads=threads, force=force,
                              chunk_size=chunk_size,
                              progress=bar_update(bar), prepared=prepared, analysis=ANALYSIS)
    manifest.pop("skipped", None)
    return RunResult(folder, manifest)


def open_run(folder: str | Path) -> RunResult:
    """A run folder written earlier (by `run` or `simkit run`)."""
    from reports.load import read_run_manifest

    return RunResult(Path(folder), read_run_manifest(Path(folder)))


# ------------------------------------------------------------------ sweep
@dataclass
class SweepResult:
    """A finished sweep: one run per point."""

    folder: Path
    record: dict[str, Any]

    @property
    def points(self) -> list[tuple[dict[str, Any], RunResult]]:
        """(the point's values, its run) for every point, in order."""
        return [(pt["values"], open_run(self.folder / pt["name"]))
                for pt in self.record["points"]]

    def summary(self) -> pl.DataFrame:
        """Every point's `summary()`, with the varied values as leading columns."""
        frames = []
        for values, r in self.points:
            frame = r.summary()
            frames.append(frame.select(*(pl.lit(v).alias(k) for k, v in values.items()),
                                       pl.all()))
        return pl.concat(frames, how="diagonal_relaxed")

    def report(self, out: str | Path | None = None, targets: str | Path | None = None,
               set_targets: Mapping[str, float] | None = None) -> Path:
        """Write the sweep report (into the sweep folder, or `out`); returns report.html."""
        from reports.sweep import make_sweep_report

        return make_sweep_report(self.folder, None if out is None else Path(out),
                                 as_path(targets), target_args(set_targets)).html

    def __repr__(self) -> str:
        return (f"SweepResult({self.record['game']}, {len(self.record['points'])} points x "
                f"{self.record['games_per_point']:,} games, folder {str(self.folder)!r})")


def sweep(game: str, *, vary: Mapping[str, Any], zip: bool = False, players: int = 4,
          strategies: str | Sequence[str] = ("greedy",), games: int = 10_000, seed: int = 0,
          set: Overrides = None, params: Params = None, config: str | Path | None = None,
          out: str | Path | None = None, threads: int | None = None,
          summary_only: bool = False, until_sure: bool = False,
          precision: float | None = None, targets: str | Path | None = None,
          set_targets: Mapping[str, float] | None = None, max_points: int | None = None,
          yes: bool = False, progress: bool = True) -> SweepResult:
    """A what-if sweep (`simkit sweep`): one run per value of each varied key (a grid, or
    with `zip=True` the i-th values together). `vary` maps a config key, or
    "param:STRATEGY.NAME", to a list of values or a range text such as "8..12"."""
    from dataclasses import replace

    from reports.analysis import ANALYSIS
    from simkit import sweeps as sw

    spec = sw.make_spec(game, vary=vary_args(vary), zipped=zip, players=players,
                        strategies=strategy_names(strategies), games=games, seed=seed,
                        overrides=set_args(set), params=param_args(params),
                        config_path=None if config is None else str(config),
                        max_points=max_points)
    spec = replace(spec, until_sure=stop_rule(until_sure, precision, targets, set_targets),
                   summary_only=summary_only)
    plan = sw.plan(spec, yes=yes)
    folder = out_folder(out, "sweep")
    say_compiling(progress, plan.prepared[0].game, [x.lineup for x in plan.prepared])
    with progress_bar(progress, len(plan.points) * spec.games, spec.game) as bar:
        record = sw.run_sweep(plan, folder, threads=threads, progress=bar_update(bar),
                              analysis=ANALYSIS)
    return SweepResult(folder, record)


# ------------------------------------------------------------------ compare
@dataclass
class CompareResult:
    """Two runs of the same game and seed, metric by metric (`simkit compare`)."""

    comparison: Any  # reports.compare.Comparison

    @property
    def table(self) -> pl.DataFrame:
        """One row per metric: both estimates, the paired difference and its interval."""
        return self.comparison.frame

    def text(self) -> str:
        from reports.compare import render_text

        return render_text(self.comparison)

    def write(self, out: str | Path) -> list[Path]:
        """compare.csv and compare.md into `out`."""
        from reports.compare import write_compare

        return write_compare(self.comparison, Path(out))

    def __repr__(self) -> str:
        return self.text()


def compare(a: str | Path | RunResult, b: str | Path | RunResult,
            components: int = 5) -> CompareResult:
    """Compare two runs (folders or results) of the same game and seed."""
    from reports.compare import compare_runs

    if components < 0:
        raise SimkitError(f"components must be 0 or more, not {components}")
    fa = a.folder if isinstance(a, RunResult) else Path(a)
    fb = b.folder if isinstance(b, RunResult) else Path(b)
    return CompareResult(compare_runs(fa, fb, components))


# ------------------------------------------------------------------ tournament
@dataclass
class TournamentResult:
    """Every lineup of the strategies over the same deals (`simkit tournament`)."""

    folder: Path
    record: dict[str, Any]

    @property
    def standings(self) -> pl.DataFrame:
        """Ratings and win shares, best first."""
        return pl.DataFrame(self.record["standings"])

    @property
    def win_matrix(self) -> pl.DataFrame:
        """Row strategy's share of games finished ahead of the column strategy."""
        return pl.read_csv(self.folder / "win_matrix.csv")

    @property
    def html(self) -> Path:
        return self.folder / "tournament.html"

    def __repr__(self) -> str:
        return (f"TournamentResult({self.record['title']}, {self.record['games']:,} games, "
                f"folder {str(self.folder)!r})")


def tournament(game: str, *, strategies: str | Sequence[str], players: int = 4,
               games: int = 10_000, seed: int = 0, set: Overrides = None,
               config: str | Path | None = None, out: str | Path | None = None,
               force: bool = False, threads: int | None = None,
               chunk_deals: int | None = None, progress: bool = True) -> TournamentResult:
    """Rank strategies (`simkit tournament`): every lineup plays the same deals."""
    from reports.tournament import write_report
    from simkit import engine
    from simkit import tournaments as tn

    spec = tn.TournamentSpec(game, players, strategy_names(strategies), games, seed, set_args(set),
                             None if config is None else str(config))
    plan = tn.plan(spec)
    engine.set_threads(threads)
    folder = out_folder(out, "tournament")
    say_compiling(progress, plan.game, plan.lineups)
    bars: list[Any] = []

    def started(state: str, done: int) -> Any:
        if not progress:
            return None
        from simkit.progress import Progress

        bars.append(Progress(plan.total_games, f"{game} tournament", done=done))
        return bars[-1].update

    try:
        record, _, _ = tn.run(plan, folder, chunk_deals or tn.DEFAULT_CHUNK_DEALS, force,
                              started, write_report)
    finally:
        for bar in bars:
            bar.close()
    return TournamentResult(folder, record)


# ------------------------------------------------------------------ tune
@dataclass
class TuneResult:
    """A tuned strategy: its parameters and the fresh-deal evaluation (`simkit tune`)."""

    path: Path
    params: dict[str, float]
    start: dict[str, float]
    evaluation: dict[str, Any]

    @property
    def token(self) -> str:
        """The strategy name that plays these parameters: `NAME@FILE`."""
        import tomllib

        return f"{tomllib.loads(self.path.read_text())['strategy']}@{self.path}"


def tune(game: str, *, strategy: str, against: str | Sequence[str], budget: int,
         seed: int = 0, population: int | None = None,
         games_per_candidate: int | None = None, eval_games: int = 10_000,
         set: Overrides = None, config: str | Path | None = None,
         out: str | Path | None = None, force: bool = False, threads: int | None = None,
         progress: bool = True) -> TuneResult:
    """Tune a strategy's parameters with CMA-ES, then measure it on fresh deals."""
    from simkit import engine
    from simkit import tuning as tu

    spec = tu.TuneSpec(game, strategy, strategy_names(against), budget, seed, population,
                       games_per_candidate, eval_games, set_args(set),
                       None if config is None else str(config))
    setup = tu.prepare(spec)
    engine.set_threads(threads)
    path = Path(out) if out is not None else out_folder(None, "tune") / "tuned.toml"
    done = None if force else tu.same_tune(path, setup)
    if done is not None:  # the same call again: its file, as the command finds it
        return TuneResult(path, dict(done["params"]), dict(done.get("start", {})),
                          dict(done.get("evaluation", {})))
    seen = tu.check_out(path, force)
    say_compiling(progress, setup.game, [setup.base])
    with progress_bar(progress, setup.search_games + 3 * setup.eval_games, f"{game} tune") as bar:
        outcome = tu.search(setup, progress=bar_update(bar))
    tu.write(outcome, path, seen)
    return TuneResult(path, dict(outcome.params), dict(setup.start), dict(outcome.evaluation))


# ------------------------------------------------------------------ balance
@dataclass
class BalanceResult:
    """A balance search's result (`simkit balance`): the verdict, the change, and the
    scorecards of the original and the changed config on fresh deals."""

    folder: Path
    verdict: str
    passed: bool
    changes: dict[str, Any]
    before: pl.DataFrame
    after: pl.DataFrame
    candidates: pl.DataFrame
    across: str = ""  # at every rung of the ladder: "every skill level", "depends on skill", ...
    rungs: list[dict[str, Any]] = field(default_factory=list)  # each rung's verdicts
    judged_at: dict[str, Any] = field(default_factory=dict)  # rung="strongest": which, why

    @property
    def set(self) -> dict[str, Any]:
        """The change as `set=` for `simkit.run`."""
        return dict(self.changes)

    def __repr__(self) -> str:
        return f"BalanceResult({self.verdict!r}, folder {str(self.folder)!r})"


def balance(game: str, *, tune: Mapping[str, str] | Sequence[str], budget: int,
            players: int = 4, strategies: str | Sequence[str] | None = None, seed: int = 0,
            targets: str | Path | None = None, set_targets: Mapping[str, float] | None = None,
            games_per_candidate: int | None = None, verify_games: int = 20_000,
            rung: str | None = None, rung_games: int = 2_000, margin: float = 2.0,
            check_games: int = 4_000, ladder_run: str | Path | None = None,
            set: Overrides = None, params: Params = None, config: str | Path | None = None,
            out: str | Path | None = None, force: bool = False, threads: int | None = None,
            progress: bool = True) -> BalanceResult:
    """Search config keys for the smallest change that meets the balance targets, then
    judge it on fresh deals (`simkit balance`) and at every rung of the game's ladder
    (`rung_games` each; 0: not). `tune` maps a key to "LO..HI" or "A|B|C" (or is a list
    of "KEY=..." items); `rung` searches at that rung in place of `strategies`; without
    either, at the strongest converged rung (`margin` points, `check_games` a check)."""
    from reports.targets import load_targets
    from simkit import balancing as bal
    from simkit import engine
    from simkit.balance_study import judged_with, run_balance

    items = tuple(tune) if not isinstance(tune, Mapping) else tuple(
        f"{k}={v}" for k, v in tune.items())
    loaded = load_targets(as_path(targets), game, target_args(set_targets))
    ladder_run = None if ladder_run is None else Path(ladder_run)
    lineup, strongest = judged_with(game, None if strategies is None else
                                    strategy_names(strategies), rung, margin, check_games,
                                    ladder_run, None)
    spec = bal.BalanceSpec(game, players, lineup, items, budget, seed,
                           loaded.settings, set_args(set), param_args(params),
                           None if config is None else str(config), games_per_candidate,
                           verify_games, rung_games, strongest)
    engine.set_threads(threads)
    folder = out_folder(out, "balance")
    result, verified, _ = run_balance(spec, loaded, folder, force, "simkit.balance(...)",
                                      (lambda _: None) if progress else None, progress,
                                      ladder_run)
    return BalanceResult(folder, result["verdict"], result["passed"], dict(result["changes"]),
                         verified["before"], verified["after"],
                         pl.read_csv(folder / "candidates.csv"),
                         result.get("across_sentence", ""), result.get("rungs", []),
                         result.get("judged_at", {}))


# ------------------------------------------------------------------ value
@dataclass
class ValueResult:
    """What each component is worth, by intervention on the same deals (`simkit value`)."""

    folder: Path
    result: dict[str, Any]

    @property
    def table(self) -> pl.DataFrame:
        """One row per component: its value (win share lost without it), interval and
        verdict."""
        return pl.DataFrame(self.result["table"])

    @property
    def points(self) -> pl.DataFrame:
        """The table as the command and the page show it: per component its kind, verdict,
        worth against its kind's average and worth, in points of win share (+18.2, not
        0.182), with their intervals."""
        shown = ["vs_average", "vs_average_lo", "vs_average_hi", "value", "value_lo",
                 "value_hi"]
        return self.table.select("kind", "name", "verdict",
                                 *[(pl.col(c) * 100).round(1) for c in shown])

    def report(self) -> Path:
        """Write value.html and value.md into the folder; returns value.html."""
        from reports.value_page import write_value_report

        return write_value_report(self.folder)[0]

    def __repr__(self) -> str:
        r = self.result
        return (f"ValueResult({r['title']}, {len(r['table'])} rows, {r['games']:,} games, "
                f"folder {str(self.folder)!r})")


def value(game: str, *, players: int = 4, strategies: str | Sequence[str] = ("greedy",),
          games: int = 20_000, seed: int = 0, kinds: Sequence[str] = (),
          components: Sequence[str] = (), precision: float | None = None,
          set: Overrides = None, params: Params = None, config: str | Path | None = None,
          out: str | Path | None = None, force: bool = False, threads: int | None = None,
          chunk_size: int = 20_000, progress: bool = True) -> ValueResult:
    """Causal component value (`simkit value`): every deal as configured and once per
    component neutralised; `kinds`/`components` narrow which are valued."""
    from simkit import engine
    from simkit import valuation as va

    spec = va.ValueSpec(game, players, strategy_names(strategies), games, seed, set_args(set),
                        param_args(params), None if config is None else str(config),
                        tuple(kinds), tuple(components), precision)
    if games < 1:
        raise SimkitError(f"games must be at least 1, not {games}")
    p = va.plan(spec)
    engine.set_threads(threads)
    folder = out_folder(out, "value")
    say_compiling(progress, p.base.game, [p.base.lineup])
    per = len(p.interventions) + 1
    with progress_bar(progress, games * per, game, unit="kernel games") as bar:
        result = va.run(p, folder, chunk_size=chunk_size, force=force, progress=bar_update(bar))
    result.pop("skipped", None)
    return ValueResult(folder, result)


__all__ = ["BalanceResult", "CompareResult", "RunResult", "SweepResult", "TournamentResult",
           "TuneResult", "ValueResult", "balance", "compare", "open_run", "run", "sweep",
           "tournament", "tune", "value"]
