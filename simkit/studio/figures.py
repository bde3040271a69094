"""The report's figures of the games played so far: the baseline's, the changed
config's and their paired differences, by the functions the report and `simkit
compare` use (reports/targets.py, metrics.py, compare.py, build.py).

Looking again after every slice is a sequence of looks at a growing sample, so the
verdicts are judged as `--until-sure` judges them: look k's intervals are widened to
alpha_k = 0.05 / (k (k+1)) (simkit/stopping.py), and a verdict is decided only when it
is decided at that width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from reports.build import build, scorecard_only
from reports.compare import Comparison, compare_frames, table_rows
from reports.hooks import hooks_for
from reports.load import Run
from reports.metrics import seat_advantage, win_share_by
from reports.page import section_html
from reports.targets import Targets
from simkit.engine import manifest_stub
from simkit.stopping import Z95, look_z
from simkit.studio.games import Games

UNSURE = "NOT YET SURE"
SHOWN_SECTIONS = ("seats", "winners", "scores", "endings", "components")


@dataclass
class View:
    """What the page shows of one state after a look."""

    games: int
    look: int
    budget: int
    changed: bool
    scorecard: list[dict[str, Any]]  # per target: both verdicts and estimates, flipped
    seats: list[dict[str, Any]]  # per seat: both advantages and the paired difference
    strategies: list[dict[str, Any]]  # per strategy: both win shares and the difference
    comparison: list[list[str]]  # simkit compare's rows (formatted as it prints them)
    decided: bool
    widest_points: float  # the widest paired seat-difference interval, +- points
    turned: dict[int, int] = field(default_factory=dict)  # seat -> a game it won by the edit
    sections: list[str] = field(default_factory=list)  # report sections (final look only)
    final: bool = False

    @property
    def flipped(self) -> list[str]:
        return [r["title"] for r in self.scorecard if r["flipped"]]

    def outcome(self) -> dict[str, Any]:
        """What the history keeps of this state."""
        return {"games": self.games, "flipped": self.flipped,
                "verdicts": {r["title"]: r["b"] for r in self.scorecard},
                "decided": self.decided}


def in_memory_run(games: Games, n: int) -> Run:
    """The first `n` games played, as the report reads a finished run of them."""
    stub = manifest_stub(games.p)
    stub["games"], stub["rows"] = n, n * games.p.spec.players
    return Run(Path("."), stub, games.frame(n))


def view(base: Games, changed: Games, n: int, look: int, targets: Targets,
         final: bool = False) -> View:
    """The figures of the first `n` games of both, judged at look `look`."""
    ra, rb = in_memory_run(base, n), in_memory_run(changed, n)
    hooks = hooks_for(ra.game)
    widen = look_z(look) / Z95
    card_a, seats_a, shares_a = _baseline(base, ra, targets, hooks, widen, n, look)
    if changed is base:
        card_b, seats_b, shares_b = card_a, seats_a, shares_a
    else:
        card_b = scorecard_only(rb, targets, hooks, widen)
        seats_b, shares_b = seat_advantage(rb.source), win_share_by(rb.source, "strategy")
    card = [{"title": a["title"], "target": a["target"], "a": a["verdict"], "b": b["verdict"],
             "estimate_a": a["estimate"], "estimate_b": b["estimate"], "detail": b["detail"],
             "flipped": a["verdict"] != b["verdict"]}
            for a, b in zip(card_a.iter_rows(named=True), card_b.iter_rows(named=True),
                            strict=True)]
    # The component rows of the comparison cost most of a look: the final look has them.
    differences = compare_frames(ra, rb, top_components=5 if final and changed is not base
                                 else 0)
    seats = _seats(seats_a, seats_b, differences.filter(pl.col("metric") == "Win share by seat"),
                   hooks.seat_label)
    strategies = _strategies(shares_a, shares_b,
                             differences.filter(pl.col("metric") == "Win share by strategy"))
    widest = max((max(s["diff"] - s["diff_lo"], s["diff_hi"] - s["diff"]) for s in seats
                  if math.isfinite(s["diff_lo"])), default=math.inf) * 100
    decided = all(r["a"] != UNSURE and r["b"] != UNSURE for r in card)
    comparison = table_rows(Comparison(Path("baseline"), Path("changed"), ra.game, n,
                                       base.p.spec.seed, "baseline", "changed", differences))
    out = View(n, look, base.p.spec.games, changed is not base, card, seats, strategies,
               comparison, decided, widest, final=final)
    if changed is not base:
        out.turned = turned_games(ra.frame, rb.frame)
    if final:
        report = build(rb, targets, hooks)
        out.sections = [section_html(s) for s in report.sections if s.key in SHOWN_SECTIONS]
    return out


def _baseline(base: Games, run: Run, targets: Targets, hooks: Any, widen: float, n: int,
              look: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The baseline's scorecard, seat advantage and win shares over its first `n` games
    at look `look`: the same for every edit, so computed once."""
    key = (n, look, id(targets))
    if key not in base.memo:
        base.memo[key] = (scorecard_only(run, targets, hooks, widen), seat_advantage(run.source),
                          win_share_by(run.source, "strategy"))
    return base.memo[key]  # type: ignore[return-value]


