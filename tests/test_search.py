"""The search player (simkit/kernels/search.py) through the game API: optimal play on a
small game whose optimal play is known (Nim), legal options only, whole games replayed
identically through batch and traced play, determinism, and its parameters' errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.engine import build_lineup
from simkit.errors import SimkitError
from simkit.games import get_game
from simkit.kernels.search_tree import FIRST, NEXT, VISITS, add_child, clear, new_tree, settled
from simkit.rng import GOLDEN
from simkit.testing import assert_same_across_threads_and_chunks

ROOT = Path(__file__).resolve().parent.parent
NIM = Path(__file__).resolve().parent / "games" / "nim"
PIG = ROOT / "examples" / "pig"


@pytest.fixture(scope="module")
def nim():
    game = get_game(str(NIM))
    return game, game.compile(game.load_config())


@pytest.fixture(scope="module")
def pig():
    game = get_game(str(PIG))
    return game, game.compile(game.load_config())


def nim_choice(game, compiled, pile: int, seed: int, **params: float) -> int:
    """The stones the search player takes from `pile` (seat 0 of 2 to move)."""
    kernel, layout = game.kernel, game.layout
    pub, opts, hid, cnt, _rngs, _ranking, _rs, ss = kernel.new_scratch(compiled.tables)
    pub[layout.N_PLAYERS], pub[layout.PILE], pub[layout.WINNER] = 2, pile, -1
    n = kernel.next_decision(compiled.tables, 2, pub, hid, cnt, opts, np.zeros(1, np.uint64),
                             None, False)
    vector = game.strategies()["search"].vector(params)
    seen = kernel.Decision(pub, hid, cnt, ss)
    c = kernel.search_choice(compiled.tables, 2, 0, seen, opts, n, vector,
                             np.array([seed], np.uint64))
    return int(opts[c, layout.TAKE])


@pytest.mark.parametrize("pile", range(1, 10))
def test_plays_nim_optimally(nim, pile):
    """From every winning pile up to 9 (takes of 1-3: not a multiple of 4) it takes pile
    mod 4, the only winning move, at 256 iterations with random playouts, whatever its
    stream; from a losing pile any take is as good."""
    game, compiled = nim
    for seed in range(1, 21):
        take = nim_choice(game, compiled, pile, seed, iterations=256)
        assert 1 <= take <= min(3, pile)
        if pile % 4:
            assert take == pile % 4, (pile, seed)


def test_settled_when_no_move_can_overtake():
    """Settled once the most-visited root move leads the next by more than the iterations
    left; a move not tried yet counts as none."""
    tree = new_tree(2, 4)
    clear(tree)
    for key, visits in ((7, 10), (8, 4), (9, 1)):
        tree[VISITS][add_child(tree, 0, key, 0.0)] = visits
    assert settled(tree, 5) and not settled(tree, 6)
    clear(tree)
    tree[VISITS][add_child(tree, 0, 7, 0.0)] = 3
    assert settled(tree, 2) and not settled(tree, 3)


def test_stops_early_with_the_full_budgets_choice_and_stream(nim):
    """A search that stops early has a move leading by more than the iterations it left
    (they could not change the most-visited move), and its seat's stream has still taken
    one draw per iteration of the budget, so every later decision is the full budget's."""
    game, compiled = nim
    kernel, layout = game.kernel, game.layout
    vector = game.strategies()["search"].vector({"iterations": 256})
    stopped = 0
    for pile in range(2, 10):
        for seed in range(1, 11):
            pub, opts, hid, cnt, _rngs, _ranking, _rs, ss = kernel.new_scratch(
                compiled.tables)
            pub[layout.N_PLAYERS], pub[layout.PILE], pub[layout.WINNER] = 2, pile, -1
            n = kernel.next_decision(compiled.tables, 2, pub, hid, cnt, opts,
                                     np.zeros(1, np.uint64), None, False)
            rng = np.array([seed], np.uint64)
            seen = kernel.Decision(pub, hid, cnt, ss)
            c = kernel.search_choice(compiled.tables, 2, 0, seen, opts, n, vector, rng)
            assert int(rng[0]) == (seed + 256 * int(GOLDEN)) % 2**64
            tree, visits = ss[0], []
            child = tree[FIRST][0]
            while child >= 0:
                visits.append(int(tree[VISITS][child]))
                child = tree[NEXT][child]
            visits.sort(reverse=True)
            done = int(tree[VISITS][0])
            if done < 256:
                stopped += 1
                assert visits[0] - (visits[1] if len(visits) > 1 else 0) > 256 - done
            assert int(opts[c, layout.TAKE]) == pile % 4 or pile % 4 == 0
    assert stopped > 0


