"""What a page says first: its answer in one line, and what to change next.

A scorecard tells what misses; a designer then asks what to do about it. `next_step`
names, for a FAIL row, the command or config keys that address it (a seat compensation
searched with `simkit balance`, the key that ends the game swept with `simkit sweep`, a
component's config entry or `simkit value` to measure it first, a drawish game's own
tie-rate target), built from the run's own game, config, lineup and seed
(`simkit.rerun`). `balance_answer` puts the verdict count, the largest miss and its
first step in one line.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from reports.paths import shown_path
from reports.targets import FAIL, PASS, UNSURE, Item, family_wise, judge_item
from simkit import ladders
from simkit.rerun import RunSettings, settings_of
from simkit.words import count

# Keys that say when a game ends: swept to change its length (a safety stop is not one).
_LENGTH_WORDS = ("end", "final", "round", "turn", "target", "goal", "length")
_NOT_LENGTH = ("max_rounds", "max_turns")


@dataclass
class Advice:
    """What the next steps are built from: the run's settings and a few estimates."""

    settings: RunSettings
    run: str  # the run folder, as the next commands name it
    config: dict[str, Any] = field(default_factory=dict)  # the resolved config
    weakest_seat: int | None = None  # the seat furthest below the fair share
    weakest_label: str = ""  # as the page names it: "4th player"
    margin: float = math.nan  # mean margin of victory (points): a compensation's scale
    causal: bool = False  # RUN/value measured the components
    components: dict[str, str] = field(default_factory=dict)  # outside the target: name ->
    # config key, the largest miss first

    @classmethod
    def of_run(cls, run_path: Path, manifest: dict[str, Any], seats: pl.DataFrame,
               margin: float, causal: pl.DataFrame | None, components: pl.DataFrame,
               limit: float | None) -> Advice:
        """From a run's manifest, seat advantages, mean margin of victory, value table
        (`causal`, or None) and component effects; `limit`: the component target."""
        config = (manifest.get("config") or {}).get("resolved") or {}
        low = seats.sort("advantage").row(0, named=True) if seats.height else None
        weakest = int(low["seat"]) if low is not None else None
        label = str(low.get("label") or "") if low is not None else ""
        keys = {}
        for name, ident in _outside(causal, components, limit):
            key = config_key(config, ident)
            if key:
                keys[name] = key
        return cls(settings_of(manifest), shown_path(run_path), config, weakest, label,
                   margin, causal is not None, keys)


def _outside(causal: pl.DataFrame | None, components: pl.DataFrame,
             limit: float | None) -> list[tuple[str, str]]:
    """(name, id) of the components outside the component target, the largest first:
    judged by their causal worth where a value run measured them, else by the effect of
    those dealt at random (an association of a chosen one cannot fail)."""
    if limit is None:
        return []
    if causal is not None and causal.height:
        judged = judged_components(causal, limit).filter(pl.col("target") == FAIL)
        return [(str(r["name"]), str(r["key"])) for r in judged.iter_rows(named=True)]
    if not components.height or "key" not in components.columns:
        return []
    rows = components.filter(pl.col("compared") & pl.col("dealt")).with_columns(
        size=pl.col("effect").abs()).sort("size", descending=True)
    items, _ = family_wise([Item(r["name"], r["effect"], r["effect_lo"], r["effect_hi"])
                            for r in rows.iter_rows(named=True)])  # as the scorecard does
    return [(str(r["name"]), str(r["key"])) for r, item in zip(rows.iter_rows(named=True),
                                                                items, strict=True)
            if judge_item(item, -limit, limit)[0] == FAIL]


def config_key(config: dict[str, Any], component: str) -> str | None:
    """The config entry of a component id: `recipe_cards.swamp_stew` (lists of entries
    are addressed by id)."""
    for name, value in config.items():
        if isinstance(value, list) and any(isinstance(e, dict) and e.get("id") == component
                                           for e in value):
            return f"{name}.{component}"
        if isinstance(value, dict):
            inner = config_key(value, component)
            if inner:
                return f"{name}.{inner}"
    return None


