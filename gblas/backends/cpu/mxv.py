"""CPU (Numba) matrix-vector kernels over a semiring: masked pull SpMV and push SpMSpV.

Structure shared by every CPU kernel
    A kernel is a sequential ``@jit()`` function over a range of rows (or parts),
    ``rows(lo, hi, *arrays)``, built per (semiring, T, M, R) so that it closes over the
    semiring's compiled ``multiply`` (at T) and ``add`` (at R).  Small work calls it once
    from Python; large work runs it over one block per thread through a
    ``@jit(parallel=True)`` driver (``prange`` over the blocks), built lazily from the rows
    function by :func:`run_blocks`.  Compiling that driver costs 0.7 to 1 s per kernel
    (Numba 0.68, measured here), more than the sequential kernel itself (0.2 to 0.6 s), so
    inputs below the thresholds never pay for it, which keeps the test suite's compile time
    down.  Kernels take every variant (iso values, mask or none, sparse presence of ``x``,
    mask modes) as runtime flags, so one compiled function serves them all.

Pull (``y = A x`` with dense ``x``)
    Rows are cut into one block per thread of equal cost (entries + rows), and each block
    runs its rows in order.  A row's result starts from its first product (no identity is
    used, so a NaN product stays visible and ANY needs no identity) and stops at the
    monoid's terminal value or, for ANY, after the first product.  The flags (iso, mask,
    presence of ``x``) are tested once per row, outside the inner loop.  With ``x`` fully
    present and float32 ``plus_times``, the result is bitwise equal to SciPy's ``A @ x``
    (same order of additions).

Push (``y = A x`` with sparse ``x``, given ``AT`` = CSR of ``A``'s transpose)
    Small work (few entries leave the frontier) runs sequentially: products scattered into
    a dense accumulator with presence flags, touched rows collected and sorted, and a sparse
    result returned.  Large work runs in parallel with the *rows of y* split between the
    threads: every thread walks the whole frontier but only the part of each ``AT`` row that
    falls in its range (found by binary search), so no two threads write the same entry and
    no atomics are needed; the result is dense.  For a ``min`` or ``max`` monoid the parallel
    path drops the presence flags: the accumulators start at the identity and a row was
    reached iff its value moved (one random access per product instead of two; exact, with
    a fallback to the flagged kernels when a product equals the identity or is NaN).  One
    thread with large work runs the parallel kernel as one block (no sort of the touched
    rows).  Both paths add the products of one
    output entry in increasing ``k``, the order the pull kernel uses, so pull and push give
    bitwise-equal results.

Index arrays are read through unsigned views (:func:`uindex`): Numba guards signed indices
against negative wrap-around in every access, which halves the speed of the inner loop.

Caching: kernels are cached in memory, per semiring, in :data:`_PULL` / :data:`_PUSH`, and
on disk by :mod:`.jitcache` (keyed by their definition), so a new process loads them
instead of compiling.
"""

from __future__ import annotations

import weakref
from typing import Any

import numba
import numpy as np
from numba import prange

from ..registry import VecData, register
from ..rowcount import row_counts
from .jitcache import jit
from .prefetch import DISTANCE as PREFETCH_DISTANCE
from .prefetch import prefetcher

__all__ = ["KernelCache", "balanced_row_bounds", "pull", "push", "row_bounds", "run_blocks",
           "semiring_parts", "uindex"]


#: Push runs sequentially below this many (frontier entry, edge) pairs.
PUSH_PARALLEL_WORK = 1 << 15

#: A parallel push returns a sparse result when at most 1/this of the rows get an entry.
SPARSE_RESULT_SHARE = 4

#: Pull (and the row-parallel mxm kernels) use one block below this many entries + rows.
PULL_PARALLEL_COST = 1 << 16

_U1 = np.uint64(1)

#: Scatter kernels prefetch ``y[indices[p + _AHEAD]]`` (module :mod:`.prefetch`).
_AHEAD = np.uint64(PREFETCH_DISTANCE)


# ----------------------------------------------------------------------------- helpers


def uindex(a: Any) -> np.ndarray:
    """Unsigned, contiguous view of a non-negative index array (int32 -> uint32 ...).

    Examples
    --------
    >>> uindex(np.array([0, 3], dtype=np.int32)).dtype
    dtype('uint32')
    """
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "i":
        return a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a


def num_threads() -> int:
    """The number of threads Numba's parallel loops use now."""
    return int(numba.get_num_threads())


def semiring_parts(semiring: Any, types: tuple) -> tuple:
    """The pieces a kernel closes over: ``(mul, add, to_r, has_term, term, is_any)``.

    ``mul(a, b)`` casts to T and returns M; ``add(acc, t)`` casts to R and returns R;
    ``to_r`` casts a product to R (``lor`` over integer products means ``t != 0``).
    ``term`` is the monoid's terminal value at R (a placeholder when ``has_term`` is
    False).
    """
    T, _, R = (np.dtype(t) for t in types)
    mul = semiring.multiply.numba(T)
    add = semiring.add.op.numba(R)
    to_r = numba.from_dtype(R)
    term = semiring.add.terminal_for(R)
    has_term = term is not None
    term = R.type(0) if term is None else R.type(term)
    return mul, add, to_r, has_term, term, bool(semiring.add.any_value)


