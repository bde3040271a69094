"""The strongest converged rung of a game's skill ladder: where `simkit balance --rung
strongest` (its default) judges candidates.

A rung has converged when doubling its budget is shown to gain less than a margin: its
player with the budget doubled in one seat, the rung itself in the others, seats rotating
over each deal, gains less than `margin` over the fair share with its whole 95% interval
(clustered by deal), the check `simkit ladder` makes of its top (docs/ladder.md).

From the top down, each rung that names a `budget` is checked until one converges; a
ladder run folder's own check of its top is reused when given. A rung without a budget
(a heuristic) cannot be checked: when no check converges, the top rung is used and the
reason says that no rung's convergence could be shown. The checks are run folders in the
caller's folder (`strongest_<i>_<rung>`), so an interrupted search resumes them.

The judging is lent by the caller (the reports compute the interval; the library never
imports them): `judge(run_dir, token, players, margin)` returns the doubled player's
gain, gain_lo, gain_hi, games and whether it converged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit import engine
from simkit.errors import SimkitError
from simkit.ladders import Ladder, Rung, doubled_params, read_ladder, slug
from simkit.paramfile import split_token, write_text_atomic
from simkit.tomlwrite import document

STRONGEST = "strongest"  # the --rung word
CHECK_GAMES = 4_000  # games of a rung's convergence check (capped by the rung's `games`)
Judge = Callable[[Path, str, int, float], dict[str, Any]]


@dataclass(frozen=True)
class Strongest:
    """The rung to judge at, whether its convergence was shown, and why, in words."""

    rung: Rung
    converged: bool
    why: str
    checks: tuple[dict[str, Any], ...]  # each rung checked, top first

    def as_dict(self) -> dict[str, Any]:
        return {"rung": self.rung.name, "strategy": self.rung.strategy,
                "converged": self.converged, "why": self.why, "checks": list(self.checks)}


def check_folder(out: Path, index: int, rung: Rung) -> Path:
    return out / f"strongest_{index}_{slug(rung.name)}"


def check_spec(ladder: Ladder, index: int, players: int, games: int, seed: int, out: Path,
               overrides: tuple[str, ...] = (), config_path: str | None = None
               ) -> engine.RunSpec:
    """The convergence check of rung `index`: its budget doubled in one seat (the
    parameter file written next to the run), the rung in the others."""
    rung = ladder.rungs[index]
    doubled = doubled_params(ladder, rung)
    assert doubled is not None, rung
    folder = check_folder(out, index, rung)
    params = folder.with_name(folder.name + "_x2.toml")
    write_text_atomic(params, document(
        doubled, f"The rung {rung.name} with its budget doubled (written by simkit balance)."))
    lineup = (f"{split_token(rung.strategy)[0]}@{params}",) + (rung.strategy,) * (players - 1)
    games = min(games, rung.games or games)
    games -= games % players  # whole deals: the doubled player in every seat alike
    return engine.RunSpec(ladder.game, players, lineup, games, seed, overrides, (),
                          config_path)


def from_ladder_run(folder: Path, ladder: Ladder, players: int, overrides: tuple[str, ...],
                    config_path: str | None) -> tuple[Path, str]:
    """A finished ladder run's check of the top: (its run folder, the doubled token). A
    ladder of another game, player count, config or rungs is one `Error:` line."""
    record = read_ladder(folder)
    if record is None:
        raise SimkitError(f"--ladder-run {folder}: not a ladder folder (no ladder.json); "
                          "`simkit ladder` writes one")
    ident = record.get("identity", {})
    want = {"game": ladder.game, "players": players, "overrides": list(overrides),
            "config": config_path, "rungs": [vars(r) for r in ladder.rungs]}
    for key, value in want.items():
        if ident.get(key) != value:
            raise SimkitError(f"--ladder-run {folder}: its {key} ({ident.get(key)!r}) is not "
                              f"this search's ({value!r}); give the ladder run of this game, "
                              "player count, config and ladder, or leave --ladder-run out")
    point = next((p for p in record.get("points", []) if p.get("kind") == "budget"), None)
    if point is None:
        raise SimkitError(f"--ladder-run {folder}: its top rung has no budget to check")
    if not (folder / point["name"] / "manifest.json").is_file():
        raise SimkitError(f"--ladder-run {folder}: the ladder is unfinished ({point['name']}); "
                          f"run its command again to finish it: {record.get('command', '?')}")
    return folder / point["name"], point["strategies"][0]


def find_strongest(ladder: Ladder, players: int, seed: int, out: Path, judge: Judge, *,
                   margin: float, games: int = CHECK_GAMES, overrides: tuple[str, ...] = (),
                   config_path: str | None = None, ladder_run: Path | None = None,
                   play: Callable[[engine.RunSpec, Path], Any] | None = None) -> Strongest:
    """The strongest rung of `ladder` whose convergence is shown, checked from the top
    down; `play(spec, folder)` plays a check (default: engine.run, which resumes one)."""
    play = play or (lambda spec, folder: engine.run(spec, folder))
    checks: list[dict[str, Any]] = []
    for i in reversed(range(len(ladder.rungs))):
        rung = ladder.rungs[i]
        if rung.budget is None:
            continue
        if ladder_run is not None and i == len(ladder.rungs) - 1:
            folder, token = from_ladder_run(ladder_run, ladder, players, overrides,
                                            config_path)
        else:
            spec = check_spec(ladder, i, players, games, seed, out, overrides, config_path)
            folder, token = check_folder(out, i, rung), spec.strategies[0]
            play(spec, folder)
        seen = judge(folder, token, players, margin)
        checks.append({"rung": rung.name, "budget": rung.budget, "folder": str(folder)}
                      | {k: seen[k] for k in ("gain", "gain_lo", "gain_hi", "games",
                                              "converged", "state")})
        if seen["converged"]:
            return Strongest(rung, True, _why(rung, margin, checks), tuple(checks))
    return Strongest(ladder.top, False, _why(ladder.top, margin, checks), tuple(checks))


def _shown(c: dict[str, Any]) -> str:
    return (f"{c['rung']} with its {c['budget']} doubled gains {c['gain'] * 100:+.1f} "
            f"[{c['gain_lo'] * 100:+.1f}, {c['gain_hi'] * 100:+.1f}] points of win share "
            f"over {c['games']:,} games, {c['state']}")


def _why(rung: Rung, margin: float, checks: list[dict[str, Any]]) -> str:
    """Which rung the candidates are judged at and why, in one sentence."""
    under = f"under {margin * 100:g} points"
    if checks and checks[-1]["converged"]:
        above = checks[:-1]
        return (f"{rung.name}: the strongest rung whose budget doubled gains {under}: "
                + _shown(checks[-1])
                + (f"; above it, {'; '.join(_shown(c) for c in above)}" if above else "")
                + ".")
    if not checks:
        return (f"{rung.name}: the top rung. No rung of the ladder names a budget, so no "
                "rung's convergence can be shown; stronger play may change these verdicts.")
    return (f"{rung.name}: the top rung. No rung's convergence could be shown with a margin "
            f"of {margin * 100:g} points: " + "; ".join(_shown(c) for c in checks)
            + ". Stronger play may still change these verdicts.")
