"""Device detection and array-module helpers.

CuPy is an optional backend: it is never imported by ``import gblas``, only when a GPU is
asked for, and an array is recognized as a CuPy array by its type's module name (without
importing CuPy).
"""

from __future__ import annotations

import functools
import importlib.util
import sys

import numpy as np

from .exceptions import InvalidValue, NoGPU, bad_arg

DEVICES = ("cpu", "gpu")


def check_device(device: str, call: str = "to", arg: str = "device") -> str:
    if device not in DEVICES:
        raise bad_arg(InvalidValue, call, arg, "'cpu' or 'gpu'", repr(device))
    return device


def is_cupy_array(a) -> bool:
    """True for a ``cupy.ndarray``, without importing CuPy."""
    mod = type(a).__module__
    return mod.startswith("cupy") and "cupy" in sys.modules


def device_of(a) -> str:
    return "gpu" if is_cupy_array(a) else "cpu"


@functools.lru_cache(maxsize=1)
def gpu_available() -> bool:
    """Whether CuPy is installed and sees a CUDA device (imports CuPy on first call)."""
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def cupy_module(call: str = "to"):
    """Import and return CuPy, or raise a clear NoGPU error."""
    if not gpu_available():
        raise NoGPU(
            f"{call}: the GPU was asked for, but CuPy with a CUDA device is not available. "
            "Install gblas[gpu] on a machine with an NVIDIA GPU, or use device='cpu'."
        )
    import cupy

    return cupy


def xp_for(device: str):
    """NumPy for 'cpu', CuPy for 'gpu'."""
    return np if device == "cpu" else cupy_module()


def to_device(a, device: str):
    """Move an array (or None) to ``device``."""
    if a is None:
        return None
    if device == "cpu":
        return a.get() if is_cupy_array(a) else np.asarray(a)
    cp = cupy_module()
    return a if is_cupy_array(a) else cp.asarray(a)


def pinned_copy(a):
    """A CuPy array's copy on the host, in page-locked memory from CuPy's pinned pool: a
    NumPy array copied at the link's speed (a pageable copy goes through the driver's
    staging, several times slower; the pool's first allocation costs more than one
    pageable copy, later ones reuse it)."""
    import cupyx

    out = cupyx.empty_pinned(a.shape, a.dtype)
    a.get(out=out)
    return out


def unique(a):
    """The sorted distinct values of a 1-D array, on its device.  On the host by a sort
    and a mask: NumPy 2.4's ``np.unique`` took 8-15x a sort on large int64 arrays of
    many distinct values (578K keys: 243 against 28 ms).

    Examples
    --------
    >>> unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    if is_cupy_array(a):
        return cupy_module().unique(a)
    return unique_sorted(np.sort(np.asarray(a).ravel()))


def unique_sorted(keys: np.ndarray) -> np.ndarray:
    """A sorted NumPy array without its repeated values (itself when it has none).

    Examples
    --------
    >>> unique_sorted(np.array([1, 1, 2, 5, 5])).tolist()
    [1, 2, 5]
    """
    if keys.size < 2:
        return keys
    keep = np.empty(keys.size, dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys if keep.all() else keys[keep]


def to_numpy(a):
    return to_device(a, "cpu")


# ---------------------------------------------------------------- whole-array reductions
# On the GPU these run gblas's own kernels (``backends/gpu/reductions.py``): CuPy's
# reductions compile CUB kernels per (reduction, dtype), 1.5-2.7 s each on a machine's
# first use.


def count_nonzero(a) -> int:
    """The entries of ``a`` that are not zero, on its device.

    Examples
    --------
    >>> count_nonzero(np.array([0, 2, 0, 5]))
    2
    """
    if is_cupy_array(a):
        from .backends.gpu import reductions

        return reductions.count_nonzero(a)
    return int(np.count_nonzero(a))


def all_true(a) -> bool:
    """Whether every entry of ``a`` is true (nonzero), on its device.

    Examples
    --------
    >>> all_true(np.array([True, True])), all_true(np.array([1, 0]))
    (True, False)
    """
    return count_nonzero(a) == a.size


def array_equal(a, b) -> bool:
    """Whether ``a`` and ``b`` have one shape and equal entries (NaN equal to nothing, as
    in ``numpy.array_equal``), on their device.

    Examples
    --------
    >>> array_equal(np.array([1, 2]), np.array([1, 2], dtype=np.int8))
    True
    >>> array_equal(np.array([np.nan]), np.array([np.nan])), array_equal(np.ones(2), np.ones(3))
    (False, False)
    """
    if a.shape != b.shape:
        return False
    if is_cupy_array(a) or is_cupy_array(b):
        return count_nonzero(a != b) == 0
    return bool(np.array_equal(a, b))


def array_sum(a):
    """The sum of ``a`` as a host scalar (int for integers and bool, float for floats).

    Examples
    --------
    >>> array_sum(np.array([1, 2, 3], dtype=np.int32)), array_sum(np.array([0.5, 0.25]))
    (6, 0.75)
    """
    if is_cupy_array(a):
        from .backends.gpu import reductions

        return reductions.total(a)
    a = np.asarray(a)
    if a.dtype.kind in "biu":
        return int(a.sum(dtype=np.uint64 if a.dtype.kind == "u" else np.int64))
    return float(a.sum(dtype=np.float64))


def extreme(a, op: str):
    """The ``op`` ("min" or "max") of a non-empty ``a`` as a host scalar, NaN entries
    skipped (NaN when all are).

    Examples
    --------
    >>> extreme(np.array([3, 9, 1]), "max"), extreme(np.array([np.nan, 2.0]), "min")
    (9, 2.0)
    """
    if is_cupy_array(a):
        from .backends.gpu import reductions

        return reductions.extreme(a, op)
    a = np.asarray(a)
    if a.dtype.kind == "f":  # fmin / fmax skip NaN, without a copy or a warning
        return float((np.fmin if op == "min" else np.fmax).reduce(a, axis=None))
    return (a.min() if op == "min" else a.max()).item()


def bincount(x, length: int):
    """int64 counts of each value of the integer array ``x`` (every value in ``[0,
    length)``), on its device: ``numpy.bincount(x, minlength=length)``.

    Examples
    --------
    >>> bincount(np.array([0, 2, 2]), 4).tolist()
    [1, 0, 2, 0]
    """
    if is_cupy_array(x):
        from .backends.gpu import reductions

        return reductions.bincount(x, length)
    return np.bincount(x, minlength=length).astype(np.int64, copy=False)
