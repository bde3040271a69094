"""A traced Pig game as a readable log (for `simkit play`)."""

from __future__ import annotations

from typing import Any

from . import layout as L


def format_log(compiled: Any, lineup: Any, replay: Any) -> str:
    """Every turn: the rolls, then the hold or the bust; the final scores."""
    names = compiled.names
    out = replay.out
    n_players = out[L.O_SCORE].shape[1]
    seat_name = [f"Seat {s} ({lineup.names[out[L.O_STRATEGY][0, s]]})" for s in range(n_players)]
    lines: list[str] = []
    rolls: list[str] = []
    current = -1
    for rnd, event, seat, a, b, _c in replay.events.tolist():
        if rnd != current:
            current = rnd
            lines.append(f"\n== Round {rnd + 1} ==")
        if event == L.EV_ROLL:
            rolls.append(names.face_names[a])
        elif event == L.EV_BUST:
            lines.append(f"{seat_name[seat]} rolls {' '.join(rolls)}: bust, "
                         f"loses {b} points")
            rolls = []
        elif event == L.EV_HOLD:
            lines.append(f"{seat_name[seat]} rolls {' '.join(rolls)}, holds: +{a} = {b}")
            rolls = []
        elif event == L.EV_END:
            lines.append(f"\nSeat {seat} reaches {a}: game over.")
    lines.append("Final scores:")
    for s in range(n_players):
        lines.append(f"  {seat_name[s]}: {out[L.O_SCORE][0, s]} points, "
                     f"rank {out[L.O_RANK][0, s]}, {out[L.O_TURNS][0, s]} turns, "
                     f"{out[L.O_BUSTS][0, s]} busts")
    return "\n".join(lines).lstrip("\n")
