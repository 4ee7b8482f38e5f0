"""GPU pull SpMV over Garaph's replicated shards (:mod:`gblas.formats.gpu_shards`).

``gb_shard_pull`` runs one thread block per work item: the block clears its shard's
``rows x R`` accumulator slots in shared memory, its threads take consecutive entries
(coalesced reads of ``dst``, ``src`` and the values; ``x`` read in increasing column
order) and fold each product into replica ``thread mod R`` of the destination with a
shared-memory atomic (hardware ``atomicAdd`` / ``atomicMin`` / ``atomicMax`` / ``atomicOr``
... where the monoid and type have one, a loop of atomic exchanges applying the monoid
otherwise: any semiring works, see :func:`.mxv.scatter_plan`).  Then one thread per
destination folds the ``R`` replicas and writes ``y`` (a shard of one item) or the item's
partial results, which ``gb_shard_combine`` folds per shard of several items.

Accumulators start at the monoid's identity (ANY: the first value written wins); a row
whose only products are NaN therefore gives ``min``/``max``'s identity rather than NaN, as
in the CSR push kernel.  1- and 2-byte results accumulate in 32-bit slots.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData, register
from . import _cuda
from .mxv import _bool_array, _densify, scatter_plan

_SHARD_BODY = r"""
extern "C" __global__ void gb_shard_pull(
    const unsigned short* __restrict__ dst, const ix_t* __restrict__ src,
    const av_t* __restrict__ Ax, const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow,
    const long long* __restrict__ sh_row, const int* __restrict__ sh_rep,
    const int* __restrict__ it_shard, const long long* __restrict__ it_lo,
    const long long* __restrict__ it_hi, const long long* __restrict__ it_poff,
    R_t* __restrict__ y, bool* __restrict__ ypres,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    extern __shared__ __align__(16) unsigned char gb_smem[];
    acc_t* sacc = (acc_t*)gb_smem;
    unsigned char* spres = gb_smem + (unsigned long long)GB_SLOTS * sizeof(acc_t);
    const int item = blockIdx.x;
    const int s = it_shard[item];
    const long long row0 = sh_row[s];
    const int V = (int)(sh_row[s + 1] - row0);
    const int R = sh_rep[s];
    const int nslots = V * R;
    for (int k = threadIdx.x; k < nslots; k += blockDim.x) {
        sacc[k] = GB_IDENT;
        spres[k] = 0;
    }
    __syncthreads();
    const int rep = (int)(threadIdx.x & (unsigned)(R - 1));
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
    const long long hi = it_hi[item];
#pragma unroll 4
    for (long long e = it_lo[item] + threadIdx.x; e < hi; e += blockDim.x) {
        const long long j = (long long)src[e];
        const int d = (int)dst[e];
#if GB_XPRES
        if (!xpres[j]) continue;
#endif
#if GB_ALLOW
        if (!allow[row0 + d]) continue;
#endif
#if GB_ISO
        const R_t v = (R_t)gb_mul(aiso, (T_t)X[j]);
#else
        const R_t v = (R_t)gb_mul((T_t)Ax[e], (T_t)X[j]);
#endif
        const int slot = d * R + rep;
        gb_scatter(sacc + slot, v);
        spres[slot] = 1;
    }
    __syncthreads();
    const long long poff = it_poff[item];
    for (int d = threadIdx.x; d < V; d += blockDim.x) {
        bool have = false;
        R_t acc = (R_t)0;
        for (int q = 0; q < R; ++q) {
            const int slot = d * R + q;
            if (spres[slot]) {
                const R_t v = (R_t)sacc[slot];
                acc = have ? gb_add(acc, v) : v;
                have = true;
            }
        }
        if (poff < 0) {
            y[row0 + d] = have ? acc : (R_t)0;
            ypres[row0 + d] = have;
        } else {
            part[poff + d] = acc;
            ppres[poff + d] = have;
        }
    }
}

