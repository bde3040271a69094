"""Verdicts across skill: one target's verdicts at every rung of a ladder read as one.

Each rung's verdict is the scorecard's (`reports/targets.py`: PASS or FAIL when the whole
95% interval is inside or outside the target, else NOT YET SURE). Across the ladder:

- "not yet sure about strong play" when the top rung has not converged (doubling its
  budget may still change what the strongest players do), whatever the rungs say;
- "FAIL at every skill level" / "PASS at every skill level" when every rung agrees;
- "depends on skill" when some rung passes and another fails, naming where it flips;
- "not yet sure at <rungs>" otherwise (some rung undecided, none contradicting).

A wrong "depends on skill" needs a wrong decided verdict at some rung, each at most 2.5%
likely when the truth sits on the target's line, so at most k x 2.5% over k rungs;
"at every skill level" needs every rung right, so its error is at most one rung's.
`tests/test_ladder_verdicts.py` measures both by simulation.

The top has converged when the doubled-budget player's gain over the fair share has its
whole 95% interval under the margin (an error of at most 2.5% when the true gain is at the
margin).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from reports.targets import FAIL, PASS, UNSURE

EVERY_FAIL = "FAIL at every skill level"
EVERY_PASS = "PASS at every skill level"
DEPENDS = "depends on skill"
NOT_STRONG = "not yet sure about strong play"
UNDECIDED = "not yet sure at"

CONVERGED, CLIMBING, NOT_SURE = "converged", "still climbing", "not sure"


def convergence(lo: float, hi: float, margin: float) -> str:
    """Whether doubling the top's budget gains less than `margin` (the gain's 95%
    interval lo..hi, in win share over the fair share)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return NOT_SURE
    if hi < margin:
        return CONVERGED
    if lo > margin:
        return CLIMBING
    return NOT_SURE


def _runs(rungs: Sequence[str], verdicts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Consecutive rungs with the same verdict: [(verdict, [rung, ...]), ...]."""
    out: list[tuple[str, list[str]]] = []
    for name, v in zip(rungs, verdicts, strict=True):
        if out and out[-1][0] == v:
            out[-1][1].append(name)
        else:
            out.append((v, [name]))
    return out


def pattern(rungs: Sequence[str], verdicts: Sequence[str]) -> str:
    """The verdicts in ladder order: "PASS for random, greedy; FAIL for planner"."""
    return "; ".join(f"{v} for {', '.join(names)}" for v, names in _runs(rungs, verdicts))


def flips(rungs: Sequence[str], verdicts: Sequence[str]) -> list[tuple[str, str]]:
    """Where the decided verdicts change: (last rung before, first rung after), skipping
    undecided rungs between them."""
    out = []
    last: tuple[str, str] | None = None  # (rung, verdict) of the last decided rung
    for name, v in zip(rungs, verdicts, strict=True):
        if v not in (PASS, FAIL):
            continue
        if last is not None and last[1] != v:
            out.append((last[0], name))
        last = (name, v)
    return out


def across_skill(rungs: Sequence[str], verdicts: Sequence[str],
                 top: str = CONVERGED) -> tuple[str, str]:
    """(verdict across skill, detail) of one target from its verdict at each rung, weakest
    first, and the top's convergence."""
    if not rungs:
        return UNDECIDED + " any rung", "No rung was judged."
    shown = pattern(rungs, verdicts)
    moves = flips(rungs, verdicts)
    where = "; ".join(f"flips between {a} and {b}" for a, b in moves)
    if top != CONVERGED:
        return NOT_STRONG, (f"{shown}. The top rung ({rungs[-1]}) has not converged "
                            f"({top}): stronger play may still change this."
                            + (f" Across the rungs measured it {where}." if moves else ""))
    decided = {v for v in verdicts if v in (PASS, FAIL)}
    if decided == {PASS, FAIL}:
        return DEPENDS, f"{shown}: {where}."
    if set(verdicts) == {FAIL}:
        return EVERY_FAIL, shown + "."
    if set(verdicts) == {PASS}:
        return EVERY_PASS, shown + "."
    unsure = [n for n, v in zip(rungs, verdicts, strict=True) if v == UNSURE or
              v not in (PASS, FAIL)]
    return f"{UNDECIDED} {', '.join(unsure)}", f"{shown}: more games at those rungs decide it."


def sign(lo: float, hi: float) -> int:
    """+1 / -1 when an interval lies wholly above / below zero, else 0."""
    return 1 if lo > 0 else -1 if hi < 0 else 0


def between(a_lo: float, a_hi: float, b_lo: float, b_hi: float, d_lo: float,
            d_hi: float) -> str:
    """Two rungs' estimates of one item compared by their paired difference (its 95%
    interval d_lo..d_hi, on the same deals): "sign flips" when the difference is real and
    the two estimates lie on opposite sides of zero, "changes" when the difference is real,
    else "no clear change"."""
    if not (math.isfinite(d_lo) and math.isfinite(d_hi)) or sign(d_lo, d_hi) == 0:
        return "no clear change"
    if sign(a_lo, a_hi) * sign(b_lo, b_hi) < 0:
        return "sign flips"
    return "changes"


def across_rungs(rows: list[Mapping[str, Any]]) -> tuple[str, str]:
    """A change judged at every rung of the ladder: (one word, the sentence). Each row is
    a rung's {"rung", "games", "after": {metric: verdict}}; a rung passes when every
    searched target does, fails when one FAILs, and is undecided otherwise."""
    from simkit import balancing as bal

    def state(r: Mapping[str, Any]) -> str:
        verdicts = [v for m, v in r["after"].items() if m in bal.SEARCHED]
        return ("fail" if FAIL in verdicts else
                "pass" if verdicts and all(v == PASS for v in verdicts) else "unsure")

    def players(rs: list[Mapping[str, Any]]) -> str:
        return ", ".join(r["rung"] for r in rs) + " players"

    by: dict[str, list[Mapping[str, Any]]] = {"pass": [], "fail": [], "unsure": []}
    for r in rows:
        by[state(r)].append(r)
    games = sorted({r["games"] for r in rows})
    on = (f" ({'/'.join(f'{g:,}' for g in games)} fresh games a rung, each rung's player "
          "in every seat)")
    if by["pass"] and by["fail"]:
        failing = "; ".join(
            f"{r['rung']}: " + ", ".join(m for m in bal.SEARCHED if r["after"].get(m) == FAIL)
            for r in by["fail"])
        return "depends on skill", (f"Depends on skill: the change passes for "
                                    f"{players(by['pass'])} and fails for "
                                    f"{players(by['fail'])} ({failing}){on}.")
    if by["fail"]:
        return "fails at every decided rung", (
            f"The change fails for {players(by['fail'])}"
            + (f" and is not yet sure for {players(by['unsure'])}" if by["unsure"] else "")
            + f"{on}.")
    if by["unsure"]:
        return "not yet sure", (
            "Not yet sure at every skill level: the change passes for "
            + (players(by["pass"]) if by["pass"] else "no rung")
            + f" and is undecided for {players(by['unsure'])}{on}.")
    return "every skill level", f"The change passes at every skill level ({players(rows)}){on}."
