"""The sweep report: `simkit report SWEEP_DIR` on a folder written by `simkit sweep`.

For every point the balance metrics are computed with the same functions as the single-run
report (`reports/metrics.py`) and judged with the same scorecard (`reports/targets.py`).
The report then shows each metric against the varied value: a line with its 95% band
and the acceptable region from the targets shaded (one varied key, or a zip), or a heat
map (two varied keys forming a grid). The points where every target passes are listed
first. Files: report.html, summary.md and report_tables/*.csv in the sweep folder.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from reports import metrics  # noqa: E402
from reports.answer import sweep_answer, whose_play  # noqa: E402
from reports.charts import BAND, GRID, INK, MUTED, PALETTE, WIDTH, heat_map, styled  # noqa: E402
from reports.context import components_of, context  # noqa: E402
from reports.document import Chart, Column, Note, Section, Table, csv_tables  # noqa: E402
from reports.files import check_report_folder, write_report_files  # noqa: E402
from reports.hooks import hooks_for  # noqa: E402
from reports.load import Run, open_run, read_run_manifest  # noqa: E402
from reports.markdown import md_sections  # noqa: E402
from reports.page import (  # noqa: E402
    about_html,
    answer_line,
    command_html,
    escape,
    facts_html,
    page,
    section_html,
)
from reports.render import Written  # noqa: E402
from reports.targets import FAIL, PASS, UNSURE, Targets, load_targets, scorecard  # noqa: E402
from simkit.errors import SimkitError  # noqa: E402
from simkit.results import (  # noqa: E402
    REPORT_FILE,
    REPORT_SUMMARY_FILE,
    read_json,
)
from simkit.sweeps import SWEEP_FILE, format_value  # noqa: E402

TOP_COMPONENTS = 5


@dataclass(frozen=True)
class Family:
    """A metric shown against the varied value."""

    key: str
    title: str
    ylabel: str
    scale: float  # 100: a fraction shown in percent or points
    target: str | None = None  # the targets.toml metric that judges it


FAMILIES = [
    Family("win_strategy", "Win share by strategy", "win share (%)", 100.0),
    Family("win_seat", "Win share by seat", "win share (%)", 100.0),
    Family("seat_advantage", "Seat advantage", "points from the fair share", 100.0,
           "seat_advantage"),
    Family("score_strategy", "Mean score by strategy", "mean score", 1.0),
    Family("game_length", "Game length", "mean rounds", 1.0, "game_length"),
    Family("tie_rate", "Tie rate", "games with a shared win (%)", 100.0, "tie_rate"),
    Family("component", "Top component effects", "win-share effect (points)", 100.0,
           "component_effect"),
]


def target_region(family: Family, targets: Targets) -> tuple[float | None, float | None] | None:
    """The acceptable region of a family's estimates (in the frame's units), if any."""
    s = targets.settings.get(family.target or "", None)
    if not s:
        return None
    if family.target in ("seat_advantage", "component_effect"):
        m = s["max_points"] / 100
        return (-m, m)
    if family.target == "tie_rate":
        return (None, s["max_percent"] / 100)
    return (s.get("min_rounds"), s.get("max_rounds"))


def point_metrics(run_dir: Path, targets: Targets) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(long frame of family, group, estimate, lo, hi; scorecard) for one point's run."""
    return run_metrics(open_run(run_dir), targets)


