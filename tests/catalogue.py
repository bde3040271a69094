"""A catalogue of bad inputs for the reliability suite: (id, args builder, expected text).

Each entry is built against a scratch folder `t` holding the fixtures of `make_fixtures`;
every one must end in exactly one `Error:` line that contains the expected text (the
file, key or value at fault), with no traceback and nothing written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

CM = "cauldron-master"


def make_fixtures(t: Path, finished_run: Path) -> None:
    """Scratch files the catalogue points at. `finished_run` is a small finished run."""
    (t / "dir.toml").mkdir()
    (t / "latin1.toml").write_bytes(b'x = "\xff"\n')
    (t / "broken.toml").write_text("[game\n")
    (t / "array.toml").write_text("game = [1, 2]\n")
    (t / "empty.toml").write_text("")
    (t / "file").write_text("not a folder")
    (t / "notes").mkdir()
    (t / "notes" / "mine.txt").write_text("the user's own file")
    (t / "nonrun").mkdir()
    (t / "nonrun" / "data.csv").write_text("a,b\n1,2\n")
    (t / "plugin_raises.py").write_text(
        "def choose(opts, n, pub, params, state):\n    raise ValueError('no strategy here')\n")
    (t / "plugin_args.py").write_text("def choose(options):\n    return 0\n")
    (t / "plugin_syntax.py").write_text("def choose(:\n")
    (t / "plugin.txt").write_text("not python")
    (t / "sweep_bad.toml").write_text("[sweep\n")
    (t / "sweep_empty.toml").write_text("")
    (t / "sweep_novary.toml").write_text('game = "cauldron-master"\n')
    (t / "sweep_badkey.toml").write_text(
        'game = "cauldron-master"\n[vary]\n"nope.key" = [1, 2]\n')
    (t / "sweep_latin1.toml").write_bytes(b'game = "\xff"\n')
    (t / "targets_bad.toml").write_text("[seat_advantage\n")
    (t / "params_bad.toml").write_text("discount = 'high'\n")
    (t / "params_unknown.toml").write_text("nope = 1\n")
    for name, change in MANIFEST_DAMAGE.items():
        run = t / f"run_{name}"
        shutil.copytree(finished_run, run)
        path = run / "manifest.json"
        if change is None:
            path.write_text("{not json")
            continue
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    broken = t / "sweep_corrupt"
    broken.mkdir()
    (broken / "sweep.json").write_text("{half")
    linked = t / "run_linked_tables"
    shutil.copytree(finished_run, linked)
    (t / "elsewhere").mkdir()
    (t / "elsewhere" / "keep.csv").write_text("x\n1\n")
    shutil.rmtree(linked / "report_tables", ignore_errors=True)
    (linked / "report_tables").symlink_to(t / "elsewhere")
    value = t / "value_corrupt"
    value.mkdir()
    (value / "value.json").write_text("[1, 2]")
    tour = t / "tour_corrupt"
    tour.mkdir()
    (tour / "tournament.progress.json").write_text("{")


def _set(key: str, value: object):
    def change(d: dict) -> None:
        d[key] = value
    return change


def _del(key: str):
    def change(d: dict) -> None:
        d.pop(key, None)
    return change


MANIFEST_DAMAGE = {
    "corrupt": None,
    "game_number": _set("game", 7),
    "game_other": _set("game", "inori"),
    "players_text": _set("players", "four"),
    "players_zero": _set("players", 0),
    "strategies_number": _set("strategies", 5),
    "strategies_short": _set("strategies", [{"seat": 0, "name": "greedy"}]),
    "games_text": _set("games", "many"),
    "games_wrong": _set("games", 12345),
    "seed_text": _set("seed", "x"),
    "config_text": _set("config", "cfg"),
    "no_game": _del("game"),
    "no_players": _del("players"),
    "ok": lambda d: None,  # an intact copy
}


def _tune(*extra: str) -> list[str]:
    return ["tune", CM, "--against", "greedy,greedy,greedy", *extra]


def _run(*extra: str) -> list[str]:
    return ["run", CM, "--games", "10", *extra]


# (id, arguments with {t} for the scratch folder, text the one Error: line must contain)
CATALOGUE: list[tuple[str, list[str], str]] = [
    # ---- run: the lineup
    ("run-unknown-game", ["run", "chess", "--out", "{t}/o"], "unknown game 'chess'"),
    ("run-players-5", _run("--players", "5", "--out", "{t}/o"), "not 5"),
    ("run-players-0", _run("--players", "0", "--out", "{t}/o"), "not 0"),
    ("run-players-neg", _run("--players", "-2", "--out", "{t}/o"), "not -2"),
    ("run-two-strategies", _run("--strategies", "greedy,random", "--out", "{t}/o"),
     "lists 2 strategies for 4 players"),
    ("run-unknown-strategy", _run("--strategies", "wizard", "--out", "{t}/o"),
     "unknown strategy 'wizard'"),
    ("run-empty-strategies", _run("--strategies", ",", "--out", "{t}/o"), "--strategies"),
    ("run-plugin-missing", _run("--strategies", "{t}/missing.py:choose", "--out", "{t}/o"),
     "missing.py"),
    ("run-plugin-not-python", _run("--strategies", "{t}/plugin.txt:choose", "--out", "{t}/o"),
     "plugin.txt"),
    ("run-plugin-syntax", _run("--strategies", "{t}/plugin_syntax.py:choose", "--out",
                               "{t}/o"), "plugin_syntax.py"),
    ("run-plugin-only-raises", _run("--strategies", "{t}/plugin_raises.py:choose", "--out",
                                    "{t}/o"), "never returns an option row"),
    ("run-plugin-one-argument", _run("--strategies", "{t}/plugin_args.py:choose", "--out",
                                     "{t}/o"), "a strategy takes 5"),
    ("run-plugin-no-function", _run("--strategies", "{t}/plugin_raises.py:nothing", "--out",
                                    "{t}/o"), "nothing"),
    # ---- run: numbers
    ("run-games-0", _run("--games", "0", "--out", "{t}/o"), "--games must be between 1 and"),
    ("run-games-neg", _run("--games", "-5", "--out", "{t}/o"), "--games must be between"),
    ("run-games-huge", _run("--games", str(10**30), "--out", "{t}/o"), "--games must be"),
    ("run-games-text", _run("--games", "many", "--out", "{t}/o"), "--games"),
    ("run-seed-neg", _run("--seed", "-1", "--out", "{t}/o"), "--seed must be between"),
    ("run-seed-huge", _run("--seed", str(2**64), "--out", "{t}/o"), "--seed must be between"),
    ("run-chunk-0", _run("--chunk-size", "0", "--out", "{t}/o"), "--chunk-size must be"),
    ("run-chunk-neg", _run("--chunk-size", "-3", "--out", "{t}/o"), "--chunk-size must be"),
    ("run-threads-0", _run("--threads", "0", "--out", "{t}/o"), "--threads must be between"),
    ("run-threads-99", _run("--threads", "99", "--out", "{t}/o"), "--threads must be between"),
    ("run-workers-0", _run("--workers", "0", "--out", "{t}/o"), "--workers must be at least"),
    ("run-precision-alone", _run("--precision", "0.01", "--out", "{t}/o"),
     "--precision only applies with --until-sure"),
    ("run-precision-neg", _run("--until-sure", "--precision", "-1", "--out", "{t}/o"),
     "--precision"),
    ("run-precision-zero", _run("--until-sure", "--precision", "0", "--out", "{t}/o"),
     "--precision"),
    ("run-precision-nan", _run("--until-sure", "--precision", "nan", "--out", "{t}/o"),
     "--precision"),
    ("run-stronger-alone", _run("--stronger", "{t}/nonrun", "--out", "{t}/o"),
     "--stronger only applies with --report"),
    ("run-scheduler-garbage", _run("--scheduler", "garbage", "--out", "{t}/o"), "--scheduler"),
    # ---- run: --set
    ("set-unknown-key", _run("--set", "options.nope=1", "--out", "{t}/o"),
     "options.nope = 1: unknown key"),
    ("set-not-int", _run("--set", "options.max_rounds=many", "--out", "{t}/o"),
     "expected a value of type int"),
    ("set-out-of-range", _run("--set", "supply.size.4=0", "--out", "{t}/o"),
     "supply.size.4 = 0: must be between"),
    ("set-huge", _run("--set", "supply.size.4=1000", "--out", "{t}/o"),
     "supply.size.4 = 1000"),
    ("set-unknown-id", _run("--set", "witches.wizard.initiative=1", "--out", "{t}/o"),
     "'witches' has no entry 'wizard'"),
    ("set-no-equals", _run("--set", "nonsense", "--out", "{t}/o"), "expected KEY=VALUE"),
    ("set-empty-key", _run("--set", "=3", "--out", "{t}/o"), "--set"),
    ("set-superscript", _run("--set", "ingredients.\u00b2.scores=[1]", "--out", "{t}/o"),
     "ingredients.\u00b2"),
    ("set-bad-list", _run("--set", "ingredients.bats_heart.scores=[1,", "--out", "{t}/o"),
     "ingredients.bats_heart.scores"),
    ("set-list-for-int", _run("--set", "supply.size.4=[1,2]", "--out", "{t}/o"),
     "supply.size.4"),
    ("set-bool-for-int", _run("--set", "supply.size.4=true", "--out", "{t}/o"),
     "supply.size.4"),
    ("set-text-colour", _run("--set", "ingredients.bats_heart.colour=purple", "--out",
                             "{t}/o"), "purple"),
    ("set-rule-option-value", _run("--set", "options.recipe_choice=worst", "--out", "{t}/o"),
     "options.recipe_choice = 'worst': must be one of: best, player"),
    ("set-negative-copies", _run("--set", "ingredients.bats_heart.copies=-3", "--out",
                                 "{t}/o"), "copies"),
    ("set-float-for-int", _run("--set", "supply.size.4=2.5", "--out", "{t}/o"),
     "supply.size.4"),
    ("set-inf", _run("--set", "supply.size.4=inf", "--out", "{t}/o"), "supply.size.4"),
    ("set-deep-unknown", _run("--set", "a.b.c.d.e=1", "--out", "{t}/o"), "unknown key"),
    # ---- run: --param
    ("param-out-of-range", _run("--param", "greedy.points_weight=-1", "--out", "{t}/o"),
     "out of range"),
    ("param-no-dot", _run("--param", "discount=0.5", "--out", "{t}/o"),
     "expected STRATEGY.PARAM=VALUE"),
    ("param-not-number", _run("--param", "greedy.points_weight=lots", "--out", "{t}/o"),
     "is not a number"),
    ("param-nan", _run("--param", "greedy.points_weight=nan", "--out", "{t}/o"),
     "not a finite number"),
    ("param-not-playing", _run("--param", "planner.discount=0.5", "--out", "{t}/o"),
     "not playing"),
    ("param-unknown", _run("--param", "greedy.nope=1", "--out", "{t}/o"), "nope"),
    ("param-file-missing", _run("--strategies", "greedy@{t}/none.toml", "--out", "{t}/o"),
     "none.toml"),
    ("param-file-bad-value", _run("--strategies", "planner@{t}/params_bad.toml", "--out",
                                  "{t}/o"), "params_bad.toml"),
    ("param-file-unknown", _run("--strategies", "planner@{t}/params_unknown.toml", "--out",
                                "{t}/o"), "params_unknown.toml"),
    # ---- run: --config and --targets files
    ("config-missing", _run("--config", "{t}/none.toml", "--out", "{t}/o"), "none.toml"),
    ("config-directory", _run("--config", "{t}/dir.toml", "--out", "{t}/o"), "dir.toml"),
    ("config-latin1", _run("--config", "{t}/latin1.toml", "--out", "{t}/o"), "not UTF-8"),
    ("config-broken", _run("--config", "{t}/broken.toml", "--out", "{t}/o"), "not valid TOML"),
    ("config-array", _run("--config", "{t}/array.toml", "--out", "{t}/o"), "array.toml"),
    ("config-empty", _run("--config", "{t}/empty.toml", "--out", "{t}/o"), "empty.toml"),
    ("targets-missing", _run("--until-sure", "--targets", "{t}/none.toml", "--out", "{t}/o"),
     "none.toml"),
    ("targets-broken", _run("--until-sure", "--targets", "{t}/targets_bad.toml", "--out",
                            "{t}/o"), "targets_bad.toml"),
    ("set-target-unknown", _run("--until-sure", "--set-target", "nope.max=1", "--out",
                                "{t}/o"), "nope"),
    ("set-target-no-equals", _run("--until-sure", "--set-target", "seat_advantage", "--out",
                                  "{t}/o"), "seat_advantage"),
    ("set-target-text", _run("--until-sure", "--set-target",
                             "seat_advantage.max_points=lots", "--out", "{t}/o"), "lots"),
    # ---- run: the output folder
    ("out-is-file", _run("--out", "{t}/file"), "exists and is not a folder"),
    ("out-under-file", _run("--out", "{t}/file/run"), "file"),
    ("out-not-simkit", _run("--out", "{t}/notes"), "holds no simkit run"),
    ("out-not-simkit-force", _run("--out", "{t}/notes", "--force"), "holds no simkit run"),
    ("out-corrupt-manifest", _run("--out", "{t}/run_corrupt"), "cannot be read as JSON"),
    ("out-other-run", _run("--out", "{t}/run_games_wrong"), "already holds a different run"),
    ("out-sweep-folder", _run("--out", "{t}/sweep_corrupt"), "sweep_corrupt"),
    ("out-linked-tables-force", _run("--players", "3", "--out", "{t}/run_linked_tables",
                                     "--force"), "symbolic link"),
    # ---- report
    ("report-missing", ["report", "{t}/none"], "none"),
    ("report-not-a-run", ["report", "{t}/notes"], "notes"),
    ("report-a-file", ["report", "{t}/file"], "file"),
    ("report-corrupt-manifest", ["report", "{t}/run_corrupt"], "manifest.json"),
    ("report-game-number", ["report", "{t}/run_game_number"], "game"),
    ("report-game-other", ["report", "{t}/run_game_other"], "Inori"),
    ("report-players-text", ["report", "{t}/run_players_text"], "players"),
    ("report-players-zero", ["report", "{t}/run_players_zero"], "players"),
    ("report-strategies-number", ["report", "{t}/run_strategies_number"], "strategies"),
    ("report-strategies-short", ["report", "{t}/run_strategies_short"], "strateg"),
    ("report-games-text", ["report", "{t}/run_games_text"], "games"),
    ("report-games-wrong", ["report", "{t}/run_games_wrong"], "games = 12345"),
    ("report-seed-text", ["report", "{t}/run_seed_text"], "seed"),
    ("report-config-text", ["report", "{t}/run_config_text"], "config"),
    ("report-no-game", ["report", "{t}/run_no_game"], "game"),
    ("report-no-players", ["report", "{t}/run_no_players"], "players"),
    ("report-linked-tables", ["report", "{t}/run_linked_tables"], "symbolic link"),
    ("report-out-not-simkit", ["report", "{t}/run_ok", "--out", "{t}/nonrun"],
     "holds no simkit report"),
    ("report-out-file", ["report", "{t}/run_ok", "--out", "{t}/file"], "not a folder"),
    ("report-targets-missing", ["report", "{t}/run_ok", "--targets", "{t}/none.toml"],
     "none.toml"),
    ("report-targets-broken", ["report", "{t}/run_ok", "--targets", "{t}/targets_bad.toml"],
     "targets_bad.toml"),
    ("report-set-target-unknown", ["report", "{t}/run_ok", "--set-target", "nope.max=1"],
     "nope"),
    ("report-stronger-not-run", ["report", "{t}/run_ok", "--stronger", "{t}/notes"],
     "notes"),
    ("report-value-corrupt", ["report", "{t}/value_corrupt"], "value.json"),
    # ---- sweep
    ("sweep-spec-missing", ["sweep", "{t}/none.toml", "--out", "{t}/s"], "none.toml"),
    ("sweep-spec-directory", ["sweep", "{t}/dir.toml", "--out", "{t}/s"], "dir.toml"),
    ("sweep-spec-broken", ["sweep", "{t}/sweep_bad.toml", "--out", "{t}/s"], "sweep_bad.toml"),
    ("sweep-spec-empty", ["sweep", "{t}/sweep_empty.toml", "--out", "{t}/s"],
     "sweep_empty.toml"),
    ("sweep-spec-novary", ["sweep", "{t}/sweep_novary.toml", "--out", "{t}/s"], "vary"),
    ("sweep-spec-badkey", ["sweep", "{t}/sweep_badkey.toml", "--out", "{t}/s"], "nope.key"),
    ("sweep-spec-latin1", ["sweep", "{t}/sweep_latin1.toml", "--out", "{t}/s"],
     "sweep_latin1.toml"),
    ("sweep-no-vary", ["sweep", CM, "--games", "10", "--out", "{t}/s"], "--vary"),
    ("sweep-vary-no-equals", ["sweep", CM, "--vary", "supply.size.4", "--games", "10", "--out",
                              "{t}/s"], "supply.size.4"),
    ("sweep-vary-unknown", ["sweep", CM, "--vary", "nope.x=1,2", "--games", "10", "--out",
                            "{t}/s"], "nope.x"),
    ("sweep-vary-bad-value", ["sweep", CM, "--vary", "supply.size.4=a,b", "--games", "10",
                              "--out", "{t}/s"], "supply.size.4"),
    ("sweep-vary-bad-range", ["sweep", CM, "--vary", "supply.size.4=9..", "--games", "10",
                              "--out", "{t}/s"], "supply.size.4"),
    ("sweep-corrupt-record", ["sweep", CM, "--vary", "supply.size.4=9,10", "--games", "10",
                              "--out", "{t}/sweep_corrupt"], "sweep.json"),
    ("sweep-out-not-simkit", ["sweep", CM, "--vary", "supply.size.4=9,10", "--games", "10",
                              "--out", "{t}/notes"], "holds no simkit sweep"),
    ("sweep-out-is-file", ["sweep", CM, "--vary", "supply.size.4=9,10", "--games", "10",
                           "--out", "{t}/file"], "not a folder"),
    ("sweep-games-0", ["sweep", CM, "--vary", "supply.size.4=9,10", "--games", "0", "--out",
                       "{t}/s"], "--games"),
    # ---- tournament
    ("tour-one-strategy", ["tournament", CM, "--strategies", "greedy", "--out", "{t}/tt"],
     "at least 2"),
    ("tour-unknown-strategy", ["tournament", CM, "--strategies", "greedy,wizard", "--out",
                               "{t}/tt"], "wizard"),
    ("tour-games-0", ["tournament", CM, "--strategies", "greedy,random", "--games", "0",
                      "--out", "{t}/tt"], "--games"),
    ("tour-chunk-0", ["tournament", CM, "--strategies", "greedy,random", "--chunk-size", "0",
                      "--out", "{t}/tt"], "--chunk-size"),
    ("tour-players-9", ["tournament", CM, "--strategies", "greedy,random", "--players", "9",
                        "--out", "{t}/tt"], "9"),
    ("tour-out-not-simkit", ["tournament", CM, "--strategies", "greedy,random", "--games",
                             "10", "--out", "{t}/notes"], "holds no simkit tournament"),
    ("tour-out-not-simkit-force", ["tournament", CM, "--strategies", "greedy,random",
                                   "--games", "10", "--out", "{t}/notes", "--force"],
     "holds no simkit tournament"),
    # ---- value
    ("value-unknown-kind", ["value", CM, "--kind", "Dragon", "--games", "10", "--out",
                            "{t}/v"], "Dragon"),
    ("value-unknown-component", ["value", CM, "--component", "nope", "--games", "10", "--out",
                                 "{t}/v"], "nope"),
    ("value-games-0", ["value", CM, "--games", "0", "--out", "{t}/v"], "--games"),
    ("value-precision-neg", ["value", CM, "--precision", "-0.1", "--games", "10", "--out",
                             "{t}/v"], "--precision"),
    ("value-chunk-0", ["value", CM, "--chunk-size", "0", "--games", "10", "--out", "{t}/v"],
     "--chunk-size"),
    ("value-out-not-simkit", ["value", CM, "--games", "10", "--out", "{t}/notes"],
     "holds no simkit value"),
    ("value-out-corrupt", ["value", CM, "--games", "10", "--out", "{t}/value_corrupt"],
     "value.json"),
    # ---- tune
    ("tune-unknown-strategy", _tune("--strategy", "wizard", "--budget", "100", "--out",
                               "{t}/p.toml"), "wizard"),
    ("tune-budget-0", _tune("--strategy", "planner", "--budget", "0", "--out",
                       "{t}/p.toml"), "--budget"),
    ("tune-out-exists", _tune("--strategy", "planner", "--budget", "1000", "--out",
                         "{t}/file"), "already exists"),
    ("tune-force-not-simkit", _tune("--strategy", "planner", "--budget", "1000", "--out",
                                    "{t}/file", "--force"), "not a parameter file simkit"),
    ("tune-out-dir", _tune("--strategy", "planner", "--budget", "1000", "--out",
                      "{t}/notes"), "notes"),
    ("tune-no-params", _tune("--strategy", "random", "--budget", "100", "--out",
                        "{t}/p.toml"), "random"),
    # ---- play, show, compare, strategies
    ("play-index-huge", ["play", CM, "--game-index", str(10**20)], "--game-index"),
    ("play-index-neg", ["play", CM, "--game-index", "-1"], "--game-index"),
    ("play-unknown-game", ["play", "chess"], "chess"),
    ("play-bad-strategy", ["play", CM, "--strategies", "wizard"], "wizard"),
    ("play-seed-neg", ["play", CM, "--seed", "-4"], "--seed"),
    ("show-unknown-game", ["show", "chess"], "chess"),
    ("show-bad-set", ["show", CM, "--set", "options.nope=1"], "options.nope"),
    ("strategies-unknown-game", ["strategies", "chess"], "unknown game"),
    ("compare-missing", ["compare", "{t}/none", "{t}/run_ok"], "none"),
    ("compare-not-runs", ["compare", "{t}/notes", "{t}/nonrun"], "notes"),
    ("compare-components-neg", ["compare", "{t}/run_ok", "{t}/run_ok", "--components",
                                "-1"], "--components must be 0 or more"),
    ("compare-other-game", ["compare", "{t}/run_ok", "{t}/run_game_other"], "inori"),
    ("compare-out-file", ["compare", "{t}/run_ok", "{t}/run_ok", "--out", "{t}/file"],
     "file"),
    ("compare-out-not-simkit", ["compare", "{t}/run_ok", "{t}/run_ok", "--out", "{t}/notes"],
     "holds no simkit compare"),
    ("bench-games-0", ["bench", "--games", "0"], "--games"),
    ("bench-repeats-0", ["bench", "--repeats", "0"], "--repeats"),
]
