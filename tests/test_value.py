"""simkit value: causal component value by intervention on the same deals.

The checks the method has to pass: a component made stronger comes first with an interval
above zero; two identical components come out alike; the A/A control and the value
intervals cover the truth about 95% of the time; results do not depend on chunks or
threads, and an interrupted run resumes to the same result; restricted play really keeps
the component from the seat; bad input is one clear line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from simkit import causal
from simkit import valuation as V
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.threads import using

GREEDY4 = ("greedy",) * 4


def plan(games=2000, seed=1, kinds=("Recipe card",), overrides=(), strategies=GREEDY4,
         game="cauldron-master", players=4, **kw):
    return V.plan(V.ValueSpec(game, players, strategies, games, seed, tuple(overrides),
                              kinds=tuple(kinds), **kw))


def toml_inline(x) -> str:
    """A value as a TOML inline value, for --set."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k} = {toml_inline(v)}" for k, v in x.items()) + "}"
    if isinstance(x, list):
        return "[" + ", ".join(toml_inline(v) for v in x) + "]"
    return json.dumps(x)


def row(table: pl.DataFrame, key: str) -> dict:
    return table.filter(pl.col("key") == key).row(0, named=True)


def test_a_stronger_recipe_card_comes_first_and_clear():
    # Venom Draught's bonuses 2 and 1 -> 12 and 10.
    sets = ["recipe_cards.venom_draught.recipes.0.bonus=12",
            "recipe_cards.venom_draught.recipes.1.bonus=10"]
    t = V.measure(plan(games=4000, overrides=sets))
    cards = t.filter(pl.col("kind") == "Recipe card").sort("vs_average", descending=True)
    top = cards.row(0, named=True)
    assert top["key"] == "venom_draught"
    assert top["vs_average_lo"] > 0 and top["value_lo"] > 0
    assert top["verdict"] == causal.STRONGER


def test_a_stronger_ingredient_comes_first_withheld_from_one_seat():
    t = V.measure(plan(games=3000, kinds=("Ingredient",),
                       overrides=["ingredients.crickets.scores=[10,25,40,60]"]))
    top = t.filter(~pl.col("a_a")).sort("vs_average", descending=True).row(0, named=True)
    assert top["key"] == "crickets" and top["vs_average_lo"] > 0


def test_a_witch_made_weaker_loses_its_lead():
    # As configured one witch is clearly the strongest for greedy players (the Herbalist,
    # since players break ties at random; the Mage when they took the first row); with
    # one card a turn it is clearly below average. (More cards is not always stronger:
    # picking is compulsory, so a witch that must take four cards can hurt its player.)
    before = V.measure(plan(games=3000, kinds=("Witch",)))
    top = before.filter(~pl.col("a_a")).sort("vs_average", descending=True).row(0, named=True)
    assert row(causal.verdicts(before, 0.0), top["key"])["verdict"] == causal.STRONGER
    witch = next(w for w in plan().base.config.data["witches"] if w["id"] == top["key"])
    after = V.measure(plan(games=3000, kinds=("Witch",), overrides=[
        f"witches.{witch['id']}.max_cards=1",
        *(f"witches.{witch['id']}.colour_limits.{c}=1" for c in witch["colour_limits"])]))
    # Clearly below the average, by less than the 2-point margin: "weaker" only when the
    # margin allows so small a gap (at margin 0, any clear difference).
    assert row(after, witch["id"])["vs_average_hi"] < 0
    assert row(after, witch["id"])["verdict"] in (causal.WEAKER, causal.AVERAGE,
                                                  causal.UNSURE)
    assert row(causal.verdicts(after, 0.0), witch["id"])["verdict"] == causal.WEAKER


