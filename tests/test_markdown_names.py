"""Names from a config reach summary.md and value.md as text, never as markup (issue 47,
fault 5): HTML, links, a newline that would split a table row, terminal escapes."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from reports.render import _md_code, _md_escape
from simkit.cli import main

PIG = Path(__file__).resolve().parent.parent / "examples" / "pig"
EVIL = ('"<script>alert(1)</script> [x](javascript:alert(1)) [y]: javascript:z a|b'
        '\\nnew row \\u001b[31mred\\u001b[0m"')


def _table_rows_keep_their_columns(md: str) -> None:
    """Every row of every table has as many cells as the table's header."""
    cells = None
    for line in md.splitlines():
        if not line.startswith("|"):
            cells = None
            continue
        n = len(re.findall(r"(?<!\\)\|", line))
        cells = cells or n
        assert n == cells, line


def _is_text_only(md: str) -> None:
    assert "\x1b" not in md
    md = re.sub(r"^(`{3,})sh\n.*?\n\1$", "", md, flags=re.S | re.M)  # the command, as code
    assert "<script" not in md and "\x1b" not in md, md
    assert not re.search(r"(?<!\\)\]\(javascript", md)  # a link
    assert not re.search(r"(?<!\\)\]: javascript", md)  # a link definition
    _table_rows_keep_their_columns(md)


def test_a_config_s_names_are_text_in_summary_md_and_value_md(tmp_path):
    common = ["examples/pig" if Path("examples/pig").exists() else str(PIG), "--players", "2",
              "--strategies", "greedy,random", "--games", "1000", "--seed", "1",
              "--set", f"faces.two.name={EVIL}"]
    runner = CliRunner()
    done = runner.invoke(main, ["run", *common, "--out", str(tmp_path / "run"), "--report"])
    assert done.exit_code == 0, done.output
    _is_text_only((tmp_path / "run" / "summary.md").read_text())
    done = runner.invoke(main, ["value", *common, "--out", str(tmp_path / "value")])
    assert done.exit_code == 0, done.output
    value_md = (tmp_path / "value" / "value.md").read_text()
    _is_text_only(value_md)
    # the name is in its row, on one line, as text
    assert re.search(r"^\| &lt;script&gt;.*new row red \| ", value_md, re.M)


def test_markdown_escapes():
    assert _md_escape("<b>x</b> | y & z") == "&lt;b&gt;x&lt;/b&gt; \\| y &amp; z"
    assert _md_escape("a\nb\x1b[1mc\x07") == "a bc "
    assert _md_escape("[a](u) [b]: u [c][d] [e]") == "[a\\](u) [b\\]: u [c\\][d] [e]"
    assert _md_escape("back\\|slash") == "back\\\\\\|slash"
    assert _md_code("a`b") == "``a`b``" and _md_code("x\ny") == "`x y`"
