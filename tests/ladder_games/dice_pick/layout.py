"""Dice Pick's array layouts.

Public state `pub`: int32[PUB_SIZE] (the game hides nothing).

    SEAT        1               seat deciding
    N_PLAYERS   1               players in this game
    ROUND       1               always 0: the game is one round
    ROLLED      1               seats that have rolled so far
    SCORE       MAX_PLAYERS     each seat's total (its head start, then its dice)

Option table: row 0 takes one die, row 1 two dice. Columns: KIND (OPT_ONE, OPT_TWO),
DICE (how many), ROLLED (seats that have rolled so far).
"""

import numpy as np

from simkit.gamekit import LOOP_OUTPUTS
from simkit.outputs import Output

MAX_PLAYERS = 4
MAX_DECISIONS = 100
GAME_OVER = -1

SEAT, N_PLAYERS, ROUND, ROLLED = range(4)
SCORE = 4
PUB_SIZE = SCORE + MAX_PLAYERS

KIND, DICE, SEEN = range(3)
N_COLS = 3
OPT_ONE, OPT_TWO = 0, 1
MAX_OPTIONS = 2

PHASE = 0
HID_SIZE = 1
PH_DECIDE, PH_OVER = range(2)

CT_DICE, CT_TWO = range(2)
CT_SIZE = 2

RU_START = 0  # head start per seat (MAX_PLAYERS)
RU_SIZE = MAX_PLAYERS

OUTPUTS = (
    *LOOP_OUTPUTS,
    Output("dice", np.int16),  # dice rolled
)
(O_STRATEGY, O_SCORE, O_RANK, O_WIN_SHARE, O_ROUNDS, O_DECISIONS, O_DICE) = range(len(OUTPUTS))

EV_ROLL = 0
