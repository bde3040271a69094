"""The ladder report: `simkit report LADDER_DIR` on a folder written by `simkit ladder`.

Three parts, each read from the ladder's points (run folders on one seed):
- the climb: each rung's win share in one seat against the rung below (seats rotating),
  and the top's convergence (its budget doubled against itself);
- every balance target at every rung (each rung's mirror field judged by the same
  scorecard as a single run), read across skill (`reports/skill.py`), with the headline
  at the strongest converged rung;
- what changes between neighbouring rungs: paired differences on the same deals (seat by
  seat, tie rate, game length), sign flips named; and a curve over the ladder for each
  target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from reports import metrics
from reports.context import components_of, context
from reports.document import Chart, Column, Note, Section, Table
from reports.files import check_report_folder, write_report_files
from reports.hooks import hooks_for
from reports.load import Run, open_run
from reports.paired import paired_difference
from reports.paths import shown_config
from reports.render import Written
from reports.skill import CONVERGED, NOT_SURE, across_skill, between, convergence, flips
from reports.stats import Z
from reports.sweep import (
    FAMILIES,
    TOP_COMPONENTS,
    Family,
    SweepReport,
    line_chart,
    render_html,
    render_markdown,
    run_metrics,
    sweep_record,
    target_region,
)
from reports.targets import FAIL, PASS, UNSURE, Targets, load_targets
from simkit import causal
from simkit.errors import SimkitError
from simkit.ladders import LADDER_FILE, read_ladder
from simkit.results import REPORT_FILE, REPORT_SUMMARY_FILE

CLIMB = Family("climb", "Each rung against the rung below", "win share (%)", 100.0)
BUDGET = Family("budget", "The top rung, budget doubled", "win share (%)", 100.0)
CURVES = ("seat_advantage", "component", "tie_rate", "game_length", "win_seat")


@dataclass
class LadderData:
    """What the ladder report reads: the record, and per rung its field's numbers."""

    record: dict[str, Any]
    rungs: list[str]
    runs: list[Run]  # each rung's mirror field
    data: pl.DataFrame  # point (rung index), family, group, estimate, lo, hi
    cards: list[pl.DataFrame]  # each rung's scorecard
    climb: pl.DataFrame  # rung, against, games, win_share, lo, hi
    budget: dict[str, Any] | None  # the convergence check


def strength(run: Run, token: str, players: int) -> dict[str, Any]:
    """A token's win share in a rotated lineup (clustered by deal) and its gain over the
    fair share."""
    ws = metrics.win_share_by(run.source, "strategy").filter(pl.col("strategy") == token)
    r = ws.row(0, named=True)
    fair = 1.0 / players
    return {"win_share": r["win_share"], "lo": r["win_share_lo"], "hi": r["win_share_hi"],
            "gain": r["win_share"] - fair, "gain_lo": r["win_share_lo"] - fair,
            "gain_hi": r["win_share_hi"] - fair, "games": int(run.manifest["games"])}


def budget_check(folder: Path, token: str, players: int, margin: float) -> dict[str, Any]:
    """A convergence check's run (a budget doubled in one seat, `token`, against itself):
    the doubled player's gain with its interval, and whether it stays under `margin`
    (`simkit.strongest` borrows this: the library never imports the reports)."""
    seen = strength(open_run(folder), token, players)
    state = convergence(seen["gain_lo"], seen["gain_hi"], margin)
    return seen | {"state": state, "converged": state == CONVERGED}


def collect(folder: Path, targets: Targets) -> LadderData:
    """Every point of the ladder in `folder`, read and judged."""
    record = read_ladder(folder)
    if record is None or not isinstance(record.get("points"), list):
        raise SimkitError(f"{folder / LADDER_FILE}: not a readable ladder record; run the "
                          "`simkit ladder` command again into a new folder")
    sweep = sweep_record(folder)
    missing = [p["name"] for p in record["points"]
               if not (folder / p["name"] / "manifest.json").exists()]
    if missing or not sweep.get("finished"):
        what = ", ".join(missing) or "its record"
        raise SimkitError(f"{folder}: the ladder is unfinished ({what}); run the same "
                          "`simkit ladder` command again to finish it, then report")
    names = [r["name"] for r in record["rungs"]]
    players = int(record["players"])
    runs, frames, cards, climb = [], [], [], []
    budget = None
    for p in record["points"]:
        run = open_run(folder / p["name"])
        if p["kind"] == "field":
            m, card = run_metrics(run, targets)
            runs.append(run)
            frames.append(m.with_columns(point=pl.lit(p["rungs"][0])))
            cards.append(card)
        elif p["kind"] == "climb":
            i, below = p["rungs"]
            climb.append({"rung": names[i], "against": names[below], "point": i - 1}
                         | strength(run, p["strategies"][0], players))
        else:
            budget = strength(run, p["strategies"][0], players) | {
                "rung": names[p["rungs"][0]]}
            budget["state"] = convergence(budget["gain_lo"], budget["gain_hi"],
                                          float(record["margin"]))
    return LadderData(record, names, runs, pl.concat(frames), cards,
                      pl.DataFrame(climb), budget)


