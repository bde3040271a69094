"""docs/options.md gives each rule option's default as the built-in config has it, and
the readings issue 47 settled hold: Inori's Rune tile has no timing in the text, so the
default is the literal reading; Carnuta's two starting-card options say how they
combine."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from simkit.games import get_game

DOC = Path(__file__).resolve().parent.parent / "docs" / "options.md"
SECTIONS = {"Cauldron Master": "cauldron-master", "Carnuta": "carnuta", "Inori": "inori"}


def _documented_defaults() -> dict[str, dict[str, object]]:
    """game -> option -> the default its row in docs/options.md gives."""
    found: dict[str, dict[str, object]] = {}
    game = None
    for line in DOC.read_text().splitlines():
        heading = re.match(r"## (\w[\w ]*?)( rule options|$)", line)
        if heading:
            game = SECTIONS.get(heading.group(1).strip())
        row = re.match(r"\| `(\w+)` \| `([^`]+)` \|", line)
        if game and row:
            try:
                value = tomllib.loads(f"v = {row.group(2)}")["v"]
            except tomllib.TOMLDecodeError:  # a default in words, not a value
                continue
            found.setdefault(game, {}).setdefault(row.group(1), value)
    return found


@pytest.mark.parametrize("game", sorted(SECTIONS.values()))
def test_every_documented_default_is_the_config_s(game):
    documented = _documented_defaults()[game]
    options = get_game(game).load_config().data["options"]
    rows = {k: v for k, v in documented.items() if k in options}
    assert len(rows) >= 5, documented  # the table was read
    assert {k: options[k] for k in rows} == rows


def test_inori_s_rune_timing_default_is_the_literal_reading():
    """"Además, OPCIONALMENTE, puedes jugar una ficha de runa" gives no time."""
    assert get_game("inori").load_config().data["options"]["rune_timing"] == "before_or_after"


def test_carnuta_s_starting_card_options_say_how_they_combine():
    text = DOC.read_text()
    for a in ("true", "false"):
        for b in ("true", "false"):
            assert re.search(rf"^\| `{a}`( \(default\))? \| `{b}`( \(default\))? \| ", text,
                             re.M), (a, b)
