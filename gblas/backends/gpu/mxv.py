"""GPU matrix-vector kernels over a semiring: masked pull SpMV and push SpMSpV.

Pull (``y = A x`` with dense ``x``) splits the rows once per matrix (the split is cached;
the CSR arrays are treated as immutable):

* short rows (at most ``smax`` entries), in one of two ways:

  - ``"stream"`` (CSR-stream, the default for matrices of at least
    :data:`STREAM_MIN_NNZ` entries): consecutive rows are grouped into row blocks of
    fewer than ``block + smax`` entries; one warp streams a block's products into shared
    memory with coalesced loads, then each lane folds whole rows from there.  Every lane
    is busy whatever the row lengths.
  - ``"vector"``: a group of ``G`` lanes (a power of two sized from the mean degree)
    reduces one row with warp shuffles (``gb_pull_short``);

* long rows are cut into chunks of ``chunk`` entries, one warp per chunk
  (``gb_pull_long``), and the chunks' partial results are combined per row
  (``gb_pull_combine``).

Reductions fold ``(present, value)`` pairs, so that no identity is needed (the ANY monoid
has none that works, and a NaN stays a NaN); a monoid with a terminal value stops a row as
soon as it is reached, ANY at the first product.

Push (``y = A x`` with sparse ``x``, given ``AT``) assigns one thread to every edge leaving
the frontier (load-balanced by a binary search over the frontier's degree prefix sums) and
scatters the products into ``y`` with atomics: hardware ``atomicAdd`` / ``atomicMin`` /
``atomicMax`` / ``atomicOr`` / ``atomicAnd`` / ``atomicXor`` for the built-in monoids on the
types that have them, a compare-and-swap loop applying the monoid's expression otherwise.
1- and 2-byte results accumulate in a 32-bit temporary array.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple

import cupy as cp
import numpy as np

from ..registry import VecData, register
from ..rowcount import row_counts
from . import codegen
from .folds import scatter_plan
from .launch import (
    MAX_BLOCKS_PER_SM,
    allow_dynamic_smem,
    blocks,
    bool_or_none,
    compress,
    dense_x,
    empty_result,
    frontier_offsets,
    max_block_smem,
    or_dummy,
    push_accumulator,
    resident_blocks,
    sm_count,
)

# ------------------------------------------------------------------------------ pull

@functools.lru_cache(maxsize=1024)
def pull_source(semiring: Any, types: tuple, *, ip: Any, ix: Any, av: Any, xv: Any,
                iso: bool, xpres: bool, allow: bool, group: int, smax: int,
                chunk: int, cap: int = 32, nx: int = 0, warps: int | None = None) -> str:
    """CUDA source of the pull kernels for one specialization.

    Parameters
    ----------
    semiring : Semiring
        The semiring (its ``cuda_expr()`` snippets are inlined).
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    ip, ix, av, xv : numpy.dtype
        dtypes of A's indptr, indices and values, and of x's values.
    iso, xpres, allow : bool
        A is iso (its one value is ``Ax[0]``); x has presence flags; a row mask is given.
    group, smax, chunk : int
        Lanes per short row, the longest short row, entries per chunk of a long row.
    cap : int
        Entries of a row block of ``gb_pull_stream`` (its shared memory per warp).
    nx : int
        0, or the length of ``x`` when every thread block stages it in dynamic shared
        memory (then blocks loop over their work).
    warps : int, optional
        Warps per thread block (default :data:`_WARPS`).

    Returns
    -------
    str
        Source defining ``gb_pull_short``, ``gb_pull_stream``, ``gb_pull_long`` and
        ``gb_pull_combine``.
    """
    return codegen.source(
        "mxv_pull.cu", semiring=semiring, types=types,
        names=dict(ip_t=ip, ix_t=ix, av_t=av, xv_t=xv), terminal=True,
        flags=dict(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_G=group, GB_SMAX=smax,
                   GB_CHUNK=chunk, GB_CAP=cap, GB_WARPS=int(warps or _WARPS),
                   GB_NX=int(nx)))


@dataclass
class PullSchedule:
    """Row classification of a CSR for the pull kernels (computed once per matrix).

    Attributes
    ----------
    mode : {"stream", "vector"}
        How short rows are processed: ``gb_pull_stream`` (row blocks of at most ``cap``
        entries, one warp each) or ``gb_pull_short`` (``group`` lanes per row).
    group : int
        Lanes per short row (vector mode).
    smax : int
        Rows with more entries than this are long.
    chunk : int
        Entries per chunk of a long row (one warp each).
    block : int
        Target entries per row block (stream mode).
    blk : cupy.ndarray or None
        int64 first row of every row block (stream mode).
    long_rows : cupy.ndarray
        int64 ids of the long rows.
    cptr : cupy.ndarray
        int64, ``len(long_rows) + 1``: chunk ranges of the long rows.
    cslot : cupy.ndarray
        int32, the long-row slot of every chunk.
    """

    mode: str
    group: int
    smax: int
    chunk: int
    block: int
    blk: Any
    long_rows: Any
    cptr: Any
    cslot: Any

    @property
    def cap(self) -> int:
        """Most entries a row block can hold: ``block + smax`` (32 in vector mode)."""
        return self.block + self.smax if self.mode == "stream" else 32

    @property
    def nblk(self) -> int:
        return 0 if self.blk is None else int(self.blk.size)

    @property
    def nlong(self) -> int:
        return int(self.long_rows.size)

    @property
    def nchunks(self) -> int:
        return int(self.cslot.size)


_SCHEDULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: Warps per thread block of the pull kernels.
_WARPS = 8
#: Default entries per warp chunk of a long row.
DEFAULT_CHUNK = 1024
#: Matrices with at least this many entries use the "stream" short-row kernel by default
#: (as fast as "vector" or faster on large graphs; provisional, see
#: ``benchmarks/results/history_gpu.md``).
STREAM_MIN_NNZ = 1 << 20
#: Default target entries per row block and longest short row (stream mode).
DEFAULT_BLOCK = 256
DEFAULT_STREAM_SMAX = 64
#: Most rows in one row block (stream mode): each lane folds at most 4 rows.
MAX_BLOCK_ROWS = 128


def default_group(nrows: int, nnz: int) -> int:
    """Lanes per short row in vector mode: a power of two near a quarter of the mean
    degree, in [2, 32] (skewed graphs have most rows far below the mean)."""
    mean = nnz / max(nrows, 1)
    g = 2
    while g < 32 and g * 6 < mean:
        g *= 2
    return g


def pull_schedule(A: Any, group: int | None = None, chunk: int = DEFAULT_CHUNK,
                  smax: int | None = None, mode: str | None = None,
                  block: int | None = None) -> PullSchedule:
    """The (cached) :class:`PullSchedule` of the CSR ``A``.

    Parameters
    ----------
    A : CSR
        The matrix, on the GPU.
    group : int, optional
        Lanes per short row in vector mode (a power of two up to 32); default
        :func:`default_group`.
    chunk : int, default 1024
        Entries per warp chunk of a long row.
    smax : int, optional
        Longest short row; default 64 (stream) or ``max(32, 4 * group)`` (vector).
    mode : {"stream", "vector"}, optional
        Short-row kernel; default "stream" from :data:`STREAM_MIN_NNZ` entries on.
    block : int, optional
        Target entries per row block in stream mode; default :data:`DEFAULT_BLOCK`.

    Returns
    -------
    PullSchedule
        Cached on ``A`` (weakly), per parameters.
    """
    # cached under the arguments as given as well as resolved: a repeated call does no
    # work here (and never reads anything back from the device)
    try:
        per = _SCHEDULES.setdefault(A, {})
    except TypeError:  # not weak-referenceable: no caching
        per = {}
    given = ("given", mode, group, int(chunk), smax, block)
    if given in per:
        return per[given]
    nnz = int(A.indices.size)  # host-side: no device sync
    mode = mode or ("stream" if nnz >= STREAM_MIN_NNZ else "vector")
    if mode not in ("stream", "vector"):
        raise ValueError(f"mxv pull: mode must be 'stream' or 'vector', got {mode!r}")
    g = int(group) if group else default_group(A.shape[0], nnz)
    if g not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"mxv pull: group must be a power of two up to 32, got {g}")
    if mode == "stream":
        smax = int(smax) if smax else DEFAULT_STREAM_SMAX
        block = int(block) if block else DEFAULT_BLOCK
    else:
        smax = int(smax) if smax else max(32, 4 * g)
        block = 0
    if mode == "stream" and _WARPS * (block + smax) * 9 > 48 * 1024:
        raise ValueError(f"mxv pull: block + smax = {block + smax} needs more shared memory "
                         "than a thread block has; lower block or smax")
    key = (mode, g, int(chunk), smax, block)
    if key in per:
        per[given] = per[key]
        return per[key]
    blk, long_rows, cptr, cslot = device_schedule(A.indptr, A.shape[0], nnz, mode, smax,
                                                  int(chunk), block)
    sched = PullSchedule(mode, g, smax, int(chunk), block, blk, long_rows, cptr, cslot)
    per[key] = per[given] = sched
    return sched


def device_schedule(indptr: Any, m: int, nnz: int, mode: str, smax: int, chunk: int,
                    block: int) -> tuple:
    """``(blk, long_rows, cptr, cslot)`` of the ``m`` rows (``nnz`` entries) with these
    (device) row pointers: rows
    of more than ``smax`` entries cut into chunks of ``chunk``, and in ``"stream"`` mode
    the row blocks of ``block`` entries (:class:`PullSchedule`), as :func:`_schedule_arrays`
    computes them, in one launch (:func:`queue_row_schedule`) and one read of its three
    counts.

    Examples
    --------
    >>> ip = cp.array([0, 2, 40, 41])  # doctest: +SKIP
    >>> _, long_rows, cptr, cslot = device_schedule(ip, 3, 41, "vector", 32, 16,
    ...                                             0)  # doctest: +SKIP
    >>> long_rows.tolist(), cptr.tolist(), cslot.tolist()  # doctest: +SKIP
    ([1], [0, 3], [0, 0, 0])
    """
    bufs = queue_row_schedule(indptr, m, nnz, smax, chunk, block if mode == "stream" else 0)
    nlong, nchunks, nblk = (int(v) for v in bufs.counts[:3].get())
    # copies of the parts that hold them: the buffers, sized for the most the entries
    # allow (a row block per row), are dropped (no row blocks without rows, as the host
    # lists them)
    return (bufs.blk[:nblk].copy() if bufs.blk is not None and m else None,
            bufs.long_rows[:nlong].copy(), bufs.cptr[:nlong + 1].copy(),
            bufs.cslot[:nchunks].copy())


class RowSchedule(NamedTuple):
    """Buffers that :func:`queue_row_schedule` fills: ``counts[0:3]`` are the numbers of
    long rows, chunks and row blocks (the arrays' leading parts that hold them)."""

    blk: Any
    long_rows: Any
    cptr: Any
    cslot: Any
    counts: Any


@functools.lru_cache(maxsize=8)
def row_schedule_source(ip: Any) -> str:
    """CUDA source of ``gb_row_schedule`` for row pointers of dtype ``ip``."""
    return codegen.source("row_schedule.cu", names=dict(ip_t=np.dtype(ip)))


def schedule_bounds(m: int, nnz: int, smax: int, chunk: int) -> tuple[int, int]:
    """The most long rows (over ``smax`` entries) and chunks (of ``chunk`` entries, at
    least 1) ``m`` rows of ``nnz`` entries can have: each long row adds at most one
    partial chunk to its entries' whole ones.

    Examples
    --------
    >>> schedule_bounds(3, 41, 32, 16)
    (1, 3)
    """
    most_long = min(m, nnz // (smax + 1))
    return most_long, max(nnz // chunk + most_long, 1)


def queue_row_schedule(indptr: Any, m: int, nnz: int, smax: int, chunk: int,
                       block: int) -> RowSchedule:
    """Queue ``gb_row_schedule`` (``cuda/row_schedule.cu``: one launch whose blocks count
    their rows, wait for each other and place them) over the ``m`` rows of these row
    pointers (``nnz`` entries), into new buffers sized for the most long rows, chunks
    and row blocks (``block`` > 0) the entries allow; nothing is read back.

    Examples
    --------
    >>> s = queue_row_schedule(cp.array([0, 2, 40, 41]), 3, 41, 32, 16, 0)  # doctest: +SKIP
    >>> s.counts[:3].tolist()  # doctest: +SKIP
    [1, 3, 0]
    """
    most_long, most_chunks = schedule_bounds(m, nnz, smax, chunk)
    bufs = RowSchedule(
        cp.empty(max(m, 1), dtype=np.int64) if block else None,
        cp.empty(max(most_long, 1), dtype=np.int64),
        cp.empty(most_long + 1, dtype=np.int64),
        cp.empty(most_chunks, dtype=np.int32),
        cp.empty(4 + 3 * sm_count() * MAX_BLOCKS_PER_SM, dtype=np.int64))
    fn = codegen.get_function(row_schedule_source(indptr.dtype), "gb_row_schedule")
    nblocks = max(1, min(sm_count() * resident_blocks(fn), -(-m // 256)))
    fn((nblocks,), (256,), (indptr, np.int64(m), np.int64(smax), np.int64(chunk),
                            np.int64(block), np.int64(MAX_BLOCK_ROWS),
                            or_dummy(bufs.blk, np.int64), bufs.long_rows, bufs.cptr,
                            bufs.cslot, bufs.counts, cp.zeros(2, dtype=np.uint32)))
    return bufs


def _schedule_arrays(xp: Any, indptr: Any, m: int, mode: str, smax: int, chunk: int,
                     block: int) -> tuple:
    """``(blk, long_rows, cptr, cslot)`` of :class:`PullSchedule` from the row pointers,
    with ``xp`` (NumPy on a host copy, or CuPy on the device)."""
    deg = xp.diff(indptr)
    is_long = deg > smax
    long_rows = xp.flatnonzero(is_long).astype(np.int64)
    nch = (deg[long_rows].astype(np.int64) + (chunk - 1)) // chunk
    cptr = xp.zeros(long_rows.size + 1, dtype=np.int64)
    if long_rows.size:
        cptr[1:] = xp.cumsum(nch)
    nchunks = int(cptr[-1])
    cslot = xp.searchsorted(cptr[1:], xp.arange(nchunks, dtype=np.int64), side="right")
    blk = None
    if mode == "stream" and m:
        # a block: consecutive rows whose first entries fall in one window of `block`
        # entries (so it holds < block + smax entries), at most MAX_BLOCK_ROWS rows; a
        # long row stands alone
        key_ = indptr[:-1].astype(np.int64) // block
        brk = xp.empty(m, dtype=np.bool_)
        brk[0] = True
        brk[1:] = (key_[1:] != key_[:-1]) | is_long[1:] | is_long[:-1]
        brk[::MAX_BLOCK_ROWS] = True
        blk = xp.flatnonzero(brk).astype(np.int64)
    return blk, long_rows, cptr, cslot.astype(np.int32)


@register("mxv", "csr", "gpu", "pull")
def mxv_pull(A: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
             group: int | None = None, chunk: int = DEFAULT_CHUNK,
             smax: int | None = None, mode: str | None = None,
             block: int | None = None, smem_x: bool = False) -> VecData:
    """Masked pull SpMV ``y[i] = add_k mul(A[i, k], x[k])`` on the GPU.

    Parameters
    ----------
    A : CSR
        The matrix, on the GPU (iso allowed: its values are never materialized).
    x : VecData
        Dense vector of length ``A.shape[1]``; ``present`` None means every entry exists.
    allow : cupy.ndarray of bool or None
        Rows where it is False are skipped (no entry).
    semiring : Semiring
        The semiring.
    types : tuple of numpy.dtype
        ``(T, M, R)``: A and x are cast to T, ``multiply`` gives M, cast to R for ``add``.
    group, chunk, smax, mode, block
        Tuning knobs, see :func:`pull_schedule`.
    smem_x : bool, default False
        Stage ``x`` in shared memory (every thread block copies it once, then gathers
        from there), when it fits (:func:`smem_x_fits`); for a short ``x`` read by many
        entries, such as the hot segment of ``gpu_segmented``.  Ignored otherwise.

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` marking the rows that had at least one product.
    """
    x = dense_x(x, A.shape[1])  # a sparse x (the planner should have pushed)
    m = A.shape[0]
    types = codegen.dtypes(types)
    r = types[2]
    out = empty_result(m, r)
    if m == 0:
        return out
    y, ypres = out.values, out.present
    sched = pull_schedule(A, group, chunk, smax, mode, block)
    ax, iso = A.values_or_iso()
    xv = x.values
    xpres, allow = bool_or_none(x.present), bool_or_none(allow)
    nx = int(A.shape[1])
    staged = smem_x and smem_x_fits(nx, xv.dtype, xpres is not None, r, sched.cap)
    warps = SMEM_WARPS if staged else _WARPS
    src = pull_source(semiring, types, ip=A.indptr.dtype, ix=A.indices.dtype, av=ax.dtype,
                      xv=xv.dtype, iso=iso, xpres=xpres is not None, allow=allow is not None,
                      group=sched.group, smax=sched.smax, chunk=sched.chunk, cap=sched.cap,
                      nx=nx if staged else 0, warps=warps)
    xp_arg, al_arg = or_dummy(xpres), or_dummy(allow)
    blk = 32 * warps
    dyn = nx * (xv.dtype.itemsize + (xpres is not None)) if staged else 0
    most = sm_count() * SMEM_BLOCKS_PER_SM if staged else 1 << 62

    def launch(name: str, nblocks: int, args: tuple) -> None:
        fn = codegen.get_function(src, name)
        if dyn:
            allow_dynamic_smem(fn, dyn)
        fn((max(1, min(nblocks, most)),), (blk,), args, shared_mem=dyn)

    if sched.mode == "stream":
        nb = sched.nblk
        launch("gb_pull_stream", (nb + warps - 1) // warps,
               (A.indptr, A.indices, ax, xv, xp_arg, al_arg, sched.blk, np.int64(nb),
                np.int64(m), y, ypres))
    else:
        launch("gb_pull_short", blocks(m * sched.group, blk),
               (A.indptr, A.indices, ax, xv, xp_arg, al_arg, np.int64(m), y, ypres))
    if sched.nlong:
        nch = sched.nchunks
        part = cp.empty(nch, dtype=r)
        ppres = cp.empty(nch, dtype=np.bool_)
        launch("gb_pull_long", blocks(nch * 32, blk),
               (A.indptr, A.indices, ax, xv, xp_arg, al_arg, sched.long_rows, sched.cptr,
                sched.cslot, np.int64(nch), part, ppres))
        codegen.get_function(src, "gb_pull_combine")(
            (blocks(sched.nlong, blk),), (blk,),
            (sched.long_rows, sched.cptr, np.int64(sched.nlong), part, ppres, y, ypres))
    return out


#: Warps per thread block, and thread blocks per multiprocessor, of the pull kernels
#: when x is staged in shared memory (one block of 16 warps per SM: x takes most of it).
SMEM_WARPS = 16
SMEM_BLOCKS_PER_SM = 1


def smem_x_fits(nx: int, xv: Any, xpres: bool, r: Any, cap: int) -> bool:
    """Whether ``x`` (``nx`` values of dtype ``xv``, with flags when ``xpres``) fits the
    dynamic shared memory a pull block can have next to its static arrays."""
    if nx <= 0:
        return False
    static = SMEM_WARPS * cap * (np.dtype(r).itemsize + 1)
    return nx * (np.dtype(xv).itemsize + bool(xpres)) + static <= max_block_smem()


# ------------------------------------------------------------------------------ push

@functools.lru_cache(maxsize=1024)
def push_source(semiring: Any, types: tuple, *, ip: Any, ix: Any, av: Any, fi: Any, xv: Any,
                iso: bool, allow: bool, listed: bool = False, li: Any = np.int64
                ) -> tuple[str, np.dtype]:
    """CUDA source of the push kernel ``gb_push`` and the accumulator dtype.

    ``ip``, ``ix``, ``av`` are the dtypes of AT's arrays, ``fi`` / ``xv`` those of the
    frontier's indices and values; ``listed``: the kernel appends each reached row to a
    list of ``li`` (int32 or int64) once (warp-aggregated) instead of only flagging it.
    """
    acc, scatter = scatter_plan(semiring.add, np.dtype(types[2]))
    return codegen.source(
        "mxv_push.cu", semiring=semiring, types=types,
        names=dict(ip_t=ip, ix_t=ix, av_t=av, fi_t=fi, xv_t=xv, acc_t=acc, li_t=np.dtype(li)),
        flags=dict(GB_ISO=iso, GB_ALLOW=allow, GB_LIST=listed), extra=scatter), acc


@register("mxv", "csr", "gpu", "push")
def mxv_push(AT: Any, x: VecData, allow: Any, semiring: Any, types: tuple,
             nrows: int) -> VecData:
    """Push SpMSpV: ``y = A x`` for a sparse ``x``, scattering along the rows of ``AT``.

    Parameters
    ----------
    AT : CSR
        CSR of A's transpose (row k lists the i with an entry A[i, k]), on the GPU.
    x : VecData
        Sparse vector (sorted ``indices``); a dense one is compressed first.
    allow : cupy.ndarray of bool or None
        Output rows where it is False get no entry.
    semiring : Semiring
        The semiring.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    nrows : int
        Length of the result (A's number of rows).

    Returns
    -------
    VecData
        Dtype R: sparse (sorted indices) when at most one row in
        :data:`SPARSE_RESULT_RATIO` has an entry, else dense with ``present`` flags.

    Notes
    -----
    Each output starts from :func:`~.folds.fold_start` (the identity; NaN for a float
    ``min`` / ``max``, so a row whose only products are NaN gives NaN, as on the CPU).
    """
    types = codegen.dtypes(types)
    r = types[2]
    if x.indices is None:
        x = compress(x)
    xi, xvals = x.indices, x.values
    nf = int(xi.size)
    offs = frontier_offsets(AT.indptr, xi)
    total = int(offs[-1]) if nf else 0  # the products: an upper bound of the rows reached
    # few products: the kernel lists the rows it reaches (no pass over the flags after)
    listed = 0 < total and total * LISTED_RATIO <= nrows
    # the list in 32 bits where the rows fit: its sort takes half the radix passes
    li = np.dtype(np.int32 if nrows < 2**31 else np.int64)
    allow = bool_or_none(allow)
    ax, iso = AT.values_or_iso()
    src, acc_dt = push_source(semiring, types, ip=AT.indptr.dtype, ix=AT.indices.dtype,
                              av=ax.dtype, fi=xi.dtype, xv=xvals.dtype, iso=iso,
                              allow=allow is not None, listed=listed, li=li)
    acc = push_accumulator(semiring.add, r, acc_dt, nrows)
    # listed: claimed through 32-bit words, so the flags are padded to a multiple of 4
    ypres = cp.zeros(-(-nrows // 4) * 4 if listed else nrows, dtype=np.bool_)
    rows = cp.empty(total if listed else 1, dtype=li)
    count = cp.zeros(1, dtype=np.uint64)
    if total and nrows:
        blk = 256
        grid = min(blocks(total, blk), 32 * sm_count())
        k = codegen.get_function(src, "gb_push")
        k((grid,), (blk,),
          (AT.indptr, AT.indices, ax, xi, xvals, offs, np.int64(nf), or_dummy(allow), acc,
           ypres, rows, count))
    if listed:
        idx = cp.sort(rows[:int(count[0])]).astype(np.int64, copy=False)
        y = acc[idx]
        return VecData(nrows, idx, y if acc_dt == r else y.astype(r), None)
    idx = cp.flatnonzero(ypres)
    if idx.size * SPARSE_RESULT_RATIO <= nrows:
        # few results: hand back a sparse vector, so that the write-back and the next
        # step touch only them (a BFS frontier, a Bellman-Ford front)
        y = acc[idx]
        return VecData(nrows, idx, y if acc_dt == r else y.astype(r), None)
    y = acc if acc_dt == r else acc.astype(r)
    return VecData(nrows, None, y, ypres)


#: A push result with at most one entry in this many rows is returned sparse.
SPARSE_RESULT_RATIO = 16
#: A push with at most one product per this many rows lists the rows it reaches.
LISTED_RATIO = SPARSE_RESULT_RATIO


@register("mxv", "csr", "gpu", "rowcount")
def rowcount(A, x, allow, semiring, types):
    """Pull ``A (+.pair) x`` for a full ``x``: the row pointers' differences."""
    return row_counts(cp, A, x, allow, semiring, types)
