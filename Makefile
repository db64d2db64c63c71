# The two commands of the README: `make run` and `make test`.
# Both create the virtual environment .venv in the checkout on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test setup browser nginx bench clean

# Serving options (docs/dashboards.md): each is passed to the server only when set.
HOST ?=
PORT ?=
BASE_URL ?=
WORKBENCH_TOKEN ?=
MAX_KERNELS ?=
POOL_SIZE ?=
export HOST PORT BASE_URL WORKBENCH_TOKEN MAX_KERNELS POOL_SIZE

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]' 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
	$(PY) -c "import workbench, numpy, voila, icepool, playwright" 
	touch $(STAMP)

setup: $(STAMP)

browser:
	bash scripts/install-chromium.sh

nginx:
	bash scripts/install-nginx.sh

run: setup
	-bash scripts/install-chromium.sh
	$(PY) -m workbench.serve

test: setup browser nginx
	$(PY) -m pytest

bench: setup
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info output
