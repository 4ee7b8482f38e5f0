"""CPU array selection kernels: ``where`` and ``compress`` as Numba loops.

NumPy's ``where(cond, a, b)``, ``copyto(..., where=)`` and boolean indexing ``a[cond]``
branch on every element, which an unpredictable mask makes slow.  ``compress`` below
advances its output position by the condition (no branch); ``where`` and
``assign_where`` blend the bits of unsigned views of the values (a Numba loop with
``a if c else b`` still compiles to a branch).  The vector
write-back, the elementwise operations and the float ``min`` / ``max`` / ``abs`` maps sit
on these calls.  Registered as ``("where", "array", "cpu")``, ``("compress", "array",
"cpu")`` and ``("assign_where", "array", "cpu")`` (``dst[cond] = src[cond]`` in place, the
masked write-back into a vector that owns its arrays); the GPU backend registers CuPy's
own.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..registry import register
from .jitcache import jit

__all__ = ["where", "compress", "assign_where"]

#: Arrays at least this long run in parallel.
PARALLEL_SIZE = 1 << 21


@jit()
def _blend_seq(cond, a, b, out, masks):
    for i in range(out.size):
        m = masks[cond[i]]
        out[i] = (a[i] & m) | (b[i] & ~m)


@jit(parallel=True)
def _blend_par(cond, a, b, out, masks):
    for i in prange(out.size):
        m = masks[cond[i]]
        out[i] = (a[i] & m) | (b[i] & ~m)


#: Unsigned integer view and its (all zeros, all ones) masks, per item size.
_UNSIGNED = {k: (np.dtype(f"u{k}"), np.array([0, np.iinfo(f"u{k}").max], f"u{k}"))
             for k in (1, 2, 4, 8)}


def _blend(cond, a, b, out) -> None:
    """``out = a if cond else b`` elementwise, as bit operations on unsigned views (no
    branch on an unpredictable condition).
    ``a``, ``b`` and ``out`` are contiguous arrays of one dtype (``out`` may be ``b``)."""
    udt, masks = _UNSIGNED[out.dtype.itemsize]
    (_blend_par if out.shape[0] >= PARALLEL_SIZE else _blend_seq)(
        cond.view(np.uint8), a.view(udt), b.view(udt), out.view(udt), masks)


@jit()
def _compress_seq(cond, a, out):
    k = 0
    for i in range(a.size):
        out[k] = a[i]
        k += cond[i]
    return k


def _full(x, n: int, dt: np.dtype) -> np.ndarray:
    arr = np.asarray(x, dtype=dt)
    return np.full(n, arr) if arr.ndim == 0 else np.ascontiguousarray(arr)


@register("where", "array", "cpu")
def where(cond, a, b) -> np.ndarray:
    """``a`` where ``cond`` is true, else ``b`` (either may be a scalar).

    Examples
    --------
    >>> where(np.array([True, False, True]), np.arange(3.0), -1.0).tolist()
    [0.0, -1.0, 2.0]
    """
    cond = np.ascontiguousarray(cond, dtype=np.bool_)
    n = cond.shape[0]
    dt = np.result_type(a, b)
    if n < 1024 or dt.kind not in "biuf":
        return np.where(cond, a, b)
    out = np.empty(n, dt)
    _blend(cond, _full(a, n, dt), _full(b, n, dt), out)
    return out


@register("compress", "array", "cpu")
def compress(cond, a, *more):
    """``a[cond]`` for a boolean ``cond`` of ``a``'s length; with more arrays, the tuple
    of each one compressed.

    Examples
    --------
    >>> compress(np.array([True, False, True]), np.array([5, 6, 7])).tolist()
    [5, 7]
    >>> [b.tolist() for b in compress(np.array([False, True]), np.arange(2), np.ones(2))]
    [[1], [1.0]]
    """
    if more:
        return tuple(compress(cond, b) for b in (a, *more))
    cond = np.ascontiguousarray(cond, dtype=np.bool_)
    a = np.asarray(a)
    if a.shape[0] < 1024 or a.dtype.kind not in "biuf":
        return a[cond]
    out = np.empty(a.shape[0], a.dtype)
    k = _compress_seq(cond, np.ascontiguousarray(a), out)
    return out[:k].copy() if k < a.shape[0] // 2 else out[:k]


@register("assign_where", "array", "cpu")
def assign_where(cond, src, dst) -> None:
    """``dst[cond] = src[cond]`` in place (``src`` of ``dst``'s dtype and length).

    Examples
    --------
    >>> dst = np.zeros(3)
    >>> assign_where(np.array([True, False, True]), np.array([1.0, 2.0, 3.0]), dst)
    >>> dst.tolist()
    [1.0, 0.0, 3.0]
    """
    cond = np.ascontiguousarray(cond, dtype=np.bool_)
    src = np.asarray(src, dtype=dst.dtype)
    if dst.shape[0] < 1024 or dst.dtype.kind not in "biuf" or not dst.flags.c_contiguous:
        np.copyto(dst, src, where=cond)
        return
    _blend(cond, np.ascontiguousarray(src), dst, dst)


@register("count_true", "array", "cpu")
def count_true(b) -> int:
    """The number of True entries of a bool array.

    Examples
    --------
    >>> count_true(np.array([True, False, True]))
    2
    """
    return int(np.count_nonzero(b))


@register("logical_not", "array", "cpu")
def logical_not(b) -> np.ndarray:
    """A new bool array, True where ``b`` is False.

    Examples
    --------
    >>> logical_not(np.array([True, False])).tolist()
    [False, True]
    """
    return np.logical_not(b)
