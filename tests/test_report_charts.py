"""Charts, checked structurally: titles, axis labels, bars, error bars, legends."""

from __future__ import annotations

import matplotlib
import polars as pl
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from reports import charts


def _title(ax) -> str:
    return ax.get_title(loc="left") or ax.get_title()


def _bars(ax) -> int:
    return sum(len(c) for c in ax.containers if isinstance(c, BarContainer))


def _errorbars(ax) -> int:
    return sum(len(c[2][0].get_segments()) for c in ax.containers
               if isinstance(c, ErrorbarContainer))


def test_charts_use_agg_and_no_pyplot_state():
    assert matplotlib.get_backend().lower() == "agg"
    fig = charts.count_bars(pl.DataFrame({"rounds": [4, 5], "share": [0.2, 0.8]}),
                            value="rounds", title="Game length", xlabel="rounds")
    assert isinstance(fig, Figure)
    assert not hasattr(charts, "plt")  # figures are plain Figure objects, never pyplot's


def test_interval_bars():
    frame = pl.DataFrame({"name": ["Bat's Heart", "Crickets", "Swamp Moss"],
                          "effect": [0.08, -0.01, 0.0], "effect_lo": [0.07, -0.03, -0.01],
                          "effect_hi": [0.09, 0.01, 0.01]})
    fig = charts.interval_bars(frame, label="name", value="effect", title="Ingredient value",
                               xlabel="win share with minus without (points)", band=5,
                               signed=True)
    ax = fig.axes[0]
    assert _title(ax) == "Ingredient value"
    assert ax.get_xlabel() == "win share with minus without (points)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Bat's Heart", "Crickets",
                                                            "Swamp Moss"]
    assert _bars(ax) == 3 and _errorbars(ax) == 3
    heights = [p.get_width() for p in ax.containers[0]]
    assert heights == [8.0, -1.0, 0.0]  # fractions shown as points, top to bottom
    colours = [p.get_facecolor() for p in ax.containers[0]]
    assert colours[0] != colours[1]  # outside the +-5 band: highlighted
    assert ax.get_legend() is not None


def test_interval_bars_with_reference_and_missing_estimate():
    frame = pl.DataFrame({"strategy": ["planner", "greedy"], "win_share": [0.45, None],
                          "win_share_lo": [0.44, None], "win_share_hi": [0.46, None]},
                         schema_overrides={"win_share": pl.Float64,
                                           "win_share_lo": pl.Float64,
                                           "win_share_hi": pl.Float64})
    fig = charts.interval_bars(frame, label="strategy", value="win_share", title="Win share",
                               xlabel="win share (%)", reference=0.25,
                               reference_label="fair share 25%")
    ax = fig.axes[0]
    assert _bars(ax) == 2 and _errorbars(ax) == 1
    assert any("no estimate" in t.get_text() for t in ax.texts)
    assert any(line.get_xdata()[0] == 25.0 for line in ax.get_lines())


def test_distribution_lines_one_line_per_group():
    hist = pl.DataFrame({"strategy": ["a"] * 3 + ["b"] * 2, "score": [1, 2, 3, 2, 3],
                         "share": [0.2, 0.5, 0.3, 0.5, 0.5]})
    fig = charts.distribution_lines(hist, group="strategy", value="score",
                                    title="Score distribution", xlabel="final score")
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 2
    assert _title(ax) == "Score distribution" and ax.get_xlabel() == "final score"
    assert ax.get_ylabel() == "share of players (%)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]


