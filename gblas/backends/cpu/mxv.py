"""CPU (Numba) matrix-vector kernels over a semiring: masked pull SpMV and push SpMSpV.

Pull (``y = A x`` with dense ``x``)
    Rows are cut into one block per thread of equal cost (entries + rows,
    :mod:`.blocks`) and every row is one fold of :mod:`.folds`.  The flags (iso, mask,
    presence of ``x``) are runtime arguments tested once per row, so one compiled kernel
    serves every variant.  With ``x`` fully present and float32 ``plus_times``, the
    result is bitwise equal to SciPy's ``A @ x`` (same order of additions).

Push (``y = A x`` with sparse ``x``, given ``AT`` = CSR of ``A``'s transpose)
    Small work runs sequentially: products scattered into a dense accumulator with
    presence flags, the touched rows collected and sorted, a sparse result returned.
    Large work splits the *rows of y* between the threads: every thread walks the whole
    frontier but only the part of each ``AT`` row that falls in its range (found by
    binary search), so no two threads write one entry and no atomics are needed.  A
    ``min`` or ``max`` monoid drops the presence flags there (a row was reached iff its
    accumulator left the identity), with a fallback to the flagged kernel when a product
    equals the identity or is NaN.  Both paths add the products of one output entry in
    increasing ``k``, the order of the pull kernel, so pull and push agree bitwise.

Kernels are cached in memory per semiring (:data:`_PULL`, :data:`_PUSH`) and on disk by
:mod:`.jitcache`.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..registry import VecData, register
from ..rowcount import row_counts
from .blocks import num_threads, row_bounds, run_blocks
from .folds import KernelCache, folds, semiring_parts
from .jitcache import jit
from .operands import as_bool, matrix_values, pull_operands, sparse_x, uindex
from .prefetch import DISTANCE as PREFETCH_DISTANCE
from .prefetch import prefetcher

__all__ = ["pull", "push", "rowcount"]


#: Push runs sequentially below this many (frontier entry, edge) pairs.
PUSH_PARALLEL_WORK = 1 << 15

#: A parallel push returns a sparse result when at most 1/this of the rows get an entry.
SPARSE_RESULT_SHARE = 4

_U1 = np.uint64(1)

#: Scatter kernels prefetch ``y[indices[p + _AHEAD]]`` (module :mod:`.prefetch`).
_AHEAD = np.uint64(PREFETCH_DISTANCE)


# -------------------------------------------------------------------------------- pull


def _build_pull(semiring: Any, types: tuple):
    fold = folds(semiring, types).fold
    zero = types[2].type(0)

    @jit()
    def pull_rows(lo, hi, indptr, indices, avals, iso, x, xpres, xall, allow, has_allow, out,
                  present):
        for i in range(lo, hi):
            out[i] = zero
            present[i] = False
            s = indptr[i]
            e = indptr[i + 1]
            if s != e and not (has_allow and not allow[i]):
                found, acc = fold(s, e, indices, avals, iso, x, xpres, xall)
                if found:  # a conditional store: LLVM lays the loop out better
                    out[i] = acc
                    present[i] = True

    return pull_rows


_PULL = KernelCache(_build_pull)


@register("mxv", "csr", "cpu", "pull")
def pull(A: Any, x: VecData, allow: Any, semiring: Any, types: tuple) -> VecData:
    """Masked pull SpMV: ``y[i] = add_k mul(A[i, k], x[k])`` for the rows ``allow`` keeps.

    Parameters
    ----------
    A : CSR
        The matrix (iso allowed).
    x : VecData
        Dense (``present`` None when every entry is present); a sparse one is densified.
    allow : ndarray of bool or None
        Rows to compute (None: all).
    semiring, types : Semiring, tuple of dtype
        The semiring and its ``(T, M, R)`` (:meth:`Semiring.types`).

    Returns
    -------
    VecData
        Dense, values of dtype R; ``present`` False for skipped rows and rows without a
        product.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.semirings import semiring
    >>> A = CSR.from_coo(np.array([0, 0, 1]), np.array([0, 1, 1]),
    ...                  np.array([1.0, 2.0, 3.0]), (3, 2))
    >>> s = semiring("plus_times")
    >>> y = pull(A, VecData(2, None, np.array([10.0, 1.0])), None, s,
    ...          s.types(np.dtype("f8"), np.dtype("f8")))
    >>> y.values[y.present].tolist(), y.present.tolist()
    ([12.0, 3.0], [True, True, False])
    """
    m = int(A.shape[0])
    out, present, xv, xp, xall = pull_operands(m, x, types[2])
    if m == 0:
        return VecData(m, None, out, present)
    indptr = uindex(A.indptr)
    avals, iso = matrix_values(A)
    bounds = row_bounds(indptr, int(A.indices.size))
    run_blocks(_PULL.get(semiring, types), bounds, indptr, uindex(A.indices), avals, iso, xv,
               xp, xall, as_bool(allow), allow is not None, out, present)
    return VecData(m, None, out, present)


# -------------------------------------------------------------------------------- push


@jit()
def _span_from(indptr, indices, kk, lo, hi):
    """``(left, e)``: the entries of row ``kk`` of AT from its first index ``>= lo`` to
    the row's end (an empty span when no index falls in ``[lo, hi)``'s reach); the
    scatter stops at the first index ``>= hi`` itself."""
    s = indptr[kk]
    e = indptr[kk + _U1]
    if s == e or np.int64(indices[s]) >= hi or np.int64(indices[e - _U1]) < lo:
        return e, e
    left = s
    right = e
    while left < right:  # binary search for the first index >= lo
        mid = left + ((right - left) >> _U1)
        if np.int64(indices[mid]) < lo:
            left = mid + _U1
        else:
            right = mid
    return left, e


def _build_push(semiring: Any, types: tuple):
    mul, _, to_r, _, _, _ = semiring_parts(semiring, types)
    f = folds(semiring, types)
    done, combine = f.done, f.combine
    prefetch = prefetcher()

    @jit()
    def push_seq(indptr, indices, avals, iso, xi, xv, allow, has_allow, out, flag, touched):
        """Sequential scatter; returns the number of rows touched (listed in touched)."""
        cnt = 0
        a0 = avals[0]
        for q in range(xi.size):
            kk = xi[q]
            xk = xv[q]
            e = indptr[kk + _U1]
            for p in range(indptr[kk], e):
                if p + _AHEAD < e:
                    prefetch(out, indices[p + _AHEAD])
                i = indices[p]
                if has_allow and not allow[i]:
                    continue
                seen = flag[i]
                if seen and done(out[i]):
                    continue
                out[i] = combine(seen, out[i], to_r(mul(a0 if iso else avals[p], xk)))
                if not seen:
                    flag[i] = True
                    touched[cnt] = i
                    cnt += 1
        return cnt

    push_parts = _parts_kernel(semiring, types, selecting=False)

    return push_seq, push_parts


_PUSH = KernelCache(_build_push)

#: Monoids whose sum is one of its terms (``min``, ``max``): the push may start every
#: accumulator at the identity and tell the touched rows by ``y != identity`` afterwards.
_SELECTING = ("min", "max")


def _selecting_identity(semiring: Any, R: np.dtype):
    """The monoid's identity at ``R`` when the flag-free push applies, else None."""
    add = semiring.add
    if add.any_value or getattr(add.op, "code", None) not in _SELECTING or R.kind not in "iuf":
        return None
    ident = add.identity_for(R)
    return None if ident is None else R.type(ident)


