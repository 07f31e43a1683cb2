# Every target sets up what it needs: a .venv with the project and its extras.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: test lint typecheck pytest demo bench golden clean proto

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,embedded]'
	touch $@

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,embedded,bench]'
	touch $@

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy referee arena worker bots

pytest: $(STAMP)
	$(BIN)/pytest -n 2 -q

demo: $(STAMP)
	$(BIN)/arena demo

bench: $(BENCH_STAMP)
	$(BIN)/arena bench engine --game hollywood-gin
	$(BIN)/arena bench engine --game gin-three
	$(BIN)/arena bench engine --game rummy-500 --players 4
	$(BIN)/arena bench engine --game flip-flop --players 4

golden: $(STAMP)
	$(BIN)/arena golden regenerate

proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -I proto --python_out=. --pyi_out=. --grpc_python_out=. proto/rummyarena/v1/*.proto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
