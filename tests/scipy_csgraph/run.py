"""Run SciPy's own ``scipy.sparse.csgraph`` test suite against :mod:`gblas.csgraph`.

Every public function of ``scipy.sparse.csgraph`` (and the same name in the private
submodules the tests import from: ``_traversal``, ``_shortest_path``, ``_flow``, ...) is
replaced by gblas.csgraph's before the tests are collected, then
``pytest --pyargs scipy.sparse.csgraph.tests`` runs as installed.  Each replacement
counts its calls; a full run fails if a function that SciPy's test files name was never
called (the replacement did not take), and prints the counts.  The tests of pydata/sparse
input run where the ``sparse`` package is installed (it is in the ``test`` extra).
Known differences are declared in ``EXPECTED`` (strict expected failures, with the
reason): none today.

Usage, from the repository root::

    python tests/scipy_csgraph/run.py            # make test-scipy-csgraph
    python tests/scipy_csgraph/run.py -k dijkstra -x

Examples
--------
>>> from run import replaced_names  # doctest: +SKIP
>>> "dijkstra" in replaced_names()  # doctest: +SKIP
True
"""

from __future__ import annotations

import collections
import functools
import importlib
import importlib.util
import re
import sys
from pathlib import Path

import pytest

#: SciPy's private modules whose names the tests import (replaced where present).
SUBMODULES = ("_traversal", "_shortest_path", "_flow", "_matching", "_min_spanning_tree",
              "_reordering", "_tools", "_laplacian", "_validation")

#: test id (substring of the node id) -> reason: strict expected failures.
EXPECTED: dict[str, str] = {}

CALLS: collections.Counter = collections.Counter()


def replaced_names() -> list[str]:
    """The public names of ``scipy.sparse.csgraph`` that gblas.csgraph replaces."""
    import scipy.sparse.csgraph as sc

    import gblas.csgraph as gc

    return sorted(n for n in dir(sc) if not n.startswith("_") and n != "test"
                  and hasattr(gc, n))


def _counted(name: str, fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        CALLS[name] += 1
        return fn(*args, **kwargs)

    return call


def patch() -> list[str]:
    """Replace SciPy's csgraph functions (and its NegativeCycleError) by gblas.csgraph's."""
    import scipy.sparse.csgraph as sc

    import gblas.csgraph as gc

    names = replaced_names()
    missing = [n for n in dir(sc) if not n.startswith("_") and n != "test"
               and not hasattr(gc, n)]
    if missing:
        raise SystemExit(f"gblas.csgraph lacks {missing}: nothing to test them against")
    modules = [sc] + [importlib.import_module(f"scipy.sparse.csgraph.{m}")
                      for m in SUBMODULES if importlib.util.find_spec(
                          f"scipy.sparse.csgraph.{m}") is not None]
    for name in names:
        ours = getattr(gc, name)
        new = ours if isinstance(ours, type) else _counted(name, ours)
        for mod in modules:
            if name in vars(mod):
                setattr(mod, name, new)
    return names


class GblasCsgraph:
    """The pytest plugin: patch at configure, mark the expected failures, report calls."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def pytest_configure(self, config) -> None:
        self.names = patch()

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            for key, reason in EXPECTED.items():
                if key in item.nodeid:
                    item.add_marker(pytest.mark.xfail(reason=reason, strict=True))

    def _never_called(self) -> list[str]:
        """The replaced functions that SciPy's test files name but no test called."""
        import scipy.sparse.csgraph as sc

        text = "".join(p.read_text() for p in
                       (Path(sc.__file__).parent / "tests").glob("test_*.py"))
        named = [n for n in self.names if n != "NegativeCycleError"
                 and re.search(rf"\b{n}\b", text)]
        return [n for n in named if CALLS[n] == 0]

    def pytest_terminal_summary(self, terminalreporter) -> None:
        funcs = [n for n in self.names if n != "NegativeCycleError"]
        terminalreporter.write_line(
            "gblas.csgraph calls: " + ", ".join(f"{n} {CALLS[n]}" for n in funcs))
        never = self._never_called()
        if never:
            terminalreporter.write_line(f"named by SciPy's tests but never called: {never}")

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        full = not session.config.getoption("keyword") and \
            not session.config.getoption("maxfail")
        if exitstatus == 0 and full and self._never_called():
            session.exitstatus = 1


def main(argv: list[str] | None = None) -> int:
    """Run the suite; extra arguments go to pytest."""
    args = ["-q", "-p", "no:cacheprovider", "--pyargs", "scipy.sparse.csgraph.tests",
            *(sys.argv[1:] if argv is None else argv)]
    return int(pytest.main(args, plugins=[GblasCsgraph()]))


if __name__ == "__main__":
    sys.exit(main())
