"""`simkit tournament --players 2,3`: each count a tournament of its own on the same seed,
resumable, and a reversal of a pair's order flagged only when both signs are clear."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from reports import player_counts as pcr
from simkit import tournaments as tn
from simkit.cli import main
from simkit.deals import DealTotals

PIG = str(Path(__file__).resolve().parent.parent / "examples" / "pig")
ARGS = ["tournament", PIG, "--strategies", "random,greedy,rollout", "--games", "60",
        "--seed", "3", "--chunk-size", "7"]


def _record(cells: dict[int, tuple[float, float, float]]) -> list[dict]:
    """Records of a two-strategy tournament per count: a's share ahead of b (p, lo, hi)."""
    out = []
    for n, (p, lo, hi) in cells.items():
        out.append({"title": "T", "players": n, "seed": 1, "games_per_lineup": 10,
                    "strategies": [{"name": "a"}, {"name": "b"}],
                    "standings": [],
                    "win_matrix": [
                        {"strategy": "a", "opponent": "b", "ahead": p, "ahead_lo": lo,
                         "ahead_hi": hi, "deals": 5},
                        {"strategy": "b", "opponent": "a", "ahead": 1 - p,
                         "ahead_lo": 1 - hi, "ahead_hi": 1 - lo, "deals": 5}]})
    return out


@pytest.mark.parametrize("cells, verdict", [
    ({2: (0.6, 0.55, 0.65), 3: (0.4, 0.35, 0.45)}, "reverses"),
    ({2: (0.6, 0.55, 0.65), 3: (0.48, 0.45, 0.51)}, "fades"),  # clear, then level: no flag
    ({2: (0.6, 0.55, 0.65), 3: (0.58, 0.51, 0.65)}, "holds"),
    ({2: (0.52, 0.49, 0.55), 3: (0.47, 0.44, 0.505)}, "level"),  # opposite signs, not clear
])
def test_a_reversal_needs_both_signs_clear(cells, verdict):
    records = _record(cells)
    rows = pcr.pair_rows(records)
    assert {r["verdict"] for r in rows} == {verdict}
    line = pcr.answer(records, rows)
    assert ("REVERSES" in line) == (verdict == "reverses"), line
    if verdict == "reverses":
        assert "a ahead of b at 2 players (60.0%" in line
        assert "b ahead of a at 3 players (60.0%" in line


def _pair_share(rng: np.random.Generator, p: float, deals: int) -> tuple[float, float, float]:
    """One count's share ahead with its deal-clustered interval, from simulated deals:
    each deal has its own lean (games on a deal are dependent), 6 comparisons per deal."""
    lean = np.clip(p + rng.normal(0, 0.15, deals), 0, 1)
    y = 2 * rng.binomial(6, lean)  # ties counted 1/2: scaled by 2
    t = DealTotals(2)
    t.add(y, np.full(deals, 6))
    return t.share()


def test_flip_rate_by_simulation():
    """No true difference at either count: a reversal is named in well under 1% of
    tournaments (both intervals must be wrong); a true 60/40 flip is named in nearly all."""
    rng = np.random.default_rng(49)
    reps = 600
    false = sum(pcr.pair_rows(_record({2: _pair_share(rng, 0.5, 200),
                                       3: _pair_share(rng, 0.5, 200)}))[0]["verdict"]
                == "reverses" for _ in range(reps))
    true = sum(pcr.pair_rows(_record({2: _pair_share(rng, 0.6, 200),
                                      3: _pair_share(rng, 0.4, 200)}))[0]["verdict"]
               == "reverses" for _ in range(reps))
    assert false <= 3, false  # expected about 0.025^2 * 2 * 600 = 0.75
    assert true >= 0.95 * reps, true


@pytest.fixture(scope="module")
def counts_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("counts") / "tours"
    result = CliRunner().invoke(main, [*ARGS, "--players", "2,3", "--out", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, result.output


def test_each_count_is_the_single_count_tournament(counts_run, tmp_path):
    """players-N holds what `--players N` alone writes on the same seed (but its folder)."""
    out, output = counts_run
    mark = json.loads((out / "player_counts.json").read_text())
    assert mark["counts"] == [2, 3] and "--players 2,3" in mark["command"]
    for n in (2, 3):
        alone = tmp_path / f"alone-{n}"
        result = CliRunner().invoke(main, [*ARGS, "--players", str(n), "--out", str(alone)],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        a = json.loads((out / f"players-{n}" / tn.TOURNAMENT_FILE).read_text())
        b = json.loads((alone / tn.TOURNAMENT_FILE).read_text())
        assert a.pop("command").replace(str(out / f"players-{n}"), "X") == \
            b.pop("command").replace(str(alone), "X")
        assert a == b
    md = (out / pcr.MD_FILE).read_text()
    line = md.splitlines()[2]
    assert line.startswith("**") and ("REVERSES" in line or "No pair" in line), md
    assert line.strip("*") in output
    assert (out / pcr.HTML_FILE).exists() and (out / pcr.CSV_FILE).exists()


def test_counts_resume_and_rerun_plays_nothing(counts_run, tmp_path, monkeypatch):
    """Stopped during the second count, the same command plays only what is missing and
    writes the same comparison; run again, it plays nothing."""
    whole, _ = counts_run
    out = tmp_path / "tours"
    real, calls = tn._simulate, []

    def simulate(*a, **k):
        if len(calls) == 16:  # 2 players: 3 lineups x 5 chunks; 3 players: 1 x 3
            raise KeyboardInterrupt
        calls.append(1)
        return real(*a, **k)

    with monkeypatch.context() as m:
        m.setattr(tn, "_simulate", simulate)
        stopped = CliRunner().invoke(main, [*ARGS, "--players", "2,3", "--out", str(out)])
    assert stopped.exit_code != 0
    assert (out / "players-3" / tn.PROGRESS_FILE).exists()
    again = CliRunner().invoke(main, [*ARGS, "--players", "2,3", "--out", str(out)],
                               catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert "Resuming" in again.output and "nothing to do" in again.output
    for n in (2, 3):
        for name in ("win_matrix.csv", "ratings.csv"):
            assert (out / f"players-{n}" / name).read_bytes() == \
                (whole / f"players-{n}" / name).read_bytes()
    assert (out / pcr.CSV_FILE).read_bytes() == (whole / pcr.CSV_FILE).read_bytes()
    third = CliRunner().invoke(main, [*ARGS, "--players", "2,3", "--out", str(out)],
                               catch_exceptions=False)
    assert third.output.count("nothing to do") == 2, third.output


@pytest.mark.parametrize("players, message", [
    ("2,x", "--players: 'x' is not a whole number"),
    ("2,2", "--players lists 2 more than once"),
    ("2,9", "played by 2, 3, 4 players, not 9"),
])
def test_bad_counts_are_one_clear_line_before_any_game(tmp_path, players, message):
    out = tmp_path / "t"
    result = CliRunner().invoke(main, [*ARGS, "--players", players, "--out", str(out)])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and message in lines[0], \
        result.output
    assert not out.exists()


def test_a_different_set_of_counts_is_refused(counts_run):
    out, _ = counts_run
    result = CliRunner().invoke(main, [*ARGS, "--players", "2,4", "--out", str(out)])
    assert result.exit_code != 0 and "holds tournaments at [2, 3] players" in result.output
