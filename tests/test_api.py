"""The Python API (`simkit/api.py`): the same work and files as the CLI, as objects."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import simkit
from simkit.api_args import param_args, set_args
from simkit.cli import main
from simkit.errors import SimkitError

LINEUP = ["planner", "greedy", "random", "greedy"]


def test_import_is_light_and_lists_the_api():
    assert {"run", "sweep", "compare", "tournament", "tune", "value"} <= set(dir(simkit))
    with pytest.raises(AttributeError):
        simkit.nothing_here  # noqa: B018


def test_dict_arguments_become_the_cli_options():
    assert set_args({"supply.size.4": 10, "options.recipe_match": "exact",
                       "options.picking_compulsory": False,
                       "ingredients.bats_heart.scores": [1, 2, 3, 4]}) == (
        "supply.size.4=10", 'options.recipe_match="exact"',
        "options.picking_compulsory=false", "ingredients.bats_heart.scores=[1, 2, 3, 4]")
    assert param_args({"planner": {"discount": 0.5}}) == ("planner.discount=0.5",)


def test_run_is_the_cli_run_and_its_tables(cm, tmp_path):
    out = tmp_path / "run"
    r = simkit.run("cauldron-master", players=4, strategies=LINEUP, games=800, seed=3,
                   set={"supply.size.4": 10}, params={"planner": {"discount": 0.5}},
                   out=out, progress=False)
    assert r.folder == out and r.manifest["games"] == 800
    assert r.games.height == 800 * 4 and r.to_pandas().shape[0] == 3200
    summary = r.summary()
    assert summary.height == 12 and summary["games"].sum() == 3200  # 3 strategies x 4 seats
    assert (summary["games"] * summary["win_share"]).sum() == pytest.approx(800)
    card = r.scorecard()
    assert set(card["verdict"]) <= {"PASS", "FAIL", "NOT YET SURE"} and card.height >= 4
    assert r.report().name == "report.html" and (out / "report.html").exists()
    # The folder is the CLI's: the same run from the command line finds it done.
    again = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "4",
                                      "--strategies", ",".join(LINEUP), "--games", "800",
                                      "--seed", "3", "--set", "supply.size.4=10",
                                      "--param", "planner.discount=0.5", "--out", str(out)])
    assert again.exit_code == 0 and "nothing to do" in again.output, again.output
    assert simkit.open_run(out).manifest["identity"] == r.manifest["identity"]


def test_without_out_a_temporary_folder_and_bad_input_is_a_clear_error(cm):
    r = simkit.run("cauldron-master", games=40, progress=False)
    assert r.folder.exists() and r.folder.name.startswith("simkit-run-")
    with pytest.raises(SimkitError, match="unknown strategy 'wizard'"):
        simkit.run("cauldron-master", strategies="wizard", progress=False)
    with pytest.raises(SimkitError, match="supply.size.4 = 0"):
        simkit.run("cauldron-master", set={"supply.size.4": 0}, progress=False)
    s = simkit.run("cauldron-master", games=40, summary_only=True, progress=False)
    assert s.summary().height == 4
    with pytest.raises(SimkitError, match="keeps totals, not rows"):
        s.games  # noqa: B018


def test_sweep_compare_tournament_tune_value(cm, tmp_path):
    s = simkit.sweep("cauldron-master", vary={"supply.size.4": [9, 11]}, strategies="greedy",
                     games=400, progress=False)
    table = s.summary()
    assert table["supply.size.4"].unique().sort().to_list() == [9, 11]
    assert s.report().exists()
    a, b = (simkit.run("cauldron-master", strategies="greedy", games=400,
                       set={"supply.size.4": n}, progress=False) for n in (9, 11))
    c = simkit.compare(a, b)
    assert isinstance(c.table, pl.DataFrame) and "Win share" in c.text()
    t = simkit.tournament("cauldron-master", strategies=["greedy", "random"], players=3,
                          games=120, out=tmp_path / "tour", progress=False)
    assert t.standings["strategy"].to_list()[0] == "greedy"
    assert t.win_matrix.height == 2 and t.html.exists()
    tuned = simkit.tune("cauldron-master", strategy="planner", against="greedy",
                        budget=640, eval_games=200, out=tmp_path / "p.toml", progress=False)
    assert set(tuned.params) == set(tuned.start) and "tuned" in tuned.evaluation
    assert tuned.token.startswith("planner@")
    v = simkit.value("cauldron-master", games=200, kinds=["Witch"], progress=False)
    assert "A/A control" in v.table["kind"].to_list() and v.report().exists()
    assert json.loads((v.folder / "value.json").read_text())["games"] == 200


def test_the_example_notebook_runs(cm, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = Path(__file__).resolve().parent.parent / "docs" / "tour.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for cell in notebook.cells for o in cell.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    outputs = "".join(o.get("text", "") + json.dumps(o.get("data", {}))
                      for cell in notebook.cells for o in cell.get("outputs", []))
    assert "RunResult(Cauldron Master" in outputs and "verdict" in outputs
