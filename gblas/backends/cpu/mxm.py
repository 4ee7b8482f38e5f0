"""CPU (Numba) matrix-matrix kernels over a semiring: masked Gustavson SpGEMM and masked dot.

Saxpy (Gustavson), ``C<M> = A B``
    Row i of C is ``add_k mul(A[i, k], B[k, :])``, accumulated in a dense workspace of
    length ``ncols(B)`` per thread.  Without a mask, or with a complemented one, a symbolic
    pass counts each row's entries and a numeric one fills them; under a plain mask one
    pass writes C's rows into mask-sized slots, in the mask row's (sorted) column order,
    compacted afterwards.  One ``int64`` workspace holds a per-row stamp for every column
    (``2s - 1``: a column of the mask row, ``s = i + 1``; ``2s``: a column already
    produced; smaller: stale), so nothing is cleared between rows.  Row blocks are
    balanced by flop count.  Output columns are sorted per row: a scan of the workspace
    when the row is dense within its span, else an insertion sort (short rows) or an 8-bit
    LSD radix sort.

Dot, ``C<M> = A B`` with ``BT = B^T``
    For every allowed entry (i, j) of a non-complemented mask, the sorted rows
    ``A[i, :]`` and ``BT[j, :]`` are intersected (a merge, or binary searches of the
    shorter row in the longer one); pairs fold in increasing k (:mod:`.folds`).

A result starts from its first product (no identity); kernels are cached per
(semiring, T, M, R) and read index arrays through unsigned views.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..registry import CSRData, MatMask, register
from .blocks import cost_bounds, run_blocks
from .folds import KernelCache, folds, semiring_parts
from .jitcache import jit
from .operands import BOOL_DUMMY, matrix_values, uindex

__all__ = ["saxpy", "dot"]

_U1 = np.uint64(1)
_U16 = np.uint64(16)


# ----------------------------------------------------------------------------- helpers


def _mask_arrays(mask: MatMask | None) -> tuple:
    """``(indptr, indices, truthy, has_values, mode)`` of a mask; mode 0 none, 1 allow,
    2 complemented."""
    if mask is None:
        z = np.zeros(1, dtype=np.uint32)
        return z, z, BOOL_DUMMY, False, 0
    mode = 2 if mask.complement else 1
    if mask.structural or mask.values is None:
        return uindex(mask.indptr), uindex(mask.indices), BOOL_DUMMY, False, mode
    v = np.asarray(mask.values)
    truthy = v if v.dtype == np.bool_ else v != 0
    return (uindex(mask.indptr), uindex(mask.indices), np.ascontiguousarray(truthy), True,
            mode)


@jit()
def _flops(a_indptr, a_indices, b_indptr):
    """Per-row flop count of ``A B`` (plus one per row), as int64."""
    m = a_indptr.size - 1
    f = np.empty(m, np.int64)
    for i in range(m):
        t = np.int64(1)
        for p in range(a_indptr[i], a_indptr[i + 1]):
            k = a_indices[p]
            t += np.int64(b_indptr[k + _U1]) - np.int64(b_indptr[k])
        f[i] = t
    return f


def _empty(shape: tuple[int, int], R: np.dtype) -> CSRData:
    m, n = shape
    return CSRData(shape, np.zeros(m + 1, np.int32), np.zeros(0, dtypes.index_dtype(n)),
                   np.zeros(0, R), np.dtype(R))


def _finish_csr(shape, counts: np.ndarray, R: np.dtype):
    """indptr from per-row counts, and empty indices / values arrays to fill."""
    nnz = int(counts.sum())
    indptr = np.zeros(shape[0] + 1, dtype=dtypes.index_dtype(nnz))
    np.cumsum(counts, out=indptr[1:])
    indices = np.empty(nnz, dtype=dtypes.index_dtype(shape[1]))
    values = np.empty(nnz, dtype=R)
    return indptr, indices, values


# ------------------------------------------------------------------------------- saxpy


@jit()
def _radix_pass(src, s0, dst, d0, n, kmin, shift, counts):
    """One stable counting-sort pass on the 8-bit digit at ``shift`` of ``key - kmin``."""
    for d in range(256):
        counts[d] = 0
    for t in range(n):
        counts[((np.int64(src[s0 + t]) - kmin) >> shift) & 255] += 1
    total = 0
    for d in range(256):
        c = counts[d]
        counts[d] = total
        total += c
    for t in range(n):
        v = src[s0 + t]
        d = ((np.int64(v) - kmin) >> shift) & 255
        dst[d0 + counts[d]] = v
        counts[d] += 1


@jit()
def _sort_columns(a, lo, hi, kmin, kmax, tmp):
    """Sort ``a[lo:hi]`` (distinct values in ``[kmin, kmax]``) in place: insertion sort
    when short, LSD radix sort on ``key - kmin`` (8 bits per pass, ``tmp`` as scratch of at
    least ``hi - lo``) otherwise.

    (Not Numba's ``ndarray.sort``: it adds compile time to every kernel that calls it.)
    """
    n = hi - lo
    if n <= 32:
        for i in range(lo + 1, hi):
            v = a[i]
            j = i - 1
            while j >= lo and a[j] > v:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
        return
    counts = np.empty(256, np.int64)
    span = kmax - kmin
    zero = np.int64(0)  # not a literal 0: that would compile another _radix_pass variant
    shift = zero
    in_a = True
    while shift == 0 or (span >> shift) > 0:
        if in_a:
            _radix_pass(a, lo, tmp, zero, n, kmin, shift, counts)
        else:
            _radix_pass(tmp, zero, a, lo, n, kmin, shift, counts)
        in_a = not in_a
        shift += 8
    if not in_a:
        for t in range(n):
            a[lo + t] = tmp[t]


@jit()
def _emit_row(state, s2, acc, c_indices, c_vals, base, c, cmin, cmax, tmp):
    """Write the ``c`` columns of a row (stamped ``s2`` in ``state``, listed unsorted at
    ``c_indices[base:base + c]``) and their values from ``acc``, in column order."""
    if cmax - cmin < 4 * c:
        # dense within its span: a scan of the workspace lists the columns in order
        t = base
        for j in range(cmin, cmax + 1):
            if state[j] == s2:
                c_indices[t] = j
                c_vals[t] = acc[j]
                t += 1
        return
    _sort_columns(c_indices, base, base + c, cmin, cmax, tmp)
    for t in range(base, base + c):
        c_vals[t] = acc[c_indices[t]]


@jit()
def _mark_mask(i, state, marked, m_indptr, m_indices, m_truthy, has_mvals):
    """Stamp the allowed columns of mask row ``i``; returns how many there are."""
    nm = 0
    for p in range(m_indptr[i], m_indptr[i + 1]):
        if has_mvals and not m_truthy[p]:
            continue
        state[m_indices[p]] = marked
        nm += 1
    return nm


@jit()
def _saxpy_count(lo, hi, a_indptr, a_indices, b_indptr, b_indices, ncols, m_indptr,
                 m_indices, m_truthy, has_mvals, mode, counts):
    """Symbolic phase (no semiring): the number of entries of rows ``[lo, hi)`` of C."""
    state = np.zeros(ncols, np.int64)
    for i in range(lo, hi):
        s2 = 2 * (i + 1)
        marked = s2 - 1
        if mode != 0:
            nm = _mark_mask(i, state, marked, m_indptr, m_indices, m_truthy, has_mvals)
            if mode == 1 and nm == 0:
                counts[i] = 0
                continue
        c = 0
        for pa in range(a_indptr[i], a_indptr[i + 1]):
            k = a_indices[pa]
            for pb in range(b_indptr[k], b_indptr[k + _U1]):
                j = b_indices[pb]
                st = state[j]
                if st == s2 or (mode == 1 and st < marked) or (mode == 2 and st == marked):
                    continue
                state[j] = s2
                c += 1
        counts[i] = c


def _build_saxpy(semiring: Any, types: tuple):
    mul, add, to_r, _, _, _ = semiring_parts(semiring, types)
    done = folds(semiring, types).done
    R = types[2]

    @jit()
    def saxpy_rows(lo, hi, a_indptr, a_indices, a_vals, a_iso, b_indptr, b_indices, b_vals,
                   b_iso, ncols, m_indptr, m_indices, m_truthy, has_mvals, mode, c_indptr,
                   c_indices, c_vals):
        """Numeric phase: fill rows ``[lo, hi)`` of C (their sizes known from the count)."""
        state = np.zeros(ncols, np.int64)
        acc = np.empty(ncols, R)
        tmp = np.empty(ncols, c_indices.dtype)
        a0 = a_vals[0]
        b0 = b_vals[0]
        for i in range(lo, hi):
            base = np.int64(c_indptr[i])
            if np.int64(c_indptr[i + 1]) == base:
                continue
            s2 = 2 * (i + 1)
            marked = s2 - 1
            if mode != 0:
                _mark_mask(i, state, marked, m_indptr, m_indices, m_truthy, has_mvals)
            c = 0
            cmin = ncols
            cmax = -1
            for pa in range(a_indptr[i], a_indptr[i + 1]):
                k = a_indices[pa]
                av = a0 if a_iso else a_vals[pa]
                for pb in range(b_indptr[k], b_indptr[k + _U1]):
                    j = b_indices[pb]
                    st = state[j]
                    if (mode == 1 and st < marked) or (mode == 2 and st == marked):
                        continue
                    if st == s2 and done(acc[j]):
                        continue
                    prod = to_r(mul(av, b0 if b_iso else b_vals[pb]))
                    if st == s2:
                        acc[j] = add(acc[j], prod)
                    else:
                        state[j] = s2
                        acc[j] = prod
                        c_indices[base + c] = j
                        c += 1
                        jj = np.int64(j)
                        cmin = min(cmin, jj)
                        cmax = max(cmax, jj)
            _emit_row(state, s2, acc, c_indices, c_vals, base, c, cmin, cmax, tmp)

    @jit()
    def saxpy_masked_rows(lo, hi, a_indptr, a_indices, a_vals, a_iso, b_indptr, b_indices,
                          b_vals, b_iso, ncols, m_indptr, m_indices, m_truthy, has_mvals,
                          ub_indptr, c_indices, c_vals, counts):
        """One pass under a non-complemented mask: rows ``[lo, hi)`` of C are written at
        ``ub_indptr[i]`` (room for the row's mask entries), in the mask row's (sorted)
        column order; ``counts[i]`` gets the row's number of entries."""
        state = np.zeros(ncols, np.int64)
        acc = np.empty(ncols, R)
        a0 = a_vals[0]
        b0 = b_vals[0]
        for i in range(lo, hi):
            s2 = 2 * (i + 1)
            marked = s2 - 1
            if _mark_mask(i, state, marked, m_indptr, m_indices, m_truthy, has_mvals) == 0:
                counts[i] = 0
                continue
            for pa in range(a_indptr[i], a_indptr[i + 1]):
                k = a_indices[pa]
                av = a0 if a_iso else a_vals[pa]
                for pb in range(b_indptr[k], b_indptr[k + _U1]):
                    j = b_indices[pb]
                    st = state[j]
                    if st < marked:
                        continue
                    if st == s2:
                        if done(acc[j]):
                            continue
                        acc[j] = add(acc[j], to_r(mul(av, b0 if b_iso else b_vals[pb])))
                    else:
                        state[j] = s2
                        acc[j] = to_r(mul(av, b0 if b_iso else b_vals[pb]))
            base = np.int64(ub_indptr[i])
            t = base
            for p in range(m_indptr[i], m_indptr[i + 1]):
                j = m_indices[p]
                if state[j] == s2:
                    c_indices[t] = j
                    c_vals[t] = acc[j]
                    t += 1
            counts[i] = t - base

    return saxpy_rows, saxpy_masked_rows


_SAXPY = KernelCache(_build_saxpy)


@register("mxm", "csr", "cpu", "saxpy")
def saxpy(A: Any, B: Any, mask: MatMask | None, semiring: Any, types: tuple) -> CSRData:
    """Masked Gustavson SpGEMM: ``C[i, j] = add_k mul(A[i, k], B[k, j])``.

    Parameters
    ----------
    A, B : CSR
        The operands (iso allowed); ``A.shape[1] == B.shape[0]``.
    mask : MatMask or None
        Only allowed entries are produced (value masks count truthy values unless
        ``structural``; ``complement`` inverts).
    semiring, types : Semiring, tuple of dtype
        The semiring and its ``(T, M, R)`` (:meth:`Semiring.types`).

    Returns
    -------
    CSRData
        Of dtype R, column indices sorted within rows.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.semirings import semiring
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), np.array([2.0, 3.0]), (2, 2))
    >>> s = semiring("plus_times")
    >>> C = saxpy(A, A, None, s, s.types(np.dtype("f8"), np.dtype("f8")))
    >>> C.indptr.tolist(), C.indices.tolist(), C.values.tolist()
    ([0, 1, 2], [0, 1], [6.0, 6.0])
    """
    R = np.dtype(types[2])
    m, p = int(A.shape[0]), int(B.shape[1])
    if m == 0 or p == 0 or A.indices.size == 0 or B.indices.size == 0:
        return _empty((m, p), R)
    a_indptr, a_indices = uindex(A.indptr), uindex(A.indices)
    b_indptr, b_indices = uindex(B.indptr), uindex(B.indices)
    a_vals, a_iso = matrix_values(A)
    b_vals, b_iso = matrix_values(B)
    m_indptr, m_indices, m_truthy, has_mvals, mode = _mask_arrays(mask)
    bounds = cost_bounds(_flops(a_indptr, a_indices, b_indptr))
    counts = np.zeros(m, dtype=np.int64)
    if mode == 1:
        return _saxpy_one_pass(semiring, types, (m, p), bounds, counts, a_indptr, a_indices,
                               a_vals, a_iso, b_indptr, b_indices, b_vals, b_iso, m_indptr,
                               m_indices, m_truthy, has_mvals)
    run_blocks(_saxpy_count, bounds, a_indptr, a_indices, b_indptr, b_indices, p, m_indptr,
               m_indices, m_truthy, has_mvals, mode, counts)
    indptr, indices, values = _finish_csr((m, p), counts, R)
    if indices.size:
        run_blocks(_SAXPY.get(semiring, types)[0], bounds, a_indptr, a_indices, a_vals, a_iso,
                   b_indptr, b_indices, b_vals, b_iso, p, m_indptr, m_indices, m_truthy,
                   has_mvals, mode, indptr, indices, values)
    return CSRData((m, p), indptr, indices, values, R)


@jit()
def _compact_rows(lo, hi, ub_indptr, indptr, src_idx, src_val, dst_idx, dst_val):
    """Move rows ``[lo, hi)`` from their mask-sized slots to their final places."""
    for i in range(lo, hi):
        s = np.int64(ub_indptr[i])
        d = np.int64(indptr[i])
        for t in range(np.int64(indptr[i + 1]) - d):
            dst_idx[d + t] = src_idx[s + t]
            dst_val[d + t] = src_val[s + t]


def _saxpy_one_pass(semiring, types, shape, bounds, counts, a_indptr, a_indices, a_vals,
                    a_iso, b_indptr, b_indices, b_vals, b_iso, m_indptr, m_indices,
                    m_truthy, has_mvals) -> CSRData:
    """Masked saxpy without the symbolic pass: C's pattern lies within the mask's, so the
    mask row sizes bound every row; the rows are then compacted (when some are short)."""
    m, p = shape
    R = np.dtype(types[2])
    ub_indptr = m_indptr
    ub = int(ub_indptr[m])
    idx = np.empty(ub, dtype=dtypes.index_dtype(p))
    val = np.empty(ub, dtype=R)
    run_blocks(_SAXPY.get(semiring, types)[1], bounds, a_indptr, a_indices, a_vals, a_iso,
               b_indptr, b_indices, b_vals, b_iso, p, m_indptr, m_indices, m_truthy,
               has_mvals, ub_indptr, idx, val, counts)
    indptr = np.zeros(m + 1, dtype=dtypes.index_dtype(int(counts.sum())))
    np.cumsum(counts, out=indptr[1:])
    nnz = int(indptr[m])
    if nnz == ub:
        return CSRData((m, p), indptr, idx, val, R)
    out_idx = np.empty(nnz, dtype=idx.dtype)
    out_val = np.empty(nnz, dtype=R)
    run_blocks(_compact_rows, cost_bounds(counts + 1), ub_indptr, indptr, idx, val, out_idx,
               out_val)
    return CSRData((m, p), indptr, out_idx, out_val, R)


# --------------------------------------------------------------------------------- dot


@jit()
def _lower_bound(idx, lo, hi, key):
    """First position in ``idx[lo:hi]`` (sorted) whose value is not below ``key``."""
    while lo < hi:
        mid = lo + ((hi - lo) >> _U1)
        if idx[mid] < key:
            lo = mid + _U1
        else:
            hi = mid
    return lo


@jit()
def _next_match(a_idx, pa, ea, b_idx, pb, eb):
    """Positions ``(qa, qb)`` of the first index common to the sorted ranges
    ``a_idx[pa:ea]`` and ``b_idx[pb:eb]``, or ``(ea, eb)`` when there is none.

    A merge step while the remaining lengths are comparable; a binary search of the
    longer range when one is more than 16 times the other.
    """
    while pa < ea and pb < eb:
        ka = a_idx[pa]
        kb = b_idx[pb]
        if ka == kb:
            return pa, pb
        if ka < kb:
            if (eb - pb) * _U16 < ea - pa:
                pa = _lower_bound(a_idx, pa + _U1, ea, kb)
            else:
                pa += _U1
        else:
            if (ea - pa) * _U16 < eb - pb:
                pb = _lower_bound(b_idx, pb + _U1, eb, ka)
            else:
                pb += _U1
    return ea, eb


def _build_dot(semiring: Any, types: tuple):
    mul, _, to_r, _, _, _ = semiring_parts(semiring, types)
    f = folds(semiring, types)
    done, combine = f.done, f.combine
    zero = types[2].type(0)

    @jit()
    def dot_rows(lo, hi, a_indptr, a_indices, a_vals, a_iso, b_indptr, b_indices, b_vals,
                 b_iso, m_indptr, m_indices, m_truthy, has_mvals, hit, out, counts):
        a0 = a_vals[0]
        b0 = b_vals[0]
        for i in range(lo, hi):
            sa = np.uint64(a_indptr[i])
            ea = np.uint64(a_indptr[i + 1])
            c = 0
            for p in range(m_indptr[i], m_indptr[i + 1]):
                hit[p] = False
                if sa == ea or (has_mvals and not m_truthy[p]):
                    continue
                j = m_indices[p]
                pa = sa
                pb = np.uint64(b_indptr[j])
                eb = np.uint64(b_indptr[j + _U1])
                acc = zero
                found = False
                while True:
                    qa, qb = _next_match(a_indices, pa, ea, b_indices, pb, eb)
                    if qa >= ea:
                        break
                    t = to_r(mul(a0 if a_iso else a_vals[qa], b0 if b_iso else b_vals[qb]))
                    acc = combine(found, acc, t)
                    found = True
                    if done(acc):
                        break
                    pa = qa + _U1
                    pb = qb + _U1
                if found:
                    out[p] = acc
                    hit[p] = True
                    c += 1
            counts[i] = c

    return dot_rows


_DOT = KernelCache(_build_dot)


@register("mxm", "csr", "cpu", "dot")
def dot(A: Any, BT: Any, mask: MatMask, semiring: Any, types: tuple) -> CSRData:
    """Masked dot-product SpGEMM: one sparse dot product per allowed entry of ``mask``.

    Parameters
    ----------
    A : CSR
        Left operand (m x n).
    BT : CSR
        CSR of the right operand's transpose (p x n).
    mask : MatMask
        Non-complemented mask of shape (m, p); value masks count truthy values unless
        ``structural``.
    semiring, types : Semiring, tuple of dtype
        The semiring and its ``(T, M, R)`` (:meth:`Semiring.types`).

    Returns
    -------
    CSRData
        Of dtype R; its pattern is the allowed mask entries with at least one common k.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.semirings import semiring
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), np.array([2.0, 3.0]), (2, 2))
    >>> mask = MatMask(np.array([0, 2, 2]), np.array([0, 1]), None, True, False)
    >>> s = semiring("plus_times")
    >>> C = dot(A, A.transpose(), mask, s, s.types(np.dtype("f8"), np.dtype("f8")))
    >>> C.indptr.tolist(), C.indices.tolist(), C.values.tolist()
    ([0, 1, 1], [0], [6.0])
    """
    if mask is None or mask.complement:
        raise ValueError("mxm dot kernel: needs a non-complemented mask (use saxpy otherwise)")
    R = np.dtype(types[2])
    m, p = int(A.shape[0]), int(BT.shape[0])
    m_indptr, m_indices, m_truthy, has_mvals, _ = _mask_arrays(mask)
    mnnz = int(mask.indices.size)
    if m == 0 or p == 0 or mnnz == 0 or A.indices.size == 0 or BT.indices.size == 0:
        return _empty((m, p), R)
    a_indptr = uindex(A.indptr)
    a_vals, a_iso = matrix_values(A)
    b_vals, b_iso = matrix_values(BT)
    mdeg = np.diff(np.asarray(mask.indptr).astype(np.int64))
    adeg = np.diff(np.asarray(A.indptr).astype(np.int64))
    bounds = cost_bounds(mdeg * (adeg + 1) + 1)
    hit = np.empty(mnnz, dtype=np.bool_)
    out = np.empty(mnnz, dtype=R)
    counts = np.empty(m, dtype=np.int64)
    a_indices, b_indices = uindex(A.indices), uindex(BT.indices)
    if a_indices.dtype != b_indices.dtype:  # the merge compares them: one type
        a_indices = a_indices.astype(np.uint64)
        b_indices = b_indices.astype(np.uint64)
    run_blocks(_DOT.get(semiring, types), bounds, a_indptr, a_indices, a_vals, a_iso,
               uindex(BT.indptr), b_indices, b_vals, b_iso, m_indptr, m_indices, m_truthy,
               has_mvals, hit, out, counts)
    nnz = int(counts.sum())
    indptr = np.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
    np.cumsum(counts, out=indptr[1:])
    indices = np.asarray(mask.indices)[hit].astype(dtypes.index_dtype(p), copy=False)
    return CSRData((m, p), indptr, indices, out[hit], R)
