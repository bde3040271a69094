"""A failed write or read names the file and the reason in one line (issue 47, fault 6):
a full disk at summary.csv.partial (polars' error has no strerror), at manifest.json, at
report.html; a summary.csv that cannot be read back after a finished run."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from reports.render import make_report
from simkit import engine
from simkit.cli import main
from simkit.engine import RunSpec
from simkit.errors import SimkitError

PIG = str(Path(__file__).resolve().parent.parent / "examples" / "pig")
SPEC = RunSpec(PIG, 2, ("greedy", "random"), 600, 3)
FULL = "No space left on device"


def test_a_full_disk_at_the_summary_table_names_it(tmp_path, monkeypatch):
    real = pl.DataFrame.write_csv

    def full(self, file, *a, **k):
        if str(file).endswith("summary.csv.partial"):
            raise OSError(f"{FULL} (os error 28)")  # as polars says it: no errno, no file
        return real(self, file, *a, **k)

    monkeypatch.setattr(pl.DataFrame, "write_csv", full)
    with pytest.raises(SimkitError) as err:
        engine.run(SPEC, tmp_path / "run")
    assert f"run/summary.csv.partial: {FULL} (os error 28)" in str(err.value)
    assert "None" not in str(err.value)
    monkeypatch.setattr(pl.DataFrame, "write_csv", real)
    assert engine.run(SPEC, tmp_path / "run")["games"] == 600  # the rerun finishes it


@pytest.mark.parametrize("name", ["manifest.json", "report.html", "summary.md"])
def test_a_full_disk_at_a_file_names_the_file(tmp_path, monkeypatch, name):
    run = tmp_path / "run"
    if name != "manifest.json":
        engine.run(SPEC, run)
    real = Path.write_text

    def full(self, *a, **k):
        if self.name == f"{name}.partial":
            raise OSError(28, FULL)  # a write's error names no file
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(SimkitError) as err:
        engine.run(SPEC, run) if name == "manifest.json" else make_report(run)
    assert f"run/{name}.partial: {FULL}" in str(err.value), str(err.value)


def test_an_unreadable_summary_after_a_finished_run_is_one_line(tmp_path, monkeypatch):
    def failing(path, schema):  # the terminal table reads it back after the run
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(engine, "read_csv", failing)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", PIG, "--players", "2", "--strategies",
                                       "greedy,random", "--games", "600", "--seed", "3",
                                       "--out", str(out)])
    assert result.exit_code != 0 and not isinstance(result.exception, OSError), result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: ") and "run/summary.csv: Input/output error" in last, last
    assert (out / "games.parquet").exists() and (out / "manifest.json").exists()
