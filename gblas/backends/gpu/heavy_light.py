"""GPU pull SpMV over heavy/light tiles (:mod:`gblas.formats.gpu_heavy_light`, MultiGraphD).

A call runs three kernels:

1. **light** -- the light column panels (:mod:`.light_panels`, the paper's stream
   buffer; the default when the format holds them) or the CSR pull kernels of
   :mod:`.mxv` over the light entries write ``y`` and its presence flags (rows the mask
   disallows get none);
2. **heavy** (``gb_hl_heavy``) -- one thread block per unit of a heavy tile.  The block
   copies its column panel's slice of ``x`` (and presence flags) into shared memory
   (``stage_x=False`` gathers it from global memory instead), then every thread folds its
   consecutive entries (stored transposed, so that the loads of a warp are coalesced) in
   registers, row by row, :data:`BATCH` entries at a time (all their loads first, then
   their ``x`` gathers, then the folds).  A row whose entries lie within one thread is
   written at once; the first and
   last rows of every thread may continue into the neighbours, and are combined by a
   segmented inclusive scan (warp shuffles, then a carry across the warps), so that each
   row of the unit is written exactly once, with its presence flag, into the unit's slice
   of the partial buffer.  No atomics: any monoid works, user-defined ones included;
3. **merge** (``gb_hl_merge``) -- one thread per row of every row panel that has heavy
   units: the light result, then the partials of the panel's units in column-panel order,
   folded as ``(present, value)`` pairs (no identity needed), written back to ``y``.

Differences from the paper: the light panels write one stream-buffer entry per run of
a row within 128 entries (not per edge), and the accumulation of a heavy tile's partials
uses a segmented scan instead of shared-memory atomics.

A row mask (``allow``) is applied in all three kernels: disallowed rows fold no product.

Measured on an H100 (symmetric Kronecker, float32 ``plus_times``, pattern, defaults):
scale 22: light pull 0.61 ms (45% of the entries), heavy units 0.48 ms (55%), merge
0.19 ms; scale 24: 5.2, 1.4 and 0.6 ms (60% / 40%).  Loading four entries per thread
before folding them halved the heavy units' time.  Gathering ``x`` from global memory
instead of staging it was 3% faster at scale 22 (pattern) and 3-5% slower otherwise.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData, register
from . import _cuda
from .light_panels import light_panels_pull
from .mxv import _bool_array, _densify, mxv_pull

__all__ = ["heavy_partials", "heavy_source", "merge_heavy", "merge_source",
           "mxv_pull_heavy_light"]

_HEAVY_BODY = r"""
#define GB_NW (GB_NT / 32)
#define GB_PAD 0xFFFF

/* Warp shuffle up for every value type: 1- and 2-byte types travel as int. */
template <typename V>
__device__ __forceinline__ V gb_hl_up(unsigned m, V v, int o) {
    return (V)__shfl_up_sync(m, (int)v, o);
}
__device__ __forceinline__ int gb_hl_up(unsigned m, int v, int o) {
    return __shfl_up_sync(m, v, o);
}
__device__ __forceinline__ unsigned gb_hl_up(unsigned m, unsigned v, int o) {
    return __shfl_up_sync(m, v, o);
}
__device__ __forceinline__ long long gb_hl_up(unsigned m, long long v, int o) {
    return __shfl_up_sync(m, v, o);
}
__device__ __forceinline__ unsigned long long gb_hl_up(unsigned m, unsigned long long v,
                                                       int o) {
    return __shfl_up_sync(m, v, o);
}
__device__ __forceinline__ float gb_hl_up(unsigned m, float v, int o) {
    return __shfl_up_sync(m, v, o);
}
__device__ __forceinline__ double gb_hl_up(unsigned m, double v, int o) {
    return __shfl_up_sync(m, v, o);
}

__device__ __forceinline__ void gb_hl_put(R_t* __restrict__ part, bool* __restrict__ ppres,
                                          long long at, R_t v) {
    part[at] = v;
    ppres[at] = true;
}