def test_count_and_grouped_bars():
    fig = charts.count_bars(pl.DataFrame({"margin": [0, 1, 2, 5], "share": [.1, .4, .3, .2]}),
                            value="margin", title="Margin of victory", xlabel="lead",
                            mean=1.8)
    ax = fig.axes[0]
    assert _bars(ax) == 4 and ax.get_ylabel() == "share of games (%)"
    frame = pl.DataFrame({"seat": ["1st", "1st", "2nd", "2nd"], "strategy": ["a", "b"] * 2,
                          "win_share": [0.3, 0.2, 0.25, 0.25],
                          "win_share_lo": [0.28, 0.18, 0.2, 0.2],
                          "win_share_hi": [0.32, 0.22, 0.3, 0.3]})
    fig = charts.grouped_bars(frame, category="seat", group="strategy", value="win_share",
                              title="By seat and strategy", xlabel="seat", ylabel="win share",
                              reference=0.25, reference_label="fair share")
    ax = fig.axes[0]
    assert _bars(ax) == 4 and _errorbars(ax) == 4
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1st", "2nd"]
    assert _title(ax) == "By seat and strategy" and ax.get_ylabel() == "win share"


def test_names_with_dollar_signs_are_plain_text():
    """A strategy called "$\\macro$" (a plug-in, a NAME@FILE token) is drawn as written,
    not parsed as matplotlib's TeX, which failed on unknown macros."""
    import io

    frame = pl.DataFrame({"name": ["$\\macro$", "b$x$"], "v": [0.3, 0.2], "v_lo": [0.2, 0.1],
                          "v_hi": [0.4, 0.3]})
    fig = charts.interval_bars(frame, label="name", value="v", title="t", xlabel="x")
    fig.savefig(io.BytesIO(), format="png")
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "$\\macro$" in labels


