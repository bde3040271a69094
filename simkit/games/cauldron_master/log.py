"""A traced Cauldron Master game as a readable log (for `simkit play`)."""

from __future__ import annotations

from typing import Any

from simkit.words import count

from . import layout as L


def recipe_text(compiled: Any, card: int, j: int) -> str:
    """Recipe j of recipe card `card`, e.g. "recipe 1 (2 Spider Venom + 1 Frog's Blood)"."""
    names, tables = compiled.names, compiled.tables
    parts = [f"{n} {names.ingredients[x]}" for x, n in enumerate(tables.recipe_types[card, j])
             if n]
    parts += [f"{n} {names.colours[c]}" for c, n in enumerate(tables.recipe_colours[card, j])
              if n]
    return f"recipe {j + 1} ({' + '.join(parts)})"


def format_log(compiled: Any, lineup: Any, replay: Any) -> str:
    """Witches chosen, turn order, cards taken and placed, potions scored (and the recipe
    each scored), final scores."""
    names = compiled.names
    caps = compiled.tables.capacity
    out = replay.out
    n_players = out[L.O_SCORE].shape[1]
    seat_name = [f"Seat {s} ({lineup.names[out[L.O_STRATEGY][0, s]]})" for s in range(n_players)]
    lines: list[str] = []
    order: list[str] = []
    cards = [0] * n_players  # recipe card of each seat
    recipe = ""  # the recipe the next potion scores (EV_RECIPE comes right before it)
    current = -1
    for rnd, event, seat, a, b, c in replay.events.tolist():
        if event in (L.EV_REVEAL, L.EV_ORDER, L.EV_TAKE, L.EV_POTION) and rnd != current:
            current = rnd
            lines.append(f"\n== Round {rnd + 1} ==")
        if event == L.EV_SETUP:
            cards[seat] = a
            lines.append(f"{seat_name[seat]}: recipe card {names.recipes[a]}")
        elif event == L.EV_REVEAL:
            lines.append(f"{seat_name[seat]} reveals the {names.witches[a]} "
                         f"(initiative {compiled.tables.initiative[a]})")
        elif event == L.EV_ORDER:
            order.append(f"seat {seat}")
            if len(order) == n_players:
                lines.append("Turn order: " + ", ".join(order))
                order = []
        elif event == L.EV_TAKE:
            lines.append(f"  {seat_name[seat]} takes {names.ingredients[a]} "
                         f"-> cauldron {b + 1} (size {caps[b]})")
        elif event == L.EV_RECIPE:
            recipe = recipe_text(compiled, cards[seat], b)
        elif event == L.EV_POTION:
            extra = f" + {c} recipe bonus, {recipe}" if c else ""
            recipe = ""
            lines.append(f"  {seat_name[seat]} brews cauldron {a + 1} (size {caps[a]}): "
                         f"{b} points{extra}")
        elif event == L.EV_REFILL:
            lines.append(f"Supply refilled with {a} cards; {b} left in the deck")
        elif event == L.EV_HECATE:
            lines.append(f"The Favour of Hecate passes to seat {seat}")
        elif event == L.EV_END:
            why = {-2: "the round limit (options.max_rounds) was reached",
                   -3: "the deck is empty (options.end_trigger = deck_empty)"}.get(
                seat, f"the deck ({b} cards) cannot refill the supply ({a} needed)")
            lines.append(f"\nGame over after round {rnd + 1}: {why}.")
    lines.append("Final scores:")
    comp = compiled.tables.compensation
    for s in range(n_players):
        extra = f" ({int(comp[s]):+d} seat compensation)" if comp[s] else ""
        lines.append(f"  {seat_name[s]}: {out[L.O_SCORE][0, s]} points{extra}, "
                     f"rank {out[L.O_RANK][0, s]}, {out[L.O_POTIONS][0, s]} potions, "
                     f"{count(int(out[L.O_CARDS_LEFT][0, s]), 'card')} left unbrewed")
    return "\n".join(lines).lstrip("\n")
