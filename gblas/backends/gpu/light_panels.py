"""GPU pull SpMV over light column panels (:mod:`gblas.formats.light_panels`, MultiGraphD).

Two kernels:

1. ``gb_lp_stream`` -- one thread block per unit (a run of one column panel's entries).
   The block copies the panel's slice of ``x`` (and its flags) into shared memory, then
   every warp takes groups of 128 entries, 4 consecutive ones per lane (one 8-byte load of
   their 16-bit column offsets).  A lane folds its entries run by run (a run: a row's
   entries within the group) and writes the runs that close inside it; the run open at
   its end continues into the next lanes, whose leading entries are summed by a segmented
   suffix scan over the warp (shuffles), and the lane where the run began writes it.  The
   scan takes only the steps that the longest stretch of lanes without a run start needs,
   none when every lane starts one (the pattern-only kernel took 1.47 instead of 1.64 ms
   on an H100 at Kronecker scale 25).  So every run is written once, with no atomics, into
   the stream buffer of partial results: first into the warp's slice of shared memory,
   then copied out by the whole warp in consecutive stores.  (Lanes writing their own runs
   straight to global memory scattered every store instruction over the group's range: on
   an H100 at Kronecker scale 25 the kernel took 2.6 ms, 1.6 ms with the stores left out;
   staged, the whole float32 ``plus_times`` call went from 4.32 to 3.44 ms.)
   With values, in groups of 256 (8 entries per lane, the default), a warp issues the
   loads of its next group before it folds the current one, and when ``x`` is larger
   than half the L2 the blocks take 512 threads, so that two share a multiprocessor
   (:func:`_stream_threads`): on an H100 the float32 ``plus_times`` kernels took 0.313
   instead of 0.364 ms at Kronecker scale 22 and 2.421 instead of 2.558 ms at 25 (groups
   of 128 do not prefetch: their kernel would no longer fit two 1024-thread blocks on a
   multiprocessor).  Pattern-only layouts gained from the prefetch too until the fold
   below made their kernel small enough for two 1024-thread blocks per multiprocessor
   without it: the call then took 1.706 against 1.763 ms at 25, 0.788 against 0.821 ms
   at 24.
   Without flags on ``x`` (every value exists) a lane keeps its entries' run starts as one
   bit mask (the head bits of its 8 offsets gathered by a byte permute and a multiply),
   and the entries past the unit's end count as run starts too, so no per-entry validity
   test remains: their runs go after the group's and are never copied out.  Profiled on
   an H100 (pattern-only, Kronecker scale 25), the kernel was bound by instruction issue
   (84% of its cycles), not by memory (44% of the DRAM bandwidth): this cut its
   instructions from 518 to 371 per group of 256 entries and its time from 1.33 to 0.94
   ms (0.197 to 0.136 ms at 22); with float32 values it now runs at the DRAM bandwidth
   (1.47 to 1.41 ms at 25).  The block stages its slice of ``x`` 16 bytes at a time with
   four loads in flight per thread (``gb_lp_stage``).
2. ``gb_lp_reduce`` -- one thread block per row panel.  Its accumulators (one per row, at
   the monoid's identity) live in shared memory, and so do the rows' presence flags when
   ``x`` has flags (with a dense ``x`` the rows with a value are the layout's
   ``row_hit``).  The warps read the panel's chunks of partials (coalesced) and fold each
   into its row's accumulator with an atomic update (:func:`.mxv.scatter_plan` for shared
   memory: a native atomic where one exists, a loop of atomic exchanges otherwise; float
   ``min`` / ``max`` as integer atomics on their bits), then the block writes ``y`` and
   its flags.
   When a row panel's accumulators do not fit a block's shared memory (8-byte results in
   32768-row panels), it is split among several blocks, each folding only the partials of
   its share of the rows (the panel's partials are then read once per share).  The block
   first copies its row panel's chunk bounds to shared memory (:data:`CHUNK_BATCH` at a
   time), so that a warp's next chunk does not wait on a load of its bounds: on an H100
   at Kronecker scale 25 the call took 2.424 instead of 2.446 ms (pattern-only) and
   2.615 instead of 2.637 ms (float32 ``plus_times``).  The block writes ``y`` 8 rows
   per thread at a time, their loads of ``row_hit`` issued together (0.775 to 0.722 ms
   at 25).

A row mask (``allow``) is applied when ``y`` is written: disallowed rows get no entry
(their products are still computed).  When the layout's columns are relabelled
(``col_order``), ``x`` (and its flags) is first gathered into their order: on an H100 at
Kronecker scale 25, 0.11 ms for the 14.7M ids of the columns with entries (0.21 ms when
it gathered all 33.6M columns), while the two phases, with 42% fewer partials, took 0.74
ms less (float32 ``plus_times``: 2.65 instead of 3.17 ms in all, with the full gather).

Floating-point sums fold the partials of a row in the order the atomic updates arrive, so
the last bits of a ``plus`` result may differ between calls (as with any atomic GPU
reduction); ``min``, ``max``, integer and boolean monoids give identical results.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData
from . import _cuda
from .mxv import _bool_array, scatter_plan

__all__ = ["light_panels_pull", "panels_source"]

_BODY = r"""
#define GB_GROUP (32 * GB_K)
#define GB_HEAD 0x8000u
#define GB_RK 8   /* partials per lane per step of gb_lp_reduce */
#define GB_WB 8   /* rows per thread at a time when gb_lp_reduce writes y */

