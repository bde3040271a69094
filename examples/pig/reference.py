"""Plain-Python reference implementation of Pig (a test oracle, and the speed baseline).

Written from the rules (package docstring), independently of the compiled rules: it
does not import rules.py, options.py or the loop. It shares with them only conventions:
the random streams of simkit.rng (stream 0 rolls the die, stream 1 + seat drives that
seat's strategy), the option rows of layout.py ("roll" then "hold"), and the seating of
a run (the strategies rotate through the seats over each deal when they differ).
"""

from __future__ import annotations

from typing import Any

from simkit.rng import PyStream, py_game_seed, py_stream_state

from . import layout as L


def play(tables: Any, strategies: list[str], params: list[list[float]], master_seed: int,
         game: int) -> dict[str, Any]:
    """Game `game` of a run with seed `master_seed`, lineup entry i playing strategies[i]
    with params[i] ("random" or "greedy"): the results per seat and every decision."""
    n = len(strategies)
    goal, finish = tables.goal, int(tables.rules[L.RU_FINISH])
    ban_seat, ban_face = int(tables.rules[L.RU_BAN_SEAT]), int(tables.rules[L.RU_BAN_FACE])
    faces, bust = [int(p) for p in tables.points], [bool(b) for b in tables.bust]
    rotate = len({(s, tuple(p)) for s, p in zip(strategies, params, strict=True)}) > 1
    deal, shift = (game // n, game % n) if rotate else (game, 0)
    entry = [(s + shift) % n for s in range(n)]
    seed = py_game_seed(master_seed, deal)
    dice = PyStream(py_stream_state(seed, 0))
    streams = [PyStream(py_stream_state(seed, 1 + s)) for s in range(n)]
    score = [int(tables.start[s]) for s in range(n)]
    stats = {k: [0] * n for k in ("turns", "rolls", "busts", "holds", "best_turn")}
    rolled = [[0] * len(faces) for _ in range(n)]
    decisions: list[tuple[int, int, list[tuple[int, ...]], int]] = []
    rnd, seat, ending = 0, 0, False
    while True:
        # A turn: roll, then roll again or hold, until a bust or a hold.
        stats["turns"][seat] += 1
        total = 0
        over = False
        while True:
            f = dice.randint(len(faces))
            stats["rolls"][seat] += 1
            rolled[seat][f] += 1
            if bust[f]:
                stats["busts"][seat] += 1
                break
            if not (seat == ban_seat and f == ban_face):
                total += faces[f]
            after = score[seat] + total
            best_other = max(score[q] for q in range(n) if q != seat)
            rows = [(kind, total, after, goal - after, after - best_other) for kind in (0, 1)]
            name, p = strategies[entry[seat]], params[entry[seat]]
            if name == "greedy":
                c = 1 if (total >= p[0] or goal - after <= 0) else 0
            else:
                c = streams[seat].randint(2)
            decisions.append((rnd, seat, rows, c))
            if c == 1:  # hold
                score[seat] = after
                stats["holds"][seat] += 1
                stats["best_turn"][seat] = max(stats["best_turn"][seat], total)
                if score[seat] >= goal:
                    if finish == L.FINISH_IMMEDIATE:
                        over = True
                    ending = True
                break
        if over:
            break
        seat += 1
        if seat == n:
            if ending:
                break
            seat, rnd = 0, rnd + 1
    best = max(score)
    winners = score.count(best)
    return {
        "strategy": [entry[s] for s in range(n)],
        "score": score,
        "rank": [1 + sum(q > v for q in score) for v in score],
        "win_share": [1 / winners if v == best else 0.0 for v in score],
        "rounds": rnd + 1,
        "decisions": len(decisions),
        **stats,
        "rolled": rolled,
        "trace": decisions,
    }
