"""Balance metrics: pure functions from a results frame to small metric frames.

The input is a run's results (one row per game and seat, the `games.parquet` columns) as a
polars DataFrame or LazyFrame, or a `reports.source.Source` (the rows, or the exact totals
of a summary-only run). Each function asks for the exact totals of a `Query` and turns them
into a small frame, so a report is the same from rows or from a summary of the same games.
Every estimate comes with a 95% interval (`<name>_lo`, `<name>_hi`) and the number of games
(or player-games) behind it.

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
from typing import Any

import polars as pl

from reports.source import Source, source_of
from reports.stats import Z, wilson
from simkit.intervals import ratio
from simkit.summary import SIZE, Combination, Query, Table, game_rows

Frame = pl.DataFrame | pl.LazyFrame
Data = pl.DataFrame | pl.LazyFrame | Source  # rows, or a source of exact totals
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
MIN_GROUP = 30  # fewer players on either side of a comparison: no estimate


def _lazy(frame: Frame) -> pl.LazyFrame:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def _q_name(q: float) -> str:
    return "median" if q == 0.5 else f"p{round(q * 100):d}"


def n_players(frame: Data) -> int:
    """Players per game (seats are numbered 0..N-1)."""
    if isinstance(frame, Source):
        return frame.players
    return int(_lazy(frame).select(pl.col("seat").max()).collect().item()) + 1


# ------------------------------------------------------------------ from exact totals
def _query(src: Source, by: Sequence[str] = (), values: Sequence[str] | Mapping[str, pl.Expr]
           = (), **kw: Any) -> Query:
    return Query.of(by, values, level=src.level, **kw)


def clusters_total(data: Data, cluster: str = "deal") -> int:
    """The number of clusters (deals) in the results."""
    src = source_of(data)
    frame = src.table(_query(src, cluster=cluster)).frame
    return int(frame["_c"][0]) if frame.height else 0


def _means(table: Table, by: Sequence[str], clusters: int | None = None) -> pl.DataFrame:
    """One row per group: `by`, per value its ratio mean, se and 95% interval, then games,
    players and clusters (`clusters` overrides the count: every cluster of the run)."""
    rows = []
    for r in table.frame.iter_rows(named=True):
        c = r["_c"] if clusters is None else clusters
        row = {b: r[b] for b in by}
        for i, (name, scale) in enumerate(zip(table.names, table.scales, strict=True)):
            mean, se = ratio(c, r["_m"], r["_mm"], r[f"_y{i}"], r[f"_yy{i}"], r[f"_ym{i}"],
                             scale)
            row |= {name: mean, f"{name}_se": se,
                    f"{name}_lo": None if se is None else mean - Z * se,
                    f"{name}_hi": None if se is None else mean + Z * se}
        rows.append(row | {"games": r["_g"], "players": r["_m"], "clusters": c})
    schema: dict[str, Any] = {b: table.frame.schema[b] for b in by}
    for name in table.names:
        schema |= {name: pl.Float64, f"{name}_se": pl.Float64, f"{name}_lo": pl.Float64,
                   f"{name}_hi": pl.Float64}
    schema |= {"games": pl.Int64, "players": pl.Int64, "clusters": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def _quantiles(counts: Sequence[tuple[Any, int]]) -> dict[str, Any]:
    """min, the QUANTILES ("nearest" rank, halves to even as numpy) and max of a histogram
    of (value, count) pairs sorted by value."""
    total = sum(n for _, n in counts)
    out: dict[str, Any] = {"min": counts[0][0] if counts else None}
    for q in QUANTILES:
        at, seen, value = round(q * (total - 1)), 0, None
        for v, n in counts:
            seen += n
            if seen > at:
                value = v
                break
        out[_q_name(q)] = value
    out["max"] = counts[-1][0] if counts else None
    return out


# ------------------------------------------------------------------ metrics
def clustered_mean(frame: Data, by: Sequence[str], values: Sequence[str] | Mapping[str, pl.Expr],
                   cluster: str = "deal", where: pl.Expr | None = None,
                   all_clusters: bool = False) -> pl.DataFrame:
    """Mean of each of `values` per group `by`, with a cluster-robust 95% interval.

    Rows (those `where` is true for) are summed per (cluster, group); the mean is
    sum(y) / rows and its standard error comes from the spread of the cluster totals (the
    ratio estimator). With equal cluster sizes this is exactly "average per cluster, then
    mean +- 1.96 sd / sqrt(clusters)". With `all_clusters` every cluster of the run counts,
    including those without a row in the group (as `subgroup_means`). `values` are column
    names or {name: expression}. Columns: `by`, then per value `<v>`, `<v>_se`, `<v>_lo`,
    `<v>_hi`, then games, players (rows) and clusters.
    """
    src = source_of(frame)
    table = src.table(_query(src, by, values, where=where, cluster=cluster))
    total = clusters_total(src, cluster) if all_clusters else None
    return _means(table, list(by), total)



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
        if se == 0 and 0 < p < 1:  # the same share in every cluster: a strategy holding
            lo.append(p)  # every seat takes 1/N of each game by construction
            hi.append(p)
            continue
        n_eff = p * (1 - p) / se ** 2 if se and se > 0 and 0 < p < 1 else count
        a, b = wilson(p, n_eff)
        lo.append(a)
        hi.append(b)
    return frame.with_columns(pl.Series(f"{value}_lo", lo, pl.Float64),
                              pl.Series(f"{value}_hi", hi, pl.Float64))


def win_share_by(frame: Data, by: str) -> pl.DataFrame:
    """Win share (ties shared: 1/k each) and mean score per strategy or per seat.

    A strategy that holds several seats counts once per game: its players' shares are
    averaged within the game (and the deal) before the interval is taken over deals. The
    interval is Wilson's on the effective sample size (mean +- 1.96 se misses below the
    truth far more often than 2.5% for a share near 0: measured 35 of 600 runs for a 1%
    strategy).
    """
    out = clustered_mean(frame, [by], ["win_share", "score"])
    return as_proportion(out, "win_share")


def outcomes_by(frame: Data, by: str) -> pl.DataFrame:
    """The share of a group's players who won alone, shared a win (a draw) and lost, each
    with its interval over deals (a game whose outcome can be a draw)."""
    share = pl.col("win_share")
    return clustered_mean(frame, [by], {"won": (share >= 1).cast(pl.Int64),
                                        "drew": ((share > 0) & (share < 1)).cast(pl.Int64),
                                        "lost": (share <= 0).cast(pl.Int64)})


def seat_advantage(frame: Data) -> pl.DataFrame:
    """Each seat's win share minus the fair share 1/N, paired over the seat rotation.

    Only complete deals are used (a deal whose games cover the whole rotation). When the
    strategies differ each strategy sits once in each seat of a deal, so the per-deal seat
    average compares seats on identical cards and identical opponents; the interval is
    taken over deals. `significant` is true when the interval excludes zero.
    """
    src = source_of(frame)
    table = src.table(_query(src, ["seat"], ["win_share"], by_size=True))
    sizes = table.frame[SIZE]
    full = table.frame.filter(pl.col(SIZE) == sizes.max()) if sizes.len() else table.frame
    out = _means(Table(full, table.names, table.scales), ["seat"])
    out = out.select("seat", "win_share", "win_share_se", "win_share_lo", "win_share_hi",
                     "games", deals="clusters").with_columns(
        rotation=pl.lit(sizes.max() if sizes.len() else 0, pl.Int64)).sort("seat")
    fair = 1.0 / src.players
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


def score_distribution(frame: Data, by: str, means: pl.DataFrame | None = None) -> pl.DataFrame:
    """Score quantiles (min, p5, p25, median, p75, p95, max) and the mean with its interval,
    per strategy or seat. `means` may pass in `win_share_by(frame, by)` to save a pass."""
    src = source_of(frame)
    hist = histogram(src, "score", by)
    rows = []
    for (group,), part in hist.group_by([by], maintain_order=True):
        rows.append({by: group} | _quantiles(list(zip(part["score"].to_list(),
                                                      part["count"].to_list(), strict=True))))
    schema = {by: hist.schema[by], "min": pl.Int64} | {_q_name(q): pl.Int64 for q in QUANTILES}
    quant = pl.DataFrame(rows, schema=schema | {"max": pl.Int64})
    if means is None:
        means = clustered_mean(src, [by], ["score"])
    means = means.select(by, "games", "players", "clusters",
                         *[c for c in means.columns if c.startswith("score")])
    return means.join(quant, on=by, how="left").sort(by)


def histogram(frame: Data, value: str, by: str | None = None) -> pl.DataFrame:
    """Counts of each value of `value` (per group `by`), with its share of the group."""
    src = source_of(frame)
    keys = [by, value] if by else [value]
    table = src.table(_query(src, keys, cluster=None))
    out = table.frame.select(*keys, count=pl.col("_m")).sort(keys)
    total = pl.col("count").sum().over(by) if by else pl.col("count").sum()
    return out.with_columns(share=pl.col("count") / total)


def per_game(frame: Frame) -> pl.DataFrame:
    """One row per game: deal, rounds, winner's margin in points and whether the win was
    shared (`tie`: no player holds a whole win)."""
    return game_rows(frame).sort("game").collect()


def game_count(data: Data) -> int:
    """The number of games in the results."""
    src = source_of(data).games
    # clustered by deal: a query with no groups and no cluster has no rows to hold the count
    frame = src.table(_query(src)).frame
    return int(frame["_m"][0]) if frame.height else 0


def tie_rate(games: Data) -> pl.DataFrame:
    """Share of games whose win is shared, with a Wilson interval on the effective sample
    size (games on one deal are clustered). Input: the `per_game` frame, or a source's
    game level (`source.games`)."""
    src = source_of(games)
    r = src.table(_query(src, (), ["tie"])).frame.row(0, named=True)
    n = r["_m"]
    p, se = ratio(r["_c"], n, r["_mm"], r["_y0"], r["_yy0"], r["_ym0"], 1)
    n_eff = p * (1 - p) / se ** 2 if se and se > 0 else n
    lo, hi = wilson(p, n_eff)
    return pl.DataFrame({"games": [n], "tie_rate": [p], "tie_rate_lo": [lo],
                         "tie_rate_hi": [hi], "tie_rate_se": [se or 0.0]})


def summary(games: Data, value: str) -> pl.DataFrame:
    """Mean of a per-game `value` (e.g. rounds, margin) with its interval, and quantiles.
    Input: the `per_game` frame, or a source's game level (`source.games`)."""
    src = source_of(games)
    mean = _means(src.table(_query(src, (), [value])), []).select(
        "games", value, f"{value}_se", f"{value}_lo", f"{value}_hi")
    hist = histogram(src, value)
    quant = _quantiles(list(zip(hist[value].to_list(), hist["count"].to_list(), strict=True)))
    return pl.concat([mean, pl.DataFrame([quant], schema={k: pl.Int64 for k in quant})],
                     how="horizontal")


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
    dealt: bool = False  # dealt at random: its association measures the component


