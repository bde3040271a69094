"""Every Python or shell file the README and docs/ cite in backticks is in the repository,
so a measurement's command can be run again. Placeholders (`<game>.py`, `FILE.py`, `X.py`),
`NAME@file` strategy specs and calls such as `simkit.rng.shuffle(...)` are not files."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"`([\w./-]+\.(?:py|sh))\b(?![.(])[^`]*`")


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout:
        return listed.stdout.split()
    return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if ".venv" not in p.parts]


def citations() -> set[tuple[str, str]]:
    """(doc, file) for every file a doc names in backticks, placeholders left out."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = set()
    for doc in docs:
        for name in CITED.findall(doc.read_text(encoding="utf-8")):
            stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            if not (stem.isupper() or stem == "file"):  # FILE.py, X.py, file.py: placeholders
                found.add((str(doc.relative_to(ROOT)), name))
    return found


def test_docs_cite_only_files_the_repository_holds():
    files = tracked_files()
    cited = citations()
    assert len(cited) > 20  # the pattern still finds the docs' citations
    missing = sorted((doc, name) for doc, name in cited
                     if not any(f == name or f.endswith("/" + name) for f in files))
    assert missing == []
