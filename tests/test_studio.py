"""simkit studio without a browser: its paired difference is `simkit compare`'s, bad
edits are refused with the CLI's line and change nothing, the session survives a
restart, the form lists what `simkit show` lists, and the app guards its address."""

from __future__ import annotations

import io
import json

import polars as pl
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

import simkit
from reports.compare import compare_frames
from reports.targets import load_targets
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.progress import say_if_compiling
from simkit.studio import actions
from simkit.studio.app import make_app
from simkit.studio.figures import in_memory_run, view
from simkit.studio.form import fields, override
from simkit.studio.games import Games
from simkit.studio.live import Live
from simkit.studio.session import STATE_FILE, Session, Setup

GAME = "cauldron-master"
HX = {"HX-Request": "true"}  # what the page's htmx sends with every change
EDIT = "supply.size.4=10"


def _setup(**kw) -> Setup:
    return Setup(GAME, 4, ("greedy", "random", "greedy", "greedy"), 11, **kw)


def test_paired_difference_equals_compare_of_two_runs(tmp_path):
    n = 3_000
    s = _setup()
    a = simkit.run(GAME, players=4, strategies=list(s.strategies), games=n, seed=s.seed,
                   out=tmp_path / "a", progress=False)
    b = simkit.run(GAME, players=4, strategies=list(s.strategies), games=n, seed=s.seed,
                   set={"supply.size.4": 10}, out=tmp_path / "b", progress=False)
    cli = simkit.compare(a, b).table

    session = Session.open(s, None)
    base = Games(session.baseline)
    session.edit("supply.size.4", EDIT, EDIT)
    changed = Games(session.prepared())
    for upto in (1_000, n):  # grown in slices, as the studio plays
        base.grow(upto)
        changed.grow(upto)
    mine = compare_frames(in_memory_run(base, n), in_memory_run(changed, n))
    assert mine.select("metric", "group", "real").equals(cli.select("metric", "group", "real"))
    for col in ("a", "b", "diff", "diff_lo", "diff_hi", "unpaired_lo", "unpaired_hi"):
        assert mine[col].to_list() == pytest.approx(cli[col].to_list(), abs=1e-12), col
    # the rows themselves are the run's rows
    rows = pl.read_parquet(tmp_path / "b" / "games.parquet")
    assert changed.frame(n).select(rows.columns).equals(rows)


def _cli_error(*args: str) -> str:
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code != 0
    return r.output.strip().splitlines()[-1]


@pytest.mark.parametrize("key,typed", [("supply.size.4", "abc"), ("supply.size.4", "1.5"),
                                       ("options.tie_break", "zzz"),
                                       ("options.picking_compulsory", "3")])
def test_a_bad_edit_is_refused_with_the_cli_line_and_changes_nothing(tmp_path, key, typed):
    session = Session.open(_setup(), tmp_path / "s")
    session.edit("supply.size.4", EDIT, EDIT)
    before = (tmp_path / "s" / STATE_FILE).read_text()
    field = {f.key: f for f in fields(session.baseline.game, session.baseline.config)}[key]
    item = override(field, typed)
    with pytest.raises(SimkitError) as err:
        session.edit(key, item, item)
    # the state the studio checks: the current one, this key's earlier value replaced
    kept = [x for x in ("--set", EDIT) if not key.startswith("supply")]
    said = _cli_error("run", GAME, "--players", "4", "--games", "10", *kept,
                      "--set", item, "--out", str(tmp_path / "r"))
    assert said == f"Error: {err.value}"
    assert (tmp_path / "s" / STATE_FILE).read_text() == before
    assert session.current.items == (EDIT,)
    assert session.baseline.config.data["supply"]["size"]["4"] == 12


def test_session_survives_a_restart_with_undo_and_reset(tmp_path):
    folder = tmp_path / "s"
    s = Session.open(_setup(), folder)
    s.edit("supply.size.4", EDIT, EDIT)
    s.edit("options.tie_break", 'options.tie_break="hecate"', "x")
    assert s.current.items == (EDIT, 'options.tie_break="hecate"')
    again = Session.open(_setup(), folder)
    assert [st.changes for st in again.states] == [st.changes for st in s.states]
    assert again.at == s.at == 2
    assert again.undo().items == (EDIT,)
    assert again.reset().items == ()
    assert again.undo().items == (EDIT,)
    with pytest.raises(SimkitError, match="another baseline"):
        Session.open(Setup(GAME, 3, ("greedy",), 11), folder)


