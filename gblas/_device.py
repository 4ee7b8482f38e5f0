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
