"""The balance scorecard: targets from `configs/targets.toml`, judged against intervals.

A target is met (PASS) when the whole 95% interval of its estimate lies inside the allowed
range, missed (FAIL) when the whole interval lies outside, and NOT YET SURE otherwise, with
the number of games that would shrink the interval enough to decide it. A target judged on
n > 1 estimates (every seat, every component) FAILs only on an interval widened to
1 - 5%/n (Bonferroni), so that a target whose every estimate is truly inside FAILs wrongly
at most 1 time in 20, however many it judges; a PASS needs no widening (every interval
inside: the one truly outside, if any, alone keeps it from passing but 1 time in 40).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any

import polars as pl

from reports.paths import shown_config
from reports.stats import Z, games_needed
from simkit.causal import MARGIN
from simkit.config import CONFIG_DIR
from simkit.errors import SimkitError

DEFAULT_TARGETS = CONFIG_DIR / "targets.toml"
PASS, FAIL, UNSURE = "PASS", "FAIL", "NOT YET SURE"


@dataclass(frozen=True)
class Metric:
    """A metric a target can be set on: its settings and what the target means."""

    title: str
    settings: dict[str, str]  # setting -> what it means
    meaning: str


METRICS: dict[str, Metric] = {
    "seat_advantage": Metric(
        "Seat advantage", {"max_points": "largest allowed distance from the fair share, in "
                                         "percentage points"},
        "Every seat's win share lies within the allowed distance of the fair share 1/N."),
    "component_effect": Metric(
        "Component effect", {"max_points": "largest allowed win-share effect of any "
                                           "component, in percentage points",
                             "margin_points": "the smallest difference from its kind's "
                                              "average that makes a component stronger or "
                                              "weaker (and within which it is about "
                                              "average), in percentage points"},
        "No component moves the win share of players who have it by more than the limit."),
    "tie_rate": Metric(
        "Tie rate", {"max_percent": "largest allowed share of games with a shared win, "
                                    "in percent"},
        "Shared wins are rare enough."),
    "game_length": Metric(
        "Game length", {"min_rounds": "shortest allowed mean game length, in rounds",
                        "max_rounds": "longest allowed mean game length, in rounds"},
        "Games last as long as intended, on average."),
}


@dataclass
class Targets:
    """The targets in force for one report: metric -> setting -> value."""

    source: str
    settings: dict[str, dict[str, float]] = field(default_factory=dict)


def _number(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SimkitError(f"{where} = {value!r}: expected a number")
    return float(value)


def _check_table(source: str, table: Any, prefix: str = "") -> dict[str, dict[str, float]]:
    if not isinstance(table, dict):
        raise SimkitError(f"{source}: {prefix or '(top level)'}: expected a table")
    out: dict[str, dict[str, float]] = {}
    for metric, settings in table.items():
        where = f"{prefix}{metric}"
        if metric not in METRICS:
            raise SimkitError(f"{source}: unknown metric '{where}'; known metrics: "
                              f"{', '.join(METRICS)}")
        if not isinstance(settings, dict):
            raise SimkitError(f"{source}: {where}: expected a table of settings "
                              f"({', '.join(METRICS[metric].settings)})")
        allowed = METRICS[metric].settings
        checked: dict[str, float] = {}
        for key, value in settings.items():
            if key not in allowed:
                raise SimkitError(f"{source}: {where}.{key}: unknown setting for {metric}; "
                                  f"expected {', '.join(allowed)}")
            checked[key] = _number(f"{source}: {where}.{key}", value)
        if not checked:
            raise SimkitError(f"{source}: {where}: no settings (expected {', '.join(allowed)})")
        out[metric] = checked
    return out


def load_targets(path: Path | None = None, game: str | None = None,
                 overrides: Sequence[str] = ()) -> Targets:
    """Read a targets file (default `configs/targets.toml`), take the [games.<game>] tables
    for `game` on top (and, with the default file, the game's own `targets.toml` when a
    game written to the game API has one), then apply `metric.setting=value` overrides."""
    own = game_targets(game) if path is None else None
    path = Path(path) if path is not None else DEFAULT_TARGETS
    source = shown_config(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise SimkitError(f"{source}: targets file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{source}: not valid TOML: {exc}") from None
    per_game = data.pop("games", {})
    settings = _check_table(source, data)
    if not isinstance(per_game, dict):
        raise SimkitError(f"{source}: games: expected tables named [games.<game>.<metric>]")
    for name, table in per_game.items():
        checked = _check_table(source, table, f"games.{name}.")
        if name == game:
            for metric, values in checked.items():
                settings.setdefault(metric, {}).update(values)
    if own is not None:
        try:
            table = tomllib.loads(own.read_text())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SimkitError(f"{own}: not valid TOML: {exc}") from None
        for metric, values in _check_table(str(own), table).items():
            settings.setdefault(metric, {}).update(values)
        source += f" and {shown_config(own)}"
    for item in overrides:
        key, sep, raw = item.partition("=")
        metric, dot, setting = key.strip().partition(".")
        if not sep or not dot:
            raise SimkitError(f"--set-target {item!r}: expected METRIC.SETTING=VALUE, e.g. "
                              "tie_rate.max_percent=5")
        if metric not in METRICS:
            raise SimkitError(f"--set-target {item!r}: unknown metric '{metric}'; known "
                              f"metrics: {', '.join(METRICS)}")
        if setting not in METRICS[metric].settings:
            raise SimkitError(f"--set-target {item!r}: unknown setting '{setting}' for "
                              f"{metric}; expected {', '.join(METRICS[metric].settings)}")
        try:
            value = float(raw)
        except ValueError:
            raise SimkitError(f"--set-target {item!r}: {raw!r} is not a number") from None
        settings.setdefault(metric, {})[setting] = _number(f"--set-target {key}", value)
        source_note = " with --set-target"
        if not source.endswith(source_note):
            source += source_note
    return Targets(source, settings)


def component_margin(targets: Targets) -> float:
    """The margin the value verdicts judge against (a win-share fraction): the targets'
    component_effect.margin_points, else simkit.causal.MARGIN."""
    points = targets.settings.get("component_effect", {}).get("margin_points")
    return MARGIN if points is None else points / 100


def game_targets(game: str | None) -> Path | None:
    """A game's own targets file (games written to the game API may carry one)."""
    if game is None:
        return None
    from simkit.games import get_game

    try:
        folder = getattr(get_game(game), "folder", None)
    except SimkitError:  # a run of a game no longer installed: the shared targets
        return None
    own = Path(folder) / "targets.toml" if folder is not None else None
    return own if own is not None and own.exists() else None