def test_identical_components_come_out_alike():
    # Fae Philtre made a copy of Venom Draught: the two values agree within their noise.
    cards = {c["id"]: c for c in plan().base.config.data["recipe_cards"]}
    copy = toml_inline(cards["venom_draught"]["recipes"])
    t = V.measure(plan(games=6000, overrides=[f"recipe_cards.fae_philtre.recipes={copy}"]))
    a, b = row(t, "venom_draught"), row(t, "fae_philtre")
    # the two are estimated on different seats (independent), so their se's add
    assert abs(a["value"] - b["value"]) < 3 * math.hypot(a["value_se"], b["value_se"])


AA_CASES = {  # game -> (kind, one cheap component) for the A/A coverage check
    "cauldron-master": ("Recipe card", "swamp_stew"),
    "carnuta": ("Starting card", "start_clover"),
    "inori": ("Rune tile kind", "gain"),
}


@pytest.mark.parametrize("game", list(AA_CASES))
def test_a_a_row_covers_zero_at_the_nominal_rate(game):
    kind, key = AA_CASES[game]
    covered = 0
    runs = 100
    for seed in range(runs):
        p = plan(games=300, seed=1000 + seed, game=game, kinds=(kind,), components=(key,))
        aa = V.measure(p).filter(pl.col("a_a")).row(0, named=True)
        covered += aa["value_lo"] <= 0 <= aa["value_hi"]
    # 95% nominal; with 100 runs the binomial sd is 2.2 points: accept 88%..100%
    assert covered / runs >= 0.88, covered


def test_value_intervals_cover_the_truth():
    """Coverage by simulation: 100 runs of 800 games against a 100,000-game truth."""
    truth = V.measure(plan(games=100_000, seed=99, kinds=("Recipe card",)))
    truth = dict(zip(truth["key"], truth["value"], strict=True))
    hits = total = 0
    for seed in range(100):
        t = V.measure(plan(games=800, seed=seed, kinds=("Recipe card",)))
        for r in t.filter(~pl.col("a_a")).iter_rows(named=True):
            total += 1
            hits += r["value_lo"] <= truth[r["key"]] <= r["value_hi"]
    # 900 intervals; nominal 95% (sd 0.7 points). The Wilson-MOVER interval is a little
    # conservative for cards that change few games (measured 97% overall, 93-100% per
    # card); the plain normal interval covered 90% (78% for the rarest cards).
    assert 0.93 <= hits / total <= 0.99, hits / total


@pytest.mark.parametrize(("game", "players", "kind"), [
    (str(Path(__file__).resolve().parent.parent / "examples" / "pig"), 2, "Face"),
    ("cauldron-master", 4, "Ingredient"),  # restricted play: the kind that covered least
])
def test_each_kind_s_interval_covers_the_truth(game, players, kind):
    """A light version of `python -m simkit.value_coverage` (docs/value.md gives the
    full measurement per kind): 30 runs of 300 games against a 10,000-game truth."""
    from simkit.value_coverage import coverage

    r = coverage(game, players, ["greedy"], runs=30, games=300, truth_games=10_000,
                 kinds=(kind,)).row(0, named=True)
    # nominal 95%; Pig's 150 intervals (sd 1.8 points) and 360 ingredients (sd 1.1)
    assert r["kind"] == kind and 0.89 <= r["coverage"] <= 0.995, r


def test_nine_identical_cards_rarely_flag_any():
    """Multiplicity: with every recipe card the same (true differences 0), the share of
    runs that call any card stronger or weaker stays near the 5% FDR (= FWER here)."""
    cards = plan().base.config.data["recipe_cards"]
    same = toml_inline(cards[0]["recipes"])
    sets = [f"recipe_cards.{c['id']}.recipes={same}" for c in cards[1:]]
    flagged = 0
    runs = 40
    for seed in range(runs):
        t = V.measure(plan(games=400, seed=seed, overrides=sets))
        flagged += t["verdict"].is_in([causal.STRONGER, causal.WEAKER]).any()
    assert flagged / runs <= 0.15, flagged


def test_benjamini_hochberg_matches_the_textbook_rule():
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = rng.uniform(0, 0.2, rng.integers(1, 12))
        got = causal.bh(p)
        order = np.sort(p)
        m = len(p)
        ks = [k for k in range(1, m + 1) if order[k - 1] <= 0.05 * k / m]
        cut = order[max(ks) - 1] if ks else -1.0
        np.testing.assert_array_equal(got, p <= cut)


