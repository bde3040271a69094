# Two entry points: `make demo` (set up, simulate, write results) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean chromium

# pip's and setuptools' chatter goes to .venv/pip.log, shown only if the install fails.
$(BIN)/simkit: pyproject.toml
	@echo "Installing simkit and its dependencies into $(VENV): a minute or two the first time (log: $(VENV)/pip.log)..."
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip > $(VENV)/pip.log 2>&1 \
		|| { cat $(VENV)/pip.log; exit 1; }
	@$(BIN)/python -m pip install --quiet -e . --group dev >> $(VENV)/pip.log 2>&1 \
		|| { cat $(VENV)/pip.log; exit 1; }
	@touch $(BIN)/simkit

# Every balance verdict of Cauldron Master at every skill level of its ladder
# (docs/ladder.md), random players to the search player: 20,000 games a field, the
# rollout rung's 4,000 and the search rung's 1,000 (configs/ladders.toml); the search
# rung is about half of its CPU. `--up-to RUNG` stops lower.
demo: $(BIN)/simkit
	$(BIN)/simkit ladder cauldron-master --players 4 --games 20000 --seed 2026 --out runs/demo
	@echo "Report: open runs/demo/report.html in a browser (text: runs/demo/summary.md)"
	@echo "Each field is a run folder, e.g. runs/demo/field_4_rollout/games.parquet"

# Two test processes: most of a first test run is numba compiling kernels, one core each.
test: $(BIN)/simkit chromium
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# The report tests open report.html in headless Chromium: install Debian's package when
# it is missing and we may (root with apt-get); otherwise those tests say what is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
		|| echo "note: chromium is not installed; the report's browser test will fail"

lint: $(BIN)/simkit
	$(BIN)/ruff check .

bench: $(BIN)/simkit
	$(BIN)/simkit bench

clean:
	rm -rf $(VENV) runs .pytest_cache
