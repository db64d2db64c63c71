# The two commands of the README: `make run` and `make test`.
# Both create the virtual environment .venv in the checkout on first use and
# install the locked versions of requirements/*.txt into it (uv reads them;
# `make lock` rewrites them from pyproject.toml):
#   requirements/run.txt   the workbench and its dashboards      (make setup, make run)
#   requirements/lab.txt   + JupyterLab and nbstripout            (make lab)
#   requirements/test.txt  + the test tools                       (make setup-test, make test)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
UV_PIP := $(UV) pip install --python $(PY)
RUN_STAMP := $(VENV)/.installed-run
LAB_STAMP := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
# the uv release the lock files were written with (requirements/test.txt pins it)
UV_PIN := $(shell grep -m1 '^uv==' requirements/test.txt | cut -d' ' -f1)

.PHONY: run test test-fast lint setup setup-lab setup-test lab lock browser nginx bench clean check-venv

# Serving options (docs/dashboards.md): each is passed to the server only when set.
HOST ?=
PORT ?=
BASE_URL ?=
WORKBENCH_TOKEN ?=
MAX_KERNELS ?=
POOL_SIZE ?=
RELEASE_AFTER ?=
export HOST PORT BASE_URL WORKBENCH_TOKEN MAX_KERNELS POOL_SIZE RELEASE_AFTER
# Python caches compiled modules (__pycache__, ignored by git; never packaged: MANIFEST.in), also
# where the environment says PYTHONDONTWRITEBYTECODE, as this project's CI machine does: there
# every process (each dashboard kernel, server, xdist worker, CLI test) compiled pandas, plotly,
# ipywidgets, voila and the workbench from source again, 5.7 CPU s for a dashboard's imports
# against 1.75 s cached, and pytest rewrote every test module's asserts again in each worker.
export PYTHONDONTWRITEBYTECODE :=
# `make lab` only: NO_BROWSER=1 leaves the browser closed (the URL is printed); PORT= picks its port
NO_BROWSER ?=

$(PY):
	@bash scripts/check-python.sh "$(PYTHON)" new
	@echo "== [1/4] creating the virtual environment $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)

# every use of .venv first checks the Python it was made with (a 3.10 one would fail in the resolver)
check-venv: | $(PY)
	@bash scripts/check-python.sh "$(PY)" venv

$(UV): | $(PY) check-venv
	@echo "== [2/4] installing $(UV_PIN), which installs the locked versions"
	$(PY) -m pip install --disable-pip-version-check --progress-bar on '$(UV_PIN)'

$(RUN_STAMP): requirements/run.txt pyproject.toml setup.py | check-venv $(UV)
	@echo "== [3/4] installing the workbench's locked dependencies (requirements/run.txt)"
	$(UV_PIP) -r requirements/run.txt
	@echo "== [4/4] installing the workbench itself (editable: your edits apply at once)"
	$(UV_PIP) --no-deps -e .
	$(PY) -c "import workbench, voila; print('workbench', workbench.__version__, 'is installed in $(VENV)')"
	touch $@

$(LAB_STAMP): requirements/lab.txt $(RUN_STAMP)
	@echo "== installing JupyterLab and nbstripout (requirements/lab.txt)"
	$(UV_PIP) -r requirements/lab.txt
	touch $@

$(TEST_STAMP): requirements/test.txt $(LAB_STAMP)
	@echo "== installing the test tools (requirements/test.txt)"
	$(UV_PIP) -r requirements/test.txt
	$(PY) -c "import pytest, icepool, playwright, psutil"
	touch $@

setup: $(RUN_STAMP)

setup-lab: $(LAB_STAMP)

setup-test: $(TEST_STAMP)

browser:
	bash scripts/install-chromium.sh

nginx:
	bash scripts/install-nginx.sh

run: setup
	-bash scripts/install-chromium.sh
	$(PY) -m workbench.serve

# The tests: `make test` runs every one (what CI runs, .ci/run); `make test-fast`
# leaves out what is slow by nature (the markers of pyproject.toml: browser, server,
# notebook, packaging), for an engineer's inner loop. ruff runs first.
# `make test` runs the slow tests on SLOW_WORKERS workers (2 by default), in groups
# (tests/conftest.py, --dist loadgroup): every test of the session's dashboard server
# in one worker, each module that starts its own servers, kernels or builds in one
# group, two groups at once. They spend most of their time waiting for a page, a kernel
# or a build (one worker's run of 500 s used 390 CPU s, well under one of two cores), so
# mypy and the fast tests run beside them on FAST_WORKERS workers (1), their output kept
# in output/test-logs/ and printed when the slow part ends (scripts/run-tests.sh). On the
# 2-core machine, from a warm .venv: 345 s, against 505 s with one slow worker and 590 s
# with the parts one after the other. The slow tests' waits are for a condition, with
# timeouts that only bound a failure, so the load beside them changes their time, not
# their result (they also passed with other work loading the machine three times over). SLOW_WORKERS=1
# runs one group at a time. Every part always runs, and `make test` fails if any did;
# the slow part ends with its 15 slowest tests.
TEST_WORKERS ?= 4
SLOW_WORKERS ?= 2
FAST_WORKERS ?= 1
PYTEST_PARALLEL := -n auto --maxprocesses=$(TEST_WORKERS) --dist loadgroup
FAST := not browser and not server and not notebook and not packaging
TEST_LOGS := output/test-logs

test: setup-test browser nginx
	$(PY) -m ruff check .
	@bash scripts/run-tests.sh "$(PY)" "$(TEST_LOGS)" "$(FAST)" "$(FAST_WORKERS)" "$(SLOW_WORKERS)"

test-fast: setup-test lint
	$(PY) -m pytest $(PYTEST_PARALLEL) -m "$(FAST)"

lint: setup-test
	$(PY) -m ruff check .
	$(PY) -m mypy

# JupyterLab on the notebooks; jupyter/jupyter_server_config.py strips outputs on save
# (PORT=8890 its port, exactly: no other is tried; NO_BROWSER=1 opens no browser)
lab: setup-lab
	JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" $(VENV)/bin/jupyter lab notebooks $(if $(PORT),--ServerApp.port=$(PORT) --ServerApp.port_retries=0) $(if $(NO_BROWSER),--no-browser) $$([ "$$(id -u)" = 0 ] && echo --allow-root)

# rewrite the lock files after a change of pyproject.toml (each one constrained
# by the one before, so that the packages they share have one version)
lock: setup
	$(UV) pip compile pyproject.toml --extra dashboard --universal --python-version 3.11 -o requirements/run.txt
	$(UV) pip compile pyproject.toml --extra dashboard --extra lab --universal --python-version 3.11 -c requirements/run.txt -o requirements/lab.txt
	$(UV) pip compile pyproject.toml --extra dashboard --extra lab --extra test --universal --python-version 3.11 -c requirements/lab.txt -o requirements/test.txt
	$(UV) pip compile pyproject.toml --upgrade --extra dashboard --resolution lowest-direct --python-version 3.11 -o requirements/floors.txt

bench: setup-test
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info output
