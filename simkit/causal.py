"""Causal component value from paired games: estimates, intervals, multiplicity control.

`simkit value` plays every deal as configured and once per intervention, and keeps, per
intervention and deal, four integer totals over the seats the intervention touches:
`m` (touched seat-games), `wp` and `wn` (the gains and the losses of as-configured minus
variant win share, times the run's win scale), `s` (score difference) and `b`
(as-configured win share, times the scale).

The value of component i is the ratio r_i = sum_d w_d / sum_d m_d: the mean paired
difference per touched player. Games on one deal are dependent, so its standard error is
the cluster-robust (linearised ratio) one over deals:
    e_d = (w_d - r_i m_d) / sum m,   se^2 = D/(D-1) sum_d e_d^2
over all D deals played. "Against the average of its kind" is r_i minus the mean of r_j
over the kind; its influence per deal is e_i,d minus the kind's mean e_j,d, so the same
formula gives its interval, with every covariance between components carried by the deals
(floored by the pooled spread of the kind, so a component that changed no game is not
"certainly average minus something").

The value interval is not plain r +- 1.96 se: a component that changes few games gives a
sum of rare +1s and -1s, whose normal interval misses below the truth far more often than
2.5% of the time (measured: 78% coverage for a card worth half a point, 800 games). So, as
Newcombe does for paired proportions, the gains and the losses are two proportions
P = sum w+ / sum m and N = sum w- / sum m, each with Wilson's interval on its effective
sample size (clustering included), combined by MOVER with their correlation over deals:
    lo = r - sqrt(dP-^2 + dN+^2 - 2 rho dP- dN+),  hi = r + sqrt(dP+^2 + dN-^2 - 2 rho dP+ dN-).

Verdicts say whether a difference from the kind's average matters, against a margin
(`MARGIN`, 2 points of win share by default; the targets file's
`component_effect.margin_points`):
- "stronger" / "weaker": clearly more than the margin above / below the average (the
  test of |difference| <= margin rejected);
- "about average": clearly within the margin (an equivalence test, two one-sided tests);
- "not yet sure": neither, so far; more games decide it;
- "not seen": neutralising it changed no game (it cannot occur with this player count,
  or no player uses it): it is left out of the kind's average.
Each family (the kind's stronger/weaker calls, and its about-average calls) is controlled
by Benjamini-Hochberg at 5%: the expected share of wrong calls among the components
called so is at most 5% (it bounds that share, not the chance of any one row being wrong).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import polars as pl

from simkit.intervals import Z, wilson

FDR = 0.05
MARGIN = 0.02  # 2 points of win share: a difference from the average smaller than this
# is "about average", however sure (the targets file's component_effect.margin_points)
STRONGER, WEAKER, AVERAGE, NOT_SEEN = "stronger", "weaker", "about average", "not seen"
UNSURE = "not yet sure"


def _ratio(y: np.ndarray, m: np.ndarray) -> tuple[float, np.ndarray]:
    """Ratio mean sum(y)/sum(m) and its per-deal influence (zeros if nothing was seen)."""
    total = float(m.sum())
    if total <= 0:
        return math.nan, np.zeros(len(m))
    r = float(y.sum()) / total
    return r, (y - r * m) / total


def _se(infl: np.ndarray) -> float:
    d = len(infl)
    return math.sqrt(d / (d - 1) * float((infl * infl).sum())) if d > 1 else math.nan


def _wilson_eff(p: float, se: float, n: float) -> tuple[float, float]:
    """Wilson on the effective sample size p(1-p)/se^2 (n when that is undefined)."""
    n_eff = p * (1 - p) / (se * se) if se > 0 and 0 < p < 1 else n
    return wilson(p, n_eff)


def mover(wp: np.ndarray, wn: np.ndarray, m: np.ndarray) -> tuple[float, float]:
    """95% interval for sum(wp - wn) / sum(m) (wp, wn >= 0, at most m per deal): Wilson
    intervals for the gains and the losses, combined by MOVER with their correlation."""
    pp, ep = _ratio(wp, m)
    pn, en = _ratio(wn, m)
    sp, sn = _se(ep), _se(en)
    if not (math.isfinite(pp) and math.isfinite(sp)):
        return (math.nan, math.nan)
    d = len(m)
    cov = d / (d - 1) * float((ep * en).sum()) if d > 1 else 0.0
    rho = cov / (sp * sn) if sp > 0 and sn > 0 else 0.0
    count = float(m.sum())
    lp, up = _wilson_eff(pp, sp, count)
    ln, un = _wilson_eff(pn, sn, count)
    r = pp - pn
    lo = r - math.sqrt(max((pp - lp) ** 2 + (un - pn) ** 2
                           - 2 * rho * (pp - lp) * (un - pn), 0.0))
    hi = r + math.sqrt(max((up - pp) ** 2 + (pn - ln) ** 2
                           - 2 * rho * (up - pp) * (pn - ln), 0.0))
    return (lo, hi)


def bh(p: Sequence[float], q: float = FDR) -> np.ndarray:
    """Benjamini-Hochberg: which hypotheses are rejected at false discovery rate `q`."""
    p = np.asarray(p, float)
    ok = np.isfinite(p)
    out = np.zeros(len(p), bool)
    idx = np.flatnonzero(ok)
    if not len(idx):
        return out
    order = idx[np.argsort(p[idx], kind="stable")]
    m = len(order)
    below = p[order] <= q * np.arange(1, m + 1) / m
    if below.any():
        k = int(np.flatnonzero(below).max())
        out[order[: k + 1]] = True
    return out


def _pooled_floor(se: Sequence[float], n: Sequence[float]) -> list[float]:
    """A floor for each contrast's standard error: a component that changed no game (or
    very few) has a standard error of 0 (or too small), and its difference from the
    average would look certain. Under "no different from the average" its spread per
    player is the kind's pooled one, so each se is at least sqrt(pooled / n_i), and the
    contrast's se at least that of independent estimates."""
    k = len(se)
    pooled = float(np.mean([s * s * ni for s, ni in zip(se, n, strict=True)]))
    s = [max(x, math.sqrt(pooled / ni)) if ni > 0 else math.inf for x, ni in zip(se, n,
                                                                              strict=True)]
    total = sum(x * x for x in s)
    return [math.sqrt((1 - 2 / k) * x * x + total / (k * k)) for x in s]


