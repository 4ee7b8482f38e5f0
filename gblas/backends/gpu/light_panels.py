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
   its share of the rows (the panel's partials are then read once per share).

A row mask (``allow``) is applied when ``y`` is written: disallowed rows get no entry
(their products are still computed).  When the layout's columns are relabelled
(``col_order``), ``x`` (and its flags) is first gathered into their order: on an H100 at
Kronecker scale 25, 0.21 ms for 32M float32 values, while the two phases, with 42% fewer
partials, took 0.74 ms less (float32 ``plus_times``: 2.65 instead of 3.17 ms in all).

Floating-point sums fold the partials of a row in the order the atomic updates arrive, so
the last bits of a ``plus`` result may differ between calls (as with any atomic GPU
reduction); ``min``, ``max``, integer and boolean monoids give identical results.
"""

from __future__ import annotations

import functools
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

__device__ __forceinline__ void gb_lp_fold(bool& h, R_t& a, bool oh, R_t o) {
    if (oh) {
        a = h ? gb_add(a, o) : o;
        h = true;
    }
}

extern "C" __global__ void gb_lp_stream(
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
    for (int k = threadIdx.x; k < ncl; k += blockDim.x) {
        sx[k] = X[c0 + k];
#if GB_XPRES
        sxp[k] = xpres[c0 + k];
#endif
    }
    __syncthreads();
#if GB_ISO
    const T_t aiso = (T_t)val[0];
#endif
    const unsigned lt = (1u << lane) - 1u;
    for (long long g = e0 / GB_GROUP + (threadIdx.x >> 5); g * GB_GROUP < e1; g += nw) {
        const long long base = g * GB_GROUP + GB_K * lane;
        /* the GB_K column offsets in one 8- or 16-byte load (groups never pass the
           padded end) */
#if GB_K == 8
        const uint4 raw = *reinterpret_cast<const uint4*>(ent + base);
        const unsigned pk[GB_K] = {raw.x & 0xffffu, raw.x >> 16, raw.y & 0xffffu, raw.y >> 16,
                                   raw.z & 0xffffu, raw.z >> 16, raw.w & 0xffffu, raw.w >> 16};
#else
        const uint2 raw = *reinterpret_cast<const uint2*>(ent + base);
        const unsigned pk[GB_K] = {raw.x & 0xffffu, raw.x >> 16, raw.y & 0xffffu, raw.y >> 16};
#endif
        bool ok[GB_K], hd[GB_K];
        R_t v[GB_K];
        int nh = 0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            const bool valid = base + k < e1;
            const unsigned c = pk[k] & (GB_HEAD - 1u);
            hd[k] = valid && ((pk[k] & GB_HEAD) || (lane == 0 && k == 0));
            nh += hd[k];
            ok[k] = valid;
#if GB_XPRES
            ok[k] = ok[k] && sxp[c];
#endif
#if GB_ISO
            v[k] = (R_t)gb_mul(aiso, (T_t)sx[c]);
#else
            v[k] = (R_t)gb_mul((T_t)val[base + k], (T_t)sx[c]);
#endif
        }
        /* this lane's first partial: the group's base + the runs begun in earlier lanes */
        int before = nh;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const int t = __shfl_up_sync(0xffffffffu, before, o);
            if (lane >= o) before += t;
        }
        int at = before - nh;   /* within the group's partials */
        /* fold run by run: `ah, aa` what precedes the lane's first run start (the tail of
           an earlier lane's run), `ch, ca` the run in progress */
        bool ah = false, ch = false, seen = false;
        R_t aa = (R_t)0, ca = (R_t)0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            if (hd[k]) {
                if (seen) {
                    sp[at] = ca;
#if GB_XPRES
                    spp[at] = ch;
#endif
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
        const int runs = __shfl_sync(0xffffffffu, before, 31);
        const long long g0 = gbase[g];
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

extern "C" __global__ void gb_lp_reduce(
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
    const long long c1 = cptr[q + 1];
    for (long long c = cptr[q] + (threadIdx.x >> 5); c < c1; c += nw) {
        const long long a = chunks[2 * c], b = chunks[2 * c + 1];
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
    __syncthreads();
    for (int k = threadIdx.x; k < nr; k += blockDim.x) {
        const long long row = r0 + k;
#if GB_XPRES
        bool h = sh[k];
#else
        bool h = row_hit[row];   /* every partial is present */
#endif
#if GB_ALLOW
        h = h && allow[row];
#endif
        y[row] = h ? (R_t)acc[k] : (R_t)0;
        ypres[row] = h;
    }
}
"""

#: Threads per block of both kernels.
THREADS = 1024

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
                  group: int = 128) -> tuple[str, np.dtype]:
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
                        GB_RS=-(-int(panel_rows) // int(sub)),
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
#: holds).
_GATHER = cp.ElementwiseKernel("raw T x, I order", "T y", "y = x[order]", "gb_lp_gather")


def _iso_array(L: Any) -> Any:
    """The iso value of ``L`` as a one-element device array (made once per layout)."""
    arr = getattr(L, "_iso_array", None)
    if arr is None:
        arr = L._iso_array = cp.full(1, L.iso_value, dtype=L.dtype)
    return arr


def light_panels_pull(L: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                      threads: int = THREADS) -> VecData:
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
    threads : int, default 1024
        Threads per block (a multiple of 32).

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
    types = tuple(np.dtype(d) for d in types)
    r = types[2]
    if m == 0:
        return VecData(0, None, cp.empty(0, dtype=r), cp.empty(0, dtype=np.bool_))
    xv = x.values
    xpres = None if x.present is None else _bool_array(x.present)
    if L.col_order is not None:
        # the layout's columns are relabelled: x into their order, once per call
        xv = _GATHER(xv, L.col_order)
        xpres = None if xpres is None else _GATHER(xpres, L.col_order)
    val = L.val if L.val is not None else _iso_array(L)
    acc = _scatter(semiring.add, r)[0]
    flag = int(xpres is not None)   # phase 2's presence flag per row
    sub = -(-L.panel_rows * (acc.itemsize + flag) // _cuda.max_block_smem())
    src, acc = panels_source(semiring, types, av=val.dtype, xv=xv.dtype, iso=L.val is None,
                             xpres=xpres is not None, allow=allow is not None,
                             panel_cols=L.panel_cols, panel_rows=L.panel_rows, sub=sub,
                             group=L.group)
    part = cp.empty(max(L.npart, 1), dtype=r)
    ppres = cp.empty(max(L.npart, 1), dtype=np.bool_) if xpres is not None else _cuda.dummy()
    if L.nunits:
        fn = _cuda.get_function(src, "gb_lp_stream")
        dyn = _stream_smem(L.panel_cols, xv.dtype, r, xpres is not None, threads, L.group)
        _smem(fn, dyn, lambda: f"a column panel of {L.panel_cols} values of {xv.dtype.name} "
              f"(and every warp's staged partials of {r.name})",
              "build the format with a smaller light_cols")
        fn((L.nunits,), (int(threads),),
           (L.ent, val, xv, xpres if xpres is not None else _cuda.dummy(),
            np.int64(xv.size), L.units, L.gbase, part, ppres), shared_mem=dyn)
    # y after phase 1 is queued: a call's CPU time before its first kernel is what an
    # idle GPU waits for
    y = cp.empty(m, dtype=r)
    ypres = cp.empty(m, dtype=np.bool_)
    fn = _cuda.get_function(src, "gb_lp_reduce")
    rs = -(-L.panel_rows // sub)
    dyn = rs * (acc.itemsize + flag)
    _smem(fn, dyn, lambda: f"{rs} accumulators of {acc.name}", "build the format with a "
          "smaller light_rows")
    fn((L.n_row_panels * sub,), (int(threads),),
       (part, ppres, L.prow, L.cptr, L.chunks, np.int64(m),
        allow if allow is not None else _cuda.dummy(), L.row_hit, y, ypres), shared_mem=dyn)
    return VecData(m, None, y, ypres)
