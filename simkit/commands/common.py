"""What the commands share: click settings, common options, small helpers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from simkit.words import shown

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def analysis(spec: Any) -> Any:
    """What the reports lend a --summary-only or --until-sure run (the engine never
    imports them): `reports/analysis.py`. None for any other run."""
    if spec.until_sure is None and not spec.summary_only:
        return None
    from reports.analysis import ANALYSIS

    return ANALYSIS


SUMMARY_COLUMNS = {  # summary.csv's column -> (heading, how a value is shown)
    "strategy": ("strategy", str),
    "seat": ("seat", str),
    "games": ("games", lambda x: f"{x:,}"),
    "win_share": ("win share", lambda x: f"{x * 100:.1f}%"),
    "mean_score": ("mean score", lambda x: f"{x:.1f}"),
    "mean_rounds": ("mean rounds", lambda x: f"{x:.2f}"),
}


def summary_text(frame: Any) -> str:
    """summary.csv's table for the terminal: shares in percent, means rounded, each
    column right-aligned (without pandas, which a run never otherwise loads); names as
    plain text."""
    columns = [[heading] + [shown(show(v)) for v in frame[name].to_list()]
               for name, (heading, show) in SUMMARY_COLUMNS.items()]
    widths = [max(len(cell) for cell in column) for column in columns]
    return "\n".join("  ".join(column[i].rjust(width)
                               for column, width in zip(columns, widths, strict=True))
                     for i in range(len(columns[0])))


def split(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


set_option = click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                          help="Override a config value, e.g. --set supply.size.4=10 "
                               "(repeatable; `simkit show GAME` lists the keys).")
config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False),
                             default=None, help="Use this config file instead of the game's "
                             "own (configs/<game>.toml, or a game folder's config.toml), e.g. "
                             "with the published card list.")
param_option = click.option("--param", "params", multiple=True, metavar="STRATEGY.PARAM=VALUE",
                            help="Set a strategy parameter, e.g. --param planner.discount=0.5.")
stronger_option = click.option(
    "--stronger", type=click.Path(path_type=Path), default=None, metavar="OTHER_RUN",
    help="Add a section comparing the seat advantage and top component effects with "
         "OTHER_RUN: the same game and player count at another skill level.")
summary_option = click.option("--summary-only", is_flag=True,
                              help="Keep exact totals of what the report reads (summary.json, "
                                   "a few hundred KB) instead of one row per game and seat; "
                                   "for very long runs. `simkit report` works from either.")


def stop_options(f: Any) -> Any:
    """--until-sure and the balance targets it (and --report) judge against."""
    f = click.option("--set-target", "set_targets", multiple=True,
                     metavar="METRIC.SETTING=VALUE",
                     help="Override a target for --until-sure and --report (repeatable).")(f)
    f = click.option("--targets", "targets_path",
                     type=click.Path(path_type=Path, dir_okay=False), default=None,
                     help="Balance targets for --until-sure and --report "
                          "(default: configs/targets.toml).")(f)
    f = click.option("--precision", type=float, default=None,
                     help="With --until-sure: stop when every seat-advantage and strategy "
                          "win-share interval is within this share, e.g. 0.01 = ±1 point.")(f)
    return click.option("--until-sure", is_flag=True,
                        help="Play in rounds (10,000 games, doubling, up to --games) and stop "
                             "once every balance-target verdict is decided (or, with "
                             "--precision, every interval is narrow enough); valid under "
                             "repeated looks.")(f)


def lineup_options(f: Any) -> Any:
    f = click.option("--strategies", "strategy_list", default="greedy", show_default=True,
                     help="Comma-separated strategy per seat (seat 0 first), or one for all.")(f)
    f = click.option("--players", type=int, default=4, show_default=True,
                     help="Number of players.")(f)
    f = click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")(f)
    return f
