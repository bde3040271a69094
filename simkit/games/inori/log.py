"""A traced Inori game as a readable log (for `simkit play`), season by season."""

from __future__ import annotations

from typing import Any

from . import layout as L

SOURCE_LABELS = ("card effects", "tree effects", "completed cards", "New Start cards",
                 "majorities")


def format_log(compiled: Any, lineup: Any, replay: Any) -> str:
    """Offerings, runes, gains and points as they happen; season-end scoring; the final
    majorities; a per-player breakdown of points by source."""
    names = compiled.names
    t = compiled.tables
    out = replay.out
    n_players = out[L.O_SCORE].shape[1]
    strategy, score, rank = out[L.O_STRATEGY][0], out[L.O_SCORE][0], out[L.O_RANK][0]
    points, tokens_held = out[L.O_POINTS][0], out[L.O_TOKENS][0]
    seat_name = [f"Seat {s} ({lineup.names[strategy[s]]})" for s in range(n_players)]

    def colour(x: int) -> str:
        return names.colours[x] if x >= 0 else "-"

    def card(c: int) -> str:
        if c < 0:
            return "(no card)"
        kind = L.CARD_KINDS[t.card_kind[c]].replace("_", " ")
        return (f"{names.card_ids[c]} ({kind}, {colour(int(t.card_colour[c]))}, "
                f"then {colour(int(t.card_next[c]))}, {t.card_spaces[c]} spaces)")

    def space(code: int) -> str:
        return f"slot {code // L.MAX_SPACES} space {code % L.MAX_SPACES}"

    lines: list[str] = []
    season = -1
    for ssn, event, seat, a, b, c in replay.events.tolist():
        if ssn != season and event not in (L.EV_SETUP_CARD, L.EV_ROOT):
            season = ssn
            lines.append(f"\n== Season {ssn + 1} ==")
        who = seat_name[seat] if seat >= 0 else ""
        if event == L.EV_SETUP_CARD:
            lines.append(f"Setup: slot {a} <- {card(b)}")
        elif event == L.EV_ROOT:
            lines.append(f"Setup: root space {names.tree_ids[a]} holds {colour(b)} and "
                         f"{colour(c)}")
        elif event == L.EV_RUNE:
            lines.append(f"  {who} plays Rune tile {names.rune_ids[a]} ({L.RUNE_KINDS[b]})")
        elif event == L.EV_MOVE:
            piece = ("their marker" if c == seat else "a neutral marker" if c == L.NEUTRAL
                     else f"Seat {c}'s marker")
            lines.append(f"    moves {piece} from {space(a)} to {space(b)}")
        elif event == L.EV_CARD:
            lines.append(f"  {who} offers to {card(c)} in slot {a}, space {b}")
        elif event == L.EV_TREE:
            what = (f", placing the {colour(b)} Altar tile" if c else
                    f" ({colour(b)} tile)" if b >= 0 else "")
            lines.append(f"  {who} offers to the Great Tree at {names.tree_ids[a]}{what}")
        elif event == L.EV_PASS:
            lines.append(f"  {who} has no legal offering: the marker is lost this season")
        elif event == L.EV_PAY:
            lines.append(f"    pays {b} {colour(a)}")
        elif event == L.EV_GAIN:
            lines.append(f"    gains {b} {colour(a)}")
        elif event == L.EV_POINTS:
            lines.append(f"    scores {a} ({SOURCE_LABELS[b]})")
        elif event == L.EV_DRAW_RUNE:
            lines.append(f"    draws Rune tile {names.rune_ids[a]}")
        elif event == L.EV_BLOCK:
            lines.append(f"    blocks slot {a} space {b} with a neutral marker")
        elif event == L.EV_COMPLETE:
            lines.append(f"Season end: {card(b)} in slot {a} is complete")
        elif event == L.EV_INCOMPLETE:
            lines.append(f"Season end: {card(b)} in slot {a} is incomplete")
        elif event == L.EV_SCORE:
            lines.append(f"    {who} scores {b} ({SOURCE_LABELS[c]})")
        elif event == L.EV_REPLACE:
            lines.append(f"    slot {a}: replaced by {card(c)}")
        elif event == L.EV_RESHUFFLE:
            lines.append(f"    the {colour(a)} deck is rebuilt from {b} discarded cards")
        elif event == L.EV_MARKERS:
            lines.append(f"  {who} will have {a} markers next season")
        elif event == L.EV_FIRST:
            lines.append(f"  {who} has the fewest points and goes first next season")
        elif event == L.EV_NEW_START:
            other = f" (returns {names.card_ids[b]})" if b >= 0 else ""
            lines.append(f"  {who} keeps New Start card {card(a)}{other}")
        elif event == L.EV_END:
            lines.append(f"\nGame over after {a} seasons. Majorities:")
        elif event == L.EV_MAJORITY:
            place = "1st" if c == 1 else "2nd"
            lines.append(f"  {who}: {place} in {colour(a)}, {b} points")
    lines.append("Final scores:")
    comp = compiled.tables.compensation
    for s in range(n_players):
        parts = ", ".join(f"{label} {points[s, k]}" for k, label in enumerate(SOURCE_LABELS))
        parts += f", seat compensation {int(comp[s]):+d}" if comp[s] else ""
        tokens = ", ".join(f"{v} {names.colours[x]}" for x, v in enumerate(tokens_held[s]) if v)
        lines.append(f"  {seat_name[s]}: {score[s]} points, rank {rank[s]} "
                     f"({parts}); tokens: {tokens or 'none'}")
    return "\n".join(lines).lstrip("\n")
