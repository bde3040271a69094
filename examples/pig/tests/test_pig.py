"""Pig's tests: simkit's conformance check, the compiled rules against the plain-Python
reference, invariants, the playout equivalence of the lookahead, and an exact answer.

Run with `pytest` in this folder (or from simkit's repository, as part of its suite).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.engine import build_lineup
from simkit.games import get_game
from simkit.intervals import wilson
from simkit.testing import check_game

FOLDER = str(Path(__file__).resolve().parent.parent)
OPTIONS = [(), ("options.finish=\"equal_turns\"",), ("game.goal=30",),
           ("compensation.start=[0, 12, 0, 0]",)]


@pytest.fixture(scope="module")
def game():
    return get_game(FOLDER)


def test_conforms():
    check_game(FOLDER)


@pytest.mark.parametrize("overrides", OPTIONS)
@pytest.mark.parametrize("lineup", [["greedy", "random"], ["random"] * 3,
                                    ["greedy", "random", "greedy", "random"]])
def test_matches_the_reference(game, overrides, lineup):
    """Every result column and every decision of 60 games equal the reference's."""
    from ..reference import play

    compiled = game.compile(game.load_config(overrides))
    lu = build_lineup(game, lineup, len(lineup))
    params = [list(v) for v in lu.params]
    cols = game.simulate(compiled, lu, 7, 0, 60)
    for g in range(60):
        ref = play(compiled.tables, [lu.names[i] for i in range(len(lu.names))], params,
                   7, g)
        for col in ("strategy", "score", "rank", "turns", "rolls", "busts", "holds",
                    "best_turn", "decisions", "rounds"):
            np.testing.assert_array_equal(np.broadcast_to(ref[col], cols[col][g].shape),
                                          cols[col][g], err_msg=f"game {g} {col}")
        np.testing.assert_allclose(cols["win_share"][g], ref["win_share"], atol=1e-6)
        for f, ident in enumerate(compiled.names.face_ids):
            np.testing.assert_array_equal(cols[f"rolled_{ident}"][g],
                                          [r[f] for r in ref["rolled"]])
    # The traced game: the same decisions, option rows and choices.
    for g in (0, 59):
        replay = game.replay(compiled, lu, 7, g)
        ref = play(compiled.tables, list(lu.names), params, 7, g)["trace"]
        assert len(replay.decisions) == len(ref)
        for (rnd, seat, _kind, n, chosen, first), (r_rnd, r_seat, rows, c) in zip(
                replay.decisions.tolist(), ref, strict=True):
            assert (rnd, seat, n, chosen) == (r_rnd, r_seat, len(rows), c)
            assert replay.options[first:first + n].tolist() == [list(r) for r in rows]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), goal=st.integers(1, 150),
       players=st.integers(2, 4), finish=st.sampled_from(["immediate", "equal_turns"]))
def test_invariants(game, seed, goal, players, finish):
    """Whatever the goal and finish: a winner reached the goal; turns split into busts
    and holds; every roll is counted once by face; no decision left pending."""
    compiled = game.compile(game.load_config((f"game.goal={goal}",
                                              f"options.finish=\"{finish}\"")))
    lu = build_lineup(game, ["greedy", "random"][:1] * players, players)
    cols = game.simulate(compiled, lu, seed, 0, 40)
    score, rank = cols["score"], cols["rank"]
    assert (score[rank == 1] >= goal).all()
    assert (cols["busts"] + cols["holds"] <= cols["turns"]).all()
    assert (cols["turns"] - cols["busts"] - cols["holds"] <= 1).all()  # the turn in play
    rolled = sum(cols[f"rolled_{i}"] for i in compiled.names.face_ids)
    np.testing.assert_array_equal(rolled, cols["rolls"])
    assert (cols["turns"].max(axis=1) == cols["rounds"][:, 0]).all()
    if finish == "equal_turns":  # everyone had as many turns
        assert (cols["turns"] == cols["turns"][:, :1]).all()
    else:  # only the winner banked the goal
        assert ((score >= goal).sum(axis=1) == 1).all()


def test_playout_replays_whole_games(game):
    """The lookahead's `playout`, started at a game's setup with the game's dice stream,
    plays exactly the game `play_game` plays, under every option tested here."""
    import pig.layout as L  # the package is importable once get_game loaded it
    import pig.play as P
    from simkit.kernels.trace import new_trace_stub
    from simkit.rng import py_game_seed, py_stream_state

    for overrides in OPTIONS:
        compiled = game.compile(game.load_config(overrides))
        t = compiled.tables
        for players in (2, 3, 4):
            # Greedy draws no random numbers: the playout's one stream is the game's dice.
            lu = build_lineup(game, ["greedy"], players)
            cols = game.simulate(compiled, lu, 11, 0, 20)
            for g in range(20):
                pub, opts, hid, cnt, rngs, *_work = P.new_scratch(t)
                seed = py_game_seed(11, g)
                rng = np.array([py_stream_state(seed, 0)], np.uint64)
                trace = new_trace_stub(P.N_COLS)
                P.setup(t, lu.n_players, pub, hid, cnt, rng, trace, False)
                sids = np.array([lu.ids[0]] * lu.n_players, np.int64)
                params = np.array([lu.params[0]] * lu.n_players)
                steps = P.playout(t, lu.n_players, pub, hid, cnt, opts, sids, params, rng,
                                  0, trace)
                assert steps == cols["decisions"][g, 0]
                assert pub[L.ROUND] + 1 == cols["rounds"][g, 0]
                for s in range(lu.n_players):
                    assert pub[L.SCORE + s] == cols["score"][g, s]


def test_first_player_advantage_is_the_exact_one(game):
    """Two greedy players (hold at 20) to 100: the first player wins with probability
    0.534698..., computed exactly below from the rules; simkit's 95% interval covers it."""
    exact = exact_first_player_win(goal=100, hold=20)
    assert abs(exact - 0.534698) < 1e-6
    compiled = game.compile(game.load_config())
    lu = build_lineup(game, ["greedy"], 2)
    cols = game.simulate(compiled, lu, 2026, 0, 100_000)
    lo, hi = wilson(float(cols["win_share"][:, 0].mean()), 100_000)
    assert lo <= exact <= hi, (lo, hi, exact)


def exact_first_player_win(goal: int, hold: int) -> float:
    """P(the first player wins) when both hold at `hold` (or on reaching the goal): value
    iteration on W[i, j], the chance that the player about to roll, with i points against
    j, wins (Neller & Presser 2004 solve the optimal player the same way)."""
    def turn(h: int) -> dict[int, float]:  # points banked by "roll until h", by chance
        live, out = {0: 1.0}, {0: 0.0}
        for total in range(h):
            p = live.pop(total, 0.0)
            out[0] += p / 6
            for k in range(2, 7):
                into = out if total + k >= h else live
                into[total + k] = into.get(total + k, 0.0) + p / 6
        return out

    turns = [turn(min(hold, goal - i)) for i in range(goal)]
    w = np.zeros((goal, goal))
    for _ in range(1000):
        before = w.copy()
        for i in range(goal):
            for j in range(goal):
                w[i, j] = sum(p * (1.0 if i + k >= goal else 1.0 - w[j, i + k])
                              for k, p in turns[i].items() if k) + turns[i][0] * (1 - w[j, i])
        if np.abs(w - before).max() < 1e-14:
            break
    return float(w[0, 0])