/* a lane's GB_K column offsets in one 8- or 16-byte load */
#if GB_K == 8
typedef uint4 gb_raw_t;
#else
typedef uint2 gb_raw_t;
#endif

/* a lane's share of group g: its column offsets, its values, and the group's first
   partial (groups never pass the padded end) */
__device__ __forceinline__ void gb_lp_load(
    long long g, int lane, const unsigned short* __restrict__ ent,
    const av_t* __restrict__ val, const long long* __restrict__ gbase,
    gb_raw_t& raw, av_t (&vals)[GB_K], long long& g0)
{
    const long long base = g * GB_GROUP + GB_K * lane;
    raw = *reinterpret_cast<const gb_raw_t*>(ent + base);
#if !GB_ISO
#pragma unroll
    for (int k = 0; k < GB_K; ++k) vals[k] = val[base + k];
#endif
    g0 = gbase[g];
}

/* the head flags of a lane's GB_K entries as bits 0 .. GB_K - 1: the high byte of every
   16-bit offset gathered by a byte permute, then their top bits packed by one multiply
   (bit 8i lands on 24 + i, every other product bit below 24) */
__device__ __forceinline__ unsigned gb_lp_heads4(unsigned lo, unsigned hi) {
    const unsigned t = (__byte_perm(lo, hi, 0x7531) >> 7) & 0x01010101u;
    return (t * 0x01020408u) >> 24;
}
#if GB_K == 8
__device__ __forceinline__ unsigned gb_lp_heads(uint4 r) {
    return gb_lp_heads4(r.x, r.y) | (gb_lp_heads4(r.z, r.w) << 4);
}
#else
__device__ __forceinline__ unsigned gb_lp_heads(uint2 r) { return gb_lp_heads4(r.x, r.y); }
#endif

/* n bytes from global to shared memory by the whole block: 16 at a time, four loads in
   flight per thread, when both ends allow (a thread's loads one by one, each waited for
   before its store, left phase 1's warps idle 12% of the time at Kronecker scale 25) */
__device__ __forceinline__ void gb_lp_stage(unsigned char* __restrict__ d,
                                            const unsigned char* __restrict__ s, int n) {
    int done = 0;
    if ((((size_t)s | (size_t)d) & 15) == 0) {
        const uint4* s4 = (const uint4*)s;
        uint4* d4 = (uint4*)d;
        const int n4 = n >> 4, step = (int)blockDim.x;
        int k = (int)threadIdx.x;
        for (; k + 3 * step < n4; k += 4 * step) {
            const uint4 a = s4[k], b = s4[k + step], c = s4[k + 2 * step],
                        e = s4[k + 3 * step];
            d4[k] = a;
            d4[k + step] = b;
            d4[k + 2 * step] = c;
            d4[k + 3 * step] = e;
        }
        for (; k < n4; k += step) d4[k] = s4[k];
        done = n4 << 4;
    }
    for (int k = done + (int)threadIdx.x; k < n; k += (int)blockDim.x) d[k] = s[k];
}

