# Two commands on a fresh machine with Python 3.11+ and make: `make demo` and `make test`.
# Both create the project's own virtual environment (.venv) first. The demo needs only the package; the tests
# install every extra they exercise (dev: pytest, ruff, mypy, openai, SB3 + CPU torch, and the trainer bridges TRL,
# OpenEnv and verifiers with their pins; ray: Ray and RLlib,
# which pins gymnasium 1.2.2, so the suite runs on what RLlib users get).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BASE := $(VENV)/.installed-base
FULL := $(VENV)/.installed-full
# mypy names modules after folders, and a checkout may sit in a folder of any name ("officegym-main"), so it
# checks the tree through a link named officegym: module names are then the package's own, and tests and
# benchmarks are checked against the package's real types instead of an unresolved import.
MYPY_ROOT := $(VENV)/typecheck

.PHONY: demo test lint format typecheck bench soak clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "officegym needs Python 3.11+"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BASE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

$(FULL): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,ray]'
	touch $(FULL) $(BASE)

demo: $(BASE)
	$(BIN)/officegym demo

test: $(FULL)
	$(BIN)/python -m pytest -n 2
	$(MAKE) --no-print-directory lint typecheck

lint: $(FULL)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(FULL)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(FULL)
	mkdir -p $(MYPY_ROOT) && ln -sfn "$(CURDIR)" $(MYPY_ROOT)/officegym
	cd $(MYPY_ROOT) && ../bin/mypy --config-file "$(CURDIR)/pyproject.toml" officegym

bench: $(FULL)
	$(BIN)/python -m benchmarks.run
	$(BIN)/python -m benchmarks.eval_harness
	$(BIN)/python -m benchmarks.versions
	$(BIN)/python -m benchmarks.vendor_battery officegym/VendorReview-v1 --out benchmarks/results/vendor_battery_v1.json
	$(BIN)/python -m benchmarks.vendor_battery officegym/VendorReview-v2 --out benchmarks/results/vendor_battery_v2.json
	$(BIN)/python -m benchmarks.vendor_v2_sets

soak: $(FULL)
	$(BIN)/python -m benchmarks.soak

clean:
	rm -rf $(VENV) build *.egg-info
