"""GPU pull SpMV over light column panels (:mod:`gblas.formats.light_panels`, MultiGraphD).

Two kernels (``cuda/light_panels.cu``):

1. ``gb_lp_stream`` -- one thread block per unit (a run of one column panel's entries)
   stages the panel's slice of ``x`` (and its flags) in shared memory; each warp takes
   groups of ``group`` entries (4 or 8 per lane) and writes one partial result per run (a
   row's entries within the group): lanes fold their runs, a segmented suffix scan over
   the warp joins the runs that cross lanes (only the steps the longest stretch without
   a run start needs), and the group's partials are staged in shared memory and stored
   coalesced.  Without flags on ``x``, a lane keeps its run starts as one bit mask.  With
   values in groups of 256 a warp loads its next group while it folds the current one,
   and the blocks take 512 threads when ``x`` exceeds half the L2
   (:func:`_stream_threads`).
2. ``gb_lp_reduce`` -- one thread block per row panel (or per share of one when its
   accumulators do not fit the shared memory) folds the panel's chunks of partials into
   shared-memory accumulators with atomic updates (:func:`.folds.scatter_plan`, float
   ``min`` / ``max`` by integer atomics), its chunk bounds copied to shared memory
   :data:`CHUNK_BATCH` at a time, then writes ``y`` and its flags (with a dense ``x`` the
   rows with a value are the layout's ``row_hit``), or runs PageRank's vector step on
   its rows instead (``then=``: ``y`` neither written nor read back).

A row mask is applied when ``y`` is written.  A layout over relabelled columns
(``col_order``) gathers ``x`` into that order once per call.  Floating-point sums fold a
row's partials in the order the atomic updates arrive, so the last bits of a ``plus``
result may differ between calls; ``min``, ``max``, integer and boolean monoids give
identical results.  The figures behind these choices: ``benchmarks/results/history_gpu.md``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import cupy as cp
import numpy as np

from ..registry import PageRankStep, VecData
from . import codegen
from .folds import fold_start, scatter_plan
from .launch import (
    allow_dynamic_smem,
    bool_or_none,
    dummy,
    l2_bytes,
    max_block_smem,
    or_dummy,
    sm_regs,
)
from .vector_kernels import grid_sum_workspace

__all__ = ["light_panels_pull", "panels_source"]

#: Threads per block of both kernels (phase 1 may take half, :func:`_stream_threads`).
THREADS = 1024

#: Chunk bounds phase 2 copies to shared memory at a time (16 bytes each).
CHUNK_BATCH = 2048

#: Static shared memory of ``gb_grid_sum2`` (``gb_sums.cuh``), rounded up.
_SUMS_SMEM = 1024


@functools.lru_cache(maxsize=512)
def panels_source(semiring: Any, types: tuple, *, av: Any, xv: Any, iso: bool, xpres: bool,
                  allow: bool, panel_cols: int, panel_rows: int, sub: int = 1,
                  group: int = 128, prefetch: bool = False, chunk_batch: int = 0,
                  chunk_at: int = 0, pagerank: bool = False) -> tuple[str, np.dtype]:
    """CUDA source of ``gb_lp_stream`` and ``gb_lp_reduce``, and the accumulator dtype.

    Parameters
    ----------
    semiring : Semiring
        Any semiring (its ``cuda_expr()`` snippets are inlined; the accumulators start
        at :func:`~.folds.fold_start` of its ``add``).
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    av, xv : numpy.dtype
        dtypes of the stored values and of ``x``.
    iso, xpres, allow : bool
        Iso values (``val[0]``); ``x`` has presence flags; a row mask is given.
    panel_cols, panel_rows : int
        The layout's panel sizes.
    sub : int, default 1
        Blocks sharing one row panel in ``gb_lp_reduce``.
    group : {128, 256}, default 128
        The layout's entries per group (4 or 8 per lane).
    prefetch : bool, default False
        ``gb_lp_stream`` loads a warp's next group while it folds the current one.
    chunk_batch, chunk_at : int, default 0
        Chunk bounds ``gb_lp_reduce`` copies to shared memory at a time (0: none), at
        byte ``chunk_at`` of its dynamic shared memory (after the accumulators).
    pagerank : bool, default False
        ``gb_lp_reduce`` ends with PageRank's vector step (float64 ``R``) instead of
        writing ``y`` (:class:`~gblas.backends.registry.PageRankStep`).

    Returns
    -------
    (str, numpy.dtype)

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> f4 = np.dtype("float32")
    >>> src, acc = panels_source(builtin.SEMIRINGS["min_plus"], (f4, f4, f4), av=f4, xv=f4,
    ...                          iso=False, xpres=False, allow=False, panel_cols=16384,
    ...                          panel_rows=16384)
    >>> nan = "((acc_t)(__int_as_float((int)0x7fc00000U)))"   # min's start: +NaN
    >>> acc, "gb_lp_reduce" in src, f"#define GB_IDENT {nan}" in src
    (dtype('float32'), True, True)
    """
    r = np.dtype(types[2])
    acc, scatter = scatter_plan(semiring.add, r, shared=True, float_minmax=True)
    ident = fold_start(semiring.add, r)
    return codegen.source(
        "light_panels.cu", semiring=semiring, types=types,
        names=dict(av_t=av, xv_t=xv, acc_t=acc),
        flags=dict(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_W=int(panel_cols),
                   GB_RR=int(panel_rows), GB_SUB=int(sub), GB_K=int(group) // 32,
                   GB_RS=-(-int(panel_rows) // int(sub)), GB_PF=bool(prefetch),
                   GB_CB=int(chunk_batch), GB_CB_AT=int(chunk_at), GB_PR=bool(pagerank),
                   GB_IDENT=f"((acc_t){codegen.c_literal(ident, r)})"),
        extra=scatter), acc


def _smem(fn: Any, nbytes: int, what: Any, fix: str) -> None:
    """Opt ``fn`` in to ``nbytes`` of shared memory, or raise naming ``what()``."""
    most = max_block_smem()
    if nbytes > most:
        raise ValueError(f"mxv gpu_heavy_light: {what()} needs {nbytes} bytes of shared "
                         f"memory (a thread block has {most}); {fix}")
    allow_dynamic_smem(fn, nbytes)


def _stream_smem(panel_cols: int, xv: Any, r: Any, xpres: bool, threads: int,
                 group: int) -> int:
    """Shared memory of ``gb_lp_stream``: every warp's staged partials of a group (and
    their flags), then the panel's ``x`` (and its flags)."""
    staged = (int(threads) // 32) * int(group) * (np.dtype(r).itemsize + xpres)
    return staged + int(panel_cols) * (np.dtype(xv).itemsize + xpres)


#: ``y = x[order]``: ``x`` (values or flags) gathered into a relabelled layout's column
#: order (one thread per column; the reads stay within a relabelling span, which the L2
#: holds; the unused ids at the end of a span's last panel, ``-1``, get a zero).
_GATHER = cp.ElementwiseKernel("raw T x, I order", "T y", "y = order < 0 ? (T)0 : x[order]",
                               "gb_lp_gather")


def _iso_array(L: Any) -> Any:
    """The iso value of ``L`` as a one-element device array (made once per layout)."""
    arr = getattr(L, "_iso_array", None)
    if arr is None:
        arr = L._iso_array = cp.full(1, L.iso_value, dtype=L.dtype)
    return arr


@dataclass(frozen=True)
class _Launch:
    """What a call of :func:`light_panels_pull` launches, worked out once per layout and
    kind of call (the host time before the first kernel is time an idle GPU waits)."""

    stream: Any
    stream_threads: int
    stream_smem: int
    reduce: Any
    reduce_blocks: int
    reduce_smem: int


def _stream_threads(fn: Any, xbytes: int) -> int:
    """Threads per block of ``gb_lp_stream``: 1024, or 512 when the kernel takes more
    than 32 registers and ``x`` is larger than half the L2.  With more than 32 registers
    (8 entries per lane and the prefetch of values: 60-64) one 1024-thread block fills a
    multiprocessor, and while it stages its panel's slice of ``x`` from DRAM nothing else
    streams; two blocks of 512 overlap the staging of one with the streaming of the
    other: faster once ``x`` leaves the L2, slower while it fits
    (``benchmarks/results/history_gpu.md``)."""
    if fn.num_regs * THREADS > sm_regs() // 2 and 2 * xbytes > l2_bytes():
        return THREADS // 2
    return THREADS


def _launch(L: Any, semiring: Any, types: tuple, xv: Any, xpres: bool, allow: bool,
            threads: int | None, prefetch: bool | None, chunk_batch: int,
            pagerank: bool = False) -> _Launch:
    """The kernels and launch sizes of a call (cached on ``L``)."""
    key = (semiring, types, xv.dtype, xv.size, xpres, allow, threads, prefetch, chunk_batch,
           pagerank)
    cache = L.__dict__.setdefault("_launches", {})
    got = cache.get(key)
    if got is not None:
        return got
    r = types[2]
    iso = L.val is None
    pf = L.group // 32 == 8 and not iso if prefetch is None else bool(prefetch)
    acc = scatter_plan(semiring.add, r, shared=True, float_minmax=True)[0]
    flag = int(xpres)   # phase 2's presence flag per row
    cb = 16 * int(chunk_batch)
    # (the step's block sums take static shared memory: 2 x 32 doubles and a flag)
    room = max_block_smem() - cb - (_SUMS_SMEM if pagerank else 0)
    sub = -(-L.panel_rows * (acc.itemsize + flag) // room)
    rs = -(-L.panel_rows // sub)
    at = -(-rs * (acc.itemsize + flag) // 16) * 16
    vd = L.dtype if iso else L.val.dtype

    src = panels_source(semiring, types, av=vd, xv=xv.dtype, iso=iso, xpres=xpres,
                        allow=allow, panel_cols=L.panel_cols, panel_rows=L.panel_rows,
                        sub=sub, group=L.group, prefetch=pf, chunk_batch=int(chunk_batch),
                        chunk_at=at, pagerank=pagerank)[0]
    fn = codegen.get_function(src, "gb_lp_stream")
    nt = int(threads) if threads is not None else \
        _stream_threads(fn, xv.size * xv.dtype.itemsize)
    dyn = _stream_smem(L.panel_cols, xv.dtype, r, xpres, nt, L.group)
    _smem(fn, dyn, lambda: f"a column panel of {L.panel_cols} values of {xv.dtype.name} "
          f"(and every warp's staged partials of {r.name})",
          "build the format with a smaller light_cols")
    fr = codegen.get_function(src, "gb_lp_reduce")
    dyn2 = at + cb
    _smem(fr, dyn2, lambda: f"{rs} accumulators of {acc.name}", "build the format with a "
          "smaller light_rows")
    got = cache[key] = _Launch(fn, nt, dyn, fr, L.n_row_panels * sub, dyn2)
    return got


def light_panels_pull(L: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                      threads: int | None = None, prefetch: bool | None = None,
                      chunk_batch: int = CHUNK_BATCH, x_layout: bool = False,
                      then: PageRankStep | None = None) -> VecData | None:
    """``y = A x`` over the entries of a :class:`~gblas.formats.light_panels.LightPanels`.

    Parameters
    ----------
    L : LightPanels
        The layout, on the GPU.
    x : VecData
        Dense vector of length ``L.shape[1]`` (``present`` None: every entry exists).
    allow : cupy.ndarray of bool or None
        Rows where it is False get no entry.
    semiring : Semiring
        Any semiring, user-defined ones included.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    threads : int, optional
        Threads per block of phase 1 (a multiple of 32; by default
        :func:`_stream_threads`).  Phase 2 always takes 1024.
    prefetch : bool, optional
        Phase 1 loads a warp's next group while it folds the current one (by default
        with values in groups of 256 only: with 4 entries per lane the kernel would take
        more than 32 registers, and two 1024-thread blocks would no longer fit a
        multiprocessor; pattern-only, the kernel without it fits two).
    chunk_batch : int, default :data:`CHUNK_BATCH`
        Chunk bounds phase 2 copies to shared memory at a time (0: read them from global
        memory).
    x_layout : bool, default False
        ``x`` is already in the layout's relabelled column order (``L.col_order``, its
        length): no gather.
    then : PageRankStep, optional
        PageRank's vector step on ``y``, run by phase 2 on each row panel's rows in place
        of writing ``y`` (which is never stored: 18 bytes a row neither written nor read
        back); needs ``R`` float64, a dense ``x`` and no mask.

    Returns
    -------
    VecData or None
        Dense, dtype R, with ``present`` flags; None with ``then`` (its arrays are
        written instead).

    Raises
    ------
    ValueError
        When a column panel's ``x`` or a row panel's accumulators do not fit the shared
        memory of a thread block, or ``then`` is given for a product it cannot follow.
    """
    m = L.shape[0]
    types = codegen.dtypes(types)
    r = types[2]
    if m == 0:
        if then is not None:   # no rows: no change and no dangling rank
            then.state_out[:] = 0.0
            return None
        return VecData(0, None, cp.empty(0, dtype=r), cp.empty(0, dtype=np.bool_))
    xv = x.values
    xpres = bool_or_none(x.present)
    if x_layout:
        want = 0 if L.col_order is None else int(L.col_order.size)
        if not want or xv.size != want:
            raise ValueError("mxv gpu_heavy_light: x_layout needs x in the relabelled "
                             f"column order of the light panels ({want} values), got "
                             f"{xv.size}")
    elif L.col_order is not None:
        # the layout's columns are relabelled: x into their order, once per call (the
        # first launch: a call's host time before it is what an idle GPU waits for)
        xv = _GATHER(xv, L.col_order)
        xpres = None if xpres is None else _GATHER(xpres, L.col_order)
    if then is not None and (r != np.float64 or semiring.add.code != "plus"
                             or xpres is not None or allow is not None):
        raise ValueError("mxv gpu_heavy_light: then=PageRankStep needs a float64 plus "
                         f"product of a dense x and no mask; got {r.name} "
                         f"{semiring.add.code}, x flags {xpres is not None}, mask "
                         f"{allow is not None}")
    go = _launch(L, semiring, types, xv, xpres is not None, allow is not None, threads,
                 prefetch, chunk_batch, then is not None)
    val = L.val if L.val is not None else _iso_array(L)
    part = cp.empty(max(L.npart, 1), dtype=r)
    ppres = cp.empty(max(L.npart, 1), dtype=np.bool_) if xpres is not None else dummy()
    if L.nunits:
        go.stream((L.nunits,), (go.stream_threads,),
                  (L.ent, val, xv, or_dummy(xpres), np.int64(xv.size), L.units, L.gbase,
                   part, ppres), shared_mem=go.stream_smem)
    head = (part, ppres, L.prow, L.cptr, L.chunks, np.int64(m), or_dummy(allow), L.row_hit)
    if then is not None:
        partials, ticket, _ = grid_sum_workspace(go.reduce_blocks)
        go.reduce((go.reduce_blocks,), (THREADS,),
                  (*head, dummy(r), dummy(), dummy(np.float64) if then.p is None else then.p,
                   np.int32(then.p is not None), np.float64(then.p_uniform), then.r, then.w,
                   np.float64(then.alpha), then.state_in, then.r_new, then.s_new, then.s_pos,
                   then.state_out, partials, ticket),
                  shared_mem=go.reduce_smem)
        return None
    y = cp.empty(m, dtype=r)
    ypres = cp.empty(m, dtype=np.bool_)
    go.reduce((go.reduce_blocks,), (THREADS,), (*head, y, ypres), shared_mem=go.reduce_smem)
    return VecData(m, None, y, ypres)
