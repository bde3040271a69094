"""folders.claim: the one new / resume / done / refuse rule of every resumable folder."""

from __future__ import annotations

import json

import pytest

from simkit import folders
from simkit.errors import SimkitError
from simkit.results import read_json


def _claim(out, force=False, what=""):
    return folders.claim(out, folders.TOURNAMENT, "this",
                         lambda: (read_json(out / "tournament.json"),
                                  read_json(out / "tournament.progress.json")), force, what)


def _write(out, name, identity):
    out.mkdir(exist_ok=True)
    (out / name).write_text(json.dumps({"identity": identity, "command": f"cmd {identity}"}))


def test_absent_and_empty_folders_are_new(tmp_path):
    assert _claim(tmp_path / "absent") == "new"
    (tmp_path / "empty").mkdir()
    assert _claim(tmp_path / "empty") == "new"


def test_the_same_work_is_done_or_resumed(tmp_path):
    _write(tmp_path / "a", "tournament.progress.json", "this")
    assert _claim(tmp_path / "a") == "resume"
    _write(tmp_path / "b", "tournament.json", "this")
    _write(tmp_path / "b", "tournament.progress.json", "this")  # a kill right at the end
    assert _claim(tmp_path / "b") == "done"


@pytest.mark.parametrize("name, said", [
    ("tournament.json", "already holds a different tournament (cmd other)"),
    ("tournament.progress.json", "holds an unfinished different tournament (cmd other); "
                                 "rerun that command to finish it")])
def test_other_work_is_refused_in_one_line_unless_forced(tmp_path, name, said):
    out = tmp_path / "o"
    _write(out, name, "other")
    with pytest.raises(SimkitError, match=said.replace("(", r"\(").replace(")", r"\)")):
        _claim(out)
    assert _claim(out, force=True) == "new"
    with pytest.raises(SimkitError, match="different study"):
        _claim(out, what="study")


def test_a_damaged_record_is_refused_unless_forced(tmp_path):
    out = tmp_path / "d"
    out.mkdir()
    (out / "tournament.json").write_text("{not json")
    with pytest.raises(SimkitError, match="cannot be read as JSON.*pass --force to replace"):
        _claim(out)
    assert _claim(out, force=True) == "new"


def test_a_strangers_folder_is_refused_even_when_forced(tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SimkitError, match="holds no simkit tournament"):
        _claim(out, force=True)
    assert (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("name", ["tournament.json", "tournament.progress.json", "damaged"])
def test_a_command_without_force_never_offers_it(tmp_path, name):
    """Sweeps and ladders have no --force (force None): their refusals say what to do
    instead, and never replace anything."""
    out = tmp_path / "n"
    if name == "damaged":
        out.mkdir()
        (out / "tournament.json").write_text("{not json")
    else:
        _write(out, name, "other")
    before = {p.name: p.read_text() for p in out.iterdir()}
    with pytest.raises(SimkitError) as refused:
        _claim(out, force=None)
    assert "--force" not in str(refused.value) and "choose another folder" in str(refused.value)
    assert {p.name: p.read_text() for p in out.iterdir()} == before


def test_the_studies_claim_their_folders_by_the_one_rule():
    """Every study that writes a resumable folder decides new / resume / refuse through
    `folders.claim` (runs, tournaments, value runs, sweeps, ladders, balance searches)."""
    import inspect

    from simkit import balance_study, engine, ladders, sweeps, tournaments, valuation

    for module in (engine, tournaments, valuation, sweeps, ladders, balance_study):
        assert "claim(" in inspect.getsource(module), module.__name__
