"""Carnuta's array layouts: the game state, the option table, the rule tables and the
result columns, shared by its rules, its strategies and its tools.

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

from typing import NamedTuple

import numpy as np
from numba import njit

from simkit.kernels.jit import njit_without_refcounts
from simkit.outputs import CORE_OUTPUTS, Output

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
GAME_OVER = -1  # what step.next_decision returns when the game is over (and scored)
# A bound on a game's decisions the shared loop stops at (simkit/gamekit/loop.py): above
# any game the config allows (options.max_rounds <= 1,000 rounds of at most 4 turns of
# 2 actions, 2 Sickles, an end, MAX_HAND discards and MAX_TYPES tokens = 84,000).
MAX_DECISIONS = 1 << 21

KIND, A, B, C, POINTS, F1, F2, F3 = range(8)
N_COLS = 8
(OPT_TAKE, OPT_PLAY, OPT_RUNES, OPT_FLIP, OPT_SICKLE, OPT_PASS, OPT_END, OPT_DISCARD,
 OPT_TOKEN) = range(9)
MAX_OPTIONS = 128

# The players the kernel tells apart (strategies/carnuta.py's ids and parameter
# columns are these): the rollout and search players its lookahead plays, the
# policies their playouts play, and the column of `ties` (each strategy's last
# parameter) in each one's parameters.
RANDOM, GREEDY, PLANNER, ROLLOUT, SEARCH = 0, 1, 2, 3, 4
PLAYOUT = PLANNER  # the rollout player's playouts' policy by default (its `policy` 1)
ROLLOUT_WEIGHTS = 5  # the rollout player's copy of its policy's weights starts here
GREEDY_TIES, PLANNER_TIES = 3, 5
ROLLOUT_TIES = ROLLOUT_WEIGHTS + PLANNER_TIES

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
# CARD_SALT_BASE: 1 if a Salt card may be stacked on this card's column (every ingredient
# card; a starting card by options.salt_on_starting_card).
(CARD_ING, CARD_DECK, CARD_KIND, CARD_AMOUNT, CARD_COST, _C1, _C2, _C3, CARD_ICONS, CARD_SCORE,
 CARD_SCORE_ING, _S1, _S2, CARD_SCORE_N, CARD_POINTS, CARD_MULT, _M1, _M2,
 CARD_SALT_BASE) = range(19)
N_CARD_COLS = 19
# Tables.rules entries.
(R_N_ING_CARDS, R_N_TYPES, R_SPACES, R_PADLOCKED, R_START_SUN, R_START_MOON, R_SICKLES,
 R_HAND_LIMIT, R_TOP, R_END_CARDS, R_FLIP_SOME, R_TAKE_CHOOSE, R_FINAL_TURNS, R_START_COUNTS,
 R_SICKLE_AFTER, R_TIE_BEST, R_MAX_ROUNDS) = range(17)
# Restricted play, for `simkit value` (simkit/games/carnuta/interventions.py): seat
# R_BAN_SEAT may not take card R_BAN_CARD from the display nor Bonus Ingredient token
# R_BAN_TOKEN (-1: none). The rule text has no such rule; the config always sets -1.
R_BAN_SEAT, R_BAN_CARD, R_BAN_TOKEN = 17, 18, 19
# Seat compensation (config `compensation.points`, like komi in Go): points added to each
# seat's final score (scoring.final_score), MAX_PLAYERS entries, seat 0 first; all 0 in
# the published game.
R_COMP = 20
# Half a point of seat compensation (config `compensation.half`, 0 or 1 per seat, like
# komi's half point): it only breaks ties on the final score (scoring.ranking_key), the
# score stays whole points. MAX_PLAYERS entries, seat 0 first; all 0 in the published game.
R_HALF = R_COMP + MAX_PLAYERS
N_RULES = R_HALF + MAX_PLAYERS

# Hidden state: int64[hid_size(t)], what no strategy sees (a lookahead copies it with
# `pub`): where play stands, then the Day and Night piles.
#   LEVEL       1               end of turn: the counter's track level reached so far
#   TOKENS_DUE  1               ... and the bonus tokens still to take at that level
#   END_REASON  1               why the game ended: -1 the last round, -2 max_rounds
#   COUNTER     MAX_PLAYERS     each seat's counter level on the track
LEVEL, TOKENS_DUE, END_REASON = 0, 1, 2
COUNTER = 3
HID_STATE = COUNTER + MAX_PLAYERS  # the entries above; then, in this order:
#   PILE_TOP    2               per deck (Day, Night): its top in `deck_of` ...
#   PILE_END    2               ... its end (the undrawn cards are [top:end]) ...
#   PILE_DISCARDS 2             ... and the cards in its discard pile (`discard_of`)
#   VERSION     MAX_PLAYERS     each seat's tableau version (+1 per card or token added)
#   BUILT       MAX_PLAYERS     the version its gain table was built at (-1: never)
#   GAINS       MAX_PLAYERS x MAX_TYPES x 3   each seat's gain table (scoring.gain_table)
#   HAS         MAX_PLAYERS x MAX_TYPES       ... and its columns a Salt may go on
#   COLS        MAX_TYPES + MAX_TABLEAU       a work slot: final scoring's points per
#                                             column, then per card (scoring.final_score)
#   STARTS      cards           a work slot: setup's starting cards, shuffled
#   decks       2 x cards       the Day / Night decks (`deck_of`)
#   discards    2 x cards       the Day / Night discard piles, in discard order
#   memo        MAX_PLAYERS x cards x 3   per seat and Salt card: its best gain, column
#                                         and the version they were found at (`memo_of`)
# The gain tables, HAS and memo are caches keyed by the versions: rebuilt when a seat's
# tableau changed, so a decision does not rescan a tableau that has not. The last four
# are sized by the config (`hid_size`); HID_SIZE bounds them for any config.
PILE_TOP = HID_STATE
PILE_END = PILE_TOP + 2
PILE_DISCARDS = PILE_END + 2
VERSION = PILE_DISCARDS + 2
BUILT = VERSION + MAX_PLAYERS
GAINS = BUILT + MAX_PLAYERS
GAIN_SIZE = MAX_TYPES * 3  # a seat's gain table: gains[3 * x + a], a = 1, 2 ingredients
HAS = GAINS + MAX_PLAYERS * GAIN_SIZE
COLS = HAS + MAX_PLAYERS * MAX_TYPES
STARTS = COLS + MAX_TYPES + MAX_TABLEAU
# Entries per card of the config after STARTS: the starting cards, the two decks, the two
# discard piles, then each seat's Salt memo (3 a card).
PER_CARD = 5 + 3 * MAX_PLAYERS
HID_SIZE = STARTS + PER_CARD * MAX_CARDS

# Per-seat counters: int64[MAX_PLAYERS, CT_SIZE], kept by the rules for the results.
(CT_TURNS, CT_PLAYED, CT_DOUBLES, CT_SALTS, CT_TOKENS, CT_SICKLES, CT_RUNES_TAKEN,
 CT_FLIPPED, CT_PAID_FLIP, CT_RETURNED, CT_TRIGGERED, CT_DISCARDED, CT_SCORE, CT_BEST,
 CT_START_POINTS) = range(15)
CT_COLUMN = 15  # cards played into each column (MAX_TYPES)
CT_TOKEN = CT_COLUMN + MAX_TYPES  # Bonus Ingredient tokens taken of each type (MAX_TYPES)
CT_KIND = CT_TOKEN + MAX_TYPES  # final points per scoring kind (len(SCORE_KINDS))
CT_SIZE = CT_KIND + len(SCORE_KINDS)  # (the cards played are in the tableau, `pub`)

# Result columns, in order: every game's five (simkit/outputs.py) first; O_<NAME> is each
# one's index.
OUTPUTS = (
    *CORE_OUTPUTS,  # strategy, score, rank, win_share, rounds
    Output("starting_card", np.int8),  # index among the starting cards
    Output("start_points", np.int16),  # points of the starting card
    Output("cards_played", np.uint8),  # starting card not included
    Output("doubles", np.uint8),  # Double cards played
    Output("salts", np.uint8),  # Salt cards played
    Output("bonus_tokens", np.uint8),  # Bonus Ingredient tokens taken
    Output("sickles_used", np.uint8),
    Output("runes_taken", np.uint16),  # from the reserve
    Output("runes_flipped", np.uint16),  # by the Flip Runes action
    Output("runes_paid_flip", np.uint16),  # flipped paying costs
    Output("runes_returned", np.uint16),  # returned paying costs
    Output("triggered_end", np.uint8),  # 1 for the player whose card triggered the end
    Output("turns", np.uint16),
    Output("cards_discarded", np.uint16),  # at the end of turns
    Output("best_ingredient_points", np.int16),  # most points in one ingredient (tiebreak)
    Output("played", np.uint8, "ingredients"),  # cards played into each column
    Output("token", np.uint8, "ingredients"),  # Bonus Ingredient tokens of each type
    Output("points", np.int16, "score_kinds"),  # points per scoring kind (SCORE_KINDS)
    Output("card", np.uint8, "cards"),  # 1 if the player played this ingredient card
)
(O_STRATEGY, O_SCORE, O_RANK, O_WIN_SHARE, O_ROUNDS, O_STARTING_CARD, O_START_POINTS,
 O_CARDS_PLAYED, O_DOUBLES, O_SALTS, O_BONUS_TOKENS, O_SICKLES_USED, O_RUNES_TAKEN,
 O_RUNES_FLIPPED, O_RUNES_PAID_FLIP, O_RUNES_RETURNED, O_TRIGGERED_END, O_TURNS,
 O_CARDS_DISCARDED, O_BEST_INGREDIENT_POINTS, O_PLAYED, O_TOKEN, O_POINTS,
 O_CARD) = range(len(OUTPUTS))

# Trace of one game (buffers: simkit/kernels/trace.py); the decision kind recorded is the step.
# Events: [round, event, seat, a, b, c]
(EV_SETUP, EV_REVEAL, EV_TAKE, EV_PLAY, EV_PAY, EV_RUNES, EV_FLIP, EV_SICKLE, EV_PASS,
 EV_DISCARD, EV_PADLOCK, EV_TOKEN, EV_TRIGGER, EV_RESHUFFLE, EV_END, EV_SCORE) = range(16)


@njit(cache=True, inline="always")
def player_at(p: int, field: int) -> int:
    """Offset of `field` (P_*) of seat p in `pub`."""
    return PLAYER + p * PLAYER_SIZE + field


# ---- the piles and caches in `hid` (see HID_STATE): views of it, for the rules
@njit_without_refcounts
def hid_size(t) -> int:
    """The length of `hid` for the config of tables `t`."""
    return STARTS + PER_CARD * t.card.shape[0]


@njit(cache=True, inline="always")
def deck_of(hid, n, d):
    """Deck d (0 Day, 1 Night) of a game of n cards: its undrawn cards are
    [hid[PILE_TOP + d]:hid[PILE_END + d]]."""
    return hid[STARTS + (1 + d) * n:STARTS + (2 + d) * n]


@njit(cache=True, inline="always")
def discard_of(hid, n, d):
    """Deck d's discard pile, [:hid[PILE_DISCARDS + d]], in discard order."""
    return hid[STARTS + (3 + d) * n:STARTS + (4 + d) * n]


