"""simkit/players.py: a built-in game's players are found by name and handed to its
kernel; the ids and parameter columns the kernel tells apart (each game's layout.py)
are the players' own."""

from __future__ import annotations

import importlib

import pytest

from simkit.errors import SimkitError
from simkit.players import builtin_players, players_file, players_of, registry

GAMES = ("cauldron_master", "carnuta", "inori")


@pytest.mark.parametrize("module", GAMES)
def test_the_kernel_ids_are_the_players_ids(module):
    layout = importlib.import_module(f"simkit.games.{module}.layout")
    specs = registry(module)
    for name, sid in (("random", layout.RANDOM), ("greedy", layout.GREEDY),
                      ("planner", layout.PLANNER), ("rollout", layout.ROLLOUT),
                      ("search", layout.SEARCH)):
        assert specs[name].sid == sid, name


@pytest.mark.parametrize("module", GAMES)
def test_the_kernel_reads_ties_where_each_player_keeps_it(module):
    layout = importlib.import_module(f"simkit.games.{module}.layout")
    specs = registry(module)
    for name, column in (("greedy", layout.GREEDY_TIES), ("planner", layout.PLANNER_TIES),
                         ("rollout", layout.ROLLOUT_TIES)):
        assert specs[name].params[column].name == "ties", name
    if hasattr(layout, "ROLLOUT_WEIGHTS"):  # the rollout's copy of the planner's weights
        planner = [p.name for p in specs["planner"].params]
        rollout = specs["rollout"].params[layout.ROLLOUT_WEIGHTS:]
        assert [p.name for p in rollout] == planner


@pytest.mark.parametrize("module", GAMES)
def test_a_kernel_is_handed_its_players_choose(module):
    play = importlib.import_module(f"simkit.games.{module}.play")
    players = builtin_players(module)
    assert play.choose is players.choose
    assert players_file(module) == players.__file__
    assert players.__name__ == f"strategies.{module}"


def test_a_name_the_players_lack_is_one_clear_error():
    with pytest.raises(SimkitError, match=r"cauldron_master\.py: the game's kernel needs "
                                          r"'no_such_policy'"):
        players_of("cauldron_master", "choose", "no_such_policy")
