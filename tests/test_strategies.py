"""Strategy strength: greedy beats random, the planner beats greedy (rotated seats)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.engine import build_lineup
from simkit.games.cauldron_master import layout as CML
from strategies.cauldron_master import recipe_gain
from tests.reference.cauldron_master import recipe_progress


def share(cm, names, index, games, seed=101):
    """Mean win share per game of strategy `names[index]`, with a 95% normal interval."""
    game, compiled = cm
    cols = game.simulate(compiled, build_lineup(game, names, len(names)), seed, 0, games)
    per_game = np.where(cols["strategy"] == index, cols["win_share"], 0).sum(axis=1)
    half = 1.96 * per_game.std(ddof=1) / np.sqrt(games)
    return per_game.mean(), half


def test_greedy_beats_random(cm):
    mean, half = share(cm, ["greedy", "random", "random", "random"], 0, 4000)
    assert mean - half > 0.5  # fair share is 0.25


def test_planner_beats_greedy(cm):
    mean, half = share(cm, ["planner", "greedy", "greedy", "greedy"], 0, 4000)
    assert mean - half > 0.25 + 0.05


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(card=st.integers(0, 8), k=st.integers(0, 2), seat=st.integers(0, 3),
       held=st.lists(st.integers(0, 4), min_size=12, max_size=12), data=st.data())
def test_the_planners_recipe_gain_is_the_difference_of_its_two_progresses(cm, card, k, seat,
                                                                          held, data):
    """The planner values a card's step toward a recipe in one pass (`recipe_gain`); it is
    the plain definition (`recipe_progress`) with the card less without it, the same
    float, for cauldrons holding too few, enough and more than a recipe names of each
    type."""
    t = cm[1].tables
    assert t.types.shape[0] == len(held) and card < t.recipe.shape[0]
    pub = np.zeros(CML.PUB_SIZE, np.int32)
    pub[CML.RECIPE + seat] = card
    for x, n in enumerate(held):
        pub[CML.cauldron_at(seat, k, x)] = n
    x = data.draw(st.integers(0, len(held) - 1))
    expected = recipe_progress(t, pub, seat, k, x) - recipe_progress(t, pub, seat, k, -1)
    assert recipe_gain(t, pub, seat, k, x) == expected


def test_parameters_change_play(cm):
    """A strategy's parameters are live data: changing one changes decisions."""
    game, compiled = cm
    names = ["planner", "greedy"]
    base = game.simulate(compiled, build_lineup(game, names, 2), 3, 0, 500)
    tweak = game.simulate(compiled, build_lineup(game, names, 2, ["planner.late_penalty=0"]),
                          3, 0, 500)
    assert not np.array_equal(base["score"], tweak["score"])


def test_extreme_parameters_stay_legal(cm):
    """Parameters at the ends of their ranges still give legal, finite play."""
    game, compiled = cm
    for spec in game.strategies().values():
        for end in ("lo", "hi"):
            params = [f"{spec.name}.{p.name}={getattr(p, end)}" for p in spec.params]
            lineup = build_lineup(game, [spec.name, "random"], 2, params)
            # the search player at its budget limit (4,096 iterations a decision): a few
            # games
            cols = game.simulate(compiled, lineup, 1, 0, 4 if spec.name == "search" else 300)
            assert np.isfinite(cols["win_share"]).all()
            assert (cols["score"] >= 0).all()


def _random_tables(n_kinds: int, n_cols: int, kind_col: int, seed: int):
    """Random option tables: every kind, small values (negatives too), 1-20 rows."""
    rng = np.random.default_rng(seed)
    for _ in range(400):
        n = int(rng.integers(1, 21))
        opts = rng.integers(-2, 6, size=(64, n_cols)).astype(np.int32)
        opts[:n, kind_col] = rng.integers(0, n_kinds, size=n)
        yield opts, n, rng.uniform(0.0, 3.0, size=12)


def test_carnuta_greedy_agrees_with_greedy_score():
    """greedy writes its row values out (for speed); they must equal greedy_score's, which
    the rollout player ranks its candidates by."""
    from simkit.games.carnuta import layout as CL
    from simkit.games.carnuta.scoring import greedy_score
    from strategies import carnuta as cs

    state = np.zeros(1, np.uint64)
    for opts, n, params in _random_tables(9, CL.N_COLS, CL.KIND, 1):
        values = [greedy_score(opts, i, params) for i in range(n)]
        assert cs.greedy(opts, n, params, 1.0, state) == int(np.argmax(values))  # ties: 1st
        assert values[cs.greedy(opts, n, params, 0.0, state)] == max(values)  # ties: random


def test_inori_greedy_agrees_with_greedy_score():
    from simkit.games.inori import layout as IL
    from simkit.games.inori.scoring import greedy_score
    from strategies import inori as ist

    state = np.zeros(1, np.uint64)
    for opts, n, params in _random_tables(10, IL.N_COLS, IL.KIND, 2):
        values = [greedy_score(opts, i, *params[:4]) for i in range(n)]
        params[IL.GREEDY_TIES] = 1.0  # the first row
        assert ist.greedy(opts, n, params, state) == int(np.argmax(values))
        params[IL.GREEDY_TIES] = 0.0  # one of the best at random
        assert values[ist.greedy(opts, n, params, state)] == max(values)
