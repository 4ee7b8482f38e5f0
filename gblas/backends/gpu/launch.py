"""Launch helpers shared by the GPU kernels: grid sizes, device attributes, shared-memory
opt-in, placeholder arrays, and the vector conversions every kernel entry point does
(dense / sparse ``x``, bool flags, the result arrays, a push's frontier offsets and
accumulator)."""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData
from .folds import fold_start

__all__ = ["allow_dynamic_smem", "blocks", "bool_array", "bool_or_none", "compress",
           "densify", "dense_x", "dummy", "empty_result", "frontier_degrees",
           "frontier_offsets", "l2_bytes", "max_block_smem", "or_dummy", "push_accumulator",
           "resident_blocks", "sm_count", "sm_regs", "MAX_BLOCKS_PER_SM"]

_DUMMIES: dict[np.dtype, Any] = {}
#: Most blocks per multiprocessor of a grid whose blocks wait for each other (their
#: warps hide the gathers' latency).
MAX_BLOCKS_PER_SM = 4


def dummy(dtype: Any = np.bool_) -> Any:
    """A one-element device array standing for an absent optional array argument."""
    key = np.dtype(dtype)
    arr = _DUMMIES.get(key)
    if arr is None:
        arr = cp.zeros(1, dtype=key)
        _DUMMIES[key] = arr
    return arr


def or_dummy(a: Any, dtype: Any = np.bool_) -> Any:
    """``a``, or :func:`dummy` of ``dtype`` when ``a`` is None (an absent optional array)."""
    return a if a is not None else dummy(dtype)


def blocks(n_threads: int, block: int = 256) -> int:
    """Number of blocks of ``block`` threads covering ``n_threads`` (at least 1)."""
    return max(1, (int(n_threads) + block - 1) // block)


_ATTRS: dict = {}


def _attribute(name: str, default: int) -> int:
    """A device attribute of the current device, asked once per device and name (CuPy's
    ``Device.attributes`` reads every attribute, tens of microseconds per call)."""
    dev = cp.cuda.Device()
    v = _ATTRS.get((dev.id, name))
    if v is None:
        v = _ATTRS[(dev.id, name)] = int(dev.attributes.get(name, default))
    return v


def sm_count() -> int:
    """Number of multiprocessors of the current device."""
    return _attribute("MultiProcessorCount", 1)


def resident_blocks(fn: Any, block: int = 256) -> int:
    """Blocks of ``block`` threads of ``fn`` one multiprocessor holds at once (the
    driver's occupancy, at most :data:`MAX_BLOCKS_PER_SM`; 1 where it cannot be asked:
    a kernel that launches always has room for one), for a grid whose blocks wait for
    each other.

    Examples
    --------
    >>> from gblas.backends.gpu import codegen  # doctest: +SKIP
    >>> fn = codegen.get_function(codegen.source("row_schedule.cu",
    ...     names=dict(ip_t=np.int64)), "gb_row_schedule")  # doctest: +SKIP
    >>> 1 <= resident_blocks(fn) <= MAX_BLOCKS_PER_SM  # doctest: +SKIP
    True
    """
    try:
        from cupy.cuda import driver

        got = int(driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.kernel.ptr, block, 0))
    except Exception:  # an older CuPy or another driver API: the safe grid
        return 1
    return max(1, min(got, MAX_BLOCKS_PER_SM))


def max_block_smem() -> int:
    """Shared memory one thread block may use on the current device (opt-in maximum)."""
    return _attribute("MaxSharedMemoryPerBlockOptin", 0) or \
        _attribute("MaxSharedMemoryPerBlock", 48 << 10)


def sm_regs() -> int:
    """32-bit registers of one multiprocessor (shared by its resident blocks)."""
    return _attribute("MaxRegistersPerMultiprocessor", 65536)


def l2_bytes() -> int:
    """L2 cache bytes of the current device."""
    return _attribute("L2CacheSize", 50 << 20)


_DYN_SMEM: dict = {}


def allow_dynamic_smem(fn: Any, nbytes: int) -> None:
    """Let kernel ``fn`` launch with ``nbytes`` of dynamic shared memory (above 48 KiB a
    kernel must opt in).  What was granted is remembered per kernel (the kernels live as
    long as their cached modules), so later calls cost a dictionary lookup."""
    if nbytes <= 48 << 10 or _DYN_SMEM.get(id(fn), 0) >= nbytes:
        return
    if hasattr(fn, "max_dynamic_shared_size_bytes"):
        fn.max_dynamic_shared_size_bytes = nbytes
    else:
        drv = cp.cuda.driver
        drv.funcSetAttribute(fn.ptr, drv.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             nbytes)
    _DYN_SMEM[id(fn)] = nbytes


# --------------------------------------------------------------------- vector conversions


def bool_array(a: Any) -> Any:
    """``a`` as a bool array (itself when it is one)."""
    return a if a.dtype == np.bool_ else a.astype(np.bool_)


def bool_or_none(a: Any) -> Any:
    """:func:`bool_array` of ``a``, or None when ``a`` is None (optional flags, masks)."""
    return None if a is None else bool_array(a)


def densify(x: VecData, n: int) -> VecData:
    """A sparse ``x`` as dense values and presence flags of length ``n``."""
    vals = cp.zeros(n, dtype=x.values.dtype)
    pres = cp.zeros(n, dtype=np.bool_)
    if x.indices.size:
        vals[x.indices] = x.values
        pres[x.indices] = True
    return VecData(n, None, vals, pres)


def dense_x(x: VecData, n: int) -> VecData:
    """``x`` dense (a pull's input): :func:`densify` when it is sparse."""
    return densify(x, n) if x.indices is not None else x


def compress(x: VecData) -> VecData:
    """A dense ``x`` as sorted indices and values of its present entries."""
    if x.present is None:
        idx = cp.arange(x.size, dtype=np.int64)
        return VecData(x.size, idx, x.values)
    idx = cp.flatnonzero(bool_array(x.present))
    return VecData(x.size, idx, x.values[idx])


def empty_result(m: int, r: Any) -> VecData:
    """Uninitialized dense result arrays: ``m`` values of dtype ``r`` and their flags."""
    return VecData(m, None, cp.empty(m, dtype=r), cp.empty(m, dtype=np.bool_))


@functools.cache
def _degree_kernel() -> Any:
    return cp.ElementwiseKernel("raw P ip, F k", "int64 d", "d = (long long)(ip[k + 1] - ip[k])",
                                "gb_frontier_degree")


def frontier_degrees(indptr: Any, xi: Any) -> Any:
    """``indptr[xi + 1] - indptr[xi]`` as int64, in one launch."""
    return _degree_kernel()(indptr, xi)


def frontier_offsets(indptr: Any, xi: Any) -> Any:
    """Inclusive running sums of the degrees of the frontier ``xi`` (one zero when it is
    empty): a push's edge offsets, two launches."""
    if int(xi.size):
        return cp.cumsum(frontier_degrees(indptr, xi))
    return cp.zeros(1, dtype=np.int64)


def push_accumulator(monoid: Any, r: Any, acc_dt: Any, nrows: int) -> Any:
    """A push's accumulators: ``nrows`` of ``acc_dt`` at :func:`~.folds.fold_start` for
    dtype ``r`` (zeros for ANY)."""
    if monoid.any_value:
        return cp.zeros(nrows, dtype=acc_dt)
    return cp.full(nrows, np.asarray(fold_start(monoid, r)).astype(acc_dt)[()], dtype=acc_dt)
