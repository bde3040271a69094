"""A traced Dice Pick game as text (for `simkit play`)."""

from __future__ import annotations

from typing import Any

from . import layout as L


def format_log(compiled: Any, lineup: Any, replay: Any) -> str:
    out = replay.out
    n = out[L.O_SCORE].shape[1]
    lines = [f"Seat {seat} rolls {a}: {b}" for _r, _e, seat, a, b, _c in replay.events.tolist()]
    lines += [f"Seat {s}: {out[L.O_SCORE][0, s]} points, rank {out[L.O_RANK][0, s]}"
              for s in range(n)]
    return "\n".join(lines)