@njit(cache=True, inline="always")
def gains_of(hid, p):
    """Seat p's gain table (scoring.gain_table)."""
    return hid[GAINS + p * GAIN_SIZE:GAINS + (p + 1) * GAIN_SIZE]


@njit(cache=True, inline="always")
def has_of(hid, p):
    """Seat p's columns a Salt may go on (scoring.gain_table)."""
    return hid[HAS + p * MAX_TYPES:HAS + (p + 1) * MAX_TYPES]


@njit(cache=True, inline="always")
def memo_of(hid, n, p):
    """Seat p's Salt memo in a game of n cards: card c's best gain, column and version at
    3c, 3c + 1, 3c + 2."""
    return hid[STARTS + (5 + 3 * p) * n:STARTS + (8 + 3 * p) * n]


@njit(cache=True, inline="always")
def cols_of(hid):
    """Final scoring's work slot (scoring.final_score)."""
    return hid[COLS:STARTS]


@njit(cache=True, inline="always")
def piles(t, hid):
    """The piles as tests and tools read them, views of `hid`: tops (rows: the entries at
    PILE_TOP, PILE_END and PILE_DISCARDS; a column per deck), the starting cards, and the
    decks and discard piles (2 x cards each)."""
    n = t.card.shape[0]
    tops = hid[PILE_TOP:PILE_TOP + 6].reshape((3, 2))
    return (tops, hid[STARTS:STARTS + n], hid[STARTS + n:STARTS + 3 * n].reshape((2, n)),
            hid[STARTS + 3 * n:STARTS + 5 * n].reshape((2, n)))


