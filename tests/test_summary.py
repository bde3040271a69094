"""--summary-only: exact per-chunk totals, merged in any order, give the report of the rows."""

from __future__ import annotations

import io
import json
import random
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

from reports import make_report
from reports.analysis import ANALYSIS
from reports.hooks import _REGISTRY, register
from reports.load import open_run
from reports.plan import summary_plan
from simkit import engine
from simkit.engine import RunSpec, prepare
from simkit.errors import SimkitError
from simkit.results import CHUNK_DIR, RUN_FILE, SUMMARY_DATA_FILE, SeatTotals, long_table
from simkit.stopping import StopRule
from simkit.summary import Aggregate, merge_all, win_scale
from simkit.totals import reduce


def run(*args, **kwargs):
    """engine.run with the report's analysis, as the CLI passes it."""
    return engine.run(*args, analysis=ANALYSIS, **kwargs)

CM = RunSpec("cauldron-master", 4, ("planner", "greedy", "random", "greedy"), 4000, 11)
CARNUTA = RunSpec("carnuta", 3, ("planner", "greedy", "random"), 3000, 4)
INORI = RunSpec("inori", 4, ("planner", "greedy", "random", "greedy"), 2000, 6)


def summary_of(spec: RunSpec) -> RunSpec:
    return RunSpec(**{**spec.__dict__, "summary_only": True})


def rows_of(spec: RunSpec) -> tuple[pl.DataFrame, list, int]:
    """(rows of the whole run, the queries a summary keeps, games per deal)."""
    p = prepare(summary_of(spec))
    columns = p.game.simulate(p.compiled, p.lineup, spec.seed, 0, spec.games)
    frame = pl.from_arrow(long_table(columns, 0, p.lineup.rotate, list(p.lineup.names),
                                     p.game.categories(p.compiled)))
    return frame, summary_plan(p), spec.players if p.lineup.rotate else 1


def chunks(frame: pl.DataFrame, bounds: list[int]) -> list[pl.DataFrame]:
    return [frame.filter(pl.col("game").is_between(a, b - 1))
            for a, b in zip(bounds, bounds[1:], strict=False)]


@pytest.fixture(scope="module")
def cm_rows(cm):
    return rows_of(CM)


# ------------------------------------------------------------------ merging
def test_chunks_merged_in_any_order_give_the_totals_of_the_whole_run(cm_rows):
    frame, queries, rotation = cm_rows
    scale = win_scale(CM.players)
    whole = reduce(frame, queries, scale=scale, rotation=rotation).fold_all()
    # Boundaries that split deals (4 games each) between chunks, and a chunk of one game.
    parts = [reduce(c, queries, scale=scale, rotation=rotation)
             for c in chunks(frame, [0, 1, 999, 1002, 2501, 2502, 3333, 4000])]
    assert any(p.open_deals for p in parts)
    expected = json.dumps(whole.to_json())
    rng = random.Random(3)
    for _ in range(4):
        order = [Aggregate.from_json(p.to_json()) for p in parts]  # fresh copies
        rng.shuffle(order)
        merged = merge_all(order)
        assert merged is not None
        assert json.dumps(merged.fold_all().to_json()) == expected
    # A tree of merges (pairs, then pairs of pairs) gives the same totals too.
    level = [Aggregate.from_json(p.to_json()) for p in parts]
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), 2):
            if i + 1 < len(level):
                level[i].merge(level[i + 1])
            nxt.append(level[i])
        level = nxt
    assert json.dumps(level[0].fold_all().to_json()) == expected


def test_totals_are_integers_and_win_shares_exact(cm_rows):
    frame, queries, rotation = cm_rows
    agg = reduce(frame, queries, scale=win_scale(4), rotation=rotation).fold_all()
    for part in agg.parts.values():
        assert all(isinstance(v, int) for row in part.closed.values() for v in row)
    shares = frame["win_share"].cast(pl.Float64).sum()
    by_seat = next(p for k, p in agg.parts.items() if json.loads(k)["by"] == ["seat"])
    total = sum(row[4] for row in by_seat.closed.values())  # win-share numerators
    assert total == 12 * CM.games  # one whole win per game, ties included
    assert shares == pytest.approx(CM.games, rel=1e-6)


