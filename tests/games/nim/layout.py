"""Nim's arrays: public state, option table, rule table and result columns."""

import numpy as np

from simkit.gamekit import LOOP_OUTPUTS
from simkit.outputs import Output

MAX_PLAYERS = 4
MAX_TAKE = 5
MAX_DECISIONS = 10_000
GAME_OVER = -1

# Public state: everything is public.
SEAT, N_PLAYERS, ROUND, PILE, WINNER = range(5)
TAKEN = 5  # stones taken per seat (MAX_PLAYERS)
PUB_SIZE = TAKEN + MAX_PLAYERS

# Option rows: one per legal take, fewest first.
KIND, TAKE = 0, 1
N_COLS = 2
OPT_TAKE = 0
MAX_OPTIONS = MAX_TAKE

HID_SIZE = 1  # nothing hidden (redeal changes nothing)
CT_MOVES = 0
CT_SIZE = 1

# Rule table: int64[RU_SIZE]
RU_PILE, RU_SPREAD, RU_MAX_TAKE = range(3)
RU_SIZE = 3

OUTPUTS = (*LOOP_OUTPUTS, Output("moves", np.int16))
O_MOVES = len(LOOP_OUTPUTS)