class Redeal(NamedTuple):
    """A re-deal of one decision, which the rollout and search players play forward
    (play.new_redeal): a copy of the game's state with the piles dealt anew
    (rules.redeal), and the policy every seat plays in it. The game's own arrays are
    never touched."""

    pub: np.ndarray  # the re-deal's state (its piles and caches in hid) ...
    hid: np.ndarray
    cnt: np.ndarray
    opts: np.ndarray  # ... its option table
    sid: np.ndarray  # the policy ...
    prm: np.ndarray  # ... and its weights
    trace: tuple  # re-deals are never traced


class RolloutWork(NamedTuple):
    """The rollout player's arrays for one decision (play.rollout_work)."""

    redeal: Redeal  # the playouts' state and policy
    deal_hid: np.ndarray  # this rollout's deal (rules.redeal): the hidden state, piles dealt
    rng: np.ndarray  # a playout's stream: the deal's seed, the same for every row
    rows: np.ndarray  # the candidates' rows
    seed: np.ndarray  # this rollout's seed


class SearchWork(NamedTuple):
    """The search player's arrays for one decision (play.search_work)."""

    redeal: Redeal  # the re-deal the iterations play
    cut_short: np.ndarray  # [0] 1: this playout was cut short (`horizon`)
    hand_cache: np.ndarray  # judging a hand then: its gain table ...
    hand_has: np.ndarray
    hand: np.ndarray  # ... its cards
    hand_gains: np.ndarray  # ... and their gains