def _sums(table: Table) -> dict[str, tuple[float, float, float]]:
    """Per value of a one-row table: (sum over deals, sum of squares, sum times m_d)."""
    r = table.frame.row(0, named=True) if table.frame.height else {}
    out = {}
    for i, (name, scale) in enumerate(zip(table.names, table.scales, strict=True)):
        div = scale or 1
        out[name] = ((r.get(f"_y{i}") or 0) / div, (r.get(f"_yy{i}") or 0) / div / div,
                     (r.get(f"_ym{i}") or 0) / div)
    return out


def _split_values(had: pl.Expr, y: pl.Expr, tag: str
                  ) -> tuple[dict[str, pl.Expr], dict[str, Combination]]:
    """Per-row values whose per-deal sums, sums of squares and sums times the deal size
    give every cross-product the clustered difference "with minus without" needs
    (`_difference`): y1 = had y, y0 = (not had) y, u = y1 + m0, v = y0 + m1; and the last
    three as combinations of y1, y and had, which is how they are summed: three sums a
    component, not nine (a report's card values took two thirds of its time)."""
    h = had.cast(pl.Int64)
    n = 1 - h
    hy = h * y
    values = {f"{tag}1": hy, f"{tag}0": n * y, f"{tag}u": hy + n, f"{tag}v": n * y + h}
    return values, {f"{tag}0": Combination(((y, 1), (hy, -1))),
                    f"{tag}u": Combination(((hy, 1), (h, -1)), 1),
                    f"{tag}v": Combination(((y, 1), (hy, -1), (h, 1)))}


