"""Nim (a subtraction game), written to simkit's game API: a small game whose optimal
play is known, for the search player's tests (tests/test_search.py).

A pile of stones; in turn each player takes 1 to `max_take` stones; whoever takes the
last stone wins. With two players the mover wins exactly when the pile is not a multiple
of max_take + 1, by taking pile mod (max_take + 1) (Bouton 1901; the subtraction game).
"""

NAME = "nim"
TITLE = "Nim"
