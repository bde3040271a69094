"""The play loop every game shares: options -> decide -> apply, batch play over a range of
games, traced play, and the rollout (lookahead) player.

This file is a template, not an importable module: `simkit.gamekit.binding.bind` compiles
it into a game's `play.py` namespace, where the names below that it does not define come
from the game (docs/new-game.md lists them):

    layout     PUB_SIZE, HID_SIZE, CT_SIZE, N_COLS, MAX_OPTIONS, MAX_PLAYERS,
               MAX_DECISIONS, SEAT, ROUND, KIND
    rules      setup, next_decision, apply_option, ranking_key, points, redeal,
               and optionally check (a conservation check, run in traced play)

and the rollout player and the batch loop are the ones every game shares
(simkit/kernels/rollout.py over the hooks `rollout_work`, `rollout_candidates`,
`rollout_deal` and `rollout_play` below; simkit/kernels/batch.py).
    play       results (the game's own result columns)
    players    choose, ROLLOUT, PLAYOUT, STRATEGIES

So every game's loop is this one code, compiled and cached once per game with the game's
rules inlined, and the rollout player plans with exactly the rules the game is played by.
A function below that the game's play.py defines itself is the game's (`bind` keeps it):
a built-in game whose rules take more arrays than pub, hid and cnt gives its own scratch
and state hooks (`state_setup` ...), and its specialised lookahead hooks where they pay
(Inori: simkit/games/inori/play.py; Cauldron Master and Carnuta keep lookahead hooks).
Line numbers in tracebacks and numba errors are this file's.
"""
# ruff: noqa: F821  (the game's names arrive when `bind` compiles this into its namespace)

import numpy as np

from simkit.gamekit.scratch import Decision, RolloutScratch, Scratch, SearchScratch
from simkit.kernels.search_tree import SEARCH_PARAMS, new_tree, row_key
from simkit.kernels.seating import rank_seats
from simkit.kernels.trace import new_trace_stub, record_decision
from simkit.rng import next_u64, stream_state

# The result columns this loop writes (simkit.gamekit.LOOP_OUTPUTS), by position.
O_STRATEGY, O_SCORE, O_RANK, O_WIN_SHARE, O_ROUNDS, O_DECISIONS = range(6)
GAME_OVER = -1  # what next_decision returns when the game is over
# A game that breaks the contract is stopped, and its `decisions` column says why:
NO_OPTION = -1  # next_decision offered 0 options
TOO_MANY = -2  # next_decision offered more than MAX_OPTIONS
BAD_CHOICE = -300  # minus a strategy id: it chose a row outside the table (traced play only)
CHECK_FAILED = -1000  # minus the code the game's `check` returned (traced play only)
N_PARAMS = 12  # strategies.MAX_PARAMS


def new_scratch(t):
    """Per-thread work arrays, reused across games (every game resets what it uses);
    their fields: simkit/gamekit/scratch.py."""
    return Scratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        rngs=np.zeros((MAX_PLAYERS + 1, 1), np.uint64),
        ranking=np.zeros((2, MAX_PLAYERS), np.float64),
        rollout=new_lookahead_scratch(),
        search=new_search_scratch(),
    )


def new_lookahead_scratch():
    """Work arrays of the rollout player, apart from the game's so a playout never
    touches it."""
    return RolloutScratch(
        pub=np.zeros(PUB_SIZE, np.int32),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        dealt_pub=np.zeros(PUB_SIZE, np.int32),
        dealt_hid=np.zeros(HID_SIZE, np.int64),
        dealt_cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        streams=np.zeros((2, 1), np.uint64),
        total=np.zeros(MAX_OPTIONS, np.float64),
        ranking=np.zeros((2, MAX_PLAYERS), np.float64),
        trace=new_trace_stub(N_COLS),
        sids=np.full(MAX_PLAYERS, PLAYOUT, np.int64),
        params=np.zeros((MAX_PLAYERS, N_PARAMS), np.float64),
    )


