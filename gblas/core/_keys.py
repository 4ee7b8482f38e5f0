"""Sorted-key set algebra shared by the elementwise and structural operations.

A Vector's entries are keyed by index, a Matrix's by ``row * ncols + col``; union and
intersection of two sorted key arrays give the patterns of ewise_add and ewise_mult.
Where the device registers ``merge_union`` / ``merge_intersect`` / ``merge_member``
kernels (the CPU: ``backends/cpu/merge.py``) they merge the two sorted patterns in linear
time (row by row for a CSR); elsewhere the keys are sorted (``unique``) and searched.
"""

from __future__ import annotations

import numpy as np

from .._device import xp_for
from ..formats import CSR
from .mask import _keys, _member, csr_from_keys
from .matrix import Matrix, TransposedMatrix, canonical
from .vector import Vector


def entries(obj, call: str, arg: str):
    """``(keys, values)`` of a Vector or Matrix (or .T), keys sorted and unique."""
    if isinstance(obj, Vector):
        d = obj.sparse_data()
        return d.indices, d.values
    base, t = canonical(obj, call, arg)
    csr = base.csr(transposed=t)
    return _keys(csr), csr.dense_values()


def rebuild(like, keys, values, dtype, device):
    """A Vector/Matrix shaped like ``like`` from sorted keys and values."""
    from ..backends.registry import VecData

    if isinstance(like, Vector):
        return VecData(like.size, keys, values.astype(dtype, copy=False), None)
    return csr_from_keys(keys, values, like.shape, dtype, device)


def merge_kernel(op: str, fmt: str, device: str):
    """The device's linear-time merge kernel ``op`` (``"merge_union"``,
    ``"merge_intersect"``, ``"merge_member"``) over ``fmt`` (``"keys"``: sorted 1-D keys,
    ``"csr"``: row pointers and sorted columns), or None where it has none."""
    from ..backends.registry import get_kernel, has_kernel

    return get_kernel(op, fmt, device) if has_kernel(op, fmt, device) else None


def _device_of(xp) -> str:
    return "cpu" if xp is np else "gpu"


def union(ak, bk, xp):
    """``(keys, in_a, in_b)``: the sorted union of two sorted unique key arrays."""
    merge = merge_kernel("merge_union", "keys", _device_of(xp))
    if merge is not None:
        keys, pa, pb = merge(ak, bk)
        return keys, pa >= 0, pb >= 0
    keys = xp.unique(xp.concatenate([ak, bk]))
    return keys, _member(keys, ak, xp), _member(keys, bk, xp)


def union_positions(ak, bk, xp):
    """``(keys, pa, pb)``: the sorted union and each key's position in ``ak`` / ``bk``
    (``-1`` where absent)."""
    merge = merge_kernel("merge_union", "keys", _device_of(xp))
    if merge is not None:
        return merge(ak, bk)
    keys, in_a, in_b = union(ak, bk, xp)
    pa = xp.where(in_a, xp.searchsorted(ak, keys), -1)
    pb = xp.where(in_b, xp.searchsorted(bk, keys), -1)
    return keys, pa, pb


def intersect_positions(ak, bk, xp):
    """``(keys, pa, pb)``: the sorted intersection and each key's positions."""
    merge = merge_kernel("merge_intersect", "keys", _device_of(xp))
    if merge is not None:
        return merge(ak, bk)
    in_b = _member(ak, bk, xp)
    pa = xp.flatnonzero(in_b)
    keys = ak[pa]
    return keys, pa, xp.searchsorted(bk, keys)


def positions(keys, sorted_keys, xp):
    return xp.searchsorted(sorted_keys, keys)


def is_matrix(obj) -> bool:
    return isinstance(obj, (Matrix, TransposedMatrix))


def csr_of(obj) -> CSR:
    base, t = canonical(obj, "", "")
    return base.csr(transposed=t)


__all__ = ["entries", "rebuild", "union", "union_positions", "intersect_positions",
           "merge_kernel", "positions", "is_matrix", "csr_of", "_member", "np", "xp_for"]
