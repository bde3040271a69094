"""Array layouts shared by the Inori kernel, its strategies and tools.

The game, as simulated (rule text: shared/rules/great-tree.{es.txt,en.md}):
  * seasons 1..n_seasons; in each, starting with the season's first player and going
    clockwise (seat + 1), each player with an offering marker left takes a turn, until no
    one has a marker left;
  * a turn: the rune step (only when the player holds a Rune tile: play one or none),
    then one offering (to a card space or a Great Tree space), then the decisions its
    effect asks for (token colours, spaces to block). A player with no legal offering
    passes: that marker is set aside for the season;
  * season end, cards in slot order: score, return every marker, replace the card; then
    each player's markers become the next season's count; then the player with the
    fewest points draws two New Start cards, keeps one (it joins the cards in play, in
    the next free slot) and becomes first player. Not after the last season;
  * game end: majority scoring on every Great Tree space holding an Altar tile.

Public state: one flat int32 array `pub`, the only game state a strategy sees. Deck
orders are never in it (only how many cards each deck holds). Rune tiles in hand are
(documented convention: the rule text does not say they are hidden).

    offset          size            meaning
    SEAT            1               seat being asked to decide
    N_PLAYERS       1               players in this game
    SEASON          1               season, 0-based
    STEP            1               STEP_* of the decision being asked
    FIRST           1               first player of this season
    OCCUPIED_OK     1               1 when this turn's offering may take an occupied space
                                    (an "occupied" Rune tile was played this turn)
    RUNES_LEFT      1               Rune tiles left in the face-down stack
    NEUTRAL_LEFT    1               neutral markers not on a card
    N_SLOTS         1               card slots in use (cards in play, empty slots included)
    SUPPLY          MAX_COLOURS     Favor tokens of each colour in the supply
    DECK_LEFT       MAX_COLOURS     Journey cards left in each colour's deck
    TILE_USED       MAX_COLOURS     1 once the Altar tile of that colour is on the tree
    SLOT + i*SLOT_SIZE              card slot i:
      S_CARD        1                 card id (-1: empty, its deck and discards ran out)
      S_OCC         MAX_SPACES        marker on each space: -1 none, seat, or NEUTRAL
      S_OCC2        MAX_SPACES        further markers placed there through an "occupied"
                                      Rune: bit q set for seat q (0: none)
    TREE + t*TREE_SIZE              Great Tree space t:
      T_OCC         1                 -1 free, or the seat whose marker is there
      T_TILE        1                 colour of its Altar tile (-1: none yet)
      T_TOKENS      2                 root space: colours of its reserved tokens (-1 gone)
      T_OCC2        1                 further markers ("occupied" Rune), bits as S_OCC2
    PLAYER + p*PLAYER_SIZE          seat p's block:
      P_SCORE       1                 points so far
      P_MARKERS     1                 markers left to place this season
      P_N_RUNES     1                 Rune tiles in hand
      P_TOKENS      MAX_COLOURS       Favor tokens held, per colour
      P_RUNES       MAX_HELD_RUNES    Rune tile ids in hand, in the order drawn

Ids: colours 0..K-1 in config order; card ids 0..J-1 Journey cards, then Start cards,
then New Start cards, each in config order; tree spaces and Rune tiles in config order.

Option table: int32 rows, one per legal option, in this canonical order.

  STEP_RUNE (asked only when the player holds a Rune tile; before the offering, and with
  options.rune_timing = "before_or_after" also after it when none was played before):
    OPT_NO_RUNE first; then, for each hand position h in order whose tile is usable and
    differs from every earlier hand tile (kind, colour, amount), OPT_RUNE with
    A = h, B = rune tile id, C = rune kind, F1 = tokens it gives (RUNE_GAIN: min(amount,
    supply)). Usable: RUNE_GAIN always; RUNE_TO_COLOUR / RUNE_FROM_COLOUR when a move
    exists (STEP_MOVE below); RUNE_OCCUPIED before the offering only, when the player
    may join some occupied space (options.occupied_spaces and occupied_count).
  STEP_MOVE (after an OPT_RUNE of a move kind): one OPT_MOVE row per (piece, target),
    A = source = slot*MAX_SPACES + space holding the piece, ascending; C = the piece's
    owner (a seat, or NEUTRAL): with options.move_piece = "any" every piece on the space
    (the first marker, then further ones by seat), with "own" only the player's own;
    B = target likewise, ascending within each piece: a free space of a card in another
    slot. RUNE_TO_COLOUR: the target's card is of the tile's colour. RUNE_FROM_COLOUR:
    the source's card is of the tile's colour.
    F2 = 1 if the move completes the target's card; F4 = tokens the player holds of the
    target card's colour. A moved piece pays no cost and takes no effect; it stays its
    owner's.
  STEP_OFFER:
    1. card spaces, slot by slot, space by space: OPT_CARD with A = slot, B = space,
       C = colour of the token paid (-1: no cost), one row per colour the cost can be paid
       with (a colour cost: holding one; "majority": the colour held most, at least one;
       with a tie, majority_tie = "choose" gives each tied colour ascending, "unpayable"
       none). A space is available when free, or when OCCUPIED_OK and the player may
       join it (scoring.may_join: no marker of the player's there; with
       options.occupied_count = "one" exactly one piece there).
    2. tree spaces in order, when free (or, with OCCUPIED_OK and options.occupied_spaces
       = "any", one the player may join): OPT_TREE with A = space. An altar space without
       a tile: B = C = -1, its columns those of the unused tile colour the player holds
       most of (ties: the lowest); the tile is chosen next (STEP_TILE). A root space with
       its reserved tokens: B = C = -1 (once taken, it is not offered). A space with a
       tile: B = tile colour, C = tile colour if altar_cost > 0 (the player must hold
       altar_cost tokens of it) else -1.
    3. OPT_PASS (A = B = C = -1) if there is no other row.
    POINTS = points the effect scores now (after paying); F1 = Favor tokens it gives
    (fixed gains: the supply permitting; "take any"/"fewest colour" choices: their
    amount; reserved tokens: their number); F2 = 1 if the offering completes the card;
    F3 = Rune tiles it draws (the stack permitting); F4 = tokens the player holds after
    paying and the fixed gains of the card's colour (card rows) or of the tile's colour
    (tree rows with a tile colour; else 0).
  STEP_TOKEN (a "take any" or "fewest colour" effect): OPT_COLOUR with A = colour,
    ascending; "any": every colour the supply holds; "fewest": among colours the supply
    holds, those the player holds fewest of. POINTS = tokens the player holds of A.
  STEP_BLOCK (the block effect, once per neutral marker): OPT_BLOCK, A = slot,
    B = space, every free card space in order; F2 = 1 if the block completes the card;
    POINTS = 1 if the player has a marker on that card; F4 = tokens the player holds of
    the card's colour.
  STEP_TILE (after an OPT_TREE to an altar space without a tile): OPT_TILE, A = colour,
    every unused Altar tile colour ascending; POINTS, F1, F3, F4 as the OPT_TREE row
    would have with that tile.
  STEP_NEW_START: OPT_NEW_START, A = card id, B = its colour, C = its bottom-right colour,
    for the cards drawn, in draw order.

    column  KIND  A  B  C  POINTS  F1  F2  F3  F4   (unused entries: -1 for A B C, else 0)
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from simkit.kernels.jit import grid, njit_without_refcounts, segment
from simkit.outputs import CORE_OUTPUTS, Output

MAX_PLAYERS = 4
MAX_COLOURS = 6
MAX_SPACES = 4
MAX_SLOTS = 10
MAX_TREE = 12
MAX_HELD_RUNES = 24
MAX_CARDS = 128
NEUTRAL = MAX_PLAYERS  # occupant code of a neutral marker

SEAT, N_PLAYERS, SEASON, STEP, FIRST, OCCUPIED_OK, RUNES_LEFT, NEUTRAL_LEFT, N_SLOTS = range(9)
ROUND = SEASON  # the shared loop's round (simkit/gamekit/loop.py): the season
GAME_OVER = -1  # what the shared loop's state hooks return when the game is over
# A bound on a game's decisions the shared loop stops at: above any game the config allows.
MAX_DECISIONS = 1 << 21
SUPPLY = 9
DECK_LEFT = SUPPLY + MAX_COLOURS
TILE_USED = DECK_LEFT + MAX_COLOURS
SLOT = TILE_USED + MAX_COLOURS
S_CARD = 0
S_OCC = 1
S_OCC2 = S_OCC + MAX_SPACES
SLOT_SIZE = S_OCC2 + MAX_SPACES
TREE = SLOT + MAX_SLOTS * SLOT_SIZE
T_OCC, T_TILE, T_TOKENS, T_OCC2 = 0, 1, 2, 4
TREE_SIZE = 5
PLAYER = TREE + MAX_TREE * TREE_SIZE
P_SCORE, P_MARKERS, P_N_RUNES = 0, 1, 2
P_TOKENS = 3
P_RUNES = P_TOKENS + MAX_COLOURS
PLAYER_SIZE = P_RUNES + MAX_HELD_RUNES
PUB_SIZE = PLAYER + MAX_PLAYERS * PLAYER_SIZE

STEP_RUNE, STEP_MOVE, STEP_OFFER, STEP_TOKEN, STEP_BLOCK, STEP_NEW_START, STEP_TILE = range(7)

KIND, A, B, C, POINTS, F1, F2, F3, F4 = range(9)
N_COLS = 9
(OPT_NO_RUNE, OPT_RUNE, OPT_MOVE, OPT_CARD, OPT_TREE, OPT_PASS, OPT_COLOUR, OPT_BLOCK,
 OPT_NEW_START, OPT_TILE) = range(10)
MAX_OPTIONS = 512

# The players the kernel tells apart (strategies/inori.py's ids and parameter
# columns are these): the rollout and search players its lookahead plays, the
# policies their playouts play, and the column of `ties` (each strategy's last
# parameter) in each one's parameters.
RANDOM, GREEDY, PLANNER, ROLLOUT, SEARCH = 0, 1, 2, 3, 4
PLAYOUT = GREEDY  # the rollout player's default policy (its `policy` 0)
ROLLOUT_WEIGHTS = 4  # the rollout player's copy of its policy's weights starts here
GREEDY_TIES, PLANNER_TIES = 4, 6
ROLLOUT_TIES = ROLLOUT_WEIGHTS + PLANNER_TIES

# Card kinds.
JOURNEY, START, NEW_START = range(3)
CARD_KINDS = ("journey", "start", "new_start")
# A card space's cost: COST_NONE, a colour (0..K-1), or COST_MAJORITY.
COST_NONE = -1
COST_MAJORITY = MAX_COLOURS
# Card space effects (config `effect`), in the rule text's order.
EF_GAIN, EF_FEWEST, EF_RUNE, EF_DISTINCT, EF_PER_TOKEN, EF_MAJORITY = range(6)
EFFECTS = ("gain", "gain_fewest", "rune", "points_distinct", "points_per_token",
           "points_majority")
# points_per_token read "per colour" (options.specific_colours = "per_colour", the default:
# "un punto por cada uno de los colores específicos que tengas", a point per listed colour
# held): config.py gives such spaces this code; it is not a config effect name.
EF_PER_COLOUR = len(EFFECTS)
# Great Tree effects (config `effect`), in the rule text's order.
TE_ANY, TE_POINTS, TE_RUNE_TOKEN, TE_TILE_POINTS, TE_BLOCK, TE_TILE_TOKENS, TE_ROOT = range(7)
TREE_EFFECTS = ("take_any", "points", "rune_and_token", "points_per_tile_token",
                "block_and_token", "tile_tokens", "reserved_tokens")
# Rune tile kinds (config `kind`), in the rule text's order.
RUNE_GAIN, RUNE_TO_COLOUR, RUNE_FROM_COLOUR, RUNE_OCCUPIED = range(4)
RUNE_KINDS = ("gain", "move_to_colour", "move_from_colour", "occupied")

# Tables.card columns: one row per card id; then per space s, SPACE + s*SPACE_SIZE + SP_*.
CARD_KIND, CARD_COLOUR, CARD_NEXT, CARD_N_SPACES = range(4)
SPACE = 4
SP_COST, SP_EFFECT, SP_COLOUR, SP_COLOUR2, SP_AMOUNT = range(5)
SPACE_SIZE = 5
N_CARD_COLS = SPACE + MAX_SPACES * SPACE_SIZE
# Tables.tree columns: one row per tree space.
TR_ROOT, TR_EFFECT, TR_AMOUNT, TR_AMOUNT2 = range(4)
N_TREE_COLS = 4
# Tables.rune columns: one row per Rune tile.
RU_KIND, RU_COLOUR, RU_AMOUNT = range(3)
N_RUNE_COLS = 3
# Tables.rules entries.
(R_N_COLOURS, R_SEASONS, R_N_JOURNEY, R_N_START, R_N_NEW_START, R_N_TREE, R_N_RUNES,
 R_START_IN_PLAY, R_NEUTRAL, R_MAJ_FIRST, R_MAJ_SECOND, R_COST_RETURN, R_MAJ_TIE_CHOOSE,
 R_ALTAR_COST, R_ALTAR_REPEAT, R_LOW_TIE, R_NEW_START_JOIN, R_RESHUFFLE, R_ROOT_RANDOM,
 R_NEW_START_DRAW) = range(20)
# Restricted play, for `simkit value` (simkit/games/inori/interventions.py): seat
# R_BAN_SEAT may not offer to card R_BAN_CARD nor to Great Tree space R_BAN_TREE, may not
# play Rune tiles of kind R_BAN_RUNE, and takes no Favor tokens of colour R_BAN_COLOUR
# (-1: none). The rule text has no such rule; the config always sets -1.
R_BAN_SEAT, R_BAN_CARD, R_BAN_TREE, R_BAN_RUNE, R_BAN_COLOUR = 20, 21, 22, 23, 24
# options.rune_timing = "before_or_after": a player who played no Rune tile before the
# offering may play one after it.
R_RUNE_AFTER = 25
# Seat compensation (config `compensation.points`, like komi in Go): points added to each
# seat's final score (scoring.final_score), MAX_PLAYERS entries, seat 0 first; all 0 in
# the published game.
R_COMP = 26
# Half a point of seat compensation (config `compensation.half`, 0 or 1 per seat, like
# komi's half point): it only breaks ties on the final score (scoring.ranking_key), the
# score stays whole points. MAX_PLAYERS entries, seat 0 first; all 0 in the published game.
R_HALF = R_COMP + MAX_PLAYERS
# options.move_piece = "any": a move Rune tile moves any piece (a player's marker or a
# neutral one), not only one of the player's own markers.
R_MOVE_ANY = R_HALF + MAX_PLAYERS
# options.win_tie (WIN_TIES): how a tie for the most points is settled.
R_WIN_TIE = R_MOVE_ANY + 1
# options.occupied_spaces = "any": an "occupied" Rune also opens Great Tree spaces;
# options.occupied_count = "any": a space may hold any number of markers (none the
# player's), not only one.
R_OCC_TREE = R_WIN_TIE + 1
R_OCC_ANY_COUNT = R_OCC_TREE + 1
N_RULES = R_OCC_ANY_COUNT + 1
# options.fewest_points_tie (R_LOW_TIE).
TIE_TURN_ORDER, TIE_REVERSE, TIE_RANDOM = range(3)
LOW_TIES = ("turn_order", "reverse_turn_order", "random")
# options.move_piece (R_MOVE_ANY) and options.win_tie (R_WIN_TIE).
MOVE_PIECES = ("any", "own")
OCCUPIED_SPACES = ("any", "cards")
OCCUPIED_COUNTS = ("any", "one")
WIN_SHARED, WIN_MOST_TOKENS = range(2)
WIN_TIES = ("shared", "most_tokens")

# Points by source (result columns points_<source>).
(SRC_CARD, SRC_TREE, SRC_COMPLETE, SRC_NEW_START, SRC_MAJORITY) = range(5)
SOURCES = ("card_effects", "tree_effects", "completed_cards", "new_start_cards",
           "majorities")

# Hidden state: int64[HID_SIZE], what no strategy sees: where play stands between two
# decisions, two work slots, then the hidden piles (a lookahead copies it with `pub`).
#   PHASE        1   what play.next_decision does next (PH_*)
#   TURN_POS     1   the next position in this turn pass (0: the season's first player)
#   ANYONE       1   1 once someone took a turn in this pass
#   TODO_LEFT    1   decisions an offering's effect still asks for (PH_TOKENS, PH_BLOCK)
#   TODO_FEWEST  1   PH_TOKENS: 1 "fewest colour", 0 "take any"
#   TODO_COLOUR  1   PH_BLOCK: the tile colour gained after the blocks; PH_MOVE: the
#                    Rune tile's colour; PH_TILE: the tree space waiting for its tile
#   TODO_AMOUNT  1   tokens per PH_TOKENS decision; PH_BLOCK: tokens gained after the
#                    blocks; PH_MOVE: the Rune tile's kind; PH_TILE: the colour paid
#                    (-1: nothing)
#   STOP_SEASON  1   play stops when this season would begin (a rollout's horizon)
#   RUNE_DONE    1   this turn: 0 no Rune tile played yet; 1 one was played before the
#                    offering; 2 the step after the offering (options.rune_timing) is on
#   HV           colours   a work slot: the deciding seat's tokens (scoring.holdings)
#   TIED         players   a work slot: the seats tied on fewest points (rules.fewest_points)
(PHASE, TURN_POS, ANYONE, TODO_LEFT, TODO_FEWEST, TODO_COLOUR, TODO_AMOUNT,
 STOP_SEASON, RUNE_DONE, HV) = range(10)
TIED = HV + MAX_COLOURS
HID_STATE = TIED + MAX_PLAYERS  # the entries above; then the hidden piles (`piles`):
#   tops         3 x colours   per colour: deck top, deck end, discards (PILE_*)
#   rtops        4             New Start top, end; Rune top, end (NEW_*, RUNE_*)
#   stack        Rune tiles    the Rune stack
#   new_starts   cards         the New Start deck (top first)
#   starts       cards         a work slot: setup's Start cards for the player count
#   decks        colours x cards   the Journey deck of each colour (top first)
#   discards     colours x cards   the discarded Journey cards of each colour
# Their sizes are the config's (`hid_size`); HID_SIZE bounds them for any config (a card
# id is a Journey, Start or New Start card: at most 3 x MAX_CARDS of them).
HID_SIZE = (HID_STATE + 3 * MAX_COLOURS + 4 + MAX_HELD_RUNES + 2 * 3 * MAX_CARDS
            + 2 * MAX_COLOURS * 3 * MAX_CARDS)
# Phases, in the order of a turn, then the season end.
(PH_TURN, PH_MOVE, PH_OFFER, PH_TILE, PH_TOKENS, PH_BLOCK, PH_END_TURN, PH_SEASON_END,
 PH_NEXT_SEASON, PH_OVER) = range(10)

# Per-seat counters: int64[MAX_PLAYERS, CT_SIZE], kept by the rules for the results.
CT_SRC = 0  # points by source (SOURCES)
CT_TREE = CT_SRC + len(SOURCES)  # offerings per tree space (MAX_TREE)
CT_RUNE = CT_TREE + MAX_TREE  # Rune tiles played per kind (RUNE_KINDS)
(CT_DRAWN, CT_COMPLETED, CT_FIRST, CT_PASSED, CT_TILES, CT_TURNS, CT_PAID, CT_GAINED,
 CT_NEUTRAL, CT_NEW_START, CT_CARD_OFFERS) = range(CT_RUNE + len(RUNE_KINDS),
                                                   CT_RUNE + len(RUNE_KINDS) + 11)
CT_DONE = CT_CARD_OFFERS + 1  # then per card id: times complete with the seat present
CT_SIZE = CT_DONE + MAX_CARDS  # at most (the scratch holds CT_DONE + the config's cards)

# Result columns, in order: every game's five (simkit/outputs.py) first; O_<NAME> is each
# one's index.
OUTPUTS = (
    *CORE_OUTPUTS,  # strategy, score, rank, win_share, rounds
    Output("cards_completed", np.uint8),  # complete cards the player was present on
    Output("runes_drawn", np.uint8),
    Output("seasons_first", np.uint8),  # seasons as first player
    Output("markers_passed", np.uint8),  # markers lost by passing
    Output("tiles_placed", np.uint8),  # Altar tiles
    Output("turns", np.uint16),  # passes included
    Output("tokens_paid", np.uint16),  # Favor tokens returned or shown
    Output("tokens_gained", np.uint16),
    Output("neutral_placed", np.uint8),
    Output("new_starts_kept", np.uint8),
    Output("card_offerings", np.uint16),  # offerings to card spaces
    Output("points", np.int16, "sources"),  # points by source (SOURCES)
    Output("tokens", np.uint8, "colours"),  # Favor tokens held at the end
    Output("tree", np.uint8, "trees"),  # offerings to each Great Tree space
    Output("rune", np.uint8, "rune_kinds"),  # Rune tiles played, per kind (RUNE_KINDS)
    Output("card", np.uint8, "cards"),  # complete cards the player was present on, per card
)
(O_STRATEGY, O_SCORE, O_RANK, O_WIN_SHARE, O_ROUNDS, O_CARDS_COMPLETED, O_RUNES_DRAWN,
 O_SEASONS_FIRST, O_MARKERS_PASSED, O_TILES_PLACED, O_TURNS, O_TOKENS_PAID, O_TOKENS_GAINED,
 O_NEUTRAL_PLACED, O_NEW_STARTS_KEPT, O_CARD_OFFERINGS, O_POINTS, O_TOKENS, O_TREE, O_RUNE,
 O_CARD) = range(len(OUTPUTS))

# Trace of one game (buffers: simkit/kernels/trace.py); the decision kind recorded is the step.
# Events: [season, event, seat, a, b, c]
(EV_SETUP_CARD, EV_ROOT, EV_RUNE, EV_MOVE, EV_CARD, EV_TREE, EV_PASS, EV_PAY, EV_GAIN,
 EV_POINTS, EV_DRAW_RUNE, EV_BLOCK, EV_COMPLETE, EV_INCOMPLETE, EV_SCORE, EV_REPLACE,
 EV_RESHUFFLE, EV_MARKERS, EV_NEW_START, EV_FIRST, EV_MAJORITY, EV_END) = range(22)


@njit_without_refcounts
def player_at(p: int, field: int) -> int:
    """Offset of `field` (P_*) of seat p in `pub`."""
    return PLAYER + p * PLAYER_SIZE + field


@njit_without_refcounts
def slot_at(i: int, field: int) -> int:
    """Offset of `field` (S_*) of card slot i in `pub`."""
    return SLOT + i * SLOT_SIZE + field


@njit_without_refcounts
def tree_at(t: int, field: int) -> int:
    """Offset of `field` (T_*) of Great Tree space t in `pub`."""
    return TREE + t * TREE_SIZE + field


@njit_without_refcounts
def space_col(s: int, field: int) -> int:
    """Column of `field` (SP_*) of card space s in Tables.card."""
    return SPACE + s * SPACE_SIZE + field


# ---- work arrays (play.py builds them; numba compiles these as tuples with named fields)
# Rows of `tops`: colour x's deck is decks[x, tops[PILE_TOP, x]:tops[PILE_END, x]], its
# discards discards[x, :tops[PILE_DISCARDS, x]].
PILE_TOP, PILE_END, PILE_DISCARDS = range(3)
# Entries of `rtops`: the New Start deck is new_starts[rtops[NEW_TOP]:rtops[NEW_END]], the
# Rune stack stack[rtops[RUNE_TOP]:rtops[RUNE_END]].
NEW_TOP, NEW_END, RUNE_TOP, RUNE_END = range(4)


@njit_without_refcounts
def hid_size(t) -> int:
    """The length of `hid` for the config of tables `t` (HID_STATE, then `piles`)."""
    n_col, n_cards = t.colour.shape[0], t.card.shape[0]
    return HID_STATE + 3 * n_col + 4 + t.rune.shape[0] + 2 * n_cards + 2 * n_col * n_cards


@njit(cache=True, inline="always")
def piles(t, hid):
    """Views of the hidden piles in `hid` (see HID_STATE): tops, rtops, stack, new_starts,
    starts, decks, discards."""
    n_col, n_cards = t.colour.shape[0], t.card.shape[0]
    tops = grid(hid, HID_STATE, 3, n_col)
    rtops, stack = rune_piles(t, hid)
    a = HID_STATE + 3 * n_col + 4 + t.rune.shape[0]
    new_starts = segment(hid, a, n_cards)
    starts = segment(hid, a + n_cards, n_cards)
    a += 2 * n_cards
    decks = grid(hid, a, n_col, n_cards)
    discards = grid(hid, a + n_col * n_cards, n_col, n_cards)
    return tops, rtops, stack, new_starts, starts, decks, discards


# Views of hid's piles and work slots, made where a step needs them (the rules take the
# API's pub, hid and cnt), built in place (`jit.segment`, `jit.grid`): views are made in
# the turn loop (the holdings slot at a card's offering, the Rune piles at its draws).
# The bounds are the layout's (hid_size).
@njit(cache=True, inline="always")
def rune_piles(t, hid):
    """Views of `rtops` and the Rune stack in `hid` alone (`piles`), for a turn's draws."""
    a = HID_STATE + 3 * t.colour.shape[0]
    return segment(hid, a, 4), segment(hid, a + 4, t.rune.shape[0])


