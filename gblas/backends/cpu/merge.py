"""Linear-time union and intersection of sorted patterns (CPU, Numba).

``ewise_add`` keeps the union of two patterns, ``ewise_mult`` their intersection, and the
matrix write-back the union of the output's pattern and the result's.  Both patterns are
sorted already (a CSR's columns within each row, a sparse Vector's indices), so one merge
does it in ``O(nnz(A) + nnz(B))`` instead of a sort of the concatenated keys:

* a first pass counts each row's output entries, a prefix sum gives the row pointers, and
  a second pass writes the merged columns with the position of every output entry in
  ``A`` and in ``B`` (``-1`` where that operand has none);
* rows merge independently, in parallel (``prange``) when the operands are large;
* a 1-D merge (sorted unique keys) is the same merge over chunks cut at equal key values.

The callers gather and combine the values with the positions.  Kernels take arrays only.

Examples
--------
>>> import numpy as np
>>> keys, pa, pb = union_sorted(np.array([1, 4, 6]), np.array([2, 4]))
>>> keys.tolist(), pa.tolist(), pb.tolist()
([1, 2, 4, 6], [0, -1, 1, 2], [-1, 0, 1, -1])
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .jitcache import jit

__all__ = ["csr_union", "csr_intersect", "csr_member", "union_sorted", "intersect_sorted",
           "member_sorted", "PARALLEL_ENTRIES"]

#: Operands with at least this many entries together are merged by parallel loops.
PARALLEL_ENTRIES = 1 << 17

UNION, INTERSECT = 0, 1


# ----------------------------------------------------------------------- per-row merges


@jit()
def _count(a, alo, ahi, b, blo, bhi, mode):
    """Output entries of the merge of ``a[alo:ahi]`` and ``b[blo:bhi]`` (sorted, unique)."""
    i, j, c = alo, blo, 0
    while i < ahi and j < bhi:
        x = a[i]
        y = b[j]
        if x < y:
            i += 1
            if mode == UNION:
                c += 1
        elif y < x:
            j += 1
            if mode == UNION:
                c += 1
        else:
            i += 1
            j += 1
            c += 1
    if mode == UNION:
        c += (ahi - i) + (bhi - j)
    return c


@jit()
def _fill(a, alo, ahi, b, blo, bhi, mode, out, pa, pb, t):
    """Write the merge at ``out[t:]`` with the source positions; returns the end."""
    i, j = alo, blo
    while i < ahi and j < bhi:
        x = a[i]
        y = b[j]
        if x < y:
            if mode == UNION:
                out[t] = x
                pa[t] = i
                pb[t] = -1
                t += 1
            i += 1
        elif y < x:
            if mode == UNION:
                out[t] = y
                pa[t] = -1
                pb[t] = j
                t += 1
            j += 1
        else:
            out[t] = x
            pa[t] = i
            pb[t] = j
            t += 1
            i += 1
            j += 1
    if mode == UNION:
        while i < ahi:
            out[t] = a[i]
            pa[t] = i
            pb[t] = -1
            t += 1
            i += 1
        while j < bhi:
            out[t] = b[j]
            pa[t] = -1
            pb[t] = j
            t += 1
            j += 1
    return t


@jit()
def _member_row(a, alo, ahi, b, blo, bhi, pos):
    """``pos[i]`` = the position of ``a[i]`` in ``b[blo:bhi]``, or -1 (both sorted)."""
    j = blo
    for i in range(alo, ahi):
        x = a[i]
        while j < bhi and b[j] < x:
            j += 1
        pos[i] = j if (j < bhi and b[j] == x) else -1


# ------------------------------------------------------------------- over all the rows


@jit()
def _merge_rows_seq(a_ptr, a_idx, b_ptr, b_idx, mode, c_ptr, out_like):
    """Both passes on one thread: ``c_ptr`` (zeros, one more than the rows) becomes the
    output's row pointers; returns ``(out, pa, pb)``, ``out`` of ``out_like``'s dtype.
    One kernel instead of a count and a fill kernel: a new process loads one entry from
    the kernel cache instead of two (2-4 ms each)."""
    m = c_ptr.size - 1
    for r in range(m):
        c_ptr[r + 1] = c_ptr[r] + _count(a_idx, a_ptr[r], a_ptr[r + 1], b_idx, b_ptr[r],
                                         b_ptr[r + 1], mode)
    nnz = c_ptr[m]
    out = np.empty(nnz, out_like.dtype)
    pa = np.empty(nnz, np.int64)
    pb = np.empty(nnz, np.int64)
    for r in range(m):
        _fill(a_idx, a_ptr[r], a_ptr[r + 1], b_idx, b_ptr[r], b_ptr[r + 1], mode, out, pa,
              pb, c_ptr[r])
    return out, pa, pb


@jit(parallel=True)
def _merge_rows_par(a_ptr, a_idx, b_ptr, b_idx, mode, c_ptr, out, pa, pb, fill):
    """One pass over the rows in parallel: without ``fill``, each row's output count at
    ``c_ptr[r + 1]`` (``out``, ``pa``, ``pb`` empty); with it, the entries at the row
    pointers ``c_ptr``.  One kernel for both passes, called with one signature: a new
    process loads one entry from the kernel cache instead of two."""
    m = c_ptr.size - 1
    if fill:
        for r in prange(m):
            _fill(a_idx, a_ptr[r], a_ptr[r + 1], b_idx, b_ptr[r], b_ptr[r + 1], mode, out,
                  pa, pb, c_ptr[r])
    else:
        for r in prange(m):
            c_ptr[r + 1] = _count(a_idx, a_ptr[r], a_ptr[r + 1], b_idx, b_ptr[r],
                                  b_ptr[r + 1], mode)


@jit()
def _member_rows_seq(a_ptr, a_idx, b_ptr, b_idx, pos):
    for r in range(a_ptr.size - 1):
        _member_row(a_idx, a_ptr[r], a_ptr[r + 1], b_idx, b_ptr[r], b_ptr[r + 1], pos)


@jit(parallel=True)
def _member_rows_par(a_ptr, a_idx, b_ptr, b_idx, pos):
    for r in prange(a_ptr.size - 1):
        _member_row(a_idx, a_ptr[r], a_ptr[r + 1], b_idx, b_ptr[r], b_ptr[r + 1], pos)


def _parallel(total: int) -> bool:
    return total >= PARALLEL_ENTRIES and numba.get_num_threads() > 1


def _check_rows(a_ptr, b_ptr) -> None:
    if a_ptr.shape[0] != b_ptr.shape[0] or a_ptr.shape[0] == 0:
        raise ValueError("merge: the two row-pointer arrays must have the same length "
                         f"(>= 1), got {a_ptr.shape[0]} and {b_ptr.shape[0]}")


def _merge_rows(a_ptr, a_idx, b_ptr, b_idx, mode: int, out_dtype):
    _check_rows(a_ptr, b_ptr)
    m = a_ptr.shape[0] - 1
    if not _parallel(a_idx.shape[0] + b_idx.shape[0]):
        c_ptr = np.zeros(m + 1, np.int64)
        out, pa, pb = _merge_rows_seq(a_ptr, a_idx, b_ptr, b_idx, mode, c_ptr,
                                      np.empty(0, out_dtype))
        return c_ptr, out, pa, pb
    c_ptr = np.zeros(m + 1, np.int64)
    none = np.empty(0, np.int64)
    _merge_rows_par(a_ptr, a_idx, b_ptr, b_idx, mode, c_ptr, np.empty(0, out_dtype), none,
                    none, False)
    np.cumsum(c_ptr[1:], out=c_ptr[1:])
    nnz = int(c_ptr[m])
    out = np.empty(nnz, out_dtype)
    pa = np.empty(nnz, np.int64)
    pb = np.empty(nnz, np.int64)
    if nnz:
        _merge_rows_par(a_ptr, a_idx, b_ptr, b_idx, mode, c_ptr, out, pa, pb, True)
    return c_ptr, out, pa, pb


def csr_union(a_ptr, a_idx, b_ptr, b_idx, out_dtype=None):
    """The union of two CSR patterns of one shape (columns sorted within rows).

    Parameters
    ----------
    a_ptr, a_idx, b_ptr, b_idx : numpy.ndarray
        Row pointers and column indices of ``A`` and ``B`` (no duplicates in a row).
    out_dtype : dtype, optional
        Of the output's column indices (default: ``a_idx``'s).

    Returns
    -------
    indptr : int64 array
    indices : array of ``out_dtype``
    pa, pb : int64 arrays
        For each output entry its position in ``a_idx`` / ``b_idx``, or ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx, pa, pb = csr_union(np.array([0, 1, 2]), np.array([3, 0]),
    ...                              np.array([0, 1, 1]), np.array([1]))
    >>> ptr.tolist(), idx.tolist(), pa.tolist(), pb.tolist()
    ([0, 2, 3], [1, 3, 0], [-1, 0, 1], [0, -1, -1])
    """
    return _merge_rows(a_ptr, a_idx, b_ptr, b_idx, UNION,
                       a_idx.dtype if out_dtype is None else out_dtype)


def csr_intersect(a_ptr, a_idx, b_ptr, b_idx, out_dtype=None):
    """The intersection of two CSR patterns of one shape (as :func:`csr_union`).

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx, pa, pb = csr_intersect(np.array([0, 2]), np.array([1, 3]),
    ...                                  np.array([0, 2]), np.array([3, 5]))
    >>> ptr.tolist(), idx.tolist(), pa.tolist(), pb.tolist()
    ([0, 1], [3], [1], [0])
    """
    return _merge_rows(a_ptr, a_idx, b_ptr, b_idx, INTERSECT,
                       a_idx.dtype if out_dtype is None else out_dtype)


def csr_member(a_ptr, a_idx, b_ptr, b_idx):
    """For every entry of ``A``, its position in ``B``'s pattern (same row), or ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> csr_member(np.array([0, 3]), np.array([0, 2, 5]),
    ...            np.array([0, 2]), np.array([2, 4])).tolist()
    [-1, 0, -1]
    """
    _check_rows(a_ptr, b_ptr)
    pos = np.empty(a_idx.shape[0], np.int64)
    if pos.shape[0]:
        par = _parallel(a_idx.shape[0] + b_idx.shape[0])
        (_member_rows_par if par else _member_rows_seq)(a_ptr, a_idx, b_ptr, b_idx, pos)
    return pos


# ---------------------------------------------------------------- sorted 1-D key arrays


def _chunks(a, b):
    """Row pointers cutting sorted ``a`` and ``b`` into aligned chunks (one per thread,
    or a single one when small): chunk ``t`` holds ``a[ap[t]:ap[t+1]]`` and the keys of
    ``b`` in the same key range."""
    na, nb = a.shape[0], b.shape[0]
    nt = numba.get_num_threads() if _parallel(na + nb) else 1
    if nt == 1 or na == 0:
        return np.array([0, na], np.int64), np.array([0, nb], np.int64)
    ap = (np.arange(nt + 1, dtype=np.int64) * na) // nt
    bp = np.empty(nt + 1, np.int64)
    bp[0], bp[nt] = 0, nb
    bp[1:nt] = np.searchsorted(b, a[ap[1:nt]], side="left")
    return ap, bp


def _merge_sorted(a, b, mode):
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    dt = np.result_type(a.dtype, b.dtype)
    ap, bp = _chunks(a, b)
    _, keys, pa, pb = _merge_rows(ap, a, bp, b, mode, dt)
    return keys, pa, pb


def union_sorted(a, b):
    """Union of two sorted arrays of unique keys: ``(keys, pa, pb)``, ``pa``/``pb`` the
    position of each key in ``a``/``b`` or ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> union_sorted(np.array([], np.int64), np.array([5]))[0].tolist()
    [5]
    """
    return _merge_sorted(a, b, UNION)


def intersect_sorted(a, b):
    """Intersection of two sorted arrays of unique keys: ``(keys, pa, pb)``.

    Examples
    --------
    >>> import numpy as np
    >>> intersect_sorted(np.array([1, 2, 3]), np.array([2, 3, 4]))[0].tolist()
    [2, 3]
    """
    return _merge_sorted(a, b, INTERSECT)


def member_sorted(a, b):
    """Position of each key of sorted unique ``a`` in sorted unique ``b``, or ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> member_sorted(np.array([1, 2, 3]), np.array([2, 3, 4])).tolist()
    [-1, 0, 1]
    """
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    ap, bp = _chunks(a, b)
    return csr_member(ap, a, bp, b)


# ------------------------------------------------------------------------ registration


def _register() -> None:
    from ..registry import register

    for fmt, fns in (("csr", (csr_union, csr_intersect, csr_member)),
                     ("keys", (union_sorted, intersect_sorted, member_sorted))):
        for op, f in zip(("merge_union", "merge_intersect", "merge_member"), fns):
            register(op, fmt, "cpu")(f)


_register()