class KernelCache:
    """Kernels built by ``build(semiring, types)``, cached per semiring object (weakly held)
    and per ``(T, M, R)``; the dtypes of the arrays (values, index widths) are specialized
    by Numba's dispatcher itself."""

    def __init__(self, build) -> None:
        self._build = build
        self._cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def get(self, semiring: Any, types: tuple):
        T, M, R = (np.dtype(t) for t in types)
        per = self._cache.get(semiring)
        if per is None:
            per = self._cache[semiring] = {}
        k = per.get((T, M, R))
        if k is None:
            k = per[(T, M, R)] = self._build(semiring, (T, M, R))
        return k

    def __len__(self) -> int:
        return sum(len(v) for v in self._cache.values())


_KernelCache = KernelCache  # the name sibling modules (segmented.py) import


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
    """
    if bounds.size <= 2:
        if bounds.size == 2:
            rows(int(bounds[0]), int(bounds[1]), *args)
        return
    _driver(rows)(bounds, *args)


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
    """Row blocks for a row-parallel loop: one per thread (one when the work is small).

    Parameters
    ----------
    indptr : ndarray
        CSR row pointers (an unsigned view is fine).
    nnz : int
        Number of entries.
    parallel : bool
        False forces a single block.

    Returns
    -------
    ndarray of int64
        ``nblocks + 1`` boundaries.
    """
    n = indptr.size - 1
    nthreads = num_threads()
    if not parallel or nthreads == 1 or nnz + n < PULL_PARALLEL_COST:
        return np.array([0, n], dtype=np.int64)
    return balanced_row_bounds(indptr, nthreads)


_BOOL_DUMMY = np.zeros(1, dtype=np.bool_)


def _as_bool(a: Any) -> np.ndarray:
    if a is None:
        return _BOOL_DUMMY
    a = np.ascontiguousarray(a)
    return a if a.dtype == np.bool_ else a.astype(np.bool_)


def _avals(A: Any) -> tuple[np.ndarray, bool]:
    """A's values (the 1-element iso array when iso), contiguous."""
    if A.values is None:
        return np.full(1, A.iso_value, dtype=A.dtype), True
    return np.ascontiguousarray(A.values), False


# -------------------------------------------------------------------------------- pull


def _build_pull(semiring: Any, types: tuple):
    mul, add, to_r, has_term, term, is_any = semiring_parts(semiring, types)
    zero = types[2].type(0)

    @jit()
    def pull_rows(lo, hi, indptr, indices, avals, iso, x, xpres, xall, allow, has_allow, out,
                  present):
        a0 = avals[0]
        for i in range(lo, hi):
            out[i] = zero
            present[i] = False
            if has_allow and not allow[i]:
                continue
            s = indptr[i]
            e = indptr[i + 1]
            if s == e:
                continue
            if xall:
                # every x[k] present: the first product opens the row
                a = a0 if iso else avals[s]
                acc = to_r(mul(a, x[indices[s]]))
                if not is_any and not (has_term and acc == term):
                    for k in range(s + _U1, e):
                        a = a0 if iso else avals[k]
                        acc = add(acc, to_r(mul(a, x[indices[k]])))
                        if has_term and acc == term:
                            break
                out[i] = acc
                present[i] = True
            elif is_any or has_term:
                # early exit possible: branch on presence
                found = False
                acc = zero
                for k in range(s, e):
                    j = indices[k]
                    if not xpres[j]:
                        continue
                    t = to_r(mul(a0 if iso else avals[k], x[j]))
                    if found:
                        acc = add(acc, t)
                    else:
                        acc = t
                        found = True
                    if is_any or (has_term and acc == term):
                        break
                if found:
                    out[i] = acc
                    present[i] = True
            else:
                # the first present entry opens the row; after it, a branch-free select
                # (the product of an absent x[j] is computed and dropped: no
                # mispredicted branch per entry)
                k = s
                while k < e and not xpres[indices[k]]:
                    k += _U1
                if k == e:
                    continue
                acc = to_r(mul(a0 if iso else avals[k], x[indices[k]]))
                for k2 in range(k + _U1, e):
                    j = indices[k2]
                    nxt = add(acc, to_r(mul(a0 if iso else avals[k2], x[j])))
                    acc = nxt if xpres[j] else acc
                out[i] = acc
                present[i] = True

    return pull_rows


_PULL = KernelCache(_build_pull)


