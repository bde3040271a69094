"""What `simkit value` changes to value each Cauldron Master component.

- Ingredient: withheld from one seat (restricted play: that seat may not take it;
  everyone else plays as usual), one variant per seat. The deck is unchanged, so every
  shuffle and draw lines up with the game as configured. Value: what access to the
  ingredient is worth to a player. (Neutralising it for everyone would hide a strong
  ingredient: if every player brews it, it lifts every player alike.)
- Witch: blanked for one seat (that player still holds it and plays it in turn, so the
  hand cycles as usual, but it takes no cards), one variant per seat. Withholding the
  witch outright would also shorten that player's hand cycle: with about five rounds a
  game, a player without one witch plays their favourite twice, which measured as a gain
  of 16-36 win-share points for every witch. Value: what the witch's picks are worth
  against an empty turn at the same initiative.
- Recipe card: every bonus on it set to 0 (a blank card). It is still dealt to the same
  seat (the recipe deck keeps its size), so the seat touched is the one dealt it. Value:
  what being dealt this card, rather than a blank one, is worth.
"""

from __future__ import annotations

from simkit.config import GameConfig
from simkit.games.base import Compiled
from simkit.interventions import Intervention, ban, dealt, withheld

from .layout import RU_BAN_SEAT, RU_BAN_TYPE, RU_BAN_WITCH

WHY = {
    "Witch": "blanked for one seat (still held and played in turn, but it takes no "
             "cards), in turn for every seat.",
    "Ingredient": "withheld from one seat (that player may not take it; the deck is "
                  "unchanged), in turn for every seat.",
    "Recipe card": "every bonus on it set to 0 (a blank card, still dealt to the same seat). "
                   "Seats: the player dealt it.",
}


def _restrict(entry: int, index: int):
    return ban(RU_BAN_SEAT, entry, index)


def interventions(config: GameConfig, compiled: Compiled,
                  players: int) -> list[Intervention]:
    """Every witch, ingredient and recipe card, in config order."""
    names = compiled.names
    out = []
    for w, ident in enumerate(names.witch_ids):
        entry = next((e for e in config.data.get("witches", []) if e["id"] == ident), {})
        out += withheld("Witch", ident, str(entry.get("name", ident)), players,
                        _restrict(RU_BAN_WITCH, w))
    for x, ident in enumerate(names.ingredient_ids):
        entry = next((e for e in config.data.get("ingredients", []) if e["id"] == ident), {})
        out += withheld("Ingredient", ident, str(entry.get("name", ident)), players,
                        _restrict(RU_BAN_TYPE, x))
    for code, card in enumerate(config.data.get("recipe_cards", [])):
        r = card["id"]
        sets = tuple(f"recipe_cards.{r}.recipes.{j}.bonus=0"
                     for j in range(len(card.get("recipes", []))))
        out.append(Intervention("Recipe card", r, str(card.get("name", r)), sets,
                                dealt("recipe_card", code)))
    return out
