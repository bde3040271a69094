"""Charts: metric frame in, matplotlib Figure out. No files, no pyplot state (Agg only).

Every chart has a title, labelled axes and, where there is an estimate, its 95% interval
as an error bar. Labels come from the metric frames, which already hold the game's own
names (e.g. "Bat's Heart", "1st player"), never column names.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

if TYPE_CHECKING:
    import matplotlib
    import matplotlib.ticker as mticker
    from matplotlib.colors import Normalize, TwoSlopeNorm
    from matplotlib.figure import Figure

_drawn: ContextVar[bool] = ContextVar("drawn", default=True)


@contextmanager
def undrawn() -> Iterator[None]:
    """Charts asked for in this block are not drawn (they come as None), and matplotlib
    is not loaded for them: a summary-only run builds the report over a sample only to
    learn its queries (`reports/plan.py`), which drew 15 charts and loaded matplotlib
    (about a second of CPU together) for nothing."""
    token = _drawn.set(False)
    try:
        yield
    finally:
        _drawn.reset(token)


def _load_matplotlib() -> None:
    """matplotlib's names, loaded at the first chart drawn, not at import (half a
    second)."""
    global matplotlib, mticker, Normalize, TwoSlopeNorm, Figure
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.ticker as mticker
    from matplotlib.colors import Normalize, TwoSlopeNorm
    from matplotlib.figure import Figure


INK = "#1f2933"
MUTED = "#7b8794"
GRID = "#e4e7eb"
BLUE = "#2f6f9f"
RED = "#c23b22"
BAND = "#e3f1e6"
PALETTE = ["#2f6f9f", "#d9822b", "#3c9d5d", "#8e5ea2", "#c23b22", "#6b7c8f", "#b59a2c",
           "#2a9d8f"]
WIDTH = 8.9  # inches; at 110 dpi about the width of the report column (980 px)

STYLE = {
    "font.size": 10, "axes.titlesize": 12, "axes.titleweight": "bold", "axes.titlepad": 10,
    "axes.labelsize": 10, "axes.labelcolor": INK, "axes.edgecolor": MUTED,
    "axes.spines.top": False, "axes.spines.right": False, "xtick.color": INK,
    "ytick.color": INK, "text.color": INK, "axes.titlelocation": "left",
    "font.family": "DejaVu Sans",
    "text.parse_math": False,  # names are plain text: "$x$" in a strategy name is not TeX
}


LABEL_WIDTH = 28  # characters of a name on a chart (tables keep the whole name)


def short_label(name: Any, width: int = LABEL_WIDTH) -> str:
    """A name as a chart shows it: a strategy token's file reduced to its name
    (`planner@runs/tuned/cm.toml` -> `planner@cm`, `path/my.py:choose` -> `my.py:choose`),
    and anything longer than `width` cut with an ellipsis."""
    text = str(name)
    base, at, params = text.partition("@")
    if ":" in base and base.split(":", 1)[0].endswith(".py"):
        file, _, fn = base.rpartition(":")
        base = f"{file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{fn}"
    if at:
        stem = params.replace(chr(92), "/").rsplit("/", 1)[-1]
        params = stem[:-5] if stem.endswith(".toml") else stem
    text = f"{base}{at}{params}"
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def styled(fn: Callable[..., Figure]) -> Callable[..., Figure]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Figure:
        if not _drawn.get():
            return None  # type: ignore[return-value]  # `undrawn`: nobody looks at it
        _load_matplotlib()
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)
    return wrapper


def _scaled(frame: pl.DataFrame, key: str, scale: float) -> np.ndarray:
    return frame[key].cast(pl.Float64).fill_null(math.nan).to_numpy() * scale


@styled
def interval_bars(frame: pl.DataFrame, *, label: str, value: str, title: str, xlabel: str,
                  scale: float = 100.0, reference: float | None = None,
                  reference_label: str | None = None, band: float | None = None,
                  unit: str = "", signed: bool = False, digits: int = 1) -> Figure:
    """Horizontal bars of `value` per row (top to bottom in frame order), with the interval
    `<value>_lo`..`<value>_hi` as error bars.

    `reference` draws a dashed line (e.g. the fair share); `band` shades +-band around zero
    (a target) and colours red the bars whose whole interval lies outside it. Values are
    multiplied by `scale` (100: fractions shown as percent or percentage points).
    """
    labels = [short_label(x) for x in frame[label].to_list()]
    est = _scaled(frame, value, scale)
    lo = _scaled(frame, f"{value}_lo", scale) if f"{value}_lo" in frame.columns else est
    hi = _scaled(frame, f"{value}_hi", scale) if f"{value}_hi" in frame.columns else est
    n = len(labels)
    fig = Figure(layout="constrained", figsize=(WIDTH, 1.2 + 0.36 * max(n, 2)))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    outside = np.zeros(n, bool)
    if band is not None:
        ax.axvspan(-band, band, color=BAND, zorder=0, label=f"target ±{band:g}")
        outside = (lo > band) | (hi < -band)
    colours = [RED if o else BLUE for o in outside]
    shown = np.nan_to_num(est)
    ax.barh(y, shown, color=colours, height=0.62, zorder=2)
    err = np.vstack([np.clip(est - lo, 0, None), np.clip(hi - est, 0, None)])
    ok = np.isfinite(est)
    ax.errorbar(est[ok], y[ok], xerr=err[:, ok], fmt="none", ecolor=INK, elinewidth=1.1,
                capsize=3, zorder=3)
    if reference is not None:
        ax.axvline(reference * scale, color=INK, ls="--", lw=1, zorder=4,
                   label=reference_label)
    if signed or band is not None:
        ax.axvline(0, color=MUTED, lw=0.8, zorder=1)
    span = np.nanmax(np.abs(np.concatenate([lo[ok], hi[ok], [0.0]]))) if ok.any() else 1.0
    pad = 0.012 * (span if signed or band is not None else np.nanmax(np.r_[hi[ok], 1e-9]))
    for yi, e, l_, h in zip(y, est, lo, hi, strict=True):
        if not math.isfinite(e):
            ax.text(0, yi, "  no estimate", va="center", fontsize=8.5, color=MUTED)
            continue
        text = f"{e:+.{digits}f}{unit}" if signed else f"{e:.{digits}f}{unit}"
        text = text.replace("-", "\u2212")
        right = e >= 0 or not signed
        ax.text((h + pad) if right else (l_ - pad), yi, text, va="center",
                ha="left" if right else "right", fontsize=8.5, color=INK)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", color=GRID, zorder=0)
    ax.tick_params(axis="y", length=0)
    if signed or band is not None:
        lim = max(span * 1.25, (band or 0) * 1.4, 1e-9)
        ax.set_xlim(-lim, lim)
    else:
        right = np.nanmax(np.r_[hi[ok], (reference or 0) * scale, 1e-9])
        ax.set_xlim(0, right * 1.18)
    if reference_label or band is not None:
        ax.legend(loc="lower right", fontsize=8.5, frameon=False)
    return fig


@styled
def distribution_lines(hist: pl.DataFrame, *, group: str, value: str, title: str,
                       xlabel: str, ylabel: str = "share of players",
                       order: Sequence[str] | None = None) -> Figure:
    """One line per group: the share of each `value` (a `histogram` frame with a group)."""
    fig = Figure(layout="constrained", figsize=(WIDTH, 3.6))
    ax = fig.add_subplot()
    groups = list(order) if order is not None else list(dict.fromkeys(hist[group].to_list()))
    few = hist[value].n_unique() <= 15  # few values: points joined by lines
    for i, g in enumerate(groups):
        part = hist.filter(pl.col(group) == g).sort(value)
        style: dict[str, Any] = {"marker": "o", "ms": 4} if few else {"drawstyle": "steps-mid"}
        ax.plot(part[value].to_numpy(), part["share"].to_numpy() * 100, lw=1.8,
                color=PALETTE[i % len(PALETTE)], label=short_label(g), **style)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel + " (%)")
    ax.grid(color=GRID)
    ax.set_ylim(bottom=0)
    if few:
        ax.xaxis.set_major_locator(mticker.MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    ax.legend(fontsize=8.5, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


@styled
def count_bars(hist: pl.DataFrame, *, value: str, title: str, xlabel: str,
               ylabel: str = "share of games", mean: float | None = None) -> Figure:
    """Vertical bars: the share of each `value` (a `histogram` frame without a group)."""
    fig = Figure(layout="constrained", figsize=(WIDTH, 3.2))
    ax = fig.add_subplot()
    x = hist[value].to_numpy()
    share = hist["share"].to_numpy() * 100
    ax.bar(x, share, width=0.8, color=BLUE, zorder=2)
    if mean is not None:
        ax.axvline(mean, color=INK, ls="--", lw=1, label=f"mean {mean:.2f}", zorder=3)
        ax.legend(fontsize=8.5, frameon=False)
    for xi, s in zip(x, share, strict=True):
        if len(x) <= 16 and s >= 0.05:  # on a white ground: the mean line passes behind
            ax.text(xi, s, f"{s:.1f}%" if s >= 1 else f"{s:.2f}%", ha="center", va="bottom",
                    fontsize=8, color=INK, zorder=4,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6})
    # The axis spans the values a bar can be seen for (at least 0.05% of games); the rare
    # values beyond are counted in the axis label rather than stretching it.
    seen = x[share >= 0.05] if (share >= 0.05).any() else x
    beyond = float(share[(x < seen.min()) | (x > seen.max())].sum()) if len(x) else 0.0
    if len(x):
        ax.set_xlim(seen.min() - 0.6, seen.max() + 0.6)
    ax.set_title(title)
    ax.set_xlabel(xlabel + (f" (beyond the axis: {beyond:.2f}% of games)" if beyond else ""))
    ax.set_ylabel(ylabel + " (%)")
    ax.xaxis.set_major_locator(mticker.MaxNLocator(integer=True))
    ax.grid(axis="y", color=GRID, zorder=0)
    return fig


@styled
def grouped_bars(frame: pl.DataFrame, *, category: str, group: str, value: str, title: str,
                 xlabel: str, ylabel: str, scale: float = 100.0,
                 reference: float | None = None, reference_label: str | None = None,
                 order: Sequence[str] | None = None) -> Figure:
    """Vertical bars of `value` by `category`, one colour per `group`, with intervals."""
    cats = list(dict.fromkeys(frame[category].to_list()))
    groups = list(order) if order is not None else list(dict.fromkeys(frame[group].to_list()))
    fig = Figure(layout="constrained", figsize=(WIDTH, 3.6))
    ax = fig.add_subplot()
    width = 0.8 / max(len(groups), 1)
    for j, g in enumerate(groups):
        part = frame.filter(pl.col(group) == g)
        pos = {c: i for i, c in enumerate(cats)}
        xs = np.array([pos[c] for c in part[category].to_list()], float) + (j - (len(groups) - 1)
                                                                            / 2) * width
        est = _scaled(part, value, scale)
        lo = _scaled(part, f"{value}_lo", scale)
        hi = _scaled(part, f"{value}_hi", scale)
        ax.bar(xs, est, width=width * 0.92, color=PALETTE[j % len(PALETTE)],
               label=short_label(g), zorder=2)
        ok = np.isfinite(lo) & np.isfinite(hi)
        err = np.clip(np.vstack([est - lo, hi - est]), 0, None)
        ax.errorbar(xs[ok], est[ok], yerr=err[:, ok], fmt="none",
                    ecolor=INK, elinewidth=1, capsize=2.5, zorder=3)
    if reference is not None:
        ax.axhline(reference * scale, color=INK, ls="--", lw=1, label=reference_label, zorder=4)
    names = [short_label(c) for c in cats]
    # about 0.08 in a character: the longest name against its category's share of the width
    crowded = max((len(n) for n in names), default=0) * 0.08 > (WIDTH - 1) / max(len(cats), 1)
    ax.set_xticks(range(len(cats)), names, rotation=90 if crowded else 0)  # upright: apart
    ax.set_title(title)
    ax.set_xlabel(xlabel, labelpad=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", color=GRID, zorder=0)
    ax.legend(fontsize=8.5, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


@styled
def heat_map(values: np.ndarray, marks: np.ndarray, *, rows: Sequence[str],
             cols: Sequence[str], row_label: str, col_label: str, title: str,
             fmt: str, limits: tuple[float, float] | None = None,
             signed: bool = False, counts: bool = False) -> Figure:
    """A grid of two varied keys: colour = estimate, text = estimate and its verdict.

    `limits` is the colour range (shared by every map of one metric, so that one colour
    means one value across them); `signed` values (an advantage, an effect) get a
    diverging map centred on zero, others a sequential one; `counts` get whole ticks."""
    fig = Figure(layout="constrained", figsize=(min(WIDTH, 2.2 + 1.0 * len(cols)),
                                                1.6 + 0.5 * len(rows)))
    ax = fig.add_subplot()
    masked = np.ma.masked_invalid(values)
    finite = values[np.isfinite(values)]
    lo, hi = limits if limits is not None else (
        (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0))
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    if signed:
        span = max(abs(lo), abs(hi), 1e-9)
        norm = TwoSlopeNorm(0.0, -span, span)
        im = ax.imshow(masked, cmap="RdBu_r", norm=norm, aspect="auto", origin="lower")
    else:
        norm = Normalize(lo, hi)
        im = ax.imshow(masked, cmap="viridis", norm=norm, aspect="auto", origin="lower")
    bar = fig.colorbar(im, ax=ax, shrink=0.9)
    if counts:
        bar.locator = mticker.MaxNLocator(integer=True)
        bar.update_ticks()
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            text = "—" if not math.isfinite(v) else fmt.format(v)
            text += {"P": " ✓", "F": " ✗", "U": " ?"}.get(str(marks[i, j]), "")
            shade = norm(v) if math.isfinite(v) else 1.0
            dark = (abs(shade - 0.5) > 0.3) if signed else shade < 0.5
            ax.text(j, i, text, ha="center", va="center", fontsize=8,
                    color="white" if dark else INK)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(col_label)
    ax.set_ylabel(row_label)
    ax.set_title(title)
    return fig


@styled
def win_heat_map(names: list[str], share: np.ndarray, title: str) -> Figure:
    """share[i, j]: how often row i finished ahead of column j; 0.5 is even (white)."""
    k = len(names)
    fig = Figure(layout="constrained", figsize=(min(WIDTH, 2.8 + 1.1 * k), 1.8 + 0.6 * k))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(share * 100), cmap="RdBu",
                   norm=TwoSlopeNorm(50, 0, 100), aspect="auto")
    fig.colorbar(im, ax=ax, shrink=0.9, label="% of games row ahead of column")
    for i in range(k):
        for j in range(k):
            v = share[i, j]
            text = "—" if not math.isfinite(v) else f"{v * 100:.1f}"
            strong = math.isfinite(v) and abs(v - 0.5) > 0.3
            ax.text(j, i, text, ha="center", va="center", fontsize=9,
                    color="white" if strong else INK)
    shown = [short_label(n) for n in names]
    crowded = k > 3 or max(len(n) for n in shown) > 10
    ax.set_xticks(range(k), shown, rotation=90 if crowded else 0)  # upright: no overlap
    ax.set_yticks(range(k), shown)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    ax.set_title(title)
    return fig


@styled
def trajectory_figure(trajectory: list[Any]) -> Figure:
    """Each evaluation's score (how far its intervals miss the targets, plus the change's
    cost) against the games played so far, and the best so far."""
    fig = Figure(figsize=(WIDTH, 3.6))
    ax = fig.add_subplot()
    xs = [t[0] for t in trajectory]
    ax.scatter(xs, [t[1] for t in trajectory], s=12, color=MUTED, label="candidate")
    ax.step(xs, [t[2] for t in trajectory], where="post", color=BLUE, label="best so far")
    ax.set_yscale("symlog", linthresh=0.05)
    ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel("games played by the search")
    ax.set_ylabel("score (0 = every target met)")
    ax.set_title("Search trajectory")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig
