"""Hypersparse storage (DCSR): only the rows that hold entries.

A matrix whose dimension is far above its entry count (up to ``2**60`` rows or columns,
as SuiteSparse:GraphBLAS allows) cannot afford CSR's ``nrows + 1`` row pointers.  The
doubly compressed layout keeps the sorted ids of the ``k`` non-empty rows (``rows``),
row pointers over those rows only (``indptr``, ``k + 1``), the column indices (global,
sorted within each row) and the values (None when iso): ``O(entries + rows with
entries)`` memory whatever the shape.  The planner's ``choose_storage`` (``gblas.planner.choose``)
decides when a Matrix keeps this as its canonical storage.

Operations run on the **compact view** (:meth:`Hypersparse.compact`): the ``k x c``
CSR over the non-empty rows and the ``c`` columns that hold entries, with the maps back
to the global ids.  That view is an ordinary small CSR, so every kernel, mask and
write-back rule of the CSR path applies unchanged; results are mapped back through the
two sorted id arrays (``gblas/core/hyper.py``).

Examples
--------
>>> import numpy as np
>>> H = Hypersparse.from_coo(np.array([2**40, 3]), np.array([7, 2**50]),
...                          np.array([1.0, 2.0]), (2**41, 2**51))
>>> H.rows.tolist(), H.indptr.tolist(), H.indices.tolist(), H.nnz
([3, 1099511627776], [0, 1, 2], [1125899906842624, 7], 2)
>>> cols, local = H.compact()
>>> cols.tolist(), local.shape, local.indices.tolist()
([7, 1125899906842624], (2, 2), [1, 0])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from ..backends.registry import register
from ..exceptions import OutOfMemory
from .base import FormatBase, register_format
from .csr import CSR, CompressedEntries

#: The most rows a hypersparse matrix expands to a CSR for (its row pointers): beyond,
#: :meth:`Hypersparse.to_csr` raises :class:`~gblas.OutOfMemory`.
MAX_EXPAND_ROWS = 1 << 26


def expand_error(call: str, shape, nnz: int, what: str = "CSR row pointers") -> OutOfMemory:
    """The error of a call that would allocate per row or column of a hypersparse matrix.

    Examples
    --------
    >>> str(expand_error("A.csr", (2**40, 2**40), 3)).split(":")[0]
    'A.csr'
    """
    m, n = shape
    return OutOfMemory(
        f"{call}: a {m:,} x {n:,} matrix with {nnz:,} entries is stored hypersparse; its "
        f"{what} would need one slot per row or column ({8 * (max(m, n) + 1):,} bytes). "
        "Operations (mxv, vxm, mxm, ewise_*, apply, select, reduce, extract, assign, "
        "transpose) and A.to_coo() / gb.io.write_mm work on it in O(entries) memory; "
        "use those, or extract the rows and columns you need first.")


def locate(ids, keys) -> tuple[np.ndarray, np.ndarray]:
    """``(pos, hit)``: where each of ``keys`` sits in the sorted unique ``ids``, and
    whether it is there (``ids[pos[hit]] == keys[hit]``); a binary search per key.

    Examples
    --------
    >>> pos, hit = locate(np.array([2, 5, 9]), np.array([5, 6, 9]))
    >>> pos[hit].tolist(), hit.tolist()
    ([1, 2], [True, False, True])
    """
    ids = np.asarray(ids, np.int64)
    keys = np.asarray(keys, np.int64)
    if ids.size == 0:
        return np.zeros(keys.size, np.int64), np.zeros(keys.size, bool)
    pos = np.minimum(np.searchsorted(ids, keys), ids.size - 1).astype(np.int64)
    return pos, ids[pos] == keys


def _compact_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted unique ids, each id's position among them)``, int64."""
    if ids.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    uniq, inv = np.unique(ids, return_inverse=True)
    return uniq.astype(np.int64, copy=False), inv.reshape(-1).astype(np.int64, copy=False)


