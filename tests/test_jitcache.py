"""simkit/jitcache.py: an edit to any source of a kernel reaches the compiled code, even
through a cached function of an unchanged module (numba's own check sees only the file of
the function it loads)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

MAIN = """
from simkit.jitcache import drop_stale_cache
import outer, inner
drop_stale_cache(__file__, outer.__file__, inner.__file__)
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


def test_a_game_drops_only_its_own_copy_of_a_template(tmp_path, monkeypatch):
    """A template (simkit/kernels/templates.py) is compiled into every game, each copy
    cached beside it under the game's module name: a game whose sources changed drops its
    own copy, never another game's (which would compile that game's kernel again)."""
    import simkit.jitcache

    template = tmp_path / "shared" / "tmpl.py"
    template.parent.mkdir()
    template.write_text("x = 1\n")
    cache = template.parent / "__pycache__"
    cache.mkdir()
    mine = cache / "tmpl.pkg_a_play.simulate_batch-1.py311.nbi"
    theirs = cache / "tmpl.pkg_b_play.simulate_batch-1.py311.nbi"
    for f in (mine, theirs):
        f.write_text("")
    game = tmp_path / "pkg" / "a"
    game.mkdir(parents=True)
    for init in (tmp_path / "pkg" / "__init__.py", game / "__init__.py"):
        init.write_text("")
    (game / "play.py").write_text("y = 2\n")
    monkeypatch.setattr(simkit.jitcache, "TEMPLATES", (template,))
    assert simkit.jitcache.drop_stale_cache(str(game / "play.py"), str(template))
    assert not mine.exists() and theirs.exists()
