"""docs/rules/<game>.md is a map of the code: each section on a rule names the function that
applies it as `file.py:function`, and every such name is a function of that game's file."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("carnuta", "cauldron_master", "inori")
NOT_A_RULE = ("Placeholders", "Readings of open clauses")  # choices, not steps of play
NAMED = re.compile(r"`(\w+)\.py:(\w+)`")


@cache
def defined(game: str, module: str) -> set[str]:
    """The functions a game's module defines (read once per module)."""
    source = (ROOT / "simkit" / "games" / game / f"{module}.py").read_text()
    return set(re.findall(r"^def (\w+)\(", source, flags=re.MULTILINE))


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_heading_names_its_function(game):
    doc = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    headings = re.findall(r"^## (.+)$", doc, flags=re.MULTILINE)
    assert headings
    unnamed = [h for h in headings if not h.startswith(NOT_A_RULE) and not NAMED.search(h)]
    assert not unnamed, f"docs/rules/{game}.md headings without a `file.py:function`: {unnamed}"


@pytest.mark.parametrize("game", GAMES)
def test_every_named_function_exists(game):
    doc = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    named = NAMED.findall(doc)
    assert named
    missing = [f"{m}.py:{f}" for m, f in named
               if not (ROOT / "simkit" / "games" / game / f"{m}.py").exists()
               or f not in defined(game, m)]
    assert not missing, f"docs/rules/{game}.md names functions that are not there: {missing}"
