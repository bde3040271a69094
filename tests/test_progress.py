"""Progress lines: the rate and time left count from the first update (not a first run's
compile, nor a resumed run's earlier games)."""

from __future__ import annotations

import io

from simkit import progress


def test_the_rate_starts_at_the_first_update(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    bar = progress.Progress(10_000, "cm", stream=out)
    now[0] += 60.0  # a minute of compiling
    bar.update(1_000)  # the first slice (or a resumed run's games already done)
    assert "games/s" not in bar.line()  # nothing to measure a rate on yet
    now[0] += 2.0
    bar.update(2_000)
    assert bar.line() == "cm: 3,000/10,000 games (30%), 1,000 games/s, 7 s left"
    now[0] += 7.0
    bar.update(7_000)
    bar.close()
    assert out.getvalue().splitlines()[-1] == "cm: 10,000/10,000 games in 1 min 09 s, 145 games/s"


def test_the_compile_check_asks_once_per_kernel_variant():
    """A sweep's many points need at most two compiled variants: each is checked once, and
    the message names the variant that compiles."""
    say_if_compiling = progress.say_if_compiling

    class Game:
        title = "Toy"
        asked: list = []

        def lookahead(self, lineup):
            return True if lineup == "rollout" else None

        def needs_compile(self, lineup=None):
            self.asked.append(lineup)
            return lineup == "rollout"

    game, out = Game(), io.StringIO()
    say_if_compiling(game, ["greedy"] * 100, out)
    assert game.asked == ["greedy"] and out.getvalue() == ""
    say_if_compiling(game, ["greedy"] * 50 + ["rollout"] * 50, out)
    assert game.asked[1:] == ["greedy", "rollout"]
    assert "Compiling the Toy kernel for lookahead players (first such run" in out.getvalue()
    say_if_compiling(game, (), out)
    assert game.asked[-1] is None
    game.needs_compile = lambda lineup=None: True  # nothing cached yet
    out = io.StringIO()
    say_if_compiling(game, ["greedy", "rollout"], out)
    assert "Compiling the Toy kernel (first run only;" in out.getvalue()


def test_a_summary_only_run_says_when_its_totals_compile(monkeypatch, tmp_path):
    """The reductions' first compile (about half a minute) is said, from what is cached."""
    import simkit.jitcache
    import simkit.summing

    monkeypatch.setattr(simkit.jitcache, "numba_caches", lambda folder: [tmp_path])
    out = io.StringIO()
    assert progress.say_if_compiling_totals(out)  # nothing cached
    assert out.getvalue().startswith("Compiling the summary's totals (first summary-only run")
    for stem in simkit.summing.REDUCTION_MODULES[:-1]:
        (tmp_path / f"{stem}.cluster_totals-300.py311.nbi").touch()
    assert progress.say_if_compiling_totals(io.StringIO())  # one module still missing
    (tmp_path / f"{simkit.summing.REDUCTION_MODULES[-1]}.f-1.py311.nbi").touch()
    out = io.StringIO()
    assert not progress.say_if_compiling_totals(out) and out.getvalue() == ""


def test_a_resumed_bar_counts_the_earlier_games_but_not_in_its_rate(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    bar = progress.Progress(10_000, "cm", stream=out, done=6_000)  # 6,000 played before
    assert out.getvalue().splitlines()[0] == "cm: 6,000/10,000 games (60%)"  # no rate yet
    now[0] += 1.0
    bar.update(1_000)
    now[0] += 1.0
    bar.update(3_000)
    bar.close()
    assert out.getvalue().splitlines()[-1] == "cm: 10,000/10,000 games in 2 s, 2,000 games/s"


def test_an_empty_first_update_does_not_start_the_rate(monkeypatch):
    """`simkit value` reports the games already saved (0 on a fresh run) before its first
    compile: a rate started there showed '595 h left'."""
    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    bar = progress.Progress(10_000, "cm", stream=io.StringIO())
    bar.update(0)
    now[0] += 60.0  # compiling
    bar.update(1_000)
    assert "games/s" not in bar.line()
    now[0] += 1.0
    bar.update(1_000)
    assert bar.line() == "cm: 2,000/10,000 games (20%), 1,000 games/s, 8 s left"


def test_make_test_says_each_kernel_as_it_compiles(monkeypatch):
    """The test session's kernel warm-up (tests/conftest.py) names each kernel when it is
    ready, with the count and the time so far, rather than one line for minutes."""
    from tests import conftest

    monkeypatch.setattr(conftest, "WARM_JOBS", (["cauldron-master"], ["carnuta"]))
    monkeypatch.setattr(conftest, "WARM_SECONDS", {"cauldron-master": 1, "carnuta": 1})
    said: list[str] = []
    took = conftest.warm_kernels(said.append)
    done = [line for line in said if line.strip().startswith("compiled ")]
    assert sorted(line.split()[1] for line in done) == ["carnuta", "cauldron-master"]
    assert "(2 of 2 kernels," in done[-1] and took > 0