def test_the_form_lists_what_show_lists_with_choices_and_placeholders():
    s = Session.open(_setup(), None)
    form = fields(s.baseline.game, s.baseline.config)
    shown = CliRunner().invoke(main, ["show", GAME]).output.splitlines()[2:]
    assert [f.key for f in form] == [line.split(" = ")[0] for line in shown]
    assert [f.placeholder for f in form] == ["PLACEHOLDER" in line for line in shown]
    by = {f.key: f for f in form}
    assert by["options.tie_break"].kind == "choice"
    assert set(by["options.tie_break"].choices) == {"shared", "hecate", "most_potions"}
    assert by["options.picking_compulsory"].kind == "bool"
    assert by["supply.size.4"].kind == "number"


def test_the_save_and_command_play_the_same_state(tmp_path):
    s = Session.open(_setup(), tmp_path / "s")
    s.edit("supply.size.4", EDIT, EDIT)
    patch, config = actions.save(s)
    import tomllib

    assert tomllib.loads(patch.read_text())["set"] == [EDIT]
    assert tomllib.loads(config.read_text())["supply"]["size"]["4"] == 10
    assert "--set supply.size.4=10" in actions.command(s, 1000)
    assert "Error" not in actions.play_log(s, s.current, 3)[:200]


def test_without_a_folder_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = Session.open(_setup(), None)
    s.edit("supply.size.4", EDIT, EDIT)
    with pytest.raises(SimkitError, match="--out DIR"):
        actions.save(s)
    assert list(tmp_path.iterdir()) == []


def test_live_view_flags_flipped_verdicts_and_stops_when_decided():
    s = Session.open(Setup(GAME, 4, ("greedy",), 0, budget=40_000), None)
    targets = load_targets(None, GAME)
    s.edit("supply.size.4", EDIT, EDIT)
    live = Live(s, targets)
    live.start()
    live.wait(timeout=600)
    v = live.latest
    assert v is not None and v.final and v.changed
    assert v.decided or v.games == 40_000
    assert s.current.outcome == v.outcome()
    assert "Tie rate" in v.flipped  # FAIL (11% ties) -> PASS with a smaller supply
    assert v.sections  # the report's own sections, at the last look
    said = io.StringIO()  # a value edit plays on the kernel already compiled
    assert not say_if_compiling(s.baseline.game, [s.prepared().lineup], said), said.getvalue()
    assert v.turned  # each seat's play log: a game it won with the edit, not without
    a, b = live.base.frame(v.games), live._games(s.current).frame(v.games)
    for seat, game in v.turned.items():
        def share(frame, seat=seat, game=game):
            return frame.filter((pl.col("game") == game) & (pl.col("seat") == seat))[
                "win_share"][0]
        assert share(b) >= 0.5 and share(a) < share(b)
    base = view(live.base, live.base, v.games, v.look, targets)
    assert not base.flipped and not base.changed


def test_the_app_needs_its_token_beyond_this_machine():
    s = Session.open(_setup(budget=2_000), None)
    live = Live(s, load_targets(None, GAME))
    with TestClient(make_app(live, token="sesame")) as client:
        assert client.get("/").status_code == 403
        assert client.get("/?token=wrong").status_code == 403
        ok = client.get("/?token=sesame")
        assert ok.status_code == 200 and "supply.size.4" in ok.text
        assert client.get("/static/htmx.min.js").status_code == 200  # by the cookie
        r = client.post("/edit", data={"key": "supply.size.4", "value": "abc"}, headers=HX)
        assert "Error: --set: supply.size.4 = 'abc'" in r.text.replace("&#39;", "'")
    live.cancel()


def test_another_address_needs_an_explicit_flag():
    r = CliRunner().invoke(main, ["studio", GAME, "--host", "0.0.0.0", "--no-browser"])
    assert r.exit_code != 0
    assert r.output.strip().splitlines() == [
        "Error: --host 0.0.0.0: the studio listens on 127.0.0.1 only, unless you also pass "
        "--allow-remote (it is then protected by a token)"]