def _difference(sums: Mapping[str, tuple[float, float, float]], tag: str, total: float,
                mm: float, tt: float, clusters: int) -> tuple[float, float, float, float]:
    """Mean of y with minus without, and its cluster-robust standard error.

    `sums[name]` holds (sum over deals, sum of squares, sum times the deal size m_d) of
    each value of `_split_values` and of the indicator h1 (had); `total` and `mm` are the
    rows and the sum of squared deal sizes, `tt` the sum over deals of (sum of y)^2. The
    difference r1 - r0 = Y1/M1 - Y0/M0 has per-deal influence
    e_d = (y1_d - r1 m1_d)/M1 - (y0_d - r0 m0_d)/M0, whose sum of squares needs the
    cross-products sum y1 m0, sum y1 y0, ...: each comes from a square of a sum, e.g.
    sum_d (y1_d + m0_d)^2 = sum y1^2 + 2 sum y1 m0 + sum m0^2, or from m_d = m1_d + m0_d.
    Returns (difference, se, mean with, mean without)."""
    m1, q1, r1m = sums["h1"]
    m0 = total - m1
    q0 = mm - 2 * r1m + q1
    m1m0 = r1m - q1
    y1, s11, p1 = sums[f"{tag}1"]
    y0, s00, p0 = sums[f"{tag}0"]
    if m1 <= 0 or m0 <= 0:
        return (math.nan,) * 4
    y1m0 = (sums[f"{tag}u"][1] - s11 - q0) / 2
    y0m1 = (sums[f"{tag}v"][1] - s00 - q1) / 2
    y1m1 = p1 - y1m0
    y0m0 = p0 - y0m1
    y1y0 = (tt - s11 - s00) / 2
    r1, r0 = y1 / m1, y0 / m0
    a = s11 - 2 * r1 * y1m1 + r1 * r1 * q1
    b = s00 - 2 * r0 * y0m0 + r0 * r0 * q0
    c = y1y0 - r0 * y1m0 - r1 * y0m1 + r1 * r0 * m1m0
    ee = a / (m1 * m1) + b / (m0 * m0) - 2 * c / (m1 * m0)
    se = math.sqrt(max(ee, 0.0) * clusters / (clusters - 1)) if clusters > 1 else math.nan
    return r1 - r0, se, r1, r0


