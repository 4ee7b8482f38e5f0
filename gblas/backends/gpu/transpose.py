"""The transpose of a CSR on the GPU through cuSPARSE's ``csr2cscEx2``: its CSC is the
transpose's CSR, each column's rows in order.

A counting transpose in one library call, 3.5-7x faster than the sort of column keys it
replaces (``benchmarks/results/gpu_transpose.md``); the output is the same array for
array (a CSR without duplicates has one transpose).
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

__all__ = ["csr_transpose", "supports"]

#: value types moved by cuSPARSE here; others take the sort (a pattern moves none)
_VALUE_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
                np.dtype(np.complex128))
_INT32_MAX = np.iinfo(np.int32).max


def supports(shape: tuple[int, int], nnz: int, values: Any) -> bool:
    """Whether :func:`csr_transpose` takes this CSR: 32-bit indices and counts, and no
    values or floating / complex ones.

    Examples
    --------
    >>> supports((4, 4), 3, None), supports((4, 4), 3, np.zeros(3, np.int64))
    (True, False)
    """
    m, n = shape
    if max(m, n, nnz) >= _INT32_MAX or not _available():
        return False
    return values is None or np.dtype(values.dtype) in _VALUE_TYPES


@functools.cache
def _available() -> bool:
    """Whether this CuPy exposes cuSPARSE's csr2cscEx2 (its low-level binding; else the
    sort runs)."""
    try:
        from cupy_backends.cuda.libs import cusparse as cs
    except ImportError:
        return False
    return all(hasattr(cs, name) for name in ("csr2cscEx2", "csr2cscEx2_bufferSize",
                                               "CUSPARSE_ACTION_SYMBOLIC",
                                               "CUSPARSE_CSR2CSC_ALG1"))


def csr_transpose(indptr: Any, indices: Any, values: Any, shape: tuple[int, int]
                  ) -> tuple[Any, Any, Any]:
    """``(indptr, indices, values)`` of the transpose of the ``shape`` CSR given (int32
    row pointers and indices out; ``values`` None for a pattern), where
    :func:`supports` holds."""
    from cupy._core import _dtype
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cusparse as cs

    m, n = (int(s) for s in shape)
    nnz = int(indices.size)
    t_indptr = cp.zeros(n + 1, dtype=np.int32)
    t_indices = cp.empty(nnz, dtype=np.int32)
    t_values = None if values is None else cp.empty(nnz, dtype=values.dtype)
    if nnz == 0:
        return t_indptr, t_indices, t_values
    ip = cp.ascontiguousarray(indptr, dtype=np.int32)
    ix = cp.ascontiguousarray(indices, dtype=np.int32)
    if values is None:  # the structure alone: cuSPARSE reads and writes no value
        action, vtype, vin, vout = (cs.CUSPARSE_ACTION_SYMBOLIC, np.dtype(np.float32), 0, 0)
    else:
        values = cp.ascontiguousarray(values)
        action, vtype = cs.CUSPARSE_ACTION_NUMERIC, np.dtype(values.dtype)
        vin, vout = values.data.ptr, t_values.data.ptr
    args = (device.get_cusparse_handle(), m, n, nnz, vin, ip.data.ptr, ix.data.ptr, vout,
            t_indptr.data.ptr, t_indices.data.ptr, _dtype.to_cuda_dtype(vtype), action,
            cs.CUSPARSE_INDEX_BASE_ZERO, cs.CUSPARSE_CSR2CSC_ALG1)
    work = cp.empty(max(int(cs.csr2cscEx2_bufferSize(*args)), 1), dtype=np.int8)
    cs.csr2cscEx2(*args, work.data.ptr)
    return t_indptr, t_indices, t_values
