"""Array layouts shared by the Carnuta kernel, its strategies and tools.

Public state: one flat int32 array `pub`, the only game state a strategy sees. The deck
order is never in it (only how many cards each deck holds). Hands are in it: every card
in a hand was taken face up from the centre, so a player with a good memory knows them.

    offset          size            meaning
    SEAT            1               seat being asked to decide
    N_PLAYERS       1               players in this game
    ROUND           1               round number, 0-based (seat 0 holds the Ancestor)
    STEP            1               STEP_ACTION, STEP_END, STEP_DISCARD or STEP_TOKEN
    ACTIONS_LEFT    1               actions the deciding player still has this turn
    TRIGGERED       1               1 once someone has played their end_cards-th card
    FINAL           1               1 during the final turns (the last round)
    DECK_LEFT       2               cards left in the Day / Night deck
    DISCARDS        2               Day / Night cards in the discard pile
    DISPLAY         8               face-up card ids: Day slots 0-3, Night slots 4-7
                                    (-1 = empty slot: deck and discards both ran out)
    RESERVE         2               Sun / Moon runes in the central reserve
    TOKENS          MAX_TYPES       1 if the Bonus Ingredient token of type x is in the
                                    centre (-1: not in this game)
    PLAYER + p*PLAYER_SIZE          seat p's block, fields at these offsets:
      P_SUN         1                 runes showing Sun on the board
      P_MOON        1                 runes showing Moon
      P_OPEN        1                 unlocked rune spaces (padlocks removed add to it)
      P_SICKLES     1                 Sickle tokens left
      P_PLAYED      1                 cards played (starting card included if it counts)
      P_HAND_N      1                 cards in hand
      P_SCORE       1                 current score of the tableau (as if the game ended)
      P_N_CARDS     1                 entries in P_CARDS (starting card first)
      P_HAND        MAX_HAND          card ids in hand, in the order taken
      P_COUNT       MAX_TYPES         ingredients per column (Double 2, Salt 1, tokens 1)
      P_TOKENS      MAX_TYPES         Bonus Ingredient tokens held, per type
      P_CARDS       MAX_TABLEAU       card ids in front of the player, in play order
      P_COLUMN      MAX_TABLEAU       ... and the column (ingredient type) of each

Card ids: 0..C-1 ingredient cards in config order, then C.. the starting cards.

Option table: int32 rows, one per legal option, in canonical order: take (slots 0-7),
play (hand position, then column), take runes (Sun then Moon, fewest first), flip runes
(to Sun then to Moon), sickle (Day, Night), pass. The end-of-turn step offers end, then
sickle; the discard step one row per hand card; the token step one row per token.

    column  TAKE          PLAY             RUNES      FLIP        SICKLE  DISCARD      TOKEN
    KIND    OPT_TAKE      OPT_PLAY         OPT_RUNES  OPT_FLIP    ..      OPT_DISCARD  OPT_TOKEN
    A       slot          hand position    side       side shown  row     hand pos.    type
    B       card id       card id          runes      runes       -1      card id      -1
    C       best column   column           -1         flipped     -1      -1           -1
    POINTS  score gain if played now (best column; cost ignored)   0      as TAKE      gain
    F1      1 if payable  runes flipped    0          0           0       1 if payable 0
    F2      icons unpaid  runes returned   0          0           0       0            0
    F3      cost icons    cards played     0          0           0       cost icons   0
            (total)       after

Sides: 0 = Sun, 1 = Moon. Rows (SICKLE): 0 = Day, 1 = Night. OPT_END and OPT_PASS rows
are all -1 / 0.
"""

from numba import njit

MAX_PLAYERS = 4
MAX_TYPES = 8
MAX_HAND = 8
MAX_TABLEAU = 48
MAX_CARDS = 128
MAX_COST = 4
N_SLOTS = 8
SLOTS_PER_ROW = 4
SUN, MOON = 0, 1
DAY, NIGHT = 0, 1

