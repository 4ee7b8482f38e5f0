"""How the CPU kernels split work between threads: blocks of rows (or parts) of about
equal cost, and one cached ``prange`` driver per sequential kernel.

Contract: a kernel is a sequential ``@jit()`` function ``rows(lo, hi, *arrays)`` over a
range; :func:`run_blocks` runs it over ``[bounds[b], bounds[b + 1])`` for every block, in
this thread when there is one block and through a ``@jit(parallel=True)`` driver built
from ``rows`` otherwise.  Work below :data:`PULL_PARALLEL_COST` runs as one block, so small
inputs never compile the parallel driver (it costs more compile time than the kernel).

Examples
--------
>>> import numpy as np
>>> row_bounds(np.array([0, 2, 3]), 3).tolist()     # small work: one block
[0, 2]
"""

from __future__ import annotations

import weakref

import numba
import numpy as np
from numba import prange

from .jitcache import jit
from .operands import uindex

__all__ = ["PULL_PARALLEL_COST", "balanced_row_bounds", "cost_bounds", "num_threads",
           "row_blocks", "row_bounds", "run_blocks", "run_ranges"]

#: Pull (and the row-parallel mxm kernels and build passes) use one block below this many
#: entries + rows.
PULL_PARALLEL_COST = 1 << 16


def num_threads() -> int:
    """The number of threads Numba's parallel loops use now.

    Examples
    --------
    >>> num_threads() >= 1
    True
    """
    return int(numba.get_num_threads())


_DRIVERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _driver(rows):
    """The ``@jit(parallel=True)`` driver running ``rows`` over blocks (cached)."""
    d = _DRIVERS.get(rows)
    if d is None:

        @jit(parallel=True)
        def driver(bounds, *args):
            for b in prange(bounds.size - 1):
                rows(bounds[b], bounds[b + 1], *args)

        d = _DRIVERS[rows] = driver
    return d


def run_blocks(rows, bounds: np.ndarray, *args) -> None:
    """Run ``rows(lo, hi, *args)`` for every block ``[bounds[b], bounds[b + 1])``.

    One block runs in the calling thread (no parallel code is compiled); several run in
    parallel through the cached ``prange`` driver of ``rows``.

    Examples
    --------
    >>> @jit()
    ... def fill(lo, hi, out):
    ...     for i in range(lo, hi):
    ...         out[i] = i
    >>> out = np.zeros(3, np.int64)
    >>> run_blocks(fill, np.array([0, 3]), out)
    >>> out.tolist()
    [0, 1, 2]
    """
    if bounds.size <= 2:
        if bounds.size == 2:
            rows(int(bounds[0]), int(bounds[1]), *args)
        return
    _driver(rows)(bounds, *args)


def run_ranges(rows, bounds: np.ndarray, parallel: bool, *args) -> None:
    """``rows(lo, hi, *args)`` over the non-empty ranges of ``bounds``: in parallel through
    :func:`run_blocks`, or one after another in this thread (no parallel compilation).

    Examples
    --------
    >>> @jit()
    ... def mark(lo, hi, out):
    ...     for i in range(lo, hi):
    ...         out[i] += 1
    >>> out = np.zeros(4, np.int64)
    >>> run_ranges(mark, np.array([0, 1, 1, 4]), False, out)
    >>> out.tolist()
    [1, 1, 1, 1]
    """
    if parallel and bounds.size > 2:
        run_blocks(rows, bounds, *args)
        return
    for t in range(bounds.size - 1):
        lo, hi = int(bounds[t]), int(bounds[t + 1])
        if hi > lo:
            rows(lo, hi, *args)


@jit()
def balanced_row_bounds(indptr, nparts):
    """Row boundaries of ``nparts`` blocks of about equal cost ``nnz + nrows``."""
    n = indptr.size - 1
    bounds = np.empty(nparts + 1, np.int64)
    bounds[0] = 0
    total = np.int64(indptr[n]) + n
    for p in range(1, nparts):
        target = total * p // nparts
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if np.int64(indptr[mid]) + mid < target:
                lo = mid + 1
            else:
                hi = mid
        bounds[p] = lo
    bounds[nparts] = n
    return bounds


def row_bounds(indptr: np.ndarray, nnz: int, parallel: bool = True) -> np.ndarray:
    """The :func:`row_blocks` of a row-parallel kernel: one per thread over a CSR of
    ``nnz`` entries, or one block when ``parallel`` is False.

    Examples
    --------
    >>> row_bounds(np.array([0, 1, 2]), 2, parallel=False).tolist()
    [0, 2]
    """
    return row_blocks(indptr, num_threads() if parallel else 1, nnz=nnz)


def row_blocks(indptr: np.ndarray, threads: int, table_cols: int = 0,
               nnz: int | None = None) -> np.ndarray:
    """Row boundaries of blocks of about equal cost ``entries + rows``, one per thread
    (one block below :data:`PULL_PARALLEL_COST`): the blocks of the build passes.

    Parameters
    ----------
    indptr : ndarray
        CSR row pointers.
    threads : int
        Blocks wanted (at most).
    table_cols : int, default 0
        Columns of a per-block table the pass keeps (a count per column): the blocks are
        limited so that the tables hold at most about one entry per input entry (and at
        least 4M counts), which bounds the extra memory by the input's indices.
    nnz : int, optional
        Entries (``indptr[-1]``).

    Returns
    -------
    ndarray of int64
        ``blocks + 1`` boundaries.

    Examples
    --------
    >>> row_blocks(np.array([0, 1, 2, 3, 4]), 1).tolist()
    [0, 4]
    """
    m = int(indptr.size) - 1
    nnz = int(indptr[-1]) if nnz is None else int(nnz)
    parts = max(1, int(threads))
    if table_cols > 0:
        parts = min(parts, max(1, max(nnz, 1 << 22) // table_cols))
    if parts <= 1 or m <= 1 or nnz + m < PULL_PARALLEL_COST:
        return np.array([0, max(m, 0)], dtype=np.int64)
    return balanced_row_bounds(uindex(indptr), np.int64(parts))


def cost_bounds(cost: np.ndarray, parts: int | None = None) -> np.ndarray:
    """Row boundaries splitting ``cost`` (per row) into one block per thread (one block
    when the total is below :data:`PULL_PARALLEL_COST`), or into ``parts`` blocks when
    given (some may be empty).

    Examples
    --------
    >>> cost_bounds(np.array([1, 1, 1])).tolist()
    [0, 3]
    >>> cost_bounds(np.array([3, 1, 1, 1]), parts=2).tolist()
    [0, 1, 4]
    """
    m = cost.size
    total = int(cost.sum()) if m else 0
    if parts is None:
        nthreads = num_threads()
        if nthreads == 1 or total < PULL_PARALLEL_COST or m < 2:
            return np.array([0, m], dtype=np.int64)
    else:
        nthreads = max(1, int(parts))
        if nthreads == 1 or m == 0:
            return np.array([0, m], dtype=np.int64)
    cum = np.cumsum(cost)
    targets = (np.arange(1, nthreads, dtype=np.int64) * total) // nthreads
    inner = np.searchsorted(cum, targets, side="left") + 1
    return np.concatenate(([0], np.minimum(inner, m), [m])).astype(np.int64)