@register_format
@dataclass(eq=False)
class Hypersparse(CompressedEntries, FormatBase):
    """Doubly compressed sparse rows: the non-empty rows' ids, their row pointers, column
    indices and values (``values`` None when iso).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 3]), np.array([1, 0]), np.array([5, 6]), (4, 2))
    >>> H = Hypersparse.from_csr(A)
    >>> H.rows.tolist(), H.indptr.tolist(), H.to_csr().indptr.tolist()
    ([0, 3], [0, 1, 2], [0, 1, 1, 1, 2])
    """

    name: ClassVar[str] = "hypersparse"
    devices: ClassVar[tuple[str, ...]] = ("cpu",)
    pull_rank: ClassVar[int | None] = None  # chosen by the storage rule, not as a pull format
    build_ns_entry: ClassVar[float] = 2.0

    shape: tuple[int, int]
    rows: Any
    indptr: Any
    indices: Any
    values: Any  # None when iso
    dtype: np.dtype
    iso_value: Any = None
    device: str = "cpu"
    #: the compact view, once built (run-time state: never saved or compared)
    views: dict = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_csr(cls, csr: CSR, **params) -> Hypersparse:
        csr = csr.to_device("cpu")
        counts = np.diff(csr.indptr)
        rows = np.flatnonzero(counts).astype(np.int64)
        indptr = np.append(csr.indptr[rows], csr.nnz).astype(csr.indptr.dtype)
        return cls(tuple(csr.shape), rows, indptr, csr.indices, csr.values, csr.dtype,
                   csr.iso_value, "cpu")

    @classmethod
    def from_coo(cls, rows, cols, values, shape, dup_op=None, iso_value=None) -> Hypersparse:
        """Build from COO in ``O(nnz log nnz)`` time and ``O(nnz)`` memory, whatever the
        shape; duplicates combine with ``dup_op`` as in :meth:`~gblas.formats.csr.CSR.from_coo`."""
        m, n = int(shape[0]), int(shape[1])
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        h, lr = _compact_ids(rows)
        cu, lc = _compact_ids(cols)
        # the entries in the compact k x c space, where a CSR costs O(nnz)
        local = CSR.from_coo(lr, lc, values, (h.size, cu.size), dup_op=dup_op,
                             iso_value=iso_value)
        return cls.from_compact(h, cu, local, (m, n))

    @classmethod
    def from_compact(cls, rows, cols, local: CSR, shape) -> Hypersparse:
        """The matrix of ``shape`` whose entries are those of the compact CSR ``local``
        (its row ``r`` is row ``rows[r]``, its column ``c`` column ``cols[c]``; both id
        arrays sorted, so the order of the entries is kept)."""
        local = local.to_device("cpu")
        counts = np.diff(local.indptr)
        keep = np.flatnonzero(counts)
        m, n = int(shape[0]), int(shape[1])
        indptr = np.append(local.indptr[keep], local.nnz).astype(dtypes.index_dtype(local.nnz))
        indices = np.asarray(cols, np.int64)[local.indices].astype(dtypes.index_dtype(n))
        return cls((m, n), np.asarray(rows, np.int64)[keep], indptr, indices, local.values,
                   local.dtype, local.iso_value, "cpu")

    # -------------------------------------------------------------------- properties
    @property
    def nbytes(self) -> int:
        v = 0 if self.values is None else self.values.nbytes
        return int(self.rows.nbytes + self.indptr.nbytes + self.indices.nbytes + v)

    def row_indices(self):
        """Row id of every entry (int64)."""
        return np.repeat(self.rows, np.diff(self.indptr).astype(np.int64))

    # ------------------------------------------------------------------- conversions
    def compact(self) -> tuple[np.ndarray, CSR]:
        """``(cols, local)``: the sorted ids of the columns holding entries and the
        ``k x c`` CSR over the non-empty rows and those columns (built once, kept)."""
        got = self.views.get("compact")
        if got is None:
            cu, lc = _compact_ids(self.indices)
            k = self.rows.size
            local = CSR((k, cu.size), self.indptr, lc.astype(dtypes.index_dtype(cu.size)),
                        self.values, self.dtype, self.iso_value, "cpu")
            got = self.views["compact"] = (cu, local)
        return got

    def to_csr(self, call: str = "Hypersparse.to_csr") -> CSR:
        """The CSR (``nrows + 1`` row pointers): an :class:`OutOfMemory` error beyond
        :data:`MAX_EXPAND_ROWS` rows."""
        m, n = self.shape
        if m + 1 > MAX_EXPAND_ROWS:
            raise expand_error(call, self.shape, self.nnz)
        indptr = np.zeros(m + 1, dtype=dtypes.index_dtype(self.nnz))
        indptr[self.rows + 1] = np.diff(self.indptr)
        np.cumsum(indptr, out=indptr)
        return CSR((m, n), indptr, self.indices, self.values, self.dtype, self.iso_value, "cpu")

    def to_scipy(self):
        return self.to_csr("A.to_scipy").to_scipy()

    def astype(self, dtype) -> Hypersparse:
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        if self.values is None:
            return Hypersparse(self.shape, self.rows, self.indptr, self.indices, None, dtype,
                               np.asarray(self.iso_value).astype(dtype)[()], self.device)
        return Hypersparse(self.shape, self.rows, self.indptr, self.indices,
                           self.values.astype(dtype), dtype, None, self.device)

    def copy(self) -> Hypersparse:
        cp = lambda a: None if a is None else a.copy()  # noqa: E731
        return Hypersparse(self.shape, self.rows.copy(), self.indptr.copy(),
                           self.indices.copy(), cp(self.values), self.dtype, self.iso_value,
                           self.device)

    def transpose(self) -> Hypersparse:
        """The DCSR of the transpose, in ``O(nnz log nnz)`` (a sort of the entries)."""
        m, n = self.shape
        r = self.row_indices()
        c = self.indices.astype(np.int64)
        order = np.lexsort((r, c))
        vals = None if self.values is None else self.values[order]
        cu, lc = _compact_ids(c[order])
        indptr = np.zeros(cu.size + 1, dtype=dtypes.index_dtype(self.nnz))
        np.cumsum(np.bincount(lc, minlength=cu.size), out=indptr[1:])
        return Hypersparse((n, m), cu, indptr, r[order].astype(dtypes.index_dtype(m)), vals,
                           self.dtype, self.iso_value, "cpu")

    def to_device(self, device: str):
        """Itself on the CPU; on the GPU the CSR (when its row pointers fit,
        :data:`MAX_EXPAND_ROWS`): hypersparse storage is CPU-only."""
        if device == "cpu":
            return self
        return self.to_csr("Matrix.to('gpu')").to_device(device)

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        m, n = self.shape
        k = self.rows.shape[0]
        assert self.indptr.shape == (k + 1,), "indptr has one slot per non-empty row + 1"
        assert int(self.indptr[0]) == 0 and int(self.indptr[-1]) == self.nnz
        if k:
            assert bool(np.all(np.diff(self.indptr) > 0)), "every listed row has entries"
            assert bool(np.all(np.diff(self.rows) > 0)), "row ids sorted and unique"
            assert int(self.rows[0]) >= 0 and int(self.rows[-1]) < m
        if self.nnz:
            c = self.indices.astype(np.int64)
            assert int(c.min()) >= 0 and int(c.max()) < n
            r = np.repeat(np.arange(k), np.diff(self.indptr))
            same = r[1:] == r[:-1]
            assert bool(np.all(c[1:][same] > c[:-1][same])), "columns sorted within rows"
        if self.values is not None:
            assert self.values.shape == (self.nnz,) and self.values.dtype == self.dtype
        else:
            assert self.iso_value is not None


# The kernels live in ``backends/cpu/hypersparse.py``; they are registered here, as entry
# points that load that module (and Numba) on their first call.


@register("mxv", "hypersparse", "cpu", "pull")
def _pull(A, x, allow, semiring, types):
    from ..backends.cpu import hypersparse as kernels

    return kernels.pull(A, x, allow, semiring, types)


@register("mxv", "hypersparse", "cpu", "push")
def _push(AT, x, allow, semiring, types, nrows):
    from ..backends.cpu import hypersparse as kernels

    return kernels.push(AT, x, allow, semiring, types, nrows)


__all__ = ["MAX_EXPAND_ROWS", "Hypersparse", "expand_error", "locate"]