def test_same_result_any_chunk_size_or_threads():
    p = plan(games=1200, kinds=("Witch",))
    a = V.measure(p, chunk_size=1200)
    with using(1):
        b = V.measure(p, chunk_size=200)
    assert a.equals(b)


def test_restricted_play_keeps_the_component_from_that_seat():
    from simkit.games.cauldron_master.layout import EV_REVEAL, EV_TAKE

    p = plan(games=300, kinds=("Witch", "Ingredient"))
    game, lineup = p.base.game, p.base.lineup
    for iv, compiled in zip(p.interventions, p.variants, strict=True):
        if iv.seat is None:
            continue
        if iv.kind == "Ingredient":  # never taken by that seat; taken by others
            cols = game.simulate(compiled, lineup, 5, 0, 300)
            scored = np.asarray(cols[f"scored_{iv.key}"])
            assert (scored[:, iv.seat] == 0).all() and scored.sum() > 0, iv.key
            continue
        w = list(compiled.names.witch_ids).index(iv.key)
        played = took = 0
        for g in range(0, 300, 30):  # a blanked witch is played, and takes nothing
            ev = game.replay(compiled, lineup, 5, g).events
            rounds = {r for r, e, s, a, _, _ in ev if e == EV_REVEAL and s == iv.seat and a == w}
            played += len(rounds)
            took += sum(1 for r, e, s, *_ in ev if e == EV_TAKE and s == iv.seat and r in rounds)
        assert played > 0 and took == 0, iv.key


