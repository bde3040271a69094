"""What `simkit value` changes to value each Inori component.

Every kind is withheld from one seat (restricted play), one variant per seat; everyone
else plays as usual, and no deck changes, so every shuffle and draw lines up with the game
as configured:
- Journey, Start and New Start card: that seat may not make offerings to the card's
  spaces (a moving Rune may still put its marker there). Value: what access to the card
  is worth to a player.
- Great Tree space: that seat may not make offerings to it.
- Rune tile kind: that seat may not play Rune tiles of that kind (it still draws them).
- Colour: that seat takes no Favor tokens of the colour (an effect, Rune tile or root
  space that would give it some gives it none; a colour chosen from the supply is not
  offered), so it cannot pay that colour's costs either. Value: what access to the
  colour is worth. (The option rows' token counts still show what the space would give
  others: a restricted greedy seat may choose an offering whose tokens it will not get.)
"""

from __future__ import annotations

from simkit.config import GameConfig
from simkit.games.base import Compiled
from simkit.interventions import Intervention, ban, withheld

from .layout import R_BAN_CARD, R_BAN_COLOUR, R_BAN_RUNE, R_BAN_SEAT, R_BAN_TREE, RUNE_KINDS

CARD_KINDS = (("cards", "Journey card"), ("start_cards", "Start card"),
              ("new_start_cards", "New Start card"))
RUNE_NAMES = {"gain": "Favor tokens", "move_to_colour": "Move to a colour",
              "move_from_colour": "Move from a colour", "occupied": "Occupied space"}

WHY = {
    "Journey card": "withheld from one seat (that player may not make offerings to it), in "
                    "turn for every seat.",
    "Start card": "withheld from one seat (that player may not make offerings to it), in "
                  "turn for every seat.",
    "New Start card": "withheld from one seat (that player may not make offerings to it), "
                      "in turn for every seat.",
    "Great Tree space": "withheld from one seat (that player may not make offerings to it), "
                        "in turn for every seat.",
    "Rune tile kind": "withheld from one seat (that player may not play Rune tiles of this "
                      "kind), in turn for every seat.",
    "Colour": "withheld from one seat (that player takes no Favor tokens of this colour, "
              "so cannot pay its costs either), in turn for every seat.",
}


def _restrict(entry: int, index: int):
    return ban(R_BAN_SEAT, entry, index)


def interventions(config: GameConfig, compiled: Compiled,
                  players: int) -> list[Intervention]:
    """Every card, tree space, colour and Rune tile kind in play, in config order."""
    names = compiled.names
    out = []
    code = {ident: c for c, ident in enumerate(names.card_ids)}
    for table, kind in CARD_KINDS:
        for entry in config.data.get(table, []):
            ident = entry["id"]
            if ident in code:
                out += withheld(kind, ident, str(entry.get("name", ident)), players,
                                _restrict(R_BAN_CARD, code[ident]))
    for ts, ident in enumerate(names.tree_ids):
        out += withheld("Great Tree space", ident, ident, players, _restrict(R_BAN_TREE, ts))
    for x, ident in enumerate(names.colour_ids):
        out += withheld("Colour", ident, names.colours[x], players, _restrict(R_BAN_COLOUR, x))
    kinds = {t.get("kind") for t in config.data.get("runes", []) if isinstance(t, dict)}
    for k, kind in enumerate(RUNE_KINDS):
        if kind in kinds:
            out += withheld("Rune tile kind", kind, RUNE_NAMES.get(kind, kind), players,
                            _restrict(R_BAN_RUNE, k))
    return out
