# Every target sets up what it needs: a .venv with the project and its extras.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench
# The Node.js runtime hosted JavaScript bots find (docs/bots.md): installed when npm is
# here; without it, only Python bots can be hosted, and the JavaScript tests say so.
NODE_RUNTIME := runtimes/node
NODE_STAMP := $(NODE_RUNTIME)/node_modules/.installed
NPM ?= $(shell command -v npm)

.PHONY: test lint typecheck pytest demo bench golden clean proto node-runtime

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,embedded]'
	touch $@

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,embedded,bench]'
	touch $@

$(NODE_STAMP): $(NODE_RUNTIME)/package.json $(NODE_RUNTIME)/package-lock.json
ifneq ($(NPM),)
	cd $(NODE_RUNTIME) && $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@
else
	@echo "npm not found: skipping the Node.js runtime ($(NODE_RUNTIME)); JavaScript bots cannot be hosted here"
endif

node-runtime: $(NODE_STAMP)

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy referee arena worker bots

pytest: $(STAMP) $(NODE_STAMP)
	$(BIN)/pytest -n 2 -q

demo: $(STAMP) $(NODE_STAMP)
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
