"""Pig, the push-your-luck dice game, written to simkit's game API (docs/new-game.md).

The worked example of the guide, and the skeleton `simkit new-game` copies. Rules
(John Scarne, "Scarne on Dice", 1945; as in Neller & Presser, "Optimal Play of the Dice
Game Pig", The UMAP Journal 25(1), 2004): on your turn roll a die as often as you like,
adding each roll to a turn total; roll a 1 and the turn ends with nothing; hold and the
turn total is added to your score. The first to reach the goal (100) wins.
"""

NAME = "pig"
TITLE = "Pig"
