"""Operands of the CPU kernels as the kernels read them: unsigned index views, bool flags,
a matrix's values (iso or not) and a vector as dense or sparse arrays.

Contract: every function returns contiguous arrays (views where no conversion is needed)
and never modifies its input.  Index arrays go to kernels as unsigned views because Numba
guards signed indices against negative wrap-around in every access.

Examples
--------
>>> import numpy as np
>>> from gblas.backends.registry import VecData
>>> vals, pres, full = dense_x(VecData(4, np.array([1, 3]), np.array([5.0, 7.0])))
>>> vals.tolist(), pres.tolist(), full
([0.0, 5.0, 0.0, 7.0], [False, True, False, True], False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import VecData

__all__ = ["BOOL_DUMMY", "as_bool", "dense_x", "matrix_values", "pull_operands", "sparse_x",
           "uindex"]

#: A one-element bool array passed where a kernel's flag array is unused.
BOOL_DUMMY = np.zeros(1, dtype=np.bool_)


def uindex(a: Any) -> np.ndarray:
    """Unsigned, contiguous view of a non-negative index array (int32 -> uint32 ...).

    Examples
    --------
    >>> uindex(np.array([0, 3], dtype=np.int32)).dtype
    dtype('uint32')
    """
    if not (isinstance(a, np.ndarray) and a.flags.c_contiguous):
        a = np.ascontiguousarray(a)
    u = _UNSIGNED.get(a.dtype)
    return a if u is None else a.view(u)


#: Signed index dtypes and their unsigned views (every kernel call asks).
_UNSIGNED = {np.dtype(f"i{k}"): np.dtype(f"u{k}") for k in (1, 2, 4, 8)}


def as_bool(a: Any) -> np.ndarray:
    """``a`` as a contiguous bool array; :data:`BOOL_DUMMY` for None.

    Examples
    --------
    >>> as_bool(np.array([0, 2])).tolist(), as_bool(None).size
    ([False, True], 1)
    """
    if a is None:
        return BOOL_DUMMY
    a = np.ascontiguousarray(a)
    return a if a.dtype == np.bool_ else a.astype(np.bool_)


def matrix_values(A: Any) -> tuple[np.ndarray, bool]:
    """``(values, iso)`` of a matrix format: its values, or the one-element array of its iso
    value (``iso`` True).

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0]), np.array([1]), None, (1, 2), iso_value=2.0)
    >>> matrix_values(A)
    (array([2.]), True)
    """
    if A.values is None:
        return np.full(1, A.iso_value, dtype=A.dtype), True
    return np.ascontiguousarray(A.values), False


def dense_x(x: VecData) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(values, present, all_present)`` of ``x`` as dense arrays (``present`` is
    :data:`BOOL_DUMMY` when every entry is present)."""
    if x.indices is None:
        vals = np.ascontiguousarray(x.values)
        if x.present is None:
            return vals, BOOL_DUMMY, True
        return vals, as_bool(x.present), False
    vals = np.zeros(x.size, dtype=np.asarray(x.values).dtype)
    pres = np.zeros(x.size, dtype=np.bool_)
    vals[x.indices] = x.values
    pres[x.indices] = True
    return vals, pres, False


def sparse_x(x: VecData) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, values)`` of ``x``'s entries, indices sorted.

    Examples
    --------
    >>> idx, vals = sparse_x(VecData(3, None, np.array([1.0, 2.0, 3.0]),
    ...                              np.array([True, False, True])))
    >>> idx.tolist(), vals.tolist()
    ([0, 2], [1.0, 3.0])
    """
    if x.indices is not None:
        return np.ascontiguousarray(x.indices), np.ascontiguousarray(x.values)
    if x.present is None:
        return np.arange(x.size, dtype=np.int64), np.ascontiguousarray(x.values)
    idx = np.flatnonzero(x.present)
    return idx, np.ascontiguousarray(np.asarray(x.values)[idx])


def pull_operands(m: int, x: VecData, dtype: Any) -> tuple:
    """``(out, present, x_values, x_present, x_all)``: the uninitialized dense result of a
    pull kernel over ``m`` rows (values of ``dtype``) and :func:`dense_x` of ``x``.

    Examples
    --------
    >>> out, present, xv, xp, xall = pull_operands(3, VecData(2, None, np.ones(2)), "f4")
    >>> out.shape, present.dtype, xall
    ((3,), dtype('bool'), True)
    """
    return (np.empty(m, dtype=np.dtype(dtype)), np.empty(m, dtype=np.bool_), *dense_x(x))