/* One block per unit: units[u] = (start, per, cp, rp, lo, span). */
extern "C" __global__ void __launch_bounds__(GB_NT) gb_hl_heavy(
    const long long* __restrict__ units, const long long* __restrict__ uoff,
    const unsigned short* __restrict__ hrow, const unsigned short* __restrict__ hcol,
    const av_t* __restrict__ hval, const xv_t* __restrict__ X,
    const bool* __restrict__ xpres, long long nx, const bool* __restrict__ allow,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    __shared__ int s_rt[GB_NT];   /* last row of every thread */
    __shared__ int s_fr[GB_NT];   /* first row of every thread */
    __shared__ R_t s_v[GB_NT];    /* scanned value of the last row */
    __shared__ bool s_h[GB_NT];
    __shared__ R_t w_v[GB_NW];    /* per warp: scan at its last lane, then the carry in */
    __shared__ bool w_h[GB_NW];
    __shared__ bool w_f[GB_NW];
    __shared__ R_t c_v[GB_NW];
    __shared__ bool c_h[GB_NW];

    const long long* U = units + (long long)blockIdx.x * 6;
    const long long start = U[0];
    const int per = (int)U[1];
    const long long cp = U[2], rp = U[3];
    const int lo = (int)U[4], span = (int)U[5];
    const long long off = uoff[blockIdx.x] - lo;  /* partial of row offset r: off + r */
    const int t = (int)threadIdx.x, lane = t & 31, w = t >> 5;
    const long long c0 = cp * (long long)GB_TC;

#if GB_STAGE
    /* stage the column panel's slice of x (and its flags) in shared memory */
    extern __shared__ __align__(16) unsigned char gb_dyn[];
    xv_t* sx = (xv_t*)gb_dyn;
#if GB_XPRES
    bool* sxp = (bool*)(sx + GB_TC);
#endif
    const int ncl = (int)(nx - c0 < GB_TC ? nx - c0 : GB_TC);
    for (int k = t; k < ncl; k += GB_NT) {
        sx[k] = X[c0 + k];
#if GB_XPRES
        sxp[k] = xpres[c0 + k];
#endif
    }
#else
    /* gather x from global memory (through the L1) */
    const xv_t* __restrict__ sx = X + c0;
#if GB_XPRES
    const bool* __restrict__ sxp = xpres + c0;
#endif
#endif
    /* clear the unit's presence flags */
    for (int k = t; k < span; k += GB_NT) ppres[off + lo + k] = false;
    __syncthreads();

    const long long row0 = rp * (long long)GB_TR;
#if GB_ISO
    const T_t aiso = (T_t)hval[0];
#endif
    /* fold this thread's entries row by row; rows strictly inside are complete.  The
       entries come in batches of GB_BATCH: all their loads (clamped to a valid entry),
       then all their x gathers, then the folds, so that loads overlap. */
    int cur = -1;
    bool rok = false, have = false, single = true, hh = false;
    int hr = -1;
    R_t acc = (R_t)0, hv = (R_t)0;
    const long long base = start + t;
    for (int k0 = 0; k0 < per; k0 += GB_BATCH) {
        int rr[GB_BATCH], cc[GB_BATCH];
#if !GB_ISO
        av_t aa[GB_BATCH];
#endif
#pragma unroll
        for (int b = 0; b < GB_BATCH; ++b) {
            const int k = k0 + b < per ? k0 + b : per - 1;
            const long long p = base + (long long)k * GB_NT;
            rr[b] = (int)hrow[p];
            cc[b] = (int)hcol[p];
#if !GB_ISO
            aa[b] = hval[p];
#endif
        }
        xv_t xx[GB_BATCH];
#if GB_XPRES
        bool xq[GB_BATCH];
#endif
#pragma unroll
        for (int b = 0; b < GB_BATCH; ++b) {
            const int c = rr[b] != GB_PAD ? cc[b] : 0;
            xx[b] = sx[c];
#if GB_XPRES
            xq[b] = sxp[c];
#endif
        }
#pragma unroll
        for (int b = 0; b < GB_BATCH; ++b) {
            if (k0 + b >= per) break;
            const int r = rr[b];
            if (r != cur) {
                if (cur >= 0) {
                    if (single) {
                        hr = cur; hh = have; hv = acc; single = false;
                    } else if (have) {
                        gb_hl_put(part, ppres, off + cur, acc);
                    }
                }
                cur = r;
                have = false;
                rok = r != GB_PAD;
#if GB_ALLOW
                rok = rok && allow[row0 + r];
#endif
            }
            bool ok = rok;
#if GB_XPRES
            ok = ok && xq[b];
#endif
            if (ok) {
#if GB_ISO
                const R_t v = (R_t)gb_mul(aiso, (T_t)xx[b]);
#else
                const R_t v = (R_t)gb_mul((T_t)aa[b], (T_t)xx[b]);
#endif
                acc = have ? gb_add(acc, v) : v;
                have = true;
            }
        }
    }
    const int rt = cur;  /* the last row (GB_PAD for padding) */
    s_rt[t] = rt;
    s_fr[t] = single ? rt : hr;
    __syncthreads();

    /* segmented inclusive scan of the last rows' values: a segment starts at a thread
       whose last row began in it */
    bool F = (t == 0) || !single || s_rt[t - 1] != rt;
    bool sh = have;
    R_t sv = acc;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const R_t ov = gb_hl_up(0xffffffffu, sv, o);
        const bool oh = gb_hl_up(0xffffffffu, sh, o);
        const bool oF = gb_hl_up(0xffffffffu, F, o);
        if (lane >= o) {
            if (!F && oh) {
                sv = sh ? gb_add(ov, sv) : ov;
                sh = true;
            }
            F = F || oF;
        }
    }
    if (lane == 31) {
        w_v[w] = sv;
        w_h[w] = sh;
        w_f[w] = F;
    }
    __syncthreads();
    if (t == 0) {
        bool ch = false;
        R_t cv = (R_t)0;
        for (int k = 0; k < GB_NW; ++k) {
            c_h[k] = ch;
            c_v[k] = cv;
            if (w_f[k]) {
                ch = w_h[k];
                cv = w_v[k];
            } else if (w_h[k]) {
                cv = ch ? gb_add(cv, w_v[k]) : w_v[k];
                ch = true;
            }
        }
    }
    __syncthreads();
    if (!F && c_h[w]) {
        sv = sh ? gb_add(c_v[w], sv) : c_v[w];
        sh = true;
    }
    s_v[t] = sv;
    s_h[t] = sh;
    __syncthreads();

    /* the first row, with what the previous threads folded of it */
    if (!single) {
        bool h2 = hh;
        R_t v2 = hv;
        if (t > 0 && s_rt[t - 1] == hr && s_h[t - 1]) {
            v2 = hh ? gb_add(s_v[t - 1], hv) : s_v[t - 1];
            h2 = true;
        }
        if (h2) gb_hl_put(part, ppres, off + hr, v2);
    }
    /* the last row, by the thread where it ends */
    if (rt != GB_PAD && sh && (t == GB_NT - 1 || s_fr[t + 1] != rt))
        gb_hl_put(part, ppres, off + rt, sv);
}
"""

_MERGE_BODY = r"""
/* One thread per row of a row panel with heavy units (blocks: bpr per panel). */
extern "C" __global__ void gb_hl_merge(
    const long long* __restrict__ hrp, const long long* __restrict__ rp_uptr,
    const int* __restrict__ rp_units, const long long* __restrict__ units,
    const long long* __restrict__ uoff, const R_t* __restrict__ part,
    const bool* __restrict__ ppres, const bool* __restrict__ allow,
    long long nhrp, long long bpr, long long m,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    const long long b = (long long)blockIdx.x / bpr;
    const long long k = ((long long)blockIdx.x - b * bpr) * blockDim.x + threadIdx.x;
    if (b >= nhrp || k >= GB_TR) return;
    const long long row = hrp[b] * (long long)GB_TR + k;
    if (row >= m) return;
#if GB_ALLOW
    if (!allow[row]) return;  /* the light kernel left it empty */
#endif
    bool have = ypres[row];
    R_t acc = y[row];
    const long long j1 = rp_uptr[b + 1];
#pragma unroll 4
    for (long long j = rp_uptr[b]; j < j1; ++j) {
        const long long u = rp_units[j];
        const long long d = k - units[u * 6 + 4];
        const bool in = d >= 0 && d < units[u * 6 + 5];
        /* loads clamped to the unit's first partial, so that they need no branch */
        const long long q = uoff[u] + (in ? d : 0);
        const bool p = ppres[q];
        const R_t v = part[q];
        if (in && p) {
            acc = have ? gb_add(acc, v) : v;
            have = true;
        }
    }
    y[row] = have ? acc : (R_t)0;
    ypres[row] = have;
}
"""

#: Threads per merge block.
MERGE_THREADS = 256


#: Entries a thread loads before folding them (memory-level parallelism).
BATCH = 4


@functools.lru_cache(maxsize=512)
def heavy_source(semiring: Any, types: tuple, *, av: Any, xv: Any, iso: bool, xpres: bool,
                 allow: bool, tile_rows: int, tile_cols: int, threads: int,
                 stage: bool = True, batch: int = BATCH) -> str:
    """CUDA source of ``gb_hl_heavy`` for one specialization.

    Parameters
    ----------
    semiring : Semiring
        The semiring (its ``cuda_expr()`` snippets are inlined).
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    av, xv : numpy.dtype
        dtypes of the heavy values and of ``x``.
    iso, xpres, allow : bool
        Iso values (``hval[0]``); ``x`` has presence flags; a row mask is given.
    tile_rows, tile_cols, threads : int
        The format's tile sizes and threads per unit.
    stage : bool
        Copy the column panel's slice of ``x`` into shared memory (else gather it from
        global memory).
    batch : int
        Entries a thread loads before folding them.

    Returns
    -------
    str
    """
    return (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.typedefs(av_t=av, xv_t=xv)
        + _cuda.defines(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_TR=int(tile_rows),
                        GB_TC=int(tile_cols), GB_NT=int(threads), GB_STAGE=bool(stage),
                        GB_BATCH=int(batch))
        + _HEAVY_BODY
    )


@functools.lru_cache(maxsize=512)
def merge_source(semiring: Any, types: tuple, *, allow: bool, tile_rows: int) -> str:
    """CUDA source of ``gb_hl_merge`` (phase 2) for one semiring and result type.

    Parameters
    ----------
    semiring : Semiring
        Its ``add`` monoid folds the partial results.
    types : tuple of numpy.dtype
        ``(T, M, R)``; the partial results and ``y`` have dtype ``R``.
    allow : bool
        A row mask is given.
    tile_rows : int
        Rows per row panel.

    Returns
    -------
    str
    """
    return (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.defines(GB_ALLOW=allow, GB_TR=int(tile_rows))
        + _MERGE_BODY
    )


def _heavy_x(H: Any, x: VecData) -> tuple[Any, Any]:
    """``x`` (values, flags or None) at the heavy panels' columns, in relabelled order."""
    xpres = None if x.present is None else _bool_array(x.present)
    if H.col_perm is None:
        return x.values, xpres
    idx = H.col_perm[:H.n_heavy_cols]
    return x.values[idx], None if xpres is None else xpres[idx]