def _p(est: float, se: float) -> float:
    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0:
        return math.nan if not math.isfinite(est) else (0.0 if est != 0 else 1.0)
    return 2 * (1 - NormalDist().cdf(abs(est) / se))


def p_beyond(est: float, se: float, margin: float) -> float:
    """p-value of "|difference| is at most `margin`" (two-sided, as at margin 0)."""
    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0:
        return math.nan if not math.isfinite(est) else float(abs(est) <= margin)
    return min(1.0, 2 * (1 - NormalDist().cdf((abs(est) - margin) / se)))


def p_within(est: float, se: float, margin: float) -> float:
    """p-value of "|difference| is at least `margin`": the larger of the two one-sided
    tests' (TOST), small when the difference is clearly inside the margin."""
    if not (math.isfinite(est) and math.isfinite(se)) or se <= 0:
        return math.nan if not math.isfinite(est) else float(abs(est) >= margin)
    nd = NormalDist()
    return max(1 - nd.cdf((est + margin) / se), nd.cdf((est - margin) / se))


def verdicts(table: pl.DataFrame, margin: float = MARGIN) -> pl.DataFrame:
    """The table with `verdict`, `p_beyond`, `p_within` and `margin` judged against
    `margin` (a win-share fraction) from each row's `vs_average` and `vs_average_se`,
    with Benjamini-Hochberg within each kind for each of the two families of calls."""
    rows = table.to_dicts()
    for kind in dict.fromkeys(r["kind"] for r in rows):
        members = [r for r in rows if r["kind"] == kind and not r["a_a"]
                   and r["verdict"] != NOT_SEEN]
        beyond = [p_beyond(r["vs_average"], r["vs_average_se"], margin) for r in members]
        within = [p_within(r["vs_average"], r["vs_average_se"], margin) for r in members]
        for r, pb, pw, big, small in zip(members, beyond, within, bh(beyond), bh(within),
                                         strict=True):
            r |= {"p_beyond": pb, "p_within": pw, "margin": margin,
                  "verdict": ((STRONGER if r["vs_average"] > 0 else WEAKER) if big
                              else AVERAGE if small else UNSURE)}
    for r in rows:
        r.setdefault("p_beyond", math.nan)
        r.setdefault("p_within", math.nan)
        r["margin"] = margin
    return pl.DataFrame(rows, infer_schema_length=None)


