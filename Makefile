# Two commands on a fresh machine with Python 3.11+ and make: `make demo` and `make test`.
# Both create the project's own virtual environment (.venv) first. The demo needs only the package. The tests run
# on the two Gymnasiums users get, in two venvs:
# - .venv: the dev extra (pytest, ruff, mypy, openai, SB3 + CPU torch, and the trainer bridges TRL, OpenEnv and
#   verifiers with their pins) on the newest gymnasium the base install resolves, as `pip install officegym`
#   gives it; the whole suite but RLlib's tests, then lint and typecheck;
# - .venv-ray: the ray extra (Ray, RLlib, which pins gymnasium 1.2.2, and Ray Serve) and the openenv extra (the
#   app every Serve replica runs) with only what its tests need (pytest and the CPU torch RLlib's action-masking
#   module runs on); RLlib's and Ray Serve's tests and CORE_TESTS, a core set that catches
#   Gymnasium drift cheaply (the env checker, reset options, vector envs, the frozen v0 observations).
# Each run prints the Gymnasium it tested ("officegym tested on gymnasium ...", tests/conftest.py).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BASE := $(VENV)/.installed-base
FULL := $(VENV)/.installed-dev
RAY_VENV := .venv-ray
RAY_BIN := $(RAY_VENV)/bin
RAY := $(RAY_VENV)/.installed-ray
# the versions the dev extra pins (pyproject.toml); torch==2.13.0 resolves to the local CPU wheel where there is one
RAY_TEST_DEPS := 'pytest>=8' 'pytest-xdist>=3' 'torch==2.13.0'
# RLlib's tests: each skips without the ray extra (pytest.importorskip); the main run leaves them out by name, so
# a .venv that still holds an old ray beside the newest gymnasium does not run them either
RAY_TESTS := tests/evaluation/test_ray_backend.py tests/examples/test_rllib_masking.py
# Ray Serve's cluster test starts a multi-node cluster of its own: it runs after the others, alone, since a
# `ray.init()` elsewhere on the machine (the RLlib example's) would join that cluster instead of starting its own
SERVE_TESTS := tests/integrations/ray_serve/test_ray_serve_cluster.py
CORE_TESTS := tests/contract/test_contract.py tests/contract/test_reset_options.py tests/contract/test_bad_input.py \
	tests/contract/test_fork.py tests/test_vector.py tests/test_gymnasium_versions.py tests/spaces tests/frozen \
	tests/vector
# mypy names modules after folders, and a checkout may sit in a folder of any name ("officegym-main"), so it
# checks the tree through a link named officegym: module names are then the package's own, and tests and
# benchmarks are checked against the package's real types instead of an unresolved import.
MYPY_ROOT := $(VENV)/typecheck

.PHONY: demo test browser lint format typecheck bench soak clean dist docs docs-build

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "officegym needs Python 3.11+"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BASE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

# gymnasium named with --upgrade: each reinstall takes the newest release, as `pip install officegym` would (and a
# .venv made before the split, which held the ray extra and so gymnasium 1.2.2, moves to it; `make clean` drops ray)
$(FULL): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade -e '.[dev]' gymnasium
	touch $(FULL) $(BASE)

$(RAY_BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "officegym needs Python 3.11+"'
	$(PYTHON) -m venv $(RAY_VENV)
	$(RAY_BIN)/python -m pip install --quiet --upgrade pip

$(RAY): pyproject.toml | $(RAY_BIN)/python
	$(RAY_BIN)/python -m pip install --quiet -e '.[ray,openenv]' $(RAY_TEST_DEPS)
	touch $(RAY)

demo: $(BASE)
	$(BIN)/officegym demo

# the HTML report's test (tests/evaluation/test_report_browser.py) drives Debian's headless Chromium: installed
# here when missing (a no-op when it is there); without apt-get as root it says so, and the test skips (fails in CI)
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y chromium; \
	else echo "note: chromium is missing and apt-get cannot run here (not Debian, or not root): install chromium, \
	or the report's browser test skips"; fi

# --dist loadfile in .venv-ray: each test file stays on one worker, so Ray starts once, beside the core set
test: $(FULL) $(RAY) browser
	$(BIN)/python -m pytest -n 2 $(addprefix --ignore=,$(RAY_TESTS) $(SERVE_TESTS))
	$(RAY_BIN)/python -m pytest -n 2 --dist loadfile $(RAY_TESTS) $(CORE_TESTS)
	$(RAY_BIN)/python -m pytest $(SERVE_TESTS)
	$(MAKE) --no-print-directory lint typecheck docs-build

lint: $(FULL)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(FULL)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(FULL)
	mkdir -p $(MYPY_ROOT) && ln -sfn "$(CURDIR)" $(MYPY_ROOT)/officegym
	cd $(MYPY_ROOT) && ../bin/mypy --config-file "$(CURDIR)/pyproject.toml" officegym

# the manual (mkdocs.yml, docs/): `make docs` serves it at http://127.0.0.1:8000 and rebuilds on every edit;
# `make docs-build` builds it into site/ strictly (a broken link, anchor or API reference fails), as `make test` does
docs: $(FULL)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

docs-build: $(FULL)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

bench: $(FULL)
	$(BIN)/python -m benchmarks.run
	$(BIN)/python -m benchmarks.eval_harness
	$(BIN)/python -m benchmarks.versions
	$(BIN)/python -m benchmarks.vendor_battery officegym/VendorReview-v1 --out benchmarks/results/vendor_battery_v1.json
	$(BIN)/python -m benchmarks.vendor_battery officegym/VendorReview-v2 --out benchmarks/results/vendor_battery_v2.json
	$(BIN)/python -m benchmarks.vendor_v2_sets
	$(BIN)/python -m benchmarks.episode_pool
	$(BIN)/python -m benchmarks.companies
	$(BIN)/python -m benchmarks.server_workers

soak: $(FULL)
	$(BIN)/python -m benchmarks.soak
	$(BIN)/python -m benchmarks.server_soak

# the wheel and the sdist into dist/ (`python -m build`: the sdist, then the wheel built from it); needs only build
dist: | $(BIN)/python
	$(BIN)/python -m pip install --quiet 'build>=1.2'
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

clean:
	rm -rf $(VENV) $(RAY_VENV) build dist *.egg-info
