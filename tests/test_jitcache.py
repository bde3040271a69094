"""simkit/jitcache.py: an edit to any source of a kernel reaches the compiled code, even
through a cached function of an unchanged module (numba's own check sees only the file of
the function it loads)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

MAIN = """
from pathlib import Path
from simkit.jitcache import drop_if_changed, numba_caches
here = Path(__file__).parent
drop_if_changed(here / "stamp", [here / "outer.py", here / "inner.py"],
                lambda: (f for d in numba_caches(here) for f in d.glob("*.nb[ic]")))
import outer
print(outer.value())
"""
OUTER = """
from numba import njit
from inner import part

@njit(cache=True)
def value():
    return part() + 10
"""
INNER = """
from numba import njit

@njit(cache=True)
def part():
    return {n}
"""


def _run(folder: Path) -> str:
    done = subprocess.run([sys.executable, str(folder / "entry.py")], cwd=folder,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_an_edited_callee_reaches_a_cached_caller(tmp_path):
    (tmp_path / "entry.py").write_text(textwrap.dedent(MAIN))
    (tmp_path / "outer.py").write_text(textwrap.dedent(OUTER))
    (tmp_path / "inner.py").write_text(textwrap.dedent(INNER.format(n=1)))
    assert _run(tmp_path) == "11"
    assert any((tmp_path / "__pycache__").glob("outer.*.nbi"))  # cached
    (tmp_path / "inner.py").write_text(textwrap.dedent(INNER.format(n=2)))
    assert _run(tmp_path) == "12"  # without the drop: 11, outer's stale cached code
    assert _run(tmp_path) == "12"  # and cached again
