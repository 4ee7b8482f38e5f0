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

Not registered: it ran no faster than the registered ``("mxv", "csr", "gpu", "push")``
kernel (small frontiers are launch-bound, large ones bound by the scattered atomics;
``benchmarks/results/history_gpu.md``).  It stays callable (and tested) for comparisons.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData
from . import codegen
from .folds import scatter_plan
from .launch import (
    blocks,
    bool_or_none,
    compress,
    frontier_offsets,
    or_dummy,
    push_accumulator,
    sm_count,
)

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
    return codegen.source(
        "push_lb.cu", semiring=semiring, types=types,
        names=dict(ip_t=ip, ix_t=ix, av_t=av, fi_t=fi, xv_t=xv, acc_t=acc),
        flags=dict(GB_ISO=iso, GB_ALLOW=allow, GB_EPB=int(epb)), extra=scatter), acc


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
    types = codegen.dtypes(types)
    r = types[2]
    if x.indices is None:
        x = compress(x)
    xi, xvals = x.indices, x.values
    nf = int(xi.size)
    offs = frontier_offsets(AT.indptr, xi)
    allow = bool_or_none(allow)
    ax, iso = AT.values_or_iso()
    src, acc_dt = push_lb_source(semiring, types, ip=AT.indptr.dtype, ix=AT.indices.dtype,
                                 av=ax.dtype, fi=xi.dtype, xv=xvals.dtype, iso=iso,
                                 allow=allow is not None, epb=int(epb))
    acc = push_accumulator(semiring.add, r, acc_dt, nrows)
    ypres = cp.zeros(nrows, dtype=np.bool_)
    nnz = int(AT.indices.size)
    if nf and nrows and nnz:
        grid = min(blocks(nnz, int(epb)), 16 * sm_count())
        codegen.get_function(src, "gb_push_lb")(
            (grid,), (LB_THREADS,),
            (AT.indptr, AT.indices, ax, xi, xvals, offs, np.int64(nf), or_dummy(allow), acc,
             ypres))
    y = acc if acc_dt == r else acc.astype(r)
    return VecData(nrows, None, y, ypres)
