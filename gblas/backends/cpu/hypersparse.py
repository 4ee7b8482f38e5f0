"""Products over hypersparse (DCSR) matrices on the CPU.

A DCSR lists only its ``k`` non-empty rows (sorted ids ``rows``, row pointers over
them); its compact view is the ``k x c`` CSR over those rows and the ``c`` columns with
entries.  The kernels here run the CSR kernels of :mod:`.mxv` on that view, so every
semiring, dtype and mask behaves as on CSR, and map ids at the edges:

* pull (``A`` in DCSR, ``x`` dense over A's columns): one row per non-empty row, the
  mask read at those rows; the result is sparse over the ``k`` rows (``O(k + nnz)``, not
  ``O(nrows)``);
* push (``AT``, the DCSR of ``A^T``, ``x`` sparse): x's entries are found among AT's
  rows by a binary search, scattered into accumulators over the ``c`` rows of ``A``
  that hold entries (AT's column ids), then mapped back: ``O(nnz + |x| log k)``.

Kernels take and return arrays (:class:`~gblas.backends.registry.VecData`); the matrix
arguments are read for ``rows``, ``indptr``, ``indices``, ``values``, ``iso_value``,
``dtype``, ``shape`` and the compact view (``compact()``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..registry import VecData
from . import mxv

__all__ = ["pull", "push", "sparse_at"]


class _Rows(NamedTuple):
    """The rows of a DCSR as a CSR operand of the :mod:`.mxv` kernels."""

    shape: tuple
    indptr: Any
    indices: Any
    values: Any
    dtype: Any
    iso_value: Any


def sparse_at(x: VecData, ids: np.ndarray) -> VecData:
    """``x`` read at the sorted ``ids``: a sparse VecData over ``len(ids)`` positions
    holding x's entries there (a binary search per entry of a sparse ``x``, a gather
    of a dense one).

    Examples
    --------
    >>> x = VecData(10, np.array([2, 5, 9]), np.array([1.0, 2.0, 3.0]))
    >>> y = sparse_at(x, np.array([5, 6, 9]))
    >>> y.size, y.indices.tolist(), y.values.tolist()
    (3, [0, 2], [2.0, 3.0])
    """
    ids = np.asarray(ids, np.int64)
    k = int(ids.shape[0])
    if x.indices is None:
        vals = np.asarray(x.values)[ids]
        if x.present is None:
            return VecData(k, np.arange(k, dtype=np.int64), vals, None)
        have = np.flatnonzero(np.asarray(x.present)[ids])
        return VecData(k, have.astype(np.int64), vals[have], None)
    xi = np.asarray(x.indices, np.int64)
    if k == 0 or xi.size == 0:
        return VecData(k, np.zeros(0, np.int64), np.asarray(x.values)[:0], None)
    pos = np.minimum(np.searchsorted(ids, xi), k - 1)
    hit = ids[pos] == xi
    return VecData(k, pos[hit], np.asarray(x.values)[hit], None)


def pull(A: Any, x: VecData, allow: Any, semiring: Any, types: tuple) -> VecData:
    """Masked pull over the non-empty rows of the DCSR ``A``; a sparse result of size
    ``nrows``.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.formats.hypersparse import Hypersparse
    >>> H = Hypersparse.from_coo(np.array([1, 1, 4]), np.array([0, 2, 2]),
    ...                          np.array([1.0, 2.0, 3.0]), (6, 3))
    >>> s = gb.semirings.plus_times
    >>> y = pull(H, VecData(3, None, np.array([1.0, 10.0, 100.0])), None, s,
    ...          s.types(H.dtype, np.dtype("float64")))
    >>> y.indices.tolist(), y.values.tolist()
    ([1, 4], [201.0, 300.0])
    """
    m = int(A.shape[0])
    rows = np.asarray(A.rows, np.int64)
    local = _Rows((rows.shape[0], A.shape[1]), A.indptr, A.indices, A.values, A.dtype,
                  A.iso_value)
    sub = None if allow is None else np.asarray(allow)[rows]
    y = mxv.pull(local, x, sub, semiring, types)
    got = np.flatnonzero(y.present)
    return VecData(m, rows[got], y.values[got], None)


def push(AT: Any, x: VecData, allow: Any, semiring: Any, types: tuple, nrows: int) -> VecData:
    """Push from the sparse ``x`` over the DCSR ``AT`` of ``A^T``: accumulators over the
    rows of ``A`` that hold entries only; a sparse result of size ``nrows``."""
    nrows = int(nrows)
    targets, local = AT.compact()  # local: k x c, its columns the rows of A with entries
    xl = sparse_at(x, AT.rows)
    sub = None if allow is None else np.asarray(allow)[targets]
    y = mxv.push(local, xl, sub, semiring, types, int(targets.shape[0]))
    if y.indices is None:
        got = np.flatnonzero(y.present)
        return VecData(nrows, targets[got], y.values[got], None)
    return VecData(nrows, targets[np.asarray(y.indices, np.int64)], y.values, None)