def _pct(x: float, lo: float, hi: float, signed: bool = False) -> str:
    f = "+.1f" if signed else ".1f"
    return f"{x * 100:{f}} [{lo * 100:{f}}, {hi * 100:{f}}]"


def across(d: LadderData) -> pl.DataFrame:
    """One row per target: its verdict and estimate at every rung, and across skill."""
    top = d.budget["state"] if d.budget is not None else NOT_SURE
    rows = []
    metrics_seen = list(dict.fromkeys(m for c in d.cards for m in c["metric"].to_list()))
    for metric in metrics_seen:
        verdicts, row = [], {"metric": metric}
        for name, card in zip(d.rungs, d.cards, strict=True):
            hit = card.filter(pl.col("metric") == metric)
            if hit.height:
                r = hit.row(0, named=True)
                row["title"] = r["title"]
                row[name] = f"{r['verdict']}: {r['estimate']}"
                verdicts.append(r["verdict"])
            else:
                row[name] = "not judged"
                verdicts.append("not judged")
        row["across"], row["detail"] = across_skill(d.rungs, verdicts, top)
        row["headline"] = verdicts[-1]
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def judge_components(part: pl.DataFrame, limit: float) -> list[str]:
    """One rung's component verdicts against the component target (effects within
    ±`limit`), under the value page's family control (`simkit.causal.verdicts`): the
    calls "beyond the limit" and "within it" are each held at a 5% false discovery rate
    (Benjamini-Hochberg) within each kind, not judged one raw interval at a time. FAIL:
    beyond; PASS: within; else NOT YET SURE. An association of a component players
    choose points but never convicts (its FAIL reads NOT YET SURE), as on the scorecard.
    `part`: kind, estimate, lo, hi (95%), dealt."""
    if not part.height:
        return []
    table = part.select(
        "kind", pl.lit(False).alias("a_a"), pl.lit(causal.UNSURE).alias("verdict"),
        pl.col("estimate").alias("vs_average"),
        ((pl.col("hi") - pl.col("lo")) / (2 * Z)).alias("vs_average_se"))
    judged = causal.verdicts(table, limit)["verdict"].to_list()
    return [FAIL if v in (causal.STRONGER, causal.WEAKER) and dealt else
            PASS if v == causal.AVERAGE else UNSURE
            for v, dealt in zip(judged, part["dealt"].to_list(), strict=True)]


def field_components(run: Run, targets: Targets) -> pl.DataFrame:
    """A field's compared components: component ("name (kind)"), kind, estimate, lo, hi,
    dealt."""
    hooks = hooks_for(run.game)
    comps = components_of(run, hooks, context(run, targets, hooks)).filter(pl.col("compared"))
    return comps.filter(pl.all_horizontal(
        [pl.col(c).is_finite() for c in ("effect", "effect_lo", "effect_hi")])).select(
        (pl.col("name") + " (" + pl.col("kind").str.to_lowercase() + ")").alias("component"),
        "kind", pl.col("effect").alias("estimate"), pl.col("effect_lo").alias("lo"),
        pl.col("effect_hi").alias("hi"), pl.col("dealt").cast(pl.Boolean))


def components_across(d: LadderData, targets: Targets,
                      parts: list[pl.DataFrame] | None = None) -> pl.DataFrame:
    """Each component's effect judged at every rung against the component target, each
    rung's kinds under family control (`judge_components`), and across skill: which
    components' verdicts change with skill. `parts`: each rung's `field_components`
    (default: read from its field)."""
    setting = targets.settings.get("component_effect")
    if parts is None:
        if not d.data.filter(pl.col("family") == "component").height:
            return pl.DataFrame()
        parts = [field_components(run, targets) for run in d.runs]
    if setting is None or not any(p.height for p in parts):
        return pl.DataFrame()
    limit = setting["max_points"] / 100
    top = d.budget["state"] if d.budget is not None else NOT_SURE
    by_rung = [{r["component"]: (v, r["estimate"]) for r, v in zip(
        part.iter_rows(named=True), judge_components(part, limit), strict=True)}
        for part in parts]
    rows = []
    for group in dict.fromkeys(g for rung in by_rung for g in rung):
        verdicts, row = [], {"component": group}
        for name, rung in zip(d.rungs, by_rung, strict=True):
            if group not in rung:
                verdicts.append("not judged")
                row[name] = "not judged"
                continue
            v, estimate = rung[group]
            verdicts.append(v)
            row[name] = f"{v}: {estimate * 100:+.1f}"
        row["across"], row["detail"] = across_skill(d.rungs, verdicts, top)
        row["changes"] = bool(flips(d.rungs, verdicts))
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None).sort("changes", descending=True)