@dataclass(frozen=True)
class Item:
    """One estimate a target is judged on (a seat, a component...)."""

    label: str
    estimate: float
    lo: float
    hi: float
    may_fail: bool = True  # False: an association, which can point but not convict
    fail_z: float = Z  # a FAIL needs [estimate -/+ fail_z standard errors] outside

    def fail_interval(self) -> tuple[float, float]:
        """[lo, hi] widened to fail_z standard errors (each side scaled: an asymmetric
        interval stays so)."""
        k = self.fail_z / Z
        return self.estimate - (self.estimate - self.lo) * k, \
            self.estimate + (self.hi - self.estimate) * k


FAMILY_ERROR = 0.05  # the chance that a target FAILs wrongly, however many it judges


def family_wise(items: Sequence[Item]) -> tuple[list[Item], str]:
    """n > 1 items, each to FAIL only on its interval widened to 1 - FAMILY_ERROR/n
    (Bonferroni), and the sentence that says so; a single item as it is. A target FAILs
    on the worst of its n estimates, and the worst of n 95% intervals misses far more
    often than 1 time in 20."""
    n = len(items)
    if n < 2:
        return list(items), ""
    z = NormalDist().inv_cdf(1 - FAMILY_ERROR / (2 * n))
    level = f"{100 * (1 - FAMILY_ERROR / n):.2f}".rstrip("0").rstrip(".")
    return [replace(it, fail_z=z) for it in items], (
        f"Intervals at 95%; a FAIL needs a {level}% interval outside the target (Bonferroni "
        f"over the {n} estimates), so that picking the worst of {n} fails a balanced game "
        f"at most {100 * FAMILY_ERROR:g}% of the time. ")


