"""CPU element-wise maps: a unary operator over an array, a binary operator over two arrays
(or an array and a bound scalar).

Built-in operators use a NumPy ufunc where NumPy computes exactly the operator's definition
(the table below); everything else — user-defined operators, ``exp`` / ``log`` (NumPy's
vectorized transcendental functions may differ in the last bit from the libm calls Numba
makes) — runs as a Numba loop over the operator's compiled scalar function, sequential
for short arrays and ``prange``-parallel for long ones.

Exactness notes for the ufunc table:

* ``plus`` / ``times`` on bool are NumPy's logical or / and, as the cast-back definition
  gives; ``minus`` / ``rminus`` on bool (which NumPy refuses) are ``a != b``;
* integer arithmetic wraps in NumPy as in the definition's cast back to the dtype;
* ``min`` / ``max`` on floats run the Numba loop of the definition (``a`` when ``a < b``
  or ``b`` is NaN, else ``b``): NumPy's ``fmin`` / ``fmax`` return either zero for
  ``(-0.0, 0.0)`` depending on the code path, and a ``where``
  over condition arrays costs three passes and NumPy's branchy select; on integers and
  bool they are ``minimum`` / ``maximum``;
* ``abs`` on floats runs the loop of ``x if x >= 0 else -x``: ``abs(-0.0)`` stays ``-0.0``
  as defined;
* ``minv`` / ``div`` in float32: NumPy's float32 division is correctly rounded, and so is
  the definition's float64 division rounded to float32.
"""

from __future__ import annotations

import weakref
from typing import Any

import numba
import numpy as np
from numba import prange

from ..registry import register
from .jitcache import jit

__all__ = ["map_unary", "map_binary", "merged_values"]

#: Arrays at least this long run the Numba loop in parallel.
PARALLEL_SIZE = 1 << 17

_ERRSTATE = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}


# ------------------------------------------------------------------------ numba loops


def _build_unary(op: Any, dt: np.dtype, parallel: bool):
    """The loop ``out[i] = f(v[i])``; ``prange`` is a plain range unless ``parallel``."""
    f = op.numba(dt)

    @jit(parallel=parallel)
    def unary(v, out):
        for i in prange(v.size):
            out[i] = f(v[i])

    return unary


def _build_binary(op: Any, dt: np.dtype, parallel: bool):
    """The loop ``out[i] = f(a[i], b[i])`` (``a[0]`` / ``b[0]`` for a bound scalar)."""
    f = op.numba(dt)

    @jit(parallel=parallel)
    def binary(a, b, a_scalar, b_scalar, out):
        a0 = a[0]
        b0 = b[0]
        for i in prange(out.size):
            out[i] = f(a0 if a_scalar else a[i], b0 if b_scalar else b[i])

    return binary


_LOOPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _loop(op: Any, dt: np.dtype, parallel: bool, build):
    per = _LOOPS.get(op)
    if per is None:
        per = _LOOPS[op] = {}
    key = (dt, parallel)
    k = per.get(key)
    if k is None:
        k = per[key] = build(op, dt, parallel)
    return k


# ---------------------------------------------------------------------- ufunc tables


def _unary_fast(code: str | None, v: np.ndarray, dt: np.dtype) -> np.ndarray | None:
    """The ufunc computation of a built-in unary operator, or None (use the loop)."""
    if code is None:
        return None
    kind = dt.kind
    if code == "identity" or (code in ("ainv", "abs") and kind == "b"):
        return v.copy()
    if code == "ainv":
        return np.negative(v)
    if code == "abs":
        if kind == "u":
            return v.copy()
        if kind == "i":
            return np.abs(v)
        return None  # floats: the Numba loop of the definition (one pass, one array)
    if code == "minv" and kind == "f":
        return np.divide(dt.type(1), v)
    if code == "lnot":
        return np.equal(v, 0)
    if code == "one":
        return np.ones(v.shape, dtype=dt)
    if code == "sqrt" and kind == "f":
        return np.sqrt(v)
    return None


_BINARY_UFUNCS = {
    "plus": np.add,
    "times": np.multiply,
    "min": np.minimum,  # integers and bool only (floats: see _binary_fast)
    "max": np.maximum,
    "lor": np.logical_or,
    "land": np.logical_and,
    "lxor": np.logical_xor,
    "eq": np.equal,
    "ne": np.not_equal,
    "gt": np.greater,
    "lt": np.less,
    "ge": np.greater_equal,
    "le": np.less_equal,
}


def _binary_fast(code: str | None, a: Any, b: Any, n: int, dt: np.dtype, odt: np.dtype):
    """The ufunc computation of a built-in binary operator, or None (use the loop)."""
    if code is None:
        return None
    if code in ("first", "any"):
        return np.array(np.broadcast_to(a, (n,)), dtype=odt)
    if code == "second":
        return np.array(np.broadcast_to(b, (n,)), dtype=odt)
    if code == "pair":
        return np.ones(n, dtype=odt)
    if code in ("minus", "rminus"):
        if dt.kind == "b":
            return np.not_equal(a, b)
        return np.subtract(a, b) if code == "minus" else np.subtract(b, a)
    if code == "div":
        return np.true_divide(a, b) if dt.kind == "f" else None
    if code in ("min", "max") and dt.kind == "f":
        return None  # the Numba loop of the definition: one pass, no condition arrays
    f = _BINARY_UFUNCS.get(code)
    if f is None:
        return None
    out = f(a, b)
    return np.broadcast_to(out, (n,)) if np.ndim(out) == 0 else out


# ------------------------------------------------------------------------------ kernels


