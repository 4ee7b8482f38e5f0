"""CPU (Numba) import of a SciPy CSR: one pass (parallel on large inputs) that copies the
index arrays, checks that every row's columns strictly increase (sorted, no duplicates:
SciPy's canonical format, which a product needs) and whether every value has the bits of
the first (an iso matrix, whose values need not be copied or read again).

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
def _check_rows(r0, r1, indptr, indices, bits, first, out_idx):
    """Copy rows ``r0:r1``'s indices; (a row out of order, a value other than ``first``)."""
    bad = 0
    other = 0
    for i in range(r0, r1):
        lo = indptr[i]
        hi = indptr[i + 1]
        for k in range(lo, hi):
            c = indices[k]
            out_idx[k] = c
            if k > lo and c <= indices[k - 1]:
                bad = 1
            if bits[k] != first:
                other = 1
    return bad, other


@jit(parallel=True)
def _check_copy(bounds, indptr, indices, bits, out_idx, flags):
    # flags[2 * b]: block b found a row out of order; flags[2 * b + 1]: a value differs
    nb = bounds.size - 1
    first = bits[0] if bits.size else 0
    for b in prange(nb):
        bad, other = _check_rows(bounds[b], bounds[b + 1], indptr, indices, bits, first,
                                 out_idx)
        flags[2 * b] = bad
        flags[2 * b + 1] = other


@jit(parallel=True)
def _copy_values(bounds, indptr, data, out):
    for b in prange(bounds.size - 1):
        for k in range(indptr[bounds[b]], indptr[bounds[b + 1]]):
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
    """
    import numba

    threads = int(numba.get_num_threads()) if threads is None else threads
    nnz = int(indptr[-1]) if indptr.size else 0
    serial = nnz < SERIAL_ENTRIES or threads <= 1
    out_idx = np.empty(nnz, dtype=indices.dtype)
    bits = _value_bits(data)
    probe = bits if bits is not None else np.zeros(nnz, dtype=np.uint8)
    bad = other = False
    if nnz and serial:
        bad, other = _check_rows(0, indptr.size - 1, indptr, indices, probe, probe[0],
                                 out_idx)
    elif nnz:
        bounds = row_blocks(indptr, threads, nnz=nnz)
        flags = np.zeros(2 * (bounds.size - 1), dtype=np.uint8)
        _check_copy(bounds, indptr, indices, probe, out_idx, flags)
        bad, other = flags[0::2].any(), flags[1::2].any()
    canonical = not bad
    iso = bits is not None and nnz > 0 and not other
    values = None
    if canonical and not iso:
        values = np.empty(nnz, dtype=data.dtype)
        if nnz and serial:
            values[:] = data[:nnz]
        elif nnz:
            _copy_values(bounds, indptr, np.ascontiguousarray(data), values)
    return ImportedCSR(indptr, out_idx, values, bool(canonical), bool(iso))