def component_effects(frame: Data, components: Sequence[Component]) -> pl.DataFrame:
    """For every component: win share and mean score of players who had it against those who
    did not, the differences with cluster-robust intervals, and the optional extra mean.

    The difference is an association (a strong strategy that seeks a card makes the card
    look strong), unless the component is dealt at random (`dealt`). Its interval is taken
    over deals: the players of one game, and the games of one deal, are dependent (one
    player's win is another's loss), and Welch's interval on player rows, which ignores
    that, covered the truth 90% of the time instead of 95%. Sorted by kind, then by the
    size of the win-share effect, largest first. Comparisons with fewer than MIN_GROUP
    players on a side have no estimate (NaN) and sort last.
    """
    if not components:
        return pl.DataFrame(schema={"kind": pl.String, "key": pl.String, "name": pl.String})
    src = source_of(frame)
    win, score = pl.col("win_share"), pl.col("score").cast(pl.Int64)
    both = _query(src, (), {"w": win, "s": score})  # per-deal totals, shared by all
    queries = []
    for c in components:
        had = c.had.fill_null(False)
        (wins, w_sums), (scores, s_sums) = (_split_values(had, win, "w"),
                                            _split_values(had, score, "s"))
        values = {"h1": had.cast(pl.Int64)} | wins | scores
        combinations = w_sums | s_sums
        if c.extra is not None:  # its mean over the players who had it, clustered too
            values["x"] = had.cast(pl.Int64) * c.extra
            values["xa"] = had.cast(pl.Int64) * (c.extra + 1)
            combinations["xa"] = Combination(((values["x"], 1), (values["h1"], 1)))
        queries.append(_query(src, (), values, combinations=combinations))
    src.prefetch([both, *queries])
    shared = _sums(src.table(both))
    rows = []
    for c, q in zip(components, queries, strict=True):
        table = src.table(q)
        sums = _sums(table)
        r = table.frame.row(0, named=True) if table.frame.height else {}
        clusters, total, mm = r.get("_c") or 0, r.get("_m") or 0, r.get("_mm") or 0
        n1 = int(sums["h1"][0])
        n0 = total - n1
        ok = n1 >= MIN_GROUP and n0 >= MIN_GROUP
        eff, se, w1, w0 = _difference(sums, "w", total, mm, shared["w"][1], clusters)
        seff, sse, s1, s0 = _difference(sums, "s", total, mm, shared["s"][1], clusters)
        if not ok:
            eff = se = seff = sse = math.nan
        x = x_lo = x_hi = math.nan
        if c.extra is not None and n1 >= 1:
            x, xx, _ = sums["x"]
            xm = (sums["xa"][1] - xx - sums["h1"][1]) / 2
            x, x_se = ratio(clusters, n1, sums["h1"][1], x, xx, xm, 1)
            if x_se is not None:
                x_lo, x_hi = x - Z * x_se, x + Z * x_se
        rows.append({
            "kind": c.kind, "key": c.key, "name": c.name, "verb": c.verb, "dealt": c.dealt,
            "players_with": n1, "players_without": n0,
            "share_with": n1 / total if total else math.nan,
            "win_with": w1, "win_without": w0,
            "effect": eff, "effect_lo": eff - Z * se, "effect_hi": eff + Z * se,
            "effect_se": se,
            "score_with": s1, "score_without": s0,
            "score_effect": seff, "score_effect_lo": seff - Z * sse,
            "score_effect_hi": seff + Z * sse,
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
