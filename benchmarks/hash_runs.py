"""The issue-50 behaviour check: sha256 of every games.parquet column of the standard runs.

Plays, per built-in game, 20,000 games of greedy x4 and of planner,greedy,random,greedy,
200 games of rollout x4 (Carnuta 40) and search x4 (Cauldron Master 60, Inori 24,
Carnuta 8), all seed 7, 4 players, and prints one line per run and column:
`<run> <column> <sha256>`, then a line per run with the hash of its column hashes. Run it
before and after a change and diff the outputs: a refactor must keep every line.

Numeric columns are hashed as their bytes; other columns (polars strings) as their
values joined by newlines, as their `to_numpy()` bytes are not deterministic.

Example:
    .venv/bin/python benchmarks/hash_runs.py --out /tmp/hashes-before > before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl

GAMES = {"cauldron-master": (200, 60), "inori": (200, 24), "carnuta": (40, 8)}
GREEDY_GAMES = 20_000


def runs() -> list[tuple[str, str, str, int]]:
    """(run name, game, strategies, games) of every run the check plays."""
    out = []
    for game, (rollout, search) in GAMES.items():
        out += [(f"{game}/greedy", game, "greedy", GREEDY_GAMES),
                (f"{game}/mixed", game, "planner,greedy,random,greedy", GREEDY_GAMES),
                (f"{game}/rollout", game, "rollout", rollout),
                (f"{game}/search", game, "search", search)]
    return out


def column_hash(series: pl.Series) -> str:
    if series.dtype.is_numeric() or series.dtype == pl.Boolean:
        data = series.to_numpy().tobytes()
    else:
        data = "\n".join("" if v is None else str(v) for v in series.to_list()).encode()
    return hashlib.sha256(data).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the runs")
    parser.add_argument("--simkit", default=str(Path(sys.executable).with_name("simkit")),
                        help="the command that runs simkit (another checkout's, say)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", default="", help="run names starting with this")
    args = parser.parse_args()
    for name, game, strategies, games in runs():
        if not name.startswith(args.only):
            continue
        folder = args.out / name.replace("/", "-")
        subprocess.run([*shlex.split(args.simkit), "run", game, "--players", "4", "--strategies",
                        strategies, "--games", str(games), "--seed", "7", "--threads",
                        str(args.threads), "--out", str(folder), "--force"],
                       check=True, stdout=subprocess.DEVNULL)
        frame = pl.read_parquet(folder / "games.parquet")
        hashes = [(col, column_hash(frame[col])) for col in frame.columns]
        for col, h in hashes:
            print(f"{name} {col} {h}")
        whole = hashlib.sha256("".join(h for _, h in hashes).encode()).hexdigest()
        print(f"{name} ALL {whole}", flush=True)


if __name__ == "__main__":
    main()
