"""Dice Pick: take one die or two, roll, the highest total wins (a ladder test game)."""

NAME = "dice_pick"
TITLE = "Dice Pick"