def judge_item(item: Item, lower: float | None, upper: float | None) -> tuple[str, float]:
    """(verdict, distance): distance from the estimate to the line the interval straddles
    (NaN unless NOT YET SURE). PASS on the 95% interval, FAIL on the family's (fail_z)."""
    if (lower is None or item.lo >= lower) and (upper is None or item.hi <= upper):
        return PASS, math.nan
    lo, hi = item.fail_interval()
    if (upper is not None and lo > upper) or (lower is not None and hi < lower):
        return FAIL, math.nan
    lines = [b for b in (lower, upper) if b is not None and item.lo < b < item.hi]
    lines = lines or [b for b in (lower, upper) if b is not None]
    return UNSURE, min(abs(item.estimate - b) for b in lines)


def judge(items: Sequence[Item], lower: float | None, upper: float | None,
          run_games: int) -> tuple[str, float | None, list[tuple[Item, str]]]:
    """Judge every item; the target's verdict is FAIL if any item fails, PASS if all pass,
    else NOT YET SURE with the games needed (the most any undecided item needs)."""
    results = []
    needed: list[float] = []
    for item in items:
        verdict, distance = judge_item(item, lower, upper)
        if verdict == FAIL and not item.may_fail:
            results.append((item, UNSURE))  # more games will not decide it: see the detail
            continue
        results.append((item, verdict))
        if verdict == UNSURE:
            se = (item.hi - item.lo) / (2 * Z)
            outside = _excess(item, lower, upper) > 0  # heading for a FAIL, on fail_z
            needed.append(games_needed(run_games, se, distance,
                                       item.fail_z if outside else Z))
    verdicts = {v for _, v in results}
    if FAIL in verdicts:
        return FAIL, None, results
    if verdicts <= {PASS}:
        return PASS, None, results
    return UNSURE, max(needed) if needed else math.inf, results


def _excess(item: Item, lower: float | None, upper: float | None) -> float:
    """How far the estimate lies beyond the allowed range (negative: inside it)."""
    beyond = [item.estimate - upper if upper is not None else -math.inf,
              lower - item.estimate if lower is not None else -math.inf]
    return max(beyond)


def _scale(lower: float | None, upper: float | None) -> float:
    """The unit a miss is measured in: half the range's width, or the one bound's size
    (so that misses of different targets compare: 0.5 is half the limit beyond it)."""
    if lower is not None and upper is not None and upper > lower:
        return (upper - lower) / 2
    bound = abs(upper if upper is not None else lower or 0.0)
    return bound or 1.0


def _listing(labels: list[str], most: int = 6) -> str:
    shown = ", ".join(labels[:most])
    return shown + (f" and {len(labels) - most} more" if len(labels) > most else "")


def _fmt_games(n: float) -> str:
    if n >= 1e9:
        return f"about {n / 1e9:.1f} billion games in all"
    if n >= 1e6:
        return f"about {n / 1e6:.1f} million games in all"
    return f"about {math.ceil(n / 1000) * 1000:,.0f} games in all"


def _digits_apart(lo: float, hi: float, digits: int, most: int = 5) -> int:
    """Decimals enough to show an interval's two ends apart (up to `most`)."""
    while (digits < most and math.isfinite(lo) and math.isfinite(hi) and lo != hi
           and f"{lo:.{digits}f}" == f"{hi:.{digits}f}"):
        digits += 1
    return digits


def _no_negative_zero(text: str) -> str:
    """'-0.0' (a tiny negative rounded) reads as a sign that is not there: '0.0'."""
    return re.sub(r"(?<![\d.])-(0(?:\.0+)?)(?![\d.])", r"\1", text)