def test_the_summary_table_is_exact_whatever_the_batches(cm_rows):
    """summary.csv's totals are kept as the rows are written, a batch at a time: the
    means are the exact ones, correctly rounded, however the rows come in batches."""
    frame, _, _ = cm_rows
    rows = frame.to_arrow()
    whole = SeatTotals()
    whole.add(rows)
    table = whole.frame()
    rng = random.Random(5)
    cuts = sorted(rng.sample(range(1, rows.num_rows), 9))
    batched = SeatTotals()
    for a, b in zip([0, *cuts], [*cuts, rows.num_rows], strict=True):
        batched.add(rows.slice(a, b - a))
    assert batched.frame().equals(table)
    assert frame.filter(pl.col("win_share").is_between(0.3, 0.4)).height > 0  # 3-way ties
    for r in table.iter_rows(named=True):
        seat = frame.filter((pl.col("strategy") == r["strategy"]) & (pl.col("seat") == r["seat"]))
        assert r["games"] == seat.height
        wins = sum(Fraction(round(w * 12), 12) for w in seat["win_share"].to_list())
        assert r["win_share"] == float(wins / seat.height)  # the exact mean, rounded once
        assert r["mean_score"] == float(Fraction(int(seat["score"].sum()), seat.height))
        assert r["mean_rounds"] == float(Fraction(int(seat["rounds"].sum()), seat.height))



def _without_combinations(queries):
    from dataclasses import replace

    return [replace(q, combinations=()) for q in queries]


def test_values_summed_as_combinations_give_the_same_totals(cm_rows):
    """The card-value queries sum each component's with-minus-without values as
    combinations of three sums (`Combination`): the totals are the ones summing every
    value from the rows gives, to the bit, in chunks that cut deals too."""
    frame, queries, rotation = cm_rows
    scale = win_scale(CM.players)
    assert sum(len(q.combinations) for q in queries) >= 100  # the card values' are there
    plain = _without_combinations(queries)
    for bounds in ([0, frame["game"].max() + 1], [0, 1, 999, 1002, 2501, 4000]):
        got = merge_all(reduce(c, queries, scale=scale, rotation=rotation)
                        for c in chunks(frame, bounds))
        want = merge_all(reduce(c, plain, scale=scale, rotation=rotation)
                         for c in chunks(frame, bounds))
        assert got is not None and want is not None
        assert json.dumps(got.fold_all().to_json()) == json.dumps(want.fold_all().to_json())


def test_the_compiled_sums_equal_the_polars_group_bys(cm_rows, monkeypatch):
    """The report's queries are summed in compiled code (`compiled_totals`,
    `simkit.summing`): over random chunks, deals cut at either end or not, with and
    without rotation, their totals are the polars group-bys', to the bit."""
    from simkit import totals

    frame, queries, rotation = cm_rows
    scale = win_scale(CM.players)
    assert any(s.combined for s in _shapes(frame, queries, scale))
    rng = random.Random(51)
    games = CM.games
    cuts = [(0, games), (0, 1), (3, 5)] + [tuple(sorted(rng.sample(range(games + 1), 2)))
                                           for _ in range(25)]
    compiled = []
    monkeypatch.setattr(totals, "compiled_totals", _counting(totals.compiled_totals,
                                                              compiled))
    for rot in (rotation, 1):
        for a, b in cuts:
            chunk = frame.filter(pl.col("game").is_between(a, b - 1))
            fast = reduce(chunk, queries, scale=scale, rotation=rot)
            with monkeypatch.context() as m:
                m.setattr(totals, "summable", lambda shape, frame: False)
                slow = reduce(chunk, queries, scale=scale, rotation=rot)
            assert json.dumps(fast.to_json()) == json.dumps(slow.to_json()), (rot, a, b)
    assert max(compiled) >= 20  # every shape of the report's, but the empty chunk's


def _counting(fn, counts):
    def counted(*args):
        out = fn(*args)
        counts.append(len(out))
        return out
    return counted


