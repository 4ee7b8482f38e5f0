"""Array helpers of the operations: sorted-key set algebra and the device's array kernels.

A Vector's entries are keyed by index, a Matrix's by ``row * ncols + col``; union and
intersection of two sorted key arrays give the patterns of ewise_add and ewise_mult.
Where the device registers ``merge_union`` / ``merge_intersect`` / ``merge_member``
kernels (the CPU: ``backends/cpu/merge.py``) they merge the two sorted patterns in linear
time (row by row for a CSR); elsewhere the keys are sorted (``unique``) and searched.
This module knows arrays and CSR only, not the user objects.

Examples
--------
>>> import numpy as np
>>> from gblas.core.arrays import union
>>> keys, in_a, in_b = union(np.array([1, 3]), np.array([2, 3]), np)
>>> keys.tolist(), in_a.tolist(), in_b.tolist()
([1, 2, 3], [True, False, True], [False, True, True])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._device import bincount, unique, xp_for
from ..formats import CSR
from .executor import array_kernel, optional_kernel


def csr_keys(csr: CSR):
    """Linear keys ``row * ncols + col`` of a CSR's entries (sorted for a sorted CSR)."""
    return csr.row_indices() * max(csr.shape[1], 1) + csr.indices.astype(np.int64)


def member(keys, sorted_set, xp):
    """Whether each key is in the sorted array ``sorted_set``."""
    if sorted_set.shape[0] == 0:
        return xp.zeros(keys.shape[0], bool)
    pos = xp.searchsorted(sorted_set, keys)
    pos = xp.minimum(pos, sorted_set.shape[0] - 1)
    return sorted_set[pos] == keys


def cast(values, dt):
    """``values`` as dtype ``dt`` (itself when it already is)."""
    return values if values.dtype == dt else values.astype(dt)


def map_binary(op, a, b, dt, device):
    """Apply a BinaryOp elementwise (through the device's registered kernel)."""
    return array_kernel("map_binary", device)(op, a, b, dt)


def where(cond, a, b, device):
    """``a`` where ``cond`` else ``b`` (the device's registered kernel: NumPy's branches
    on every element of an unpredictable mask, the CPU kernel does not)."""
    return array_kernel("where", device)(cond, a, b)


def assign_where(cond, src, dst, device) -> None:
    """``dst[cond] = src[cond]`` in place (the device's registered kernel)."""
    array_kernel("assign_where", device)(cond, src, dst)


def compress(cond, a, *more, device):
    """``a[cond]`` for a boolean ``cond`` (the device's registered kernel); with more
    arrays, the tuple of each one compressed."""
    return array_kernel("compress", device)(cond, a, *more)


def csr_from_keys(keys, values, shape, dtype, device) -> CSR:
    """A CSR from sorted unique linear keys ``row * ncols + col`` and their values."""
    xp = xp_for(device)
    m, n = shape
    ncols = max(n, 1)
    rows = keys // ncols
    cols = keys - rows * ncols
    indptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(keys.shape[0]))
    if keys.shape[0]:
        xp.cumsum(bincount(rows, m), out=indptr[1:])
    return CSR((m, n), indptr, cols.astype(dtypes.index_dtype(n)),
               xp.ascontiguousarray(values.astype(dtype, copy=False)), np.dtype(dtype), None,
               device)


def merge_kernel(op: str, fmt: str, device: str):
    """The device's linear-time merge kernel ``op`` (``"merge_union"``,
    ``"merge_intersect"``, ``"merge_member"``) over ``fmt`` (``"keys"``: sorted 1-D keys,
    ``"csr"``: row pointers and sorted columns), or None where it has none."""
    return optional_kernel(op, device, fmt)

def device_of_xp(xp) -> str:
    """``"cpu"`` for NumPy, ``"gpu"`` for CuPy."""
    return "cpu" if xp is np else "gpu"

def union(ak, bk, xp):
    """``(keys, in_a, in_b)``: the sorted union of two sorted unique key arrays."""
    merge = merge_kernel("merge_union", "keys", device_of_xp(xp))
    if merge is not None:
        keys, pa, pb = merge(ak, bk)
        return keys, pa >= 0, pb >= 0
    keys = unique(xp.concatenate([ak, bk]))
    return keys, member(keys, ak, xp), member(keys, bk, xp)

def union_positions(ak, bk, xp):
    """``(keys, pa, pb)``: the sorted union and each key's position in ``ak`` / ``bk``
    (``-1`` where absent)."""
    merge = merge_kernel("merge_union", "keys", device_of_xp(xp))
    if merge is not None:
        return merge(ak, bk)
    keys, in_a, in_b = union(ak, bk, xp)
    pa = xp.where(in_a, xp.searchsorted(ak, keys), -1)
    pb = xp.where(in_b, xp.searchsorted(bk, keys), -1)
    return keys, pa, pb

def intersect_positions(ak, bk, xp):
    """``(keys, pa, pb)``: the sorted intersection and each key's positions."""
    merge = merge_kernel("merge_intersect", "keys", device_of_xp(xp))
    if merge is not None:
        return merge(ak, bk)
    in_b = member(ak, bk, xp)
    pa = xp.flatnonzero(in_b)
    keys = ak[pa]
    return keys, pa, xp.searchsorted(bk, keys)

def positions(keys, sorted_keys, xp):
    """Each key's position in ``sorted_keys``."""
    return xp.searchsorted(sorted_keys, keys)
