# Two commands on a fresh machine with Python 3.11+ and make: `make demo` and `make test`.
# Both create the project's own virtual environment (.venv) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "officegym needs Python 3.11+"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/officegym demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2
	$(BIN)/ruff check .
	$(BIN)/mypy .

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy .

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build *.egg-info
