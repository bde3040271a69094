"""The whole `simkit balance` study, shared by the command and `simkit.balance`: the search
(simkit/balancing.py) into its folder, the winner and the original verified on fresh
deals, in the searched lineup and at every rung of the game's ladder, their scorecards
and the report. A front door's work (it wires the reports to the engine), apart from the
command line so that the Python API need not import it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError
from simkit.progress import Progress, say_if_compiling
from simkit.results import read_json
from simkit.words import count


def judged_with(game: str, strategies: tuple[str, ...] | None, rung: str | None, margin: float,
                check_games: int, ladder_run: Path | None, say: Callable[[str], None] | None,
                ) -> tuple[tuple[str, ...], tuple[float, int] | None]:
    """(strategies, strongest) of a search: the lineup given, a rung's player in every
    seat, or () and (margin, check games) for the strongest converged rung, the default
    (a game without a ladder is then judged with greedy players, said)."""
    from simkit.ladders import load_ladder, rung_named
    from simkit.strongest import STRONGEST

    if strategies is not None and rung is not None:
        raise SimkitError("--strategies and --rung both name whose play judges the "
                          "candidates: give one")
    if ladder_run is not None and (strategies is not None or rung not in (None, STRONGEST)):
        raise SimkitError(f"--ladder-run {ladder_run}: only --rung strongest reads a ladder "
                          "run")
    if strategies is not None:
        return strategies, None
    if rung is not None and rung != STRONGEST:
        return (rung_named(game, rung).strategy,), None
    if not 0 < margin < 100:
        raise SimkitError(f"--margin must be between 0 and 100 points, not {margin:g}")
    if check_games < 1:
        raise SimkitError(f"--check-games must be at least 1, not {check_games}")
    if rung is None:  # the default: a game without a ladder is judged by greedy players
        try:
            load_ladder(game)
        except SimkitError as exc:
            if "has no skill ladder" not in str(exc):
                raise
            if say is not None:
                say(f"Judged with greedy players: {exc}.")
            return ("greedy",), None
    return (), (margin / 100, check_games)


def strongest_rung(spec: Any, out_dir: Path, ladder_run: Path | None,
                   bar: Callable[[int, str], Any]) -> Any:
    """simkit.strongest's search for the rung, its checks played into `out_dir` with a
    progress bar each, judged by the ladder report's convergence test."""
    from reports.ladder import budget_check
    from simkit import engine
    from simkit.ladders import load_ladder
    from simkit.strongest import find_strongest

    def play(run_spec: Any, folder: Path) -> None:
        with bar(run_spec.games, f"{spec.game} check {folder.name}") as b:
            engine.run(run_spec, folder, progress=None if b is None else b.update)

    margin, games = spec.strongest
    return find_strongest(load_ladder(spec.game), spec.players, spec.seed, out_dir,
                          budget_check, margin=margin, games=games,
                          overrides=spec.overrides, config_path=spec.config_path,
                          ladder_run=ladder_run, play=play)


def _identity(saved: Any, spec: Any) -> Any:
    """A balance.json spec as the folder rule compares it (`folders.claim`): a search still
    to find its rung (no strategies yet) matches on everything else."""
    if not isinstance(saved, dict):
        return None
    return {k: v for k, v in saved.items() if spec.strategies or k != "strategies"}


def _identity_of(spec: Any) -> Any:
    """This search's spec as balance.json holds it (JSON types), compared as `_identity`."""
    return _identity(json.loads(json.dumps(spec.as_dict())), spec)


def _same_search(old: Any, spec: Any) -> bool:
    """Whether balance.json's spec is this search's."""
    return _identity(old, spec) == _identity_of(spec)


def _claim(out_dir: Path, spec: Any, force: bool) -> bool:
    """The folder rule for a balance search (`folders.claim`): True if `out_dir` holds this
    search to resume (finished or not); False if it is to start afresh, after deleting
    a different search when `force` replaces it (a damaged balance.json counts as one)."""
    from simkit.folders import BALANCE, claim

    manifest = out_dir / "balance.json"

    def records() -> tuple[Any, Any]:
        saved = read_json(manifest)
        if saved is None:
            return None, None
        rec = {"identity": _identity(saved.get("spec"), spec), "command": saved.get("command")}
        return (rec, None) if saved.get("result") else (None, rec)

    if claim(out_dir, BALANCE, _identity_of(spec), records, force, "balance search") != "new":
        return True
    if manifest.exists():  # another search (or a damaged one) that --force replaces
        _remove_search(out_dir)
    return False


