"""The balance search's report (`simkit balance`): the verdict, the change, the scorecard
before and after on fresh deals, the best candidates and the search's trajectory."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import polars as pl

from reports.charts import trajectory_figure
from reports.page import answer_line, escape, page, plain_table, png_base64
from simkit import tomlwrite
from simkit.config import apply_override
from simkit.paramfile import write_text_atomic


def _value(v: Any) -> str:
    return json.dumps(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) \
        else f"{v:g}" if isinstance(v, float) else str(v)


def write_balance(out: Path, search: Any, outcome: Any, verified: dict[str, pl.DataFrame],
                  result: dict[str, Any], targets_source: str) -> list[Path]:
    """patch.toml, balanced.toml, candidates.csv, trajectory.png, balance.md, balance.html."""
    from simkit import balancing as bal

    spec = search.spec
    patch = out / "patch.toml"
    write_text_atomic(patch, bal.patch_text(search, result["winner"]))
    data = copy.deepcopy(search.config.data)
    for k, v in result["changes"].items():
        apply_override(data, f"{k}={json.dumps(v)}")
    balanced = out / "balanced.toml"
    changed = ", ".join(f"{k} = {_value(v)}" for k, v in result["changes"].items())
    write_text_atomic(balanced, tomlwrite.document(
        data, f"{search.game.title}: the config `simkit balance` found (from "
              f"{search.config.source}, with {', '.join(spec.overrides) or 'no --set'}).\n"
              f"Changed: {changed or 'nothing'}."))
    rows = []
    for r in result["candidates"]:
        row = {k: _value(v) for k, v in r["values"].items()}
        row.update({k: v for k, v in r.items() if k != "values"})
        rows.append(row)
    table = pl.DataFrame(rows)
    csv = out / "candidates.csv"
    table.write_csv(csv)
    fig = trajectory_figure(result["trajectory"])
    png = out / "trajectory.png"
    fig.savefig(png, dpi=110)
    md = out / "balance.md"
    write_text_atomic(md, markdown(search, result, verified, targets_source))
    page = out / "balance.html"
    write_text_atomic(page, page_html(search, result, verified, png_base64(fig),
                                      targets_source))
    return [md, page, patch, balanced, csv, png]


def _scorecards(verified: dict[str, pl.DataFrame]) -> list[tuple[str, str, str, str, str]]:
    before = {r["metric"]: r for r in verified["before"].iter_rows(named=True)}
    out = []
    for r in verified["after"].iter_rows(named=True):
        b = before.get(r["metric"], {})
        out.append((r["title"], b.get("verdict", ""), b.get("estimate", ""), r["verdict"],
                    r["estimate"]))
    return out


def _candidates(search: Any, result: dict[str, Any]) -> list[list[str]]:
    out = []
    for i, c in enumerate(result["candidates"], 1):
        change = ", ".join(f"{k} = {_value(v)}" for k, v in c["values"].items()
                           if v != search.start[k]) or "(the original)"
        out.append([str(i), change, str(c["keys_changed"]), f"{c['change_size']:.3f}",
                    f"{c['games']:,}", f"{c['worst_seat']} {c['worst_seat_advantage'] * 100:+.1f}",
                    f"{c['tie_rate'] * 100:.1f}%", f"{c['mean_length']:.2f}",
                    f"{c['misses_by']:.3f}"])
    return out


def _rungs(result: dict[str, Any]) -> list[list[str]]:
    """Each rung's searched targets before and after the change (its player in every seat)."""
    from simkit.balancing import SEARCHED

    out = []
    for r in result.get("rungs") or []:
        for m in SEARCHED:
            if m in r["after"]:
                out.append([f"{r['rung']} (every seat)", f"{r['games']:,}", m,
                            r["before"].get(m, ""), r["before_estimate"].get(m, ""),
                            r["after"][m], r["after_estimate"].get(m, "")])
    return out


RUNG_HEAD = ["Whose play", "Games", "Target", "Before", "Before: estimate", "After",
             "After: estimate"]
CAND_HEAD = ["#", "Change", "Keys", "Size", "Games", "Worst seat (points)", "Ties",
             "Length", "Misses by"]
CARD_HEAD = ["Target", "Before", "Before: estimate", "After", "After: estimate"]


def _intro(search: Any, result: dict[str, Any], targets_source: str) -> list[str]:
    spec = search.spec
    judged = result.get("judged_at")
    return [
        *([f"Candidates judged at {judged['why']}"] if judged else []),
        f"{search.game.title}, {spec.players} players ({', '.join(spec.strategies)}); "
        f"searched {'; '.join(k.describe() for k in search.knobs)}; "
        f"{result['search_games']:,} games of search (seed {spec.seed}), then "
        f"{spec.verify_games:,} fresh games each for the winner and the original "
        f"(seed {result['verify_seed']}, deals the search never played). Targets: "
        f"{targets_source}.",
        "Candidates are compared on the same deals; the best third goes on to three "
        "times the games, each round. A candidate's score is how far its 95% intervals "
        "reach past the targets (0: all inside), plus a small cost for the size of the "
        "change, so the smallest change that passes wins.",
    ]


def markdown(search: Any, result: dict[str, Any], verified: dict[str, pl.DataFrame],
             targets_source: str) -> str:
    def table(head: list[str], rows: list[Any]) -> list[str]:
        return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
                *("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |"
                  for r in rows)]

    lines = ["# Balance search", "", f"**{result['verdict']}**", "", *_intro(
        search, result, targets_source), "", "## Scorecard on fresh deals", "",
        *table(CARD_HEAD, _scorecards(verified)), "",
        *(["## At every skill level", "", f"**{result['across_sentence']}**", "",
           *table(RUNG_HEAD, _rungs(result)), ""] if result.get("rungs") else []),
        "## The best candidates (search games)", "",
        *table(CAND_HEAD, _candidates(search, result)), "",
        "![Search trajectory](trajectory.png)", "",
        "Play the change: `patch.toml` lists it (with the `--set` arguments); "
        "`simkit run ... --config balanced.toml` plays the whole config. The two "
        "verification runs are in `verify_before/` and `verify_after/` (`simkit compare "
        "verify_before verify_after` pairs them deal by deal).", ""]
    return "\n".join(lines)


def page_html(search: Any, result: dict[str, Any], verified: dict[str, pl.DataFrame],
              png: str, targets_source: str) -> str:
    def section(key: str, title: str, inside: str) -> str:
        return f'<section id="{key}"><h2>{escape(title)}</h2>{inside}</section>'

    lead = (answer_line(result["verdict"])
            + "".join(f'<p class="sub">{escape(p)}</p>'
                      for p in _intro(search, result, targets_source)))
    body = [section("scorecard", "Scorecard on fresh deals",
                    plain_table(CARD_HEAD, _scorecards(verified)))]
    if result.get("rungs"):
        body.append(section("rungs", "At every skill level",
                            f'<p class="intro">{escape(result["across_sentence"])}</p>'
                            + plain_table(RUNG_HEAD, _rungs(result))))
    body += [section("candidates", "The best candidates (search games)",
                     plain_table(CAND_HEAD, _candidates(search, result))),
             section("trajectory", "Search trajectory",
                     f'<figure><img alt="search trajectory" src="data:image/png;base64,{png}">'
                     "</figure><p>Play the change: patch.toml lists it; <code>--config "
                     "balanced.toml</code> plays the whole config; verify_before/ and "
                     "verify_after/ are the two runs.</p>")]
    return page("Balance search", "", lead, body) + "\n"