def _parts_kernel(semiring: Any, types: tuple, selecting: bool):
    """The parallel push over row parts of y, with presence flags or, for a selecting
    monoid (``min``, ``max``; ``selecting=True``), without them.

    Both variants walk the whole frontier per part and scatter the part of each AT row
    that falls in the part's rows (no two threads write one entry, no atomics), with the
    accumulator of the product :data:`_AHEAD` entries ahead prefetched.

    Without flags, every accumulator starts at the identity ``e`` and takes
    ``add(y[i], t)``: one random access per product instead of two (the flags).
    ``add(e, t) == t`` and the sum of selected
    products is one of them, so a row was reached iff ``y[i] != e`` -- unless a product
    equals ``e`` or is NaN: ``counts[part]`` is then -1 and the caller runs the flagged
    kernel instead (exact).  Each part fills its rows with ``e`` first and afterwards sets
    their flags and counts them, so every pass over ``y`` runs in parallel.  ``selecting``
    is a constant of the closure: Numba compiles only the branch it names.
    """
    mul, add, to_r, _, _, _ = semiring_parts(semiring, types)
    f = folds(semiring, types)
    done, combine = f.done, f.combine
    R = np.dtype(types[2])
    ident = _selecting_identity(semiring, R) if selecting else R.type(0)
    prefetch = prefetcher()

    @jit()
    def parts(lo_part, hi_part, indptr, indices, avals, iso, xi, xv, allow, has_allow,
              nrows, nparts, out, flag, counts):
        """Scatter into the rows of parts ``[lo_part, hi_part)`` of y (``nparts``
        ranges); without flags, ``counts[part]``: the rows reached, or -1 (see above)."""
        for part in range(lo_part, hi_part):
            lo = nrows * part // nparts
            hi = nrows * (part + 1) // nparts
            if selecting:
                for i in range(lo, hi):
                    out[i] = ident
            a0 = avals[0]
            sp = False
            for q in range(xi.size):
                left, e = _span_from(indptr, indices, xi[q], lo, hi)
                xk = xv[q]
                for p in range(left, e):
                    if p + _AHEAD < e:
                        prefetch(out, indices[p + _AHEAD])
                    i = indices[p]
                    if np.int64(i) >= hi:
                        break
                    if has_allow and not allow[i]:
                        continue
                    if selecting:
                        t = to_r(mul(a0 if iso else avals[p], xk))
                        sp |= (t == ident) | (t != t)
                        out[i] = add(out[i], t)
                        continue
                    seen = flag[i]
                    if seen and done(out[i]):
                        continue
                    out[i] = combine(seen, out[i], to_r(mul(a0 if iso else avals[p], xk)))
                    flag[i] = True
            if selecting:
                cnt = 0
                for i in range(lo, hi):
                    f = out[i] != ident
                    flag[i] = f
                    cnt += f
                counts[part] = -1 if sp else cnt

    return parts


