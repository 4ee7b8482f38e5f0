"""Load-balanced push SpMSpV on the GPU (sparse frontier), block-level search.

Every thread block takes an equal share of ``GB_EPB`` consecutive edges of the frontier's
edge list (the concatenated rows of ``AT`` at the frontier's indices), whatever the
frontier vertices' degrees: high-degree vertices are spread over many blocks, low-degree
ones share a block (the edge-balanced distribution that MultiGraphS builds on, after
Merrill et al.).  Two threads find, by binary search over the degree prefix sums, the
first and last frontier vertices of the block's range; the block stages their prefix
sums, row starts and ``x`` values in shared memory; each thread then finds the owner of
its edges by a binary search in shared memory (a few cycles) rather than in global memory
(``log2(nf)`` dependent global reads per edge in :func:`.mxv.mxv_push`).  Products are
scattered with the same atomics as :func:`.mxv.mxv_push` (:func:`.mxv.scatter_plan`).

A block whose range spans more than ``GB_EPB + 1`` frontier entries (only possible when
the frontier lists vertices of degree 0) searches global memory instead.

Not registered: on an H100 (Kronecker scale 22 and 24, min_plus, random frontiers of
1e-4 to 1e-1 of the vertices) it ran at 0.94x to 1.05x the time of the registered
``("mxv", "csr", "gpu", "push")`` kernel -- the global binary search it removes is not
what bounds that kernel (small frontiers are launch-bound, large ones bound by the
scattered atomics).  It stays callable (and tested) for comparisons.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData
from . import _cuda
from .mxv import _bool_array, _compress, _frontier_degrees, scatter_plan

_LB_BODY = r"""
extern "C" __global__ void gb_push_lb(
    const ip_t* __restrict__ Tp, const ix_t* __restrict__ Tj, const av_t* __restrict__ Tx,
    const fi_t* __restrict__ xi, const xv_t* __restrict__ xv,
    const long long* __restrict__ offs, long long nf,
    const bool* __restrict__ allow, acc_t* __restrict__ acc, bool* __restrict__ ypres)
{
    __shared__ long long s_end[GB_EPB + 1];
    __shared__ long long s_base[GB_EPB + 1];
    __shared__ T_t s_x[GB_EPB + 1];
    __shared__ long long s_f[2];
    if (nf <= 0) return;
    const long long total = offs[nf - 1];
#if GB_ISO
    const T_t aiso = (T_t)Tx[0];
#endif
    for (long long vb = blockIdx.x; vb * GB_EPB < total; vb += gridDim.x) {
        const long long e0 = vb * GB_EPB;
        const long long e1 = e0 + GB_EPB < total ? e0 + GB_EPB : total;
        if (threadIdx.x < 2) {
            /* the frontier entry owning edge `target`: the first f with offs[f] > target */
            const long long target = threadIdx.x == 0 ? e0 : e1 - 1;
            long long lo = 0, hi = nf - 1;
            while (lo < hi) {
                const long long mid = (lo + hi) >> 1;
                if (offs[mid] > target) hi = mid; else lo = mid + 1;
            }
            s_f[threadIdx.x] = lo;
        }
        __syncthreads();
        const long long f0 = s_f[0];
        const long long nk = s_f[1] - f0 + 1;
        const bool tiled = nk <= GB_EPB + 1;
        if (tiled) {
            for (int k = threadIdx.x; k < (int)nk; k += blockDim.x) {
                const long long f = f0 + k;
                const long long before = f ? offs[f - 1] : 0;
                s_end[k] = offs[f];
                s_base[k] = (long long)Tp[(long long)xi[f]] - before;
                s_x[k] = (T_t)xv[f];
            }
        }
        __syncthreads();
        for (long long e = e0 + threadIdx.x; e < e1; e += blockDim.x) {
            long long p;
            T_t xval;
            if (tiled) {
                int lo = 0, hi = (int)nk - 1;
                while (lo < hi) {
                    const int mid = (lo + hi) >> 1;
                    if (s_end[mid] > e) hi = mid; else lo = mid + 1;
                }
                p = s_base[lo] + e;
                xval = s_x[lo];
            } else {
                long long lo = f0, hi = f0 + nk - 1;
                while (lo < hi) {
                    const long long mid = (lo + hi) >> 1;
                    if (offs[mid] > e) hi = mid; else lo = mid + 1;
                }
                const long long before = lo ? offs[lo - 1] : 0;
                p = (long long)Tp[(long long)xi[lo]] + (e - before);
                xval = (T_t)xv[lo];
            }
            const long long i = (long long)Tj[p];
#if GB_ALLOW
            if (!allow[i]) continue;
#endif
#if GB_ISO
            const R_t v = (R_t)gb_mul(aiso, xval);
#else
            const R_t v = (R_t)gb_mul((T_t)Tx[p], xval);
#endif
            gb_scatter(acc + i, v);
            ypres[i] = true;
        }
        __syncthreads();
    }
}
"""

#: Edges per (virtual) block.
DEFAULT_EPB = 1024
#: Threads per block.
LB_THREADS = 256


@functools.lru_cache(maxsize=512)
def push_lb_source(semiring: Any, types: tuple, *, ip: Any, ix: Any, av: Any, fi: Any,
                   xv: Any, iso: bool, allow: bool, epb: int) -> tuple[str, np.dtype]:
    """CUDA source of ``gb_push_lb`` and the accumulator dtype (see :func:`.mxv.push_source`).
    """
    r = np.dtype(types[2])
    acc, scatter = scatter_plan(semiring.add, r)
    src = (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.typedefs(ip_t=ip, ix_t=ix, av_t=av, fi_t=fi, xv_t=xv, acc_t=acc)
        + _cuda.defines(GB_ISO=iso, GB_ALLOW=allow, GB_EPB=int(epb))
        + scatter
        + _LB_BODY
    )
    return src, acc


def mxv_push_lb(AT: Any, x: VecData, allow: Any, semiring: Any, types: tuple, nrows: int,
                *, epb: int = DEFAULT_EPB) -> VecData:
    """Push SpMSpV ``y = A x`` for a sparse ``x``, edge-balanced per thread block.

    Same contract as :func:`.mxv.mxv_push` (the ``("mxv", "csr", "gpu", "push")`` kernel).

    Parameters
    ----------
    AT : CSR
        CSR of A's transpose, on the GPU.
    x : VecData
        Sparse vector (sorted ``indices``); a dense one is compressed first.
    allow : cupy.ndarray of bool or None
        Output rows where it is False get no entry.
    semiring : Semiring
        The semiring.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    nrows : int
        Length of the result.
    epb : int
        Edges per thread block (shared memory: ``(16 + sizeof(T)) * (epb + 1)`` bytes).

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` flags.
    """
    types = _cuda.dtypes(types)
    r = types[2]
    if x.indices is None:
        x = _compress(x)
    xi, xvals = x.indices, x.values
    nf = int(xi.size)
    if nf:
        offs = cp.cumsum(_frontier_degrees(AT.indptr, xi))
    else:
        offs = cp.zeros(1, dtype=np.int64)
    allow = None if allow is None else _bool_array(allow)
    ax, iso = AT.values_or_iso()
    src, acc_dt = push_lb_source(semiring, types, ip=AT.indptr.dtype, ix=AT.indices.dtype,
                                 av=ax.dtype, fi=xi.dtype, xv=xvals.dtype, iso=iso,
                                 allow=allow is not None, epb=int(epb))
    if semiring.add.any_value:
        acc = cp.zeros(nrows, dtype=acc_dt)
    else:
        ident = np.asarray(semiring.add.identity_for(r)).astype(r)
        acc = cp.full(nrows, ident.astype(acc_dt)[()], dtype=acc_dt)
    ypres = cp.zeros(nrows, dtype=np.bool_)
    nnz = int(AT.indices.size)
    if nf and nrows and nnz:
        grid = min(_cuda.blocks(nnz, int(epb)), 16 * _cuda.sm_count())
        _cuda.get_function(src, "gb_push_lb")(
            (grid,), (LB_THREADS,),
            (AT.indptr, AT.indices, ax, xi, xvals, offs, np.int64(nf),
             allow if allow is not None else _cuda.dummy(), acc, ypres))
    y = acc if acc_dt == r else acc.astype(r)
    return VecData(nrows, None, y, ypres)
