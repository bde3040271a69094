"""Every command in the README runs as written (at a small size), in order."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit.cli import main

ROOT = Path(__file__).resolve().parent.parent
SMALL = {"--games": "400", "--budget": "640"}  # sizes only: every other option as written
SKIP = {"bench", "studio"}  # measured, not tested here (tests/test_bench.py runs it small);
# the studio serves until Ctrl-C (tests/test_studio_browser.py drives it)


def readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("simkit "):
                args = shlex.split(line)[1:]
                out.append([SMALL.get(args[i - 1], a) if i else a
                            for i, a in enumerate(args)])
    return out


def test_the_readme_has_the_tour():
    commands = [c[0] for c in readme_commands()]
    for name in ("run", "play", "compare", "sweep", "value", "tournament", "tune"):
        assert name in commands, name


def test_every_readme_command_runs(cm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    runner = CliRunner()
    for args in readme_commands():
        if args[0] in SKIP:
            continue
        args = small(args)
        result = runner.invoke(main, args)
        assert result.exit_code == 0, f"simkit {shlex.join(args)}:\n{result.output}"


def small(args: list[str]) -> list[str]:
    """A README or help command at test size."""
    if args[0] == "tune":
        return [*args, "--eval-games", "200"]
    if args[0] == "balance":  # two candidates need at least 4 x 400 games
        args = ["4000" if i and args[i - 1] == "--budget" else a for i, a in enumerate(args)]
        return [*args, "--verify-games", "400"]
    return args


@pytest.mark.parametrize("command", ["run", "report", "sweep", "compare", "tournament",
                                     "tune", "value", "play", "show", "cards", "strategies",
                                     "balance", "new-game", "check", "ladder"])
def test_every_help_example_names_real_things(command):
    """The -h example of each command uses only options the command has."""
    result = CliRunner().invoke(main, [command, "-h"])
    assert result.exit_code == 0
    example = result.output.split("Example", 1)[1].split("Options:", 1)[0]
    flags = set(re.findall(r"(--[a-z-]+)", example))
    known = set(re.findall(r"(--[a-z-]+)", result.output.split("Options:", 1)[1]))
    assert flags <= known, flags - known


def help_examples() -> list[list[str]]:
    """The `Example:` commands of `simkit -h` and of every command's `-h`, in an order
    where each finds the folders the ones before made (`run` before `report`...)."""
    order = ["", "run", "report", "sweep", "compare", "tournament", "tune", "value", "play",
             "show", "cards", "strategies", "games", "balance", "new-game", "check"]
    out = []
    for command in order:
        text = CliRunner().invoke(main, [*([command] if command else []), "-h"]).output
        block = text.split("Example", 1)[1].split("Options:", 1)[0].split(":", 1)[1]
        # click rewraps a help text: join its lines, then cut at each "simkit "
        flat = " ".join(line.strip().rstrip("\\") for line in block.splitlines())
        for line in re.split(r"(?=\bsimkit )", flat):
            if line.startswith("simkit "):
                args = shlex.split(line)[1:]
                out.append([SMALL.get(args[i - 1], a) if i else a
                            for i, a in enumerate(args)])
    return out


def test_every_help_example_runs(cm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    examples = help_examples()
    assert {e[0] for e in examples} >= {"run", "report", "sweep", "compare", "tournament",
                                        "tune", "value", "play"}
    runner = CliRunner()
    for args in examples:
        args = small(args)
        result = runner.invoke(main, args)
        assert result.exit_code == 0, f"simkit {shlex.join(args)}:\n{result.output}"