def run_metrics(run: Run, targets: Targets) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`point_metrics` of a run already open."""
    hooks = hooks_for(run.game)
    src = run.source  # the rows, or a summary-only run's totals: the same numbers
    label = hooks.seat_label
    by_strategy = metrics.win_share_by(src, "strategy")
    by_seat = metrics.win_share_by(src, "seat")
    seats = metrics.seat_advantage(src).with_columns(
        label=pl.col("seat").map_elements(label, return_dtype=pl.String))
    ties = metrics.tie_rate(src.games)
    length = metrics.summary(src.games, "rounds")
    components = components_of(run, hooks, context(run, targets, hooks))
    card = scorecard(targets, run_games=metrics.game_count(src), seat_advantage=seats,
                     components=components, tie_rate=ties, game_length=length,
                     seat_label=label, length_unit=hooks.length_unit)
    rows: list[dict[str, Any]] = []

    def add(family: str, group: str, est: Any, lo: Any, hi: Any) -> None:
        rows.append({"family": family, "group": group, "estimate": _f(est), "lo": _f(lo),
                     "hi": _f(hi)})

    for r in by_strategy.iter_rows(named=True):
        add("win_strategy", r["strategy"], r["win_share"], r["win_share_lo"], r["win_share_hi"])
        add("score_strategy", r["strategy"], r["score"], r["score_lo"], r["score_hi"])
    for r in by_seat.iter_rows(named=True):
        add("win_seat", label(r["seat"]), r["win_share"], r["win_share_lo"], r["win_share_hi"])
    for r in seats.iter_rows(named=True):
        add("seat_advantage", r["label"], r["advantage"], r["advantage_lo"], r["advantage_hi"])
    t = ties.row(0, named=True)
    add("tie_rate", "tie rate", t["tie_rate"], t["tie_rate_lo"], t["tie_rate_hi"])
    g = length.row(0, named=True)
    add("game_length", "mean length", g["rounds"], g["rounds_lo"], g["rounds_hi"])
    if components.height:
        for r in components.filter(pl.col("compared")).iter_rows(named=True):
            add("component", f"{r['name']} ({r['kind'].lower()})", r["effect"], r["effect_lo"],
                r["effect_hi"])
    schema = {"family": pl.String, "group": pl.String, "estimate": pl.Float64,
              "lo": pl.Float64, "hi": pl.Float64}
    return pl.DataFrame(rows, schema=schema), card


def _f(x: Any) -> float:
    return math.nan if x is None else float(x)


def sweep_record(sweep_dir: Path) -> dict[str, Any]:
    """sweep.json, checked to be a sweep's record (one clear line if it is damaged)."""
    path = sweep_dir / SWEEP_FILE
    record = read_json(path)
    points = None if record is None else record.get("points")
    if not isinstance(points, list) or not points or not all(
            isinstance(p, dict) and "name" in p for p in points):
        raise SimkitError(f"{path}: not a readable sweep record (no points); run the sweep's "
                          "command again into a new folder")
    return record


def collect(sweep_dir: Path, targets: Targets) -> tuple[dict[str, Any], pl.DataFrame,
                                                        pl.DataFrame]:
    """(sweep record, metrics of every point, verdicts of every point and target)."""
    record = sweep_record(sweep_dir)
    if not record.get("finished") and any(
            not (sweep_dir / p["name"] / "manifest.json").exists() for p in record["points"]):
        raise SimkitError(f"{sweep_dir}: the sweep is unfinished; run the same `simkit sweep` "
                          "command again to finish it, then report")
    keys = [v["key"] for v in record["varied"]]
    frames, cards = [], []
    for i, p in enumerate(record["points"]):
        values = {k: p["values"][k] for k in keys}
        shown = {f"value_{j}": format_value(values[k]) for j, k in enumerate(keys)}
        m, card = point_metrics(sweep_dir / p["name"], targets)
        frames.append(m.with_columns(point=pl.lit(i), name=pl.lit(p["name"]),
                                     **{c: pl.lit(v) for c, v in shown.items()}))
        cards.append(card.select("metric", "title", "verdict", "estimate").with_columns(
            point=pl.lit(i), name=pl.lit(p["name"]),
            **{c: pl.lit(v) for c, v in shown.items()}))
    return record, pl.concat(frames), pl.concat(cards)


# ------------------------------------------------------------------ charts
def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