def _build_push_select(semiring: Any, types: tuple):
    """The flag-free parallel push of a selecting monoid (:func:`_parts_kernel`)."""
    return _parts_kernel(semiring, types, selecting=True)


@jit()
def _compact_parts(lo_part, hi_part, nrows, nparts, flag, out, offsets, counts, idx, vals):
    """The ``counts[part]`` flagged rows of parts ``[lo_part, hi_part)`` and their values,
    written from ``offsets[part]`` on: every row is written and the position advances by
    its flag (no branch on the flag), up to the part's last flagged row (the next slot
    belongs to the next part)."""
    for part in range(lo_part, hi_part):
        lo = nrows * part // nparts
        hi = nrows * (part + 1) // nparts
        k = offsets[part]
        end = k + counts[part]
        for i in range(lo, hi):
            if k == end:
                break
            idx[k] = i
            vals[k] = out[i]
            k += flag[i]


_PUSH_SELECT = KernelCache(_build_push_select)


@register("mxv", "csr", "cpu", "push")
def push(AT: Any, x: VecData, allow: Any, semiring: Any, types: tuple, nrows: int) -> VecData:
    """Push SpMSpV: ``y[i] = add_k mul(A[i, k], x[k])`` scattered from the entries of ``x``.

    Parameters
    ----------
    AT : CSR
        The CSR of ``A``'s transpose (row k lists the i with an entry ``A[i, k]``).
    x : VecData
        Sparse (sorted indices); a dense one is compressed first.
    allow : ndarray of bool or None
        Rows of ``y`` to compute (None: all).
    semiring, types : Semiring, tuple of dtype
        The semiring and its ``(T, M, R)`` (:meth:`Semiring.types`).
    nrows : int
        Size of ``y`` (rows of A).

    Returns
    -------
    VecData
        Sparse (int64 sorted indices) when the work was small enough to run sequentially
        or at most 1/``SPARSE_RESULT_SHARE`` of the rows got an entry, dense (``present``
        flags) otherwise; values of dtype R.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.semirings import semiring
    >>> AT = CSR.from_coo(np.array([0, 1, 1]), np.array([0, 0, 1]),
    ...                   np.array([1.0, 2.0, 3.0]), (2, 3))     # A' of the pull example
    >>> s = semiring("min_plus")
    >>> y = push(AT, VecData(2, np.array([1]), np.array([1.0])), None, s,
    ...          s.types(np.dtype("f8"), np.dtype("f8")), 3)
    >>> y.indices.tolist(), y.values.tolist()
    ([0, 1], [3.0, 4.0])
    """
    R = np.dtype(types[2])
    nrows = int(nrows)
    xi, xv = sparse_x(x)
    xi = uindex(xi)
    indptr = uindex(AT.indptr)
    work = int(_frontier_work(indptr, xi)) if xi.size else 0
    if work == 0 or nrows == 0:
        return VecData(nrows, np.zeros(0, np.int64), np.zeros(0, R), None)
    avals, iso = matrix_values(AT)
    has_allow = allow is not None
    allow = as_bool(allow)
    ident = _selecting_identity(semiring, R)
    if ident is not None and work >= PUSH_PARALLEL_WORK:
        y = _push_select(AT, xi, xv, avals, iso, allow, has_allow, semiring, types, nrows,
                         ident)
        if y is not None:
            return y
    seq, par = _PUSH.get(semiring, types)
    if work < PUSH_PARALLEL_WORK:
        out, flag = _scratch(nrows, R)
        touched = np.empty(min(work, nrows), dtype=np.int64)
        try:
            cnt = seq(indptr, uindex(AT.indices), avals, iso, xi, xv, allow, has_allow, out,
                      flag, touched)
        except BaseException:
            _SCRATCH.bufs = None  # the flags may be half set: never reused
            raise
        idx = np.sort(touched[:cnt])
        got = out[idx]
        flag[idx] = False  # the scratch clean again: O(rows touched)
        return VecData(nrows, idx, got, None)
    out = np.zeros(nrows, dtype=R)
    flag = np.zeros(nrows, dtype=np.bool_)
    nthreads = num_threads()
    parts = np.arange(nthreads + 1, dtype=np.int64)
    run_blocks(par, parts, indptr, uindex(AT.indices), avals, iso, xi, xv, allow, has_allow,
               nrows, nthreads, out, flag, np.zeros(0, dtype=np.int64))
    if int(np.count_nonzero(flag)) * SPARSE_RESULT_SHARE <= nrows:
        # few rows reached: a sparse result keeps the write-back and the next operations
        # in O(entries) instead of O(nrows)
        idx = np.flatnonzero(flag)
        return VecData(nrows, idx, out[idx], None)
    return VecData(nrows, None, out, flag)