def _leaves(data: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for k, v in data.items():
        if isinstance(v, dict):
            yield from _leaves(v, f"{prefix}{k}.")
        elif not isinstance(v, list):
            yield f"{prefix}{k}", v


def _compensation_key(config: dict[str, Any]) -> str | None:
    """The seat compensation the game's config offers (`compensation.points` in the
    built-in games, `compensation.start` in Pig): its first per-seat list of numbers."""
    comp = config.get("compensation")
    if not isinstance(comp, dict):
        return None
    for name, value in comp.items():
        if name != "half" and isinstance(value, list) and value and all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in value):
            return f"compensation.{name}"
    return None


def _cmd(settings: RunSettings, verb: str, *extra: str) -> str:
    return f"`{settings.command(verb, *extra)}`"


def next_step(metric: str, advice: Advice) -> str:
    """The command or config keys that address a FAIL of `metric` in this run."""
    s = advice.settings
    if metric == "seat_advantage":
        key = _compensation_key(advice.config)
        if key is None or advice.weakest_seat is None:
            return ("Next: search a rule that offsets the order of play with "
                    + _cmd(s, "balance", "--tune", "KEY=LO..HI", "--budget", "200000",
                           "--out", f"{advice.run}-balance") + " (docs/balance.md).")
        width = max(1, math.ceil(advice.margin)) if math.isfinite(advice.margin) else 4
        tune = f"{key}.{advice.weakest_seat}=0..{width}"
        seat = f", the {advice.weakest_label}" if advice.weakest_label else ""
        return (f"Next: search a compensation for the weakest seat{seat}: "
                + _cmd(s, "balance", "--tune", tune, "--budget", "200000", "--out",
                       f"{advice.run}-balance") + ".")
    if metric == "tie_rate":
        half = (advice.config.get("compensation") or {}).get("half")
        how = ""
        if isinstance(half, list) and advice.weakest_seat is not None:
            how = (" To break more ties, search a half point: "
                   + _cmd(s, "balance", "--tune",
                          f"compensation.half.{advice.weakest_seat}=0..1", "--budget",
                          "200000", "--out", f"{advice.run}-balance") + ".")
        else:
            ties = [k for k, _ in _leaves(advice.config) if "tie" in k]
            if ties:
                how = f" To break more ties, change {', '.join(ties)} (`simkit show {s.game}`)."
        return ("Next: if shared wins belong to the game, set its own limit: `[tie_rate] "
                "max_percent = N` in the game's targets.toml (docs/new-game.md) or "
                "`--set-target tie_rate.max_percent=N`." + how)
    if metric == "game_length":
        keys = [k for k, v in _leaves(advice.config)
                if isinstance(v, int | float | bool) and k.rsplit(".", 1)[-1] not in _NOT_LENGTH
                and any(w in k.rsplit(".", 1)[-1] for w in _LENGTH_WORDS)]
        if not keys:
            return ("Next: sweep the rule that ends the game: "
                    + _cmd(s, "sweep", "--vary", "KEY=V1,V2", "--games", "20000", "--out",
                           f"{advice.run}-sweep") + ".")
        key = keys[0]
        value = dict(_leaves(advice.config))[key]
        if isinstance(value, bool):
            values = "true,false"
        elif isinstance(value, int):
            values = f"{max(0, value - 2)}..{value + 2}"
        else:
            values = f"{value * 0.8:g},{value:g},{value * 1.2:g}"
        others = f" (or {', '.join(keys[1:4])})" if len(keys) > 1 else ""
        return ("Next: sweep the rule that ends the game: "
                + _cmd(s, "sweep", "--vary", f"{key}={values}", "--games", "20000", "--out",
                       f"{advice.run}-sweep") + others + ".")
    if metric == "component_effect":
        keys = list(advice.components.values())[:3]
        where = (f" ({', '.join(f'`{k}`' for k in keys)}; `simkit show {s.game}` lists its "
                 "fields)" if keys else "")
        run = shlex.quote(advice.run)
        if not advice.causal and not keys:
            return (f"Next: measure what each component makes you win: "
                    f"`simkit value {run}` (it joins this report).")
        value = f" --value {run}" if advice.causal else ""
        also = ("" if advice.causal else f"; `simkit value {run}` measures the components "
                "players choose")
        return (f"Next: change the component's entry in the config{where}, e.g. in a "
                f"spreadsheet: `simkit cards {s.game}{value} --out cards`, edited and "
                f"played with `--config cards/cards.xlsx`; check the change with `simkit "
                f"compare {run} NEW_RUN`{also}.")
    return ""


