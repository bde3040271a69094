"""check_game(): the conformance checks every game must pass (its tests call this)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games import get_game
from simkit.threads import available, using

REQUIRED = ("strategy", "score", "rank", "win_share", "rounds")


def _simulate(game, compiled, lineup, seed, first, n, threads):
    with using(threads):
        cols = game.simulate(compiled, lineup, seed, first, n)
    return {k: np.array(v) for k, v in cols.items()}


# Lookahead players cost thousands of playouts per game; the contract checked here is
# about shapes, determinism and replays, not strength, so they play at their cheapest.
QUICK = {"rollouts": 1.0, "candidates": 2.0, "horizon": 1.0, "iterations": 4.0}


def quick_params(game, names) -> tuple[str, ...]:
    """--param overrides playing the lookahead strategies among `names` cheaply."""
    specs = game.strategies()
    out = []
    for strategy in dict.fromkeys(names):
        for p in specs[strategy].params:
            if p.name in QUICK:
                out.append(f"{strategy}.{p.name}={min(max(QUICK[p.name], p.lo), p.hi)}")
    return tuple(out)


def assert_same_across_threads_and_chunks(game, compiled, lineup, seed: int, n: int,
                                          label: str = "",
                                          whole: dict[str, np.ndarray] | None = None
                                          ) -> dict[str, np.ndarray]:
    """Assert that games 0 .. n - 1 of (lineup, seed) at the default thread count (`whole`,
    when already played) come out identical on one thread, in three chunks (one of a single
    game) and when played again; returns them."""
    threads = available()
    if whole is None:
        whole = _simulate(game, compiled, lineup, seed, 0, n, threads)
    single = _simulate(game, compiled, lineup, seed, 0, n, 1)
    again = _simulate(game, compiled, lineup, seed, 0, n, threads)
    cut = max(n // 3, 2)
    parts = [_simulate(game, compiled, lineup, seed, a, b - a, threads)
             for a, b in ((0, 1), (1, cut), (cut, n))]
    where = f"{rules_file(game)}: " if label == "" or label == game.name else f"{label}: "
    for col, values in whole.items():
        for how, other in (("on one thread", single[col]), ("when played again", again[col]),
                           ("in chunks", np.concatenate([p[col] for p in parts]))):
            if not np.array_equal(values, other):
                raise AssertionError(
                    f"{where}column {col} differs {how} (not deterministic: a rule keeps "
                    "state between games, or draws from a random source other than its "
                    "`rng`)")
    return whole


def check_lineup(game, players: int):
    """The lineup the check plays at `players` seats: the game's strategies in turn, the
    lookahead ones at their cheapest."""
    names = list(game.strategies())
    mixed = [names[i % len(names)] for i in range(players)]
    return build_lineup(game, mixed, players, quick_params(game, mixed))


def rules_file(game) -> Path:
    """Where a game's rules are: its folder's rules.py (games written to the game API, and
    the built-in games alike)."""
    folder = getattr(game, "folder", None)
    if folder is None:
        folder = Path(game.kernel.__file__).parent
    return Path(folder) / "rules.py"


def check_game(name: str, n_games: int = 600, seed: int = 12345) -> None:
    """Assert the shared contract of game `name` at every player count it supports.

    Columns and shapes; ranks and win shares consistent with scores (a k-way tie for the
    win gives 1/k); identical results across thread counts and chunk splits; any game
    replays from (seed, index) to the same result; strategies rotate over shared deals;
    every strategy runs; any game comes out of `play_log` as a readable log.
    """
    game = get_game(name)
    config = game.load_config()
    compiled = game.compile(config)
    names = list(game.strategies())
    threads = available()
    if hasattr(game, "optional"):  # a game written to the game API
        check_optional_modules(game, config, compiled)
    for players in game.players(compiled):
        lineup = check_lineup(game, players)
        # A game that never ends plays MAX_DECISIONS decisions before it is stopped: a few
        # games find it in seconds, where all n_games took minutes.
        _simulate(game, compiled, lineup, seed, 0, min(8, n_games), threads)
        whole = _simulate(game, compiled, lineup, seed, 0, n_games, threads)
        where = rules_file(game)
        for col in REQUIRED:
            assert col in whole, f"{name}: missing result column {col}"
        for col, values in whole.items():
            assert values.shape[:2] == (n_games, players), f"{name}: {col} has {values.shape}"
        assert (whole["win_share"].sum(axis=1) > 0.999).all(), \
            f"{where}: ranking_key: a game without a winner"
        score, rank, share = whole["score"], whole["rank"], whole["win_share"]
        np.testing.assert_allclose(share.sum(axis=1), 1.0, atol=1e-6)
        best = np.broadcast_to(score.max(axis=1, keepdims=True), score.shape)
        wrong = np.argwhere((rank == 1) & (score != best))
        if wrong.size:
            g, s = (int(v) for v in wrong[0])
            raise AssertionError(
                f"{where}: ranking_key and points disagree: in game {g} of seed {seed} seat "
                f"{s} ranks first with {score[g, s]} points while another seat has "
                f"{best[g, s]} (simkit reads a higher score as better: in a game the lowest "
                "score wins, return the score negated from both; docs/new-game.md)")
        winners = (rank == 1).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(np.where(rank == 1, 1.0 / winners, 0.0), share, atol=1e-6)
        assert (whole["rounds"] >= 1).all()
        # Determinism: one thread, and arbitrary chunk boundaries, change nothing.
        assert_same_across_threads_and_chunks(game, compiled, lineup, seed, n_games, name,
                                              whole)
        # Rotation: with different strategies, each deal seats each strategy once per seat.
        if lineup.rotate:
            block = whole["strategy"][:players]
            assert sorted(block[:, 0].tolist()) == list(range(players))
        # Any game of the run can be replayed as a readable log (and a game written to the
        # game API runs its conservation check after every step while it is traced).
        for g in (0, n_games - 1) if not hasattr(game, "folder") else range(0, n_games, 7):
            log = game.play_log(compiled, lineup, seed, g)
            assert isinstance(log, str) and len(log.splitlines()) > players
        # Every strategy plays every seat without error.
        for strategy in names:
            solo = build_lineup(game, [strategy], players, quick_params(game, [strategy]))
            cols = _simulate(game, compiled, solo, seed, 0, 50, threads)
            assert np.isfinite(cols["win_share"]).all()


def check_optional_modules(game, config, compiled) -> None:
    """A game's optional modules import, and its interventions build at every player count:
    else one line naming the file (a broken report.py would otherwise only leave sections
    out of the report, a stale interventions.py fail at `simkit value`)."""
    from simkit.valuation import interventions_of

    game.optional("report")
    mod = game.optional("interventions")
    if mod is None:
        return
    for players in game.players(compiled):
        try:
            interventions_of(game, config, compiled, players)
        except SimkitError:
            raise
        except Exception as exc:  # noqa: BLE001 - any error in the game's code, in one line
            raise SimkitError(f"{mod.__file__}: interventions(config, compiled, {players}) "
                              f"failed: {type(exc).__name__}: {exc}") from None


def assert_tuned_rollout_matches_planner(game, strategies, slug: str) -> None:
    """configs/tuned/<slug>_rollout.toml gives the rollout player (strategy 3) the weights
    of the tuned planner (strategy 2, configs/tuned/<slug>_planner.toml), planner policy."""
    root = Path(__file__).resolve().parent.parent / "configs" / "tuned"
    lineup = build_lineup(game, [f"rollout@{root / f'{slug}_rollout.toml'}",
                                 f"planner@{root / f'{slug}_planner.toml'}"], 2)
    planner = [p.name for p in strategies[2].params]
    rollout = [p.name for p in strategies[3].params]
    start = rollout.index(planner[0])
    np.testing.assert_array_equal(lineup.params[0][start:start + len(planner)],
                                  lineup.params[1][:len(planner)])
    assert lineup.params[0][rollout.index("policy")] == 1.0