def _cast(x: Any, dt: np.dtype) -> tuple[np.ndarray, bool]:
    """``(array of dtype dt, is_scalar)``; a scalar becomes a one-element array."""
    arr = np.asarray(x)
    if arr.ndim == 0:
        return arr.astype(dt).reshape(1), True
    return np.ascontiguousarray(arr.astype(dt, copy=False)), False


@register("map_unary", "array", "cpu")
def map_unary(op: Any, values: Any, dtype: Any) -> np.ndarray:
    """Apply a unary operator to every element.

    Parameters
    ----------
    op : UnaryOp
        The operator (built-in or user-defined).
    values : array_like
        The input, cast to ``dtype`` first.
    dtype : numpy.dtype
        The operator's input dtype.

    Returns
    -------
    ndarray
        Of dtype ``op.output_dtype(dtype)``, a new array.

    Examples
    --------
    >>> from gblas.semirings.builtin import UNARY
    >>> map_unary(UNARY["ainv"], np.array([1, -128], dtype=np.int8), np.int8).tolist()
    [-1, -128]
    """
    dt = np.dtype(dtype)
    odt = np.dtype(op.output_dtype(dt))
    v, _ = _cast(values, dt)
    v = v.ravel()
    with np.errstate(**_ERRSTATE):
        out = _unary_fast(getattr(op, "code", None), v, dt)
    if out is None:
        out = np.empty(v.size, dtype=odt)
        if v.size:
            _loop(op, dt, v.size >= PARALLEL_SIZE, _build_unary)(v, out)
    return out if out.dtype == odt else out.astype(odt)


@register("map_binary", "array", "cpu")
def map_binary(op: Any, a: Any, b: Any, dtype: Any) -> np.ndarray:
    """Apply a binary operator element-wise; one of ``a``, ``b`` may be a scalar.

    Parameters
    ----------
    op : BinaryOp
        A built-in or user-defined binary operator.
    a, b : array_like or scalar
        Operands of the same length, or one of them a scalar (a bound operand).
    dtype : numpy.dtype
        The operator's input dtype: both operands are cast to it first.

    Returns
    -------
    ndarray
        A new array of dtype ``op.output_dtype(dtype)`` (one element for two scalars).

    Examples
    --------
    >>> from gblas.semirings.builtin import BINARY
    >>> map_binary(BINARY["minus"], np.array([True, False]), True, np.bool_).tolist()
    [False, True]
    """
    dt = np.dtype(dtype)
    odt = np.dtype(op.output_dtype(dt))
    av, a_scalar = _cast(a, dt)
    bv, b_scalar = _cast(b, dt)
    if not a_scalar and not b_scalar and av.size != bv.size:
        raise ValueError(f"map_binary: operands of lengths {av.size} and {bv.size}")
    n = bv.size if a_scalar else av.size
    with np.errstate(**_ERRSTATE):
        out = _binary_fast(getattr(op, "code", None), av[0] if a_scalar else av,
                           bv[0] if b_scalar else bv, n, dt, odt)
    if out is None:
        out = np.empty(n, dtype=odt)
        if n:
            _loop(op, dt, n >= PARALLEL_SIZE, _build_binary)(av, bv, a_scalar, b_scalar, out)
    return np.array(out, dtype=odt) if out.dtype != odt or not out.flags.writeable else out


# ----------------------------------------------------- values of a merged pattern


def _build_merged(op: Any, key: tuple, parallel: bool):
    """``vals[k] = op(a[pa[k]], b[pb[k]])`` where both are present, else the one present
    (``-1`` marks an absence), each operand cast to D and the result to R."""
    D, R = key
    f = op.numba(D)
    to_d = numba.from_dtype(D)
    to_r = numba.from_dtype(R)

    def merged(av, bv, pa, pb, out):  # prange runs as range in the sequential build
        for k in prange(out.size):
            i = pa[k]
            j = pb[k]
            if i >= 0 and j >= 0:
                out[k] = to_r(f(to_d(av[i]), to_d(bv[j])))
            elif i >= 0:
                out[k] = to_r(to_d(av[i]))
            else:
                out[k] = to_r(to_d(bv[j]))

    return jit(parallel=parallel)(merged)


@register("merged_values", "array", "cpu")
def merged_values(op: Any, av: Any, bv: Any, pa: Any, pb: Any, dtype: Any,
                  out_dtype: Any) -> np.ndarray:
    """The values of a merged pattern in one pass: ``op`` where both operands have an
    entry (``pa``, ``pb`` their positions, ``-1`` where absent), else the present value.

    Parameters
    ----------
    op : BinaryOp
        The operator.
    av, bv : ndarray
        The operands' values.
    pa, pb : ndarray of int64
        Each merged entry's position in ``av`` and ``bv``, ``-1`` where absent.
    dtype, out_dtype : numpy.dtype
        The operator's input dtype (operands are cast to it) and the result's.

    Returns
    -------
    ndarray of out_dtype

    Examples
    --------
    >>> from gblas.semirings.builtin import BINARY
    >>> merged_values(BINARY["plus"], np.array([1.0, 2.0]), np.array([10.0]),
    ...               np.array([0, 1, -1]), np.array([0, -1, 0]), np.float64,
    ...               np.float64).tolist()
    [11.0, 2.0, 10.0]
    """
    D, R = np.dtype(dtype), np.dtype(out_dtype)
    nnz = pa.shape[0]
    out = np.empty(nnz, dtype=R)
    if nnz:
        loop = _loop(op, (D, R), nnz >= PARALLEL_SIZE, _build_merged)
        with np.errstate(**_ERRSTATE):
            loop(np.ascontiguousarray(av), np.ascontiguousarray(bv), pa, pb, out)
    return out
