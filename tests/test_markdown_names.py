"""Names from a config reach summary.md and value.md as text, never as markup (issue 47,
fault 5): HTML, links, a newline that would split a table row, terminal escapes; and the
terminal as plain text (simkit.words.shown): escapes dropped, control bytes a space."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from reports.markdown import md_code as _md_code
from reports.markdown import md_escape as _md_escape
from reports.render import verdict_lines
from simkit.cli import main
from simkit.commands.common import summary_text
from simkit.words import shown

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
    assert "\x1b" not in done.output
    _is_text_only((tmp_path / "run" / "summary.md").read_text())
    done = runner.invoke(main, ["value", *common, "--out", str(tmp_path / "value")])
    assert done.exit_code == 0, done.output
    assert "\x1b" not in done.output and "\x07" not in done.output
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


def test_terminal_text_is_plain():
    """One line of plain text: colours, a cursor move and a window title are dropped; a
    newline, a carriage return, a tab and a bell are one space each; printable text (and
    non-ASCII letters) stays."""
    assert shown("a\nb\x1b[1;31mc\x1b[0m\x07") == "a bc "
    assert shown("\x1b[2K\rover\twritten\x1b]0;title\x07x") == " over written0;title x"
    assert shown("Pig’s Foot <b>|") == "Pig’s Foot <b>|"
    assert shown(3.5) == "3.5"


def test_terminal_tables_show_names_as_plain_text():
    """The scorecard's lines and the summary table, with a name holding escapes: no
    escape reaches the terminal, every line stays one line, the columns stay aligned."""
    evil = "two\x1b[31m\nred\x1b[0m"
    card = pl.DataFrame({"verdict": ["FAIL"], "title": [f"Component effect ({evil})"],
                         "estimate": ["-3.0"]})
    (line,) = verdict_lines(card)
    assert "\x1b" not in line and "\n" not in line and "two red" in line
    summary = pl.DataFrame({"strategy": [evil, "greedy"], "seat": ["1", "2"],
                            "games": [10, 10], "win_share": [0.5, 0.5],
                            "mean_score": [1.0, 2.0], "mean_rounds": [3.0, 4.0]})
    lines = summary_text(summary).splitlines()
    assert len(lines) == 3 and "\x1b" not in "".join(lines)
    assert len({len(x) for x in lines}) == 1
