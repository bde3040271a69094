"""`simkit balance`: the search finds a small passing change, says plainly when none
passes, resumes from its log to the same result, and refuses bad input in one line."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit import balancing as bal
from simkit import tomlwrite
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.games import get_game

ROOT = Path(__file__).resolve().parent.parent
PIG = str(ROOT / "examples" / "pig")
# the search alone: the check at every rung is tests/test_balance_ladder.py's
ARGS = ["--players", "2", "--strategies", "greedy", "--seed", "1", "--verify-games", "8000",
        "--rung-games", "0"]


def balance(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["balance", *args])
    return result.exit_code, result.output


def test_compensation_turns_the_first_player_advantage_into_a_pass(tmp_path):
    code, out = balance(PIG, *ARGS, "--tune", "compensation.start.1=0..15", "--budget",
                        "40000", "--out", str(tmp_path / "b"))
    assert code == 0, out
    result = json.loads((tmp_path / "b" / "balance.json").read_text())["result"]
    assert result["passed"] and result["keys_changed"] == 1
    assert result["after"]["seat_advantage"] == "PASS"
    assert 1 <= result["winner"]["compensation.start.1"] <= 10  # 53.5% is worth a few points
    patch = tomllib.loads((tmp_path / "b" / "patch.toml").read_text())
    assert patch["set"] == [f"compensation.start.1={result['winner']['compensation.start.1']}"]
    # balanced.toml is the whole config with the change, as --config reads it.
    game = get_game(PIG)
    data = game.load_config(path=tmp_path / "b" / "balanced.toml").data
    assert data["compensation"]["start"][1] == result["winner"]["compensation.start.1"]
    assert data["faces"] == game.load_config().data["faces"]
    for name in ("balance.md", "balance.html", "candidates.csv", "trajectory.png"):
        assert (tmp_path / "b" / name).stat().st_size > 0
    assert "Found:" in out and "PASS" in out


def test_same_seed_same_result_and_resume_from_the_log(tmp_path):
    args = [PIG, *ARGS, "--tune", "compensation.start.1=0..15", "--tune",
            "options.finish=immediate|equal_turns", "--budget", "30000"]
    code, _ = balance(*args, "--out", str(tmp_path / "a"))
    assert code == 0
    first = json.loads((tmp_path / "a" / "balance.json").read_text())["result"]
    # An interrupted search: the log cut in the middle of a line.
    log = (tmp_path / "a" / "balance_log.jsonl").read_text().splitlines()
    assert len(log) > 4
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "balance_log.jsonl").write_text("\n".join(log[: len(log) // 2])
                                                      + "\n" + log[len(log) // 2][:30])
    manifest = json.loads((tmp_path / "a" / "balance.json").read_text())
    manifest["result"] = None
    (tmp_path / "r" / "balance.json").write_text(json.dumps(manifest))
    code, out = balance(*args, "--out", str(tmp_path / "r"))
    assert code == 0, out
    assert "evaluations from the log" in out
    resumed = json.loads((tmp_path / "r" / "balance.json").read_text())["result"]
    for key in ("winner", "candidates", "trajectory", "search_games", "after", "before"):
        assert resumed[key] == first[key], key
    # A different search in the same folder is refused without --force.
    code, out = balance(PIG, *ARGS, "--tune", "compensation.start.1=0..5", "--budget",
                        "30000", "--out", str(tmp_path / "r"))
    assert code != 0 and "already holds a different balance search (simkit balance" in out
    assert "pass --force to replace it" in out and "Traceback" not in out


def test_no_candidate_passes_is_said_plainly(tmp_path):
    code, out = balance(PIG, *ARGS, "--tune", "game.goal=90..110", "--budget", "20000",
                        "--set-target", "seat_advantage.max_points=0.1", "--out",
                        str(tmp_path / "n"))
    assert code == 0, out
    assert "No candidate passes every searched target on fresh deals. The closest:" in out \
        or "No change: the original config is the best candidate." in out


@pytest.mark.parametrize(("tune", "budget", "message"), [
    ("compensation.nothing.1=0..5", "20000", "unknown key"),
    ("game.goal=0..150", "20000", "--tune game.goal: 0 is outside what the game allows"),
    ("game.goal=200..300", "20000", "the range must include the current value 100"),
    ("options.finish=0..3", "20000", "not a number; give its values as A|B|C"),
    ("faces", "20000", "expected KEY=LO..HI or KEY=A|B|C"),
    ("compensation.start.1=0..9", "500", "--budget 500 games is too small"),
    # issue 47, fault 2: a position past a list's end (an IndexError traceback before)
    ("compensation.start.9=0..3", "4000", "'compensation.start' is a list of 4: '9' must "
                                          "be an index 0..3"),
    ("compensation.start.1.x=0..3", "4000", "is a value, not a table"),
])
def test_bad_input_is_one_line(tmp_path, tune, budget, message):
    code, out = balance(PIG, *ARGS, "--tune", tune, "--budget", budget, "--out",
                        str(tmp_path / "x"))
    assert code != 0
    last = out.strip().splitlines()[-1]
    assert last.startswith("Error: ") and message in last, out
    assert not (tmp_path / "x").exists()  # nothing written


def test_knobs():
    data = {"a": {"n": 3, "x": 0.5, "o": "p", "l": [1, 2]}}
    assert bal.parse_knob("a.n=1..5", data) == bal.Knob("a.n", 3, 1, 5, integer=True)
    assert bal.parse_knob("a.x=0..1", data).integer is False
    assert bal.parse_knob("a.o=q|r", data).choices == ("p", "q", "r")
    assert bal.parse_knob("a.l.1=0..4", data).start == 2
    with pytest.raises(SimkitError, match="whole range"):
        bal.parse_knob("a.n=0.5..4", data)
    with pytest.raises(SimkitError, match="table or list"):
        bal.parse_knob("a.l=0..4", data)
    k = bal.Knob("a.n", 3, 1, 5, integer=True)
    assert k.distance(5) == 0.5 and k.distance(3) == 0


@pytest.mark.parametrize("game", ["cauldron-master", "carnuta", "inori", PIG])
def test_a_whole_config_round_trips_through_toml(game):
    data = get_game(game).load_config().data
    assert tomllib.loads(tomlwrite.document(data, "header\nline")) == data


def test_from_python(tmp_path):
    import simkit

    r = simkit.balance(PIG, players=2, strategies="greedy",
                       tune={"compensation.start.1": "0..15"}, budget=20_000, seed=2,
                       set_targets={"seat_advantage.max_points": 3}, verify_games=4000,
                       rung_games=0, out=tmp_path / "api", progress=False)
    assert r.folder == tmp_path / "api" and (r.folder / "balance.md").exists()
    assert set(r.after["metric"]) >= {"seat_advantage", "tie_rate", "game_length"}
    assert r.passed == (r.after.filter(r.after["metric"] == "seat_advantage")["verdict"][0]
                        == "PASS")
    assert set(r.set) <= {"compensation.start.1"} and len(r.candidates) >= 1


def test_a_fair_candidate_ranks_above_a_lopsided_one_with_a_narrower_interval():
    """200 games of 2 players, a band of +-2 points: both intervals are wider than the
    band; the fair one (50%) must score better than the lopsided one (45.5%), whose
    interval is a little narrower."""
    targets = {"seat_advantage": {"max_points": 2.0}}

    def totals(wins: int) -> bal.Totals:
        return bal.Totals(200, [wins, 200 - wins], [wins, 200 - wins], 0, 2000.0, 20000.0)

    fair, lopsided = bal.badness(totals(100), 2, targets), bal.badness(totals(91), 2, targets)
    assert fair[0] < lopsided[0] and fair[1] == 0 < lopsided[1]
    # Passing is unchanged: 0 exactly when every interval lies inside its band.
    assert bal.badness(bal.Totals(10**6, [5 * 10**5] * 2, [5 * 10**5] * 2, 0, 1.0, 1.0), 2,
                       targets)[0] == 0