def _cut(frame: pl.DataFrame, deals: int) -> pl.DataFrame:
    return frame.filter(pl.col("deal") < deals)


def between_rungs(d: LadderData) -> pl.DataFrame:
    """Neighbouring rungs compared on the same deals: each seat's win share (so its
    advantage), the tie rate and the mean length; a paired difference with its interval
    and whether the sign flips."""
    rows = []
    label = hooks_for(d.record["game"]).seat_label
    for i in range(1, len(d.runs)):
        a, b = d.runs[i - 1], d.runs[i]
        if a.frame is None or b.frame is None:
            continue
        deals = min(int(a.manifest["games"]), int(b.manifest["games"]))
        fa, fb = _cut(a.frame, deals), _cut(b.frame, deals)
        ga, gb = metrics.per_game(fa), metrics.per_game(fb)
        fair = 1.0 / int(d.record["players"])
        parts = [("seat advantage", paired_difference(fa, fb, "win_share", ["seat"]), fair),
                 ("tie rate", paired_difference(ga.with_columns(pl.col("tie").cast(pl.Float64)),
                                                gb.with_columns(pl.col("tie").cast(pl.Float64)),
                                                "tie"), None),
                 ("game length", paired_difference(ga, gb, "rounds"), None)]
        sa = metrics.seat_advantage(a.source)
        sb = metrics.seat_advantage(b.source)
        for what, frame, centre in parts:
            for r in frame.iter_rows(named=True):
                item = what
                a_lo = b_lo = a_hi = b_hi = math.nan
                if "seat" in r:
                    seat = int(r["seat"])
                    item = f"{label(seat)} ({what})"
                    ra = sa.filter(pl.col("seat") == seat).row(0, named=True)
                    rb = sb.filter(pl.col("seat") == seat).row(0, named=True)
                    a_lo, a_hi = ra["advantage_lo"], ra["advantage_hi"]
                    b_lo, b_hi = rb["advantage_lo"], rb["advantage_hi"]
                shift = centre or 0.0
                rows.append({"item": item, "from": d.rungs[i - 1], "to": d.rungs[i],
                             "deals": deals, "a": r["a"] - shift, "b": r["b"] - shift,
                             "diff": r["diff"], "diff_lo": r["diff_lo"], "diff_hi": r["diff_hi"],
                             "unit": "num" if what == "game length" else "pp",
                             "verdict": between(a_lo, a_hi, b_lo, b_hi, r["diff_lo"],
                                                r["diff_hi"])})
    return pl.DataFrame(rows, infer_schema_length=None)


def _shown(r: dict[str, Any]) -> dict[str, Any]:
    scale, f = (100.0, "+.1f") if r["unit"] == "pp" else (1.0, "+.2f")
    return r | {"at_from": f"{r['a'] * scale:{f}}", "at_to": f"{r['b'] * scale:{f}}",
                "difference": f"{r['diff'] * scale:{f}} [{r['diff_lo'] * scale:{f}}, "
                              f"{r['diff_hi'] * scale:{f}}]"}