def _dense_x(x: VecData) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(values, present, all_present)`` of ``x`` as dense arrays."""
    if x.indices is None:
        vals = np.ascontiguousarray(x.values)
        if x.present is None:
            return vals, _BOOL_DUMMY, True
        return vals, _as_bool(x.present), False
    vals = np.zeros(x.size, dtype=np.asarray(x.values).dtype)
    pres = np.zeros(x.size, dtype=np.bool_)
    vals[x.indices] = x.values
    pres[x.indices] = True
    return vals, pres, False


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
    semiring : Semiring
        The semiring.
    types : tuple of dtype
        ``(T, M, R)`` from :meth:`Semiring.types`.

    Returns
    -------
    VecData
        Dense, values of dtype R; ``present`` False for skipped rows and rows without a
        product.
    """
    R = np.dtype(types[2])
    m = int(A.shape[0])
    out = np.empty(m, dtype=R)
    present = np.empty(m, dtype=np.bool_)
    if m == 0:
        return VecData(m, None, out, present)
    xv, xp, xall = _dense_x(x)
    indptr = uindex(A.indptr)
    avals, iso = _avals(A)
    bounds = row_bounds(indptr, int(A.indices.size))
    run_blocks(_PULL.get(semiring, types), bounds, indptr, uindex(A.indices), avals, iso, xv,
               xp, xall, _as_bool(allow), allow is not None, out, present)
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
    mul, add, to_r, has_term, term, is_any = semiring_parts(semiring, types)
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
                if seen and (is_any or (has_term and out[i] == term)):
                    continue
                t = to_r(mul(a0 if iso else avals[p], xk))
                if seen:
                    out[i] = add(out[i], t)
                else:
                    out[i] = t
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
    ``add(y[i], t)``: one random access per product instead of two (the flags), ~25% less
    time on Kronecker scale 20 frontiers.  ``add(e, t) == t`` and the sum of selected
    products is one of them, so a row was reached iff ``y[i] != e`` -- unless a product
    equals ``e`` or is NaN: ``counts[part]`` is then -1 and the caller runs the flagged
    kernel instead (exact).  Each part fills its rows with ``e`` first and afterwards sets
    their flags and counts them, so every pass over ``y`` runs in parallel.  ``selecting``
    is a constant of the closure: Numba compiles only the branch it names.
    """
    mul, add, to_r, has_term, term, is_any = semiring_parts(semiring, types)
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
                    if seen and (is_any or (has_term and out[i] == term)):
                        continue
                    t = to_r(mul(a0 if iso else avals[p], xk))
                    if seen:
                        out[i] = add(out[i], t)
                    else:
                        out[i] = t
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


def _sparse_x(x: VecData) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, values)`` of ``x``'s entries (sorted indices)."""
    if x.indices is not None:
        return np.ascontiguousarray(x.indices), np.ascontiguousarray(x.values)
    if x.present is None:
        return np.arange(x.size, dtype=np.int64), np.ascontiguousarray(x.values)
    idx = np.flatnonzero(x.present)
    return idx, np.ascontiguousarray(np.asarray(x.values)[idx])


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
    semiring : Semiring
        The semiring.
    types : tuple of dtype
        ``(T, M, R)`` from :meth:`Semiring.types`.
    nrows : int
        Size of ``y`` (rows of A).

    Returns
    -------
    VecData
        Sparse (int64 sorted indices) when the work was small enough to run sequentially
        or at most 1/``SPARSE_RESULT_SHARE`` of the rows got an entry, dense (``present``
        flags) otherwise; values of dtype R.
    """
    R = np.dtype(types[2])
    nrows = int(nrows)
    xi, xv = _sparse_x(x)
    xi = uindex(xi)
    indptr = uindex(AT.indptr)
    if xi.size:
        deg = indptr[xi.astype(np.int64) + 1].astype(np.int64) - indptr[xi].astype(np.int64)
        work = int(deg.sum())
    else:
        work = 0
    if work == 0 or nrows == 0:
        return VecData(nrows, np.zeros(0, np.int64), np.zeros(0, R), None)
    avals, iso = _avals(AT)
    has_allow = allow is not None
    allow = _as_bool(allow)
    ident = _selecting_identity(semiring, R)
    if ident is not None and work >= PUSH_PARALLEL_WORK:
        y = _push_select(AT, xi, xv, avals, iso, allow, has_allow, semiring, types, nrows,
                         ident)
        if y is not None:
            return y
    seq, par = _PUSH.get(semiring, types)
    out = np.zeros(nrows, dtype=R)
    flag = np.zeros(nrows, dtype=np.bool_)
    nthreads = num_threads()
    if work < PUSH_PARALLEL_WORK:
        touched = np.empty(min(work, nrows), dtype=np.int64)
        cnt = seq(indptr, uindex(AT.indices), avals, iso, xi, xv, allow, has_allow, out, flag,
                  touched)
        idx = np.sort(touched[:cnt])
        return VecData(nrows, idx, out[idx], None)
    parts = np.arange(nthreads + 1, dtype=np.int64)
    run_blocks(par, parts, indptr, uindex(AT.indices), avals, iso, xi, xv, allow, has_allow,
               nrows, nthreads, out, flag, np.zeros(0, dtype=np.int64))
    if int(np.count_nonzero(flag)) * SPARSE_RESULT_SHARE <= nrows:
        # few rows reached: a sparse result keeps the write-back and the next operations
        # in O(entries) instead of O(nrows)
        idx = np.flatnonzero(flag)
        return VecData(nrows, idx, out[idx], None)
    return VecData(nrows, None, out, flag)


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
