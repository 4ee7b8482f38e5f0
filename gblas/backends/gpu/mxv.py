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
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData, register
from ..rowcount import row_counts
from . import _cuda

# ------------------------------------------------------------------------------ pull

_PULL_BODY = r"""
#define GB_GMASK(G) ((G) == 32 ? 0xffffffffu \
    : (((1u << ((G) & 31)) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)((G) - 1))))

/* GB_NX > 0: every thread block first copies x (GB_NX values, and their flags) into
   dynamic shared memory and gathers from there; the grid is then about one block per
   multiprocessor and each block loops over its share of the work (GB_STRIDE).
   Otherwise one work item per warp / group, no loop. */
#if GB_NX > 0
#define GB_STAGE_X(X, xpres)                                                  \
    extern __shared__ unsigned char gb_dyn[];                                 \
    xv_t* gb_sx = (xv_t*)gb_dyn;                                              \
    bool* gb_sxp = (bool*)(gb_sx + GB_NX);                                    \
    for (int k_ = threadIdx.x; k_ < GB_NX; k_ += blockDim.x) {                \
        gb_sx[k_] = X[k_];                                                    \
        if (GB_XPRES) gb_sxp[k_] = xpres[k_];                                 \
    }                                                                         \
    __syncthreads();                                                          \
    X = gb_sx;                                                                \
    xpres = gb_sxp;
#define GB_STRIDE(per_block) ((long long)gridDim.x * (per_block))
#else
#define GB_STAGE_X(X, xpres)
#define GB_STRIDE(per_block) (1LL << 62)
#endif

/* Fold the products of entries [lo, hi) of one row, G lanes striding through them. */
template <int G>
__device__ __forceinline__ void gb_row_fold(
    ip_t lo, ip_t hi, int lane, unsigned gmask,
    const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    bool& have, R_t& acc)
{
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
#if GB_TERM_KIND == 0
#pragma unroll 4
#endif
    for (ip_t base = lo; base < hi; base += G) {
        ip_t p = base + lane;
        if (p < hi) {
            ix_t j = Aj[p];
#if GB_XPRES
            if (xpres[j])
#endif
            {
#if GB_ISO
                R_t v = (R_t)gb_mul(aiso, (T_t)X[j]);
#else
                R_t v = (R_t)gb_mul((T_t)Ax[p], (T_t)X[j]);
#endif
                acc = have ? gb_add(acc, v) : v;
                have = true;
            }
        }
#if GB_TERM_KIND == 2
        if (__any_sync(gmask, have)) break;
#elif GB_TERM_KIND == 1
        if (__any_sync(gmask, have && acc == GB_TERM)) break;
#endif
    }
}

/* Combine the (have, acc) pairs of the G lanes of a group; every lane gets the result. */
template <int G>
__device__ __forceinline__ void gb_group_reduce(unsigned gmask, bool& have, R_t& acc)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
        R_t oa = gb_shfl_xor(gmask, acc, off);
        bool oh = gb_shfl_xor(gmask, have, off);
        if (oh) {
            acc = have ? gb_add(acc, oa) : oa;
            have = true;
        }
    }
}

extern "C" __global__ void gb_pull_short(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow, long long nrows,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    GB_STAGE_X(X, xpres)
    const int lane = (int)(threadIdx.x & (GB_G - 1));
    const unsigned gmask = GB_GMASK(GB_G);
    for (long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / GB_G;
         row < nrows; row += GB_STRIDE(blockDim.x / GB_G)) {
        ip_t lo = Ap[row], hi = Ap[row + 1];
        if (hi - lo > GB_SMAX) continue;  /* a long row: gb_pull_long's */
        bool have = false;
        R_t acc = (R_t)0;
#if GB_ALLOW
        if (allow[row])
#endif
            gb_row_fold<GB_G>(lo, hi, lane, gmask, Aj, Ax, X, xpres, have, acc);
        gb_group_reduce<GB_G>(gmask, have, acc);
        if (lane == 0) {
            y[row] = have ? acc : (R_t)0;
            ypres[row] = have;
        }
    }
}

/* CSR-stream: one warp per block of consecutive short rows holding at most GB_CAP
   entries; the products are streamed into shared memory with coalesced loads, then each
   lane folds whole rows from there. */
extern "C" __global__ void gb_pull_stream(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow, const long long* __restrict__ blk, long long nblk,
    long long nrows, R_t* __restrict__ y, bool* __restrict__ ypres)
{
    __shared__ R_t sv[GB_WARPS][GB_CAP];
#if GB_XPRES
    __shared__ bool sp[GB_WARPS][GB_CAP];
#endif
    GB_STAGE_X(X, xpres)
    const int w = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
    for (long long b = (long long)blockIdx.x * GB_WARPS + w; b < nblk;
         b += GB_STRIDE(GB_WARPS)) {
    const long long rb = blk[b], re = b + 1 < nblk ? blk[b + 1] : nrows;
    const ip_t base = Ap[rb], end = Ap[re];
    if (re - rb == 1 && end - base > GB_SMAX) continue;  /* a long row: gb_pull_long's */
#pragma unroll 4
    for (ip_t p = base + lane; p < end; p += 32) {
        ix_t j = Aj[p];
#if GB_ISO
        sv[w][p - base] = (R_t)gb_mul(aiso, (T_t)X[j]);
#else
        sv[w][p - base] = (R_t)gb_mul((T_t)Ax[p], (T_t)X[j]);
#endif
#if GB_XPRES
        sp[w][p - base] = xpres[j];
#endif
    }
    __syncwarp();
    for (long long row = rb + lane; row < re; row += 32) {
        bool have = false;
        R_t acc = (R_t)0;
#if GB_ALLOW
        if (allow[row])
#endif
        {
            const int lo = (int)(Ap[row] - base), hi = (int)(Ap[row + 1] - base);
            for (int k = lo; k < hi; ++k) {
#if GB_XPRES
                if (!sp[w][k]) continue;
#endif
                const R_t v = sv[w][k];
                acc = have ? gb_add(acc, v) : v;
                have = true;
#if GB_TERM_KIND == 2
                break;
#elif GB_TERM_KIND == 1
                if (acc == GB_TERM) break;
#endif
            }
        }
        y[row] = have ? acc : (R_t)0;
        ypres[row] = have;
    }
    __syncwarp();  /* the next block's products overwrite sv */
    }
}

extern "C" __global__ void gb_pull_long(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow,
    const long long* __restrict__ lrows, const long long* __restrict__ cptr,
    const int* __restrict__ cslot, long long nchunks,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    GB_STAGE_X(X, xpres)
    const int lane = (int)(threadIdx.x & 31);
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < nchunks;
         c += GB_STRIDE(blockDim.x >> 5)) {
        int s = cslot[c];
        long long row = lrows[s];
        bool have = false;
        R_t acc = (R_t)0;
#if GB_ALLOW
        if (allow[row])
#endif
        {
            long long lo = (long long)Ap[row] + (c - cptr[s]) * (long long)GB_CHUNK;
            long long end = (long long)Ap[row + 1];
            long long hi = lo + GB_CHUNK < end ? lo + GB_CHUNK : end;
            gb_row_fold<32>((ip_t)lo, (ip_t)hi, lane, 0xffffffffu, Aj, Ax, X, xpres, have,
                            acc);
        }
        gb_group_reduce<32>(0xffffffffu, have, acc);
        if (lane == 0) {
            part[c] = acc;
            ppres[c] = have;
        }
    }
}

extern "C" __global__ void gb_pull_combine(
    const long long* __restrict__ lrows, const long long* __restrict__ cptr, long long nlong,
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nlong) return;
    bool have = false;
    R_t acc = (R_t)0;
    for (long long c = cptr[s]; c < cptr[s + 1]; ++c) {
        if (ppres[c]) {
            acc = have ? gb_add(acc, part[c]) : part[c];
            have = true;
#if GB_TERM_KIND == 2
            break;
#elif GB_TERM_KIND == 1
            if (acc == GB_TERM) break;
#endif
        }
    }
    long long row = lrows[s];
    y[row] = have ? acc : (R_t)0;
    ypres[row] = have;
}
"""


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
    r = types[2]
    return (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.typedefs(ip_t=ip, ix_t=ix, av_t=av, xv_t=xv)
        + _cuda.terminal_snippet(semiring.add, r)
        + _cuda.defines(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_G=group,
                        GB_SMAX=smax, GB_CHUNK=chunk, GB_CAP=cap,
                        GB_WARPS=int(warps or _WARPS), GB_NX=int(nx))
        + _PULL_BODY
    )


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
#: Matrices with at least this many entries use the "stream" short-row kernel by default.
#: Provisional: on an H100, a 12k-entry graph took 37 us a call in "vector" mode and 61 us
#: in "stream" mode, but the stream calls then also paid a device read-back (since
#: removed); on 65M and 263M entries stream was as fast or faster (0.69 / 3.86 ms against
#: 0.70 / 3.94 ms).
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
    m = A.shape[0]
    deg = cp.diff(A.indptr)
    is_long = deg > smax
    long_rows = cp.flatnonzero(is_long).astype(cp.int64)
    nch = (deg[long_rows].astype(cp.int64) + (chunk - 1)) // chunk
    cptr = cp.zeros(long_rows.size + 1, dtype=cp.int64)
    if long_rows.size:
        cptr[1:] = cp.cumsum(nch)
    nchunks = int(cptr[-1])
    cslot = cp.searchsorted(cptr[1:], cp.arange(nchunks, dtype=cp.int64), side="right")
    blk = None
    if mode == "stream" and m:
        # a block: consecutive rows whose first entries fall in one window of `block`
        # entries (so it holds < block + smax entries), at most MAX_BLOCK_ROWS rows; a
        # long row stands alone
        key_ = A.indptr[:-1].astype(cp.int64) // block
        brk = cp.empty(m, dtype=cp.bool_)
        brk[0] = True
        brk[1:] = (key_[1:] != key_[:-1]) | is_long[1:] | is_long[:-1]
        brk[::MAX_BLOCK_ROWS] = True
        blk = cp.flatnonzero(brk).astype(cp.int64)
    sched = PullSchedule(mode, g, smax, int(chunk), block, blk, long_rows, cptr,
                         cslot.astype(cp.int32))
    per[key] = per[given] = sched
    return sched