def run_balance(spec: Any, targets: Any, out_dir: Path, force: bool, command: str,
                say: Callable[[str], None] | None, progress: bool = True,
                ladder_run: Path | None = None,
                ) -> tuple[dict[str, Any], dict[str, Any], list[Path]]:
    """The balance search into `out_dir` (new, resumed, or replaced with `force`), its two
    verification runs and their scorecards, and the report; (result, scorecards, files).
    Without strategies (`spec.strongest`) the strongest converged rung is found first.
    `say` prints what happens (None: nothing)."""
    from reports.balance import write_balance
    from reports.build import scorecard_only
    from reports.load import open_run
    from reports.skill import across_rungs
    from simkit import balancing as bal
    from simkit import engine
    from simkit.folders import locked
    from simkit.ladders import slug

    ladder = rungs_to_judge(spec, say)
    if spec.strongest is not None:  # every key and range checked before a game is played
        from simkit.ladders import check_ladder, load_ladder

        top = load_ladder(spec.game)
        check_ladder(top, spec.players)
        if ladder_run is not None:
            from simkit.strongest import from_ladder_run

            from_ladder_run(ladder_run, top, spec.players, spec.overrides, spec.config_path)
        bal.prepare(replace(spec, strategies=(top.top.strategy,)))
    else:
        search = bal.prepare(spec)
    quiet = say is None or not progress

    def bar(total: int, label: str) -> Any:
        return contextlib.nullcontext(None) if quiet else Progress(total, label)

    with locked(out_dir):
        manifest_path = out_dir / "balance.json"
        resumed_search = _claim(out_dir, spec, force)
        old: dict[str, Any] = (read_json(manifest_path) or {}) if resumed_search else {}
        out_dir.mkdir(parents=True, exist_ok=True)
        judged_at = None
        if spec.strongest is not None:
            if not old:  # marks the folder as a balance search's before the checks
                bal.write_manifest(manifest_path, spec, command, None)
            judged_at = strongest_rung(spec, out_dir, ladder_run, bar)
            spec = replace(spec, strategies=(judged_at.rung.strategy,))
            if (old.get("spec") or {}).get("strategies") and not _same_search(
                    old["spec"], spec):  # judged at another rung: another --ladder-run
                if not force:
                    raise SimkitError(f"--out {out_dir} holds a search judged by "
                                      f"{', '.join(old['spec'].get('strategies', []))}, "
                                      f"this one by {judged_at.rung.name} players; use "
                                      "--force to replace it, or another folder")
                _remove_search(out_dir, keep_checks=True)
            if say is not None:
                say(f"Judged at {judged_at.why}")
            search = bal.prepare(spec)
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
        if judged_at is not None:
            result["judged_at"] = judged_at.as_dict()
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


def verify_folders(out_dir: Path, checks: bool = True) -> list[Path]:
    """A balance folder's runs: the searched lineup's verification, every rung's, and
    (`checks`) the convergence checks of --rung strongest."""
    return [out_dir / "verify_before", out_dir / "verify_after",
            *sorted(out_dir.glob("rung_*_before")), *sorted(out_dir.glob("rung_*_after")),
            *(sorted(p for p in out_dir.glob("strongest_*") if p.is_dir()) if checks else [])]


def _remove_search(out_dir: Path, keep_checks: bool = False) -> None:
    """Delete a balance search simkit wrote in `out_dir` (--force): its files, its runs and
    the parameter files of its checks; nothing else."""
    from simkit.folders import BALANCE, RUN, kind_of, remove_owned

    remove_owned(out_dir, BALANCE)
    for run_dir in verify_folders(out_dir, checks=not keep_checks):
        if kind_of(run_dir) is RUN:
            remove_owned(run_dir, RUN)
            with contextlib.suppress(OSError):
                run_dir.rmdir()
    if not keep_checks:
        for params in out_dir.glob("strongest_*_x2.toml"):
            params.unlink()