def overlaps(fig) -> list[str]:
    """Tick labels that overlap each other or leave the figure, measured by matplotlib's
    renderer (pixel extents after layout)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)  # a bare Figure has no renderer until it has a canvas
    canvas.draw()
    renderer = canvas.get_renderer()
    bounds = fig.bbox
    problems = []
    for ax in fig.axes:
        for axis, ticks, labels, lim in (
                ("x", ax.get_xticks(), ax.get_xticklabels(), sorted(ax.get_xlim())),
                ("y", ax.get_yticks(), ax.get_yticklabels(), sorted(ax.get_ylim()))):
            boxes = [(t.get_text(), t.get_window_extent(renderer))
                     for at, t in zip(ticks, labels, strict=True)
                     if t.get_visible() and t.get_text() and lim[0] <= at <= lim[1]]
            for i, (a, box_a) in enumerate(boxes):
                for b, box_b in boxes[i + 1:]:
                    if box_a.shrunk(0.98, 0.98).overlaps(box_b.shrunk(0.98, 0.98)):
                        problems.append(f"{axis} labels {a!r} and {b!r} overlap")
                if (box_a.x0 < bounds.x0 - 1 or box_a.x1 > bounds.x1 + 1
                        or box_a.y0 < bounds.y0 - 1 or box_a.y1 > bounds.y1 + 1):
                    problems.append(f"{axis} label {a!r} leaves the figure")
    return problems


LONG = ["planner@runs/tuned/cauldron_master_planner_v2.toml", "greedy",
        "strategies/examples/cauldron_master.py:choose", "random",
        "planner@configs/tuned/another_very_long_parameter_file.toml"]


def test_a_tournament_heat_map_of_long_names_has_room_for_its_labels():
    import numpy as np

    from reports.charts import win_heat_map

    k = len(LONG)
    share = np.full((k, k), 0.5)
    np.fill_diagonal(share, np.nan)
    fig = win_heat_map(LONG, share, "Row ahead of column (%)")
    assert overlaps(fig) == []
    ax = fig.axes[0]
    assert ax.get_window_extent().width > 0.3 * fig.bbox.width  # the matrix is not squeezed
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "planner@cauldron_master_pla\u2026"


def test_bar_and_line_charts_of_long_names_keep_their_labels_apart():
    frame = pl.DataFrame({"strategy": LONG, "win_share": [0.3, 0.2, 0.2, 0.1, 0.2],
                          "win_share_lo": [0.28, 0.18, 0.18, 0.08, 0.18],
                          "win_share_hi": [0.32, 0.22, 0.22, 0.12, 0.22]})
    assert overlaps(charts.interval_bars(frame, label="strategy", value="win_share",
                                         title="Win share", xlabel="%")) == []
    long = pl.DataFrame({"witch": [w for w in ["Apprentice", "Mage", "Shaman", "Goddess",
                                               "Druid", "Alchemist"] for _ in LONG],
                         "strategy": LONG * 6, "win_share": [0.2] * 30,
                         "win_share_lo": [0.1] * 30, "win_share_hi": [0.3] * 30})
    fig = charts.grouped_bars(long, category="strategy", group="witch", value="win_share",
                              title="By strategy", xlabel="strategy", ylabel="win share (%)")
    assert overlaps(fig) == []
    hist = pl.DataFrame({"strategy": [s for s in LONG for _ in range(3)],
                         "score": [1, 2, 3] * 5, "share": [0.2, 0.5, 0.3] * 5})
    fig = charts.distribution_lines(hist, group="strategy", value="score", title="Scores",
                                    xlabel="score")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert all(len(t) <= charts.LABEL_WIDTH for t in legend) and overlaps(fig) == []


def test_sweep_heat_maps_centre_signed_values_share_a_range_and_count_whole():
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    from reports.charts import heat_map

    values = np.array([[-7.7, -7.9], [2.2, 3.6]])
    marks = np.full((2, 2), "U", dtype=object)
    signed = heat_map(values, marks, rows=["9", "11"], cols=["0.1", "0.5"], row_label="a",
                      col_label="b", title="Seat advantage", fmt="{:.1f}",
                      limits=(-20.0, 5.0), signed=True)
    image = signed.axes[0].images[0]
    assert isinstance(image.norm, TwoSlopeNorm) and image.norm.vcenter == 0
    assert (image.norm.vmin, image.norm.vmax) == (-20.0, 20.0)  # symmetric, shared limits
    assert image.get_cmap().name == "RdBu_r"
    shared = heat_map(values + 10, marks, rows=["9", "11"], cols=["0.1", "0.5"],
                      row_label="a", col_label="b", title="Score", fmt="{:.1f}",
                      limits=(0.0, 30.0))
    assert (shared.axes[0].images[0].norm.vmin, shared.axes[0].images[0].norm.vmax) == (0, 30)
    counts = heat_map(np.array([[1.0, 2.0], [3.0, 4.0]]), marks, rows=["9", "11"],
                      cols=["0.1", "0.5"], row_label="a", col_label="b",
                      title="Targets passed (of 4)", fmt="{:.0f}", limits=(0.0, 4.0),
                      counts=True)
    ticks = counts.axes[1].get_yticks()
    assert all(float(t).is_integer() for t in ticks)
    assert overlaps(counts) == []


def test_no_figure_of_a_real_report_overlaps_its_labels_with_long_strategy_names(cm,
                                                                                 tmp_path):
    """Every chart of a balance report whose strategies are tuned files with long paths."""
    import shutil
    from pathlib import Path

    from reports.build import build
    from reports.document import Chart
    from reports.hooks import hooks_for
    from reports.load import open_run
    from reports.targets import load_targets
    from simkit import engine

    tuned = Path(__file__).resolve().parent.parent / "configs/tuned/cauldron_master_planner.toml"
    deep = tmp_path / "a_rather_long_folder_name" / "of_tuned_parameter_files"
    deep.mkdir(parents=True)
    long_file = deep / "cauldron_master_planner_tuned_against_three_greedy.toml"
    shutil.copy(tuned, long_file)
    lineup = (f"planner@{long_file}", "greedy", "planner", "random")
    engine.run(engine.RunSpec("cauldron-master", 4, lineup, 400, 3), tmp_path / "run")
    report = build(open_run(tmp_path / "run"), load_targets(None, "cauldron-master"),
                   hooks_for("cauldron-master"))
    figures = [b for s in report.sections for b in s.blocks if isinstance(b, Chart)]
    assert len(figures) >= 10
    problems = {c.title: overlaps(c.figure) for c in figures}
    assert {t: p for t, p in problems.items() if p} == {}