def build(d: LadderData, targets: Targets) -> SweepReport:
    rec = d.record
    n = int(rec["players"])
    top = d.rungs[-1]
    b = d.budget
    state = b["state"] if b is not None else NOT_SURE
    headline = top if state == CONVERGED else None
    verdicts = across(d)
    sections = []

    # ---- the headline and the verdicts across skill
    sec = Section("verdicts", "Every verdict at every skill level",
                  f"Each rung's field plays the rung's strategy in all {n} seats on the same "
                  "deals; each target is judged at each rung as in the balance report, then "
                  "read across the ladder.")
    if headline is not None:
        lead = (f"Headline: {top} players in every seat (the strongest rung, converged: "
                f"doubling its budget gains {_pct(b['gain'], b['gain_lo'], b['gain_hi'], True)}"
                f" points, under the {rec['margin'] * 100:g}-point margin).")
    else:
        why = ("the top rung names no budget to double" if b is None else
               f"doubling its budget gains {_pct(b['gain'], b['gain_lo'], b['gain_hi'], True)}"
               f" points against a {rec['margin'] * 100:g}-point margin ({state})")
        lead = (f"No rung has converged ({why}), so every verdict below is \"not yet sure "
                f"about strong play\"; the top column ({top} players in every seat) is the "
                "strongest play measured.")
    sec.blocks.append(Note(lead))
    if not_played(rec):
        sec.blocks.append(Note(not_played(rec)))
    for r in verdicts.iter_rows(named=True):
        sec.blocks.append(Note(f"{r['title']}: {r['across']}. {r['detail']}"))
    columns = [Column("title", "Target")] + [Column(name, f"{name} (all seats)")
                                             for name in d.rungs]
    columns += [Column("across", "Across skill"), Column("detail", "Where")]
    sec.blocks.append(Table("Verdicts by skill level",
                            "Each target's verdict and worst estimate (95% interval) with "
                            "one rung's strategy in every seat, weakest rung first.",
                            verdicts, columns, csv="ladder_verdicts"))
    sections.append(sec)

    # ---- the climb and convergence
    sec = Section("climb", "The ladder: each rung against the one below",
                  f"The rung's win share in one seat against {n - 1} players of the rung below, "
                  f"seats rotating over each deal (fair share {100 / n:.1f}%); intervals "
                  "clustered by deal.")
    if d.climb.height:
        shown = d.climb.with_columns(win_share_lo=pl.col("lo"), win_share_hi=pl.col("hi"))
        sec.blocks.append(Table("Climb", "Each rung in one seat against the rung below in "
                                "the others.", shown,
                                [Column("rung", "Rung"), Column("against", "Against"),
                                 Column("games", "Games", "int"),
                                 Column("win_share", "Win share", "ci_pct")],
                                csv="ladder_climb"))
        data = d.climb.select(pl.col("point"), group=pl.lit("rung vs below"),
                              estimate=pl.col("win_share"), lo=pl.col("lo"), hi=pl.col("hi"))
        labels = [f"{r} vs {a}" for r, a in zip(d.climb["rung"], d.climb["against"],
                                                strict=True)]
        sec.blocks.append(Chart("Each rung against the rung below",
                                "Win share of the rung's seat with its 95% band; the dashed "
                                "line is the fair share.",
                                line_chart(data, CLIMB, labels, "rung", None,
                                           [False] * len(labels), 1.0 / n)))
    if b is not None:
        sec.blocks.append(Note(
            f"Convergence of the top ({top}): its budget doubled in one seat against {top} "
            f"in the others wins {_pct(b['win_share'], b['lo'], b['hi'])}% "
            f"({b['games']:,} games), a gain of {_pct(b['gain'], b['gain_lo'], b['gain_hi'], True)}"
            f" points over the fair share: {state} (converged when the whole interval lies "
            f"under the {rec['margin'] * 100:g}-point margin)."))
    sections.append(sec)

    # ---- between neighbouring rungs, paired
    diffs = between_rungs(d)
    if diffs.height:
        shown = pl.DataFrame([_shown(r) for r in diffs.iter_rows(named=True)],
                             infer_schema_length=None)
        flipped = shown.filter(pl.col("verdict") == "sign flips")
        sec = Section("between", "What changes between neighbouring rungs",
                      "Each pair of neighbouring fields on the same deals: the paired "
                      "difference (upper minus lower rung) with its 95% interval.")
        sec.blocks.append(Note(
            ("Sign flips: " + "; ".join(f"{r['item']} {r['at_from']} ({r['from']}) -> "
                                        f"{r['at_to']} ({r['to']})"
                                        for r in flipped.iter_rows(named=True)) + ".")
            if flipped.height else "No sign flips between neighbouring rungs."))
        sec.blocks.append(Table("Paired differences between rungs", "Seat advantage and tie "
                                "rate in points, game length in its unit.", shown,
                                [Column("item", "Item"), Column("from", "Lower rung"),
                                 Column("to", "Upper rung"), Column("at_from", "At lower"),
                                 Column("at_to", "At upper"),
                                 Column("difference", "Difference [95% paired]"),
                                 Column("verdict", "Verdict")], csv="ladder_between"))
        sections.append(sec)

    # ---- components whose verdict changes with skill
    comps = components_across(d, targets)
    if comps.height:
        moved = comps.filter(pl.col("changes"))["component"].to_list()
        sec = Section("components", "Components across skill",
                      "Each component's win-share effect (players who had or used it against "
                      "those who did not, points) in every rung's field, judged against the "
                      "component target with each rung's calls held at a 5% false discovery "
                      "rate within each kind (Benjamini-Hochberg, as on the value page): "
                      "among many equal components one is rarely called by chance.")
        sec.blocks.append(Note(
            ("Verdicts that change with skill: " + ", ".join(moved) + ".") if moved else
            "No component's verdict changes with skill (a PASS at one rung and a FAIL at "
            "another)."))
        sec.blocks.append(Note("These are associations, as in the balance report: for a "
                               "component players choose, a strong player seeking it makes "
                               "it look strong; `simkit value --rung NAME` measures what it "
                               "is worth to one rung's players."))
        sec.blocks.append(Table("Component effects by skill level", "Verdict and effect "
                                "(points) at each rung, and across skill.", comps.drop(
                                    "changes"),
                                [Column("component", "Component")]
                                + [Column(name, name) for name in d.rungs]
                                + [Column("across", "Across skill")],
                                csv="ladder_components"))
        sections.append(sec)

    # ---- a curve over the ladder per target
    passing = []
    for card in d.cards:
        passing.append(bool(card.height) and set(card["verdict"].to_list()) == {PASS})
    for family in FAMILIES:
        if family.key not in CURVES:
            continue
        part = d.data.filter(pl.col("family") == family.key)
        if not part.height:
            continue
        if family.key == "component":
            top5 = (part.group_by("group").agg(size=pl.col("estimate").abs().max())
                    .sort("size", descending=True).head(TOP_COMPONENTS)["group"].to_list())
            part = part.filter(pl.col("group").is_in(top5))
        region = target_region(family, targets)
        reference = 1.0 / n if family.key == "win_seat" else None
        fig = line_chart(part, family, d.rungs, "skill level (one strategy in every seat)",
                         region, passing, reference)
        sections.append(Section(f"curve_{family.key}", f"{family.title} over the ladder",
                                f"{family.title} with each rung in every seat, weakest first.",
                                [Chart(f"{family.title} over the ladder",
                                       "Lines are estimates, bands their 95% intervals; the "
                                       "shaded strip is the acceptable region, green columns "
                                       "rungs where every target passes.", fig)]))
    games = [int(r.manifest["games"]) for r in d.runs]
    facts = [("Game", str(rec["game"])), ("Players", str(n)),
             ("Ladder", ", ".join(d.rungs) + f" (from {_shown_source(rec['source'])})"),
             ("Games per field", ", ".join(f"{name} {g:,}" for name, g in
                                           zip(d.rungs, games, strict=True))
              + "; all on one seed, so the fields share their deals"),
             ("Convergence margin", f"{rec['margin'] * 100:g} points"),
             ("Targets", targets.source)]
    subtitle = (f"Headline at {headline} (converged)" if headline else
                f"Top rung {top} not converged: not yet sure about strong play")
    return SweepReport(title=f"{rec['game']}: verdicts across skill", subtitle=subtitle,
                       facts=facts, command=str(rec.get("command")), passing=[],
                       sections=sections, kind="skill ladder")


