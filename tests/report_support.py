"""Helpers for the report tests: synthetic result frames and small real runs (made once)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simkit import engine

_RUNS: dict[tuple, Path] = {}
_REPORTS: dict[Path, object] = {}


def frame(rows: Sequence[Sequence], deals: Sequence[int] | None = None,
          rounds: Sequence[int] | None = None) -> pl.DataFrame:
    """Results frame from per-game rows [(strategy, score, win_share), ...] (seat order).

    Ranks follow the scores; `deal` defaults to the game index, `rounds` to 5.
    """
    out: dict[str, list] = {k: [] for k in ("game", "deal", "seat", "strategy", "score", "rank",
                                            "win_share", "rounds")}
    for g, players in enumerate(rows):
        scores = [p[1] for p in players]
        for seat, (strategy, score, share) in enumerate(players):
            out["game"].append(g)
            out["deal"].append(deals[g] if deals is not None else g)
            out["seat"].append(seat)
            out["strategy"].append(strategy)
            out["score"].append(score)
            out["rank"].append(1 + sum(s > score for s in scores))
            out["win_share"].append(share)
            out["rounds"].append(rounds[g] if rounds is not None else 5)
    return pl.DataFrame(out, schema={"game": pl.Int64, "deal": pl.Int64, "seat": pl.UInt8,
                                     "strategy": pl.Categorical, "score": pl.Int16,
                                     "rank": pl.Int8, "win_share": pl.Float32,
                                     "rounds": pl.Int16})


def random_frame(rng: np.random.Generator, n_games: int, n_players: int,
                 strength: Sequence[float] | None = None, rotate: bool = False,
                 tie_rate: float = 0.0, seat_weight: Sequence[float] | None = None
                 ) -> pl.DataFrame:
    """Games whose winner depends only on strategy strength, never on the seat (with
    `seat_weight`, on the seat too: each player's strength times its seat's weight).

    With `rotate`, strategies s0..s{N-1} rotate through the seats over each deal of N games
    (as simkit runs do); otherwise every seat plays "s0". A share `tie_rate` of games is a
    two-way shared win.
    """
    n = n_players
    game = np.arange(n_games)
    if rotate:
        seat_strategy = (np.arange(n)[None, :] - game[:, None]) % n  # strategy in each seat
        deal = game // n
    else:
        seat_strategy = np.zeros((n_games, n), int)
        deal = game
    p = np.asarray(strength if strength is not None else [1.0] * n, float)
    weights = p[seat_strategy] * np.asarray(seat_weight if seat_weight is not None
                                            else [1.0] * n, float)[None, :]
    weights = weights / weights.sum(axis=1, keepdims=True)
    cum = weights.cumsum(axis=1)
    winner = (rng.random(n_games)[:, None] > cum).sum(axis=1)
    winner = np.minimum(winner, n - 1)
    share = np.zeros((n_games, n))
    share[game, winner] = 1.0
    tied = rng.random(n_games) < tie_rate
    other = (winner + 1 + rng.integers(0, n - 1, n_games)) % n
    share[tied, winner[tied]] = 0.5
    share[tied, other[tied]] = 0.5
    score = (share * 10).astype(np.int16) + 10
    return pl.DataFrame({
        "game": np.repeat(game, n), "deal": np.repeat(deal, n),
        "seat": np.tile(np.arange(n, dtype=np.uint8), n_games),
        "strategy": [f"s{s}" for s in seat_strategy.ravel()],
        "score": score.ravel(), "rank": (1 + (share.ravel() == 0)).astype(np.int8),
        "win_share": share.ravel().astype(np.float32),
        "rounds": np.full(n_games * n, 5, np.int16),
    }).with_columns(pl.col("strategy").cast(pl.Categorical))


def small_run(tmp_path_factory: pytest.TempPathFactory, games: int = 2000, players: int = 4,
              strategies: Sequence[str] = ("planner", "greedy", "random", "greedy"),
              seed: int = 5) -> Path:
    """A real Cauldron Master run, simulated once per test session."""
    key = (games, players, tuple(strategies), seed)
    if key not in _RUNS:
        out = tmp_path_factory.mktemp("report-run") / "run"
        engine.run(engine.RunSpec("cauldron-master", players, tuple(strategies), games, seed),
                   out)
        _RUNS[key] = out
    return _RUNS[key]


def reported_run(tmp_path_factory: pytest.TempPathFactory):
    """(run folder, Written) for the default small run, reported once per session."""
    from reports import make_report

    run = small_run(tmp_path_factory)
    if run not in _REPORTS:
        _REPORTS[run] = make_report(run)
    return run, _REPORTS[run]
