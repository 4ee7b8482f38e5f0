# Self-bootstrapping: every target creates .venv if missing and installs the project into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-gpu test-scipy-csgraph bench lint info clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,bench,dev,plot]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gblas demo

DOCTEST_PATHS := gblas/core gblas/algorithms gblas/semirings gblas/planner gblas/io \
	gblas/formats/csr.py gblas/csgraph gblas/dtypes.py gblas/exceptions.py gblas/config.py \
	gblas/warmup.py gblas/backends/cpu/jitcache.py gblas/nx gblas/hardware.py gblas/commands

test: $(STAMP)
	$(PY) -m pytest -q -m "not gpu" tests
	$(PY) -m pytest -q -p no:cacheprovider --doctest-modules $(DOCTEST_PATHS)
	$(MAKE) --no-print-directory test-scipy-csgraph

# SciPy's own scipy.sparse.csgraph test suite with its functions replaced by gblas.csgraph's
test-scipy-csgraph: $(STAMP)
	$(PY) tests/scipy_csgraph/run.py

# GPU tests use the machine's own python3 (numpy, scipy, numba, cupy, hypothesis, pytest
# installed there) and install nothing: the GPU machine has no network.
test-gpu:
	PYTHONPATH=$(CURDIR) python3 -m pytest -q -m gpu tests

bench: $(STAMP)
	$(PY) -m benchmarks.run_mxv

info: $(STAMP)
	$(VENV)/bin/gblas info

lint: $(STAMP)
	$(VENV)/bin/ruff check gblas tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
