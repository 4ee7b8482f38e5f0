"""CPU (Numba) import of a SciPy CSR: passes (parallel on large inputs) that test whether
every value has the bits of the first (an iso matrix, whose values need not be copied or
read again), copy the values otherwise, and copy the index arrays checking that every
row's columns strictly increase (sorted, no duplicates: SciPy's canonical format, which a
product needs).

SciPy's own route (``tocsr(copy=True)``, ``sum_duplicates``, ``sort_indices``) makes three
passes on one thread and copies the values; on a Kronecker 22 graph (128M entries, all
values 1.0) the values alone are 1 GB of fresh memory.

Examples
--------
>>> import numpy as np
>>> got = canonical_copy(np.array([0, 2, 3]), np.array([0, 2, 1], dtype=np.int32),
...                      np.array([1.0, 1.0, 1.0]))
>>> got.canonical, got.iso, got.indices.tolist(), got.values
(True, True, [0, 2, 1], None)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import prange

from .blocks import row_blocks
from .jitcache import jit

__all__ = ["canonical_copy", "ImportedCSR"]


class ImportedCSR(NamedTuple):
    """The copied arrays; ``values`` is None when ``iso`` (every value equals
    ``data[0]`` bit for bit) and ``canonical`` says whether every row's columns strictly
    increase (when False the copies are not to be used)."""

    indptr: Any
    indices: Any
    values: Any
    canonical: bool
    iso: bool


#: Below this many entries the import runs on one thread: a parallel launch costs more
#: than the pass (on the 2-core machine, Kronecker 10's 26K entries took 36 us in
#: parallel, most of ``Matrix.from_scipy``'s 50 us).
SERIAL_ENTRIES = 1 << 20


@jit()
def _check_rows(r0, r1, indptr, indices, out_idx):
    """Copy rows ``r0:r1``'s indices; 1 if a row's columns do not strictly increase.

    The loops run over unsigned positions, so that Numba drops its wraparound of
    negative indices and they vectorize, and the order is checked over the whole block
    (its descents, less those at the first entry of a row) instead of row by row: on
    Kronecker 14 (228K entries) 32 instead of 260 us."""
    one = np.uint64(1)
    lo = np.uint64(indptr[r0])
    hi = np.uint64(indptr[r1])
    for k in range(lo, hi):
        out_idx[k] = indices[k]
    descents = 0
    for k in range(lo + one, hi):
        descents += np.int64(indices[k] <= indices[k - one])
    for i in range(r0, r1):
        k = np.uint64(indptr[i])
        if k > lo and k < np.uint64(indptr[i + 1]):  # a row's first entry, after another's
            descents -= np.int64(indices[k] <= indices[k - one])
    return 1 if descents > 0 else 0


@jit(parallel=True)
def _check_copy(bounds, indptr, indices, out_idx, flags):
    # flags[b]: block b found a row out of order
    for b in prange(bounds.size - 1):
        flags[b] = _check_rows(bounds[b], bounds[b + 1], indptr, indices, out_idx)


@jit()
def _same_bits(bits, lo, hi, first):
    """Whether ``bits[lo:hi]`` all equal ``first`` (stops at the first block of 4,096
    that holds another; unsigned positions, so that the count vectorizes)."""
    k = np.uint64(lo)
    top = np.uint64(hi)
    while k < top:
        end = min(k + np.uint64(4096), top)
        other = 0
        for j in range(k, end):
            other += np.int64(bits[j] != first)
        if other:
            return False
        k = end
    return True


@jit(parallel=True)
def _same_bits_blocks(bits, parts, flags):
    # flags[b]: block b holds a value other than the first
    nnz = bits.size
    first = bits[0]
    for b in prange(parts):
        flags[b] = not _same_bits(bits, nnz * b // parts, nnz * (b + 1) // parts, first)


@jit(parallel=True)
def _copy_values(bounds, indptr, data, out):
    for b in prange(bounds.size - 1):
        for k in range(np.uint64(indptr[bounds[b]]), np.uint64(indptr[bounds[b + 1]])):
            out[k] = data[k]


def _value_bits(data: np.ndarray) -> np.ndarray | None:
    """The values as unsigned integers of their width (a bit-for-bit comparison), or
    None for widths without one (complex)."""
    kinds = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
    u = kinds.get(data.dtype.itemsize)
    return None if u is None else np.ascontiguousarray(data).view(u)


def canonical_copy(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                   threads: int | None = None) -> ImportedCSR:
    """Copy a CSR's indices (and values unless iso), checking canonical order.

    ``indptr`` is returned as given (the caller casts it); the indices keep their dtype.
    The iso test runs first and stops at the first value that differs (at once on
    weighted graphs); the index copy runs last, so the structure an algorithm reads
    first is what the cache holds afterwards (copying the values after it evicted it).
    """
    import numba

    threads = int(numba.get_num_threads()) if threads is None else threads
    nnz = int(indptr[-1]) if indptr.size else 0
    serial = nnz < SERIAL_ENTRIES or threads <= 1
    bits = _value_bits(data)
    iso = bits is not None and nnz > 0
    if iso and serial:
        iso = bool(_same_bits(bits, 0, nnz, bits[0]))
    elif iso:
        differs = np.zeros(threads, dtype=np.uint8)
        _same_bits_blocks(bits[:nnz], threads, differs)
        iso = not differs.any()
    bounds = None if serial or not nnz else row_blocks(indptr, threads, nnz=nnz)
    values = None
    if not iso:
        values = np.empty(nnz, dtype=data.dtype)
        if bounds is None:
            values[:] = data[:nnz]
        else:
            _copy_values(bounds, indptr, np.ascontiguousarray(data), values)
    out_idx = np.empty(nnz, dtype=indices.dtype)
    bad = False
    if bounds is None and nnz:
        bad = bool(_check_rows(0, indptr.size - 1, indptr, indices, out_idx))
    elif nnz:
        flags = np.zeros(bounds.size - 1, dtype=np.uint8)
        _check_copy(bounds, indptr, indices, out_idx, flags)
        bad = bool(flags.any())
    canonical = not bad
    return ImportedCSR(indptr, out_idx, values if canonical else None, canonical, iso)