def make_ladder_report(folder: Path, out_dir: Path | None = None,
                       targets_path: Path | None = None,
                       set_targets: tuple[str, ...] = ()) -> tuple[Written, pl.DataFrame]:
    """Write the ladder report; returns what was written and the verdicts across skill."""
    folder = Path(folder)
    record = read_ladder(folder) or {}
    targets = load_targets(targets_path, str(record.get("game")), set_targets)
    d = collect(folder, targets)
    rep = build(d, targets)
    out = Path(out_dir) if out_dir is not None else folder
    check_report_folder(out, folder)
    tables = [(b.csv, b.title, b.frame) for s in rep.sections for b in s.blocks
              if isinstance(b, Table) and b.csv]
    written = write_report_files(out, [(REPORT_SUMMARY_FILE, render_markdown(rep)),
                                       (REPORT_FILE, render_html(rep))], tables)
    return Written(out / REPORT_FILE, out / REPORT_SUMMARY_FILE, written), across(d)


def not_played(record: dict[str, Any]) -> str:
    """What a ladder run left out (`--up-to`), for the page and the terminal; "" if nothing."""
    if not record.get("not_played"):
        return ""
    top = record["rungs"][-1]["name"]
    return (f"A stronger player is on this game's ladder and was not played here: "
            f"{', '.join(record['not_played'])} (the ladder stopped at {top} with --up-to). "
            f"Every verdict here is about play up to {top} players; stronger play may "
            "change it (docs/ladder.md).")


def _shown_source(source: str) -> str:
    """A ladder's source, "FILE [game]", with FILE as pages show a config (no home folder)."""
    path, bracket, game = source.partition(" [")
    return shown_config(path) + (f" [{game}" if bracket else "")
