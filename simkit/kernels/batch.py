"""A block of games, written once for every game: the batch and traced entry point.

This file is a template, not an importable module: `simkit.kernels.templates.bind_batch`
compiles it into a game's `play.py` namespace, where `new_scratch(t)` (the per-thread work
arrays) and `play_game(...)` (one game into a row of the results) are the game's own.
"""
# ruff: noqa: F821  (the game's names arrive when `bind_batch` compiles this)

from simkit.kernels.seating import prepare_game, seat_buffers


def simulate_batch(t, n_players, master_seed, first_game, lineup, rotate, strategy_ids,
                   strategy_params, out, trace, tracing, lookahead):
    """Play games first_game .. first_game + len(out[0]) - 1 into `out`.

    On the calling thread, its work arrays allocated once (`simkit.threads` shares a
    batch's blocks among threads); every game depends only on its own index. With
    `tracing` (one game only) the game is recorded into `trace` (`simkit play`): batch and
    traced play are one compiled function, so either compiles (or loads) both.
    `lookahead` is True when a seat plays the rollout player (LOOKAHEAD), else None:
    numba then prunes the rollout call before compiling, so a run without one never
    compiles the playouts (about half of a first run's compile).
    """
    scratch = new_scratch(t)
    sids, params = seat_buffers(n_players, strategy_params)
    for i in range(out[0].shape[0]):
        # out[0]: every game's results begin with the strategy column (CORE_OUTPUTS)
        seed = prepare_game(n_players, master_seed, first_game + i, lineup, rotate,
                            strategy_ids, strategy_params, out[0], i, sids, params)
        play_game(t, n_players, seed, sids, params, out, i, scratch, trace, tracing,
                  lookahead)
