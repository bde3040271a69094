"""The written report on a real (small) run: every section, every image, the honesty
block, the CSV tables, the command line, and one clear error for every bad input."""

from __future__ import annotations

import base64
import json
import re
import shutil

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from reports import make_report
from reports.build import build
from reports.document import Chart, Table
from reports.hooks import hooks_for
from reports.load import open_run
from reports.targets import load_targets
from simkit.cli import main
from simkit.errors import SimkitError
from tests.report_support import random_frame, reported_run, small_run

SECTIONS = ("scorecard", "placeholders", "winners", "seats", "scores", "endings", "components",
            "witches", "hecate", "recipes", "leftovers", "method")
IMG = re.compile(r'<img alt="([^"]+)" src="data:image/png;base64,([A-Za-z0-9+/=]+)">')


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    return reported_run(tmp_path_factory)


@pytest.fixture(scope="module")
def page(reported):
    return reported[1].html.read_text()


@pytest.fixture(scope="module")
def report_data(reported):
    run_dir = reported[0]
    return build(open_run(run_dir), load_targets(None, "cauldron-master"),
                 hooks_for("cauldron-master"))


def test_files_are_written_into_the_run_folder(reported):
    run_dir, written = reported
    assert written.html == run_dir / "report.html"
    assert written.summary == run_dir / "summary.md"
    assert all(p.parent == run_dir / "report_tables" for p in written.tables)
    assert not list(run_dir.glob("*.partial"))


def test_every_section_is_on_the_page(page):
    for key in SECTIONS:
        assert f'id="{key}"' in page, key
        assert f'href="#{key}"' in page or key in ("method",), key


def test_every_chart_is_an_embedded_png(page, report_data):
    charts = [b for s in report_data.sections for b in s.blocks if isinstance(b, Chart)]
    images = IMG.findall(page)
    assert len(images) == len(charts) == page.count("<img ") >= 12
    for alt, data in images:
        raw = base64.b64decode(data, validate=True)
        assert raw[:8] == b"\x89PNG\r\n\x1a\n", alt
        assert len(raw) > 5000, alt
    # Self-contained: nothing is fetched from anywhere.
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<link" not in page and "<script" not in page


def test_every_block_says_what_it_means(report_data):
    for section in report_data.sections:
        assert section.intro.strip().endswith((".", "?")), section.title
        for block in section.blocks:
            if isinstance(block, Table | Chart):
                assert len(block.explain) > 20, block.title
    for chart in (b for s in report_data.sections for b in s.blocks if isinstance(b, Chart)):
        ax = chart.figure.axes[0]
        assert ax.get_title(loc="left") or ax.get_title(), chart.title
        assert ax.get_xlabel() or ax.get_ylabel(), chart.title


def test_honesty_block(page, reported):
    manifest = json.loads((reported[0] / "manifest.json").read_text())
    assert manifest["config"]["hash"] in page
    assert f"<dd>{manifest['seed']}</dd>" in page
    assert "simkit run cauldron-master --players 4 --strategies planner,greedy,random,greedy" \
        in page
    # the verdict first: the scorecard, then the placeholder warning with its list folded
    assert page.index('id="scorecard"') < page.index('id="placeholders"')
    warning = page[page.index('id="placeholders"'):page.index('id="winners"')]
    assert "<details><summary>" in warning
    marks = [m for m in manifest["config"]["placeholders"] if not m.startswith("witches.amateur")]
    assert f"This run used {len(marks)} placeholder values" in warning
    assert warning.count("<li>") == len(marks)
    assert "Amateur (optional witch)" in warning  # left out, and says why
    assert "2 Spider Venom + 1 Frog&#x27;s Blood: +2" in warning


def test_labels_are_the_game_s_own_words(page):
    for name in ("Bat&#x27;s Heart", "Swamp Stew", "Goddess", "1st player"):
        assert name in page
    # commands and config keys (`recipe_cards.swamp_stew` in a next step) are code, meant
    # to be typed; every other word is the game's
    visible = re.sub(r"<[^>]+>", " ", re.sub(r"<code>.*?</code>", " ", page, flags=re.S))
    for column in ("witch_apprentice", "scored_bats_heart", "recipe_card", "win_share"):
        assert column not in visible, column


def test_scorecard_has_coloured_verdicts(page, report_data):
    card = report_data.scorecard
    assert card["metric"].to_list() == ["seat_advantage", "component_effect", "tie_rate",
                                        "game_length"]
    assert set(card["verdict"]) <= {"PASS", "FAIL", "NOT YET SURE"}
    for verdict in card["verdict"]:
        css = {"PASS": "pass", "FAIL": "fail"}.get(verdict, "unsure")
        assert f'<span class="pill {css}">{verdict}</span>' in page
    # Seats 1 and 3 differ by far more than 3 points even in 2,000 games.
    assert card.filter(pl.col("metric") == "seat_advantage")["verdict"][0] == "FAIL"