/* the runs begun in lanes up to this one (inclusive scan of nh over the warp) */
__device__ __forceinline__ int gb_lp_before(int nh, int lane) {
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, nh, o);
        if (lane >= o) nh += t;
    }
    return nh;
}

__device__ __forceinline__ void gb_lp_fold(bool& h, R_t& a, bool oh, R_t o) {
    if (oh) {
        a = h ? gb_add(a, o) : o;
        h = true;
    }
}

/* bounded for blocks of up to 1024 threads (at most 64 registers): with 8-byte values
   the compiler would otherwise take more */
extern "C" __global__ void __launch_bounds__(1024) gb_lp_stream(
    const unsigned short* __restrict__ ent, const av_t* __restrict__ val,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres, long long nx,
    const long long* __restrict__ units, const long long* __restrict__ gbase,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    extern __shared__ __align__(16) unsigned char gb_dyn[];
    const int lane = (int)(threadIdx.x & 31), nw = (int)(blockDim.x >> 5);
    /* per warp: a group's partials, staged for coalesced stores; then the x slice */
    R_t* sp = (R_t*)gb_dyn + (threadIdx.x >> 5) * GB_GROUP;
    xv_t* sx = (xv_t*)((R_t*)gb_dyn + nw * GB_GROUP);
#if GB_XPRES
    bool* sxp = (bool*)(sx + GB_W);
    bool* spp = sxp + GB_W + (threadIdx.x >> 5) * GB_GROUP;
#endif
    const long long* U = units + 3 * (long long)blockIdx.x;
    const long long c0 = U[0] * (long long)GB_W, e0 = U[1], e1 = U[2];
    const int ncl = (int)(nx - c0 < GB_W ? nx - c0 : GB_W);
    gb_lp_stage((unsigned char*)sx, (const unsigned char*)(X + c0), ncl * (int)sizeof(xv_t));
#if GB_XPRES
    gb_lp_stage((unsigned char*)sxp, (const unsigned char*)(xpres + c0), ncl);
#endif
    __syncthreads();
#if GB_ISO
    const T_t aiso = (T_t)val[0];
#endif
    const unsigned lt = (1u << lane) - 1u;
    long long g = e0 / GB_GROUP + (threadIdx.x >> 5);
    gb_raw_t raw;
    av_t vals[GB_K];
    long long g0;
#if GB_PF
    /* software pipelining: the next group's loads are issued before this one is folded */
    gb_raw_t nraw;
    av_t nvals[GB_K];
    long long ng0 = 0;
    if (g * GB_GROUP < e1) gb_lp_load(g, lane, ent, val, gbase, nraw, nvals, ng0);
#endif
    for (; g * GB_GROUP < e1; g += nw) {
        const long long base = g * GB_GROUP + GB_K * lane;
#if GB_PF
        raw = nraw;
        g0 = ng0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) vals[k] = nvals[k];
        if ((g + nw) * GB_GROUP < e1) gb_lp_load(g + nw, lane, ent, val, gbase, nraw, nvals, ng0);
#else
        gb_lp_load(g, lane, ent, val, gbase, raw, vals, g0);
#endif
#if GB_K == 8
        const unsigned pk[GB_K] = {raw.x & 0xffffu, raw.x >> 16, raw.y & 0xffffu, raw.y >> 16,
                                   raw.z & 0xffffu, raw.z >> 16, raw.w & 0xffffu, raw.w >> 16};
#else
        const unsigned pk[GB_K] = {raw.x & 0xffffu, raw.x >> 16, raw.y & 0xffffu, raw.y >> 16};
#endif
        R_t v[GB_K];
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            const unsigned c = pk[k] & (GB_HEAD - 1u);
#if GB_ISO
            v[k] = (R_t)gb_mul(aiso, (T_t)sx[c]);
#else
            v[k] = (R_t)gb_mul((T_t)vals[k], (T_t)sx[c]);
#endif
        }