def _seats(a: pl.DataFrame, b: pl.DataFrame, diff: pl.DataFrame,
           label: Any) -> list[dict[str, Any]]:
    d = {r["group"]: r for r in diff.iter_rows(named=True)}  # compare names seats by label
    rows = []
    for ra, rb in zip(a.iter_rows(named=True), b.iter_rows(named=True), strict=True):
        r = d.get(label(int(ra["seat"])), {})
        rows.append({"seat": int(ra["seat"]), "label": label(int(ra["seat"])),
                     "a": ra["advantage"], "a_lo": ra["advantage_lo"],
                     "a_hi": ra["advantage_hi"], "b": rb["advantage"],
                     "b_lo": rb["advantage_lo"], "b_hi": rb["advantage_hi"],
                     "diff": r.get("diff", 0.0), "diff_lo": r.get("diff_lo", 0.0),
                     "diff_hi": r.get("diff_hi", 0.0), "real": bool(r.get("real", False))})
    return rows


def _strategies(a: pl.DataFrame, b: pl.DataFrame, diff: pl.DataFrame) -> list[dict[str, Any]]:
    d = {r["group"]: r for r in diff.iter_rows(named=True)}
    bs = {str(r["strategy"]): r for r in b.iter_rows(named=True)}
    rows = []
    for ra in a.iter_rows(named=True):
        name = str(ra["strategy"])
        rb, r = bs.get(name, ra), d.get(name, {})
        rows.append({"strategy": name, "a": ra["win_share"], "a_lo": ra["win_share_lo"],
                     "a_hi": ra["win_share_hi"], "b": rb["win_share"],
                     "b_lo": rb["win_share_lo"], "b_hi": rb["win_share_hi"],
                     "diff": r.get("diff", 0.0), "diff_lo": r.get("diff_lo", 0.0),
                     "diff_hi": r.get("diff_hi", 0.0), "real": bool(r.get("real", False))})
    return rows


def turned_games(a: pl.DataFrame | None, b: pl.DataFrame | None) -> dict[int, int]:
    """Per seat, the first game that seat won with the edit and did not win without it
    (the same deal): the play log behind the seat's difference."""
    if a is None or b is None:
        return {}
    j = a.select("game", "seat", wa="win_share").join(
        b.select("game", "seat", wb="win_share"), on=["game", "seat"])
    first = (j.filter((pl.col("wb") > pl.col("wa")) & (pl.col("wb") >= 0.5))
             .group_by("seat").agg(pl.col("game").min()))
    return {int(s): int(g) for s, g in first.iter_rows()}