def component_items(components: pl.DataFrame,
                    causal: pl.DataFrame | None = None) -> tuple[list[Item], str]:
    """The component target's estimates, and a note on how they were chosen.

    Where `simkit value` measured a component (`causal`: its value table), its worth
    against the average of its kind is judged. Otherwise the association (players who had
    it against those who did not) is judged: for components dealt at random it measures
    the component; for components players choose it may PASS or point at a component, but
    never FAIL it, since a strong player seeking a card makes the card look strong.
    """
    items: list[Item] = []
    measured: set[tuple[str, str]] = set()
    notes = []
    if causal is not None and causal.height:
        rows = causal.filter(~pl.col("a_a") & pl.col("vs_average").is_not_null()
                             & pl.col("vs_average").is_not_nan())
        for r in rows.iter_rows(named=True):
            items.append(Item(f"{r['name']} ({r['kind'].lower()}, worth vs average)",
                              r["vs_average"], r["vs_average_lo"], r["vs_average_hi"]))
            measured.add((r["kind"], r["key"]))
        notes.append(f"{rows.height} component(s) judged by their causal worth against the "
                     "average of their kind (simkit value).")
    if components.height:
        compared = components.filter(pl.col("compared"))
        skipped = sum(1 for r in components.filter(~pl.col("compared")).iter_rows(named=True)
                      if (r["kind"], r.get("key", r["name"])) not in measured)
        chosen = 0
        for r in compared.iter_rows(named=True):
            if (r["kind"], r.get("key", r["name"])) in measured:
                continue
            dealt = bool(r.get("dealt"))
            chosen += not dealt
            how = "dealt at random" if dealt else "players who had it"
            items.append(Item(f"{r['name']} ({r['kind'].lower()}, {how})", r["effect"],
                              r["effect_lo"], r["effect_hi"], may_fail=dealt))
        if chosen:
            notes.append(f"{chosen} chosen component(s) judged by association only (players "
                         "who had it won more), which can point at a component but not fail "
                         "it: run `simkit value` to tell whether it makes you win more.")
        if skipped:
            notes.append(f"{skipped} component(s) not judged: almost every player (or almost "
                         "none) had them, so there is nobody to compare with.")
    return items, " ".join(notes) + (" " if notes else "")


