"""Helpers shared by the operation tests of several layers: ids of product cases, the
result dtype of a semiring, and the write-back arguments (``mask``, ``accum``, ``out``,
``replace``) a test draws for an operation, a local Dask cluster's client, and what the
NetworkX backend's test modules share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import strategies as st

from gblas.semirings import semiring as resolve_semiring
from gblas.testing import strategies as gst


def product_case_id(case: tuple) -> str:
    """The pytest id of a ``(semiring, dtype of A, dtype of x)`` case; a semiring object is
    named by its ``name``.

    >>> product_case_id(("min_plus", "int32", "int64"))
    'min_plus-int32-int64'
    """
    s, a, b = case
    return f"{getattr(s, 'name', s)}-{a}-{b}"


def result_dtype(semiring, a, b) -> np.dtype:
    """The dtype ``T`` a semiring's product of operands of dtypes ``a`` and ``b`` has.

    >>> result_dtype("min_plus", "int32", "int64")
    dtype('int64')
    """
    return resolve_semiring(semiring).types(np.dtype(a), np.dtype(b))[2]


def draw_writeback(data, shape, dtype, device: str = "cpu", mask_kinds=gst.MASK_KINDS,
                   accums=gst.ACCUMS) -> dict:
    """Draw the write-back keywords of an operation whose result has ``shape`` (an int for
    a vector) and ``dtype``: a mask of one of ``mask_kinds``, an accumulator of ``accums``,
    ``replace``, and an ``out`` object (always one with an accumulator or ``replace``,
    otherwise maybe none).

    >>> from hypothesis import given
    >>> @given(st.data())
    ... def probe(data):
    ...     kw = draw_writeback(data, 3, np.dtype("float64"))
    ...     assert sorted(kw) == ["accum", "mask", "out", "replace"]
    ...     assert kw["out"] is not None or (kw["accum"] is None and not kw["replace"])
    >>> probe()
    """
    mask = data.draw(gst.masks(shape, mask_kinds, device=device), label="mask")
    accum = data.draw(gst.accums(accums), label="accum")
    replace = data.draw(st.booleans(), label="replace")
    out = None
    if accum is not None or replace or data.draw(st.booleans(), label="out given"):
        if isinstance(shape, int):
            out = data.draw(gst.vectors(shape, dtype, device=device), label="out")
        else:
            out = data.draw(gst.matrices(shape, dtype, iso=None, device=device), label="out")
    return {"mask": mask, "accum": accum, "out": out, "replace": replace}


@contextlib.contextmanager
def local_client(n_workers: int, silence_logs: int = 40) -> Iterator:
    """A Dask client of a ``LocalCluster`` of ``n_workers`` one-thread worker processes
    (no dashboard), closed with its cluster on exit.  Needs the ``distributed`` extra.

    >>> import pytest
    >>> _ = pytest.importorskip("dask.distributed")
    >>> with local_client(1, silence_logs=50) as c:
    ...     len(c.scheduler_info()["workers"])
    1
    """
    import distributed

    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=silence_logs)
    c = distributed.Client(cluster)
    try:
        # the workers registered with the scheduler before the first call (on a loaded
        # machine a test once found none and failed at distribute)
        c.wait_for_workers(n_workers, timeout=120)
        yield c
    finally:
        c.close()
        cluster.close()


def nx_backend_mark(nx):
    """The skip mark of a test module that needs the gblas NetworkX backend installed."""
    return pytest.mark.skipif(
        "gblas" not in nx.utils.backends.backends,
        reason="the gblas NetworkX backend is not installed (pip install -e .)")


@contextlib.contextmanager
def nx_cache_note_silenced(nx) -> Iterator:
    """NetworkX's note about its cache of converted graphs silenced, then restored."""
    saved = set(nx.config.warnings_to_ignore)
    nx.config.warnings_to_ignore.add("cache")
    try:
        yield
    finally:
        nx.config.warnings_to_ignore = saved


def two_processes(cache_dir, first: str, second: str) -> str:
    """Run the Python code ``first`` in a new process, then ``second`` in another, both
    with ``GBLAS_CACHE_DIR=cache_dir``; the second's standard output (what a process saved
    at exit, as the next one reads it)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "GBLAS_CACHE_DIR": str(cache_dir)}
    subprocess.run([sys.executable, "-c", first], env=env, check=True, timeout=300)
    return subprocess.run([sys.executable, "-c", second], env=env, check=True, timeout=300,
                          capture_output=True, text=True).stdout
