"""`simkit tournament --players 2,3,4`: the same tournament at several player counts.

Each count is a whole tournament of its own (`simkit.tournaments`) in `OUT/players-N`,
played on the same seed, so each is resumable (and skipped when done) exactly as a single
tournament is. OUT itself is marked by `player_counts.json` (the counts and each count's
command) before any count plays; the comparison across counts (`reports.player_counts`)
is written once every count is done.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from simkit import folders
from simkit import tournaments as tn
from simkit.errors import SimkitError, on_disk
from simkit.paramfile import write_text_atomic

COUNTS_FILE = "player_counts.json"


def count_folder(out: Path, players: int) -> Path:
    """Where the tournament at `players` seats lives inside OUT."""
    return out / f"players-{players}"


def parse_counts(text: str) -> tuple[int, ...]:
    """`--players` as one count or a comma list ("2,3,4"), in the order given."""
    counts = []
    for part in (p.strip() for p in text.split(",")):
        try:
            counts.append(int(part))
        except ValueError:
            raise SimkitError(f"--players: {part!r} is not a whole number "
                              f"(give a count, or several as 2,3,4; got {text!r})") from None
    repeated = sorted({c for c in counts if counts.count(c) > 1})
    if repeated:
        raise SimkitError(f"--players lists {', '.join(map(str, repeated))} more than once")
    return tuple(counts)


def plans(spec: tn.TournamentSpec, counts: tuple[int, ...]) -> list[tn.Plan]:
    """One validated plan per count, all on `spec`'s seed, before any game is played."""
    return [tn.plan(replace(spec, players=n)) for n in counts]


def command(spec: tn.TournamentSpec, counts: tuple[int, ...], out: str) -> str:
    """The command that plays every count into `out`."""
    one = shlex.split(spec.command(out))
    at = one.index("--players")
    return shlex.join(one[:at + 1] + [",".join(map(str, counts))] + one[at + 2:])


def run(ps: list[tn.Plan], out: Path, chunk_deals: int, force: bool,
        play_one: Callable[[tn.Plan, Path], dict[str, Any]],
        write_report: Callable[[list[dict[str, Any]], Path], Any]) -> list[dict[str, Any]]:
    """Play each plan into its count's folder with `play_one(plan, folder)` (returning its
    tournament record: `tn.run` and its reporting), then write the comparison with
    `write_report(records, out)`. Returns the records, in the order of the counts."""
    counts = tuple(p.spec.players for p in ps)
    folders.check_writable(out, folders.PLAYER_COUNTS)
    mark = {"counts": list(counts), "command": command(ps[0].spec, counts, str(out)),
            "tournaments": [count_folder(out, n).name for n in counts]}
    try:
        out.mkdir(parents=True, exist_ok=True)
        old = tn._read_json(out / COUNTS_FILE)
        if old is not None and old.get("counts") != mark["counts"] and not force:
            raise SimkitError(f"--out {out} holds tournaments at {old.get('counts')} players "
                              f"({old.get('command', '?')}); choose another folder or pass "
                              "--force to replace them")
        write_text_atomic(out / COUNTS_FILE, json.dumps(mark, indent=2) + "\n")
    except OSError as exc:
        raise SimkitError(f"--out {out}: cannot write there ({on_disk(exc, out)})") from None
    records = [play_one(p, count_folder(out, p.spec.players)) for p in ps]
    write_report(records, out)
    return records
