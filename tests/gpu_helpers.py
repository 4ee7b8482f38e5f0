"""Helpers shared by the GPU test modules (imported only where CuPy and a device exist)."""

from __future__ import annotations

import cupy as cp

from gblas.backends.registry import VecData


def dense_result(y: VecData) -> VecData:
    """A kernel result as dense values + presence (push may return a sparse one)."""
    if y.indices is None:
        return y
    vals = cp.zeros(y.size, y.values.dtype)
    pres = cp.zeros(y.size, bool)
    vals[y.indices] = y.values
    pres[y.indices] = True
    return VecData(y.size, None, vals, pres)