extern "C" __global__ void gb_shard_combine(
    const int* __restrict__ multi, const long long* __restrict__ sh_row,
    const long long* __restrict__ sh_item, const long long* __restrict__ it_poff,
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    const int s = multi[blockIdx.x];
    const long long row0 = sh_row[s];
    const int V = (int)(sh_row[s + 1] - row0);
    const long long i0 = sh_item[s], i1 = sh_item[s + 1];
    for (int d = threadIdx.x; d < V; d += blockDim.x) {
        bool have = false;
        R_t acc = (R_t)0;
        for (long long it = i0; it < i1; ++it) {
            const long long q = it_poff[it] + d;
            if (ppres[q]) {
                acc = have ? gb_add(acc, part[q]) : part[q];
                have = true;
            }
        }
        y[row0 + d] = have ? acc : (R_t)0;
        ypres[row0 + d] = have;
    }
}
"""

#: Threads per shard block.
SHARD_THREADS = 256


@functools.lru_cache(maxsize=512)
def shard_source(semiring: Any, types: tuple, *, ix: Any, av: Any, xv: Any, iso: bool,
                 xpres: bool, allow: bool, slots: int) -> tuple[str, np.dtype]:
    """CUDA source of ``gb_shard_pull`` / ``gb_shard_combine`` and the slot dtype.

    Parameters
    ----------
    semiring : Semiring
        Any semiring (its monoid must have an identity unless it is ANY).
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    ix, av, xv : numpy.dtype
        dtypes of the source columns, the values and ``x``.
    iso, xpres, allow : bool
        Iso values (``Ax[0]``); ``x`` has presence flags; a row mask is given.
    slots : int
        Accumulator slots per shard (the dynamic shared memory holds them and a flag
        each).

    Returns
    -------
    (str, numpy.dtype)
    """
    r = np.dtype(types[2])
    acc, scatter = scatter_plan(semiring.add, r, shared=True)
    if semiring.add.any_value:
        ident = _cuda.c_literal(0, acc)
    else:
        ident = _cuda.c_literal(np.asarray(semiring.add.identity_for(r)).astype(r).astype(acc),
                                acc)
    src = (
        _cuda.PREAMBLE
        + _cuda.semiring_snippet(semiring, types)
        + _cuda.typedefs(ix_t=ix, av_t=av, xv_t=xv, acc_t=acc)
        + _cuda.defines(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_SLOTS=int(slots),
                        GB_IDENT=ident)
        + scatter
        + _SHARD_BODY
    )
    return src, acc


@register("mxv", "gpu_shards", "gpu", "pull")
def mxv_pull_shards(S: Any, x: VecData, allow: Any, semiring: Any, types: tuple
                    ) -> VecData:
    """Masked pull SpMV ``y[i] = add_k mul(A[i, k], x[k])`` over a :class:`GPUShards`.

    Parameters
    ----------
    S : GPUShards
        The matrix, on the GPU.
    x : VecData
        Dense vector of length ``S.shape[1]`` (a sparse one is densified).
    allow : cupy.ndarray of bool or None
        Rows where it is False get no entry (their entries are skipped).
    semiring : Semiring
        Any semiring, user-defined ones included.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` flags.
    """
    m, n = S.shape
    if x.indices is not None:
        x = _densify(x, n)
    types = _cuda.dtypes(types)
    r = types[2]
    y = cp.empty(m, dtype=r)
    ypres = cp.empty(m, dtype=np.bool_)
    if m == 0:
        return VecData(m, None, y, ypres)
    iso = S.values is None
    ax = cp.full(1, S.iso_value, dtype=S.dtype) if iso else S.values
    xpres = None if x.present is None else _bool_array(x.present)
    allow = None if allow is None else _bool_array(allow)
    src, acc = shard_source(semiring, types, ix=S.src.dtype, av=ax.dtype, xv=x.values.dtype,
                            iso=iso, xpres=xpres is not None, allow=allow is not None,
                            slots=S.slots)
    smem = S.slots * (acc.itemsize + 1)
    pull = _cuda.get_function(src, "gb_shard_pull")
    if smem > 48 * 1024:
        pull.max_dynamic_shared_size_bytes = smem
    npart = max(S.npart, 1)
    part = cp.empty(npart, dtype=r)
    ppres = cp.empty(npart, dtype=np.bool_)
    pull((S.nitems,), (SHARD_THREADS,),
         (S.dst, S.src, ax, x.values, xpres if xpres is not None else _cuda.dummy(),
          allow if allow is not None else _cuda.dummy(), S.sh_row, S.sh_rep, S.it_shard,
          S.it_lo, S.it_hi, S.it_poff, y, ypres, part, ppres),
         shared_mem=smem)
    nmulti = int(S.multi.shape[0])
    if nmulti:
        _cuda.get_function(src, "gb_shard_combine")(
            (nmulti,), (SHARD_THREADS,),
            (S.multi, S.sh_row, S.sh_item, S.it_poff, part, ppres, y, ypres))
    return VecData(m, None, y, ypres)