#if GB_XPRES
        bool ok[GB_K], hd[GB_K];
        int nh = 0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            const bool valid = base + k < e1;
            hd[k] = valid && ((pk[k] & GB_HEAD) || (lane == 0 && k == 0));
            nh += hd[k];
            ok[k] = valid && sxp[pk[k] & (GB_HEAD - 1u)];
        }
        const int before = gb_lp_before(nh, lane);
        int at = before - nh;   /* this lane's first partial, within the group's */
        /* fold run by run: `ah, aa` what precedes the lane's first run start (the tail of
           an earlier lane's run), `ch, ca` the run in progress */
        bool ah = false, ch = false, seen = false;
        R_t aa = (R_t)0, ca = (R_t)0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            if (hd[k]) {
                if (seen) {
                    sp[at] = ca;
                    spp[at] = ch;
                    ++at;
                } else {
                    ah = ch;
                    aa = ca;
                }
                seen = true;
                ch = false;
            }
            gb_lp_fold(ch, ca, ok[k], v[k]);
        }
        if (!seen) {
            ah = ch;
            aa = ca;
        }
        const int runs = __shfl_sync(0xffffffffu, before, 31);
#else
        /* every x exists: an entry's only question is where its run starts.  Heads: the
           flagged entries, the group's first, and every entry past the unit's end (each
           closes the run before it and starts one of its own, written after the group's
           runs and never copied out) */
        const long long left = e1 - base;
        const int rem = left >= GB_K ? GB_K : (left > 0 ? (int)left : 0);
        const unsigned hm = gb_lp_heads(raw) | (((1u << GB_K) - 1u) >> rem << rem) |
                            (lane == 0 ? 1u : 0u);
        const int nh = __popc(hm);
        const int before = gb_lp_before(nh, lane);
        int at = before - nh;
        /* fold run by run: `aa` what precedes the lane's first head (when `ah`), `ca` the
           run in progress */
        bool ah = !(hm & 1u), ch = true;
        const bool seen = hm != 0u;
        R_t ca = v[0], aa = v[0];
#pragma unroll
        for (int k = 1; k < GB_K; ++k) {
            if ((hm >> k) & 1u) {
                if (hm & ((1u << k) - 1u)) {
                    sp[at] = ca;
                    ++at;
                } else {
                    aa = ca;
                }
                ca = v[k];
            } else {
                ca = gb_add(ca, v[k]);
            }
        }
        if (!seen) aa = ca;
        /* the group's runs: all heads but one per entry past the unit's end */
        const long long gl = e1 - g * GB_GROUP;
        const int runs = __shfl_sync(0xffffffffu, before, 31) -
                         (GB_GROUP - (gl < GB_GROUP ? (int)gl : GB_GROUP));
#endif
        /* segmented suffix scan of (ah, aa): a segment ends at the first lane (inclusive)
           where a run starts.  Step o is taken only while some o consecutive lanes start
           no run (`rz`: the lanes where such a stretch begins), so groups whose lanes all
           start a run skip the scan */
        const unsigned starts = __ballot_sync(0xffffffffu, seen);
        const unsigned ge = starts & ~lt;
        const int last = ge ? __ffs(ge) - 1 : 31;
        unsigned rz = ~starts;
        for (int o = 1; o < 32 && rz; o <<= 1) {
            const R_t oa = gb_shfl_down(0xffffffffu, aa, o);
            const bool oh = gb_shfl_down(0xffffffffu, ah, o);
            if (lane + o <= last) gb_lp_fold(ah, aa, oh, oa);
            rz &= rz >> o;
        }
        const R_t na = gb_shfl_down(0xffffffffu, aa, 1);
        const bool nh2 = gb_shfl_down(0xffffffffu, ah, 1);
        if (seen) {
            if (lane < 31) gb_lp_fold(ch, ca, nh2, na);
            sp[at] = ca;
#if GB_XPRES
            spp[at] = ch;
#endif
        }
        /* the group's runs, coalesced: partials gbase[g] .. gbase[g] + runs */
        __syncwarp();
        for (int i = lane; i < runs; i += 32) {
            part[g0 + i] = sp[i];
#if GB_XPRES
            ppres[g0 + i] = spp[i];
#endif
        }
        __syncwarp();
    }
}