def heavy_partials(H: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                   stage_x: bool = True) -> tuple[Any, Any]:
    """Phase 1 of the heavy tiles: every unit's partial results.

    Parameters
    ----------
    H : GPUHeavyLight
        The matrix, on the GPU.
    x : VecData
        Dense vector of length ``H.shape[1]``.
    allow : cupy.ndarray of bool or None
        Rows to compute.
    semiring, types
        As for :func:`mxv_pull_heavy_light` (``types`` as numpy dtypes).
    stage_x : bool, default True
        Stage each unit's slice of ``x`` in shared memory (else gather from global memory).

    Returns
    -------
    (cupy.ndarray, cupy.ndarray)
        Partial values (dtype R) and presence flags, ``H.total_span`` each; unit ``u``'s
        row offset ``lo + i`` is at ``H.u_off[u] + i``.

    Raises
    ------
    ValueError
        When the ``x`` slice does not fit the shared memory of a thread block.
    """
    r = np.dtype(types[2])
    part = cp.empty(H.total_span, dtype=r)
    ppres = cp.empty(H.total_span, dtype=np.bool_)
    if H.nunits == 0:
        return part, ppres
    X, XP = _heavy_x(H, x)
    hval = H.hval if H.hval is not None else cp.full(1, H.iso_value, dtype=H.dtype)
    NT, TC = H.block_threads, H.tile_cols
    dyn = TC * (X.dtype.itemsize + (XP is not None)) if stage_x else 0
    static = NT * (4 + 4 + r.itemsize + 1) + (NT // 32) * 2 * (r.itemsize + 2)
    if dyn + static > _cuda.max_block_smem():
        raise ValueError(
            f"mxv gpu_heavy_light: a column panel of {TC} values of {X.dtype.name} "
            f"({dyn + static} bytes of shared memory with the scan) does not fit a thread "
            f"block ({_cuda.max_block_smem()} bytes); build the format with a smaller "
            "tile_cols")
    src = heavy_source(semiring, _cuda.dtypes(types), av=hval.dtype,
                       xv=X.dtype, iso=H.hval is None, xpres=XP is not None,
                       allow=allow is not None, tile_rows=H.tile_rows, tile_cols=TC,
                       threads=NT, stage=bool(stage_x))
    fn = _cuda.get_function(src, "gb_hl_heavy")
    if dyn + static > 48 << 10:  # over 48 KiB in all, the dynamic part must opt in
        _cuda.allow_dynamic_smem(fn, max(dyn, (48 << 10) + 1))
    fn((H.nunits,), (NT,),
       (H.units, H.u_off, H.hrow, H.hcol, hval, X,
        XP if XP is not None else _cuda.dummy(), np.int64(X.size),
        allow if allow is not None else _cuda.dummy(), part, ppres), shared_mem=dyn)
    return part, ppres


def merge_heavy(H: Any, part: Any, ppres: Any, y: Any, ypres: Any, allow: Any,
                semiring: Any, types: tuple) -> None:
    """Phase 2: fold the units' partials into ``y`` / ``ypres`` (in place), row by row.

    Parameters
    ----------
    H : GPUHeavyLight
        The matrix, on the GPU.
    part, ppres : cupy.ndarray
        From :func:`heavy_partials`.
    y, ypres : cupy.ndarray
        The light result (dtype R and bool, length ``H.shape[0]``), updated in place.
    allow : cupy.ndarray of bool or None
        Rows to compute (the others are left as they are).
    semiring, types
        As for :func:`mxv_pull_heavy_light`.
    """
    nhrp = int(H.hrp.size)
    if nhrp == 0:
        return
    src = merge_source(semiring, _cuda.dtypes(types), allow=allow is not None,
                       tile_rows=H.tile_rows)
    bpr = -(-H.tile_rows // MERGE_THREADS)
    _cuda.get_function(src, "gb_hl_merge")(
        (nhrp * bpr,), (MERGE_THREADS,),
        (H.hrp, H.rp_uptr, H.rp_units, H.units, H.u_off, part, ppres,
         allow if allow is not None else _cuda.dummy(), np.int64(nhrp), np.int64(bpr),
         np.int64(H.shape[0]), y, ypres))


@register("mxv", "gpu_heavy_light", "gpu", "pull")
def mxv_pull_heavy_light(H: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                         stage_x: bool = True, light: str | None = None,
                         **knobs: Any) -> VecData:
    """Masked pull SpMV ``y[i] = add_k mul(A[i, k], x[k])`` over a :class:`GPUHeavyLight`.

    Parameters
    ----------
    H : GPUHeavyLight
        The matrix, on the GPU.
    x : VecData
        Dense vector of length ``H.shape[1]`` (a sparse one is densified).
    allow : cupy.ndarray of bool or None
        Rows where it is False get no entry (and fold no product).
    semiring : Semiring
        Any semiring, user-defined ones included.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    stage_x : bool, default True
        Stage each unit's slice of ``x`` in shared memory (MultiGraph's way), or gather
        ``x`` from global memory through the L1 (no shared memory: more blocks per SM).
    light : {"panels", "csr"}, optional
        Kernels of the light entries: the column panels (:mod:`.light_panels`; the
        default when the format holds them) or the CSR pull kernels.
    **knobs
        Passed to the light kernels: ``threads`` for the panels, the
        :func:`.mxv.pull_schedule` knobs for the CSR.

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` flags.
    """
    m, n = H.shape
    if x.indices is not None:
        x = _densify(x, n)
    types = _cuda.dtypes(types)
    r = types[2]
    if m == 0:
        return VecData(0, None, cp.empty(0, dtype=r), cp.empty(0, dtype=np.bool_))
    allow = None if allow is None else _bool_array(allow)
    part = ppres = None
    if H.nunits:
        part, ppres = heavy_partials(H, x, allow, semiring, types, stage_x=stage_x)
    if light not in (None, "panels", "csr"):
        raise ValueError(f"mxv gpu_heavy_light: light must be 'panels' or 'csr', got {light!r}")
    if light == "panels" and H.light_panels is None and H.light.nnz:
        raise ValueError("mxv gpu_heavy_light: light='panels' needs a format built with "
                         "light='panels'")
    if H.light.nnz:
        if H.light_panels is not None and light != "csr":
            yl = light_panels_pull(H.light_panels, x, allow, semiring, types, **knobs)
        else:
            yl = mxv_pull(H.light, x, allow, semiring, types, **knobs)
        y, ypres = yl.values, yl.present
    else:
        y = cp.zeros(m, dtype=r)
        ypres = cp.zeros(m, dtype=np.bool_)
    if H.nunits:
        merge_heavy(H, part, ppres, y, ypres, allow, semiring, types)
    return VecData(m, None, y, ypres)