def test_intervals_and_counts_in_every_metric_table(report_data):
    tables = [b for s in report_data.sections for b in s.blocks if isinstance(b, Table)]
    assert len(tables) >= 15
    for table in tables:
        ci = [c for c in table.columns if c.fmt.startswith("ci_")]
        for c in ci:
            assert {f"{c.key}_lo", f"{c.key}_hi"} <= set(table.frame.columns), table.title
        counted = [c for c in table.frame.columns
                   if c in ("games", "players", "players_with") or c.endswith("_players")]
        assert counted, table.title


def test_summary_markdown_and_csv_tables(reported):
    run_dir, written = reported
    text = written.summary.read_text()
    assert text.startswith("# Cauldron Master: balance report")
    assert "## Balance scorecard" in text and "**Warning: this run used" in text
    assert "| Seat advantage |" in text and "## Component value" in text
    names = {p.name for p in written.tables}
    assert {"scorecard.csv", "win_share_by_strategy.csv", "seat_advantage.csv",
            "components_ingredients.csv", "recipe_bonus_by_card.csv"} <= names
    seats = pl.read_csv(run_dir / "report_tables" / "seat_advantage.csv")
    assert seats.height == 4
    assert {"advantage", "advantage_lo", "advantage_hi", "games"} <= set(seats.columns)
    comps = pl.read_csv(run_dir / "report_tables" / "components_recipe_cards.csv")
    assert comps.height == 9 and "Swamp Stew" in comps["name"].to_list()


# ------------------------------------------------------------------ command line
@pytest.fixture()
def cli():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)

    return invoke


def test_cli_report_with_out_and_targets(cli, tmp_path_factory, tmp_path):
    run_dir = small_run(tmp_path_factory)
    targets = tmp_path / "strict.toml"
    targets.write_text("[tie_rate]\nmax_percent = 0.5\n")
    result = cli("report", run_dir, "--out", tmp_path / "rep", "--targets", targets,
                 "--set-target", "seat_advantage.max_points=50")
    assert result.exit_code == 0, result.output
    assert "Wrote the balance report" in result.output
    card = pl.read_csv(tmp_path / "rep" / "report_tables" / "scorecard.csv")
    assert card["metric"].to_list() == ["tie_rate", "seat_advantage"]
    assert card["verdict"].to_list() == ["FAIL", "PASS"]
    assert (tmp_path / "rep" / "report.html").exists()


def test_cli_unknown_target_metric_is_one_error_line(cli, tmp_path_factory, tmp_path):
    run_dir = small_run(tmp_path_factory)
    targets = tmp_path / "targets.toml"
    targets.write_text("[first_player_bonus]\nmax_points = 2\n")
    result = cli("report", run_dir, "--targets", targets)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:")
    assert str(targets) in lines[0] and "first_player_bonus" in lines[0]


def test_run_with_report_and_a_new_run_removes_the_old_report(cli, tmp_path):
    out = tmp_path / "run"
    args = ["run", "cauldron-master", "--players", "3", "--strategies", "planner,greedy,random",
            "--games", "300", "--seed", "2", "--out", out]
    result = cli(*args, "--report")
    assert result.exit_code == 0, result.output
    assert (out / "report.html").exists() and (out / "summary.md").exists()
    assert "Wrote the balance report" in result.output
    result = cli(*args[:-4], "--seed", "3", "--out", out, "--force")
    assert result.exit_code == 0, result.output
    assert not (out / "report.html").exists() and not (out / "report_tables").exists()