def scorecard(targets: Targets, *, run_games: int, seat_advantage: pl.DataFrame,
              components: pl.DataFrame, tie_rate: pl.DataFrame, game_length: pl.DataFrame,
              seat_label: Callable[[int], str] = lambda s: f"seat {s}",
              causal: pl.DataFrame | None = None, length_unit: str = "rounds"
              ) -> pl.DataFrame:
    """One row per target in force: metric, title, target, verdict, estimate, detail,
    games_needed (NOT YET SURE only), meaning and miss (how far the worst estimate lies
    beyond the allowed range, in units of it: negative inside). `causal` is a `simkit
    value` table for the same game, judged in place of the association where it measured
    a component."""
    rows = []

    def pts(x: float) -> str:
        return f"{x * 100:+.1f}"

    for metric, settings in targets.settings.items():
        spec = METRICS[metric]
        detail = ""
        if metric == "seat_advantage":
            limit = settings["max_points"] / 100
            items = [Item(seat_label(r["seat"]), r["advantage"], r["advantage_lo"],
                          r["advantage_hi"]) for r in seat_advantage.iter_rows(named=True)]
            lower, upper = -limit, limit
            target = f"every seat within ±{settings['max_points']:g} points of the fair share"
            fmt = pts
        elif metric == "component_effect":
            if components.height == 0 and (causal is None or causal.height == 0):
                continue  # a game whose report names no components: nothing it applies to
            if "max_points" not in settings:
                continue  # only the verdicts' margin set: no limit to judge
            limit = settings["max_points"] / 100
            items, detail = component_items(components, causal)
            lower, upper = -limit, limit
            target = (f"no component's win-share effect beyond ±{settings['max_points']:g} "
                      "points")
            fmt = pts
        elif metric == "tie_rate":
            r = tie_rate.row(0, named=True)
            items = [Item("tie rate", r["tie_rate"], r["tie_rate_lo"], r["tie_rate_hi"])]
            lower, upper = None, settings["max_percent"] / 100
            target = f"at most {settings['max_percent']:g}% of games end in a shared win"

            def fmt(x: float) -> str:
                return f"{x * 100:.1f}%"
        else:  # game_length
            r = game_length.row(0, named=True)
            items = [Item("mean length", r["rounds"], r["rounds_lo"], r["rounds_hi"])]
            lower, upper = settings.get("min_rounds"), settings.get("max_rounds")
            if lower is not None and upper is not None:
                target = f"mean game length between {lower:g} and {upper:g} {length_unit}"
            elif lower is not None:
                target = f"mean game length at least {lower:g} {length_unit}"
            else:
                target = f"mean game length at most {upper:g} {length_unit}"

            digits = _digits_apart(items[0].lo, items[0].hi, 2)

            def fmt(x: float, digits: int = digits) -> str:
                return f"{x:.{digits}f} {length_unit}"

            def bound(x: float, digits: int = digits) -> str:  # the unit once, after it
                return f"{x:.{digits}f}"
        if not items:
            rows.append({"metric": metric, "title": spec.title, "target": target,
                         "verdict": UNSURE, "estimate": "no estimate",
                         "detail": detail + "Nothing to judge in this run.",
                         "games_needed": None, "meaning": spec.meaning, "miss": None})
            continue
        items, family = family_wise(items)
        detail += family
        verdict, needed, results = judge(items, lower, upper, run_games)
        # the estimate shown is the worst that can decide the verdict (an association
        # can only point: it is listed in the detail)
        judged = [it for it in items if it.may_fail] or items
        worst = max(judged, key=lambda it: _excess(it, lower, upper))
        prefix = "worst: " if len(items) > 1 else ""
        show = bound if metric == "game_length" else fmt
        estimate = _no_negative_zero(f"{prefix}{worst.label} {fmt(worst.estimate)} "
                                     f"[{show(worst.lo)}, {show(worst.hi)}]")
        failing = [it.label for it, v in results if v == FAIL]
        pointed = [it.label for it, v in results
                   if not it.may_fail and judge_item(it, lower, upper)[0] == FAIL]
        unsure = [it.label for it, v in results if v == UNSURE and it.label not in pointed]
        if pointed:
            detail += (f"Outside the target by association only: {_listing(pointed)}; more "
                       "games will not tell whether it makes you win more (`simkit value` "
                       "will). ")
        if failing:
            detail += f"Misses the target: {_listing(failing)}."
        elif unsure and needed is not None and math.isfinite(needed):
            detail += (f"Undecided: {_listing(unsure)}. Deciding it with 80% probability "
                       f"needs {_fmt_games(needed)} (this run: {run_games:,}).")
        elif unsure:
            detail += (f"Undecided: {_listing(unsure)}. The estimate sits on the line, so more "
                       "games may never decide it.")
        elif pointed:
            pass
        else:
            detail += f"All {len(items)} estimate(s) meet the target." if len(items) > 1 else (
                "The whole interval meets the target.")
        rows.append({"metric": metric, "title": spec.title, "target": target,
                     "verdict": verdict, "estimate": estimate, "detail": detail.strip(),
                     "games_needed": needed if needed is not None and math.isfinite(needed)
                     else None, "meaning": spec.meaning,
                     "miss": _excess(worst, lower, upper) / _scale(lower, upper)})
    schema = {"metric": pl.String, "title": pl.String, "target": pl.String,
              "verdict": pl.String, "estimate": pl.String, "detail": pl.String,
              "games_needed": pl.Float64, "meaning": pl.String, "miss": pl.Float64}
    return pl.DataFrame(rows, schema=schema)
