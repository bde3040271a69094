"""The whole `simkit balance` study, shared by the command and `simkit.balance`: the search
(simkit/balancing.py) into its folder, the winner and the original verified on fresh
deals, in the searched lineup and at every rung of the game's ladder, their scorecards
and the report. A front door's work (it wires the reports to the engine), apart from the
command line so that the Python API need not import it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError
from simkit.progress import Progress, say_if_compiling
from simkit.results import CorruptFile, read_json
from simkit.words import count


def run_balance(spec: Any, targets: Any, out_dir: Path, force: bool, command: str,
                say: Callable[[str], None] | None,
                progress: bool = True) -> tuple[dict[str, Any], dict[str, Any], list[Path]]:
    """The balance search into `out_dir` (new, resumed, or replaced with `force`), its two
    verification runs and their scorecards, and the report; (result, scorecards, files).
    `say` prints what happens (None: nothing)."""
    from reports.balance import write_balance
    from reports.build import scorecard_only
    from reports.load import open_run
    from reports.skill import across_rungs
    from simkit import balancing as bal
    from simkit import engine
    from simkit.folders import BALANCE, RUN, check_writable, kind_of, locked, remove_owned
    from simkit.ladders import slug

    search = bal.prepare(spec)
    ladder = rungs_to_judge(spec, say)
    state = check_writable(out_dir, BALANCE)
    quiet = say is None or not progress

    def bar(total: int, label: str) -> Any:
        return contextlib.nullcontext(None) if quiet else Progress(total, label)

    with locked(out_dir):
        manifest_path = out_dir / "balance.json"
        if state == "ours":
            try:
                old = read_json(manifest_path) or {}
            except CorruptFile:  # damaged: taken for another search (--force replaces it)
                old = {}
            if old.get("spec") != json.loads(json.dumps(spec.as_dict())):
                if not force:
                    raise SimkitError(f"--out {out_dir} holds another balance search; "
                                      "use --force to replace it, or another folder")
                remove_owned(out_dir, BALANCE)
                for run_dir in verify_folders(out_dir):  # its verification runs
                    if kind_of(run_dir) is RUN:
                        remove_owned(run_dir, RUN)
                        with contextlib.suppress(OSError):
                            run_dir.rmdir()
        out_dir.mkdir(parents=True, exist_ok=True)
        log = out_dir / "balance_log.jsonl"
        search.cache = bal.read_log(log)
        search.log = log
        bal.write_manifest(manifest_path, spec, command, None)
        resumed = len(search.cache)
        if say is not None:
            say(f"Balancing {search.game.title}, {spec.players} players "
                f"({', '.join(spec.strategies)}): {count(len(search.knobs), 'key')} "
                f"({'; '.join(k.describe() for k in search.knobs)}); up to "
                f"{search.first_rung} candidates x {search.per:,} games, the best raced on "
                f"more, within {spec.budget:,} games"
                + (f" ({resumed} evaluations from the log)" if resumed else "") + ".")
            say_if_compiling(search.game, [search.lineup])
        with bar(spec.budget, f"{spec.game} balance") as b:
            outcome = bal.search(search, progress=None if b is None else
                                 (lambda n, what: b.update(n, what)))
        winner = outcome.ranked[0]
        if say is not None:
            say(f"Verifying the winner and the original on {spec.verify_games:,} fresh "
                "games each...")
        verified = {}
        for label, values in (("before", search.start), ("after", winner.values)):
            run_spec = engine.RunSpec(spec.game, spec.players, spec.strategies,
                                      spec.verify_games, bal.verify_seed(spec.seed),
                                      search.overrides(values), spec.params, spec.config_path)
            folder = out_dir / f"verify_{label}"
            with bar(spec.verify_games, f"{spec.game} {label}") as b:
                engine.run(run_spec, folder, force=True,
                           progress=None if b is None else b.update)
            verified[label] = scorecard_only(open_run(folder), targets)
        result = bal.result(search, outcome, verified)
        if ladder is not None:
            if say is not None:
                say(f"Judging the winner and the original at every rung of the ladder "
                    f"({', '.join(r.name for r in ladder.rungs)}), up to "
                    f"{spec.rung_games:,} fresh games each...")
            rows = []
            for i, r in enumerate(ladder.rungs):
                games = min(spec.rung_games, r.games or spec.rung_games)
                games -= games % spec.players  # whole deals: every seat order alike
                row: dict[str, Any] = {"rung": r.name, "strategy": r.strategy, "games": games}
                for label, values in (("before", search.start), ("after", winner.values)):
                    run_spec = engine.RunSpec(spec.game, spec.players,
                                              (r.strategy,) * spec.players, games,
                                              bal.verify_seed(spec.seed),
                                              search.overrides(values), spec.params,
                                              spec.config_path)
                    folder = out_dir / f"rung_{i}_{slug(r.name)}_{label}"
                    with bar(games, f"{spec.game} {r.name} {label}") as b:
                        engine.run(run_spec, folder, force=True,
                                   progress=None if b is None else b.update)
                    card = scorecard_only(open_run(folder), targets)
                    row[label] = {c["metric"]: c["verdict"] for c in card.iter_rows(named=True)}
                    row[f"{label}_estimate"] = {c["metric"]: c["estimate"]
                                                for c in card.iter_rows(named=True)}
                    row["folder_" + label] = folder.name
                rows.append(row)
            result["rungs"] = rows
            result["across"], result["across_sentence"] = across_rungs(rows)
        bal.write_manifest(manifest_path, spec, command, result)
        files = write_balance(out_dir, search, outcome, verified, result, targets.source)
    return result, verified, files


def rungs_to_judge(spec: Any, say: Callable[[str], None] | None) -> Any:
    """The ladder the winner is judged at (checked before a game is played), or None: no
    --rung-games, or a game without a ladder (said)."""
    from simkit.ladders import check_ladder, load_ladder

    if not spec.rung_games:
        return None
    try:
        ladder = load_ladder(spec.game)
    except SimkitError as exc:
        if "has no skill ladder" not in str(exc):
            raise
        if say is not None:
            say(f"Not judged at every skill level: {exc}.")
        return None
    check_ladder(ladder, spec.players)
    return ladder


def verify_folders(out_dir: Path) -> list[Path]:
    """A balance folder's verification runs: the searched lineup's and every rung's."""
    return [out_dir / "verify_before", out_dir / "verify_after",
            *sorted(out_dir.glob("rung_*_before")), *sorted(out_dir.glob("rung_*_after"))]
