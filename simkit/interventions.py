"""Interventions: what `simkit value` changes to learn what one component is worth.

An intervention names one component (a card, a witch, a space...) and the config change
that neutralises it, while keeping every deck the same size, so that the random streams
stay in step: the same deal, played as configured and with that one change, draws the same
cards in the same order until the change itself makes a player act differently. The seats
it `touches` are chosen from the game as configured (who was dealt the card, who played
it), so the paired difference of those seats' results between the two games is a causal
effect on those seats.

Each game lists its interventions in `simkit/games/<game>/interventions.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

Columns = Mapping[str, np.ndarray]  # a batch's (games, seats) result columns
Touched = Callable[[Columns], np.ndarray]  # -> bool (games, seats)

AA_KIND = "A/A control"
AA_KEY = "a_a"


@dataclass(frozen=True)
class Intervention:
    """One component and the change that neutralises it.

    `sets` are `--set KEY=VALUE` items applied on top of the run's config (so a variant can
    be replayed with `simkit run ... --set ...`); `touched` picks, from the game as
    configured, the seats whose results are compared. `fresh_deals` plays the variant on
    other deals (the A/A control: the same game, so its true value is exactly zero).
    """

    kind: str  # e.g. "Ingredient"
    key: str  # the component's id in the config
    name: str  # display name
    sets: tuple[str, ...]
    touched: Touched
    fresh_deals: bool = False
    patch: Callable[[Any], Any] | None = None  # compiled rules -> the variant's (restricted play)
    seat: int | None = None  # the seat a restricted-play variant restricts

    @property
    def label(self) -> str:
        return f"{self.kind}: {self.name}"


def used(column: str) -> Touched:
    """Seats whose count in `column` is above zero (played it, brewed it, used it)."""
    return lambda cols: np.asarray(cols[column]) > 0


def dealt(column: str, code: int) -> Touched:
    """Seats dealt category `code` in `column` (e.g. a recipe card)."""
    return lambda cols: np.asarray(cols[column]) == code


def seat_of(seat: int) -> Touched:
    """Seat `seat` in every game (restricted play withholds a component from it)."""
    def touched(cols: Columns) -> np.ndarray:
        out = np.zeros(np.asarray(cols["score"]).shape, bool)
        out[:, seat] = True
        return out
    return touched


def ban(seat_entry: int, entry: int, index: int) -> Callable[[Any, int], Any]:
    """`restrict(compiled, seat)` for a game whose rule table (`compiled.tables.rules`)
    has restricted-play entries: a copy with rules[seat_entry] = seat and
    rules[entry] = index (the component's index), the rest of the compiled game shared."""
    def restrict(compiled: Any, seat: int) -> Any:
        rules = compiled.tables.rules.copy()
        rules[seat_entry] = seat
        rules[entry] = index
        return compiled._replace(tables=compiled.tables._replace(rules=rules))
    return restrict


def withheld(kind: str, key: str, name: str, players: int,
             restrict: Callable[[Any, int], Any]) -> list[Intervention]:
    """Restricted play: the component withheld from one seat (the option rows that use it
    are not offered to that seat), one variant per seat; the rows of all seats are pooled
    into one value. `restrict(compiled, seat)` returns the variant's compiled rules."""
    return [Intervention(kind, key, name, (), seat_of(s),
                         patch=lambda compiled, s=s: restrict(compiled, s), seat=s)
            for s in range(players)]


def one_seat_per_game(cols: Columns) -> np.ndarray:
    """Seat (game mod players) of every game: fixed in advance, whatever happens."""
    games, players = np.asarray(cols["score"]).shape
    first = int(cols["_first_game"]) if "_first_game" in cols else 0
    seat = (np.arange(first, first + games) % players)[:, None]
    return seat == np.arange(players)[None, :]


def a_a() -> Intervention:
    """The A/A control: nothing changes, and the variant plays fresh deals, so the
    difference is pure noise around an exact zero. Its interval must cover zero about 95%
    of the time: a visible check of the method and of its intervals."""
    return Intervention(AA_KIND, AA_KEY, "A/A control: nothing changed (fresh deals)", (),
                        one_seat_per_game, fresh_deals=True)


# Why each kind is changed the way it is, shown on the report: kind -> sentence.
WHY: dict[str, str] = {}