def _bool_array(a: Any) -> Any:
    return a if a.dtype == np.bool_ else a.astype(np.bool_)


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
    if x.indices is not None:  # a sparse x: densify (the planner should have pushed)
        x = _densify(x, A.shape[1])
    m = A.shape[0]
    types = _cuda.dtypes(types)
    r = types[2]
    y = cp.empty(m, dtype=r)
    ypres = cp.empty(m, dtype=np.bool_)
    if m == 0:
        return VecData(m, None, y, ypres)
    sched = pull_schedule(A, group, chunk, smax, mode, block)
    ax, iso = A.values_or_iso()
    xv = x.values
    xpres = None if x.present is None else _bool_array(x.present)
    allow = None if allow is None else _bool_array(allow)
    nx = int(A.shape[1])
    staged = smem_x and smem_x_fits(nx, xv.dtype, xpres is not None, r, sched.cap)
    warps = SMEM_WARPS if staged else _WARPS
    src = pull_source(semiring, types, ip=A.indptr.dtype, ix=A.indices.dtype, av=ax.dtype,
                      xv=xv.dtype, iso=iso, xpres=xpres is not None, allow=allow is not None,
                      group=sched.group, smax=sched.smax, chunk=sched.chunk, cap=sched.cap,
                      nx=nx if staged else 0, warps=warps)
    xp_arg = xpres if xpres is not None else _cuda.dummy()
    al_arg = allow if allow is not None else _cuda.dummy()
    blk = 32 * warps
    dyn = nx * (xv.dtype.itemsize + (xpres is not None)) if staged else 0
    most = _cuda.sm_count() * SMEM_BLOCKS_PER_SM if staged else 1 << 62

    def launch(name: str, nblocks: int, args: tuple) -> None:
        fn = _cuda.get_function(src, name)
        if dyn:
            _cuda.allow_dynamic_smem(fn, dyn)
        fn((max(1, min(nblocks, most)),), (blk,), args, shared_mem=dyn)

    if sched.mode == "stream":
        nb = sched.nblk
        launch("gb_pull_stream", (nb + warps - 1) // warps,
               (A.indptr, A.indices, ax, xv, xp_arg, al_arg, sched.blk, np.int64(nb),
                np.int64(m), y, ypres))
    else:
        launch("gb_pull_short", _cuda.blocks(m * sched.group, blk),
               (A.indptr, A.indices, ax, xv, xp_arg, al_arg, np.int64(m), y, ypres))
    if sched.nlong:
        nch = sched.nchunks
        part = cp.empty(nch, dtype=r)
        ppres = cp.empty(nch, dtype=np.bool_)
        launch("gb_pull_long", _cuda.blocks(nch * 32, blk),
               (A.indptr, A.indices, ax, xv, xp_arg, al_arg, sched.long_rows, sched.cptr,
                sched.cslot, np.int64(nch), part, ppres))
        _cuda.get_function(src, "gb_pull_combine")(
            (_cuda.blocks(sched.nlong, blk),), (blk,),
            (sched.long_rows, sched.cptr, np.int64(sched.nlong), part, ppres, y, ypres))
    return VecData(m, None, y, ypres)


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
    return nx * (np.dtype(xv).itemsize + bool(xpres)) + static <= _cuda.max_block_smem()


