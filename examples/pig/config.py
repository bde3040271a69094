"""Pig's config -> validated numpy tables for the kernel.

Tables are kernel arguments, never globals, so a `--set` override takes effect without
recompiling. Every problem is one ConfigError naming the file, key and value.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.config import GameConfig, Reader

from . import layout as L

FINISHES = ("immediate", "equal_turns")  # layout.FINISH_* in this order


class Tables(NamedTuple):
    """Everything the kernel needs to know about the rules (layout.py FA_*, RU_*)."""

    faces: np.ndarray  # int64[F, FA_COLS]
    rules: np.ndarray  # int64[RU_SIZE]

    goal = property(lambda self: int(self.rules[L.RU_GOAL]))
    points = property(lambda self: self.faces[:, L.FA_POINTS])
    bust = property(lambda self: self.faces[:, L.FA_BUST].astype(bool))
    start = property(lambda self: self.rules[L.RU_START:L.RU_START + L.MAX_PLAYERS])


class Names(NamedTuple):
    """What the tools show: player counts, component ids (one result column each)."""

    players: list[int]
    face_ids: list[str]
    face_names: list[str]

    @property
    def ids(self) -> dict[str, list[str]]:
        """Component lists of layout.OUTPUTS (`rolled` has one column per face)."""
        return {"faces": self.face_ids}


def compile_tables(config: GameConfig) -> tuple[Tables, Names]:
    """Validate `config` and pack it into the kernel's tables."""
    r = Reader(config)
    players = r.get("game.players")
    if (not isinstance(players, list) or not players
            or not all(isinstance(p, int) and 2 <= p <= L.MAX_PLAYERS for p in players)):
        raise r.error("game.players", players, f"expected a list of counts 2..{L.MAX_PLAYERS}")
    faces = r.table_list("faces", 2, L.MAX_FACES)
    table = np.zeros((len(faces), L.FA_COLS), np.int64)
    for i, face in enumerate(faces):
        where = f"faces.{face['id']}"
        table[i, L.FA_POINTS] = r.int("points", 0, 1000, face, f"{where}.points")
        if "bust" in face:
            table[i, L.FA_BUST] = r.bool("bust", face, f"{where}.bust")
    if table[:, L.FA_BUST].all():
        raise r.error("faces", None, "every face busts: no turn could ever score")
    if not (table[:, L.FA_POINTS] > 0).any():
        raise r.error("faces", None, "no face scores points: no game could ever end")
    rules = np.zeros(L.RU_SIZE, np.int64)
    rules[L.RU_GOAL] = r.int("game.goal", 1, 30000)
    rules[L.RU_FINISH] = FINISHES.index(r.choice("options.finish", FINISHES))
    start = r.get("compensation.start")
    if (not isinstance(start, list) or len(start) != L.MAX_PLAYERS
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 30000
                       for v in start)):
        raise r.error("compensation.start", start,
                      f"expected {L.MAX_PLAYERS} starting scores, each 0 or more")
    rules[L.RU_START:L.RU_START + L.MAX_PLAYERS] = start
    rules[L.RU_BAN_SEAT] = -1
    rules[L.RU_BAN_FACE] = -1
    names = Names(sorted(players), [f["id"] for f in faces],
                  [str(f.get("name", f["id"])) for f in faces])
    return Tables(table, rules), names
