"""Runs: determinism across threads and chunk sizes, replay, rotation, result files."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simkit import engine
from simkit.engine import RunSpec, build_lineup
from simkit.errors import SimkitError
from simkit.games.cauldron_master import layout as L
from simkit.threads import using


def simulate(cm, names, seed, first, n, threads):
    game, compiled = cm
    with using(threads):
        cols = game.simulate(compiled, build_lineup(game, names, len(names)), seed, first, n)
    return {k: np.array(v) for k, v in cols.items()}


@pytest.mark.parametrize("names", [["greedy"] * 4, ["planner", "random", "greedy"]])
def test_same_seed_same_results_any_threads_and_chunks(cm, names):
    whole = simulate(cm, names, 42, 0, 3000, threads=2)
    one_thread = simulate(cm, names, 42, 0, 3000, threads=1)
    chunks = [simulate(cm, names, 42, first, n, threads=2)
              for first, n in [(0, 1), (1, 999), (1000, 1234), (2234, 766)]]
    for key, values in whole.items():
        np.testing.assert_array_equal(values, one_thread[key], err_msg=key)
        np.testing.assert_array_equal(values, np.concatenate([c[key] for c in chunks]),
                                      err_msg=key)


def test_different_seed_different_games(cm):
    a = simulate(cm, ["greedy"] * 4, 1, 0, 500, threads=2)
    b = simulate(cm, ["greedy"] * 4, 2, 0, 500, threads=2)
    assert not np.array_equal(a["score"], b["score"])


def test_replay_matches_batch(cm):
    game, compiled = cm
    names = ["planner", "random", "greedy", "greedy"]
    batch = simulate(cm, names, 9, 0, 40, threads=2)
    lineup = build_lineup(game, names, 4)
    for g in (0, 1, 7, 39):
        out = game.replay(compiled, lineup, 9, g).out
        assert list(out[L.O_SCORE][0]) == list(batch["score"][g])
        assert list(out[L.O_STRATEGY][0]) == list(batch["strategy"][g])
        assert out[L.O_ROUNDS][0] == batch["rounds"][g][0]


def test_strategies_rotate_over_the_same_deal(cm):
    game, compiled = cm
    names = ["planner", "random", "greedy"]
    cols = simulate(cm, names, 3, 0, 6, threads=1)
    # Games 0, 1, 2 share deal 0: each strategy sits once in each seat.
    for deal in range(2):
        block = cols["strategy"][3 * deal : 3 * deal + 3]
        assert sorted(map(tuple, block.T.tolist())) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
        # The same recipe cards were dealt to the same seats in all three games.
        recipes = cols["recipe_card"][3 * deal : 3 * deal + 3]
        assert (recipes == recipes[0]).all()


def test_run_writes_results_and_manifest(cm, tmp_path):
    spec = RunSpec("cauldron-master", 3, ("planner", "greedy", "random"), 3001, 11)
    manifest = engine.run(spec, tmp_path / "run", chunk_size=1000)
    frame = pl.read_parquet(tmp_path / "run" / "games.parquet")
    assert frame.height == 3001 * 3 == manifest["rows"]
    for col in ("game", "seat", "strategy", "score", "rank", "win_share", "rounds",
                "recipe_card", "witch_goddess", "scored_spider_venom"):
        assert col in frame.columns
    assert frame["game"].n_unique() == 3001
    per_game = frame.group_by("game").agg(pl.col("win_share").sum())
    assert (per_game["win_share"] - 1).abs().max() < 1e-5
    assert manifest["command"].startswith("simkit run cauldron-master --players 3")
    assert manifest["config"]["hash"] and manifest["config"]["placeholders"]
    # Same command again: recognised as complete, nothing overwritten.
    assert engine.run(spec, tmp_path / "run")["skipped"]
    # A different run into the same folder is refused.
    other = RunSpec("cauldron-master", 3, ("greedy",), 10, 11)
    with pytest.raises(SimkitError, match="already holds a different run"):
        engine.run(other, tmp_path / "run")
    assert pl.read_parquet(tmp_path / "run" / "games.parquet").height == 3001 * 3


def test_run_results_do_not_depend_on_chunk_size(cm, tmp_path):
    spec = RunSpec("cauldron-master", 4, ("greedy", "planner", "greedy", "random"), 2000, 5)
    engine.run(spec, tmp_path / "a", chunk_size=2000)
    engine.run(spec, tmp_path / "b", chunk_size=333, threads=1)
    a = pl.read_parquet(tmp_path / "a" / "games.parquet")
    b = pl.read_parquet(tmp_path / "b" / "games.parquet")
    assert a.equals(b)


def test_bad_lineups(cm):
    game = cm[0]
    with pytest.raises(SimkitError, match="unknown strategy 'genius'"):
        build_lineup(game, ["genius"], 2)
    with pytest.raises(SimkitError, match="lists 3 strategies for 2 players"):
        build_lineup(game, ["greedy"] * 3, 2)
    with pytest.raises(SimkitError, match="out of range"):
        build_lineup(game, ["planner"], 2, ["planner.discount=5"])
    with pytest.raises(SimkitError, match="has no parameter 'speed'"):
        build_lineup(game, ["greedy"], 2, ["greedy.speed=1"])
    with pytest.raises(SimkitError, match="is played by 2, 3, 4 players, not 5"):
        engine.prepare(RunSpec("cauldron-master", 5, ("greedy",), 10, 1))


@pytest.mark.parametrize("shape, dtype", [((50, 4, 9), np.uint16), ((30, 3, 1), np.uint8),
                                          ((20, 2, 4), np.uint8)])
def test_sum_last_axis_matches_numpy(shape, dtype):
    from simkit.games.base import sum_last_axis

    a = np.random.default_rng(1).integers(0, 256, shape).astype(np.uint8)
    total = sum_last_axis(a, dtype)
    assert total.dtype == dtype
    np.testing.assert_array_equal(total, a.sum(axis=-1, dtype=dtype))  # wraps alike
    assert not np.shares_memory(total, a)


@pytest.mark.parametrize(("game", "players"), [("cauldron-master", 4), ("carnuta", 4),
                                               ("inori", 4), ("carnuta", 2)])
def test_a_chunk_of_a_wide_game_holds_fewer_games(game, players):
    """chunk_games keeps a chunk's result arrays under CHUNK_BYTES, halving DEFAULT_CHUNK."""
    p = engine.prepare(RunSpec(game, players, ("greedy",), 10, 1))
    n = engine.chunk_games(p)
    per_game = sum(a.nbytes for a in p.game.new_outputs(p.compiled, 1, players))
    assert n * per_game <= engine.CHUNK_BYTES < 2 * n * per_game or n == engine.DEFAULT_CHUNK
    assert n & (n - 1) == 0 and n <= engine.DEFAULT_CHUNK
    if game == "cauldron-master":
        assert n == engine.DEFAULT_CHUNK // 2  # 128 bytes a game
    if game == "carnuta" and players == 4:
        assert n < engine.DEFAULT_CHUNK // 4  # 540 bytes a game