def test_players_seed_and_targets_start_a_new_baseline(tmp_path):
    s = Session.open(_setup(budget=2_000), tmp_path / "s")
    s.edit("supply.size.4", EDIT, EDIT)
    live = Live(s, load_targets(None, GAME))
    form = {"players": "3", "strategies": "greedy,planner,random", "seed": "5",
            "target:seat_advantage.max_points": "2"}
    with TestClient(make_app(live)) as client:
        bad = client.post("/baseline", data=form | {"strategies": "greedy,nobody,random"},
                          headers=HX)
        said = bad.text.replace("&#39;", "'")
        assert "Error: unknown strategy 'nobody' for cauldron-master" in said
        assert s.setup.players == 4 and s.current.items == (EDIT,)  # nothing changed
        assert client.post("/baseline", data=form).status_code == 403  # not from the page
        ok = client.post("/baseline", data=form, headers=HX)
        assert ok.headers["HX-Refresh"] == "true"
    live.cancel()
    assert (s.setup.players, s.setup.strategies, s.setup.seed) == (
        3, ("greedy", "planner", "random"), 5)
    assert s.setup.set_targets == ("seat_advantage.max_points=2",)
    assert live.targets.settings["seat_advantage"]["max_points"] == 2
    assert [st.changes for st in s.states] == [{}]
    # a restart with the old options is refused, naming the command that resumes it
    with pytest.raises(SimkitError, match="simkit studio cauldron-master --players 3"):
        Session.open(_setup(budget=2_000), tmp_path / "s")
    assert Session.open(s.setup, tmp_path / "s").setup == s.setup


def test_the_full_report_and_a_play_log_from_the_page(tmp_path):
    s = Session.open(_setup(budget=2_000), tmp_path / "s")
    s.edit("supply.size.4", EDIT, EDIT)
    live = Live(s, load_targets(None, GAME))
    live.start()
    live.wait(timeout=600)
    with TestClient(make_app(live)) as client:
        assert client.get("/report").status_code == 404  # none yet
        r = client.post("/report", headers=HX)
        assert "open report.html" in r.text
        page = client.get("/report")
        assert page.status_code == 200 and "Balance scorecard" in page.text
        log = client.get("/play/3")
        assert log.status_code == 200
        assert log.text == actions.play_log(s, s.current, 3)
        assert client.get("/play/-1").text.startswith("Error: game index")
    live.cancel()
    manifest = json.loads((tmp_path / "s" / "current" / "manifest.json").read_text())
    assert manifest["config"]["overrides"] == [EDIT]
    assert manifest["games"] == live.latest.games


def test_the_command_says_what_is_wrong_in_one_line(tmp_path):
    import socket

    def said(*args: str) -> list[str]:
        r = CliRunner().invoke(main, ["studio", *args, "--no-browser"])
        assert r.exit_code != 0
        return r.output.strip().splitlines()

    wrong = said("cauldron-mastr")
    assert len(wrong) == 1
    assert wrong[0].startswith("Error: unknown game 'cauldron-mastr'; did you mean "
                               "'cauldron-master'?")
    assert said(GAME, "--budget", "0") == ["Error: --budget must be at least 1, not 0"]
    (tmp_path / "mine.txt").write_text("not simkit's")
    assert said(GAME, "--out", str(tmp_path)) == [
        f"Error: --out {tmp_path} is not empty and holds no simkit studio (mine.txt); "
        "choose another folder"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        lines = said(GAME, "--port", str(port))
    assert len(lines) == 1 and lines[0].startswith(f"Error: --port {port}: cannot listen")


def test_the_page_offers_the_skill_ladders_rungs_as_players():
    """Each rung of the game's ladder is offered as a player: its token alone puts that
    rung in every seat (the tuned planner's parameter file included)."""
    from simkit.games import get_game
    from simkit.ladders import load_ladder
    from simkit.studio.form import players_offered

    game = get_game("cauldron-master")
    offered = dict(players_offered(game))
    assert set(game.strategies()) <= set(offered)
    tuned = next(r for r in load_ladder("cauldron-master").rungs if "@" in r.strategy)
    assert offered[tuned.strategy] == f"rung: {tuned.name} players"
    assert tuned.strategy.endswith("cauldron_master_planner.toml")
