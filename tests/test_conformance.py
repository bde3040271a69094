"""Every registered game passes the shared conformance check."""

from __future__ import annotations

import pytest

from simkit.games import game_names
from simkit.testing import check_game


@pytest.mark.parametrize("name", game_names())
def test_game_conforms(name):
    check_game(name)