def with_next_steps(card: pl.DataFrame, advice: Advice) -> pl.DataFrame:
    """The scorecard with a `next` column: what addresses each FAIL row ('' otherwise)."""
    steps = [next_step(r["metric"], advice) if r["verdict"] == FAIL else ""
             for r in card.iter_rows(named=True)]
    return card.with_columns(next=pl.Series(steps, dtype=pl.String))


def tally(card: pl.DataFrame) -> tuple[int, int, int]:
    """(passed, failed, not yet sure) of a scorecard."""
    verdicts = card["verdict"].to_list() if card.height else []
    return verdicts.count(PASS), verdicts.count(FAIL), verdicts.count(UNSURE)


def _largest_miss(card: pl.DataFrame) -> dict[str, Any] | None:
    fails = card.filter(pl.col("verdict") == FAIL)
    if not fails.height:
        return None
    if "miss" in fails.columns:
        fails = fails.sort("miss", descending=True, nulls_last=True)
    return fails.row(0, named=True)


def balance_answer(card: pl.DataFrame, whose: str) -> str:
    """The report's first line: how many targets fail, the largest miss and its first
    step; `whose` says whose play the verdict reflects."""
    passed, failed, unsure = tally(card)
    total = card.height
    if not total:
        return f"No targets in force for {whose}."
    top = _largest_miss(card)
    if top is not None:
        step = str(top.get("next") or "").removeprefix("Next: ")
        head = (f"{failed} of {count(total, 'target')} fail for {whose}; the largest miss is "
                f"{top['title'].lower()} ({str(top['estimate']).replace('-', chr(0x2212))})")
        return head + (f"; try: {step}" if step else ".")
    if unsure:
        rows = card.filter(pl.col("verdict") == UNSURE)
        needed = [g for g in rows["games_needed"].to_list() if g is not None]
        more = (f"; about {max(needed):,.0f} games in all would decide "
                f"{'it' if unsure == 1 else 'them'}" if needed else "")
        return (f"No target fails for {whose}; {unsure} of {total} "
                f"{'is' if unsure == 1 else 'are'} not yet sure "
                f"({', '.join(t.lower() for t in rows['title'].to_list())}){more}.")
    return f"All {count(total, 'target')} pass for {whose}: nothing to change."


def whose_play(manifest: dict[str, Any]) -> str:
    """Whose play a verdict reflects, from a run's (or value run's) manifest: '4 players,
    greedy players (every seat)' or '4 players, a mixed lineup: planner, greedy, random,
    greedy' (simkit.ladders.whose_play names a ladder's rung)."""
    names = [str(s["name"]) for s in manifest.get("strategies", [])]
    players = manifest.get("players", len(names))
    return f"{players} players, {ladders.whose_play(str(manifest.get('game', '')), names)}"



def judged_components(table: pl.DataFrame, limit: float) -> pl.DataFrame:
    """A value table's components (not the A/A row) across kinds, each judged against the
    component target (worth against its kind's average within ±`limit`): `target` holds
    PASS, FAIL or NOT YET SURE; those outside it first, then by size."""
    rows = table.filter(~pl.col("a_a") & pl.col("vs_average").is_not_null()
                        & pl.col("vs_average").is_not_nan())
    items, _ = family_wise([Item(str(r["name"]), r["vs_average"], r["vs_average_lo"],
                                 r["vs_average_hi"]) for r in rows.iter_rows(named=True)])
    verdicts = [judge_item(item, -limit, limit)[0] for item in items]  # as the scorecard
    order = {FAIL: 0, UNSURE: 1, PASS: 2}
    return (rows.with_columns(target=pl.Series(verdicts, dtype=pl.String))
            .with_columns(order=pl.col("target").replace_strict(order, default=3),
                          size=pl.col("vs_average").abs())
            .sort("order", "size", descending=[False, True]).drop("order", "size"))


