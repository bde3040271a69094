"""Cards in and out of a spreadsheet (`simkit cards`, `--config cards.xlsx`)."""

from __future__ import annotations

import csv
import hashlib
import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from simkit.cards import VALUE_PREFIX, changes, kinds, load_config, sheets, write_cards
from simkit.cli import main
from simkit.errors import ConfigError

GAME = "cauldron-master"


@pytest.fixture(scope="module")
def own():
    return load_config(GAME)


@pytest.fixture
def exported(tmp_path, own):
    write_cards(own.data, tmp_path)
    return tmp_path


def test_every_kind_and_field_is_written_with_its_placeholders(exported, own):
    book = load_workbook(exported / "cards.xlsx")
    assert book.sheetnames == list(kinds(own.data)) == ["ingredients", "witches",
                                                        "recipe_cards"]
    for kind, entries in kinds(own.data).items():
        rows = list(csv.reader((exported / f"{kind}.csv").open()))
        assert [r[0] for r in rows[1:]] == [e["id"] for e in entries]
        fields = {k for e in entries for k in e if k not in ("id", "placeholder")}
        assert set(rows[0]) == {"id", "placeholder", *fields}
        sheet = [list(r) for r in book[kind].iter_rows(values_only=True)]
        assert sheet[0] == rows[0] and len(sheet) == len(rows)
    # every placeholder `simkit show` marks is named in its row
    header, rows = sheets(own.data)["witches"]
    marks = {r[0]: r[header.index("placeholder")] for r in rows}
    assert marks["apprentice"] == "all" and marks["mage"] == "max_cards, colour_limits"
    assert marks["shaman"] == ""


@pytest.mark.parametrize("name", ["cards.xlsx", "witches.csv", "recipe_cards.csv"])
def test_a_file_read_back_unedited_changes_nothing(exported, own, name):
    assert changes(exported / name, own.data) == []
    again = load_config(GAME, exported / name)
    assert again.hash == own.hash and again.data == own.data
    assert again.placeholders() == own.placeholders()


def test_an_edited_cell_becomes_a_set_and_its_placeholder_mark_goes(exported, own):
    book = load_workbook(exported / "cards.xlsx")
    sheet = book["witches"]
    header = [c.value for c in sheet[1]]
    sheet.cell(3, header.index("max_cards") + 1).value = 3  # the Mage (row 3)
    sheet.cell(3, header.index("colour_limits") + 1).value = "{ orange = 2, green = 3 }"
    book.save(exported / "cards.xlsx")
    assert changes(exported / "cards.xlsx", own.data) == [
        "witches.mage.max_cards=3", "witches.mage.colour_limits={ orange = 2, green = 3 }"]
    edited = load_config(GAME, exported / "cards.xlsx")
    mage = next(w for w in edited.data["witches"] if w["id"] == "mage")
    assert mage["max_cards"] == 3 and mage["colour_limits"] == {"orange": 2, "green": 3}
    assert "witches.mage.max_cards" not in edited.placeholders()
    assert "witches.herbalist.initiative" in edited.placeholders()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 40), st.integers(0, 11))
def test_any_whole_number_typed_into_a_csv_reads_back_as_typed(tmp_path_factory, copies, row):
    own = load_config(GAME)
    folder = tmp_path_factory.mktemp("cards")
    write_cards(own.data, folder)
    path = folder / "ingredients.csv"
    rows = list(csv.reader(path.open()))
    rows[row + 1][rows[0].index("copies")] = str(copies)
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    ident = rows[row + 1][0]
    was = own.data["ingredients"][row]["copies"]
    expect = [] if copies == was else [f"ingredients.{ident}.copies={copies}"]
    assert changes(path, own.data) == expect


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r: r[0].__setitem__(2, "initiativ"),
     "row 1, column C = 'initiativ': no field of that name in witches"),
    (lambda r: r[2].__setitem__(0, "wizard"),
     "row 3, column A = 'wizard': no witches entry with this id"),
    (lambda r: r[2].__setitem__(3, "two"),
     "row 3 (mage), column D (max_cards) = 'two': expected a value of type int"),
    (lambda r: r[2].__setitem__(3, ""), "row 3 (mage), column D (max_cards): empty"),
    (lambda r: r[2].__setitem__(5, "true"),
     "row 3 (mage), column F (optional) = 'true': mage has no field optional"),
])
def test_a_bad_cell_is_one_line_naming_sheet_row_and_column(exported, own, edit, message):
    path = exported / "witches.csv"
    rows = list(csv.reader(path.open()))
    edit(rows)
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    with pytest.raises(ConfigError) as err:
        changes(path, own.data)
    assert message in str(err.value) and str(path) in str(err.value)
    r = CliRunner().invoke(main, ["show", GAME, "--config", str(path)])
    assert r.exit_code == 1 and r.output.startswith("Error: ") and r.output.count("\n") == 1


def test_a_sheet_of_another_kind_is_named(exported, own):
    book = load_workbook(exported / "cards.xlsx")
    book["witches"].title = "wizards"
    book.save(exported / "cards.xlsx")
    with pytest.raises(ConfigError, match="sheet wizards: \\(sheet\\) = 'wizards': no "
                                          "component kind"):
        changes(exported / "cards.xlsx", own.data)


def test_a_round_trip_plays_the_run_s_games_bit_for_bit(tmp_path):
    """A run, its cards written and played back unedited: the same games.parquet bytes;
    with a value run given, its columns are added and ignored when read back."""
    runner = CliRunner()
    args = ["--players", "3", "--strategies", "greedy,random,greedy", "--games", "300",
            "--seed", "4"]
    r = runner.invoke(main, ["run", GAME, *args, "--out", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["value", str(tmp_path / "a"), "--games", "200", "--kind",
                             "Witch"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["cards", GAME, "--value", str(tmp_path / "a"), "--out",
                             str(tmp_path / "cards")])
    assert r.exit_code == 0, r.output
    header = next(csv.reader((tmp_path / "cards" / "witches.csv").open()))
    assert f"{VALUE_PREFIX}vs average (points)" in header and f"{VALUE_PREFIX}verdict" in header
    r = runner.invoke(main, ["run", GAME, *args, "--config",
                             str(tmp_path / "cards" / "cards.xlsx"), "--out",
                             str(tmp_path / "b")])
    assert r.exit_code == 0, r.output

    def digest(folder):
        return hashlib.sha256((folder / "games.parquet").read_bytes()).hexdigest()

    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    ma, mb = (json.loads((tmp_path / x / "manifest.json").read_text()) for x in "ab")
    assert ma["config"]["hash"] == mb["config"]["hash"] and mb["config"]["overrides"] == []
