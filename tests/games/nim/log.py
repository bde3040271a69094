"""A traced Nim game as a readable log."""

from __future__ import annotations

from typing import Any

from . import layout as L


def format_log(compiled: Any, lineup: Any, replay: Any) -> str:
    """Every take, then who took the last stone."""
    lines = []
    for rnd, seat, _kind, _n, chosen, first in replay.decisions.tolist():
        lines.append(f"Round {rnd + 1}: seat {seat} takes {replay.options[first + chosen, L.TAKE]}")
    if lines:
        lines.append(f"Seat {replay.decisions[-1, 1]} takes the last stone and wins.")
    return "\n".join(lines)