# ------------------------------------------------------------------ bad input
def _copy(tmp_path_factory, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(small_run(tmp_path_factory), target)
    for name in ("report.html", "summary.md"):
        (target / name).unlink(missing_ok=True)
    shutil.rmtree(target / "report_tables", ignore_errors=True)
    return target


def test_not_a_run_folder(tmp_path):
    with pytest.raises(SimkitError, match="not a simkit run folder"):
        make_report(tmp_path)
    with pytest.raises(SimkitError, match="no such folder"):
        make_report(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(SimkitError, match="is a file, not a run folder"):
        make_report(tmp_path / "file.txt")
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(SimkitError, match="not valid JSON"):
        make_report(tmp_path)
    (tmp_path / "manifest.json").write_text('{"hello": 1}')
    with pytest.raises(SimkitError, match="not a simkit run manifest"):
        make_report(tmp_path)


def test_truncated_parquet(tmp_path_factory, tmp_path):
    run_dir = _copy(tmp_path_factory, tmp_path)
    data = (run_dir / "games.parquet").read_bytes()
    (run_dir / "games.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(SimkitError, match="not a readable Parquet file"):
        make_report(run_dir)
    assert not (run_dir / "report.html").exists()


def test_foreign_parquet(tmp_path_factory, tmp_path):
    run_dir = _copy(tmp_path_factory, tmp_path)
    pl.DataFrame({"player": ["ann", "bob"], "points": [3, 4]}).write_parquet(
        run_dir / "games.parquet")
    with pytest.raises(SimkitError, match=r"not simkit results \(no column game, deal, seat"):
        make_report(run_dir)
    (run_dir / "games.parquet").write_text("player,points\nann,3\n")
    with pytest.raises(SimkitError, match="not a readable Parquet file"):
        make_report(run_dir)


def test_run_with_zero_games(tmp_path_factory, tmp_path):
    run_dir = _copy(tmp_path_factory, tmp_path)
    pl.read_parquet(run_dir / "games.parquet").head(0).write_parquet(run_dir / "games.parquet")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest.update(games=0, rows=0)
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(SimkitError, match="the run has zero games"):
        make_report(run_dir)


def test_rows_that_do_not_match_the_manifest(tmp_path_factory, tmp_path):
    run_dir = _copy(tmp_path_factory, tmp_path)
    pl.read_parquet(run_dir / "games.parquet").head(400).write_parquet(run_dir / "games.parquet")
    with pytest.raises(SimkitError, match="holds 400 rows but manifest.json says 8,000"):
        make_report(run_dir)


@pytest.mark.parametrize("leftover", ["run.json", "chunks.partial", "games.parquet.partial"])
def test_unfinished_run(tmp_path, leftover):
    (tmp_path / leftover).mkdir()
    with pytest.raises(SimkitError, match="unfinished run"):
        make_report(tmp_path)


# ------------------------------------------------------------------ per-game hooks
def test_a_game_without_hooks_gets_the_generic_report(tmp_path_factory, tmp_path):
    run_dir = _copy(tmp_path_factory, tmp_path)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest.update(game="mystery-game", title="Mystery Game")
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    page = make_report(run_dir).html.read_text()
    for key in ("scorecard", "winners", "seats", "scores", "endings", "placeholders"):
        assert f'id="{key}"' in page
    for key in ("components", "witches", "hecate"):
        assert f'id="{key}"' not in page
    assert "Mystery Game: balance report" in page
    assert "Ingredients › Bat&#x27;s Heart › scores" in page  # generic placeholder labels


def test_describe_placeholder():
    from reports.hooks import describe_placeholder

    resolved = {"witches": [{"id": "mage", "name": "Mage", "max_cards": 2,
                             "colour_limits": {"orange": 2, "green": 2}}],
                "supply": {"size": {"4": 12}}}
    assert describe_placeholder(resolved, "witches.mage.max_cards") == ("Witches › Mage › "
                                                                        "max cards", "2")
    assert describe_placeholder(resolved, "witches.mage") == (
        "Witches › Mage", "max cards: 2 · colour limits: orange 2, green 2")
    assert describe_placeholder(resolved, "supply.size.4") == ("Supply › size › 4", "12")
    assert describe_placeholder(resolved, "witches.nobody")[1] == "(not in the resolved config)"


def test_csv_cells_that_look_like_formulas_are_neutralised(tmp_path):
    import polars as pl

    from simkit.results import read_csv, write_csv

    frame = pl.DataFrame({"name": ["=HYPERLINK(\"x\")", "+1", "@a", "plain", "-x"],
                          "value": [-1.5, 2.0, 3.0, 4.0, -5.0]})
    write_csv(frame, tmp_path / "t.csv")
    back = pl.read_csv(tmp_path / "t.csv")
    assert back["name"].to_list() == ["'=HYPERLINK(\"x\")", "'+1", "'@a", "plain", "'-x"]
    assert back["value"].to_list() == [-1.5, 2.0, 3.0, 4.0, -5.0]  # numbers untouched
    # read_csv gives every cell back as it was, a name that starts with a quote included.
    frame = pl.concat([frame, pl.DataFrame({"name": ["'=x"], "value": [0.1]})])
    write_csv(frame, tmp_path / "t.csv")
    assert read_csv(tmp_path / "t.csv", frame.schema).equals(frame)


def test_markdown_escapes_html_and_pipes_in_names():
    from reports.markdown import md_escape as _md_escape

    assert _md_escape("<b>x</b> | y & z") == "&lt;b&gt;x&lt;/b&gt; \\| y &amp; z"


def test_rows_that_are_not_the_manifest_s_game_are_refused(tmp_path_factory, tmp_path):
    from simkit.config import load_config

    run_dir = _copy(tmp_path_factory, tmp_path)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["game"] = "carnuta"  # the rows are Cauldron Master's
    manifest["config"]["resolved"] = load_config("carnuta").data
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(SimkitError, match="not the results of the Carnuta run"):
        make_report(run_dir)


def test_the_largest_seat_effect_is_traced_to_the_strategy_that_carries_it(report_data,
                                                                            reported):
    """Every strategy's part w_s (share in the seat - share overall) sums to the seat's
    advantage; the finding names the strategy with most of it, when one has."""
    from reports import metrics
    from reports.stats import clear_largest

    run = open_run(reported[0])
    seats = metrics.seat_advantage(run.source)
    top = seats.with_columns(size=pl.col("advantage").abs()).sort(
        "size", descending=True).row(0, named=True)
    cells = metrics.clustered_mean(run.source, ["strategy", "seat"], ["win_share"])
    overall = metrics.win_share_by(run.source, "strategy")
    names = [s["name"] for s in run.manifest["strategies"]]
    parts = {}
    for s in set(names):
        here = cells.filter((pl.col("strategy").cast(pl.String) == s)
                            & (pl.col("seat") == top["seat"]))["win_share"][0]
        mean = overall.filter(pl.col("strategy").cast(pl.String) == s)["win_share"][0]
        parts[s] = names.count(s) / len(names) * (here - mean)
    assert sum(parts.values()) == pytest.approx(top["advantage"], abs=0.01)
    said = [f for f in report_data.findings if "'s seat effect:" in f or "spread over" in f]
    clear = clear_largest(list(zip(seats["advantage"], seats["advantage_lo"],
                                   seats["advantage_hi"], strict=True)))
    if clear:  # allowing for its being the largest of the seats
        carrier = max(parts, key=lambda s: parts[s] * (1 if top["advantage"] > 0 else -1))
        if parts[carrier] / top["advantage"] > 0.5:
            assert said and f"is {carrier}'s seat effect" in said[0]
        else:
            assert said and "spread over" in said[0]
    else:
        assert not said


def test_a_strategy_s_part_of_a_seat_effect_covers_its_truth():
    """A strategy's part of a seat effect (its win share in the seat minus its share
    overall, `reports.build.seat_parts`), clustered by deal, covers the truth in about 95%
    of 400 simulated runs (a binomial 99.9% band), where strategies and seats both matter
    (s0 strong, the first seat favoured); its point estimate is the cells' difference."""
    from reports import metrics
    from reports.build import seat_parts

    strength, seat_weight, n = np.array([3.0, 1.0, 1.0]), np.array([1.5, 1.0, 0.8]), 3
    # s in seat x on deal rotation r = x - s (mod n); its chance to win that game, exactly
    chance = np.array([[strength[s] * seat_weight[x]
                        / sum(strength[(y - x + s) % n] * seat_weight[y] for y in range(n))
                        for x in range(n)] for s in range(n)])
    truth = chance - chance.mean(axis=1, keepdims=True)
    rng = np.random.default_rng(11)
    covered = 0
    runs = 400
    for _ in range(runs):
        parts = seat_parts(random_frame(rng, 600, n, strength, rotate=True,
                                        seat_weight=seat_weight), n)
        r = parts.filter(pl.col("strategy").cast(pl.String) == "s0").row(0, named=True)
        covered += r["seat_0_lo"] <= truth[0, 0] <= r["seat_0_hi"]
    band = 3.29 * np.sqrt(0.95 * 0.05 / runs)
    assert abs(covered / runs - 0.95) < band, covered
    f = random_frame(rng, 600, n, strength, rotate=True, seat_weight=seat_weight)
    cells = metrics.clustered_mean(f, ["strategy", "seat"], ["win_share"])
    overall = metrics.win_share_by(f, "strategy")
    here = cells.filter((pl.col("strategy").cast(pl.String) == "s1")
                        & (pl.col("seat") == 2))["win_share"][0]
    mean = overall.filter(pl.col("strategy").cast(pl.String) == "s1")["win_share"][0]
    part = seat_parts(f, n).filter(pl.col("strategy").cast(pl.String) == "s1")
    assert part["seat_2"][0] == pytest.approx(here - mean)
