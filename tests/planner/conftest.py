"""Fixtures of the planner's tests: a cache folder of the test's own for the file of
measured times, and a way to read it again as a new process would."""

from __future__ import annotations

import pytest

from gblas.planner import devicetime, hosttime


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own; reading the file and saving allowed."""
    monkeypatch.setenv("GBLAS_CACHE_DIR", str(tmp_path))
    hosttime.persist(True)
    yield tmp_path
    hosttime.persist(False)


@pytest.fixture
def as_new_process(monkeypatch):
    """A function forgetting this process's measured times and reading the file again at
    the next estimate, as a new process would."""
    def forget():
        hosttime.clear()
        devicetime.clear()
        monkeypatch.setitem(hosttime._state, "loaded", False)
    return forget
