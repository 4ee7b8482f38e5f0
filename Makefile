# Self-bootstrapping: every target creates .venv if missing and installs the project into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-gpu test-scipy-csgraph bench lint info clean test-networkx docs

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,bench,dev,plot,distributed]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gblas demo

DOCTEST_PATHS := gblas/core gblas/algorithms gblas/semirings gblas/planner gblas/io \
	gblas/formats gblas/csgraph gblas/dtypes.py gblas/exceptions.py gblas/config.py \
	gblas/warmup.py gblas/_cache.py gblas/backends/cpu gblas/backends/reference \
	gblas/backends/vector_checks.py \
	gblas/nx gblas/commands \
	gblas/hardware.py gblas/analysis gblas/distributed gblas/testing

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

# NetworkX's own tests of every function the gblas backend implements, each dispatchable
# call converted to gblas (declined options fall back to NetworkX); the expected failures
# are declared, with their reasons, in gblas/nx/interface.py (on_start_tests).  The whole
# suite (`--pyargs networkx`) also runs with NX_TEST_MODULES=networkx, far slower.
NX_TEST_MODULES ?= networkx.algorithms.link_analysis.tests \
	networkx.algorithms.centrality.tests.test_eigenvector_centrality \
	networkx.algorithms.centrality.tests.test_katz_centrality \
	networkx.algorithms.centrality.tests.test_degree_centrality \
	networkx.algorithms.centrality.tests.test_betweenness_centrality \
	networkx.algorithms.community.tests.test_louvain \
	networkx.algorithms.community.tests.test_label_propagation \
	networkx.algorithms.traversal.tests.test_bfs networkx.algorithms.shortest_paths.tests \
	networkx.algorithms.components.tests networkx.algorithms.tests.test_cluster \
	networkx.algorithms.tests.test_core networkx.algorithms.tests.test_dag \
	networkx.algorithms.tests.test_reciprocity networkx.algorithms.tests.test_isolate \
	networkx.algorithms.tests.test_regular \
	networkx.algorithms.assortativity.tests.test_neighbor_degree \
	networkx.algorithms.tree.tests.test_recognition networkx.classes.tests.test_function

test-networkx: $(STAMP)
	NETWORKX_TEST_BACKEND=gblas NETWORKX_FALLBACK_TO_NX=True \
		$(PY) -m pytest -q -p no:cacheprovider --pyargs $(NX_TEST_MODULES)

bench: $(STAMP)
	$(PY) -m benchmarks.run_mxv

info: $(STAMP)
	$(VENV)/bin/gblas info

# The API reference from the docstrings (Sphinx, autodoc + napoleon, MyST for the guides);
# warnings are errors.  Not part of `make test`.  Output: docs/_build/html/index.html
DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install -q -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

lint: $(STAMP)
	$(VENV)/bin/ruff check gblas tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
