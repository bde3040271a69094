"""What `simkit value` changes to value each Inori component.

Every kind is withheld from one seat (restricted play), one variant per seat; everyone
else plays as usual, and no deck changes, so every shuffle and draw lines up with the game
as configured:
- Journey, Start and New Start card: that seat may not make offerings to the card's
  spaces (a moving Rune may still put its marker there). Value: what access to the card
  is worth to a player.
- Great Tree space: that seat may not make offerings to it.
- Rune tile kind: that seat may not play Rune tiles of that kind (it still draws them).
Colours have no intervention: a colour is on cards, tokens, tiles and costs at once, and
no single change isolates it.
"""

from __future__ import annotations

from simkit.config import GameConfig
from simkit.games.base import Compiled
from simkit.interventions import Intervention, withheld

from .layout import R_BAN_CARD, R_BAN_RUNE, R_BAN_SEAT, R_BAN_TREE, RUNE_KINDS

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
}


def _restrict(slot: int, index: int):
    def restrict(compiled: Compiled, seat: int) -> Compiled:
        rules = compiled.tables.rules.copy()
        rules[R_BAN_SEAT] = seat
        rules[slot] = index
        return compiled._replace(tables=compiled.tables._replace(rules=rules))
    return restrict


def interventions(config: GameConfig, compiled: Compiled,
                  players: int) -> list[Intervention]:
    """Every card, tree space and Rune tile kind in play, in config order."""
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
    kinds = {t.get("kind") for t in config.data.get("runes", []) if isinstance(t, dict)}
    for k, kind in enumerate(RUNE_KINDS):
        if kind in kinds:
            out += withheld("Rune tile kind", kind, RUNE_NAMES.get(kind, kind), players,
                            _restrict(R_BAN_RUNE, k))
    return out
