"""`simkit compare RUN_A RUN_B`: paired differences between two runs on the same deals.

Two runs of the same game, player count, seed and number of games deal the same cards:
deal d of one run is deal d of the other (common random numbers). A metric's difference
B - A is therefore taken deal by deal, and its 95% interval comes from the spread of the
per-deal differences. Because most of the luck of a deal is shared, that interval is much
narrower than the unpaired one (the two runs' intervals combined as if independent), which
is also shown. A difference is "real" when its paired interval excludes zero.

Each per-deal metric is a ratio mean (sum over the deal's rows / its rows), so the
difference of the two ratio estimators is linearised per deal:
e_d = (yA_d - meanA mA_d) / MA - (yB_d - meanB mB_d) / MB, se = sqrt(C/(C-1) sum e_d^2).
Component effects compare players with and without a component and have no per-deal
pairing, so their difference uses the unpaired interval (conservative: the shared deals
make the true interval narrower).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import polars as pl

from reports import metrics
from reports.answer import before_after, compare_answer, whose_play
from reports.build import scorecard_only
from reports.cells import minus
from reports.hooks import Context, hooks_for
from reports.load import Run, open_run, read_run_manifest
from reports.page import answer_line, escape, facts_html, page, plain_table, tone_of, verdict_class
from reports.paired import paired_difference
from reports.stats import Z
from reports.targets import load_targets
from simkit.causal import bh
from simkit.errors import SimkitError, on_disk
from simkit.results import write_csv
from simkit.words import shown

SCHEMA = {"metric": pl.String, "group": pl.String, "unit": pl.String, "a": pl.Float64,
          "b": pl.Float64, "diff": pl.Float64, "diff_lo": pl.Float64, "diff_hi": pl.Float64,
          "unpaired_lo": pl.Float64, "unpaired_hi": pl.Float64, "paired": pl.Boolean,
          "real": pl.Boolean}


@dataclass
class Comparison:
    a: Path
    b: Path
    game: str
    games: int
    seed: int
    a_label: str
    b_label: str
    frame: pl.DataFrame
    scorecards: pl.DataFrame | None = None  # the verdicts before (A) and after (B)
    answer: str = ""  # the page's first line


def check_comparable(ma: dict[str, Any], mb: dict[str, Any], a: Path, b: Path) -> None:
    """Both runs must share their deals: same game, players, seed, games and seat rotation."""
    for key, what in (("game", "games"), ("seed", "seeds"), ("players", "player counts"),
                      ("games", "numbers of games")):
        if ma.get(key) != mb.get(key):
            raise SimkitError(f"cannot compare {a} and {b}: different {what} ({ma.get(key)} "
                              f"vs {mb.get(key)}); a paired comparison needs two runs of the "
                              "same game, players, seed and number of games")
    if bool(ma.get("rotation")) != bool(mb.get("rotation")):
        raise SimkitError(f"cannot compare {a} and {b}: one run rotates different strategies "
                          "through the seats and the other does not, so their games do not "
                          "share deals")


def _rows(metric: str, unit: str, frame: pl.DataFrame, group: str | None,
          label: Any = None) -> list[dict[str, Any]]:
    rows = []
    for r in frame.iter_rows(named=True):
        g = str(label(r[group]) if label else r[group]) if group else "all games"
        rows.append({"metric": metric, "group": g, "unit": unit, "a": r["a"], "b": r["b"],
                     "diff": r["diff"], "diff_lo": r["diff_lo"], "diff_hi": r["diff_hi"],
                     "unpaired_lo": r["unpaired_lo"], "unpaired_hi": r["unpaired_hi"],
                     "paired": True})
    return rows


def _components(ra: Run, rb: Run, top: int) -> list[dict[str, Any]]:
    if top <= 0:
        return []
    hooks = hooks_for(ra.game)
    targets = load_targets(None, ra.game)
    effects = []
    for run in (ra, rb):
        games = metrics.per_game(run.frame)
        ctx = Context(run, run.frame, games, targets, hooks.seat_label)
        effects.append(metrics.component_effects(run.frame, hooks.components(ctx)))
    ea, eb = effects
    if not ea.height or not eb.height:
        return []
    cols = ["kind", "key", "name", "effect", "effect_se", "compared"]
    j = ea.select(cols).join(eb.select(cols), on=["kind", "key"], suffix="_b")
    j = j.filter(pl.col("compared") & pl.col("compared_b")).with_columns(
        size=pl.max_horizontal(pl.col("effect").abs(), pl.col("effect_b").abs())
    ).sort("size", descending=True).head(top)
    rows = []
    for r in j.iter_rows(named=True):
        d = r["effect_b"] - r["effect"]
        se = math.sqrt(r["effect_se"] ** 2 + r["effect_se_b"] ** 2)
        rows.append({"metric": "Component effect on win share", "unit": "pp",
                     "group": f"{r['name']} ({r['kind'].lower()})", "a": r["effect"],
                     "b": r["effect_b"], "diff": d, "diff_lo": d - Z * se, "diff_hi": d + Z * se,
                     "unpaired_lo": d - Z * se, "unpaired_hi": d + Z * se, "paired": False})
    return rows


def compare_runs(a: Path, b: Path, top_components: int = 5) -> Comparison:
    """Every metric of the balance report as a difference B - A with its 95% interval."""
    a, b = Path(a), Path(b)
    ma, mb = read_run_manifest(a), read_run_manifest(b)
    check_comparable(ma, mb, a, b)
    ra, rb = open_run(a), open_run(b)
    for run in (ra, rb):
        if run.frame is None:
            raise SimkitError(f"cannot compare {run.path}: it is a summary-only run, and a "
                              "paired comparison matches the two runs deal by deal, which "
                              "needs the per-game rows; rerun it without --summary-only")
    targets = load_targets(None, ra.game)
    cards = before_after(scorecard_only(ra, targets), scorecard_only(rb, targets))
    return Comparison(a, b, ra.game, int(ma["games"]), int(ma["seed"]), _describe(ma),
                      _describe(mb), compare_frames(ra, rb, top_components), cards,
                      compare_answer(cards, whose_play(ma)))


def compare_frames(ra: Run, rb: Run, top_components: int = 5) -> pl.DataFrame:
    """The comparison table of two runs held in memory (rows in `frame`) on the same
    deals: what `compare_runs` reads from two folders, and `simkit studio` from the
    games it has played so far."""
    fa, fb = ra.frame, rb.frame
    assert fa is not None and fb is not None
    label = hooks_for(ra.game).seat_label
    ga, gb = metrics.per_game(fa), metrics.per_game(fb)
    rows: list[dict[str, Any]] = []
    rows += _rows("Win share by strategy", "pp", paired_difference(fa, fb, "win_share",
                                                                   ["strategy"]), "strategy")
    rows += _rows("Win share by seat", "pp", paired_difference(fa, fb, "win_share", ["seat"]),
                  "seat", lambda s: label(int(s)))
    rows += _rows("Mean score by strategy", "num",
                  paired_difference(fa, fb, "score", ["strategy"]), "strategy")
    rows += _rows("Mean score", "num", paired_difference(fa, fb, "score"), None)
    rows += _rows("Game length (rounds)", "num", paired_difference(ga, gb, "rounds"), None)
    rows += _rows("Tie rate", "pp", paired_difference(ga.with_columns(pl.col("tie").cast(
        pl.Float64)), gb.with_columns(pl.col("tie").cast(pl.Float64)), "tie"), None)
    rows += _rows("Margin of victory (points)", "num", paired_difference(ga, gb, "margin"),
                  None)
    rows += _components(ra, rb, top_components)
    frame = pl.DataFrame(rows, schema={k: v for k, v in SCHEMA.items() if k != "real"})
    return frame.with_columns(real=pl.Series(real_after_fdr(frame), dtype=pl.Boolean))


# Below this share of the figures' own size a difference or its spread is float rounding,
# not a measurement: 25% - 25% summed in another order is 5e-17, and the same 20,000 win
# shares summed by another grouping differ by about 1e-10 with a spread of the same order,
# so an all-greedy "win share by strategy" row read REAL at +0.00. No measured difference
# is a billionth of its figures.
ROUNDING = 1e-9


def real_after_fdr(frame: pl.DataFrame) -> list[bool]:
    """Which differences are real: Benjamini-Hochberg at a 5% false discovery rate over
    every row of the comparison (two-sided normal p-values from the 95% intervals). With
    twenty-odd rows, "the interval excludes zero" alone would call about one row real by
    chance even when nothing changed."""
    ps = []
    for r in frame.iter_rows(named=True):
        d, lo, hi = r["diff"], r["diff_lo"], r["diff_hi"]
        if d is None or lo is None or not math.isfinite(d) or not math.isfinite(lo):
            ps.append(math.nan)
            continue
        size = max(1.0, abs(r.get("a") or 0.0), abs(r.get("b") or 0.0))
        if abs(d) <= ROUNDING * size:  # no difference at all, whatever its spread
            ps.append(math.nan)
            continue
        se = (hi - lo) / (2 * Z)
        if se <= ROUNDING * size:  # no spread: a certain difference
            ps.append(0.0)
            continue
        ps.append(2 * (1 - NormalDist().cdf(abs(d) / se)))
    return [bool(x) for x in bh(ps)]


def _describe(m: dict[str, Any]) -> str:
    over = m["config"].get("overrides") or []
    params = [f"{s['name']}.{k}={v:g}" for s in m["strategies"]
              for k, v in (s.get("params") or {}).items()]
    strategies = ",".join(s["name"] for s in m["strategies"])
    return f"{strategies}; overrides: {', '.join(over) or 'none'}" + (
        f"; params: {', '.join(dict.fromkeys(params))}" if params else "")


def _fmt(x: float, unit: str, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    v = x * 100 if unit == "pp" else x
    text = f"{v:+.2f}" if signed else f"{v:.2f}"
    return text + ("%" if unit == "pp" and not signed else "")


def table_rows(c: Comparison) -> list[list[str]]:
    out = []
    for r in c.frame.iter_rows(named=True):
        u = r["unit"]
        pct_like = u == "pp" and not r["metric"].startswith("Component")
        a = _fmt(r["a"], u) if pct_like else _fmt(r["a"], u, u == "pp")
        b = _fmt(r["b"], u) if pct_like else _fmt(r["b"], u, u == "pp")
        diff = (f"{_fmt(r['diff'], u, True)} [{_fmt(r['diff_lo'], u, True)}, "
                f"{_fmt(r['diff_hi'], u, True)}]")
        unpaired = f"[{_fmt(r['unpaired_lo'], u, True)}, {_fmt(r['unpaired_hi'], u, True)}]"
        out.append([r["metric"], r["group"], a, b, diff,
                    unpaired if r["paired"] else "(not paired)", "REAL" if r["real"] else "-"])
    return out


HEADER = ["metric", "group", "A", "B", "B - A [95% paired]", "unpaired interval", "real?"]


def render_text(c: Comparison) -> str:
    rows = [HEADER] + [[shown(x) for x in r] for r in table_rows(c)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = [f"A: {c.a}  ({c.a_label})", f"B: {c.b}  ({c.b_label})",
             f"{c.game}, {c.games:,} games each on the same deals (seed {c.seed}); win shares "
             "and tie rates in %, their differences in percentage points.", ""]
    for i, r in enumerate(rows):
        lines.append("  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    if c.scorecards is not None and c.scorecards.height:
        lines += ["", "Scorecard before (A) and after (B):"]
        lines += [shown(f"  {r['title']}: {r['verdict_a']} -> {r['verdict_b']} ({r['change']})")
                  for r in c.scorecards.iter_rows(named=True)]
    n_real = int(c.frame["real"].sum())
    n = c.frame.height
    lines += ["", f"{n_real} of {n} differences are REAL: their paired interval excludes zero "
              "after Benjamini-Hochberg control of the false discovery rate at 5% over all "
              f"{n} rows (if nothing changed, 95% intervals alone would flag about "
              f"{0.05 * n:.1f} rows by chance)."]
    if c.answer:
        lines += ["", c.answer]
    return "\n".join(lines)


def write_compare(c: Comparison, out: Path) -> list[Path]:
    """compare.csv, compare.md and compare.html into `out` (a new folder, an empty one,
    or one simkit wrote a comparison into)."""
    from reports.files import atomic_write
    from simkit import folders

    out = Path(out)
    folders.check_writable(out, folders.COMPARE)
    try:
        out.mkdir(parents=True, exist_ok=True)
        csv = out / "compare.csv"
        write_csv(c.frame, csv)
        md = out / "compare.md"
        rows = table_rows(c)
        text = [f"# Comparison: {c.game}", "", f"**{c.answer}**", "",
                f"- A: `{c.a}` ({c.a_label})",
                f"- B: `{c.b}` ({c.b_label})", f"- {c.games:,} games each, seed {c.seed}", "",
                "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        text += ["| " + " | ".join(x.replace("|", "\\|").replace("<", "&lt;") for x in r)
                 + " |" for r in rows]
        if c.scorecards is not None and c.scorecards.height:
            text += ["", "## Scorecard before (A) and after (B)", "",
                     "| Target | A | B | Change |", "|---|---|---|---|"]
            text += [f"| {r['title']} | {r['verdict_a']}: {r['estimate_a']} | "
                     f"{r['verdict_b']}: {r['estimate_b']} | {r['change']} |"
                     for r in c.scorecards.iter_rows(named=True)]
        atomic_write(md, "\n".join(text) + "\n")
        page = out / "compare.html"
        atomic_write(page, page_html(c, HEADER, rows))
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write the comparison "
                          f"({on_disk(exc, out)})") from None
    return [csv, md, page]


def page_html(c: Comparison, header: list[str], rows: list[list[str]]) -> str:
    """compare.html: the scorecards before and after, then the table of compare.md."""
    lead = (answer_line(c.answer, tone_of(set(c.scorecards["verdict_b"].to_list())
                                          if c.scorecards is not None else set()))
            + facts_html([("A", f"{c.a} ({c.a_label})"), ("B", f"{c.b} ({c.b_label})"),
                          ("Games", f"{c.games:,} each, seed {c.seed}: the same deals")]))
    metric = (
        '<section id="compare"><h2>Metric by metric</h2>'
        '<p class="intro">B minus A for every metric, with its 95% interval paired by deal '
        "(the same deals in both runs make it much narrower than the unpaired one); "
        "<em>real</em> marks differences that survive the false-discovery-rate control "
        "(Benjamini-Hochberg, 5%).</p>"
        + plain_table(header, [[minus(x) for x in r] for r in rows]) + "</section>")
    return page(f"{c.game}: comparison of two runs", "simkit comparison", lead,
                [_before_after_html(c.scorecards) + metric])


def _before_after_html(cards: pl.DataFrame | None) -> str:
    """The two scorecards, target by target: A's verdict, B's, and what changed."""
    if cards is None or not cards.height:
        return ""
    e = escape
    rows = []
    for r in cards.iter_rows(named=True):
        sides = []
        for side in ("a", "b"):
            v = r[f"verdict_{side}"] or ""
            sides.append(f'<td><span class="pill {verdict_class(v)}">{e(v)}</span><br>'
                         f'<span class="small">{e(minus(r[f"estimate_{side}"] or ""))}'
                         "</span></td>")
        rows.append(f"<tr><td><strong>{e(r['title'])}</strong><br><span class=\"small\">"
                    f"{e(r['target'])}</span></td>{''.join(sides)}<td>{e(r['change'])}</td>"
                    "</tr>")
    return ('<section id="scorecards"><h2>Scorecard before and after</h2><p class="intro">'
            "Each balance target judged on A (before) and on B (after), as in the balance "
            "report.</p><div class=\"scroll\"><table class=\"scorecard\"><thead><tr>"
            "<th>Target</th><th>A (before)</th><th>B (after)</th><th>Change</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div></section>")