def test_run_resumes_after_an_interrupt(tmp_path, monkeypatch):
    p = plan(games=1600, kinds=("Recipe card",))
    whole = V.run(p, tmp_path / "whole", chunk_size=400)
    calls = {"n": 0}
    real = V.play_chunk

    def flaky(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(V, "play_chunk", flaky)
    with pytest.raises(KeyboardInterrupt):
        V.run(p, tmp_path / "cut", chunk_size=400)
    monkeypatch.setattr(V, "play_chunk", real)
    again = V.run(p, tmp_path / "cut", chunk_size=800)
    assert again["table"] == whole["table"] and again["games"] == 1600
    assert V.run(p, tmp_path / "cut").get("skipped")
    # value.json torn afterwards: one line saying what to do, and --force plays it again
    # (it gave the same error with --force: the folder was stuck).
    (tmp_path / "cut" / "value.json").write_text('{"kind": "val')
    with pytest.raises(SimkitError, match="cannot be read as JSON.*pass --force"):
        V.run(p, tmp_path / "cut")
    assert V.run(p, tmp_path / "cut", force=True)["table"] == whole["table"]


def test_precision_stops_early(tmp_path):
    p = plan(games=200_000, kinds=("Recipe card",), precision=0.05)
    out = V.run(p, tmp_path / "v")
    assert out["games"] < 200_000 and out["stopping"]["looks"] >= 1
    assert "within" in out["stopping"]["reason"]


def test_bad_input_is_one_line(tmp_path):
    with pytest.raises(SimkitError, match="no such component kind"):
        plan(kinds=("Dragon",))
    with pytest.raises(SimkitError, match="no such component"):
        plan(kinds=(), components=("unicorn_horn",))
    r = CliRunner().invoke(main, ["value", "cauldron-master", "--kind", "Dragon", "--out",
                                  str(tmp_path / "v")])
    assert r.exit_code == 1 and r.output.count("\n") == 1 and "Error:" in r.output
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    r = CliRunner().invoke(main, ["value", "cauldron-master", "--games", "40", "--kind",
                                  "Recipe card", "--out", str(tmp_path / "mine")])
    assert r.exit_code == 1 and "not empty" in r.output
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_cli_writes_the_report(tmp_path):
    out = tmp_path / "v"
    r = CliRunner().invoke(main, ["value", "cauldron-master", "--games", "400", "--kind",
                                  "Recipe card", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "A/A control" in r.output
    page = (out / "value.html").read_text()
    assert "Recipe cards" in page and "A/A control" in page and "Benjamini-Hochberg" in page
    data = json.loads((out / "value.json").read_text())
    assert data["games"] == 400 and len(data["table"]) == 10
    r = CliRunner().invoke(main, ["report", str(out)])
    assert r.exit_code == 0 and "value report" in r.output


# ---------------------------------------------------------------- Carnuta
def carnuta(games=1000, kinds=("Card",), overrides=(), **kw):
    return plan(games=games, kinds=kinds, overrides=overrides, game="carnuta", **kw)


def test_carnuta_a_stronger_card_comes_first_and_clear():
    # Clover 7 scores a flat 2 points; at 30 it is the card to take (one card of 64, so
    # many games never show it: its value is diluted by them, and still comes first).
    t = V.measure(carnuta(games=600, overrides=["cards.clover_7.points=30"]))
    top = t.filter(~pl.col("a_a")).sort("vs_average", descending=True).row(0, named=True)
    assert top["key"] == "clover_7" and top["vs_average_lo"] > 0
    assert top["verdict"] == causal.STRONGER


def test_carnuta_restricted_play_keeps_card_and_token_from_that_seat():
    p = carnuta(games=200, kinds=("Card", "Bonus token"), components=("clover_8", "skull"))
    for iv, compiled in zip(p.interventions, p.variants, strict=True):
        if iv.seat is None:
            continue
        cols = p.base.game.simulate(compiled, p.base.lineup, 3, 0, 200)
        column = f"card_{iv.key}" if iv.kind == "Card" else f"token_{iv.key}"
        got = np.asarray(cols[column])
        assert (got[:, iv.seat] == 0).all() and got.sum() > 0, (iv.kind, iv.key, iv.seat)


def test_carnuta_a_blank_starting_card_is_worth_nothing_to_a_blank_one():
    # A starting card already worth 0 points: blanking it changes nothing, exactly.
    t = V.measure(carnuta(games=400, kinds=("Starting card",),
                          overrides=["starting_cards.start_egg.points=0"]))
    r = row(t, "start_egg")
    assert r["value"] == 0 and r["score"] == 0 and r["players"] > 0


# ---------------------------------------------------------------- Inori
def inori(games=300, kinds=("Great Tree space",), overrides=(), **kw):
    return plan(games=games, kinds=kinds, overrides=overrides, game="inori", **kw)


def test_inori_a_stronger_tree_space_comes_first_and_clear():
    # The altar worth 5 points, at 20 points.
    t = V.measure(inori(games=400, overrides=["tree.altar_points.amount=20"]))
    top = t.filter(~pl.col("a_a")).sort("vs_average", descending=True).row(0, named=True)
    assert top["key"] == "altar_points" and top["vs_average_lo"] > 0
    assert top["verdict"] == causal.STRONGER


def test_inori_restricted_play_keeps_card_space_rune_and_colour_from_that_seat():
    p = inori(games=200, kinds=("Journey card", "Great Tree space", "Rune tile kind",
                                "Colour"),
              components=("yellow_1", "altar_points", "gain", "purple"))
    column = {"Journey card": "card_{}", "Great Tree space": "tree_{}",
              "Rune tile kind": "rune_{}", "Colour": "tokens_{}"}
    for iv, compiled in zip(p.interventions, p.variants, strict=True):
        if iv.seat is None:
            continue
        cols = p.base.game.simulate(compiled, p.base.lineup, 3, 0, 200)
        got = np.asarray(cols[column[iv.kind].format(iv.key)])
        assert (got[:, iv.seat] == 0).all() and got.sum() > 0, (iv.kind, iv.key, iv.seat)


def test_a_run_folder_holding_its_value_run_reports_causal_worth(tmp_path):
    run = tmp_path / "run"
    args = ["--players", "4", "--strategies", "greedy", "--games", "400", "--seed", "3"]
    r = CliRunner().invoke(main, ["run", "cauldron-master", *args, "--out", str(run)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["value", "cauldron-master", *args, "--kind", "Witch",
                                  "--out", str(run / "value")])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["report", str(run)])
    assert r.exit_code == 0, r.output
    page = (run / "report.html").read_text()
    assert "Witches: what each is worth" in page
    assert "Largest witch effect (causal)" in page  # per kind, not ranked across kinds
    assert "judged by their causal worth" in page  # the scorecard judged the witches causally
    # a value run of another lineup is not used, and the report says so
    other = tmp_path / "other"
    r = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "4", "--strategies",
                                  "random", "--games", "400", "--seed", "3", "--out",
                                  str(other)])
    (run / "value").rename(other / "value")
    r = CliRunner().invoke(main, ["report", str(other)])
    page = (other / "report.html").read_text()
    assert "Witches: what each is worth" not in page and "not used" in page


def test_workers_give_the_same_result(tmp_path):
    p = plan(games=800, kinds=("Recipe card",))
    here = V.run(p, tmp_path / "here", chunk_size=400)
    there = V.run(p, tmp_path / "there", chunk_size=400, workers=2)
    assert here["table"] == there["table"] and there["games"] == 800


def test_an_intervention_that_makes_the_game_unplayable_is_one_line(monkeypatch):
    from simkit.games.cauldron_master import interventions as cm_interventions
    from simkit.interventions import Intervention, dealt

    def broken(config, compiled, players):
        return [Intervention("Recipe card", "venom_draught", "Venom Draught",
                             ("recipe_cards.venom_draught.recipes=[]",), dealt("recipe_card", 0))]

    monkeypatch.setattr(cm_interventions, "interventions", broken)
    with pytest.raises(SimkitError, match="cannot be played with this component neutralised"):
        plan(kinds=())


@pytest.mark.parametrize("game,kind,a,b,sets", [
    ("carnuta", "Card", "clover_1", "clover_2",
     ['cards.clover_2.cost=["sun_flip"]', 'cards.clover_2.score="own"',
      "cards.clover_2.ingredients=[]", "cards.clover_2.points=1"]),
    ("inori", "Great Tree space", "root_1", "root_2", ['tree.root_2.tokens=["yellow", "red"]']),
])
def test_identical_components_come_out_alike_in_every_game(game, kind, a, b, sets):
    t = V.measure(plan(games=600, game=game, kinds=(kind,), components=(a, b),
                       overrides=sets))
    ra, rb = row(t, a), row(t, b)
    assert abs(ra["value"] - rb["value"]) < 3 * math.hypot(ra["value_se"], rb["value_se"])


def test_value_of_a_run_folder_plays_its_lineup_into_it_and_joins_its_report(tmp_path):
    run = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", "cauldron-master", "--players", "3", "--strategies",
                                  "greedy,random,greedy", "--games", "300", "--seed", "5", "--set",
                                  "supply.size.3=9", "--out", str(run), "--report"])
    assert r.exit_code == 0, r.output
    assert "Witches: what each is worth" not in (run / "report.html").read_text()
    r = CliRunner().invoke(main, ["value", str(run), "--games", "300", "--kind", "Witch"])
    assert r.exit_code == 0, r.output
    manifest = json.loads((run / "manifest.json").read_text())
    value = json.loads((run / "value" / "value.json").read_text())
    assert [s["name"] for s in value["strategies"]] == [s["name"] for s in
                                                        manifest["strategies"]]
    assert (value["seed"], value["players"], value["config"]["hash"]) == (
        5, 3, manifest["config"]["hash"])
    # the run's report was written again, judging the witches by what they make you win
    assert "Witches: what each is worth" in (run / "report.html").read_text()
    r = CliRunner().invoke(main, ["value", str(run), "--seed", "2"])
    assert r.exit_code == 1 and r.output.count("\n") == 1 and "drop --seed" in r.output
