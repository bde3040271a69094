""""Does it hold for stronger players": the key metrics of a run beside a second run of the
same game and player count at another skill level (`simkit report RUN --stronger OTHER`).

Both runs are read through their `Source`, so either may be summary-only. Each metric is
judged by its difference (other run minus this one) with a 95% interval: paired deal by
deal when both runs keep their rows (deal d of one seed is the same cards in both; deals
only one run played count on their side alone), else from the two runs' intervals as
independent samples. "sign flips" when the difference is real and the two estimates lie
on opposite sides of zero, "changes" when it is real, "no clear change" otherwise
(`reports/skill.py`'s `between`, which the ladder report uses too).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl

from reports import metrics
from reports.context import components_of, context
from reports.document import Column, Note, Section, Table
from reports.hooks import GameHooks
from reports.load import Run, open_run, read_run_manifest
from reports.paired import paired_difference
from reports.skill import between
from reports.stats import Z
from reports.targets import Targets
from simkit.errors import SimkitError

TOP_COMPONENTS = 5  # components shown: the largest win-share effects in either run
FLIPS, CHANGES, NO_CHANGE = "sign flips", "changes", "no clear change"


def check_stronger(path: Path, game: str, players: int) -> None:
    """Refuse a --stronger folder that is missing, not a run, or of another game or player
    count (the manifest only: cheap enough to check before a run is played)."""
    path = Path(path)
    if not path.exists():
        raise SimkitError(f"--stronger {path}: no such folder")
    other = read_run_manifest(path)
    if other["game"] != game:
        raise SimkitError(f"--stronger {path}: a {other['game']} run, but this run is "
                          f"{game}; compare runs of the same game")
    if int(other["players"]) != players:
        raise SimkitError(f"--stronger {path}: {other['players']} players, but this run has "
                          f"{players}; compare runs with the same player count")


def open_stronger(path: Path, run: Run) -> Run:
    """The --stronger run, checked to be the same game and player count as `run`."""
    check_stronger(path, run.game, run.n_players)
    return open_run(Path(path))


def verdict(a: float, a_lo: float, a_hi: float, b: float, b_lo: float, b_hi: float,
            d_lo: float | None = None, d_hi: float | None = None) -> str:
    """sign flips / changes / no clear change for one estimate in two runs: by the paired
    difference's interval d_lo..d_hi when given, else by the difference of two
    independent estimates (its interval from theirs)."""
    if any(v != v for v in (a, a_lo, a_hi, b, b_lo, b_hi)):  # NaN: not estimated
        return NO_CHANGE
    if d_lo is None or d_hi is None:
        se = math.hypot((a_hi - a_lo) / (2 * Z), (b_hi - b_lo) / (2 * Z))
        d_lo, d_hi = b - a - Z * se, b - a + Z * se
    return between(a_lo, a_hi, b_lo, b_hi, d_lo, d_hi)


def _overall(verdicts: list[str]) -> str:
    if FLIPS in verdicts:
        return FLIPS
    return CHANGES if CHANGES in verdicts else NO_CHANGE


def describe(run: Run) -> str:
    """A run in a few words: its strategies (repeats counted) and its games."""
    counts: dict[str, int] = {}
    for s in run.manifest["strategies"]:
        counts[str(s["name"])] = counts.get(str(s["name"]), 0) + 1
    names = ", ".join(name if k == 1 else f"{k} \u00d7 {name}" for name, k in counts.items())
    return f"{run.path} ({names}; {int(run.manifest['games']):,} games)"


def _other(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """`frame` with every column but `keys` renamed for the other run: `advantage_lo` ->
    `advantage_b_lo`, so the table's interval formats find `<key>_lo` and `<key>_hi`."""
    def name(c: str) -> str:
        for end in ("_lo", "_hi"):
            if c.endswith(end):
                return c[: -len(end)] + "_b" + end
        return c + "_b"
    return frame.rename({c: name(c) for c in frame.columns if c not in keys})


def _seat_rows(run: Run, other: Run, hooks: GameHooks) -> tuple[pl.DataFrame, list[str]]:
    a = metrics.seat_advantage(run.source)
    b = metrics.seat_advantage(other.source)
    keep = ["seat", "win_share", "win_share_lo", "win_share_hi",
            "advantage", "advantage_lo", "advantage_hi"]
    both = a.select(keep).join(_other(b.select(keep), ["seat"]), on="seat").sort("seat")
    paired: dict[int, dict[str, Any]] = {}
    if run.frame is not None and other.frame is not None:  # the difference deal by deal
        diff = paired_difference(run.frame, other.frame, "win_share", ["seat"])
        paired = {int(r["seat"]): r for r in diff.iter_rows(named=True)}
    rows, verdicts = [], []
    for r in both.iter_rows(named=True):
        d = paired.get(int(r["seat"]))
        if d is None:
            se = math.hypot((r["advantage_hi"] - r["advantage_lo"]) / (2 * Z),
                            (r["advantage_b_hi"] - r["advantage_b_lo"]) / (2 * Z))
            change = r["advantage_b"] - r["advantage"]
            d = {"diff": change, "diff_lo": change - Z * se, "diff_hi": change + Z * se}
        v = verdict(r["advantage"], r["advantage_lo"], r["advantage_hi"],
                    r["advantage_b"], r["advantage_b_lo"], r["advantage_b_hi"],
                    d["diff_lo"], d["diff_hi"])
        verdicts.append(v)
        rows.append(r | {"label": hooks.seat_label(int(r["seat"])), "change": d["diff"],
                         "change_lo": d["diff_lo"], "change_hi": d["diff_hi"],
                         "paired": bool(paired), "verdict": v})
    return pl.DataFrame(rows, infer_schema_length=None), verdicts


