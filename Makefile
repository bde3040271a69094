# Two entry points: `make demo` (set up, simulate, write results) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/simkit: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(BIN)/simkit

demo: $(BIN)/simkit
	$(BIN)/simkit run cauldron-master --players 4 --strategies planner,greedy,random,greedy \
		--games 200000 --seed 2026 --out runs/demo
	@echo "Results: runs/demo/games.parquet (one row per game and seat), runs/demo/summary.csv"

test: $(BIN)/simkit
	$(BIN)/python -m pytest -q

lint: $(BIN)/simkit
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(BIN)/simkit
	$(BIN)/simkit bench

clean:
	rm -rf $(VENV) runs .pytest_cache
