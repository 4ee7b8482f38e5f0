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

Accumulators start at :func:`~.folds.fold_start` (the identity; NaN for a float ``min`` /
``max``, so a row whose only products are NaN gives NaN; ANY: the first value written
wins).  1- and 2-byte results accumulate in 32-bit slots.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData, register
from . import codegen
from .folds import fold_start, scatter_plan
from .launch import allow_dynamic_smem, bool_or_none, dense_x, empty_result, or_dummy

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
        ident = codegen.c_literal(0, acc)
    else:
        ident = codegen.c_literal(np.asarray(fold_start(semiring.add, r)).astype(acc), acc)
    return codegen.source(
        "shards.cu", semiring=semiring, types=types,
        names=dict(ix_t=ix, av_t=av, xv_t=xv, acc_t=acc),
        flags=dict(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_SLOTS=int(slots),
                   GB_IDENT=ident), extra=scatter), acc


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
    x = dense_x(x, n)
    types = codegen.dtypes(types)
    r = types[2]
    out = empty_result(m, r)
    if m == 0:
        return out
    y, ypres = out.values, out.present
    iso = S.values is None
    ax = cp.full(1, S.iso_value, dtype=S.dtype) if iso else S.values
    xpres, allow = bool_or_none(x.present), bool_or_none(allow)
    src, acc = shard_source(semiring, types, ix=S.src.dtype, av=ax.dtype, xv=x.values.dtype,
                            iso=iso, xpres=xpres is not None, allow=allow is not None,
                            slots=S.slots)
    smem = S.slots * (acc.itemsize + 1)
    pull = codegen.get_function(src, "gb_shard_pull")
    allow_dynamic_smem(pull, smem)
    npart = max(S.npart, 1)
    part = cp.empty(npart, dtype=r)
    ppres = cp.empty(npart, dtype=np.bool_)
    pull((S.nitems,), (SHARD_THREADS,),
         (S.dst, S.src, ax, x.values, or_dummy(xpres), or_dummy(allow), S.sh_row, S.sh_rep,
          S.it_shard, S.it_lo, S.it_hi, S.it_poff, y, ypres, part, ppres),
         shared_mem=smem)
    nmulti = int(S.multi.shape[0])
    if nmulti:
        codegen.get_function(src, "gb_shard_combine")(
            (nmulti,), (SHARD_THREADS,),
            (S.multi, S.sh_row, S.sh_item, S.it_poff, part, ppres, y, ypres))
    return out
