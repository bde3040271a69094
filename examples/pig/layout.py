"""Pig's array layouts: the game state, the option table, the rule tables and the result
columns, shared by its rules, strategies and tools.

Public state `pub`: int32[PUB_SIZE], everything a strategy may see (Pig hides nothing).

    offset      size            meaning
    SEAT        1               seat deciding (whose turn it is)
    N_PLAYERS   1               players in this game
    ROUND       1               round, 0-based (a round: every seat has had a turn)
    TURN_TOTAL  1               points rolled this turn, not yet banked
    ROLLS       1               rolls this turn
    LAST_FACE   1               face of the last roll (-1: none yet)
    SCORE       MAX_PLAYERS     banked points per seat

Option table: int32 rows, one per legal option, "roll" first. Columns:

    KIND        OPT_ROLL or OPT_HOLD
    TURN        the turn total now
    AFTER       the seat's score if it holds now (score + turn total)
    NEED        points still needed to reach the goal if it holds now (<= 0: it wins)
    LEAD        AFTER minus the best other seat's score
"""

import numpy as np

from simkit.gamekit import LOOP_OUTPUTS
from simkit.outputs import Output

MAX_PLAYERS = 4
MAX_FACES = 12
MAX_DECISIONS = 100_000  # the loop stops a game here (a rule bug) and simkit reports it
GAME_OVER = -1  # what rules.next_decision returns at the end (simkit/gamekit/loop.py)

SEAT, N_PLAYERS, ROUND, TURN_TOTAL, ROLLS, LAST_FACE = range(6)
SCORE = 6
PUB_SIZE = SCORE + MAX_PLAYERS

KIND, TURN, AFTER, NEED, LEAD = range(5)
N_COLS = 5
OPT_ROLL, OPT_HOLD = 0, 1
MAX_OPTIONS = 2

# Hidden state: int64[HID_SIZE], what no strategy sees (here: where play stands).
PHASE, ENDING = 0, 1  # the phase; ENDING: 1 once a seat reached the goal ("equal_turns")
HID_SIZE = 2
PH_START, PH_DECIDE, PH_OVER = range(3)  # a turn's first roll; roll or hold; game over

# Per-seat counters: int64[MAX_PLAYERS, CT_SIZE], kept by the rules for the results.
CT_TURNS, CT_ROLLS, CT_BUSTS, CT_HOLDS, CT_BEST_TURN = range(5)
CT_FACE = 5  # rolls of each face (MAX_FACES)
CT_SIZE = CT_FACE + MAX_FACES

# Rule tables (config.py `Tables`).
#   faces  int64[F, FA_COLS]    per die face
FA_POINTS, FA_BUST = 0, 1
FA_COLS = 2
#   rules  int64[RU_SIZE]       numbers and options
RU_GOAL, RU_FINISH = 0, 1
FINISH_IMMEDIATE, FINISH_EQUAL_TURNS = 0, 1  # options.finish, in config.FINISHES' order
RU_START = 2  # starting points per seat (MAX_PLAYERS)
# Restricted play, for `simkit value` (interventions.py): for seat RU_BAN_SEAT, face
# RU_BAN_FACE adds no points (-1: none). The published game has no such rule.
RU_BAN_SEAT = RU_START + MAX_PLAYERS
RU_BAN_FACE = RU_BAN_SEAT + 1
RU_SIZE = RU_BAN_FACE + 1

# Result columns, in order: the loop's own (LOOP_OUTPUTS) first, then the game's.
OUTPUTS = (
    *LOOP_OUTPUTS,  # strategy, score, rank, win_share, rounds, decisions
    Output("turns", np.int16),  # turns played
    Output("rolls", np.int16),  # dice rolled
    Output("busts", np.int16),  # turns lost to a bust face
    Output("holds", np.int16),  # turns banked
    Output("best_turn", np.int16),  # most points banked in one turn
    Output("rolled", np.int16, "faces"),  # times each face was rolled
)
(O_STRATEGY, O_SCORE, O_RANK, O_WIN_SHARE, O_ROUNDS, O_DECISIONS, O_TURNS, O_ROLLS, O_BUSTS,
 O_HOLDS, O_BEST_TURN, O_ROLLED) = range(len(OUTPUTS))

# Trace events (simkit/kernels/trace.py): [round, event, seat, a, b, c]
EV_ROLL, EV_BUST, EV_HOLD, EV_END = range(4)