def test_a_run_records_the_chunk_size_it_used(tmp_path):
    spec = RunSpec("carnuta", 4, ("greedy",), 300, 3)
    manifest = engine.run(spec, tmp_path / "auto")
    assert manifest["chunk_size"] == engine.chunk_games(engine.prepare(spec))
    manifest = engine.run(spec, tmp_path / "set", chunk_size=100)
    assert manifest["chunk_size"] == 100


def test_a_summary_only_run_plans_its_queries_while_the_first_chunk_plays(tmp_path):
    """The report's queries are planned in a thread of their own (`engine._planned`), the
    first chunk playing meanwhile: the run's totals are those of planning first, and a
    planning that fails is the run's one error, with no chunk saved from it."""
    import threading

    from reports.analysis import ANALYSIS
    from simkit.prepare import Analysis

    spec = RunSpec(game="cauldron-master", players=4, strategies=("greedy",), games=3000,
                   seed=5, summary_only=True)
    planned_in: list[str] = []

    def queries(p):
        planned_in.append(threading.current_thread().name)
        return ANALYSIS.queries(p)

    engine.run(spec, tmp_path / "a", chunk_size=1000, analysis=Analysis(queries, ANALYSIS.judge))
    engine.run(spec, tmp_path / "b", chunk_size=3000, analysis=ANALYSIS)
    assert planned_in and planned_in[0].startswith("simkit-plan")
    assert ((tmp_path / "a" / "summary.json").read_bytes()
            == (tmp_path / "b" / "summary.json").read_bytes())

    def failing(p):
        raise SimkitError("the report cannot be planned")

    with pytest.raises(SimkitError, match="cannot be planned"):
        engine.run(spec, tmp_path / "c", chunk_size=1000,
                   analysis=Analysis(failing, ANALYSIS.judge))
    assert not list((tmp_path / "c").rglob("summary-*"))
