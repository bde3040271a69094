"""Assemble a report: run -> metrics -> scorecard and sections (the game-agnostic part).

`build(run, targets)` computes every generic metric once, asks the game's hooks for its
components and extra sections, and returns a `Report` that `render.py` writes out.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from reports import charts, metrics, stats
from reports.answer import Advice, balance_answer, whose_play, with_next_steps
from reports.context import components_of, context, game_hooks_apply
from reports.document import Chart, Column, Note, Section, Table
from reports.hooks import GameHooks, hooks_for
from reports.load import Run
from reports.paths import shown_config
from reports.source import MissingQuery
from reports.stronger import stronger_section
from reports.targets import Targets, component_margin, scorecard
from reports.value import frame_of as value_frame
from reports.value import sections as value_sections
from reports.value import value_for
from simkit import ladders


@dataclass
class Report:
    """Everything on the page, as data."""

    title: str
    subtitle: str
    facts: list[tuple[str, str]]
    command: str
    placeholders: list[tuple[str, str]]
    placeholder_notes: list[str]
    scorecard: pl.DataFrame
    targets_source: str
    findings: list[str]
    sections: list[Section]
    footer: list[tuple[str, str]] = field(default_factory=list)
    answer: str = ""  # the verdict in one line and what to change next


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}" if math.isfinite(x) else "n/a"


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%" if math.isfinite(x) else "n/a"


def _target(targets: Targets, metric: str, setting: str) -> float | None:
    return targets.settings.get(metric, {}).get(setting)


def widened(frame: pl.DataFrame, estimate: str, factor: float) -> pl.DataFrame:
    """`frame` with the interval around `estimate` stretched by `factor` (for repeated looks)."""
    if factor == 1.0 or not frame.height:
        return frame
    lo, hi = pl.col(f"{estimate}_lo"), pl.col(f"{estimate}_hi")
    mid = pl.col(estimate)
    return frame.with_columns((mid - (mid - lo) * factor).alias(f"{estimate}_lo"),
                              (mid + (hi - mid) * factor).alias(f"{estimate}_hi"))


def scorecard_only(run: Run, targets: Targets, hooks: GameHooks | None = None,
                   widen: float = 1.0) -> pl.DataFrame:
    """The balance scorecard alone, intervals stretched by `widen` (simkit run --until-sure)."""
    hooks = hooks or hooks_for(run.game)
    src = run.source
    ctx = context(run, targets, hooks)
    seats = widened(metrics.seat_advantage(src), "advantage", widen)
    components = widened(components_of(run, hooks, ctx), "effect", widen)
    return scorecard(targets, run_games=metrics.game_count(src), seat_advantage=seats,
                     components=components,
                     tie_rate=widened(metrics.tie_rate(src.games), "tie_rate", widen),
                     game_length=widened(metrics.summary(src.games, "rounds"), "rounds",
                                         widen),
                     seat_label=hooks.seat_label, length_unit=hooks.length_unit)


def build(run: Run, targets: Targets, hooks: GameHooks | None = None,
          other: Run | None = None) -> Report:
    """Compute the metrics of `run` and lay out the report; with `other` (a run of the same
    game and player count, e.g. stronger players) add the side-by-side section."""
    hooks = hooks or hooks_for(run.game)
    src = run.source
    n = run.n_players
    fair = 1.0 / n
    label: Callable[[int], str] = hooks.seat_label
    ctx = context(run, targets, hooks)
    run_games = metrics.game_count(src)

    by_strategy = metrics.win_share_by(src, "strategy")
    by_seat = metrics.win_share_by(src, "seat").with_columns(
        label=pl.col("seat").map_elements(label, return_dtype=pl.String))
    seats = metrics.seat_advantage(src).with_columns(
        label=pl.col("seat").map_elements(label, return_dtype=pl.String))
    ties = metrics.tie_rate(src.games)
    length = metrics.summary(src.games, "rounds")
    margin = metrics.summary(src.games, "margin")
    missing: list[str] = []
    components = components_of(run, hooks, ctx, missing)
    value, value_note = value_for(run.path, run.manifest)
    value_margin = component_margin(targets)
    causal = value_frame(value, value_margin) if value is not None else None
    card = scorecard(targets, run_games=run_games, seat_advantage=seats, components=components,
                     tie_rate=ties, game_length=length, seat_label=label, causal=causal,
                     length_unit=hooks.length_unit)
    limit = _target(targets, "component_effect", "max_points")
    advice = Advice.of_run(run.path, run.manifest, seats,
                           float(margin.row(0, named=True)["margin"]), causal, components,
                           limit / 100 if limit is not None else None)
    card = with_next_steps(card, advice)

    winners = _winners(by_strategy, by_seat, fair, n)
    if ties.row(0, named=True)["tie_rate"] > 0:  # a game whose outcome can be a draw
        with contextlib.suppress(MissingQuery):  # a summary made before this table existed
            winners.blocks.insert(3, _outcomes_by_seat(src, label))
    sections = [
        winners,
        _seat_section(seats, n, _target(targets, "seat_advantage", "max_points"), hooks),
        _scores(src, label, by_strategy, by_seat),
        _endings(src.games, ties, length, margin, hooks.length_unit),
    ]
    if value is not None:
        sections += value_sections(value, value_margin)
    if components.height:
        sections.append(_components(components, _target(targets, "component_effect",
                                                        "max_points"), value_note))
    if other is not None:
        sections.append(stronger_section(run, other, targets, hooks))
    if game_hooks_apply(run, hooks):
        try:
            sections += hooks.sections(ctx)
        except MissingQuery as exc:  # e.g. the hooks changed since the run was made
            missing.append(f"{run.manifest['title']} sections: {exc}.")
    elif type(hooks) is not GameHooks:  # the game has sections, which need the rows
        sections.append(_not_in_summary(run))
    if missing:
        sections.append(Section("not-in-summary", "Not in this summary",
                                "Parts of the report this summary-only run cannot show.",
                                [Note(text, "warn") for text in missing]))

    m = run.manifest
    shown, notes = hooks.placeholders(run)
    strategies = ", ".join(f"{s['name']} ({label(s['seat'])})" for s in m["strategies"])
    config = m["config"]
    play = ladders.whose_play(m["game"], [str(s["name"]) for s in m["strategies"]])
    facts = [
        ("Game", f"{m['title']} ({m['game']}), {n} players"),
        ("Strategies", strategies + ("; they rotate through the seats on every deal"
                                     if m.get("rotation") else "")),
        ("Whose play", f"every verdict here is the play of {play}; `simkit ladder` reads "
                       "each at every skill level (docs/ladder.md)"),
        ("Games", f"{m['games']:,} ({m['rows']:,} player rows)" + (
            "; summary only: the run kept exact totals, not per-game rows"
            if m.get("summary_only") else "")),
        ("Seed", str(m["seed"])),
        ("Config", f"{shown_config(config['source'])} (hash {config['hash']})"),
        ("Overrides", ", ".join(config.get("overrides") or []) or "none"),
        ("Targets", targets.source),
    ]
    if m.get("stopping"):
        stop = m["stopping"]
        facts.insert(3, ("Stopping", f"{stop['method']}: stopped after {m['games']:,} of at "
                                     f"most {stop['max_games']:,} games ({stop['looks']} "
                                     f"looks; {stop['reason']})"))
    versions = m.get("versions") or {}
    footer = [("Created", str(m.get("created", "?"))),
              ("Versions", ", ".join(f"{k} {v}" for k, v in versions.items()) or "?")]
    findings = _findings(by_strategy, seats, ties, components, fair, n, causal)
    at = next((i + 1 for i, f in enumerate(findings) if f.startswith("Largest seat")), 0)
    with contextlib.suppress(MissingQuery):  # a summary made before this finding existed
        findings[at:at] = _seat_cause(src, by_strategy, seats, m, label)
    return Report(title=f"{m['title']}: balance report",
                  subtitle=f"{m['games']:,} simulated games with {n} players",
                  facts=facts, command=str(m["command"]), placeholders=shown,
                  placeholder_notes=notes, scorecard=card, targets_source=targets.source,
                  findings=findings, sections=sections, footer=footer,
                  answer=balance_answer(card, whose_play(m)))


def _seat_cause(src: Any, by_strategy: pl.DataFrame, seats: pl.DataFrame,
                manifest: dict[str, Any], label: Callable[[int], str]) -> list[str]:
    """Which strategy the largest clear seat effect comes from, when one strategy carries
    most of it. A seat's advantage is the sum over the lineup's seats-worth of strategies
    of w_s (share of seat s in seat X - its share overall), w_s the share of the lineup's
    seats it holds (each strategy sits in every seat of a deal equally often); each part
    has its interval, clustered by deal (`seat_parts`)."""
    names = [str(s["name"]) for s in manifest["strategies"]]
    if len(set(names)) < 2 or not manifest.get("rotation", True) or not seats.height:
        return []
    own = seat_parts(src, len(names))  # asked of every run: a summary-only run keeps it
    row = seats.with_columns(size=pl.col("advantage").abs()).sort(
        "size", descending=True).row(0, named=True)
    if not _largest_seat_clear(seats) or not row["advantage"]:
        return []
    cells = metrics.clustered_mean(src, ["strategy", "seat"], ["win_share"])
    overall = dict(zip(by_strategy["strategy"].cast(pl.String),
                       by_strategy["win_share"], strict=True))
    x = f"seat_{row['seat']}"
    parts = []
    for strategy in dict.fromkeys(names):
        mine = cells.filter(pl.col("strategy").cast(pl.String) == strategy)
        part = own.filter(pl.col("strategy").cast(pl.String) == strategy)
        if not part.height or part[f"{x}_lo"][0] is None or strategy not in overall:
            return []
        weight = names.count(strategy) / len(names)
        parts.append((weight * part[x][0], weight * part[f"{x}_lo"][0],
                      weight * part[f"{x}_hi"][0], strategy, mine))
    share, lo, hi, strategy, mine = max(
        parts, key=lambda p: p[0] * math.copysign(1, row["advantage"]))
    if share / row["advantage"] <= 0.5:
        return [f"The {row['label']}'s effect is spread over the strategies: none carries "
                "most of it."]
    worst = mine.sort("win_share", descending=row["advantage"] < 0).row(0, named=True)
    best = mine.filter(pl.col("seat") == row["seat"]).row(0, named=True)
    return [f"Most of the {row['label']}'s {_pts(row['advantage'])} points "
            f"({_pts(share)} [{_pts(lo)}, {_pts(hi)}], 95% clustered by deal) is "
            f"{strategy}'s seat effect: {strategy} wins "
            f"{_pct(best['win_share'])} of its games as the {row['label']} and "
            f"{_pct(worst['win_share'])} as the {label(int(worst['seat']))} "
            f"({_pct(overall[strategy])} overall)."]


def seat_parts(src: Any, players: int) -> pl.DataFrame:
    """Per strategy, `seat_X` (with its `_se`, `_lo`, `_hi`): its win share in seat X
    minus its share overall, with a 95% interval clustered by deal. On a complete deal a
    strategy sits in seat X on 1/N of its rows, so that difference is the mean over its
    rows of win_share * (N [seat = X] - 1): one ratio mean, whose deal totals carry the
    covariance of the two shares."""
    values = {f"seat_{x}": pl.col("win_share").cast(pl.Float64)
              * ((pl.col("seat") == x).cast(pl.Float64) * players - 1)
              for x in range(players)}
    return metrics.clustered_mean(src, ["strategy"], values)


def _largest_seat_clear(seats: pl.DataFrame) -> bool:
    """Whether the seat farthest from the fair share is clearly so, allowing for its being
    picked as the largest of the seats (`reports.stats.clear_largest`)."""
    return stats.clear_largest(list(zip(seats["advantage"], seats["advantage_lo"],
                                        seats["advantage_hi"], strict=True)))


def _findings(by_strategy: pl.DataFrame, seats: pl.DataFrame, ties: pl.DataFrame,
              components: pl.DataFrame, fair: float, n: int,
              causal: pl.DataFrame | None = None) -> list[str]:
    out = []
    best = by_strategy.sort("win_share", descending=True).row(0, named=True)
    if by_strategy.height > 1:
        worst = by_strategy.sort("win_share").row(0, named=True)
        out.append(f"Strongest strategy: {best['strategy']}, with {_pct(best['win_share'])} of "
                   f"wins per player (fair share {_pct(fair)}); weakest: {worst['strategy']}, "
                   f"{_pct(worst['win_share'])}.")
    big = seats.with_columns(size=pl.col("advantage").abs()).sort("size", descending=True)
    row = big.row(0, named=True)
    clear = "a clear" if _largest_seat_clear(seats) else "no clear"
    out.append(f"Largest seat effect: the {row['label']}, {_pts(row['advantage'])} points from "
               f"the fair share [{_pts(row['advantage_lo'])}, {_pts(row['advantage_hi'])}] "
               f"({clear} difference at 95%, allowing for its being the largest of "
               f"{seats.height} seats).")
    t = ties.row(0, named=True)
    out.append(f"Shared wins: {_pct(t['tie_rate'])} of games "
               f"[{_pct(t['tie_rate_lo'])}, {_pct(t['tie_rate_hi'])}].")
    if causal is not None and causal.filter(~pl.col("a_a")).height:
        # One line per kind: worth against a kind's own average (per dealt seat, per
        # restricted seat...) is not comparable across kinds, so none is ranked above another.
        said = False
        for kind in causal.filter(~pl.col("a_a"))["kind"].unique(maintain_order=True):
            top = (causal.filter(~pl.col("a_a") & (pl.col("kind") == kind)
                                 & pl.col("vs_average").is_not_nan())
                   .with_columns(size=pl.col("vs_average").abs()).sort("size", descending=True))
            if top.height:
                r = top.row(0, named=True)
                out.append(f"Largest {kind.lower()} effect (causal): {r['name']} is worth "
                           f"{_pts(r['vs_average'])} points of win share against the average "
                           f"{kind.lower()} [{_pts(r['vs_average_lo'])}, "
                           f"{_pts(r['vs_average_hi'])}]; {r['verdict']}.")
                said = True
        if said:
            return out
    if components.height:
        compared = components.filter(pl.col("compared"))
        if compared.height:
            top = compared.with_columns(size=pl.col("effect").abs()).sort(
                "size", descending=True).row(0, named=True)
            if top["dealt"]:
                out.append(f"Largest component effect: {top['name']} "
                           f"({top['kind'].lower()}, dealt at random: it makes you win more), "
                           f"{_pts(top['effect'])} points of win share for players who "
                           f"{top['verb']} it [{_pts(top['effect_lo'])}, "
                           f"{_pts(top['effect_hi'])}].")
            else:
                out.append(f"Largest component association: players who {top['verb']} "
                           f"{top['name']} ({top['kind'].lower()}) won {_pts(top['effect'])} "
                           f"points more [{_pts(top['effect_lo'])}, {_pts(top['effect_hi'])}]. "
                           "That is an association, not its worth: `simkit value` measures "
                           "what it makes you win.")
    return out


def _winners(by_strategy: pl.DataFrame, by_seat: pl.DataFrame, fair: float,
             n: int) -> Section:
    cols = [Column("games", "Games", "int"),
            Column("win_share", "Win share", "ci_pct"),
            Column("score", "Mean score", "ci_num")]
    fair_text = f"the fair share with {n} players is 1/{n} = {_pct(fair)}"
    blocks: list[Any] = [
        Table("Win share by strategy",
              f"The share of wins a player of this strategy takes (a strategy in several seats "
              f"is averaged over them); {fair_text}.",
              by_strategy.sort("win_share", descending=True),
              [Column("strategy", "Strategy"), *cols], csv="win_share_by_strategy"),
        Chart("Win share by strategy",
              "Bars are win shares with their 95% intervals; the dashed line is the fair share.",
              charts.interval_bars(by_strategy.sort("win_share", descending=True),
                                   label="strategy", value="win_share",
                                   title="Win share by strategy",
                                   xlabel="win share (%; ties shared)", reference=fair,
                                   reference_label=f"fair share {fair * 100:.0f}%", unit="%")),
        Table("Win share by seat",
              f"The share of wins taken from each seat, whatever strategy sat there; "
              f"{fair_text}.",
              by_seat, [Column("label", "Seat"), *cols], csv="win_share_by_seat"),
        Chart("Win share by seat",
              "Bars are win shares by seat with their 95% intervals; the dashed line is the "
              "fair share.",
              charts.interval_bars(by_seat, label="label", value="win_share",
                                   title="Win share by seat",
                                   xlabel="win share (%; ties shared)", reference=fair,
                                   reference_label=f"fair share {fair * 100:.0f}%", unit="%")),
    ]
    return Section("winners", "Who wins",
                   "How often each strategy and each seat wins; a win shared by k players "
                   "counts 1/k for each, so the shares of one game add up to one.", blocks)


def _outcomes_by_seat(src: Any, label: Callable[[int], str]) -> Table:
    frame = metrics.outcomes_by(src, "seat").with_columns(
        label=pl.col("seat").map_elements(label, return_dtype=pl.String))
    return Table("Wins, draws and losses by seat",
                 "The share of games each seat won alone, shared a win (a draw) and lost, "
                 "whatever strategy sat there, with 95% intervals over deals.",
                 frame, [Column("label", "Seat"), Column("players", "Games", "int"),
                         Column("won", "Won", "ci_pct"), Column("drew", "Drew", "ci_pct"),
                         Column("lost", "Lost", "ci_pct")], csv="outcomes_by_seat")


def _seat_section(seats: pl.DataFrame, n: int, max_points: float | None,
                  hooks: GameHooks) -> Section:
    paired = bool(seats["paired"].any())
    deals = int(seats["deals"].max())
    how = (f"Paired: on every deal each strategy sat once in each seat, so strategies cancel "
           f"out and the seats are compared on identical cards; the interval is taken over "
           f"{deals:,} complete deals." if paired else
           f"Every seat played the same strategy, so each of the {deals:,} games compares the "
           "seats directly; the interval is taken over games.")
    clear = stats.clear_in_family(list(zip(seats["advantage"], seats["advantage_lo"],
                                           seats["advantage_hi"], strict=True)))
    frame = seats.with_columns(clear=pl.Series(["yes" if c else "no" for c in clear],
                                               dtype=pl.String))
    blocks: list[Any] = [
        Table("Seat advantage",
              f"Each seat's win share minus the fair share 1/{n}, in percentage points; "
              f"'clear': it differs from zero with the false discovery rate over the "
              f"{seats.height} seats held at 5% (Benjamini-Hochberg: of the seats marked "
              "clear, at most 5% are expected to be marked wrongly).",
              frame, [Column("label", "Seat"), Column("games", "Games", "int"),
                      Column("win_share", "Win share", "ci_pct"),
                      Column("advantage", "Advantage (points)", "ci_pp"),
                      Column("clear", "Clear?")], csv="seat_advantage"),
        Note(how + " " + hooks.seat_note),
        Chart("Seat advantage",
              "Bars are each seat's distance from the fair share with 95% intervals; the "
              "shaded band is the scorecard's target, red bars lie wholly outside it.",
              charts.interval_bars(frame, label="label", value="advantage",
                                   title="Seat advantage over the fair share",
                                   xlabel="win share minus fair share (percentage points)",
                                   band=max_points, signed=True)),
    ]
    return Section("seats", "Seat advantage",
                   "Does the order of play help or hurt? Each seat against the fair share, "
                   "with the strategies held equal.", blocks)


def _not_in_summary(run: Run) -> Section:
    return Section("game-sections", f"{run.manifest['title']}: game-specific sections",
                   "Not available for this run.", [Note(
                       f"This run kept only summaries (--summary-only), and the report's "
                       f"{run.manifest['title']} sections and component values read per-game "
                       "rows, which a summary does not hold. Every generic section above "
                       "is complete. Rerun without --summary-only to see them.")])


def _scores(frame: metrics.Data, label: Callable[[int], str], strategy_means: pl.DataFrame,
            seat_means: pl.DataFrame) -> Section:
    quant_cols = [Column("score", "Mean", "ci_num"), Column("min", "Min", "int"),
                  Column("p5", "5%", "int"), Column("p25", "25%", "int"),
                  Column("median", "Median", "int"), Column("p75", "75%", "int"),
                  Column("p95", "95%", "int"), Column("max", "Max", "int")]
    by_strategy = metrics.score_distribution(frame, "strategy", strategy_means)
    by_seat = metrics.score_distribution(frame, "seat", seat_means.drop("label")).with_columns(
        label=pl.col("seat").map_elements(label, return_dtype=pl.String))
    hist_strategy = metrics.histogram(frame, "score", "strategy")
    hist_seat = metrics.histogram(frame, "score", "seat").with_columns(
        label=pl.col("seat").map_elements(label, return_dtype=pl.String))
    blocks: list[Any] = [
        Table("Scores by strategy",
              "Final scores of the players of each strategy: the mean with its 95% interval "
              "and the quantiles (5% of players score at most the '5%' value).",
              by_strategy, [Column("strategy", "Strategy"),
                            Column("players", "Players", "int"), *quant_cols],
              csv="scores_by_strategy"),
        Chart("Score distribution by strategy",
              "The share of players ending on each score, one line per strategy.",
              charts.distribution_lines(hist_strategy, group="strategy", value="score",
                                        title="Score distribution by strategy",
                                        xlabel="final score (points)")),
        Table("Scores by seat",
              "Final scores by seat, whatever strategy sat there.",
              by_seat, [Column("label", "Seat"), Column("players", "Players", "int"),
                        *quant_cols], csv="scores_by_seat"),
        Chart("Score distribution by seat",
              "The share of players ending on each score, one line per seat.",
              charts.distribution_lines(hist_seat, group="label", value="score",
                                        title="Score distribution by seat",
                                        xlabel="final score (points)")),
    ]
    return Section("scores", "Scores",
                   "How many points players end with, by strategy and by seat.", blocks)


def _endings(games: metrics.Data, ties: pl.DataFrame, length: pl.DataFrame,
             margin: pl.DataFrame, unit: str) -> Section:
    t, ln, mg = ties.row(0, named=True), length.row(0, named=True), margin.row(0, named=True)
    rows = [
        {"measure": "Tie rate (% of games)", "games": t["games"], "value": t["tie_rate"] * 100,
         "value_lo": t["tie_rate_lo"] * 100, "value_hi": t["tie_rate_hi"] * 100,
         "median": None, "p5": None, "p95": None,
         "meaning": "Games whose win is shared by two or more players."},
        {"measure": "Margin of victory (points)", "games": mg["games"], "value": mg["margin"],
         "value_lo": mg["margin_lo"], "value_hi": mg["margin_hi"], "median": mg["median"],
         "p5": mg["p5"], "p95": mg["p95"],
         "meaning": "The winner's score minus the best other score (0 when tied on points)."},
        {"measure": f"Game length ({unit})", "games": ln["games"], "value": ln["rounds"],
         "value_lo": ln["rounds_lo"], "value_hi": ln["rounds_hi"], "median": ln["median"],
         "p5": ln["p5"], "p95": ln["p95"],
         "meaning": f"How many {unit} a game lasts."},
    ]
    frame = pl.DataFrame(rows, schema={"measure": pl.String, "games": pl.Int64,
                                       "value": pl.Float64, "value_lo": pl.Float64,
                                       "value_hi": pl.Float64, "median": pl.Float64,
                                       "p5": pl.Float64, "p95": pl.Float64,
                                       "meaning": pl.String})
    blocks: list[Any] = [
        Table("How games end",
              "Means with 95% intervals and, for points and length, the median and the range "
              "holding the middle 90% of games.",
              frame, [Column("measure", "Measure"), Column("games", "Games", "int"),
                      Column("value", "Mean", "ci_num", 2), Column("median", "Median", "num", 0),
                      Column("p5", "5%", "num", 0), Column("p95", "95%", "num", 0),
                      Column("meaning", "What it means")], csv="game_endings"),
        Chart("Margin of victory",
              "How many points separate the winner from the runner-up; the bar at 0 is the "
              "games tied on points.",
              charts.count_bars(metrics.histogram(games, "margin"), value="margin",
                                title="Margin of victory", xlabel="winner's lead (points)",
                                mean=mg["margin"])),
        Chart("Game length",
              f"How many {unit} games last.",
              charts.count_bars(metrics.histogram(games, "rounds"), value="rounds",
                                title="Game length", xlabel=f"game length ({unit})",
                                mean=ln["rounds"])),
    ]
    return Section("endings", "How games end",
                   "How close games are and how long they last.", blocks)


def _components(components: pl.DataFrame, max_points: float | None,
                value_note: str = "") -> Section:
    blocks: list[Any] = [Note(
        "\"Players who had it won more\": an effect compares players who had or used a "
        "component with players who did not, over all games. For components dealt at random "
        "(marked so) that is what the component makes you win. For components players choose "
        "it is an association: strong players seek strong cards, and a card's presence can "
        "also reflect how the game went. What a chosen component makes you win comes from "
        "`simkit value` (played into RUN/value, it joins this report). Intervals are "
        "taken over deals.")]
    if value_note:
        blocks.append(Note(value_note))
    for kind in dict.fromkeys(components["kind"].to_list()):
        part = components.filter(pl.col("kind") == kind)
        verb = part["verb"][0]
        extra = part["extra_label"][0]
        clear = stats.clear_in_family([
            (r["effect"], r["effect_lo"], r["effect_hi"]) if r["compared"]
            else (math.nan, math.nan, math.nan) for r in part.iter_rows(named=True)])
        part = part.with_columns(clear=pl.Series(
            ["yes" if c else ("no" if r else "—") for c, r in zip(clear, part["compared"],
                                                                  strict=True)],
            dtype=pl.String))
        cols = [Column("name", kind), Column("share_with", f"Players who {verb} it", "pct"),
                Column("win_with", "Win share with", "pct"),
                Column("win_without", "without", "pct"),
                Column("effect", "Effect (points)", "ci_pp"),
                Column("clear", "Clear?"),
                Column("score_effect", "Score difference", "ci_num")]
        if extra:
            cols.append(Column("extra", extra.capitalize(), "ci_num", 2))
        plural = kind.lower() + ("es" if kind.lower().endswith(("ch", "sh")) else "s")
        stem = "components_" + plural.replace(" ", "_")
        dealt = bool(part["dealt"][0])
        how = ("Dealt at random, so this is what the card makes you win. " if dealt else
               "An association (players who had it won more), not what it makes you win. ")
        blocks.append(Table(
            f"{kind} value" + (" (dealt at random)" if dealt else " (association)"),
            how + f"Win share of players who {verb} each {kind.lower()} minus that of players "
            f"who did not (percentage points), and the same for mean score; largest effects "
            f"first, '—' where nearly every player (or none) {verb} it. 'Clear': the effect "
            f"differs from zero with the false discovery rate over this table's "
            f"{kind.lower()} rows held at 5% (Benjamini-Hochberg), so among many equal "
            f"{kind.lower()}s one is rarely marked clear by chance.",
            part, cols, csv=stem))
        charted = part.filter(pl.col("compared"))
        if charted.height:
            blocks.append(Chart(
                f"{kind} value",
                "Bars are win-share effects with 95% intervals; the shaded band is the "
                "scorecard's target, red bars lie wholly outside it.",
                charts.interval_bars(charted, label="name", value="effect",
                                     title=f"{kind}: win-share effect of players who {verb} it",
                                     xlabel="win share with minus without (percentage points)",
                                     band=max_points, signed=True)))
    return Section("components", "Component value",
                   "Which components go with winning: the win share of players who had or "
                   "used each one against those who did not.", blocks)