SEAT, N_PLAYERS, ROUND, STEP, ACTIONS_LEFT, TRIGGERED, FINAL = range(7)
DECK_LEFT = 7
DISCARDS = DECK_LEFT + 2
DISPLAY = DISCARDS + 2
RESERVE = DISPLAY + N_SLOTS
TOKENS = RESERVE + 2
PLAYER = TOKENS + MAX_TYPES

P_SUN, P_MOON, P_OPEN, P_SICKLES, P_PLAYED, P_HAND_N, P_SCORE, P_N_CARDS = range(8)
P_HAND = 8
P_COUNT = P_HAND + MAX_HAND
P_TOKENS = P_COUNT + MAX_TYPES
P_CARDS = P_TOKENS + MAX_TYPES
P_COLUMN = P_CARDS + MAX_TABLEAU
PLAYER_SIZE = P_COLUMN + MAX_TABLEAU
PUB_SIZE = PLAYER + MAX_PLAYERS * PLAYER_SIZE

STEP_ACTION, STEP_END, STEP_DISCARD, STEP_TOKEN = range(4)

KIND, A, B, C, POINTS, F1, F2, F3 = range(8)
N_COLS = 8
(OPT_TAKE, OPT_PLAY, OPT_RUNES, OPT_FLIP, OPT_SICKLE, OPT_PASS, OPT_END, OPT_DISCARD,
 OPT_TOKEN) = range(9)
MAX_OPTIONS = 128

# Scoring kinds (config `score`), in the rule text's order.
SET3, SET2, EACH, TWO_TYPES, OWN, FLAT5, FLAT2 = range(7)
SCORE_KINDS = ("set3", "set2", "each", "two_types", "own", "flat5", "flat2")
# Cost icons (config `cost`), as columns of Tables.cost.
SUN_FLIP, MOON_FLIP, SUN_RETURN, MOON_RETURN = range(4)
COST_ICONS = ("sun_flip", "moon_flip", "sun_return", "moon_return")
NORMAL, DOUBLE, SALT = range(3)
CARD_KINDS = ("normal", "double", "salt")

# Tables.card columns (one row per card id).
# CARD_MULT + i: how often listed ingredient i appears in the card's list (for sets).
(CARD_ING, CARD_DECK, CARD_KIND, CARD_AMOUNT, CARD_COST, _C1, _C2, _C3, CARD_ICONS, CARD_SCORE,
 CARD_SCORE_ING, _S1, _S2, CARD_SCORE_N, CARD_POINTS, CARD_MULT, _M1, _M2) = range(18)
N_CARD_COLS = 18
# Tables.rules entries.
(R_N_ING_CARDS, R_N_TYPES, R_SPACES, R_PADLOCKED, R_START_SUN, R_START_MOON, R_SICKLES,
 R_HAND_LIMIT, R_TOP, R_END_CARDS, R_FLIP_SOME, R_TAKE_CHOOSE, R_FINAL_TURNS, R_START_COUNTS,
 R_SICKLE_AFTER, R_TIE_BEST, R_MAX_ROUNDS) = range(17)
# Restricted play, for `simkit value` (simkit/games/carnuta/interventions.py): seat
# R_BAN_SEAT may not take card R_BAN_CARD from the display nor Bonus Ingredient token
# R_BAN_TOKEN (-1: none). The rule text has no such rule; the config always sets -1.
R_BAN_SEAT, R_BAN_CARD, R_BAN_TOKEN = 17, 18, 19
N_RULES = 20

# Trace of one game (buffers: simkit/kernels.py); the decision kind recorded is the step.
# Events: [round, event, seat, a, b, c]
(EV_SETUP, EV_REVEAL, EV_TAKE, EV_PLAY, EV_PAY, EV_RUNES, EV_FLIP, EV_SICKLE, EV_PASS,
 EV_DISCARD, EV_PADLOCK, EV_TOKEN, EV_TRIGGER, EV_RESHUFFLE, EV_END, EV_SCORE,
 EV_TOKEN_SCORE) = range(17)


@njit(cache=True, inline="always")
def player_at(p: int, field: int) -> int:
    """Offset of `field` (P_*) of seat p in `pub`."""
    return PLAYER + p * PLAYER_SIZE + field