def estimate(kinds: Sequence[str], keys: Sequence[str], names: Sequence[str],
             totals: dict[str, np.ndarray], scale: int, aa: Sequence[bool],
             margin: float = MARGIN) -> pl.DataFrame:
    """The value table: one row per intervention from per-deal totals (K, deals).

    Columns: kind, key, name, players (touched seat-games), value (win share, fraction),
    value_lo/hi/se, score and its interval, win_configured (touched seats' win share as
    configured), vs_average (value minus the kind's mean over the components seen in
    play) with its interval and p, verdict (`verdicts`) and the deals behind it.
    """
    m = totals["m"].astype(np.float64)
    wp = totals["wp"].astype(np.float64) / scale
    wn = totals["wn"].astype(np.float64) / scale
    w = wp - wn
    s = totals["s"].astype(np.float64)
    b = totals["b"].astype(np.float64) / scale
    k, deals = m.shape
    est = [_ratio(w[i], m[i]) for i in range(k)]
    sc = [_ratio(s[i], m[i]) for i in range(k)]
    # Seen in play: neutralising it changed some game (a component that cannot occur
    # with this player count, or that nobody uses, changes none and stays out of the
    # kind's average).
    seen = (np.abs(wp) + np.abs(wn) + np.abs(s)).sum(axis=1) > 0
    rows = []
    for i in range(k):
        r, e = est[i]
        se = _se(e)
        lo, hi = mover(wp[i], wn[i], m[i])
        sr, se_s = sc[i][0], _se(sc[i][1])
        rows.append({"kind": kinds[i], "key": keys[i], "name": names[i], "a_a": bool(aa[i]),
                     "players": int(m[i].sum()), "deals": deals,
                     "win_configured": float(b[i].sum() / m[i].sum()) if m[i].sum() else math.nan,
                     "value": r, "value_se": se, "value_lo": lo, "value_hi": hi,
                     "score": sr, "score_lo": sr - Z * se_s, "score_hi": sr + Z * se_s,
                     "vs_average": math.nan, "vs_average_lo": math.nan,
                     "vs_average_hi": math.nan, "vs_average_se": math.nan, "p": math.nan,
                     "verdict": NOT_SEEN if not (m[i].sum() and seen[i]) else UNSURE})
    for kind in dict.fromkeys(kinds):
        members = [i for i in range(k) if kinds[i] == kind and not aa[i] and m[i].sum() > 0
                   and seen[i]]
        if not members:
            continue
        mean_r = float(np.mean([est[i][0] for i in members]))
        mean_e = np.mean([est[i][1] for i in members], axis=0)
        floor = _pooled_floor([_se(est[i][1]) for i in members], [m[i].sum() for i in members])
        for j, i in enumerate(members):
            c = est[i][0] - mean_r
            se = (max(_se(est[i][1] - mean_e), floor[j]) if len(members) > 1 else math.nan)
            rows[i] |= {"vs_average": c, "vs_average_se": se, "vs_average_lo": c - Z * se,
                        "vs_average_hi": c + Z * se, "p": _p(c, se)}
    for i in range(k):
        if aa[i]:
            rows[i]["p"] = _p(rows[i]["value"], rows[i]["value_se"])
            rows[i]["verdict"] = ("covers zero" if rows[i]["value_lo"] <= 0 <= rows[i]["value_hi"]
                                  else "MISSES ZERO")
    return verdicts(pl.DataFrame(rows, infer_schema_length=None), margin)


def half_width(table: pl.DataFrame) -> float:
    """The widest value interval's larger half (what --precision stops on)."""
    rows = table.filter(~pl.col("a_a") & (pl.col("players") > 0))
    if not rows.height:
        return math.inf
    half = rows.select(pl.max_horizontal(pl.col("value") - pl.col("value_lo"),
                                         pl.col("value_hi") - pl.col("value"))
                       .fill_nan(math.inf).max()).item()
    return math.inf if half is None else float(half)