def new_search_scratch():
    """Work arrays of the search player, apart from the game's and the rollout player's."""
    return SearchScratch(
        tree=new_tree(MAX_PLAYERS, MAX_OPTIONS),
        pub=np.zeros(PUB_SIZE, np.int32),
        hid=np.zeros(HID_SIZE, np.int64),
        cnt=np.zeros((MAX_PLAYERS, CT_SIZE), np.int64),
        opts=np.zeros((MAX_OPTIONS, N_COLS), np.int32),
        sids=np.zeros(MAX_PLAYERS, np.int64),
        params=np.zeros((MAX_PLAYERS, N_PARAMS), np.float64),
        ranking=np.zeros((2, MAX_PLAYERS), np.float64),
        trace=new_trace_stub(N_COLS),
    )


# A game's optional functions, when it has none of its own (`bind` keeps the game's),
# compiled into each game: one shared cached function is typed with every game's tables,
# and its cache index, which pickles them, fails to load in a process that cannot import
# one of those games (Cauldron Master's run did, after a test had compiled nim's).
def check(t, n_players, pub, hid, cnt):
    """The conservation check of a game that has none: always fine."""
    return 0


def action_key(t, opts, i):
    """A row's move when the game gives no `action_key`: a hash of the whole row."""
    return row_key(opts, i)


def ask(sid, opts, n, pub, t, params, rng):
    """Ask a strategy for an option row; an out-of-range answer falls back to row 0."""
    chosen = choose(sid, opts, n, pub, t, params, rng)
    if chosen < 0 or chosen >= n:
        return 0
    return chosen


def playout(t, n_players, pub, hid, cnt, opts, sids, params, rng, horizon, trace):
    """Play on from a state where a decision is pending (its `n` rows in `opts`) to the
    end, or for `horizon` more decisions (0: no limit), every seat s playing sids[s] with
    params[s] and every chance event drawing from `rng`. Returns the decisions played."""
    steps = 0
    while True:
        n = next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, False)
        if n <= 0 or n > MAX_OPTIONS or (horizon > 0 and steps >= horizon) \
                or steps >= MAX_DECISIONS:
            return steps
        s = pub[SEAT]
        c = ask(sids[s], opts, n, pub, t, params[s], rng)
        apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, False)
        steps += 1


# The rollout player's hooks (simkit/kernels/rollout.py, bound with the loop): a decision's
# `state` is a Decision whose `work` is the RolloutScratch.
def rollout_work(t, n_players, state, params):
    """The playouts' arrays, sums and ranking, kept in the game's scratch, every playout
    seat given the parameters that follow the rollout player's own two."""
    rs = state.work
    policy_params = rs.params
    for s in range(n_players):
        for k in range(N_PARAMS - 2):
            policy_params[s, k] = params[k + 2]
    return rs, rs.total, rs.ranking


def rollout_candidates(t, n_players, state, opts, n, params, rng, work, cand, head):
    """Every row of `opts[:n]`."""
    for i in range(n):
        cand[i] = i
    return n


def rollout_deal(t, n_players, state, work, rng):
    """A copy of the state with what the seat cannot see re-dealt (the game's `redeal`),
    from a seed drawn from the seat's own stream."""
    pub, dpub, dhid, dcnt, streams = state.pub, work.dealt_pub, work.dealt_hid, \
        work.dealt_cnt, work.streams
    dpub[:] = pub
    dhid[:] = state.hid
    dcnt[:] = state.cnt
    streams[0, 0] = next_u64(rng)
    redeal(t, n_players, dpub, dhid, dcnt, pub[SEAT], streams[0])


def rollout_play(t, n_players, state, opts, cand, k, i, params, rng, work, keys, pts):
    """From the dealt state and its seed (the same random numbers for every row), row
    cand[i], then on with every seat playing the game's PLAYOUT strategy, to the end or for
    `params[1]` decisions; keys by `ranking_key` and points, on the state reached."""
    rpub, rhid, rcnt, ropts, streams = work.pub, work.hid, work.cnt, work.opts, work.streams
    rpub[:] = work.dealt_pub
    rhid[:] = work.dealt_hid
    rcnt[:] = work.dealt_cnt
    streams[1, 0] = streams[0, 0]
    ropts[:k] = opts[:k]
    apply_option(t, n_players, rpub, rhid, rcnt, ropts, cand[i], streams[1], work.trace,
                 False)
    playout(t, n_players, rpub, rhid, rcnt, ropts, work.sids, work.params, streams[1],
            np.int64(params[1] + 0.5), work.trace)
    for s in range(n_players):
        keys[s] = ranking_key(t, n_players, rpub, rhid, rcnt, s)
        pts[s] = points(t, rpub, rhid, rcnt, s)