@styled
def line_chart(data: pl.DataFrame, family: Family, x_values: Sequence[Any], x_label: str,
               region: tuple[float | None, float | None] | None, passing: Sequence[bool],
               reference: float | None = None) -> Figure:
    """The metric against the varied value: one line per group with its 95% band."""
    fig = Figure(layout="constrained", figsize=(WIDTH, 3.8))
    ax = fig.add_subplot()
    numeric = _numeric(x_values)
    xs = np.array(x_values, float) if numeric else np.arange(len(x_values), dtype=float)
    s = family.scale
    if region is not None:
        lo, hi = region
        bottom = lo * s if lo is not None else min(0.0, np.nanmin(data["lo"].to_numpy() * s))
        top = hi * s if hi is not None else np.nanmax(data["hi"].to_numpy() * s)
        ax.axhspan(bottom, top, color=BAND, zorder=0, label="acceptable (targets.toml)")
    if len(xs) > 1:
        half = np.min(np.diff(np.sort(xs))) / 2 if len(xs) > 1 else 0.5
        first = True
        for x, ok in zip(xs, passing, strict=True):
            if ok:
                ax.axvspan(x - half, x + half, color="#cfe8d6", alpha=0.45, zorder=0,
                           label="every target passes" if first else None)
                first = False
    groups = list(dict.fromkeys(data["group"].to_list()))
    for i, g in enumerate(groups):
        part = data.filter(pl.col("group") == g).sort("point")
        idx = part["point"].to_numpy()
        x = xs[idx]
        colour = PALETTE[i % len(PALETTE)]
        ax.fill_between(x, part["lo"].to_numpy() * s, part["hi"].to_numpy() * s,
                        color=colour, alpha=0.18, lw=0, zorder=1)
        ax.plot(x, part["estimate"].to_numpy() * s, marker="o", ms=4, lw=1.8, color=colour,
                label=str(g), zorder=2)
    if reference is not None:
        ax.axhline(reference * s, color=INK, ls="--", lw=1, label="fair share", zorder=3)
    if family.target in ("seat_advantage", "component_effect"):
        ax.axhline(0, color=MUTED, lw=0.8)
    if numeric and all(isinstance(v, int) for v in x_values):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no 10.25 for a card count
    if not numeric:
        tilt = len(xs) > 4 or max(len(str(v)) for v in x_values) * len(xs) > 60
        ax.set_xticks(xs, [str(v) for v in x_values], rotation=20 if tilt else 0,
                      ha="right" if tilt else "center")
    against = x_label if len(x_label) <= 40 else "the varied values"
    ax.set_title(f"{family.title} against {against}")
    ax.set_xlabel(x_label)
    ax.set_ylabel(family.ylabel)
    ax.grid(color=GRID, zorder=0)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def _judge(lo: float, hi: float, region: tuple[float | None, float | None] | None) -> str:
    if region is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    a, b = region
    if (a is None or lo >= a) and (b is None or hi <= b):
        return "P"
    if (b is not None and lo > b) or (a is not None and hi < a):
        return "F"
    return "U"


# ------------------------------------------------------------------ building
@dataclass
class SweepReport:
    title: str
    subtitle: str
    facts: list[tuple[str, str]]
    command: str
    passing: list[str]
    sections: list[Section]
    answer: str = ""  # the value that passes (or the closest), in one line
    kind: str = "sweep"  # "skill ladder": the same page for `simkit ladder`