def value_answer(judged: pl.DataFrame, limit: float, whose: str, game: str) -> str:
    """The value report's first line: the components outside their target, the largest
    first, and what to do about it."""
    pts = f"±{limit * 100:g} points"
    outside = judged.filter(pl.col("target") == FAIL)
    if not judged.height:
        return f"No component could be measured for {whose}."
    if not outside.height:
        top = judged.row(0, named=True)
        return (f"No component is outside its target ({pts} of its kind's average) for "
                f"{whose}; the largest is {top['name']} ({top['kind'].lower()}, "
                f"{_signed(top['vs_average'])} points).")
    r = outside.row(0, named=True)
    n = outside.height
    side = "above" if r["vs_average"] > 0 else "below"
    return (f"{count(n, 'component')} {'is' if n == 1 else 'are'} outside the target ({pts} "
            f"of the kind's average) for {whose}: {'' if n == 1 else 'the largest, '}"
            f"{r['name']}, is {_signed(r['vs_average'])} points {side} the average "
            f"{r['kind'].lower()} [{_signed(r['vs_average_lo'])}, {_signed(r['vs_average_hi'])}]"
            f"; try: change its row in `simkit cards {game} --value FOLDER --out cards` "
            "(FOLDER: this value run), play the edited `cards/cards.xlsx` with `--config`, "
            "and check the change with `simkit compare`.")


def _signed(x: float) -> str:
    return f"{x * 100:+.1f}".replace("-", "\u2212")


def sweep_answer(best: dict[str, Any], judged: int, passing: int, points: int, whose: str,
                 sets: str, failing: list[str]) -> str:
    """The sweep page's first line: the value that passes (or the closest), and how to
    keep it. `best` is the best point's verdict row (values, passed), `sets` its
    `--set` options, `failing` the titles of the targets it still misses."""
    if not judged:
        return f"No targets are in force, so no point is judged for {whose}."
    if passing:
        also = f" ({passing} of {points} points pass)" if passing > 1 else ""
        return (f"{best['values']} passes every target for {whose}{also}; try: keep it in "
                f"the config, or play it with `{sets}`.")
    fails = f"; {', '.join(t.lower() for t in failing)} still fail" if failing else ""
    return (f"No point passes every target for {whose}; the closest is {best['values']} "
            f"({best['passed']} of {count(judged, 'target')} pass{fails}); try: a finer or "
            "wider range of the same keys, or search them with `simkit balance --tune "
            "KEY=LO..HI` (docs/balance.md).")


def before_after(card_a: pl.DataFrame, card_b: pl.DataFrame) -> pl.DataFrame:
    """Two scorecards side by side by target: title, target, verdict and estimate of A
    and of B, and what changed (fixed, broken, same)."""
    a = card_a.select("metric", "title", "target", verdict_a="verdict", estimate_a="estimate")
    b = card_b.select("metric", verdict_b="verdict", estimate_b="estimate")
    both = a.join(b, on="metric", how="full", coalesce=True, maintain_order="left")

    def change(va: str | None, vb: str | None) -> str:
        if va == vb:
            return "same"
        if vb == PASS:
            return "fixed" if va == FAIL else "now passes"
        if vb == FAIL:
            return "broken" if va == PASS else "now fails"
        return "now unsure"

    return both.with_columns(change=pl.Series(
        [change(r["verdict_a"], r["verdict_b"]) for r in both.iter_rows(named=True)],
        dtype=pl.String))


def compare_answer(table: pl.DataFrame, whose: str) -> str:
    """The comparison page's first line: targets passed before and after, and which
    the change fixes or breaks."""
    if not table.height:
        return f"No targets in force for {whose}."
    n = table.height
    pa = table["verdict_a"].to_list().count(PASS)
    pb = table["verdict_b"].to_list().count(PASS)
    fixed = [r["title"].lower() for r in table.iter_rows(named=True)
             if r["change"] in ("fixed", "now passes")]
    broken = [r["title"].lower() for r in table.iter_rows(named=True)
              if r["change"] in ("broken", "now fails")]
    parts = [f"B passes {pb} of {count(n, 'target')}, A {pa}, for {whose}"]
    if fixed:
        parts.append(f"the change fixes {', '.join(fixed)}")
    if broken:
        parts.append(f"it breaks {', '.join(broken)}")
    if not fixed and not broken:
        parts.append("no verdict changes")
    still = [r["title"].lower() for r in table.iter_rows(named=True)
             if r["verdict_b"] == FAIL and r["change"] == "same"]
    if still:
        parts.append(f"{', '.join(still)} still fail{'s' if len(still) == 1 else ''}")
    return "; ".join(parts) + "."