# The search player's hooks (simkit/kernels/search.py, bound with the loop): a decision's
# `state` is a Decision whose `work` is the SearchScratch.
def search_work(t, n_players, state, params):
    """The re-deal's arrays, tree and ranking, every playout seat playing strategy
    `params[3]` with the parameters that follow the search player's own."""
    ss = state.work
    policy = np.int64(params[3] + 0.5)
    for s in range(n_players):
        ss.sids[s] = policy
        for k in range(N_PARAMS - SEARCH_PARAMS):
            ss.params[s, k] = params[k + SEARCH_PARAMS]
    return ss, ss.tree, ss.ranking


def search_deal(t, n_players, state, opts, n, work, rng):
    """A copy of the state with what the seat cannot see re-dealt (the game's `redeal`),
    the decision's rows pending."""
    pub = state.pub
    work.pub[:] = pub
    work.hid[:] = state.hid
    work.cnt[:] = state.cnt
    work.opts[:n] = opts[:n]
    redeal(t, n_players, work.pub, work.hid, work.cnt, pub[SEAT], rng)


def search_seat(t, work):
    return work.pub[SEAT]


def search_key(t, work, i):
    return action_key(t, work.opts, i)


def search_apply(t, n_players, work, i, rng):
    apply_option(t, n_players, work.pub, work.hid, work.cnt, work.opts, i, rng, work.trace,
                 False)


def search_next(t, n_players, work, rng):
    n = next_decision(t, n_players, work.pub, work.hid, work.cnt, work.opts, rng, work.trace,
                      False)
    return n if n <= MAX_OPTIONS else 0


def search_prefer(t, n_players, work, n, rng):
    """The policy's own row of the pending decision (of the seat to play)."""
    s = work.pub[SEAT]
    return ask(work.sids[s], work.opts, n, work.pub, t, work.params[s], rng)


def search_values(t, n_players, work, n, values):
    """No values: the tree widens to a random untried move after the policy's own."""
    return False


def search_playout(t, n_players, work, params, rng):
    playout(t, n_players, work.pub, work.hid, work.cnt, work.opts, work.sids, work.params, rng,
            np.int64(params[2] + 0.5), work.trace)


def search_end(t, n_players, work, keys, pts):
    for s in range(n_players):
        keys[s] = ranking_key(t, n_players, work.pub, work.hid, work.cnt, s)
        pts[s] = points(t, work.pub, work.hid, work.cnt, s)


# The state hooks: how the loop reaches the game's state in its scratch. These defaults
# are the game API's (pub, hid, cnt); a game whose rules take more arrays (Inori's views
# of its piles in hid) defines its own in play.py, and `bind` keeps them. numba
# inlines them, so they cost nothing.
def state_setup(t, n_players, scratch, rng, trace, tracing):
    """A new game in the scratch's state (the game's `setup`)."""
    pub, hid, cnt = scratch.pub, scratch.hid, scratch.cnt
    setup(t, n_players, pub, hid, cnt, rng, trace, tracing)


def state_next(t, n_players, scratch, rng, trace, tracing):
    """The automatic steps up to the next decision, its rows in scratch.opts; their
    number, or GAME_OVER (the game's `next_decision`)."""
    pub, hid, cnt, opts = scratch.pub, scratch.hid, scratch.cnt, scratch.opts
    return next_decision(t, n_players, pub, hid, cnt, opts, rng, trace, tracing)


def state_next_fused(t, n_players, scratch, sids, params, rng, trace, tracing):
    """`state_next`, and whether the table holds only the seat's choice, in row 0, made by
    its strategy (seat s plays sids[s] with params[s]) as the table was built: never here
    (Inori's greedy seats, untraced, are)."""
    return state_next(t, n_players, scratch, rng, trace, tracing), False


