"""How often the causal value interval covers the truth, per component kind, measured by
simulation: the heavy measurement behind docs/value.md's coverage figures (the test suite
runs a light version, tests/test_value.py).

The truth is one large value run (`truth_games` games); each of `runs` small runs
(`games` games, its own seed) gives every component an interval, and the share of those
intervals that hold the truth is the kind's coverage (nominal 95%), with its Wilson
interval over the intervals counted; components that changed no game in the truth (they
cannot occur with this player count) are not counted. The truth's own error widens the
miss rate a little: keep `truth_games` at least 100 times `games`.

    python -m simkit.value_coverage cauldron-master --players 4 --runs 100 --games 300 \\
        --truth-games 30000 [--kind 'Recipe card']
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import polars as pl

from simkit import causal, valuation
from simkit.intervals import wilson


def coverage(game: str, players: int, strategies: Sequence[str], runs: int, games: int,
             truth_games: int, seed: int = 1, kinds: Sequence[str] = ()) -> pl.DataFrame:
    """Per kind: intervals counted, the share holding the truth, and its 95% interval."""
    def spec(n: int, s: int) -> valuation.ValueSpec:
        return valuation.ValueSpec(game, players, tuple(strategies), n, s, (),
                                   kinds=tuple(kinds))

    truth = valuation.measure(valuation.plan(spec(truth_games, seed)))
    # A component that changed no game in the truth (it cannot occur with this player
    # count) has the interval [0, 0] around its true 0: counting it would flatter the kind.
    truth = truth.filter(~pl.col("a_a") & (pl.col("verdict") != causal.NOT_SEEN))
    value = {(r["kind"], r["key"]): r["value"] for r in truth.iter_rows(named=True)}
    hits: dict[str, list[int]] = {}
    for run in range(runs):
        t = valuation.measure(valuation.plan(spec(games, seed + 1 + run)))
        for r in t.filter(~pl.col("a_a")).iter_rows(named=True):
            if (r["kind"], r["key"]) not in value:
                continue
            counted = hits.setdefault(r["kind"], [0, 0])
            counted[1] += 1
            counted[0] += r["value_lo"] <= value[(r["kind"], r["key"])] <= r["value_hi"]
    rows = []
    for kind, (hit, total) in hits.items():
        lo, hi = wilson(hit / total, total)
        rows.append({"game": game, "kind": kind, "intervals": total,
                     "coverage": hit / total, "coverage_lo": lo, "coverage_hi": hi})
    return pl.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("game")
    args.add_argument("--players", type=int, default=4)
    args.add_argument("--strategies", default="greedy")
    args.add_argument("--runs", type=int, default=100)
    args.add_argument("--games", type=int, default=300)
    args.add_argument("--truth-games", type=int, default=30_000)
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--kind", dest="kinds", action="append", default=[],
                      help="measure only this component kind (repeatable), e.g. "
                           "--kind 'Recipe card'")
    a = args.parse_args(argv)
    started = time.perf_counter()
    table = coverage(a.game, a.players, a.strategies.split(","), a.runs, a.games,
                     a.truth_games, a.seed, a.kinds)
    for r in table.iter_rows(named=True):
        print(f"{r['game']:16} {r['kind']:18} {r['coverage']:6.1%} "
              f"[{r['coverage_lo']:.1%}, {r['coverage_hi']:.1%}] over {r['intervals']:,} "
              "intervals")
    print(f"({a.runs} runs x {a.games:,} games against a {a.truth_games:,}-game truth, "
          f"{time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