def _densify(x: VecData, n: int) -> VecData:
    vals = cp.zeros(n, dtype=x.values.dtype)
    pres = cp.zeros(n, dtype=np.bool_)
    if x.indices.size:
        vals[x.indices] = x.values
        pres[x.indices] = True
    return VecData(n, None, vals, pres)


# ------------------------------------------------------------------------------ push

_PUSH_BODY = r"""
extern "C" __global__ void gb_push(
    const ip_t* __restrict__ Tp, const ix_t* __restrict__ Tj, const av_t* __restrict__ Tx,
    const fi_t* __restrict__ xi, const xv_t* __restrict__ xv,
    const long long* __restrict__ offs, long long nf,
    const bool* __restrict__ allow, acc_t* __restrict__ acc, bool* __restrict__ ypres,
    li_t* __restrict__ list, unsigned long long* __restrict__ count)
{
    if (nf <= 0) return;
    const long long total = offs[nf - 1];
#if GB_ISO
    const T_t aiso = (T_t)Tx[0];
#endif
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += stride) {
        /* the frontier entry f owning edge e: the first with offs[f] > e */
        long long lo = 0, hi = nf - 1;
        while (lo < hi) {
            long long mid = (lo + hi) >> 1;
            if (offs[mid] > e) hi = mid; else lo = mid + 1;
        }
        long long before = lo ? offs[lo - 1] : 0;
        long long k = (long long)xi[lo];
        long long p = (long long)Tp[k] + (e - before);
        long long i = (long long)Tj[p];
#if GB_ALLOW
        if (!allow[i]) continue;
#endif
#if GB_ISO
        R_t v = (R_t)gb_mul(aiso, (T_t)xv[lo]);
#else
        R_t v = (R_t)gb_mul((T_t)Tx[p], (T_t)xv[lo]);
#endif
        gb_scatter(acc + i, v);
#if GB_LIST
        /* claim row i (its presence byte, through the 32-bit word holding it): the first
           claimer appends i to the list, one atomicAdd per warp for all its claimers */
        unsigned int* word = (unsigned int*)(ypres + (i & ~3LL));
        const unsigned int bit = 1u << (8 * (unsigned int)(i & 3));
        const bool first = !(atomicOr(word, bit) & bit);
        const unsigned int active = __activemask();
        const unsigned int want = __ballot_sync(active, first);
        if (want) {
            const unsigned int lane = threadIdx.x & 31u;
            const int leader = __ffs(want) - 1;
            unsigned long long base = 0;
            if ((int)lane == leader) base = atomicAdd(count, (unsigned long long)__popc(want));
            base = __shfl_sync(active, base, leader);
            if (first) list[base + __popc(want & ((1u << lane) - 1u))] = (li_t)i;
        }
#else
        ypres[i] = true;
#endif
    }
}
"""

