"""`simkit new-game`: a working game folder to start from (a copy of the worked example).

The skeleton is Pig, the guide's worked example (examples/pig, docs/new-game.md), renamed:
a tiny complete game with its config, players, report hooks, plain-Python reference and
tests, which pass at once and run through every command at once. A designer then
replaces its rules with their own, step by step, keeping the tests passing.
"""

from __future__ import annotations

import keyword
import re
import shutil
from pathlib import Path

from simkit.errors import SimkitError

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "examples" / "pig"
FILES = ("__init__.py", "layout.py", "config.py", "rules.py", "options.py", "players.py",
         "play.py", "log.py", "report.py", "interventions.py", "reference.py",
         "config.toml", "targets.toml", "tests/__init__.py", "tests/test_pig.py")

INIT = '''"""{title}: a game for simkit, written to its game API (docs/new-game.md).

Started from simkit's skeleton, which is the dice game Pig: replace its rules with your
game's, one file at a time, keeping `pytest` passing (tests/).
"""

NAME = "{name}"
TITLE = "{title}"
'''

PYPROJECT = '''[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "simkit-{dist}"
version = "0.1.0"
description = "{title} for simkit"
requires-python = ">=3.11"
dependencies = ["simkit"]

# `pip install -e .` here registers the game with simkit under the name "{name}":
# `simkit games` lists it and `simkit run {name} ...` plays it.
[project.entry-points."simkit.games"]
{name} = "{name}"

[tool.setuptools]
packages = ["{name}", "{name}.tests"]
package-dir = {{"{name}" = ".", "{name}.tests" = "tests"}}
package-data = {{"{name}" = ["*.toml"]}}
'''

README = '''# {title}

A game for simkit, written to its game API (simkit's
`docs/new-game.md` is the guide). Started from the Pig skeleton.

    simkit run {path} --players 2 --strategies greedy,random --games 20000 \\
        --out runs/{name} --report
    simkit play {path} --players 2 --strategies greedy --seed 1
    simkit check {path}
    pytest {path}

`pip install -e {path}` registers it under the name `{name}` (see pyproject.toml).
'''


def new_game(name: str, parent: Path) -> Path:
    """Write the skeleton game `name` into `parent / name`; returns the folder. Refuses
    to write into a folder that exists (nothing simkit did not write is touched)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or keyword.iskeyword(name):
        raise SimkitError(f"new-game {name!r}: a game's name must be a lower-case Python "
                          "name (letters, digits and _, starting with a letter)")
    if not EXAMPLE.is_dir():
        raise SimkitError(f"new-game: the skeleton (examples/pig) is not in this install "
                          f"({EXAMPLE}); install simkit from its repository")
    folder = parent / name
    if folder.exists():
        raise SimkitError(f"new-game: {folder} already exists; choose another name or "
                          "--dir (simkit writes only into a new folder)")
    title = name.replace("_", " ").title()
    work = parent / f".{name}.partial"
    shutil.rmtree(work, ignore_errors=True)
    try:
        (work / "tests").mkdir(parents=True)
        for rel in FILES:
            text = (EXAMPLE / rel).read_text()
            if rel == "__init__.py":
                text = INIT.format(name=name, title=title)
            else:
                text = rename(text, name)
            if rel == "targets.toml":
                text = ("# Pig's targets until you change them: set your game's length here,"
                        " or a first\n# report of another game FAILs on Pig's 8-20 "
                        "rounds.\n") + text
            if rel == "config.toml":
                text = text.replace(
                    "goal = 100\n",
                    "goal = 100\n# A placeholder: a number not yet from your rule text "
                    "(reports list every one).\nplaceholder = [\"goal\"]\n", 1)
            target = work / rel.replace("test_pig", f"test_{name}")
            target.write_text(text)
        (work / "pyproject.toml").write_text(
            PYPROJECT.format(name=name, title=title, dist=name.replace("_", "-")))
        # A bare name would be read as an installed game's, not this folder.
        shown = folder if folder.is_absolute() or str(folder).startswith(".") \
            else f"./{folder}"
        (work / "README.md").write_text(README.format(name=name, title=title, path=shown))
        work.rename(folder)  # all or nothing: an interrupted write leaves no half game
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def rename(text: str, name: str) -> str:
    """The example's text with its names replaced by the new game's."""
    text = re.sub(r"\bimport pig\.", f"import {name}.", text)
    # The prose still describes Pig, truly: it is Pig until the designer changes it.
    return text.replace("pig_turns_by_strategy", f"{name}_turns_by_strategy")