@jit()
def _frontier_work(indptr, xi):
    """The entries of the rows ``xi`` of the CSR with these row pointers."""
    work = 0
    for q in range(xi.size):
        k = xi[q]
        work += np.int64(indptr[k + _U1]) - np.int64(indptr[k])
    return work


#: The sequential push's accumulator and flags, kept between calls (per thread, for the
#: last row count and type) up to this many bytes: a small frontier's product then costs
#: O(its edges), not the O(rows) of new zeroed arrays (a road network's BFS written with
#: ``gb.vxm`` runs a thousand such levels).  The flags are cleared where they were set.
SCRATCH_MAX_BYTES = 64 << 20

_SCRATCH = threading.local()


def _scratch(nrows: int, R: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """``(accumulator, flags)`` of ``nrows`` for the sequential push: the flags all False,
    the accumulator's contents undefined (a row's first product overwrites it)."""
    key = (nrows, R)
    got = getattr(_SCRATCH, "bufs", None)
    if got is not None and got[0] == key:
        return got[1], got[2]
    out, flag = np.empty(nrows, dtype=R), np.zeros(nrows, dtype=np.bool_)
    if nrows * (R.itemsize + 1) <= SCRATCH_MAX_BYTES:
        _SCRATCH.bufs = (key, out, flag)
    return out, flag


def _push_select(AT, xi, xv, avals, iso, allow, has_allow, semiring, types, nrows: int,
                 ident) -> VecData | None:
    """The parallel flag-free push of a selecting monoid; None when a product equals the
    identity or is NaN (the caller then runs the flagged kernels)."""
    R = np.dtype(types[2])
    par = _PUSH_SELECT.get(semiring, types)
    nthreads = num_threads()
    parts = np.arange(nthreads + 1, dtype=np.int64)
    out = np.empty(nrows, dtype=R)
    flag = np.empty(nrows, dtype=np.bool_)
    counts = np.zeros(nthreads, dtype=np.int64)
    run_blocks(par, parts, uindex(AT.indptr), uindex(AT.indices), avals, iso, xi, xv, allow,
               has_allow, nrows, nthreads, out, flag, counts)
    if (counts < 0).any():
        return None
    total = int(counts.sum())
    if total * SPARSE_RESULT_SHARE > nrows:
        return VecData(nrows, None, out, flag)
    # few rows reached: a sparse result, compacted per part (in order)
    offsets = np.zeros(nthreads, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    idx = np.empty(total, dtype=np.int64)
    vals = np.empty(total, dtype=R)
    run_blocks(_compact_parts, parts, nrows, nthreads, flag, out, offsets, counts, idx, vals)
    return VecData(nrows, idx, vals, None)


@register("mxv", "csr", "cpu", "rowcount")
def rowcount(A, x, allow, semiring, types):
    """Pull ``A (+.pair) x`` for a full ``x``: the row pointers' differences."""
    return row_counts(np, A, x, allow, semiring, types)