@njit(cache=True, inline="always")
def hv_of(hid):
    """hid's HV work slot: the deciding seat's tokens (scoring.holdings)."""
    return segment(hid, HV, MAX_COLOURS)


@njit(cache=True, inline="always")
def tied_of(hid):
    """hid's TIED work slot: the seats tied on fewest points (rules.fewest_points)."""
    return segment(hid, TIED, MAX_PLAYERS)


class Scratch(NamedTuple):
    """Per-thread work arrays of batch play, reused across games (play.new_scratch)."""

    pub: np.ndarray  # public state
    opts: np.ndarray  # option table
    rngs: np.ndarray  # rng streams: deal, then one per seat
    hid: np.ndarray  # hidden state, the piles and work slots included (hid_size)
    hv: np.ndarray  # hid's HV work slot, a view made once (step.next_fused)
    cnt: np.ndarray  # per-seat counters (CT_*), then complete cards per card id
    ranking: np.ndarray  # the end's ranking keys (the shared loop's game_end)
    rollout: tuple  # the lookahead's trace (never recorded into: the rollout and search
    search: tuple  # players' arrays are made per decision, play.rollout_work, search_work)


class Redeal(NamedTuple):
    """A re-deal of one decision, which the rollout and search players play forward
    (play.new_redeal): a copy of the game's state with the hidden piles dealt anew
    (rules.redeal), and the policy every seat plays in it. The search player's work is
    one; the game's own arrays are never touched."""

    pub: np.ndarray  # the re-deal's state, its piles in hid ...
    hid: np.ndarray
    opts: np.ndarray  # ... its option table
    cnt: np.ndarray
    sids: np.ndarray  # the policy, for every seat ...
    params: np.ndarray  # ... with its weights
    trace: tuple  # the game's trace (never recorded into)


class RolloutWork(NamedTuple):
    """The rollout player's arrays for one decision (play.rollout_work)."""

    redeal: Redeal  # the playouts' state and policy
    deal_hid: np.ndarray  # this rollout's deal: hid with the piles re-dealt ...
    seed: np.ndarray  # ... and its seed
    rngs: np.ndarray  # a playout's stream: the deal's seed, the same for every row
    rows: np.ndarray  # the candidates' rows


class GreedyWeights(NamedTuple):
    """A greedy seat's weights, read once while its offering table is built
    (options.offer_rows; strategies/inori.offering_value says what each weighs)."""

    token: float
    rune: float
    complete: float
    cost: float
    random_ties: bool  # ties drawn at random (strategies/ties.py), else the first row

