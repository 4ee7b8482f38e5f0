"""CSR: the hub format.

Rows are destinations for pull (``A @ x`` gathers ``x`` along each row); the CSC of a
matrix is the CSR of its transpose, cached by the Matrix.  Column indices are sorted within
each row.  A pattern-only (iso) matrix stores no values: ``values is None`` and every entry
has ``iso_value`` (``True`` for a pattern).  Index arrays are int32 while they fit and int64
beyond (``indptr`` follows ``nnz``, ``indices`` follows the number of columns).
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from .._device import bincount, device_of, pinned_copy, to_device, xp_for
from ..exceptions import InvalidObject
from .base import FormatBase, register_format

#: Below this many entries a NumPy argsort of the keys is as fast as a counting sort.
_SMALL_SORT = 1 << 14


def _unsorted(rows: np.ndarray, cols: np.ndarray, key) -> bool:
    """Whether COO entries are out of (row, col) order: by their linear keys, or by the
    pairs when ``key`` is None (keys that would overflow int64)."""
    if rows.size < 2:
        return False
    if key is not None:
        return bool(np.any(key[1:] < key[:-1]))
    r0, r1 = rows[:-1], rows[1:]
    return bool(np.any((r1 < r0) | ((r1 == r0) & (cols[1:] < cols[:-1]))))


def _sorted_csr(rows: np.ndarray, cols: np.ndarray, m: int):
    """``(order, sorted cols, indptr, duplicates)`` of unsorted COO entries, by a
    linear-time Numba counting sort (compiled on first use); None for small inputs (the
    caller's argsort of the keys)."""
    if rows.size < _SMALL_SORT or rows.size < m:
        return None
    from ..backends.cpu.sort import coo_order

    return coo_order(rows, cols, m)


class CompressedEntries:
    """What CSR and the hypersparse DCSR share: entries stored as ``indices`` with their
    ``values`` (None when iso: ``iso_value`` stands for every entry) on ``device``; the
    class using it provides ``row_indices()``.

    Examples
    --------
    >>> import numpy as np
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=7)
    >>> A.nnz, A.is_iso, A.dense_values().tolist()
    (2, True, [7, 7])
    >>> [a.tolist() for a in A.to_coo()]
    [[0, 1], [1, 0], [7, 7]]
    """

    __slots__ = ()

    @property
    def nnz(self) -> int:
        # the indices' length: no device read-back (indptr[-1] would sync a GPU)
        return int(self.indices.shape[0])

    @property
    def is_iso(self) -> bool:
        return self.values is None

    def values_or_iso(self):
        """``(values, iso)`` where ``values`` is a length-1 array holding the iso value when iso."""
        if self.values is not None:
            return self.values, False
        one = _ISO_ARRAYS.get(self)
        if one is None:  # made once per CSR: an iterative algorithm asks on every product
            one = _ISO_ARRAYS[self] = xp_for(self.device).full(1, self.iso_value,
                                                                dtype=self.dtype)
        return one, True

    def dense_values(self):
        """The values array, materialized when iso."""
        if self.values is not None:
            return self.values
        xp = xp_for(self.device)
        return xp.full(self.nnz, self.iso_value, dtype=self.dtype)

    def to_coo(self):
        """``(rows, cols, values)`` as new arrays (never views of the storage)."""
        return self.row_indices(), self.indices.astype(np.int64), self.dense_values().copy()


def rows_by_scan(xp, indptr, nnz: int, dtype=np.int64):
    """Row index of every entry from the row pointers, without a search: each non-empty
    row's step from the previous non-empty row at its first entry, then a prefix sum (two
    passes over the entries; on the GPU a binary search of every entry in ``indptr``
    took 2.4 ms at 65M entries on an H200).

    Examples
    --------
    >>> rows_by_scan(np, np.array([0, 2, 2, 3, 3, 5]), 5).tolist()
    [0, 0, 2, 4, 4]
    """
    out = xp.zeros(nnz, dtype=dtype)
    if nnz == 0:
        return out
    full = xp.flatnonzero(indptr[1:] != indptr[:-1])
    step = xp.empty(full.size, dtype=dtype)
    step[:1] = full[:1]
    xp.subtract(full[1:], full[:-1], out=step[1:])
    out[indptr[full]] = step
    return xp.cumsum(out, dtype=dtype)


@register_format
@dataclass(eq=False)
class CSR(CompressedEntries, FormatBase):
    """Compressed sparse rows with optional iso values.

    Examples
    --------
    >>> import numpy as np
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), np.array([2.0, 3.0]), (2, 2))
    >>> A.indptr.tolist(), A.indices.tolist(), A.values.tolist()
    ([0, 1, 2], [1, 0], [2.0, 3.0])
    """

    name: ClassVar[str] = "csr"
    devices: ClassVar[tuple[str, ...]] = ("cpu", "gpu")
    pull_rank: ClassVar[int | None] = 0

    shape: tuple[int, int]
    indptr: Any
    indices: Any
    values: Any  # None when iso
    dtype: np.dtype
    iso_value: Any = None
    device: str = "cpu"

    #: GPU pull bandwidth (GB/s of weighted bytes) with x in the L2, and how the time grows
    #: as the vertex data outgrows the L2: ``1 + gpu_miss_log * ln(vertex / L2)``.  A
    #: power-law graph's gathers mostly hit its hub columns, which stay in the L2: on an
    #: H200 (Kronecker 22-25, vertex data 1.1-9x the L2) the time grew 1.05-1.78x, within
    #: 8% of this rule; ``(vertex / L2) ** 0.4`` overshot by up to 35%.  The bandwidth is
    #: between the two cards': 590 GB/s fitted an H200 (Kronecker 22 within -7% to -1%)
    #: and left an H100 20-26% low there (``benchmarks/results/gpu_estimates.md``).
    gpu_gbs: ClassVar[float] = 520.0
    gpu_miss_log: ClassVar[float] = 0.4
    #: Host time of a whole ``gb.mxv`` call over it (planner, launches, write-back).
    gpu_fixed_s: ClassVar[float] = 5.5e-5

    @classmethod
    def gpu_pull_estimate(cls, ctx):
        """One thread group per row; x gathers slow down as x outgrows the L2."""
        from .costing import Estimate, index_bytes

        m, n = ctx.shape
        e = ctx.entries
        other = m * (4 + ctx.y_bytes) + n * ctx.x_bytes
        nbytes = e * (index_bytes(n) + ctx.a_val) + other
        slower = 1.0 + cls.gpu_miss_log * math.log(max(1.0, ctx.vertex / ctx.l2))
        t = (e * (index_bytes(n) + ctx.weighted_value) + other) * slower \
            / (cls.gpu_gbs * 1e9) + ctx.host(cls)
        return Estimate(cls.name, t, 0.0, int(nbytes),
                        f"vertex data {ctx.vertex / ctx.l2:.2f}x the L2")

    @classmethod
    def pull_estimate(cls, ctx):
        """Row-parallel pull: gathers of x beyond the cached share miss (a whole line for
        one value); the slowest row block sets the time."""
        from .costing import NS, NS_ROW, Estimate

        m = ctx.csr.shape[0]
        t = (ctx.entries * ctx.ns_edge_csr + m * NS_ROW) * NS
        t = t * ctx.imbalance / ctx.threads + ctx.call_seconds
        nbytes = ctx.stream + ctx.x_data + int(ctx.miss * ctx.entries * ctx.hw.line)
        return Estimate(cls.name, t, 0.0, int(nbytes), f"imbalance {ctx.imbalance:.2f}")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_csr(cls, csr: CSR, **params) -> CSR:
        return csr

    def to_csr(self) -> CSR:
        return self

    @classmethod
    def from_data(cls, data, device: str) -> CSR:
        """The CSR of a kernel's :class:`~gblas.backends.registry.CSRData` result."""
        return cls(tuple(data.shape), data.indptr, data.indices, data.values,
                   np.dtype(data.dtype), None, device)

    @classmethod
    def empty(cls, shape: tuple[int, int], dtype, device: str = "cpu") -> CSR:
        xp = xp_for(device)
        m, n = shape
        return cls(shape, xp.zeros(m + 1, dtype=np.int32), xp.zeros(0, dtype=dtypes.index_dtype(n)),
                   xp.zeros(0, dtype=dtype), np.dtype(dtype), None, device)

    @classmethod
    def from_coo(cls, rows, cols, values, shape, dup_op=None, iso_value=None) -> CSR:
        """Build from COO on the CPU; duplicates are combined with ``dup_op`` (a BinaryOp).

        ``values=None`` with ``iso_value`` set builds an iso matrix.  With ``dup_op=None``
        duplicates must not occur (the caller checks).
        """
        m, n = int(shape[0]), int(shape[1])
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        # linear keys row * ncols + col while they fit in int64; beyond (nrows * ncols >=
        # 2**63, e.g. a hypersparse 2**40 x 2**40 matrix) the pairs are compared directly
        wide = m * max(n, 1) > np.iinfo(np.int64).max
        key = None if wide else rows * max(n, 1) + cols
        unsorted = _unsorted(rows, cols, key)
        fast = _sorted_csr(rows, cols, m) if unsorted else None
        if fast is not None:
            order, cols, indptr, dups = fast
            if values is not None:
                values = np.asarray(values)[order]
            if not dups:
                return cls._assemble((m, n), indptr.astype(dtypes.index_dtype(cols.size)),
                                     cols.astype(dtypes.index_dtype(n)), values, iso_value)
            rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(indptr))
            key = None if wide else rows * max(n, 1) + cols
        elif unsorted:
            order = np.lexsort((cols, rows)) if wide else np.argsort(key, kind="stable")
            rows, cols = rows[order], cols[order]
            key = None if wide else key[order]
            if values is not None:
                values = np.asarray(values)[order]
        if rows.size > 1:
            first = np.empty(rows.size, dtype=bool)
            first[0] = True
            if wide:
                np.not_equal(rows[1:], rows[:-1], out=first[1:])
                first[1:] |= cols[1:] != cols[:-1]
            else:
                np.not_equal(key[1:], key[:-1], out=first[1:])
            if not first.all():
                if dup_op is None:
                    raise InvalidObject("duplicate entries need a dup_op to combine them")
                if values is None and iso_value is not None and not isinstance(
                    iso_value, (bool, np.bool_)
                ) and getattr(dup_op, "code", None) not in _IDEMPOTENT:
                    # iso duplicates that combine to a new value: store the values
                    values = np.full(rows.size, iso_value)
                starts = np.flatnonzero(first)
                rows, cols = rows[starts], cols[starts]
                if values is not None:
                    values = reduce_groups(dup_op, np.asarray(values), starts)
        nnz = rows.size
        indptr = np.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
        np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
        indices = cols.astype(dtypes.index_dtype(n))
        return cls._assemble((m, n), indptr, indices, values, iso_value)

    @classmethod
    def _assemble(cls, shape, indptr, indices, values, iso_value) -> CSR:
        """The CSR of sorted, duplicate-free arrays (values copied; iso when None)."""
        m, n = shape
        if values is None:
            if isinstance(iso_value, np.generic):
                dt = iso_value.dtype
            else:
                dt = np.dtype(type(iso_value))
            if isinstance(iso_value, bool) or iso_value is None:
                dt, iso_value = dtypes.BOOL, np.bool_(True)
            return cls((m, n), indptr, indices, None, dt, dt.type(iso_value), "cpu")
        values = np.array(values, copy=True, order="C")  # never alias the caller's array
        return cls((m, n), indptr, indices, values, values.dtype, None, "cpu")

    @classmethod
    def from_scipy(cls, S) -> CSR:
        """From any scipy.sparse matrix or array (duplicates summed, as SciPy does).

        A CSR in canonical order is copied in one pass (parallel from
        ``imports.SERIAL_ENTRIES`` entries) that also finds whether every value is the
        same (then the matrix is iso: its values are not copied).
        """
        if getattr(S, "format", None) == "csr" and S.nnz:
            from ..backends.cpu.imports import canonical_copy

            got = canonical_copy(S.indptr, S.indices, S.data)
            if got.canonical:
                m, n = S.shape
                indptr = S.indptr.astype(dtypes.index_dtype(S.nnz))  # a copy
                indices = got.indices.astype(dtypes.index_dtype(n), copy=False)
                iso = S.data.dtype.type(S.data[0]) if got.iso else None
                return cls((m, n), indptr, indices, got.values, S.data.dtype, iso, "cpu")
        S = S.tocsr(copy=True) if hasattr(S, "tocsr") else S
        S.sum_duplicates()
        S.sort_indices()
        m, n = S.shape
        nnz = S.nnz
        indptr = S.indptr.astype(dtypes.index_dtype(nnz), copy=False)
        indices = S.indices.astype(dtypes.index_dtype(n), copy=False)
        return cls((m, n), indptr, indices, np.ascontiguousarray(S.data), S.data.dtype, None, "cpu")

    # -------------------------------------------------------------------- properties
    @property
    def nbytes(self) -> int:
        v = 0 if self.values is None else self.values.nbytes
        return int(self.indptr.nbytes + self.indices.nbytes + v)

    def row_indices(self, dtype=np.int64):
        """Row index of every entry (COO rows), as ``dtype`` (int64 unless told; int32
        holds the rows below 2**31)."""
        xp = xp_for(self.device)
        m = self.shape[0]
        if self.device == "cpu":
            return np.repeat(np.arange(m, dtype=dtype), np.diff(self.indptr).astype(np.int64))
        return rows_by_scan(xp, self.indptr, self.nnz, dtype)

    def degrees(self):
        xp = xp_for(self.device)
        return xp.diff(self.indptr)

    def keep_rows(self, keep) -> CSR:
        """The same shape with the entries of the rows where ``keep`` (bool, one per row,
        on this device) holds, the other rows empty: the part of a graph a search from
        one vertex can read, to copy elsewhere without the rest.

        Examples
        --------
        >>> A = CSR.from_coo(np.array([0, 1, 1, 2]), np.array([1, 0, 2, 0]), None, (3, 3),
        ...                  iso_value=True)
        >>> B = A.keep_rows(np.array([False, True, False]))
        >>> B.indptr.tolist(), B.indices.tolist()
        ([0, 0, 2, 2], [0, 2])
        """
        xp = xp_for(self.device)
        indptr = xp.zeros_like(self.indptr)
        indptr[1:] = xp.cumsum(xp.where(keep, xp.diff(self.indptr), 0))
        # each kept entry's place in A, found from its row (work on the kept part only)
        k = xp.arange(int(indptr[-1]), dtype=indptr.dtype)
        row = xp.searchsorted(indptr[1:], k, side="right")
        at = self.indptr[row] + (k - indptr[row])
        values = None if self.values is None else self.values[at]
        return CSR(self.shape, indptr, self.indices[at], values, self.dtype,
                   self.iso_value, self.device)

    # ------------------------------------------------------------------- conversions
    def to_scipy(self):
        import scipy.sparse as sp

        c = self.to_device("cpu")
        return sp.csr_array((c.dense_values().copy(), c.indices.copy(), c.indptr.copy()),
                            shape=self.shape)

    def astype(self, dtype) -> CSR:
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        if self.values is None:
            return CSR(self.shape, self.indptr, self.indices, None, dtype,
                       np.asarray(self.iso_value).astype(dtype)[()], self.device)
        return CSR(self.shape, self.indptr, self.indices, self.values.astype(dtype), dtype,
                   None, self.device)

    def transpose(self) -> CSR:
        """CSR of the transpose (the CSC of this matrix), indices sorted.

        On the CPU a parallel two-pass counting scatter (``O(nnz + ncols)``, no sort:
        ``gblas.backends.cpu.build.transpose``); on the GPU cuSPARSE's ``csr2cscEx2``
        (``gblas.backends.gpu.transpose``) for a pattern or floating values with 32-bit
        indices, else a sort of the keys.
        """
        m, n = self.shape
        if self.device == "cpu":
            from ..backends.cpu import build  # Numba, on first use

            indptr, indices, values = build.transpose(self.indptr, self.indices, self.values, n)
            out = CSR((n, m), indptr, indices, values, self.dtype, self.iso_value, "cpu")
            _COLUMN_COUNTS[out] = (self.indptr,)  # counted when asked
            return out
        xp = xp_for(self.device)
        from ..backends.gpu import transpose as gpu_transpose  # CuPy: on the GPU only

        if gpu_transpose.supports(self.shape, self.nnz, self.values):
            arrays = gpu_transpose.csr_transpose(self.indptr, self.indices, self.values,
                                                 self.shape)
            out = CSR((n, m), *arrays, self.dtype, self.iso_value, self.device)
        else:
            out = self._sorted_transpose(xp)
        # the source's row pointers, counted when asked: two kernels on every fresh
        # Matrix's transpose cost ~0.1 ms of host time, and few calls read the counts
        _COLUMN_COUNTS[out] = (self.indptr,)
        return out

    def _sorted_transpose(self, xp) -> CSR:
        """The GPU transpose by a stable sort of the column keys (any value type and
        index width)."""
        m, n = self.shape
        nnz = self.nnz
        rows = self.row_indices(dtypes.index_dtype(m))
        cols = self.indices
        # the entries are in (row, column) order: a stable sort by column alone gives
        # (column, row) order, on the narrowest key (a radix sort's pass per byte: at
        # Kronecker scale 22 on an H200, 2.9 ms against 7.1 ms for a 64-bit (column, row)
        # key)
        key = cols.astype(np.uint32 if n <= np.iinfo(np.uint32).max else np.int64, copy=False)
        order = xp.argsort(key)  # CuPy's argsort is stable
        del key
        indptr = xp.zeros(n + 1, dtype=dtypes.index_dtype(nnz))
        counts = bincount(cols, n)
        xp.cumsum(counts, out=indptr[1:])
        indices = rows[order]
        values = None if self.values is None else self.values[order]
        return CSR((n, m), indptr, indices, values, self.dtype, self.iso_value, self.device)

    def to_device(self, device: str, *, pinned: bool = False) -> CSR:
        """This CSR on ``device`` (itself when there); ``pinned``: a GPU's copy on the
        host in page-locked memory (CuPy's pinned pool: several times a pageable copy's
        speed), for a copy kept and read on the host."""
        if device == self.device:
            return self
        move = pinned_copy if pinned and device == "cpu" else partial(to_device,
                                                                      device=device)
        values = None if self.values is None else move(self.values)
        return CSR(self.shape, move(self.indptr), move(self.indices), values, self.dtype,
                   self.iso_value, device)

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        xp = xp_for(self.device)
        m, n = self.shape
        assert self.indptr.shape == (m + 1,), "indptr has length nrows + 1"
        assert device_of(self.indptr) == self.device
        assert int(self.indptr[0]) == 0 and self.indices.shape == (self.nnz,)
        assert bool(xp.all(xp.diff(self.indptr) >= 0)), "indptr is non-decreasing"
        if self.nnz:
            assert int(self.indices.min()) >= 0 and int(self.indices.max()) < n
            rows = self.row_indices()
            key = rows * max(n, 1) + self.indices.astype(np.int64)
            assert bool(xp.all(key[1:] > key[:-1])), "indices sorted and unique within rows"
        if self.values is not None:
            assert self.values.shape == (self.nnz,) and self.values.dtype == self.dtype
        else:
            assert self.iso_value is not None


