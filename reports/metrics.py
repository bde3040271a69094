"""Balance metrics: pure functions from a results frame to small metric frames.

The input is a run's results (one row per game and seat, the `games.parquet` columns) as a
polars DataFrame or LazyFrame; each function builds one lazy query and collects a small
frame. Every estimate comes with a 95% interval (`<name>_lo`, `<name>_hi`) and the number
of games (or player-games) behind it.

Dependence is handled by clustering, never ignored:
- the players of one game are dependent (one player's win is another's loss), and so are
  the games played on one deal (games that share a deal differ only in seating), so
  means are computed per deal and the interval comes from the spread between deals;
- the seat advantage is paired: on a deal every strategy sits once in every seat, so
  averaging a seat's result over the deal cancels the strategies out and leaves the seat.

Win shares are fractions (0..1) in every frame; the report shows them as percentages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from reports.stats import Z, cluster_mean_exprs, welch, wilson

Frame = pl.DataFrame | pl.LazyFrame
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
MIN_GROUP = 30  # fewer players on either side of a comparison: no estimate


def _lazy(frame: Frame) -> pl.LazyFrame:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def _q_name(q: float) -> str:
    return "median" if q == 0.5 else f"p{round(q * 100):d}"


def n_players(frame: Frame) -> int:
    """Players per game (seats are numbered 0..N-1)."""
    return int(_lazy(frame).select(pl.col("seat").max()).collect().item()) + 1


def _as_string(frame: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    casts = [pl.col(c).cast(pl.String) for c in by
             if isinstance(frame.schema[c], pl.Categorical | pl.Enum)]
    return frame.with_columns(casts) if casts else frame


def clustered_mean(frame: Frame, by: Sequence[str], values: Sequence[str],
                   cluster: str = "deal") -> pl.DataFrame:
    """Mean of each of `values` per group `by`, with a cluster-robust 95% interval.

    Rows are summed per (cluster, group); the mean is sum(y) / rows and its standard error
    comes from the spread of the cluster totals (the ratio estimator). With equal cluster
    sizes this is exactly "average per cluster, then mean +- 1.96 sd / sqrt(clusters)".
    Columns: `by`, games, players (rows), clusters, then per value `<v>`, `<v>_se`,
    `<v>_lo`, `<v>_hi`.
    """
    by = list(by)
    # A results frame has one row per game and seat, so with the seat among the groups every
    # row is a game of its own; counting distinct games is only needed (and paid for) when not.
    games = pl.len() if "seat" in by else pl.col("game").n_unique()
    per = _lazy(frame).group_by([cluster, *by]).agg(
        *[pl.col(v).cast(pl.Float64).sum() for v in values], m=pl.len(), games=games)
    out = per.group_by(by).agg(
        *[e for v in values for e in cluster_mean_exprs(v)],
        games=pl.col("games").sum(), players=pl.col("m").sum(), clusters=pl.len())
    return _as_string(out.sort(by).collect(), by)


def subgroup_means(frame: Frame, groups: Mapping[str, pl.Expr], value: str,
                   cluster: str = "deal") -> pl.DataFrame:
    """Mean of `value` within each named subgroup of rows (a boolean expression each, the
    subgroups may overlap), with cluster-robust 95% intervals, in one pass over the data.

    Columns: group, players, `<value>`, `<value>_se`, `<value>_lo`, `<value>_hi`.
    """
    names = list(groups)
    v = pl.col(value).cast(pl.Float64)
    sums = [e for i, name in enumerate(names) for e in (
        (v * groups[name].cast(pl.Float64)).alias(f"y{i}"),
        groups[name].cast(pl.Float64).alias(f"m{i}"))]
    per = _lazy(frame).select(cluster, *sums).group_by(cluster).sum().collect()
    rows = []
    for i, name in enumerate(names):
        r = per.select(pl.col(f"m{i}").sum().alias("players"),
                       *cluster_mean_exprs(f"y{i}", f"m{i}")).row(0, named=True)
        rows.append({"group": name, "players": int(r["players"]), value: r[f"y{i}"],
                     f"{value}_se": r[f"y{i}_se"], f"{value}_lo": r[f"y{i}_lo"],
                     f"{value}_hi": r[f"y{i}_hi"]})
    return pl.DataFrame(rows, schema={"group": pl.String, "players": pl.Int64,
                                      value: pl.Float64, f"{value}_se": pl.Float64,
                                      f"{value}_lo": pl.Float64, f"{value}_hi": pl.Float64})


def as_proportion(frame: pl.DataFrame, value: str, n: str = "players",
                  degenerate_only: bool = False) -> pl.DataFrame:
    """Replace the interval of a 0/1 mean by Wilson's, on the effective sample size
    p(1-p)/se^2 (which carries the clustering); needed near 0 and 1, where mean +- 1.96 se
    collapses to a point. With `degenerate_only` (for shares in [0, 1] that are not 0/1,
    such as win shares), only rows at exactly 0 or 1 with no spread are replaced."""
    lo, hi = [], []
    for r in frame.iter_rows(named=True):
        p, se, count = r[value], r.get(f"{value}_se"), r.get("clusters") or r[n]
        if degenerate_only and not (p in (0.0, 1.0) and not se):
            lo.append(r[f"{value}_lo"])
            hi.append(r[f"{value}_hi"])
            continue
        if p is None or not math.isfinite(p):
            lo.append(math.nan)
            hi.append(math.nan)
            continue
        n_eff = p * (1 - p) / se ** 2 if se and se > 0 and 0 < p < 1 else count
        a, b = wilson(p, n_eff)
        lo.append(a)
        hi.append(b)
    return frame.with_columns(pl.Series(f"{value}_lo", lo, pl.Float64),
                              pl.Series(f"{value}_hi", hi, pl.Float64))


def win_share_by(frame: Frame, by: str) -> pl.DataFrame:
    """Win share (ties shared: 1/k each) and mean score per strategy or per seat.

    A strategy that holds several seats counts once per game: its players' shares are
    averaged within the game (and the deal) before the interval is taken over deals.
    """
    out = clustered_mean(frame, [by], ["win_share", "score"])
    return as_proportion(out, "win_share", degenerate_only=True)


def seat_advantage(frame: Frame) -> pl.DataFrame:
    """Each seat's win share minus the fair share 1/N, paired over the seat rotation.

    Only complete deals are used (a deal whose games cover the whole rotation). When the
    strategies differ each strategy sits once in each seat of a deal, so the per-deal seat
    average compares seats on identical cards and identical opponents; the interval is
    taken over deals. `significant` is true when the interval excludes zero.
    """
    lf = _lazy(frame)
    n = n_players(lf)
    per = (lf.group_by("deal", "seat")
           .agg(pl.col("win_share").cast(pl.Float64).sum(), m=pl.len())
           .filter(pl.col("m") == pl.col("m").max()))
    out = (per.group_by("seat")
           .agg(*cluster_mean_exprs("win_share"), games=pl.col("m").sum(), deals=pl.len(),
                rotation=pl.col("m").max())
           .sort("seat").collect())
    fair = 1.0 / n
    return out.with_columns(
        fair=pl.lit(fair),
        advantage=pl.col("win_share") - fair,
        advantage_se=pl.col("win_share_se"),
        advantage_lo=pl.col("win_share_lo") - fair,
        advantage_hi=pl.col("win_share_hi") - fair,
        paired=pl.col("rotation") > 1,
    ).with_columns(
        significant=(pl.col("advantage_lo") > 0) | (pl.col("advantage_hi") < 0),
    )


def score_distribution(frame: Frame, by: str, means: pl.DataFrame | None = None) -> pl.DataFrame:
    """Score quantiles (min, p5, p25, median, p75, p95, max) and the mean with its interval,
    per strategy or seat. `means` may pass in `win_share_by(frame, by)` to save a pass."""
    lf = _lazy(frame)
    s = pl.col("score")
    quant = (lf.group_by(by)
             .agg(pl.col("score").min().alias("min"),
                  *[s.quantile(q, "nearest").alias(_q_name(q)) for q in QUANTILES],
                  pl.col("score").max().alias("max"))
             .collect())
    if means is None:
        means = clustered_mean(lf, [by], ["score"])
    means = means.select(by, "games", "players", "clusters",
                         *[c for c in means.columns if c.startswith("score")])
    quant = _as_string(quant, [by])
    return means.join(quant, on=by, how="left").sort(by)


def histogram(frame: Frame, value: str, by: str | None = None) -> pl.DataFrame:
    """Counts of each value of `value` (per group `by`), with its share of the group."""
    keys = [by, value] if by else [value]
    out = _lazy(frame).group_by(keys).agg(count=pl.len()).sort(keys).collect()
    total = pl.col("count").sum().over(by) if by else pl.col("count").sum()
    out = out.with_columns(share=pl.col("count") / total)
    return _as_string(out, [by]) if by else out


def per_game(frame: Frame) -> pl.DataFrame:
    """One row per game: deal, rounds, winner's margin in points and whether the win was
    shared (`tie`: no player holds a whole win)."""
    s = pl.col("score").cast(pl.Int32)
    return (_lazy(frame).group_by("game")
            .agg(deal=pl.col("deal").first(), rounds=pl.col("rounds").first(),
                 top=s.max(), second=s.sort(descending=True).get(1),
                 tie=pl.col("win_share").max() < 1)
            .with_columns(margin=pl.col("top") - pl.col("second"))
            .sort("game").collect())


def tie_rate(games: Frame) -> pl.DataFrame:
    """Share of games whose win is shared, with a Wilson interval on the effective sample
    size (games on one deal are clustered). Input: the `per_game` frame."""
    lf = _lazy(games)
    per = lf.group_by("deal").agg(tie=pl.col("tie").cast(pl.Float64).sum(), m=pl.len())
    row = per.select(*cluster_mean_exprs("tie"), games=pl.col("m").sum(),
                     clusters=pl.len()).collect().row(0, named=True)
    p, n = row["tie"], row["games"]
    se = row["tie_se"]
    n_eff = p * (1 - p) / se ** 2 if se and se > 0 else n
    lo, hi = wilson(p, n_eff)
    return pl.DataFrame({"games": [n], "tie_rate": [p], "tie_rate_lo": [lo],
                         "tie_rate_hi": [hi], "tie_rate_se": [se or 0.0]})


def summary(games: Frame, value: str) -> pl.DataFrame:
    """Mean of a per-game `value` (e.g. rounds, margin) with its interval, and quantiles."""
    lf = _lazy(games)
    v = pl.col(value)
    per = lf.group_by("deal").agg(v.cast(pl.Float64).sum(), m=pl.len())
    mean = per.select(pl.col("m").sum().alias("games"), *cluster_mean_exprs(value)).collect()
    quant = lf.select(v.min().alias("min"),
                      *[v.quantile(q, "nearest").alias(_q_name(q)) for q in QUANTILES],
                      v.max().alias("max")).collect()
    return pl.concat([mean, quant], how="horizontal")


@dataclass(frozen=True)
class Component:
    """A game component a player can have or use: a card, a witch, a space...

    `had` is a boolean expression over a results row; `extra` optionally names a numeric
    expression reported as a mean over the players who had it (e.g. recipe bonus points).
    """

    kind: str  # e.g. "Witch"
    key: str  # id in the config
    name: str  # display name, in the game's own words
    had: pl.Expr
    verb: str = "had"  # "used", "was dealt", "brewed"
    extra: pl.Expr | None = None
    extra_label: str = ""


def component_effects(frame: Frame, components: Sequence[Component]) -> pl.DataFrame:
    """For every component: win share and mean score of players who had it against those who
    did not, the differences with Welch intervals, and the optional extra mean.

    Players are compared across all games (one row per player); the difference is an
    association (a strong strategy that seeks a card makes the card look strong), unless
    the component is dealt at random. Sorted by kind, then by the size of the win-share
    effect, largest first. Comparisons with fewer than MIN_GROUP players on a side have no
    estimate (NaN) and sort last.
    """
    if not components:
        return pl.DataFrame(schema={"kind": pl.String, "key": pl.String, "name": pl.String})
    w = pl.col("win_share").cast(pl.Float64)
    s = pl.col("score").cast(pl.Float64)
    # Per component one group_by on "had it" of plain sums (faster than filtered means);
    # the "without" side is the total minus the "with" side.
    base = _lazy(frame).with_columns(_w=w, _ww=w * w, _s=s, _ss=s * s).collect().lazy()
    queries = []
    for c in components:
        aggs = [pl.len().alias("n"), pl.col("_w").sum().alias("w"),
                pl.col("_ww").sum().alias("ww"), pl.col("_s").sum().alias("s"),
                pl.col("_ss").sum().alias("ss")]
        if c.extra is not None:
            x = c.extra.cast(pl.Float64)
            aggs += [x.sum().alias("x"), (x * x).sum().alias("xx")]
        queries.append(base.group_by(c.had.fill_null(False).alias("had")).agg(aggs))
    results = pl.collect_all(queries)
    totals = results[0].select(pl.col("n", "w", "ww", "s", "ss").sum()).row(0, named=True)
    total = int(totals["n"])

    def moments(n: float, t: float, tt: float) -> tuple[float, float]:
        """Mean and sample variance from a count, a sum and a sum of squares."""
        if n < 1:
            return math.nan, math.nan
        mean = t / n
        var = max(tt - n * mean * mean, 0.0) / (n - 1) if n > 1 else math.nan
        return mean, var

    rows = []
    for c, result in zip(components, results, strict=True):
        had = result.filter(pl.col("had"))
        got = {k: float(v or 0.0) for k, v in had.row(0, named=True).items()
               if k != "had"} if had.height else {}

        def get(key: str, got: dict[str, float] = got) -> float:
            return got.get(key, 0.0)

        n1 = int(get("n"))
        n0 = total - n1
        ok = n1 >= MIN_GROUP and n0 >= MIN_GROUP
        w1, wv1 = moments(n1, get("w"), get("ww"))
        w0, wv0 = moments(n0, totals["w"] - get("w"), totals["ww"] - get("ww"))
        s1, sv1 = moments(n1, get("s"), get("ss"))
        s0, sv0 = moments(n0, totals["s"] - get("s"), totals["ss"] - get("ss"))
        if ok:
            eff, eff_lo, eff_hi = welch(w1, wv1, n1, w0, wv0, n0)
            seff, seff_lo, seff_hi = welch(s1, sv1, n1, s0, sv0, n0)
        else:
            eff = eff_lo = eff_hi = seff = seff_lo = seff_hi = math.nan
        x, x_lo, x_hi = math.nan, math.nan, math.nan
        if c.extra is not None and n1 >= 2:
            x, xv = moments(n1, get("x"), get("xx"))
            half = Z * math.sqrt(xv / n1)
            x_lo, x_hi = x - half, x + half
        rows.append({
            "kind": c.kind, "key": c.key, "name": c.name, "verb": c.verb,
            "players_with": n1, "players_without": n0, "share_with": n1 / total,
            "win_with": w1, "win_without": w0,
            "effect": eff, "effect_lo": eff_lo, "effect_hi": eff_hi,
            "effect_se": (eff_hi - eff_lo) / (2 * Z) if ok else math.nan,
            "score_with": s1, "score_without": s0,
            "score_effect": seff, "score_effect_lo": seff_lo, "score_effect_hi": seff_hi,
            "extra_label": c.extra_label, "extra": x, "extra_lo": x_lo, "extra_hi": x_hi,
            "compared": ok,
        })
    kinds = list(dict.fromkeys(c.kind for c in components))
    out = pl.DataFrame(rows, infer_schema_length=None)
    return (out.with_columns(_kind=pl.col("kind").replace_strict(
                kinds, list(range(len(kinds))), return_dtype=pl.Int32),
                             _size=pl.col("effect").abs().fill_nan(None))
            .sort("_kind", "_size", descending=[False, True], nulls_last=True)
            .drop("_kind", "_size"))
