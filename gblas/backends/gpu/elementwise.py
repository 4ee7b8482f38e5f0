"""GPU element-wise maps: ``apply`` of a unary operator and a binary operator on arrays.

Built-in operators whose CuPy ufunc computes exactly the operator's definition use the
ufunc; every other operator (user-defined ones included) runs as a
:class:`cupy.ElementwiseKernel` built from its ``cuda_expr()`` and cached per
(expression, dtype).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy as cp
import numpy as np

from ..registry import register
from . import codegen, reductions
from .codegen import ctype

_KERNELS: dict[tuple, Any] = {}


def _is_array(a: Any) -> bool:
    return isinstance(a, cp.ndarray)


def _cast(a: Any, dt: np.dtype) -> Any:
    """``a`` as an array (or NumPy scalar) of dtype ``dt``."""
    if _is_array(a):
        return a.astype(dt, copy=False)
    if isinstance(a, np.ndarray) and a.ndim:
        return cp.asarray(a, dtype=dt)
    return np.asarray(a).astype(dt)[()]


def _unary_fast(code: str | None, v: Any, dt: np.dtype) -> Any:
    """The ufunc computation of a built-in unary operator, or None."""
    if code == "identity":
        return v.copy()
    if code == "ainv" and dt.kind != "b":
        return cp.negative(v)
    if code == "abs" and dt.kind != "b":
        return cp.abs(v)
    if code == "minv" and dt.kind == "f":
        return cp.reciprocal(v)
    if code == "lnot":
        return v == 0
    if code == "one":
        return cp.ones(v.shape, dtype=dt)
    if code in ("sqrt", "exp", "log") and dt.kind == "f":
        return getattr(cp, code)(v)
    return None


_BINARY_UFUNCS: dict[str, Callable] = {
    "plus": cp.add,
    "times": cp.multiply,
    "min": cp.fmin,
    "max": cp.fmax,
    "lor": cp.logical_or,
    "land": cp.logical_and,
    "lxor": cp.logical_xor,
    "eq": cp.equal,
    "ne": cp.not_equal,
    "gt": cp.greater,
    "lt": cp.less,
    "ge": cp.greater_equal,
    "le": cp.less_equal,
}


def _binary_fast(code: str | None, a: Any, b: Any, dt: np.dtype, odt: np.dtype) -> Any:
    """The ufunc computation of a built-in binary operator, or None."""
    if code is None:
        return None
    shape = a.shape if _is_array(a) else b.shape
    if code in ("first", "any"):
        return cp.broadcast_to(cp.asarray(a, dtype=odt), shape).copy()
    if code == "second":
        return cp.broadcast_to(cp.asarray(b, dtype=odt), shape).copy()
    if code == "pair":
        return cp.ones(shape, dtype=odt)
    if code in ("minus", "rminus") and dt.kind != "b":
        return cp.subtract(a, b) if code == "minus" else cp.subtract(b, a)
    if code in ("min", "max") and dt.kind == "b":
        return cp.logical_and(a, b) if code == "min" else cp.logical_or(a, b)
    if code == "div" and dt.kind == "f":
        return cp.true_divide(a, b)
    f = _BINARY_UFUNCS.get(code)
    if f is None:
        return None
    out = f(a, b)
    return out if out.dtype == odt else out.astype(odt)


def _map_kernel(kind: str, params: str, expr: str, odt: np.dtype) -> Any:
    """The cached ElementwiseKernel ``out = (odt)(expr)`` over the inputs ``params``."""
    key = (kind, expr, params, odt)
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = cp.ElementwiseKernel(
            params, f"{odt.name} out", f"out = ({ctype(odt)})({expr});", f"gb_map_{kind}",
            preamble=codegen.preamble())
    return k


def unary_kernel(expr: str, dt: Any, odt: Any) -> Any:
    """The cached ElementwiseKernel ``out = (odt)(expr)`` with input ``x`` of dtype ``dt``."""
    dt = np.dtype(dt)
    return _map_kernel("unary", f"{dt.name} x", expr, np.dtype(odt))


def binary_kernel(expr: str, dt: Any, odt: Any) -> Any:
    """The cached ElementwiseKernel ``out = (odt)(expr)`` with inputs ``a``, ``b`` of ``dt``."""
    dt = np.dtype(dt)
    return _map_kernel("binary", f"{dt.name} a, {dt.name} b", expr, np.dtype(odt))


def map_preamble() -> str:
    """The preamble of the element-wise kernels (the operators' helper functions)."""
    return codegen.preamble()


@register("map_unary", "array", "gpu", "")
def map_unary(op: Any, values: Any, dtype: Any) -> Any:
    """Apply a unary operator to every element.

    Parameters
    ----------
    op : UnaryOp
        The operator.
    values : cupy.ndarray
        The input, cast to ``dtype`` first.
    dtype : numpy.dtype
        The operator's input dtype.

    Returns
    -------
    cupy.ndarray
        Of dtype ``op.output_dtype(dtype)``.
    """
    dt = np.dtype(dtype)
    odt = np.dtype(op.output_dtype(dt))
    v = _cast(values, dt)
    out = _unary_fast(op.code, v, dt)
    if out is None:
        out = unary_kernel(op.cuda_expr(), dt, odt)(v)
    return out if out.dtype == odt else out.astype(odt)


@register("map_binary", "array", "gpu", "")
def map_binary(op: Any, a: Any, b: Any, dtype: Any) -> Any:
    """Apply a binary operator element-wise; one of ``a``, ``b`` may be a scalar.

    Parameters
    ----------
    op : BinaryOp
        The operator.
    a, b : cupy.ndarray or scalar
        Operands of the same length (or one scalar), cast to ``dtype`` first.
    dtype : numpy.dtype
        The operator's input dtype.

    Returns
    -------
    cupy.ndarray
        Of dtype ``op.output_dtype(dtype)``.
    """
    dt = np.dtype(dtype)
    odt = np.dtype(op.output_dtype(dt))
    a, b = _cast(a, dt), _cast(b, dt)
    if not (_is_array(a) or _is_array(b)):
        a = cp.asarray(a).reshape(1)  # two scalars: a one-element result
    out = _binary_fast(op.code, a, b, dt, odt)
    if out is None:
        out = binary_kernel(op.cuda_expr(), dt, odt)(a, b)
    return out if out.dtype == odt else out.astype(odt)


@register("where", "array", "gpu", "")
def where(cond, a, b):
    """``a`` where ``cond`` is true, else ``b`` (CuPy's branch-free kernel)."""
    return cp.where(cond, a, b)


@register("assign_where", "array", "gpu", "")
def assign_where(cond, src, dst):
    """``dst[cond] = src[cond]`` in place."""
    cp.copyto(dst, src.astype(dst.dtype, copy=False), where=cond)


@register("compress", "array", "gpu", "")
def compress(cond, a, *more):
    """``a[cond]`` for a boolean ``cond`` of ``a``'s length; with more arrays, the tuple
    of each one compressed (the positions found once: one device synchronization)."""
    if not more:
        return a[cond]
    pos = cp.flatnonzero(cond)
    return tuple(b[pos] for b in (a, *more))


# Bool arrays hold one byte 0 or 1 per entry: eight of them read as one 64-bit word count
# with a popcount and negate with an XOR, eight entries per thread instead of one.
_NOT8 = cp.ElementwiseKernel("uint64 w", "uint64 o", "o = w ^ 0x0101010101010101ULL",
                             "gb_not8")


def _bool_words(b: Any) -> tuple[Any, Any]:
    """``(words, tail)``: the 8-byte-aligned bulk of a contiguous bool array as uint64
    words and the rest (words None when ``b`` cannot be viewed so)."""
    if b.dtype != np.bool_ or b.ndim != 1 or not b.flags.c_contiguous or b.data.ptr % 8:
        return None, b
    k = b.shape[0] // 8 * 8
    return b[:k].view(cp.uint64), b[k:]


@register("count_true", "array", "gpu", "")
def count_true(b: Any) -> int:
    """The number of True entries of a bool array (one synchronization)."""
    words, tail = _bool_words(b)
    if words is None or words.shape[0] == 0:
        return reductions.count_nonzero(b)
    return reductions.popcount(words, tail)


@register("logical_not", "array", "gpu", "")
def logical_not(b: Any) -> Any:
    """A new bool array, True where ``b`` is False."""
    words, tail = _bool_words(b)
    if words is None or words.shape[0] == 0:
        return cp.logical_not(b)
    out = cp.empty(b.shape[0], dtype=np.bool_)
    k = words.shape[0] * 8
    _NOT8(words, out[:k].view(cp.uint64))
    if tail.shape[0]:
        cp.logical_not(tail, out=out[k:])
    return out