def test_wins_whole_games_of_nim_against_greedy(nim):
    """Whole games from piles of 6-9 against greedy (takes 3): the search player wins every
    game it can win, all but those it starts on a multiple of 4, or that greedy leaves it
    one."""
    game, _ = nim
    compiled = game.compile(game.load_config(("game.pile=6",)))
    lineup = build_lineup(game, ["search", "greedy"], 2, ["search.iterations=256"])
    cols = game.simulate(compiled, lineup, 3, 0, 100)
    won = np.where(cols["strategy"] == 0, cols["win_share"], 0).sum(axis=1)
    pile = cols["score"].sum(axis=1)  # every stone is taken: the points add up to the pile
    first = cols["strategy"][:, 0] == 0
    winnable = np.where(first, pile % 4 != 0, (pile - 3) % 4 != 0)
    assert winnable.sum() > 50
    assert (won[winnable] == 1).all()


def test_legal_and_replayed_identically(pig, nim):
    """Every option it plays is a row of the table offered, and every game replays through
    traced play to the same results as batch play."""
    for game, compiled in (pig, nim):
        lineup = build_lineup(game, ["search", "greedy"], 2, ["search.iterations=32"])
        cols = game.simulate(compiled, lineup, 5, 0, 12)
        for g in range(12):
            replay = game.replay(compiled, lineup, 5, g)
            chosen, offered = replay.decisions[:, 4], replay.decisions[:, 3]
            assert ((chosen >= 0) & (chosen < offered)).all()
            for col, values in game.columns(compiled, replay.out).items():
                assert np.array_equal(values[0], cols[col][g]), (game.name, g, col)


def test_deterministic_across_threads_and_chunks(pig):
    game, compiled = pig
    lineup = build_lineup(game, ["search", "rollout", "greedy"], 3,
                          ["search.iterations=16", "rollout.rollouts=4"])
    assert_same_across_threads_and_chunks(game, compiled, lineup, 9, 30)


def test_parameters_matter(pig):
    """The budget, exploration, horizon and policy each change decisions."""
    game, compiled = pig
    base = game.simulate(compiled, build_lineup(game, ["search", "greedy"], 2,
                                                ["search.iterations=24"]), 3, 0, 30)
    for setting in ("search.iterations=8", "search.explore=3", "search.horizon=2",
                    "search.policy=0", "search.threshold=5"):
        other = game.simulate(compiled, build_lineup(
            game, ["search", "greedy"], 2, ["search.iterations=24", setting]), 3, 0, 30)
        assert not np.array_equal(base["score"], other["score"]), setting


def test_beats_random_at_pig(pig):
    game, compiled = pig
    lineup = build_lineup(game, ["search", "random"], 2, ["search.iterations=64"])
    cols = game.simulate(compiled, lineup, 1, 0, 100)
    per_game = np.where(cols["strategy"] == 0, cols["win_share"], 0).sum(axis=1)
    assert per_game.mean() - 1.96 * per_game.std(ddof=1) / 10 > 0.5


def test_every_game_api_game_lists_it(pig, nim):
    for game, _ in (pig, nim):
        spec = game.strategies()["search"]
        assert spec.sid == game.kernel.SEARCH
        assert [p.name for p in spec.params[:4]] == ["iterations", "explore", "horizon",
                                                     "policy"]


@pytest.mark.parametrize("setting, message", [
    ("search.iterations=0", "iterations = 0.0 is out of range [1.0, 4096.0]"),
    ("search.iterations=5000", "iterations = 5000.0 is out of range [1.0, 4096.0]"),
    ("search.policy=2", "policy = 2.0 is out of range [0.0, 1.0]"),
])
def test_bad_parameters_are_one_error_line(pig, setting, message):
    game, _ = pig
    with pytest.raises(SimkitError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build_lineup(game, ["search", "greedy"], 2, [setting])
    result = CliRunner().invoke(main, ["run", str(PIG), "--players", "2", "--strategies",
                                       "search,greedy", "--param", setting, "--games", "2",
                                       "--out", "unused"])
    assert result.exit_code != 0
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines == [f"Error: strategy 'search': parameter {message}"]
