"""Paired differences between two sets of games on the same deals (deal d of one seed
deals the same cards in every run): `simkit compare`, `report --stronger` and the ladder
report take each metric's difference deal by deal.

Each per-deal metric is a ratio mean (sum over the deal's rows / its rows), so the
difference of the two ratio estimators is linearised per deal:
e_d = (yA_d - meanA mA_d) / MA - (yB_d - meanB mB_d) / MB, se = sqrt(C/(C-1) sum e_d^2).
A deal only one side played counts on that side alone (its other term is zero).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from reports.stats import Z


def paired_difference(fa: pl.DataFrame, fb: pl.DataFrame, value: str,
                      by: list[str] | None = None) -> pl.DataFrame:
    """B - A of the per-deal ratio mean of `value` (per group `by`), paired over deals.

    Columns: `by`, a, b, diff, diff_se, diff_lo, diff_hi, unpaired_se, unpaired_lo,
    unpaired_hi, deals.
    """
    by = list(by or [])

    def per(frame: pl.DataFrame, tag: str) -> pl.DataFrame:
        out = frame.lazy().group_by(["deal", *by]).agg(
            pl.col(value).cast(pl.Float64).sum().alias(f"y{tag}"), pl.len().alias(f"m{tag}"))
        casts = [pl.col(c).cast(pl.String) for c in by]
        return out.with_columns(casts).collect()

    j = per(fa, "a").join(per(fb, "b"), on=["deal", *by], how="full", coalesce=True)
    j = j.with_columns(pl.col("ya", "yb").fill_null(0.0),
                       pl.col("ma", "mb").fill_null(0).cast(pl.Float64))
    grp = [pl.col(c) for c in by]
    totals = j.group_by(by or pl.lit(0).alias("_all")).agg(
        ya_t=pl.col("ya").sum(), yb_t=pl.col("yb").sum(), ma_t=pl.col("ma").sum(),
        mb_t=pl.col("mb").sum(), deals=pl.len())
    if not by:
        j = j.with_columns(_all=pl.lit(0))
        keys: list[Any] = ["_all"]
    else:
        keys = by
    j = j.join(totals, on=keys).filter((pl.col("ma_t") > 0) & (pl.col("mb_t") > 0))
    mean_a = pl.col("ya_t") / pl.col("ma_t")
    mean_b = pl.col("yb_t") / pl.col("mb_t")
    ea = (pl.col("ya") - mean_a * pl.col("ma")) / pl.col("ma_t")
    eb = (pl.col("yb") - mean_b * pl.col("mb")) / pl.col("mb_t")
    c = pl.col("deals").cast(pl.Float64)
    out = (j.with_columns(ea=ea, eb=eb, a=mean_a, b=mean_b)
           .group_by(keys)
           .agg(pl.col("a").first(), pl.col("b").first(), pl.col("deals").first(),
                sd=((pl.col("eb") - pl.col("ea")) ** 2).sum(),
                sa=(pl.col("ea") ** 2).sum(), sb=(pl.col("eb") ** 2).sum())
           .with_columns(infl=pl.when(c > 1).then(c / (c - 1)).otherwise(None))
           .with_columns(diff=pl.col("b") - pl.col("a"),
                         diff_se=(pl.col("sd") * pl.col("infl")).sqrt(),
                         unpaired_se=((pl.col("sa") + pl.col("sb")) * pl.col("infl")).sqrt())
           .with_columns(diff_lo=pl.col("diff") - Z * pl.col("diff_se"),
                         diff_hi=pl.col("diff") + Z * pl.col("diff_se"),
                         unpaired_lo=pl.col("diff") - Z * pl.col("unpaired_se"),
                         unpaired_hi=pl.col("diff") + Z * pl.col("unpaired_se"))
           .drop("sd", "sa", "sb", "infl"))
    if not by:
        out = out.drop("_all")
    return out.sort(grp) if by else out
