"""CPU (Numba) ordering of coordinate lists: the CSR order of COO entries in linear time.

A counting sort places the entries by row (stable), then each row's columns are sorted
stably in place: an insertion sort for short rows, a merge sort for long ones (written
out: Numba compiles NumPy's mergesort argsort for seconds on first use).  The work is
``O(nnz + nrows)`` plus the per-row sorts, against ``O(nnz log nnz)`` for a global argsort
of ``row * ncols + col`` keys.
"""

from __future__ import annotations

import numpy as np

from .jitcache import jit

__all__ = ["coo_order"]

#: Rows up to this length are insertion-sorted.
_INSERTION_MAX = 32


@jit()
def _merge_runs(key, order, lo, hi, tk, to):
    """Sort ``key[lo:hi]`` (``order`` alongside) stably: insertion-sorted runs of
    ``_INSERTION_MAX``, then merged pairwise through the scratch ``tk``, ``to`` (at least
    ``hi - lo`` long)."""
    for r0 in range(lo, hi, _INSERTION_MAX):
        r1 = min(r0 + _INSERTION_MAX, hi)
        for a in range(r0 + 1, r1):
            t = order[a]
            c = key[a]
            b = a - 1
            while b >= r0 and key[b] > c:
                order[b + 1] = order[b]
                key[b + 1] = key[b]
                b -= 1
            order[b + 1] = t
            key[b + 1] = c
    width = _INSERTION_MAX
    while width < hi - lo:
        for a0 in range(lo, hi, 2 * width):
            mid = min(a0 + width, hi)
            end = min(a0 + 2 * width, hi)
            if mid >= end or key[mid - 1] <= key[mid]:
                continue  # already in order
            i, j, k = a0, mid, 0
            while i < mid and j < end:
                if key[j] < key[i]:  # ties take the left run's first: stable
                    tk[k] = key[j]
                    to[k] = order[j]
                    j += 1
                else:
                    tk[k] = key[i]
                    to[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                tk[k] = key[i]
                to[k] = order[i]
                i += 1
                k += 1
            # what is left of the right run is in place already
            for q in range(k):
                key[a0 + q] = tk[q]
                order[a0 + q] = to[q]
        width *= 2


@jit()
def _coo_order(rows, cols, m):
    nnz = rows.size
    start = np.zeros(m + 1, np.int64)
    for t in range(nnz):
        start[rows[t] + 1] += 1
    longest = 0
    for i in range(m):
        longest = max(longest, start[i + 1])
        start[i + 1] += start[i]
    fill = start[:m].copy()
    order = np.empty(nnz, np.int64)
    key = np.empty(nnz, cols.dtype)  # the columns, bucketed by row (contiguous per row)
    for t in range(nnz):
        r = rows[t]
        f = fill[r]
        order[f] = t
        key[f] = cols[t]
        fill[r] = f + 1
    # scratch for the merges of the longest row (none when every row is short)
    tk = np.empty(longest if longest > _INSERTION_MAX else 0, cols.dtype)
    to = np.empty(tk.size, np.int64)
    for i in range(m):
        lo = start[i]
        hi = start[i + 1]
        if hi - lo > 1:
            _merge_runs(key, order, lo, hi, tk, to)
    dups = False
    for i in range(m):
        for a in range(start[i] + 1, start[i + 1]):
            if key[a] == key[a - 1]:
                dups = True
                break
        if dups:
            break
    return order, key, start, dups


def coo_order(rows: np.ndarray, cols: np.ndarray, nrows: int) -> tuple:
    """The stable permutation that sorts COO entries by (row, column), and the CSR it gives.

    Parameters
    ----------
    rows, cols : numpy.ndarray of int64
        Coordinates (rows in ``[0, nrows)``).
    nrows : int
        Number of rows.

    Returns
    -------
    order : numpy.ndarray of int64
        ``(rows[order], cols[order])`` is sorted, ties kept in input order.
    sorted_cols : numpy.ndarray of int64
        ``cols[order]``.
    indptr : numpy.ndarray of int64
        Row ``i``'s entries are ``indptr[i]:indptr[i + 1]`` of the sorted lists.
    duplicates : bool
        Whether some (row, column) occurs twice.

    Examples
    --------
    >>> import numpy as np
    >>> order, c, ptr, dups = coo_order(np.array([1, 0, 1, 0]), np.array([0, 5, 0, 2]), 2)
    >>> order.tolist(), c.tolist(), ptr.tolist(), dups
    ([3, 1, 0, 2], [2, 5, 0, 0], [0, 2, 4], True)
    """
    return _coo_order(np.ascontiguousarray(rows, dtype=np.int64),
                      np.ascontiguousarray(cols, dtype=np.int64), int(nrows))
