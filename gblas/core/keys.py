"""Entries of Vectors and Matrices as sorted keys and values (see :mod:`.arrays`)."""

from __future__ import annotations

from ..backends.registry import VecData
from ..formats import CSR
from .arrays import csr_from_keys, csr_keys
from .matrix import Matrix, TransposedMatrix, canonical
from .vector import Vector


def entries(obj, call: str, arg: str):
    """``(keys, values)`` of a Vector or Matrix (or .T), keys sorted and unique."""
    if isinstance(obj, Vector):
        d = obj.sparse_data()
        return d.indices, d.values
    base, t = canonical(obj, call, arg)
    csr = base.csr(transposed=t)
    return csr_keys(csr), csr.dense_values()


def rebuild(like, keys, values, dtype, device):
    """A Vector/Matrix shaped like ``like`` from sorted keys and values."""
    if isinstance(like, Vector):
        return VecData(like.size, keys, values.astype(dtype, copy=False), None)
    return csr_from_keys(keys, values, like.shape, dtype, device)


def is_matrix(obj) -> bool:
    return isinstance(obj, (Matrix, TransposedMatrix))


def csr_of(obj) -> CSR:
    base, t = canonical(obj, "", "")
    return base.csr(transposed=t)


__all__ = ["csr_of", "entries", "is_matrix", "rebuild"]