_INT_ATOMIC_TYPES = {
    np.dtype("int32"): "int",
    np.dtype("uint32"): "unsigned int",
    np.dtype("int64"): "long long",
    np.dtype("uint64"): "unsigned long long",
}


def scatter_plan(monoid: Any, r: Any, *, shared: bool = False) -> tuple[np.dtype, str]:
    """How the push kernel accumulates results of dtype ``r`` with ``monoid``.

    A native atomic where one exists; otherwise a compare-and-swap loop on global memory
    or, with ``shared``, the exchange loop of :func:`_exchange_fold` (shared memory's
    compare-and-swap is far slower than its exchange).

    Returns
    -------
    (acc_dtype, snippet)
        The dtype of the accumulator array and the source of
        ``gb_scatter(acc_t* p, R_t v)``.
    """
    r = np.dtype(r)
    code = monoid.code
    head = "__device__ __forceinline__ void gb_scatter(acc_t* p, R_t v) {\n"
    if monoid.any_value:
        return r, head + "    *p = v;\n}\n"
    small = r.itemsize < 4
    if small:
        acc = np.dtype(np.int32)
        body = None
        if r.kind == "b":
            if code in ("plus", "lor", "max"):
                body = "atomicOr(p, (int)v);"
            elif code in ("times", "land", "min"):
                body = "atomicAnd(p, (int)v);"
            elif code == "lxor":
                body = "atomicXor(p, (int)v);"
        elif code == "plus":
            body = "atomicAdd(p, (int)v);"
        elif code in ("min", "max"):
            body = f"atomic{code.capitalize()}(p, (int)v);"
        if body is None and shared:
            return acc, head + _exchange_fold(monoid, r, small=True) + "}\n"
        if body is None:
            body = (
                "int old = *p, assumed;\n"
                "    do {\n"
                "        assumed = old;\n"
                "        int nw = (int)gb_add((R_t)assumed, v);\n"
                "        if (nw == assumed) break;\n"
                "        old = atomicCAS(p, assumed, nw);\n"
                "    } while (old != assumed);"
            )
        return acc, head + "    " + body + "\n}\n"
    body = None
    if code == "plus" and (r.kind == "f" or r in _INT_ATOMIC_TYPES):
        if r.kind == "f":
            body = "atomicAdd(p, v);"
        elif r.itemsize == 8:
            body = "atomicAdd((unsigned long long*)p, (unsigned long long)v);"
        else:
            body = f"atomicAdd(({_INT_ATOMIC_TYPES[r]}*)p, v);"
    elif code in ("min", "max") and r in _INT_ATOMIC_TYPES:
        ct = _INT_ATOMIC_TYPES[r]
        body = f"atomic{code.capitalize()}(({ct}*)p, ({ct})v);"
    if body is None and shared:
        return r, head + _exchange_fold(monoid, r) + "}\n"
    if body is None:
        w = "unsigned int" if r.itemsize == 4 else "unsigned long long"
        body = (
            f"{w}* wp = ({w}*)p;\n"
            f"    {w} old = *wp, assumed;\n"
            "    do {\n"
            "        assumed = old;\n"
            f"        {w} nw = gb_bitcast<{w}>(gb_add(gb_bitcast<R_t>(assumed), v));\n"
            "        if (nw == assumed) break;\n"
            "        old = atomicCAS(wp, assumed, nw);\n"
            "    } while (old != assumed);"
        )
    return r, head + "    " + body + "\n}\n"