extern "C" __global__ void __launch_bounds__(1024) gb_lp_reduce(
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    const unsigned short* __restrict__ prow, const long long* __restrict__ cptr,
    const long long* __restrict__ chunks, long long m, const bool* __restrict__ allow,
    const bool* __restrict__ row_hit, R_t* __restrict__ y, bool* __restrict__ ypres)
{
    extern __shared__ __align__(16) unsigned char gb_dyn[];
    acc_t* acc = (acc_t*)gb_dyn;
#if GB_XPRES
    bool* sh = (bool*)(acc + GB_RS);   /* a present partial reached the row */
#endif
    /* block (q, s): rows [s * GB_RS, (s + 1) * GB_RS) of row panel q */
    const long long q = blockIdx.x / GB_SUB;
    const int s0 = (int)(blockIdx.x - q * GB_SUB) * GB_RS;
    const long long r0 = q * GB_RR + s0;
    const int nr = (int)min((long long)(GB_RR - s0 < GB_RS ? GB_RR - s0 : GB_RS), m - r0);
    for (int k = threadIdx.x; k < nr; k += blockDim.x) {
        acc[k] = GB_IDENT;
#if GB_XPRES
        sh[k] = false;
#endif
    }
    __syncthreads();
    const int lane = (int)(threadIdx.x & 31), nw = (int)(blockDim.x >> 5);
#if GB_CB
    /* the row panel's chunk table, GB_CB chunks at a time, into shared memory: a warp
       then starts its next chunk's loads without first waiting for the chunk's bounds */
    long long* sch = (long long*)(gb_dyn + GB_CB_AT);
    const long long cq1 = cptr[q + 1];
    for (long long cb = cptr[q]; cb < cq1; cb += GB_CB) {
        const int nc = (int)(cq1 - cb < GB_CB ? cq1 - cb : GB_CB);
        __syncthreads();
        for (int k = threadIdx.x; k < 2 * nc; k += blockDim.x) sch[k] = chunks[2 * cb + k];
        __syncthreads();
    for (int c = (int)(threadIdx.x >> 5); c < nc; c += nw) {
        const long long a = sch[2 * c], b = sch[2 * c + 1];
#else
    const long long c1 = cptr[q + 1];
    for (long long c = cptr[q] + (threadIdx.x >> 5); c < c1; c += nw) {
        const long long a = chunks[2 * c], b = chunks[2 * c + 1];
#endif
        for (long long k0 = a; k0 < b; k0 += 32 * GB_RK) {
            R_t v[GB_RK];
            int r[GB_RK];
            bool ok[GB_RK];
#pragma unroll
            for (int j = 0; j < GB_RK; ++j) {
                const long long k = k0 + lane + 32 * j;
                ok[j] = k < b;
                const long long kk = ok[j] ? k : a;   /* clamped: no branch before loads */
                v[j] = part[kk];
                r[j] = (int)prow[kk] - s0;
#if GB_SUB > 1
                ok[j] = ok[j] && r[j] >= 0 && r[j] < GB_RS;
#endif
#if GB_XPRES
                ok[j] = ok[j] && ppres[kk];
#endif
            }
#pragma unroll
            for (int j = 0; j < GB_RK; ++j) {
                if (ok[j]) {
                    gb_scatter(acc + r[j], v[j]);
#if GB_XPRES
                    sh[r[j]] = true;
#endif
                }
            }
        }
    }
#if GB_CB
    }
#endif
    __syncthreads();
    /* y and its flags, GB_WB rows per thread at a time: their loads of row_hit (and
       allow) are issued together (one by one, each waited for, they held phase 2's
       warps 14% of the time at Kronecker scale 25) */
    for (int k0 = threadIdx.x; k0 < nr; k0 += GB_WB * blockDim.x) {
        bool h[GB_WB];
#pragma unroll
        for (int j = 0; j < GB_WB; ++j) {
            const int k = k0 + j * (int)blockDim.x;
            const long long row = r0 + k;
#if GB_XPRES
            h[j] = k < nr && sh[k];
#else
            h[j] = k < nr && row_hit[row];   /* every partial is present */
#endif
#if GB_ALLOW
            h[j] = h[j] && allow[row];
#endif
        }
#pragma unroll
        for (int j = 0; j < GB_WB; ++j) {
            const int k = k0 + j * (int)blockDim.x;
            if (k < nr) {
                y[r0 + k] = h[j] ? (R_t)acc[k] : (R_t)0;
                ypres[r0 + k] = h[j];
            }
        }
    }
}
"""

#: Threads per block of both kernels (phase 1 may take half, :func:`_stream_threads`).
THREADS = 1024

#: Chunk bounds phase 2 copies to shared memory at a time (16 bytes each).
CHUNK_BATCH = 2048

#: Float ``min`` / ``max`` through integer atomics: values without the sign bit order like
#: signed integers, values with it (``-0.0`` included) in reverse like unsigned ones.
_FLOAT_MINMAX = """
__device__ __forceinline__ void gb_scatter(acc_t* p, R_t v) {
    if (!signbit(v)) atomic%(pos)s((%(s)s*)p, %(sbits)s(v));
    else atomic%(neg)s((%(u)s*)p, %(ubits)s(v));
}
"""


@functools.lru_cache(maxsize=512)
def _scatter(monoid: Any, r: np.dtype) -> tuple[np.dtype, str]:
    """The accumulator dtype and ``gb_scatter`` of phase 2: :func:`.mxv.scatter_plan`'s
    for shared memory, except float ``min`` / ``max``, which take one native integer
    atomic instead of an exchange loop (the same result for every value but NaN, whose
    place in the order of atomic updates decides the outcome either way)."""
    if r.kind == "f" and monoid.code in ("min", "max") and not monoid.any_value:
        wide = r.itemsize == 8
        fill = {"pos": "Min" if monoid.code == "min" else "Max",
                "neg": "Max" if monoid.code == "min" else "Min",
                "s": "long long" if wide else "int",
                "u": "unsigned long long" if wide else "unsigned int",
                "sbits": "__double_as_longlong" if wide else "__float_as_int",
                "ubits": "(unsigned long long)__double_as_longlong" if wide
                else "__float_as_uint"}
        return r, _FLOAT_MINMAX % fill
    return scatter_plan(monoid, r, shared=True)


@functools.lru_cache(maxsize=512)
def panels_source(semiring: Any, types: tuple, *, av: Any, xv: Any, iso: bool, xpres: bool,
                  allow: bool, panel_cols: int, panel_rows: int, sub: int = 1,
                  group: int = 128, prefetch: bool = False, chunk_batch: int = 0,
                  chunk_at: int = 0) -> tuple[str, np.dtype]:
    """CUDA source of ``gb_lp_stream`` and ``gb_lp_reduce``, and the accumulator dtype.

    Parameters
    ----------
    semiring : Semiring
        Any semiring (its ``cuda_expr()`` snippets are inlined; the ``add`` monoid's
        identity starts the accumulators).
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
    >>> acc, "gb_lp_reduce" in src, "#define GB_IDENT ((acc_t)((float)(CUDART_INF)))" in src
    (dtype('float32'), True, True)
    """
    r = np.dtype(types[2])
    acc, scatter = _scatter(semiring.add, r)
    ident = semiring.add.identity_for(r)
    return (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.typedefs(av_t=av, xv_t=xv, acc_t=acc)
        + _cuda.defines(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_W=int(panel_cols),
                        GB_RR=int(panel_rows), GB_SUB=int(sub), GB_K=int(group) // 32,
                        GB_RS=-(-int(panel_rows) // int(sub)), GB_PF=bool(prefetch),
                        GB_CB=int(chunk_batch), GB_CB_AT=int(chunk_at),
                        GB_IDENT=f"((acc_t){_cuda.c_literal(ident, r)})")
        + scatter
        + _BODY
    ), acc


def _smem(fn: Any, nbytes: int, what: Any, fix: str) -> None:
    """Opt ``fn`` in to ``nbytes`` of shared memory, or raise naming ``what()``."""
    most = _cuda.max_block_smem()
    if nbytes > most:
        raise ValueError(f"mxv gpu_heavy_light: {what()} needs {nbytes} bytes of shared "
                         f"memory (a thread block has {most}); {fix}")
    _cuda.allow_dynamic_smem(fn, nbytes)


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
    other.  On an H100, pattern-only Kronecker scale 25 (``x`` 128 MB; measured when that
    kernel still prefetched, which it no longer does): 1.25 against 1.35 ms with 1024;
    float32 ``plus_times`` 2.356 against 2.456 ms.  At scale 22 (16 MB, in the L2) 512 is
    slower: 0.191 against 0.179 ms (pattern-only), 0.297 against 0.291
    (``plus_times``)."""
    if fn.num_regs * THREADS > _cuda.sm_regs() // 2 and 2 * xbytes > _cuda.l2_bytes():
        return THREADS // 2
    return THREADS


def _launch(L: Any, semiring: Any, types: tuple, xv: Any, xpres: bool, allow: bool,
            threads: int | None, prefetch: bool | None, chunk_batch: int) -> _Launch:
    """The kernels and launch sizes of a call (cached on ``L``)."""
    key = (semiring, types, xv.dtype, xv.size, xpres, allow, threads, prefetch, chunk_batch)
    cache = L.__dict__.setdefault("_launches", {})
    got = cache.get(key)
    if got is not None:
        return got
    r = types[2]
    iso = L.val is None
    pf = L.group // 32 == 8 and not iso if prefetch is None else bool(prefetch)
    acc = _scatter(semiring.add, r)[0]
    flag = int(xpres)   # phase 2's presence flag per row
    cb = 16 * int(chunk_batch)
    room = _cuda.max_block_smem() - cb
    sub = -(-L.panel_rows * (acc.itemsize + flag) // room)
    rs = -(-L.panel_rows // sub)
    at = -(-rs * (acc.itemsize + flag) // 16) * 16
    vd = L.dtype if iso else L.val.dtype

    src = panels_source(semiring, types, av=vd, xv=xv.dtype, iso=iso, xpres=xpres,
                        allow=allow, panel_cols=L.panel_cols, panel_rows=L.panel_rows,
                        sub=sub, group=L.group, prefetch=pf, chunk_batch=int(chunk_batch),
                        chunk_at=at)[0]
    fn = _cuda.get_function(src, "gb_lp_stream")
    nt = int(threads) if threads is not None else \
        _stream_threads(fn, xv.size * xv.dtype.itemsize)
    dyn = _stream_smem(L.panel_cols, xv.dtype, r, xpres, nt, L.group)
    _smem(fn, dyn, lambda: f"a column panel of {L.panel_cols} values of {xv.dtype.name} "
          f"(and every warp's staged partials of {r.name})",
          "build the format with a smaller light_cols")
    fr = _cuda.get_function(src, "gb_lp_reduce")
    dyn2 = at + cb
    _smem(fr, dyn2, lambda: f"{rs} accumulators of {acc.name}", "build the format with a "
          "smaller light_rows")
    got = cache[key] = _Launch(fn, nt, dyn, fr, L.n_row_panels * sub, dyn2)
    return got


def light_panels_pull(L: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                      threads: int | None = None, prefetch: bool | None = None,
                      chunk_batch: int = CHUNK_BATCH) -> VecData:
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

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` flags.

    Raises
    ------
    ValueError
        When a column panel's ``x`` or a row panel's accumulators do not fit the shared
        memory of a thread block.
    """
    m = L.shape[0]
    types = _cuda.dtypes(types)
    r = types[2]
    if m == 0:
        return VecData(0, None, cp.empty(0, dtype=r), cp.empty(0, dtype=np.bool_))
    xv = x.values
    xpres = None if x.present is None else _bool_array(x.present)
    if L.col_order is not None:
        # the layout's columns are relabelled: x into their order, once per call (the
        # first launch: a call's host time before it is what an idle GPU waits for)
        xv = _GATHER(xv, L.col_order)
        xpres = None if xpres is None else _GATHER(xpres, L.col_order)
    go = _launch(L, semiring, types, xv, xpres is not None, allow is not None, threads,
                 prefetch, chunk_batch)
    val = L.val if L.val is not None else _iso_array(L)
    part = cp.empty(max(L.npart, 1), dtype=r)
    ppres = cp.empty(max(L.npart, 1), dtype=np.bool_) if xpres is not None else _cuda.dummy()
    if L.nunits:
        go.stream((L.nunits,), (go.stream_threads,),
                  (L.ent, val, xv, xpres if xpres is not None else _cuda.dummy(),
                   np.int64(xv.size), L.units, L.gbase, part, ppres), shared_mem=go.stream_smem)
    y = cp.empty(m, dtype=r)
    ypres = cp.empty(m, dtype=np.bool_)
    go.reduce((go.reduce_blocks,), (THREADS,),
              (part, ppres, L.prow, L.cptr, L.chunks, np.int64(m),
               allow if allow is not None else _cuda.dummy(), L.row_hit, y, ypres),
              shared_mem=go.reduce_smem)
    return VecData(m, None, y, ypres)
