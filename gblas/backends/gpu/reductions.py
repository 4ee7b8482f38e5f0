"""Whole-array reductions on the GPU without CuPy's CUB block reductions
(``cuda/reductions.cu``).

CuPy runs ``sum``, ``count_nonzero``, ``all``, ``max``, ``bincount`` (its ``max``) and a
``ReductionKernel`` through CUB block reductions when its CUB accelerator is on (the
default): NVRTC compiles each (reduction, dtype) with CUB's headers the first time a
machine meets it, 1.5-2.7 s a kernel (two for most).  A first ``connected_components`` on
a GPU Matrix spent 33 of its 47 s in 14 of them on an H100 host; these kernels compile in
a fraction of a second per input dtype, once per machine (CuPy's kernel cache keeps
them).

Counts, integer sums and histograms fold with 64-bit atomics (exact); a float sum, a min
and a max write one partial per block, finished on the host (each call returns a host
scalar, so it synchronizes once; the same grid for the same size, so the same bits).

Examples
--------
>>> import cupy as cp  # doctest: +SKIP
>>> count_nonzero(cp.array([0, 3, 0, 1])), total(cp.arange(5)), extreme(cp.arange(5), "max")
... # doctest: +SKIP
(2, 10, 4)
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from . import codegen

__all__ = ["bincount", "count_nonzero", "extreme", "popcount", "reductions_source", "total"]

_BLOCK = 256
#: Most blocks of a launch (their partials go back to the host).
_MAX_BLOCKS = 1024
#: Fold codes of ``GB_RED_OP``.
_OPS = {"sum": 0, "min": 1, "max": 2}


def _acc(dt: np.dtype) -> np.dtype:
    """The accumulator of a fold over ``dt``: float64 for floats, else a 64-bit integer of
    its signedness."""
    if dt.kind == "f":
        return np.dtype(np.float64)
    return np.dtype(np.uint64 if dt.kind == "u" else np.int64)


def reductions_source(dt: Any, op: str) -> str:
    """CUDA source of the reductions over input dtype ``dt`` whose ``gb_red_partials``
    folds with ``op`` ("sum", "min" or "max"; the other kernels are in every variant)."""
    dt = np.dtype(dt)
    return codegen.source("reductions.cu", names=dict(T=dt, A=_acc(dt)),
                          flags=dict(GB_RED_OP=_OPS[op]))


@functools.lru_cache(maxsize=64)
def _function(dt: np.dtype, op: str, name: str) -> Any:
    return codegen.get_function(reductions_source(dt, op), name)


def _prepared(x: Any) -> tuple[Any, np.dtype, int]:
    x = cp.ascontiguousarray(x).ravel()
    if x.dtype.kind not in "biuf":
        raise TypeError(f"GPU reductions: dtype {x.dtype} is not supported")
    return x, x.dtype, int(x.size)


def _grid(n: int) -> int:
    return max(1, min(_MAX_BLOCKS, -(-n // (_BLOCK * 4))))


def _atomic(x: Any, name: str) -> int:
    """The 64-bit result of kernel ``name`` folding every entry into one counter."""
    x, dt, n = _prepared(x)
    out = cp.zeros(1, dtype=np.uint64)
    if n:
        _function(dt, "sum", name)((_grid(n),), (_BLOCK,), (x, np.int64(n), out))
    return int(out.get()[0])


def count_nonzero(x: Any) -> int:
    """The entries of ``x`` that are not zero (NaN counts), as ``numpy.count_nonzero``."""
    return _atomic(x, "gb_red_count")


def popcount(words: Any, tail: Any) -> int:
    """The set bits of a uint64 array plus the true entries of ``tail`` (fewer than 8
    bools): a bool array's true entries, eight per load, in one launch."""
    words, dt, n = _prepared(words)
    out = cp.zeros(1, dtype=np.uint64)
    _function(dt, "sum", "gb_red_popcount")(
        (_grid(max(n, 1)),), (_BLOCK,),
        (words, np.int64(n), tail.view(np.uint8), np.int32(tail.shape[0]), out))
    return int(out.get()[0])


def total(x: Any) -> Any:
    """The sum of ``x`` as a host scalar: a Python int for integers and bool (int64
    wrap-around, as NumPy's), a float for floats (accumulated in float64)."""
    if x.dtype.kind in "biu":
        s = _atomic(x, "gb_red_isum")
        return s - (1 << 64) if x.dtype.kind != "u" and s >= 1 << 63 else s
    return float(_partials(x, "sum").sum())


def extreme(x: Any, op: str) -> Any:
    """The ``op`` ("min" or "max") of a non-empty ``x`` as a host scalar; NaN entries are
    skipped (NumPy's ``nanmin`` / ``nanmax``), NaN when all are NaN."""
    if x.size == 0:
        raise ValueError(f"GPU reductions: the {op} of an empty array")
    part = _partials(x, op)
    if part.dtype.kind == "f":
        keep = part[~np.isnan(part)]
        return float(keep.min() if op == "min" else keep.max()) if keep.size else float("nan")
    return int(part.min() if op == "min" else part.max())


def _partials(x: Any, op: str) -> np.ndarray:
    """The blocks' folds of ``x`` with ``op``, on the host."""
    x, dt, n = _prepared(x)
    acc = _acc(dt)
    if op == "sum":
        start = acc.type(0)
    elif acc.kind == "f":
        start = acc.type(np.nan)
    else:
        info = np.iinfo(acc)
        start = acc.type(info.max if op == "min" else info.min)
    grid = _grid(n)
    part = cp.empty(grid, dtype=acc)
    _function(dt, op, "gb_red_partials")((grid,), (_BLOCK,), (x, np.int64(n), start, part))
    return part.get()


def bincount(x: Any, length: int) -> Any:
    """int64 counts of each value of the integer array ``x``, every value in
    ``[0, length)``, as ``numpy.bincount(x, minlength=length)``.  The bound is the
    caller's (the rows or columns of a matrix): checking it would cost a read back, so a
    value outside is counted in a slot past the result, never written over memory."""
    x, dt, n = _prepared(x)
    if dt.kind not in "iu":
        raise TypeError(f"GPU bincount: integer values expected, got {dt}")
    length = max(int(length), 0)
    out = cp.zeros(length + 1, dtype=np.uint64)
    if n:
        _function(dt, "sum", "gb_red_bincount")((_grid(n),), (_BLOCK,),
                                                 (x, np.int64(n), out, np.int64(length)))
    return out[:length].view(np.int64)
