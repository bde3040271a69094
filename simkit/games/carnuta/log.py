"""A traced Carnuta game as a readable log (for `simkit play`)."""

from __future__ import annotations

from typing import Any

from . import layout as L

SIDES = ("Sun", "Moon")
ROWS = ("Day", "Night")


def format_log(compiled: Any, lineup: Any, replay: Any) -> str:
    """Actions, runes paid, cards revealed, bonuses, the end trigger, scoring per card."""
    names = compiled.names
    t = compiled.tables
    out = replay.out
    n_players = out[L.O_SCORE].shape[1]
    seat_name = [f"Seat {s} ({lineup.names[out[L.O_STRATEGY][0, s]]})" for s in range(n_players)]

    def card(c: int) -> str:
        if c < 0:
            return "(none)"
        kind = L.CARD_KINDS[t.card_kind[c]]
        ing = "Salt" if t.card_ingredient[c] < 0 else names.ingredients[t.card_ingredient[c]]
        extra = f" {kind}" if kind == "double" else ""
        line = L.SCORE_KINDS[t.score_kind[c]]
        listed = [names.ingredients[x] for x in t.score_ingredients[c] if x >= 0]
        what = f"{line} {t.score_points[c]}" + (f" [{', '.join(listed)}]" if listed else "")
        icons = [f"{v}x{L.COST_ICONS[i]}" for i, v in enumerate(t.cost[c]) if v]
        cost = f" cost {' '.join(icons)}" if icons else ""
        return f"{names.card_ids[c]} ({ing}{extra}; {what};{cost})".replace(";)", ")")

    lines: list[str] = []
    current = -1
    setup_reveals: list[str] = []
    for rnd, event, seat, a, b, c in replay.events.tolist():
        acts = (L.EV_TAKE, L.EV_PAY, L.EV_PLAY, L.EV_RUNES, L.EV_FLIP, L.EV_SICKLE, L.EV_PASS)
        if event in acts and rnd != current:
            current = rnd
            lines.append(f"\n== Round {rnd + 1} ==")
        who = seat_name[seat] if seat >= 0 else ""
        if event == L.EV_SETUP:
            lines.append(f"{who}: starting card {card(a)}")
        elif event == L.EV_REVEAL:
            text = f"slot {a} ({ROWS[a // L.SLOTS_PER_ROW]}) <- {card(b)}; {c} left in deck"
            if current < 0:
                setup_reveals.append("  " + text)
            else:
                lines.append("    revealed " + text)
        elif event == L.EV_TAKE:
            lines.append(f"  {who} takes {card(b)} from slot {a}")
        elif event == L.EV_PAY:
            lines.append(f"  {who} pays: {a} rune(s) flipped, {b} returned to the reserve")
        elif event == L.EV_PLAY:
            # the event's count is the counter (the starting card on it when the option
            # says so); the log counts cards played, as the cards_played column does
            lines.append(f"  {who} plays {card(a)} into the {names.ingredients[b]} column "
                         f"({c - int(t.start_counts)} cards played besides the starting "
                         "card)")
        elif event == L.EV_RUNES:
            lines.append(f"  {who} takes {b} {SIDES[a]} rune(s) from the reserve")
        elif event == L.EV_FLIP:
            lines.append(f"  {who} flips {b} rune(s) to {SIDES[a]}")
        elif event == L.EV_SICKLE:
            lines.append(f"  {who} uses a Sickle on the {ROWS[a]} row")
        elif event == L.EV_PASS:
            lines.append(f"  {who} has no action and passes")
        elif event == L.EV_DISCARD:
            lines.append(f"  {who} discards {card(a)} (hand limit)")
        elif event == L.EV_PADLOCK:
            lines.append(f"  {who}'s counter reaches {b}: a padlock is removed "
                         f"({a} rune spaces open)")
        elif event == L.EV_TOKEN:
            lines.append(f"  {who}'s counter reaches {b}: takes the {names.ingredients[a]} "
                         "Bonus Ingredient token")
        elif event == L.EV_RESHUFFLE:
            lines.append(f"    the {ROWS[a]} deck is rebuilt from {b} discarded cards")
        elif event == L.EV_TRIGGER:
            # the counter holds the starting card when options.starting_card_counts is on
            counted = (f"has {a} cards on the counter, the starting card included "
                       f"({a - 1} played)" if t.start_counts else f"has played {a} cards")
            lines.append(f"  ** {who} {counted}: the end is triggered; the round is finished"
                         + (", then each player takes one final turn"
                            if t.final_turns else ""))
        elif event == L.EV_END:
            why = "the round limit (options.max_rounds)" if seat == -2 else "the end trigger"
            lines.append(f"\nGame over after round {a + 1} ({why}). Scoring:")
        elif event == L.EV_SCORE:
            lines.append(f"  {who}: {card(a)} in {names.ingredients[b]}: {c} points")
        if event == L.EV_SETUP and seat == n_players - 1:
            lines.append("Face-up cards:")
            lines.extend(setup_reveals)
    for s in range(n_players):
        tokens = [names.ingredients[x] for x, v in enumerate(out[L.O_TOKEN][0, s])
                  for _ in range(v)]
        if tokens:
            lines.append(f"  {seat_name[s]}: Bonus Ingredient tokens count as 1 more "
                         f"{', '.join(tokens)}")
    lines.append("Final scores:")
    comp = compiled.tables.compensation
    for s in range(n_players):
        best = out[L.O_BEST_INGREDIENT_POINTS][0, s]
        extra = f" ({int(comp[s]):+d} seat compensation)" if comp[s] else ""
        lines.append(f"  {seat_name[s]}: {out[L.O_SCORE][0, s]} points{extra}, "
                     f"rank {out[L.O_RANK][0, s]}, {out[L.O_CARDS_PLAYED][0, s]} cards played, "
                     f"best ingredient {best} points")
    return "\n".join(lines).lstrip("\n")
