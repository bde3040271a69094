"""What `simkit value` changes to value each Pig component.

- Face (each face that scores): blanked for one seat (restricted play: when that seat
  rolls it, it adds nothing, but it does not bust), one variant per seat. The dice roll
  the same numbers, so every game lines up with the game as configured. Value: what the
  face's points are worth to a player.
"""

from __future__ import annotations

from simkit.config import GameConfig
from simkit.games.base import Compiled
from simkit.interventions import Intervention, ban, withheld

from .layout import RU_BAN_FACE, RU_BAN_SEAT

WHY = {
    "Face": "blanked for one seat (rolling it adds nothing, and does not bust), in turn "
            "for every seat.",
}


def interventions(config: GameConfig, compiled: Compiled, players: int) -> list[Intervention]:
    """Every face that scores, in config order."""
    names, tables = compiled.names, compiled.tables
    out = []
    for f, ident in enumerate(names.face_ids):
        if tables.points[f] > 0 and not tables.bust[f]:
            out += withheld("Face", ident, names.face_names[f], players,
                            ban(RU_BAN_SEAT, RU_BAN_FACE, f))
    return out
