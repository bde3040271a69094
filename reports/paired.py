"""Paired differences between two sets of games on the same deals (deal d of one seed
deals the same cards in every run): `simkit compare`, `report --stronger` and the ladder
report take each metric's difference deal by deal.

Each per-deal metric is a ratio mean (sum over the deal's rows / its rows), so the
difference of the two ratio estimators is linearised per deal:
e_d = (yA_d - meanA mA_d) / MA - (yB_d - meanB mB_d) / MB, se = sqrt(C/(C-1) sum e_d^2).
A deal only one side played counts on that side alone (its other term is zero).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from reports.stats import Z


def paired_difference(fa: pl.DataFrame, fb: pl.DataFrame, value: str,
                      by: list[str] | None = None) -> pl.DataFrame:
    """B - A of the per-deal ratio mean of `value` (per group `by`), paired over deals.

    Columns: `by` (as text), a, b, deals, diff, diff_se, unpaired_se, diff_lo, diff_hi,
    unpaired_lo, unpaired_hi; one row per group, sorted by it.
    """
    by = list(by or [])
    groups = _groups(fa, fb, by)
    sides = [_per_deal(f, value, by, groups) for f in (fa, fb)]
    # Every (group, deal) either side played, in order; a deal one side lacks adds 0 there.
    keys = np.union1d(sides[0][0], sides[1][0])
    y, m = [], []
    for k, ys, ms in sides:
        at = np.searchsorted(keys, k)
        y.append(np.zeros(len(keys)))
        m.append(np.zeros(len(keys)))
        y[-1][at], m[-1][at] = ys, ms
    gid = keys >> DEAL_BITS
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]]) if len(keys) else keys
    ya_t, yb_t, ma_t, mb_t = (np.add.reduceat(v, starts) if len(keys) else v
                              for v in (y[0], y[1], m[0], m[1]))
    deals = np.diff(np.r_[starts, len(keys)])
    seg = np.repeat(np.arange(len(starts)), deals)
    mean_a, mean_b = _ratio(ya_t, ma_t), _ratio(yb_t, mb_t)
    ea = (y[0] - mean_a[seg] * m[0]) / np.where(ma_t > 0, ma_t, 1)[seg]
    eb = (y[1] - mean_b[seg] * m[1]) / np.where(mb_t > 0, mb_t, 1)[seg]
    sums = [np.add.reduceat(v, starts) if len(keys) else v
            for v in ((eb - ea) ** 2, ea ** 2, eb ** 2)]
    kept = (ma_t > 0) & (mb_t > 0)
    cols = {c: groups[c].to_numpy()[gid[starts][kept]] for c in by}
    c = pl.col("deals").cast(pl.Float64)
    out = pl.DataFrame({**cols, "a": mean_a[kept], "b": mean_b[kept],
                        "deals": deals[kept].astype(np.uint32), "sd": sums[0][kept],
                        "sa": sums[1][kept], "sb": sums[2][kept]},
                       schema_overrides={k: pl.String for k in by})
    return (out.with_columns(infl=pl.when(c > 1).then(c / (c - 1)).otherwise(None))
            .with_columns(diff=pl.col("b") - pl.col("a"),
                          diff_se=(pl.col("sd") * pl.col("infl")).sqrt(),
                          unpaired_se=((pl.col("sa") + pl.col("sb")) * pl.col("infl")).sqrt())
            .with_columns(diff_lo=pl.col("diff") - Z * pl.col("diff_se"),
                          diff_hi=pl.col("diff") + Z * pl.col("diff_se"),
                          unpaired_lo=pl.col("diff") - Z * pl.col("unpaired_se"),
                          unpaired_hi=pl.col("diff") + Z * pl.col("unpaired_se"))
            .drop("sd", "sa", "sb", "infl"))


# A (group, deal) pair is one int64: the group's index above the deal's bits.
DEAL_BITS = 40


def _groups(fa: pl.DataFrame, fb: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Every group either side has, as text, sorted: row i is group i."""
    if not by:
        return pl.DataFrame({"_all": [0]})
    text = [pl.col(c).cast(pl.String) for c in by]
    return pl.concat([f.select(text) for f in (fa, fb)]).unique().sort(by)


def _per_deal(frame: pl.DataFrame, value: str, by: list[str],
              groups: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted (group, deal) keys and each one's sum of `value` and number of rows.

    Summed in numpy in the frame's own row order: polars' parallel group-by added the
    same floats in an order that varied from call to call, so `simkit compare` wrote a
    last digit that changed between identical reruns.
    """
    text = [pl.col(c).cast(pl.String) for c in by]
    rows = frame.select(pl.col("deal").cast(pl.Int64), pl.col(value).cast(pl.Float64)
                        .fill_null(0.0), *text).with_row_index("_row")
    if by:
        rows = rows.join(groups.with_row_index("_gid"), on=by, how="left").sort("_row")
        gid = rows["_gid"].cast(pl.Int64).to_numpy()
    else:
        gid = np.zeros(rows.height, np.int64)
    key = (gid << DEAL_BITS) | rows["deal"].to_numpy()
    order = np.argsort(key, kind="stable")
    key, ys = key[order], rows[value].to_numpy()[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else key
    if not len(key):
        return key, ys, ys
    return (key[starts], np.add.reduceat(ys, starts),
            np.diff(np.r_[starts, len(key)]).astype(np.float64))


def _ratio(y: np.ndarray, m: np.ndarray) -> np.ndarray:
    return y / np.where(m > 0, m, 1)