def build_sweep(record: dict[str, Any], data: pl.DataFrame, cards: pl.DataFrame,
                targets: Targets, fair: float, whose: str = "these players") -> SweepReport:
    varied = record["varied"]
    labels = [v["label"] for v in varied]
    points = record["points"]
    n_points = len(points)
    value_cols = [f"value_{j}" for j in range(len(varied))]

    # Verdicts: one row per point, one column per target.
    wide = (cards.pivot(on="metric", index=["point", "name", *value_cols], values="verdict")
            .sort("point")) if cards.height else pl.DataFrame(
        {"point": list(range(n_points)), "name": [p["name"] for p in points]})
    metrics_judged = [c for c in wide.columns if c not in ("point", "name", *value_cols)]
    wide = wide.with_columns(
        passed=pl.sum_horizontal([(pl.col(c) == PASS).cast(pl.Int32) for c in metrics_judged])
        if metrics_judged else pl.lit(0),
        failed=pl.sum_horizontal([(pl.col(c) == FAIL).cast(pl.Int32) for c in metrics_judged])
        if metrics_judged else pl.lit(0))
    wide = wide.with_columns(all_pass=pl.col("passed") == len(metrics_judged))
    all_pass = wide["all_pass"].to_list() if metrics_judged else [False] * n_points

    def point_label(i: int) -> str:
        p = points[i]
        return ", ".join(f"{lab} = {format_value(p['values'][v['key']])}"
                         for lab, v in zip(labels, varied, strict=True))

    passing = [point_label(i) for i in range(n_points) if all_pass[i]]
    verdict_table = wide.with_columns(
        values=pl.Series([point_label(i) for i in wide["point"].to_list()]),
        order=(~pl.col("all_pass")).cast(pl.Int32)).sort(
        "order", "passed", "failed", "point", descending=[False, True, False, False])
    titles = dict(zip(cards["metric"].to_list(), cards["title"].to_list(), strict=True)) \
        if cards.height else {}
    columns = [Column("values", "Point"), Column("name", "Folder")]
    columns += [Column(m, titles.get(m, m)) for m in metrics_judged]
    columns += [Column("passed", "Targets passed", "int")]
    overview = Section("where", "Where every target passes",
                       "The points, best first: those where every balance target passes, "
                       "then by the number of targets passed, then missed.")
    if metrics_judged:
        text = ("Every target passes at: " + "; ".join(passing) + ".") if passing else (
            "No point passes every target.")
    else:
        text = "No targets are in force, so no point is judged."
    best = verdict_table.row(0, named=True) if verdict_table.height else None
    answer = ""
    if best is not None:
        values = points[int(best["point"])]["values"]
        sets = " ".join(f"--set {v['key']}={format_value(values[v['key']])}" for v in varied)
        failing = [titles.get(m, m) for m in metrics_judged if best.get(m) == FAIL]
        answer = sweep_answer(best, len(metrics_judged), len(passing), n_points, whose, sets,
                              failing)
    overview.blocks.append(Note(text))
    overview.blocks.append(Table(
        "Verdicts by point", "Each target judged at each point, as in the balance report: "
        "PASS when the whole 95% interval meets the target.",
        verdict_table.drop("order"), columns, csv="sweep_verdicts"))

    sections = [overview]
    grid2 = len(varied) == 2 and not record.get("zip")
    if grid2 and metrics_judged:
        n_cols = len(varied[1]["values"])
        counts = np.full((len(varied[0]["values"]), n_cols), np.nan)
        marks = np.full(counts.shape, "", dtype=object)
        for r in wide.iter_rows(named=True):
            i, j = divmod(int(r["point"]), n_cols)
            counts[i, j] = r["passed"]
            marks[i, j] = "P" if r["all_pass"] else ""
        fig = heat_map(counts, marks, rows=[format_value(v) for v in varied[0]["values"]],
                       cols=[format_value(v) for v in varied[1]["values"]],
                       row_label=labels[0], col_label=labels[1],
                       title=f"Targets passed (of {len(metrics_judged)})", fmt="{:.0f}",
                       limits=(0.0, float(len(metrics_judged))), counts=True)
        overview.blocks.insert(1, Chart("Targets passed", "How many balance targets pass at "
                                        "each pair of values; ✓ marks points where all pass.",
                                        fig))
    if grid2:
        x_values = None
    elif len(varied) == 1:
        x_values = [p["values"][varied[0]["key"]] for p in points]
        x_label = labels[0]
    else:  # a zip (or a grid of 3+ keys): one position per point
        x_values = [" / ".join(_short(p["values"][v["key"]]) for v in varied) for p in points]
        x_label = " / ".join(labels)
    if x_values is not None and not _numeric(x_values):
        x_values = [v if isinstance(v, str) and len(varied) > 1 else _short(v)
                    for v in x_values]
    for family in FAMILIES:
        part = data.filter(pl.col("family") == family.key)
        if not part.height:
            continue
        if family.key == "component":
            top = (part.group_by("group").agg(size=pl.col("estimate").abs().max())
                   .sort("size", descending=True).head(TOP_COMPONENTS)["group"].to_list())
            part = part.filter(pl.col("group").is_in(top))
        region = target_region(family, targets)
        reference = fair if family.key in ("win_strategy", "win_seat") else None
        sec = Section(family.key, family.title, _intro(family, region, x_values is None))
        if x_values is not None:
            fig = line_chart(part, family, x_values, x_label, region, all_pass, reference)
            sec.blocks.append(Chart(f"{family.title} against {x_label}",
                                    "Lines are estimates, bands their 95% intervals; the "
                                    "shaded strip is the acceptable region from the targets, "
                                    "and green columns mark points where every target passes.",
                                    fig))
        else:
            sec.blocks += _heat_maps(part, family, record, region)
        table = part.sort("group", "point").with_columns(
            values=pl.col("point").map_elements(point_label, return_dtype=pl.String))
        fmt = "ci_pct" if family.scale == 100 and family.key not in (
            "seat_advantage", "component") else ("ci_pp" if family.scale == 100 else "ci_num")
        sec.blocks.append(Table(
            f"{family.title} at every point", "The estimate and its 95% interval at each "
            "point of the sweep.", table.rename({"lo": "estimate_lo", "hi": "estimate_hi"}),
            [Column("group", "Group"), Column("values", "Point"),
             Column("estimate", family.ylabel, fmt, 2 if fmt == "ci_num" else 1)],
            csv=f"sweep_{family.key}"))
        sections.append(sec)
    timing = record.get("timing") or {}
    facts = [("Game", str(record.get("game"))),
             ("Varied", "; ".join(f"{v['label']} = " + ", ".join(format_value(x)
                                                                  for x in v["values"])
                                  for v in varied) + (" (zipped)" if record.get("zip") else "")),
             ("Points", f"{n_points} × {record.get('games_per_point', 0):,} games, all on the "
                        "same seed (common random numbers)"
                        + _played(points, record.get("games_per_point", 0))),
             ("Targets", targets.source)]
    if timing:
        facts.append(("Sweep time", f"{timing['seconds']:.1f} s, of which "
                      f"{timing['overhead_share'] * 100:.1f}% outside the runs"))
    return SweepReport(title=f"{record.get('game')}: what-if sweep",
                       subtitle=f"{n_points} points of {record.get('games_per_point', 0):,} "
                                "games each", facts=facts, command=str(record.get("command")),
                       passing=passing, sections=sections, answer=answer)


