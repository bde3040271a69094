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


def test_the_reductions_cache_check_drops_only_their_modules(tmp_path):
    """`drop_stale_modules` deletes the cached functions of the listed modules when any
    of their files changed, and nothing else."""
    from simkit.jitcache import drop_stale_modules

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()

    def cached() -> set[str]:
        for name in ("a.f-3.py311.nbi", "a.f-3.py311.1.nbc", "b.g-1.py311.nbi",
                     "c.h-1.py311.nbi"):
            (cache / name).touch()
        return {p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")}

    cached()
    assert drop_stale_modules(tmp_path, ("a", "b"), "r.stamp")  # no stamp yet
    assert {p.name for p in cache.iterdir()} == {"c.h-1.py311.nbi", "r.stamp"}
    before = cached()
    assert not drop_stale_modules(tmp_path, ("a", "b"), "r.stamp")  # nothing changed
    assert {p.name for p in cache.iterdir() if p.name != "r.stamp"} == before
    (tmp_path / "b.py").write_text("y = 2\n")
    assert drop_stale_modules(tmp_path, ("a", "b"), "r.stamp")
    assert {p.name for p in cache.iterdir()} == {"c.h-1.py311.nbi", "r.stamp"}


def test_the_reductions_stamp_covers_every_compiled_module_they_reach():
    """Every simkit module with compiled functions that a reduction module imports, or
    that imports one, is under the reductions' stamp (simkit.summing.REDUCTION_MODULES)."""
    import ast

    import simkit
    from simkit.summing import REDUCTION_MODULES

    folder = Path(simkit.__file__).parent

    def imports(stem: str) -> set[str]:
        tree = ast.parse((folder / f"{stem}.py").read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "simkit":
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simkit."):
                found.add(node.module.split(".")[1])
        return {s for s in found if (folder / f"{s}.py").exists()}

    compiled = {p.stem for p in folder.glob("*.py") if "@njit" in p.read_text()}
    stamped = set(REDUCTION_MODULES)
    for stem in compiled:
        reached = imports(stem) & compiled
        if stem in stamped:
            assert reached <= stamped, (stem, reached - stamped)
        elif reached & stamped:
            raise AssertionError(f"{stem} compiles code calling {reached & stamped}")