def _exchange_fold(monoid: Any, r: np.dtype, *, small: bool = False) -> str:
    """The body of ``gb_scatter`` folding ``v`` into ``*p`` by atomic exchanges.

    Take the accumulator's value (leaving the monoid's identity in its place), fold ``v``
    into it and put the result back; when the word given back is not the identity, some
    other thread stored a value in between: take it as the new ``v`` and go again.  No
    value is lost or counted twice, and one given back equal to the identity changes
    nothing.  It needs a commutative monoid, as every atomic fold does.  ``small``: 1- and
    2-byte results held as ``int`` accumulators.  On an H100 (Kronecker scale 25, the
    light panels' phase 2) ``times`` took 4.6 ms on float32 results (11.5 ms with
    ``atomicCAS`` loops) and 8.6 ms on float64 results (24.4 ms).
    """
    lit = _cuda.c_literal(monoid.identity_for(r), r)
    if small:
        w, word, value = "unsigned int", "(unsigned int)(int)({})", "(R_t)(int)({})"
    else:
        w = "unsigned int" if r.itemsize == 4 else "unsigned long long"
        word, value = f"gb_bitcast<{w}>({{}})", "gb_bitcast<R_t>({})"
    fold = word.format(f"gb_add({value.format('t')}, {value.format('c')})")
    return (
        f"    {w}* wp = ({w}*)p;\n"
        f"    const {w} id = {word.format(f'(R_t){lit}')};\n"
        f"    {w} c = {word.format('v')};\n"
        "    do {\n"
        f"        const {w} t = atomicExch(wp, id);\n"
        f"        c = atomicExch(wp, {fold});\n"
        "    } while (c != id);\n"
    )


