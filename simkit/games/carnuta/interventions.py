"""What `simkit value` changes to value each Carnuta component.

- Card and Bonus Ingredient token: withheld from one seat (restricted play: that seat may
  not take the card from the display, or the token from the centre; everyone else plays
  as usual), one variant per seat. Nothing about the decks changes, so every shuffle and
  draw lines up with the game as configured. Value: what access to the card or token is
  worth to a player. (Neutralising a card for everyone would hide a card every player
  plays: it lifts every player alike.)
- Starting card: its points set to 0 (a blank card, still dealt to the same seat: the
  starting cards keep their number). Value: what being dealt this card, rather than a
  blank one, is worth to the seat dealt it.
"""

from __future__ import annotations

from simkit.config import GameConfig
from simkit.games.base import Compiled
from simkit.interventions import Intervention, ban, dealt, withheld

from .layout import R_BAN_CARD, R_BAN_SEAT, R_BAN_TOKEN

WHY = {
    "Card": "withheld from one seat (that player may not take it from the display; the "
            "decks are unchanged), in turn for every seat.",
    "Bonus token": "withheld from one seat (that player may not take it from the centre), "
                   "in turn for every seat.",
    "Starting card": "its points set to 0 (a blank card, still dealt to the same seat). "
                     "Seats: the player dealt it.",
}


def _restrict(entry: int, index: int):
    return ban(R_BAN_SEAT, entry, index)


def interventions(config: GameConfig, compiled: Compiled,
                  players: int) -> list[Intervention]:
    """Every card, starting card and bonus token, in config order."""
    names = compiled.names
    entries = {e["id"]: e for e in config.data.get("cards", []) if isinstance(e, dict)}
    out = []
    for c, ident in enumerate(names.card_ids[: compiled.tables.n_ingredient_cards]):
        name = str(entries.get(ident, {}).get("name", ident))
        out += withheld("Card", ident, name, players, _restrict(R_BAN_CARD, c))
    starting = list(names.starting_ids)
    for s in config.data.get("starting_cards", []):
        if s["id"] in starting:
            out.append(Intervention("Starting card", s["id"], str(s.get("name", s["id"])),
                                    (f"starting_cards.{s['id']}.points=0",),
                                    dealt("starting_card", starting.index(s["id"]))))
    ingredients = {e["id"]: e for e in config.data.get("ingredients", [])}
    for x, ident in enumerate(names.ingredient_ids):
        if ident in config.data.get("bonus_tokens", {}).get("ingredients", []):
            name = f"{ingredients.get(ident, {}).get('name', ident)} token"
            out += withheld("Bonus token", ident, name, players, _restrict(R_BAN_TOKEN, x))
    return out