def state_apply(t, n_players, scratch, c, rng, trace, tracing):
    """Row c of the pending decision applied (the game's `apply_option`)."""
    pub, hid, cnt, opts = scratch.pub, scratch.hid, scratch.cnt, scratch.opts
    apply_option(t, n_players, pub, hid, cnt, opts, c, rng, trace, tracing)


def state_decision(scratch, work):
    """What the rollout and search players decide from: the state and their `work`."""
    return Decision(scratch.pub, scratch.hid, scratch.cnt, work)


def rollout_decides(t, n_players, scratch):
    """Whether the rollout player plays out this decision (else its seat's strategy
    decides it, with the rollout player's parameters): every decision."""
    return True


def search_decides(t, n_players, scratch):
    """Whether the search player searches this decision (else its seat's strategy decides
    it, with the search player's parameters): every decision."""
    return True


def decision_kind(t, scratch):
    """What a traced decision records as its kind: its first row's KIND."""
    return scratch.opts[0, KIND]


def play_game(t, n_players, seed, sids, params, out, g, scratch, trace, tracing, lookahead):
    """Play one game from `seed` into row g of `out`; seat s plays strategy sids[s]. With
    `lookahead` None the rollout player's code is left out (simulate_batch says why)."""
    pub, opts, hid, cnt, rngs = scratch.pub, scratch.opts, scratch.hid, scratch.cnt, \
        scratch.rngs
    rngs[0, 0] = stream_state(seed, np.uint64(0))
    for s in range(n_players):
        rngs[1 + s, 0] = stream_state(seed, np.uint64(1 + s))
    state_setup(t, n_players, scratch, rngs[0], trace, tracing)
    decisions = 0
    while decisions < MAX_DECISIONS:  # a game that never ends stops here (and is reported)
        n, fused = state_next_fused(t, n_players, scratch, sids, params, rngs[0], trace,
                                    tracing)
        if n == GAME_OVER:
            break
        if n <= 0 or n > MAX_OPTIONS:  # reported by the adapter (simkit/gamekit/folder.py)
            decisions = NO_OPTION if n <= 0 else TOO_MANY
            break
        s = pub[SEAT]
        if fused:
            c = 0
        elif lookahead is not None and sids[s] == ROLLOUT \
                and rollout_decides(t, n_players, scratch):
            c = rollout_choice(t, n_players, s, state_decision(scratch, scratch.rollout), opts,
                               n, params[s], rngs[1 + s])
        elif lookahead is not None and sids[s] == SEARCH \
                and search_decides(t, n_players, scratch):
            c = searched(lookahead, t, n_players, s, state_decision(scratch, scratch.search),
                         opts, n, params[s], rngs[1 + s])
        else:
            c = choose(sids[s], opts, n, pub, t, params[s], rngs[1 + s])
            if c < 0 or c >= n:  # `ask`'s fallback to row 0; a traced game reports it
                if tracing:
                    decisions = BAD_CHOICE - sids[s]
                    break
                c = 0
        record_decision(trace, tracing, pub[ROUND], s, decision_kind(t, scratch), opts, n, c)
        state_apply(t, n_players, scratch, c, rngs[0], trace, tracing)
        decisions += 1
        if tracing:  # the game's conservation check, after every step of a traced game
            code = check(t, n_players, pub, hid, cnt)
            if code != 0:
                decisions = CHECK_FAILED - code
                break
    game_end(t, n_players, pub, hid, cnt, out, g, scratch.ranking[0], decisions)


def game_end(t, n_players, pub, hid, cnt, out, g, keys, decisions):
    """A finished game into row g of `out`: score, rank, win share, rounds and decisions
    (the loop's columns, `keys` the seats' ranking keys), then the game's own (`results`)."""
    for s in range(n_players):
        keys[s] = ranking_key(t, n_players, pub, hid, cnt, s)
        out[O_SCORE][g, s] = points(t, pub, hid, cnt, s)
    rank_seats(keys, n_players, out[O_RANK][g], out[O_WIN_SHARE][g])
    out[O_ROUNDS][g] = pub[ROUND] + 1
    if KEEPS_DECISIONS:  # the `decisions` column (bind: a game's OUTPUTS may predate it)
        out[O_DECISIONS][g] = decisions
    results(t, n_players, pub, hid, cnt, out, g)