def _played(points: Sequence[dict[str, Any]], asked: int) -> str:
    """A note when --until-sure stopped points early (they then differ in games)."""
    played = [p.get("games") for p in points]
    if not all(isinstance(g, int) for g in played):
        return ""
    if min(played) >= asked:
        return ""
    span = f"{min(played):,}" if min(played) == max(played) else (
        f"{min(played):,} to {max(played):,}")
    return f"; --until-sure played {span} games per point"


def _short(value: Any) -> str:
    """A value as a tick label: text without quotes, everything else as in TOML."""
    return value if isinstance(value, str) else format_value(value)


def _intro(family: Family, region: tuple[float | None, float | None] | None,
           grid: bool = False) -> str:
    base = f"How the {family.title.lower()} changes with the varied value"
    if region is None:
        return base + "."
    if grid:  # heat maps mark each point instead of shading a region
        return (base + "; each point is marked by whether its whole interval is acceptable "
                "under configs/targets.toml.")
    return base + "; the shaded region is acceptable under configs/targets.toml."


def _heat_maps(part: pl.DataFrame, family: Family, record: dict[str, Any],
               region: tuple[float | None, float | None] | None) -> list[Chart]:
    varied = record["varied"]
    rows_v, cols_v = varied[0]["values"], varied[1]["values"]
    rows = [format_value(v) for v in rows_v]
    cols = [format_value(v) for v in cols_v]
    out = []
    groups = list(dict.fromkeys(part["group"].to_list()))[:6]
    s = family.scale
    fmt = "{:.1f}" if s == 100 or family.key == "score_strategy" else "{:.2f}"
    shown = part.filter(pl.col("group").is_in(groups))["estimate"].to_numpy() * s
    shown = shown[np.isfinite(shown)]
    limits = (float(shown.min()), float(shown.max())) if shown.size else None
    signed = family.target in ("seat_advantage", "component_effect")
    for g in groups:
        values = np.full((len(rows), len(cols)), np.nan)
        marks = np.full((len(rows), len(cols)), "", dtype=object)
        for r in part.filter(pl.col("group") == g).iter_rows(named=True):
            i, j = divmod(int(r["point"]), len(cols))  # grid order: the last key fastest
            values[i, j] = r["estimate"] * s
            marks[i, j] = _judge(r["lo"], r["hi"], region)
        title = f"{family.title}: {g}" if len(groups) > 1 or family.key != "game_length" \
            else family.title
        fig = heat_map(values, marks, rows=rows, cols=cols, row_label=varied[0]["label"],
                       col_label=varied[1]["label"], title=title, fmt=fmt, limits=limits,
                       signed=signed)
        out.append(Chart(title, f"{family.ylabel} at each pair of values"
                         + ("; ✓ the whole 95% interval is acceptable, ✗ it is not, ? not yet "
                            "sure." if region is not None else "."), fig))
    return out


