"""Component value over the skill ladder (`simkit value --ladder`): each rung's value run
side by side, "worth to <rung> players", and the components whose CAUSAL verdict changes
with skill (a decided verdict at one rung, another decided verdict at another)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from reports.page import answer_line, escape, page, plain_table
from reports.value import frame_of, read_value
from simkit import causal
from simkit.paramfile import write_text_atomic

DECIDED = (causal.STRONGER, causal.WEAKER, causal.AVERAGE)


def per_rung(folders: list[tuple[str, Path]]) -> pl.DataFrame:
    """One row per component and rung: its verdict and worth against its kind's average
    (points of win share, with the 95% interval), from each rung's value.json."""
    parts = []
    for order, (rung, folder) in enumerate(folders):
        frame = frame_of(read_value(folder)).filter(~pl.col("a_a"))
        parts.append(frame.select(
            "kind", "name", "verdict", *[(pl.col(c) * 100).alias(c) for c in
                                         ("vs_average", "vs_average_lo", "vs_average_hi")])
            .with_columns(pl.lit(rung).alias("rung"), pl.lit(order).alias("order")))
    return pl.concat(parts, how="diagonal_relaxed")


def changes_with_skill(rows: pl.DataFrame) -> pl.DataFrame:
    """The components given two different decided verdicts at two rungs (a verdict not
    yet sure, or not seen, contradicts nothing): kind, name, and where it changes."""
    out = []
    for (kind, name), part in rows.sort("order").group_by(["kind", "name"],
                                                          maintain_order=True):
        decided = [(r["rung"], r["verdict"]) for r in part.iter_rows(named=True)
                   if r["verdict"] in DECIDED]
        if len({v for _, v in decided}) > 1:
            out.append({"kind": kind, "name": name,
                        "verdicts": ", ".join(f"{v} to {rung} players" for rung, v in decided)})
    return pl.DataFrame(out, schema={"kind": pl.String, "name": pl.String,
                                     "verdicts": pl.String})


def _cell(r: dict) -> str:
    if r["vs_average"] is None or r["verdict"] == causal.NOT_SEEN:
        return r["verdict"]
    return (f"{r['verdict']}: {r['vs_average']:+.1f} [{r['vs_average_lo']:+.1f}, "
            f"{r['vs_average_hi']:+.1f}]")


def write_value_ladder(out: Path, folders: list[tuple[str, Path]]) -> tuple[Path, str]:
    """value_ladder.md and value_ladder.html in `out`; returns the page and the sentence
    naming the components whose verdict changes with skill."""
    rows = per_rung(folders)
    rungs = [rung for rung, _ in folders]
    changed = changes_with_skill(rows)
    sentence = ("Verdicts that change with skill: " + "; ".join(
        f"{r['name']} ({r['kind'].lower()}): {r['verdicts']}"
        for r in changed.iter_rows(named=True)) + "." if changed.height else
        "No component's verdict changes with skill (where decided at two rungs or more).")
    head = ["Component", "Kind", *(f"Worth to {rung} players (every seat)" for rung in rungs)]
    table = []
    for (kind, name), part in rows.group_by(["kind", "name"], maintain_order=True):
        cells = {r["rung"]: _cell(r) for r in part.iter_rows(named=True)}
        table.append([name, kind, *(cells.get(rung, "") for rung in rungs)])
    intro = ("Each rung's value run plays the same deals (one seed) with that rung's player "
             "in every seat; a cell is the component's verdict and its worth against its "
             "kind's average, in points of win share [95% interval], to those players. A "
             "verdict changes with skill when two rungs decide it differently (stronger, "
             "weaker, about average); 'not yet sure' contradicts nothing. Each rung's own "
             "page: " + ", ".join(f"{f.name}/value.html" for _, f in folders) + ".")
    md = ["# What each component is worth, at every skill level", "", f"**{sentence}**", "",
          intro, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
          *("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in table), ""]
    write_text_atomic(out / "value_ladder.md", "\n".join(md))
    path = out / "value_ladder.html"
    write_text_atomic(path, page(
        "Value at every skill level", "",
        answer_line(sentence) + f'<p class="sub">{escape(intro)}</p>',
        [plain_table(head, table)],
        heading="What each component is worth, at every skill level") + "\n")
    return path, sentence