#: iso CSR -> the length-1 array of its value that kernels read (weakly keyed; read only)
_ISO_ARRAYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: CSR -> its entries per column (int64, on the CSR's device), where a build already knows
#: them (the transpose: the source's row counts), or ``(row pointers,)`` they are counted
#: from on first use; weakly keyed, gone with the CSR.
_COLUMN_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def known_column_counts(csr: CSR):
    """The entries per column of ``csr`` when a build recorded them (a transpose), else
    None: callers that need them (frequency clustering, the light panels' degree order)
    skip a pass over the indices.

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 0]), np.array([0, 1]), None, (2, 2), iso_value=True)
    >>> known_column_counts(A) is None, known_column_counts(A.transpose()).tolist()
    (True, [2, 0])
    """
    got = _COLUMN_COUNTS.get(csr)
    if isinstance(got, tuple):  # the source's row pointers: counted once
        got = _COLUMN_COUNTS[csr] = xp_for(csr.device).diff(got[0]).astype(np.int64,
                                                                             copy=False)
    return got


_IDEMPOTENT = ("first", "second", "any", "min", "max", "lor", "land")


def reduce_groups(op, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Combine runs of ``values`` beginning at ``starts`` with the binary operator ``op``."""
    if op is None:
        raise InvalidObject("duplicate entries need a dup_op to combine them")
    code = getattr(op, "code", None)
    dt = values.dtype
    ufuncs = {"plus": np.add, "times": np.multiply, "min": np.fmin, "max": np.fmax}
    if dt.kind == "b":
        ufuncs.update(plus=np.logical_or, times=np.logical_and)
    if code in ufuncs:
        return ufuncs[code].reduceat(values, starts).astype(dt, copy=False)
    if code in ("first", "any"):
        return values[starts]
    if code == "second":
        ends = np.append(starts[1:], values.size) - 1
        return values[ends]
    f = op.numba(dt)
    # the result keeps the entries' dtype (GraphBLAS casts dup's output to the matrix's
    # type): an operator returning bool must not turn the other entries into bools
    return _reduce_groups_numba(f, values, starts, dt)


def _reduce_groups_numba(f, values, starts, out_dt):
    # each combination is cast back to the entries' dtype before the next one
    out = np.empty(starts.size, dtype=out_dt)
    ends = np.append(starts[1:], values.size)
    for g in range(starts.size):
        acc = values[starts[g]]
        for k in range(starts[g] + 1, ends[g]):
            acc = out_dt.type(f(acc, values[k]))
        out[g] = acc
    return out