# ------------------------------------------------------------------ rendering
def render_html(rep: SweepReport) -> str:
    e = escape
    lead = (f'<p class="sub">{e(rep.subtitle)}</p>'
            + answer_line(rep.answer, "pass" if rep.passing else "fail")
            + about_html(f"About this {rep.kind}: the varied keys, points, targets and the "
                         "command that reproduces it",
                         facts_html(rep.facts) + command_html(f"Reproduce this {rep.kind}",
                                                              rep.command)))
    footer = ("Each point is a full run folder: "
              f"<code>simkit report {e(rep.kind.upper().replace(' ', '_'))}/POINT</code> "
              "gives its balance report, <code>simkit compare A B</code> a paired "
              "comparison of two of them.")
    return page(rep.title, f"simkit {rep.kind} report", lead,
                [section_html(s) for s in rep.sections],
                nav=[(f"#{s.key}", s.title) for s in rep.sections], footer=footer)


def render_markdown(rep: SweepReport) -> str:
    out = [f"# {rep.title}", "", f"{rep.subtitle}. Charts: `report.html`.", ""]
    if rep.answer:
        out += [f"**{rep.answer}**", ""]
    out += [f"- **{k}**: {v}" for k, v in rep.facts]
    out += ["", f"Reproduce this {rep.kind}:", "", "```sh", rep.command, "```"]
    out += md_sections(rep.sections)
    return "\n".join(out) + "\n"


def make_sweep_report(sweep_dir: Path, out_dir: Path | None = None,
                      targets_path: Path | None = None,
                      set_targets: Sequence[str] = ()) -> Written:
    """Report on the sweep in `sweep_dir`, written to `out_dir` (default: the sweep folder)."""
    sweep_dir = Path(sweep_dir)
    record = sweep_record(sweep_dir)
    first = read_run_manifest(sweep_dir / record["points"][0]["name"]) \
        if (sweep_dir / record["points"][0]["name"] / "manifest.json").exists() else None
    targets = load_targets(targets_path, str(record.get("game")), set_targets)
    record, data, cards = collect(sweep_dir, targets)
    players = int(first["players"]) if first else 1
    rep = build_sweep(record, data, cards, targets, 1.0 / players,
                      whose_play(first) if first else "these players")
    out = Path(out_dir) if out_dir is not None else sweep_dir
    check_report_folder(out, sweep_dir)
    written = write_report_files(out, [(REPORT_SUMMARY_FILE, render_markdown(rep)),
                                       (REPORT_FILE, render_html(rep))],
                                 csv_tables(rep.sections))
    return Written(out / REPORT_FILE, out / REPORT_SUMMARY_FILE, written)


__all__ = ["make_sweep_report", "collect", "build_sweep", "point_metrics", "UNSURE"]
