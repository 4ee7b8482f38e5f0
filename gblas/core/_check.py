"""Argument checks shared by the constructors and operations (messages name the call)."""

from __future__ import annotations

import numpy as np

from ..exceptions import IndexOutOfBound, InvalidObject, InvalidValue, bad_arg


def _show(v) -> str:
    """An index as the user gave it: ``7``, ``-3``, ``1e+20``, ``nan``, ``0.5``."""
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return str(int(f)) if f.is_integer() and abs(f) < 1e16 else repr(f)
    return str(int(v))


_INT64_END = 2**63


def _check_index_values(xp, arr, call: str, arg: str) -> None:
    """Refuse an index array (of ``xp``) that is not 1-D, not of a number dtype, or holds
    a float that is not a whole number (reported as given)."""
    if arr.ndim != 1:
        raise bad_arg(InvalidValue, call, arg, "a 1-D array of indices", f"shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iuf":
        raise bad_arg(InvalidValue, call, arg, "integer indices", f"dtype {arr.dtype}",
                      "Convert with .astype(np.int64).")
    if arr.size and arr.dtype.kind == "f":
        whole = xp.isfinite(arr) & (xp.mod(arr, 1) == 0)
        if not bool(whole.all()):
            bad = arr[int(xp.argmin(whole))].item()
            raise bad_arg(InvalidValue, call, arg, "integer indices",
                          f"index {_show(bad)} (dtype {arr.dtype})",
                          "Indices must be whole numbers; convert with .astype(np.int64).")


def _check_range(lo, hi, bound: int | None, call: str, arg: str) -> None:
    """Refuse the smallest ``lo`` and largest ``hi`` index outside ``[0, bound)`` (with a
    bound) or outside what int64 holds."""
    if bound is not None and (lo < 0 or hi >= bound):
        bad = lo if lo < 0 else hi
        raise bad_arg(IndexOutOfBound, call, arg, f"indices in [0, {bound})",
                      f"index {_show(bad)}")
    if lo < -_INT64_END or hi >= _INT64_END:
        bad = lo if lo < -_INT64_END else hi
        raise bad_arg(IndexOutOfBound, call, arg, "indices in [0, 2**63)",
                      f"index {_show(bad)}")


def as_index_array(a, call: str, arg: str, bound: int | None = None) -> np.ndarray:
    """Validate an index array: 1-D, integer, within ``[0, bound)``; returned as int64.

    Float arrays holding whole numbers are accepted.  A bad index is reported as given
    (before any cast: ``1e20``, not the integer it would wrap to).

    Examples
    --------
    >>> as_index_array([2.0, 0.0], "extract", "indices", 3).tolist()
    [2, 0]
    >>> try:
    ...     as_index_array([1e20], "extract", "indices", 3)
    ... except IndexOutOfBound as e:
    ...     print(str(e).split("expected ")[1])
    indices in [0, 3), got index 1e+20.
    """
    from .._device import to_numpy

    arr = to_numpy(a) if not isinstance(a, (list, tuple, range)) else np.asarray(a)
    _check_index_values(np, arr, call, arg)
    if arr.size and (bound is not None or arr.dtype.kind == "f" or arr.dtype == np.uint64):
        # checked on the values as given: a cast to int64 first would wrap 1e20 or a
        # uint64 above 2**63 to a different index.  Without a bound only what int64
        # cannot hold is refused (the caller checks the range once it knows the bound).
        _check_range(arr.min(), arr.max(), bound, call, arg)
    return arr.astype(np.int64, copy=False)


def as_device_index_array(xp, a, call: str, arg: str, bound: int | None = None):
    """:func:`as_index_array` on ``xp``'s device (CuPy arrays stay on the GPU; the
    checks read back a few scalars only).

    Examples
    --------
    >>> import numpy as np
    >>> as_device_index_array(np, np.array([2.0, 0.0]), "Matrix.from_coo", "rows", 3).tolist()
    [2, 0]
    >>> try:
    ...     as_device_index_array(np, np.array([-1, 0]), "Matrix.from_coo", "rows", 3)
    ... except IndexOutOfBound as e:
    ...     print(str(e).split("expected ")[1])
    indices in [0, 3), got index -1.
    """
    arr = a if hasattr(a, "dtype") and hasattr(a, "ndim") else np.asarray(a)
    arr = xp.asarray(arr)
    _check_index_values(xp, arr, call, arg)
    if arr.size:
        _check_range(arr.min().item(), arr.max().item(), bound, call, arg)
    return arr.astype(np.int64, copy=False)


def check_index(i, n: int, call: str, arg: str, shape: tuple) -> int:
    """One index into an axis of length ``n`` (negative ones count from the end, as in
    NumPy); the error names the index and the shape.

    Examples
    --------
    >>> check_index(-1, 4, "Matrix.get", "i", (4, 5))
    3
    >>> try:
    ...     check_index(4, 4, "Matrix.get", "i", (4, 5))
    ... except IndexOutOfBound as e:
    ...     print(e)
    Matrix.get: argument `i` expected an index in [-4, 4) (shape (4, 5)), got 4.
    """
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise bad_arg(InvalidObject, call, arg, "an integer index", type(i).__name__,
                      "Use an int; slices and index arrays select sub-matrices (A[rows, cols]).")
    i = int(i)
    if not -n <= i < n:
        raise bad_arg(IndexOutOfBound, call, arg, f"an index in [{-n}, {n}) (shape {shape})",
                      str(i))
    return i + n if i < 0 else i


def check_size(n, call: str, arg: str) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise bad_arg(InvalidValue, call, arg, "a non-negative integer", repr(n))
    return int(n)


def check_type(obj, types, call: str, arg: str, what: str) -> None:
    if not isinstance(obj, types):
        raise bad_arg(InvalidObject, call, arg, what, type(obj).__name__)


def check_shape(shape, call: str, arg: str = "shape") -> tuple[int, int]:
    """Validate a matrix shape: a pair of non-negative integers; returned as ``(m, n)``.

    Examples
    --------
    >>> check_shape((2, 3), "Matrix.from_coo")
    (2, 3)
    >>> try:
    ...     check_shape(3, "Matrix.from_coo")
    ... except InvalidValue as e:
    ...     print(str(e).split(", got ")[1])
    3. Give both sizes, e.g. shape=(3, 3).
    """
    what = "a pair (nrows, ncols) of integers >= 0"
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__") or len(shape) != 2:
        n = repr(shape)
        fix = (f"Give both sizes, e.g. shape=({shape}, {shape})."
               if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool) else None)
        raise bad_arg(InvalidValue, call, arg, what, n, fix)
    m, n = shape
    for v in (m, n):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
            raise bad_arg(InvalidValue, call, arg, what, repr(tuple(shape)))
    return int(m), int(n)
