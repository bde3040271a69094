"""Cauldron Master's array layouts: the game state, the option table, the rule tables and
the result columns, shared by its rules, its strategies and its tools.

Public state: one flat int32 array `pub`, the only game state a strategy sees.
Everything in it is public at the moment a strategy is asked (the deck order is not in it;
the witches chosen this round are -1 until all players have chosen).

    offset          size            meaning
    SEAT            1               seat being asked to decide
    N_PLAYERS       1               players in this game
    ROUND           1               round number, 0-based
    HECATE          1               seat holding the Favour of Hecate
    DECK_LEFT       1               cards left in the ingredient deck
    PHASE           1               PHASE_WITCH, PHASE_PICK or PHASE_RECIPE
    PICKS_LEFT      1               cards the deciding player may still take this turn
    WITCH_NOW       1               witch the deciding player plays (-1 while choosing)
    SUPPLY          MAX_TYPES       supply count per ingredient type
    SCORE           MAX_PLAYERS     Spell Points per seat
    CAULDRON        P*K*T           cards of type t in cauldron k of seat p
    FILL            P*K             cards in cauldron k of seat p
    HAND            P*W             1 if seat p still holds witch w
    REVEALED        MAX_PLAYERS     witch seat p revealed this round (-1 before reveal)
    RECIPE          MAX_PLAYERS     recipe card dealt to seat p (face up)
    TAKEN           MAX_COLOURS     cards of each colour the deciding player took this turn

`HAND` still shows a witch played this round until the end of the round, when it is set
aside. `TAKEN` is all zeros while witches and recipes are chosen.

PHASE_RECIPE (only with options.recipe_choice = "player"): at Create Potions, seat SEAT
chooses which matching recipe of its card a potion scores. Asked only for a potion that
matches two or more recipes; the potion is still in its cauldron (CAULDRON, FILL), and
SCORE holds the points of the potions brewed before it.

Option table: int32 rows, one per legal option, in canonical order (witches by id; cards
by cauldron, then ingredient type; "stop" last; recipes by their place on the card).
Columns:

    column      witch option (OPT_WITCH)        card option (OPT_CARD)      stop (OPT_STOP)
    KIND        OPT_WITCH                       OPT_CARD                    OPT_STOP
    A           witch id                        ingredient type             -1
    B           initiative                      cauldron index              -1
    POINTS      cards it could take now         points scored now if the    0
                                                card fills the cauldron
                                                (scores + best recipe),
                                                else 0
    GAIN        value of those cards (sum of    score-table gain of adding  0
                one-card scores, best first)    the card to the cauldron
    SAME        0                               cards of this type in the   0
                                                cauldron after placing
    FREE        0                               free space left after       0

    column      recipe option (OPT_RECIPE)
    KIND        OPT_RECIPE
    A           the recipe's place on the card (0-based)
    B           cauldron index of the potion
    POINTS      the potion's points with this recipe (scores + its bonus)
    GAIN        the recipe's bonus
    SAME, FREE  0
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from simkit.outputs import CORE_OUTPUTS, Output

MAX_PLAYERS = 4
MAX_TYPES = 16
MAX_COLOURS = 4
MAX_WITCHES = 8
MAX_CAULDRONS = 4
MAX_CAPACITY = 8
MAX_RECIPE_CARDS = 32
MAX_RECIPES = 4

SEAT, N_PLAYERS, ROUND, HECATE, DECK_LEFT, PHASE, PICKS_LEFT, WITCH_NOW = range(8)
SUPPLY = 8
SCORE = SUPPLY + MAX_TYPES
CAULDRON = SCORE + MAX_PLAYERS
FILL = CAULDRON + MAX_PLAYERS * MAX_CAULDRONS * MAX_TYPES
HAND = FILL + MAX_PLAYERS * MAX_CAULDRONS
REVEALED = HAND + MAX_PLAYERS * MAX_WITCHES
RECIPE = REVEALED + MAX_PLAYERS
TAKEN = RECIPE + MAX_PLAYERS
PUB_SIZE = TAKEN + MAX_COLOURS

PHASE_WITCH, PHASE_PICK, PHASE_RECIPE = 0, 1, 2

GAME_OVER = -1  # what step.next_decision returns when the game is over
# A bound on a game's decisions the shared loop stops at (simkit/gamekit/loop.py): above
# any game the config allows (options.max_rounds <= 10,000 rounds of at most 4 seats x
# (a witch, 32 cards and a stop, 4 recipes) = 152 decisions).
MAX_DECISIONS = 1 << 21

KIND, A, B, POINTS, GAIN, SAME, FREE = range(7)
N_COLS = 7
OPT_WITCH, OPT_CARD, OPT_STOP, OPT_RECIPE = 0, 1, 2, 3
MAX_OPTIONS = MAX_TYPES * MAX_CAULDRONS + 1

# The players the kernel tells apart (strategies/cauldron_master.py's ids and parameter
# columns are these): the rollout and search players its lookahead plays, the
# policies their playouts play, and the column of `ties` (each strategy's last
# parameter) in each one's parameters.
RANDOM, GREEDY, PLANNER, ROLLOUT, SEARCH = 0, 1, 2, 3, 4
PLAYOUT = GREEDY  # the rollout player's playouts' strategy
GREEDY_TIES, PLANNER_TIES, ROLLOUT_TIES = 2, 5, 2

# Hidden state: int64[HID_SIZE], what no strategy sees (a lookahead copies it with `pub`).
#   TOP         1               next card of the ingredient deck (an index into DECK)
#   TURN        1               phase 3: the turn being played (index into ORDER)
#   BREW        1               phase 4: the next cauldron to brew (seat * MAX_CAULDRONS
#                               + cauldron); with options.recipe_choice = "player", the
#                               potion waiting for its owner's recipe choice
#   CHOSEN      MAX_PLAYERS     witch each seat chose this round (secret until all chose)
#   ORDER       MAX_PLAYERS     phase 2's turn order (seats)
#   KEY         MAX_PLAYERS     sort keys (turn order, then the final ranking)
#   DECK        MAX_CARDS       the shuffled ingredient deck (its first t.deck.shape[0]
#                               entries): cards [TOP:] are undealt, in their hidden order
#   RECIPE_DECK MAX_RECIPE_CARDS the shuffled recipe cards (setup deals the first ones)
# and work slots, rewritten before every use and meaning nothing between steps (the API's
# place for a rule's work arrays: rules create none):
#   COUNTS      MAX_COLOURS     cards per colour of a cauldron (options, create potions)
#   LIMITS_LEFT MAX_COLOURS     a witch's colour limits left (witch options)
#   OFFER       MAX_TYPES       ingredient types on offer (a compact list)
#   UNDEALT     MAX_TYPES       undealt cards per type (rules.redeal)
MAX_CARDS = 255  # config.py: at most 255 ingredient cards
TOP, TURN, BREW = 0, 1, 2
CHOSEN = 3
ORDER = CHOSEN + MAX_PLAYERS
KEY = ORDER + MAX_PLAYERS
DECK = KEY + MAX_PLAYERS
RECIPE_DECK = DECK + MAX_CARDS
COUNTS = RECIPE_DECK + MAX_RECIPE_CARDS
LIMITS_LEFT = COUNTS + MAX_COLOURS
OFFER = LIMITS_LEFT + MAX_COLOURS
UNDEALT = OFFER + MAX_TYPES
HID_SIZE = UNDEALT + MAX_TYPES

# Per-seat counters: int64[MAX_PLAYERS, CT_SIZE], kept by the rules for the results.
CT_POTIONS, CT_BONUS = 0, 1  # potions brewed, recipe bonus points
CT_WITCH = 2  # times each witch was played (MAX_WITCHES)
CT_SCORED = CT_WITCH + MAX_WITCHES  # cards of each ingredient scored in potions (MAX_TYPES)
CT_SIZE = CT_SCORED + MAX_TYPES

# Result columns, in order: every game's five (simkit/outputs.py) first; O_<NAME> is each
# one's index.
OUTPUTS = (
    *CORE_OUTPUTS,  # strategy, score, rank, win_share, rounds
    Output("recipe_card", np.int8),
    Output("potions", np.uint8),  # potions brewed
    Output("recipe_bonus", np.int16),  # recipe bonus points
    Output("cards_left", np.uint8),  # cards in incomplete cauldrons at the end
    Output("witch", np.uint8, "witches"),  # times each witch was played
    Output("scored", np.uint8, "ingredients"),  # cards of each ingredient scored
)
(O_STRATEGY, O_SCORE, O_RANK, O_WIN_SHARE, O_ROUNDS, O_RECIPE_CARD, O_POTIONS, O_RECIPE_BONUS,
 O_CARDS_LEFT, O_WITCH, O_SCORED) = range(len(OUTPUTS))

# Trace events (buffers: simkit/kernels/trace.py): [round, event, seat, a, b, c]
# EV_RECIPE (seat, cauldron, recipe's place on the card, bonus) comes right before the
# EV_POTION of a potion that scores a recipe.
(EV_REVEAL, EV_ORDER, EV_TAKE, EV_POTION, EV_REFILL, EV_HECATE, EV_END, EV_SETUP,
 EV_RECIPE) = range(9)


@njit(cache=True, inline="always")
def cauldron_at(p: int, k: int, t: int) -> int:
    """Offset of cauldron k of seat p, ingredient type t, in `pub`."""
    return CAULDRON + (p * MAX_CAULDRONS + k) * MAX_TYPES + t


@njit(cache=True, inline="always")
def fill_at(p: int, k: int) -> int:
    """Offset of the fill count of cauldron k of seat p in `pub`."""
    return FILL + p * MAX_CAULDRONS + k


@njit(cache=True, inline="always")
def hand_at(p: int, w: int) -> int:
    """Offset of 'seat p holds witch w' in `pub`."""
    return HAND + p * MAX_WITCHES + w


# Packed rule tables (config.py `Tables`): few arrays on purpose, because numba passes a
# tuple's arrays one by one on every call.
#   types  int64[T, TY_COLS]        per ingredient type
TY_COLOUR, TY_ORDER, TY_SCORE = 0, 1, 2  # colour; types by one-card score (row i = i-th
TY_COLS = TY_SCORE + MAX_CAPACITY + 1  # best); score for k cards at TY_SCORE + k
#   witch  int64[W, WI_COLS]        per witch in play
WI_INIT, WI_MAX, WI_LIMIT = 0, 1, 2  # initiative, max cards, colour limits (C columns)
WI_COLS = WI_LIMIT + MAX_COLOURS
#   recipe int64[R, MAX_RECIPES, RE_COLS]   per recipe card and recipe slot
RE_BONUS, RE_SIZE, RE_NLEN = 0, 1, 2  # bonus (0: empty slot), cards needed, specific count
RE_NTYPE = 3  # the specific ingredients, listed ...
RE_NCOUNT = RE_NTYPE + MAX_TYPES  # ... and how many of each
RE_CTOTAL = RE_NCOUNT + MAX_TYPES  # cards of each colour needed (icons + specific ones)
RE_TYPES = RE_CTOTAL + MAX_COLOURS  # cards needed of each type (dense)
RE_COLOURS = RE_TYPES + MAX_TYPES  # colour icons (dense)
RE_COLS = RE_COLOURS + MAX_COLOURS
#   rules  int64[RU_SIZE]           numbers and options
(RU_COLOURS, RU_CAULDRONS, RU_COMPULSORY, RU_EXACT, RU_TIE_BREAK, RU_END_EMPTY,
 RU_MAX_ROUNDS, RU_RECIPE_CHOICE) = range(8)
TIE_SHARED, TIE_POTIONS, TIE_HECATE = range(3)  # options.tie_break, in TIE_BREAKS' order
RECIPE_BEST, RECIPE_PLAYER = range(2)  # options.recipe_choice, in RECIPE_CHOICES' order
RU_CAP = 8  # cauldron capacities (MAX_CAULDRONS)
RU_SUPPLY = RU_CAP + MAX_CAULDRONS  # supply size by player count (MAX_PLAYERS + 1)
# Restricted play, for `simkit value` (simkit/games/cauldron_master/interventions.py):
# for seat RU_BAN_SEAT, witch RU_BAN_WITCH takes no cards (it is still held and played,
# so the hand cycles as usual) and ingredient RU_BAN_TYPE may not be taken (-1: none).
# The rule text has no such rule; the config always sets -1.
RU_BAN_SEAT = RU_SUPPLY + MAX_PLAYERS + 1
RU_BAN_WITCH, RU_BAN_TYPE = RU_BAN_SEAT + 1, RU_BAN_SEAT + 2
# Seat compensation (config `compensation.points`, like komi in Go): points added to each
# seat's final score (scoring.final_score), MAX_PLAYERS entries, seat 0 first; all 0 in
# the published game.
RU_COMP = RU_BAN_TYPE + 1
# Half a point of seat compensation (config `compensation.half`, 0 or 1 per seat, like
# komi's half point): it only breaks ties on the final score (scoring.ranking_key), the
# score stays whole points. MAX_PLAYERS entries, seat 0 first; all 0 in the published game.
RU_HALF = RU_COMP + MAX_PLAYERS
RU_SIZE = RU_HALF + MAX_PLAYERS


# ---- work arrays of the lookahead players (play.py builds them; numba compiles these as
# tuples with named fields). Batch play's scratch is the shared loop's
# (simkit/gamekit/scratch.py): the whole state is in pub, hid and cnt.
class RolloutScratch(NamedTuple):
    """The rollout player's work arrays, apart from the game's so a playout never
    touches it (play.new_rollout_scratch)."""

    pub: np.ndarray  # playout state
    opts: np.ndarray  # option table
    hid: np.ndarray  # hidden state, its undealt deck re-dealt (rules.redeal)
    cnt: np.ndarray  # per-seat counters
    total: np.ndarray  # summed playout value per option
    ranking: np.ndarray  # a playout's ranking keys, points
    trace: tuple  # playouts are never traced
    sids: np.ndarray  # the playouts' strategies: greedy ...
    params: np.ndarray  # ... with weights 1 and 1, and the rollout player's `ties`


class SearchScratch(NamedTuple):
    """The search player's work arrays, apart from the game's and the rollout player's
    (play.new_search_scratch)."""

    tree: tuple  # the tree (simkit/kernels/search_tree.new_tree)
    pub: np.ndarray  # a re-deal's state
    hid: np.ndarray  # its hidden state (rules.redeal)
    cnt: np.ndarray  # its counters
    opts: np.ndarray  # option table
    sids: np.ndarray  # the playouts' strategy per seat ...
    params: np.ndarray  # ... and its parameters
    ranking: np.ndarray  # a playout's ranking keys, points
    trace: tuple  # searches are never traced
    seat: np.ndarray  # the searching seat