@functools.lru_cache(maxsize=1024)
def push_source(semiring: Any, types: tuple, *, ip: Any, ix: Any, av: Any, fi: Any, xv: Any,
                iso: bool, allow: bool, listed: bool = False, li: Any = np.int64
                ) -> tuple[str, np.dtype]:
    """CUDA source of the push kernel ``gb_push`` and the accumulator dtype.

    ``ip``, ``ix``, ``av`` are the dtypes of AT's arrays, ``fi`` / ``xv`` those of the
    frontier's indices and values; ``listed``: the kernel appends each reached row to a
    list of ``li`` (int32 or int64) once (warp-aggregated) instead of only flagging it.
    """
    r = np.dtype(types[2])
    acc, scatter = scatter_plan(semiring.add, r)
    src = (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.typedefs(ip_t=ip, ix_t=ix, av_t=av, fi_t=fi, xv_t=xv, acc_t=acc,
                         li_t=np.dtype(li))
        + _cuda.defines(GB_ISO=iso, GB_ALLOW=allow, GB_LIST=listed)
        + scatter
        + _PUSH_BODY
    )
    return src, acc


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
    Generic monoids start each output from the monoid's identity and fold into it, so a
    row whose only products are NaN gives ``min``/``max``'s identity rather than NaN.
    """
    types = _cuda.dtypes(types)
    r = types[2]
    if x.indices is None:
        x = _compress(x)
    xi, xvals = x.indices, x.values
    nf = int(xi.size)
    total = 0
    if nf:
        # the frontier's degrees, then their running sums (two launches: each CuPy call
        # costs the host ~15-20 us, which is most of a small frontier's time)
        offs = cp.cumsum(_frontier_degrees(AT.indptr, xi))
        total = int(offs[-1])  # the products: an upper bound of the rows reached
    else:
        offs = cp.zeros(1, dtype=np.int64)
    # few products: the kernel lists the rows it reaches (no pass over the flags after)
    listed = 0 < total and total * LISTED_RATIO <= nrows
    # the list in 32 bits where the rows fit: its sort takes half the radix passes
    li = np.dtype(np.int32 if nrows < 2**31 else np.int64)
    allow = None if allow is None else _bool_array(allow)
    ax, iso = AT.values_or_iso()
    src, acc_dt = push_source(semiring, types, ip=AT.indptr.dtype, ix=AT.indices.dtype,
                              av=ax.dtype, fi=xi.dtype, xv=xvals.dtype, iso=iso,
                              allow=allow is not None, listed=listed, li=li)
    if semiring.add.any_value:
        acc = cp.zeros(nrows, dtype=acc_dt)
    else:
        ident = np.asarray(semiring.add.identity_for(r)).astype(r)
        acc = cp.full(nrows, ident.astype(acc_dt)[()], dtype=acc_dt)
    # listed: claimed through 32-bit words, so the flags are padded to a multiple of 4
    ypres = cp.zeros(-(-nrows // 4) * 4 if listed else nrows, dtype=np.bool_)
    rows = cp.empty(total if listed else 1, dtype=li)
    count = cp.zeros(1, dtype=np.uint64)
    if total and nrows:
        blk = 256
        grid = min(_cuda.blocks(total, blk), 32 * _cuda.sm_count())
        k = _cuda.get_function(src, "gb_push")
        k((grid,), (blk,),
          (AT.indptr, AT.indices, ax, xi, xvals, offs, np.int64(nf),
           allow if allow is not None else _cuda.dummy(), acc, ypres, rows, count))
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


@functools.cache
def _degree_kernel() -> Any:
    return cp.ElementwiseKernel("raw P ip, F k", "int64 d", "d = (long long)(ip[k + 1] - ip[k])",
                                "gb_frontier_degree")


def _frontier_degrees(indptr: Any, xi: Any) -> Any:
    """``indptr[xi + 1] - indptr[xi]`` as int64, in one launch."""
    return _degree_kernel()(indptr, xi)


#: A push result with at most one entry in this many rows is returned sparse.
SPARSE_RESULT_RATIO = 16
#: A push with at most one product per this many rows lists the rows it reaches.
LISTED_RATIO = SPARSE_RESULT_RATIO


def _compress(x: VecData) -> VecData:
    if x.present is None:
        idx = cp.arange(x.size, dtype=np.int64)
        return VecData(x.size, idx, x.values)
    idx = cp.flatnonzero(_bool_array(x.present))
    return VecData(x.size, idx, x.values[idx])


@register("mxv", "csr", "gpu", "rowcount")
def rowcount(A, x, allow, semiring, types):
    """Pull ``A (+.pair) x`` for a full ``x``: the row pointers' differences."""
    return row_counts(cp, A, x, allow, semiring, types)