def _random_rows(seed: int, games: int, rotation: int) -> pl.DataFrame:
    """Rows laid out as simkit writes them (4 seats a game, `rotation` games a deal),
    with keys of every kind, ties in twelfths and a few long games."""
    rng = random.Random(seed)
    n = games * 4
    wins = [0.0, 1.0, 1 / 2, 1 / 3, 1 / 4]
    return pl.DataFrame({
        "game": [i // 4 for i in range(n)],
        "deal": [i // (4 * rotation) for i in range(n)],
        "seat": pl.Series([i % 4 for i in range(n)], dtype=pl.Int8),
        "strategy": pl.Series([rng.choice("abc") for _ in range(n)], dtype=pl.Categorical),
        "rounds": pl.Series([rng.choice([3, 4, 4, 5, 9]) for _ in range(n)], dtype=pl.UInt8),
        "flag": [rng.random() < 0.4 for _ in range(n)],
        "win_share": pl.Series([rng.choice(wins) for _ in range(n)], dtype=pl.Float32),
        "score": pl.Series([rng.randrange(-3, 70) for _ in range(n)], dtype=pl.Int16),
    })


@pytest.mark.parametrize("products", [0.0, 1.0, 1e9])
@pytest.mark.parametrize("seed", range(4))
def test_compiled_sums_of_every_kind_of_query_equal_polars(seed, products, monkeypatch):
    """Random rows and queries of every kind (keys of each type, filters, no cluster,
    clusters by deal and by game, cluster sizes, the game level, combinations), cut into
    random chunks with deals split: the compiled sums give the polars totals, to the bit,
    chunk by chunk and merged; each value formed per cluster, or from sums of products
    (`compiled_totals.PRODUCTS`: never, when fewer operations, always)."""
    from simkit import compiled_totals, totals
    from simkit.summary import Combination, Query

    monkeypatch.setattr(compiled_totals, "PRODUCTS", products)

    rotation = 1 + seed % 3
    frame = _random_rows(seed, 3000, rotation)
    flag = pl.col("flag").cast(pl.Int64)
    y = pl.col("win_share")
    queries = [
        Query.of(["strategy"], ["win_share", "score"]),
        Query.of(["seat"], ["win_share"], by_size=True),
        Query.of(["rounds", "seat"], ["win_share"]),
        Query.of(["strategy", "score"], cluster=None),
        Query.of(["strategy"], ["score", "flag"], where=pl.col("rounds") < 5),
        Query.of(["strategy"], ["win_share"], cluster="game"),
        Query.of(["flag"], ["score"], cluster=None),
        Query.of([], {"w0": (1 - flag) * y, "w1": flag * y, "n": flag,
                      "u": flag * y + 1 - flag, "x": flag * pl.col("score") + flag - 3},
                 combinations={"w0": Combination(((y, 1), (flag * y, -1))),
                               "u": Combination(((flag * y, 1), (flag, -1)), 1),
                               "x": Combination(((flag * pl.col("score"), 1), (flag, 1)),
                                                -3)}),
        Query.of(["rounds"], level="game", cluster=None),
        Query.of([], ["tie", "margin"], level="game"),
        Query.of(["tie"], ["rounds"], level="game", by_size=True),
    ]
    rng = random.Random(seed)
    games = frame["game"].max() + 1
    bounds = [0, *sorted(rng.sample(range(1, games), 6)), games]
    compiled = []
    monkeypatch.setattr(totals, "compiled_totals", _counting(totals.compiled_totals,
                                                              compiled))
    fast, slow = [], []
    for chunk in chunks(frame, bounds):
        fast.append(reduce(chunk, queries, scale=12, rotation=rotation))
        with monkeypatch.context() as m:
            m.setattr(totals, "summable", lambda shape, frame: False)
            slow.append(reduce(chunk, queries, scale=12, rotation=rotation))
        assert json.dumps(fast[-1].to_json()) == json.dumps(slow[-1].to_json())
    assert sum(compiled) == len(queries) * (len(bounds) - 1)
    a, b = merge_all(fast), merge_all(slow)
    assert a is not None and b is not None
    assert json.dumps(a.fold_all().to_json()) == json.dumps(b.fold_all().to_json())
    assert a.open_deals == {} and a.games == games


def _shapes(frame, queries, scale):
    from simkit.shapes import Shape as _Shape
    from simkit.totals import _value_scales

    scales = _value_scales({"row": frame.lazy()}, [q for q in queries if q.level == "row"],
                           scale, True)
    shapes = {}
    for q in queries:
        if q.level == "row":
            shape = shapes.setdefault(q.shape_key, _Shape(q))
            combos = dict(q.combinations)
            for name, e in q.values:
                shape.add(e, combos.get(name), scales)
    return list(shapes.values())


def test_a_combination_is_summed_exactly_with_filters_ties_and_constants():
    """Random rows: an indicator h, win shares in twelfths (ties), a score, a filter; the
    combinations (1 - h) y = y - h y, h y + 1 - h and h y + h - 3 summed per deal equal the
    values summed from the rows; a term that is not whole makes its value summed from the
    rows, never a wrong total."""
    from simkit.summary import Combination, Query

    rng = random.Random(8)
    n = 4000
    frame = pl.DataFrame({
        "game": [i // 4 for i in range(n)],
        "deal": [i // 12 for i in range(n)],  # deals of 3 games
        "seat": [i % 4 for i in range(n)],
        "h": [rng.random() < 0.3 for _ in range(n)],
        "win_share": pl.Series([rng.choice([0, 1, 1 / 2, 1 / 3, 1 / 4]) for _ in range(n)],
                               dtype=pl.Float32),
        "score": [rng.randrange(-5, 60) for _ in range(n)],
        "odd": [rng.random() for _ in range(n)],  # no whole number of twelfths
    })
    h = pl.col("h").cast(pl.Int64)
    values, combos = {}, {}
    for tag, y in (("w", pl.col("win_share")), ("s", pl.col("score")), ("o", pl.col("odd"))):
        hy = h * y
        values |= {f"{tag}1": hy, f"{tag}0": (1 - h) * y, f"{tag}u": hy + (1 - h),
                   f"{tag}x": hy + h - 3}
        combos |= {f"{tag}0": Combination(((y, 1), (hy, -1))),
                   f"{tag}u": Combination(((hy, 1), (h, -1)), 1),
                   f"{tag}x": Combination(((hy, 1), (h, 1)), -3)}
    for where in (None, pl.col("seat") != 2):
        for by in ((), ("seat",)):
            q = Query.of(by, values, where=where, combinations=combos)
            got = reduce(frame, [q], scale=12, exact=False)
            want = reduce(frame, _without_combinations([q]), scale=12, exact=False)
            a, b = got.parts[q.key], want.parts[q.key]
            assert a.scales == b.scales == [12] * 4 + [1] * 4 + [0] * 4
            assert a.closed.keys() == b.closed.keys()
            for key, row in a.closed.items():
                exact = row[:4 + 3 * 8]  # the counts, then the twelfths and integers
                assert exact == b.closed[key][:4 + 3 * 8]
                assert row[4 + 3 * 8:] == pytest.approx(b.closed[key][4 + 3 * 8:], rel=1e-12)


# ------------------------------------------------------------------ report from either form
def _same_tables(a: Path, b: Path) -> int:
    names = sorted(p.name for p in (a / "report_tables").iterdir())
    assert names == sorted(p.name for p in (b / "report_tables").iterdir())
    for name in names:  # the next steps name their run's own folder: read as RUN
        fa = pl.read_csv(io.StringIO((a / "report_tables" / name).read_text()
                                     .replace(str(a), "RUN")))
        fb = pl.read_csv(io.StringIO((b / "report_tables" / name).read_text()
                                     .replace(str(b), "RUN")))
        assert fa.equals(fb), name
    return len(names)


@pytest.mark.parametrize("spec,chunk,sections", [
    (CM, 999, ("witches", "hecate", "recipes", "leftovers", "components")),
    (CARNUTA, 701, ("runes", "scoring-kinds", "components")),
    (INORI, 333, ("points-by-source", "economy", "colours", "components")),
])
def test_report_from_a_summary_equals_the_report_from_rows(cm, tmp_path, spec, chunk, sections):
    run(spec, tmp_path / "rows")
    manifest = run(summary_of(spec), tmp_path / "summary", chunk_size=chunk)
    assert manifest["summary_only"] and manifest["games"] == spec.games
    assert manifest["rows"] == spec.games * spec.players
    summary_dir = tmp_path / "summary"
    assert not (summary_dir / "games.parquet").exists()
    # the size does not grow with the games; Carnuta's 64 cards, each with the clustered
    # component effect's per-deal cross-products, take about 210 KB
    assert (summary_dir / SUMMARY_DATA_FILE).stat().st_size < 300_000
    written = make_report(summary_dir)
    make_report(tmp_path / "rows")
    assert _same_tables(summary_dir, tmp_path / "rows") >= 10
    page = written.html.read_text()
    for key in sections:
        assert f'id="{key}"' in page
    assert "summary only" in page
    # The first look printed by `simkit run` is the same, to the last digit: both sum
    # whole numbers (win shares in units of a common denominator) and divide once.
    a = (summary_dir / "summary.csv").read_bytes()
    assert a == (tmp_path / "rows" / "summary.csv").read_bytes()
    # Read back from games.parquet (a finished run's folder), the table is the same again,
    # and so is summary.csv read back as the CLI and the notebook API read it.
    again = SeatTotals.of_file(tmp_path / "rows" / "games.parquet").frame()
    assert again.equals(pl.read_csv(tmp_path / "rows" / "summary.csv", schema=again.schema))
    assert engine.summary_frame(tmp_path / "rows").equals(again)


def test_a_run_reduced_a_slice_of_deals_at_a_time_gives_the_same_totals(cm_rows,
                                                                        monkeypatch):
    """A report reduces a large run a slice of whole deals at a time, so that its memory is
    a slice's, not the run's (the card-value queries over 10^6 Cauldron Master games took
    5.2 GB at once). The totals are one reduction's to the bit, for the report's queries
    and one at game level; a float value that is not a win share is summed as a float in
    every slice (close, not to the bit)."""
    from simkit import totals
    from simkit.summary import Query
    from simkit.totals import reduce_whole_deals

    frame, queries, _ = cm_rows
    scale = win_scale(CM.players)
    third = Query.of(("seat",), {"seventh": pl.col("score") / 7})  # not a win share
    tie = Query.of((), {"tie": pl.col("tie")}, level="game")
    asked = [*queries, third, tie]
    whole = reduce(frame, asked, scale=scale, exact=False)
    slices: list[int] = []
    real = totals.reduce

    def counted(rows, *args, **kwargs):
        slices.append(rows.height)
        return real(rows, *args, **kwargs)

    monkeypatch.setattr(totals, "reduce", counted)
    sliced = reduce_whole_deals(frame, asked, scale=scale, exact=False, cells=400_000)
    assert len(slices) == 4 and sum(slices) == frame.height  # at least 4,096 rows each
    assert all(n % (CM.players * CM.players) == 0 for n in slices)  # whole deals of 4 games
    exact = [q for q in asked if q is not third]
    assert ({q.key: whole.parts[q.key] for q in exact}
            == {q.key: sliced.parts[q.key] for q in exact})
    assert (whole.games, whole.rows, whole.open_deals) == (sliced.games, sliced.rows, {})
    a, b = whole.parts[third.key], sliced.parts[third.key]
    assert a.scales == b.scales == [0] and a.closed.keys() == b.closed.keys()
    for key, row in a.closed.items():
        assert b.closed[key] == pytest.approx(row, rel=1e-12)
    # Small enough for one reduction: it is one.
    slices.clear()
    reduce_whole_deals(frame, asked, scale=scale, exact=False)
    assert slices == [frame.height]


def test_a_chunk_reduced_in_slices_gives_the_same_totals(cm, tmp_path, monkeypatch):
    """Chunks are reduced a slice at a time: the same summary.json bytes as one reduction
    per chunk, though slices and chunks cut deals."""
    from simkit import totals

    spec = summary_of(RunSpec("cauldron-master", 3, ("planner", "greedy", "random"), 2000, 5))
    run(spec, tmp_path / "whole", chunk_size=2000)
    monkeypatch.setattr(totals, "REDUCE_GAMES", 7)  # deals of 3 games: cut
    run(spec, tmp_path / "sliced", chunk_size=500)  # 500 = 166 deals + 2 games
    assert (tmp_path / "sliced" / SUMMARY_DATA_FILE).read_bytes() == (
        tmp_path / "whole" / SUMMARY_DATA_FILE).read_bytes()


def test_until_sure_works_from_summaries(cm, tmp_path):
    rule = StopRule(set_targets=("component_effect.max_points=100",
                                 "tie_rate.max_percent=100"))
    spec = RunSpec("cauldron-master", 2, ("greedy", "random"), 40_000, 1, until_sure=rule)
    rows = run(spec, tmp_path / "rows", chunk_size=5_000)
    summary = run(summary_of(spec), tmp_path / "summary", chunk_size=5_000)
    assert summary["stopping"] == rows["stopping"] and summary["games"] == rows["games"]
    make_report(tmp_path / "rows")
    make_report(tmp_path / "summary")
    _same_tables(tmp_path / "summary", tmp_path / "rows")


# ------------------------------------------------------------------ resume, cluster, sweep
class Stop(KeyboardInterrupt):
    pass


def test_interrupted_summary_run_resumes_to_the_same_totals(cm, tmp_path):
    spec = summary_of(RunSpec("cauldron-master", 3, ("planner", "greedy", "random"), 3000, 7))
    run(spec, tmp_path / "whole", chunk_size=3000)
    seen: list[int] = []

    def stop_after_two(n: int) -> None:
        seen.append(n)
        if len(seen) == 2:
            raise Stop

    out = tmp_path / "run"
    with pytest.raises(Stop):
        run(spec, out, chunk_size=500, progress=stop_after_two)
    assert (out / RUN_FILE).exists() and not (out / "manifest.json").exists()
    kept = sum(int(p.stem.split("-")[2]) for p in (out / CHUNK_DIR).glob("summary-*.json"))
    assert kept == sum(seen) > 0  # every game finished is kept, mid-chunk too
    manifest = run(spec, out, chunk_size=700)  # another chunk size: the same games
    assert manifest["resumed"] and manifest["rows"] == 3000 * 3
    assert (out / SUMMARY_DATA_FILE).read_bytes() == (
        tmp_path / "whole" / SUMMARY_DATA_FILE).read_bytes()
    assert not (out / CHUNK_DIR).exists() and not (out / RUN_FILE).exists()
    again = run(spec, out)
    assert again.get("skipped")


def test_cluster_workers_reduce_their_chunks(cm, tmp_path):
    spec = summary_of(RunSpec("cauldron-master", 4, ("planner", "greedy", "random", "greedy"),
                              2000, 5))
    run(spec, tmp_path / "threads", chunk_size=2000)
    run(spec, tmp_path / "dask", chunk_size=333, workers=2)
    assert (tmp_path / "dask" / SUMMARY_DATA_FILE).read_bytes() == (
        tmp_path / "threads" / SUMMARY_DATA_FILE).read_bytes()


def test_sweep_points_can_be_summary_only(cm, tmp_path):
    from reports.sweep import make_sweep_report
    from simkit import sweeps as sw

    spec = sw.make_spec("cauldron-master", vary=["supply.size.4=10,12"], players=4,
                        strategies=["greedy"], games=1500, seed=2)
    spec = sw.replace(spec, summary_only=True)
    assert "--summary-only" in sw.command(spec, "out")
    record = sw.run_sweep(sw.plan(spec), tmp_path / "sweep", analysis=ANALYSIS)
    for p in record["points"]:
        assert (tmp_path / "sweep" / p["name"] / SUMMARY_DATA_FILE).exists()
    assert make_sweep_report(tmp_path / "sweep").html.exists()


# ------------------------------------------------------------------ clear errors
@pytest.fixture(scope="module")
def summary_run(cm, tmp_path_factory):
    out = tmp_path_factory.mktemp("summary") / "run"
    run(summary_of(RunSpec("cauldron-master", 2, ("greedy", "random"), 1000, 3)), out)
    return out


def test_a_full_run_and_a_summary_run_are_different_runs(summary_run, tmp_path):
    full = RunSpec("cauldron-master", 2, ("greedy", "random"), 1000, 3)
    with pytest.raises(SimkitError, match="already holds a different run"):
        run(full, summary_run)
    run(full, tmp_path / "full")
    with pytest.raises(SimkitError, match="already holds a different run"):
        run(summary_of(full), tmp_path / "full")


def test_compare_needs_rows(summary_run):
    from reports.compare import compare_runs

    with pytest.raises(SimkitError, match="summary-only run.*needs the per-game rows"):
        compare_runs(summary_run, summary_run)


def test_missing_or_corrupt_summary_file(summary_run, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(summary_run, run)
    (run / SUMMARY_DATA_FILE).write_text('{"format": 1, "scale"')
    with pytest.raises(SimkitError, match="not a readable simkit summary"):
        open_run(run)
    (run / SUMMARY_DATA_FILE).unlink()
    with pytest.raises(SimkitError, match="summary.json is missing"):
        open_run(run)


def test_a_section_the_summary_cannot_answer_is_left_out_with_a_note(summary_run, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(summary_run, run)
    data = json.loads((run / SUMMARY_DATA_FILE).read_text())
    data["queries"] = {k: v for k, v in data["queries"].items()
                       if json.loads(k)["by"] != ["cards_left"]}  # as if made by older hooks
    (run / SUMMARY_DATA_FILE).write_text(json.dumps(data))
    page = make_report(run).html.read_text()
    assert 'id="not-in-summary"' in page and "cards_left" in page
    for key in ("winners", "seats", "scores", "endings", "components"):
        assert f'id="{key}"' in page


def test_hooks_that_need_rows_are_left_out_with_a_note(summary_run, tmp_path):
    import shutil

    from reports.cauldron_master import CauldronMasterHooks

    run = tmp_path / "run"
    shutil.copytree(summary_run, run)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest.update(game="rows-only-game", title="Rows Only")
    (run / "manifest.json").write_text(json.dumps(manifest))

    @register("rows-only-game")
    class RowsOnly(CauldronMasterHooks):
        summary_ready = False

    try:
        page = make_report(run).html.read_text()
    finally:
        del _REGISTRY["rows-only-game"]
    assert 'id="game-sections"' in page and "Rerun without --summary-only" in page
    for key in ("winners", "seats", "scores", "endings"):
        assert f'id="{key}"' in page
    for key in ("components", "witches", "hecate"):
        assert f'id="{key}"' not in page


def test_cli_summary_only_run_and_report(cm, tmp_path):
    from click.testing import CliRunner

    from simkit.cli import main

    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "2", "--games",
                                       "500", "--seed", "4", "--out", str(out),
                                       "--summary-only", "--report"])
    assert result.exit_code == 0, result.output
    assert "the totals of 500 games" in result.output and "summary.json" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"].endswith("--summary-only")
    assert (out / "report.html").exists()


@pytest.mark.parametrize("compiled", [True, False])
def test_a_chunk_reducer_decides_the_scales_once_and_still_checks_every_slice(compiled,
                                                                              monkeypatch):
    """A chunk is reduced a slice at a time, how each value is summed decided at the
    first slice (`totals._decided_scales`): the totals are those of one reduce over the
    whole chunk, and a win share that is not a whole number of twelfths in a later slice
    is still the error it is in a first one, compiled (`summing.whole_units`) or not."""
    from simkit import totals
    from simkit.summary import Query
    from simkit.totals import chunk_reducer

    if not compiled:
        monkeypatch.setattr(totals, "summable", lambda shape, frame: False)

    frame = _random_rows(9, 2000, 1)
    queries = [Query.of(["strategy"], ["win_share", "score"]),
               Query.of([], {"half": pl.col("win_share") * 2}),
               Query.of(["tie"], ["rounds"], level="game")]
    monkeypatch.setattr(totals, "REDUCE_GAMES", 300)
    got = chunk_reducer(queries, 4, rotate=False)(frame.to_arrow())
    want = reduce(frame, queries, scale=12, rotation=1)
    assert json.dumps(got.to_json()) == json.dumps(want.to_json())
    bad = frame.with_columns(win_share=pl.when(pl.col("game") == 1500).then(0.3)
                             .otherwise(pl.col("win_share")).cast(pl.Float32))
    with pytest.raises(SimkitError, match="not a multiple of 1/12"):
        chunk_reducer(queries, 4, rotate=False)(bad.to_arrow())
