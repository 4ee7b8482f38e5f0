"""GPU pull SpMV over the TOCAB segmented format (:mod:`gblas.formats.gpu_segmented`).

A call runs three phases (GraphCage's TOCAB):

1. the hot segment: ``x`` is gathered at the hot columns into a compact buffer, and the
   hot local rows are reduced (see below);
2. the cold segments: their local rows, segment after segment in one launch (thread
   blocks start roughly in index order, so that the ``x`` slices in flight stay within
   about one segment's L2 share); partial results are written by local ID, i.e.
   coalesced;
3. the merge (``gb_seg_merge``): one thread block per range of ``range_rows`` destination
   rows folds, segment after segment, the partial results of its range into shared
   memory (within a segment a row appears once, so no atomics are needed and any monoid
   works), then writes ``y`` and its presence flags coalesced.

The local rows of each part are reduced by the CSR pull kernels of :mod:`.mxv` (the
part is itself a CSR: CSR-stream row blocks, chunked long rows, early exit at a terminal
value within a row).  ``kernel="stream"`` runs this module's variant instead, written
for memory-level parallelism: every lane first issues all the loads of its share of a
row block (``GB_ITER`` column indices and values, addresses clamped instead of
bounds-checked so that no load waits for a branch), then all its ``x`` gathers, and only
then stores the products to shared memory, where lanes fold whole rows
(``gb_seg_stream``); long-row chunks are loaded the same way and reduced with warp
shuffles (``gb_seg_long``), then combined per row (``gb_seg_combine``).  It is not the default:
slower than the CSR kernels on Kronecker graphs (a fixed number of loads per lane wastes
issue slots on short blocks, and its registers lower the occupancy;
``benchmarks/results/history_gpu.md``).

A row mask (``allow``) is gathered to local rows, so that the row kernels skip the
disallowed rows' folds and long-row chunks.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData, register
from . import codegen
from .launch import blocks, bool_or_none, dense_x, dummy, empty_result, or_dummy
from .mxv import mxv_pull, pull_schedule

#: Warps per thread block of the row kernels.
ROW_WARPS = 8
#: Default row-block size: target entries and longest short row (blocks hold fewer than
#: ``block + smax`` = 256 entries, i.e. 8 per lane).
DEFAULT_BLOCK = 224
DEFAULT_SMAX = 32


@functools.lru_cache(maxsize=1024)
def rows_source(semiring: Any, types: tuple, *, ip: Any, ix: Any, av: Any, xv: Any,
                iso: bool, xpres: bool, allow: bool, smax: int, iters: int) -> str:
    """CUDA source of ``gb_seg_stream``, ``gb_seg_long`` and ``gb_seg_combine``.

    Parameters
    ----------
    semiring : Semiring
        The semiring.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    ip, ix, av, xv : numpy.dtype
        dtypes of the local CSR's indptr, indices, values and of ``x``.
    iso, xpres, allow : bool
        Iso values (``Ax[0]``); ``x`` has presence flags; a row mask is given.
    smax : int
        Longest short row.
    iters : int
        Entries per lane of a row block or a long-row chunk (``32 * iters`` per warp).

    Returns
    -------
    str
    """
    return codegen.source(
        "seg_rows.cu", semiring=semiring, types=types,
        names=dict(ip_t=ip, ix_t=ix, av_t=av, xv_t=xv), terminal=True,
        flags=dict(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_SMAX=int(smax),
                   GB_ITER=int(iters), GB_WARPS=ROW_WARPS))


def pull_rows(A: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
              block: int = DEFAULT_BLOCK, smax: int = DEFAULT_SMAX) -> VecData:
    """``y = A x`` over the local rows of one part (a CSR), with the MLP-first kernels.

    Parameters
    ----------
    A : CSR
        Local rows of a part of the format (on the GPU).
    x : VecData
        Dense; ``present`` None means every entry exists.
    allow : cupy.ndarray of bool or None
        Local rows to compute.
    semiring, types
        As for :func:`mxv_pull_segmented`.
    block, smax : int
        Row blocks hold fewer than ``block + smax`` entries (rounded up to a multiple of
        32: the entries per warp); rows longer than ``smax`` are cut into chunks of that
        many entries.

    Returns
    -------
    VecData
        Dense, dtype R, one entry per local row.
    """
    m = A.shape[0]
    r = types[2]
    out = empty_result(m, r)
    if m == 0:
        return out
    y, ypres = out.values, out.present
    iters = -(-(int(block) + int(smax)) // 32)
    sched = pull_schedule(A, chunk=32 * iters, smax=int(smax), mode="stream",
                          block=int(block))
    ax, iso = A.values_or_iso()
    xv = x.values
    xpres = bool_or_none(x.present)
    src = rows_source(semiring, types, ip=A.indptr.dtype, ix=A.indices.dtype, av=ax.dtype,
                      xv=xv.dtype, iso=iso, xpres=xpres is not None,
                      allow=allow is not None, smax=sched.smax, iters=iters)
    xp_arg, al_arg = or_dummy(xpres), or_dummy(allow)
    threads = 32 * ROW_WARPS
    nb = sched.nblk
    codegen.get_function(src, "gb_seg_stream")(
        (max(1, (nb + ROW_WARPS - 1) // ROW_WARPS),), (threads,),
        (A.indptr, A.indices, ax, xv, xp_arg, al_arg, sched.blk, np.int64(nb), np.int64(m),
         y, ypres))
    if sched.nlong:
        nch = sched.nchunks
        part = cp.empty(nch, dtype=r)
        ppres = cp.empty(nch, dtype=np.bool_)
        codegen.get_function(src, "gb_seg_long")(
            (blocks(nch * 32, threads),), (threads,),
            (A.indptr, A.indices, ax, xv, xp_arg, al_arg, sched.long_rows, sched.cptr,
             sched.cslot, np.int64(nch), part, ppres))
        codegen.get_function(src, "gb_seg_combine")(
            (blocks(sched.nlong, threads),), (threads,),
            (sched.long_rows, sched.cptr, np.int64(sched.nlong), part, ppres, y, ypres))
    return out


#: Threads per merge block.
MERGE_THREADS = 256
#: Static shared memory a merge block may use (bytes).
MERGE_SMEM = 48 * 1024


@functools.lru_cache(maxsize=512)
def merge_source(semiring: Any, types: tuple, *, rm: Any, range_rows: int) -> str:
    """CUDA source of ``gb_seg_merge`` for one semiring, result types and row-map dtype.

    Parameters
    ----------
    semiring : Semiring
        Its ``add`` monoid folds the partial results.
    types : tuple of numpy.dtype
        ``(T, M, R)``; the partial results and ``y`` have dtype ``R``.
    rm : numpy.dtype
        dtype of the row map.
    range_rows : int
        Destination rows per block (shared memory: one ``R`` and one flag per row).

    Returns
    -------
    str
    """
    return codegen.source("seg_merge.cu", semiring=semiring, types=types,
                          names=dict(rm_t=rm), flags=dict(GB_RANGE=int(range_rows)))


def _check_range(range_rows: int, r: np.dtype) -> None:
    need = range_rows * (r.itemsize + 1)
    if need > MERGE_SMEM:
        raise ValueError(
            f"mxv gpu_segmented: range_rows={range_rows} needs {need} bytes of shared memory "
            f"for {r.name} results (at most {MERGE_SMEM}); build the format with "
            f"range_rows <= {MERGE_SMEM // (r.itemsize + 1)}")


@register("mxv", "gpu_segmented", "gpu", "pull")
def mxv_pull_segmented(S: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                       kernel: str = "csr", hot_smem: bool = False, **knobs: Any) -> VecData:
    """Masked pull SpMV ``y[i] = add_k mul(A[i, k], x[k])`` over a :class:`GPUSegmented`.

    Parameters
    ----------
    S : GPUSegmented
        The matrix, on the GPU.
    x : VecData
        Dense vector of length ``S.shape[1]`` (a sparse one is densified).
    allow : cupy.ndarray of bool or None
        Rows where it is False get no entry (and their folds are skipped).
    semiring : Semiring
        Any semiring, user-defined ones included.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    kernel : {"csr", "stream"}
        Row kernels: the CSR pull kernels of :mod:`.mxv` (``mode``, ``block``, ``smax``,
        ``group``, ``chunk`` knobs, see :func:`.mxv.pull_schedule`) or this module's
        (``block``, ``smax`` knobs, see :func:`pull_rows`).
    hot_smem : bool, default False
        With the CSR row kernels, stage the hot segment's ``x`` in shared memory (every
        thread block copies the compact hot buffer once; its gathers then never leave the
        multiprocessor), when it fits (at most ~49,000 float32 hot columns).  Slower on the graphs
        measured: the buffer leaves room for one block per multiprocessor, too few to
        hide the latency of the streamed indices (``benchmarks/results/history_gpu.md``).
    **knobs
        Passed to the row kernels of both parts.

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` flags.
    """
    m, n = S.shape
    x = dense_x(x, n)
    types = codegen.dtypes(types)
    r = types[2]
    out = empty_result(m, r)
    if m == 0:
        return out
    _check_range(S.range_rows, r)
    if kernel == "stream":
        rows = pull_rows
    elif kernel == "csr":
        rows = mxv_pull
    else:
        raise ValueError(f"mxv gpu_segmented: kernel must be 'stream' or 'csr', got {kernel!r}")
    allow_l = None
    if allow is not None:
        allow_l = bool_or_none(allow)[S.rowmap]
    nh = S.n_hot_rows
    nc = S.cold_csr.shape[0]
    if nh:
        xh = VecData(S.n_hot, None, x.values[S.hot_cols],
                     None if x.present is None else x.present[S.hot_cols])
        hot_knobs = {**knobs, "smem_x": True} if hot_smem and rows is mxv_pull else knobs
        yh = rows(S.hot_csr, xh, None if allow_l is None else allow_l[:nh], semiring, types,
                  **hot_knobs)
        hv, hp = yh.values, yh.present
    else:
        hv, hp = dummy(r), dummy()
    if nc:
        yc = rows(S.cold_csr, x, None if allow_l is None else allow_l[nh:], semiring, types,
                  **knobs)
        cv, cpres = yc.values, yc.present
    else:
        cv, cpres = dummy(r), dummy()
    src = merge_source(semiring, types, rm=S.rowmap.dtype, range_rows=S.range_rows)
    nr = S.nranges
    codegen.get_function(src, "gb_seg_merge")(
        (nr,), (MERGE_THREADS,),
        (hv, hp, cv, cpres, S.rowmap, S.range_ptr, np.int32(S.nseg), np.int64(nh),
         np.int64(nr), np.int64(m), out.values, out.present))
    return out