def _component_rows(run: Run, other: Run, targets: Targets,
                    hooks: GameHooks) -> pl.DataFrame:
    frames = []
    for r in (run, other):
        found = components_of(r, hooks, context(r, targets, hooks), missing=[])
        if not found.height:
            return pl.DataFrame()
        frames.append(found.select("kind", "key", "name", "effect", "effect_lo", "effect_hi"))
    both = frames[0].join(_other(frames[1].drop("name"), ["kind", "key"]), on=["kind", "key"])
    size = pl.max_horizontal(pl.col("effect").abs().fill_nan(None),
                             pl.col("effect_b").abs().fill_nan(None))
    top = (both.with_columns(_size=size).filter(pl.col("_size").is_not_null())
           .sort("_size", descending=True).head(TOP_COMPONENTS).drop("_size"))
    return top.with_columns(verdict=pl.struct(pl.all()).map_elements(
        lambda r: verdict(r["effect"], r["effect_lo"], r["effect_hi"],
                          r["effect_b"], r["effect_b_lo"], r["effect_b_hi"]),
        return_dtype=pl.String))


_SENTENCES = {
    ("seats", FLIPS): "Seat advantage flips: for at least one seat the difference is real "
                      "and the two runs favour opposite sides of the fair share.",
    ("seats", CHANGES): "Seat advantage changes: for at least one seat the difference's "
                        "interval excludes zero.",
    ("seats", NO_CHANGE): "No clear change in seat advantage: every seat's difference "
                          "interval includes zero (more games may still find one).",
    ("components", FLIPS): "Component effects flip: for at least one component the "
                           "difference is real and the sign changes.",
    ("components", CHANGES): "Component effects change: for at least one component the "
                             "difference's interval excludes zero.",
    ("components", NO_CHANGE): "No clear change in these component effects: every "
                               "difference interval includes zero.",
}


def stronger_section(run: Run, other: Run, targets: Targets, hooks: GameHooks) -> Section:
    """The side-by-side section: seat advantage and top component effects in both runs."""
    n = run.n_players
    seats, seat_verdicts = _seat_rows(run, other, hooks)
    blocks: list[Any] = [
        Note(f"This run: {describe(run)}. Other run: {describe(other)}. Each metric is "
             "judged by its difference (other run minus this one) with a 95% interval: "
             + ("paired deal by deal for the seats (both runs keep their rows), "
                if run.frame is not None and other.frame is not None else
                "from the two intervals as independent runs for the seats, ")
             + "from the two intervals for the components. A real difference \"changes\"; "
             "one whose two estimates lie on opposite sides of zero \"sign flips\"."),
        Table("Seat advantage in both runs",
              f"Each seat's win share and its distance from the fair share 1/{n} (percentage "
              "points), in this run and in the other, with the verdict.",
              seats, [Column("label", "Seat"),
                      Column("win_share", "Win share (this run)", "ci_pct"),
                      Column("advantage", "Advantage (this run)", "ci_pp"),
                      Column("win_share_b", "Win share (other run)", "ci_pct"),
                      Column("advantage_b", "Advantage (other run)", "ci_pp"),
                      Column("change", "Difference", "ci_pp"),
                      Column("verdict", "Verdict")], csv="stronger_seat_advantage"),
        Note(_SENTENCES[("seats", _overall(seat_verdicts))]),
    ]
    comps = _component_rows(run, other, targets, hooks)
    if comps.height:
        blocks += [
            Table("Top component effects in both runs",
                  f"The {comps.height} components with the largest win-share effect in either "
                  "run: win share of players who had or used it minus that of those who did "
                  "not (percentage points), in both runs, with the verdict.",
                  comps, [Column("name", "Component"), Column("kind", "Kind"),
                          Column("effect", "Effect (this run)", "ci_pp"),
                          Column("effect_b", "Effect (other run)", "ci_pp"),
                          Column("verdict", "Verdict")], csv="stronger_components"),
            Note(_SENTENCES[("components", _overall(comps["verdict"].to_list()))]),
        ]
    else:
        blocks.append(Note("Component effects: not available for one of the runs (the game "
                           "lists no components, or a summary-only run did not keep them)."))
    return Section("stronger", "Does it hold for stronger players?",
                   "The key balance metrics of this run beside another run of the same game "
                   "and player count played by other (e.g. stronger) strategies.", blocks)
