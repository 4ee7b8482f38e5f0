"""``("sssp", "csr", "gpu", "fused")``: single-source shortest paths in one kernel launch
(``cuda/sssp_fused.cu``), a frontier Bellman-Ford with weights ``>= 0`` whose rounds the
blocks run together, for graphs a search crosses in few rounds: the host's heap on a
GPU Matrix first copies the matrix to the host (three copies, ~0.14 ms at 12K entries
on an H100 host), the loop of (min, +) products pays ~0.1 ms of host time a step.

The distances are the exact shortest ones (each round lowers a distance only to the
length of a path; the rounds stop when none falls).  A round per weighted hop of the
deepest shortest path, plus one: the caller caps them and finishes another way when the
cap is reached.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import register
from . import codegen
from .launch import dummy, resident_blocks, sm_count
from .mxv import default_group

__all__ = ["sssp_fused", "sssp_fused_source"]

_BLOCK = 256


@functools.lru_cache(maxsize=64)
def sssp_fused_source(ip: Any, ix: Any, group: int) -> str:
    """CUDA source of ``gb_sssp_fused`` for index dtypes ``ip``, ``ix`` and ``group`` lanes
    per frontier vertex."""
    return codegen.source("sssp_fused.cu", names=dict(ip_t=ip, ix_t=ix),
                          flags=dict(GB_G=int(group)))


@register("sssp", "csr", "gpu", "fused")
def sssp_fused(indptr, indices, values, iso: float, source: int, max_rounds: int):
    """Distances from ``source`` over the CSR of ``A`` (on the GPU), in one launch.

    Parameters
    ----------
    indptr, indices : cupy.ndarray
        The CSR of ``A`` (row ``u`` lists the out-neighbours of ``u``).
    values : cupy.ndarray or None
        The weights (cast to float64), or None for every edge weighing ``iso``.
    iso : float
        The one weight of an iso (or pattern: 1.0) matrix.
    source : int
        The source vertex.
    max_rounds : int
        Most rounds of relaxation.

    Returns
    -------
    (dist, rounds, finished, bad)
        ``dist``: float64 distances (``inf`` where no path); ``finished``: no distance
        fell in the last round (else ``dist`` holds upper bounds); ``bad``: a negative
        or NaN weight was read (then ``dist`` means nothing).

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> ip, ix = cp.array([0, 2, 3, 3]), cp.array([1, 2, 2])  # doctest: +SKIP
    >>> d, rounds, done, bad = sssp_fused(ip, ix, cp.array([4.0, 1.0, 2.0]), 0.0, 0,
    ...                                   64)  # doctest: +SKIP
    >>> d.tolist(), done, bad  # doctest: +SKIP
    ([0.0, 4.0, 1.0], True, False)
    """
    n = int(indptr.size) - 1
    nnz = int(indices.size)
    group = default_group(n, nnz)
    fn = codegen.get_function(sssp_fused_source(indptr.dtype, indices.dtype, group),
                              "gb_sssp_fused")
    nblocks = max(1, min(sm_count() * resident_blocks(fn, _BLOCK), -(-n * group // _BLOCK)))
    dist, prev = cp.empty(n), cp.empty(n)  # the kernel sets them up
    ws = _workspace()
    vals = dummy(np.float64) if values is None else cp.ascontiguousarray(values, np.float64)
    fn((nblocks,), (_BLOCK,),
       (indptr, indices, vals, np.int32(values is not None), np.float64(iso), np.int64(n),
        np.int64(source), np.int32(max_rounds), dist, prev, ws[:3], ws[3:5],
        ws[5:8].view(np.int32)))
    rounds, finished, bad = (int(v) for v in ws[5:8].view(np.int32).get())
    return dist, rounds, bool(finished), bool(bad)


_WORK: dict = {}


def _workspace():
    """Three counts of active groups, the grid barrier's count and generation (its count
    is zero again when a launch ends) and the three results, kept per device and
    stream."""
    key = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr)
    ws = _WORK.get(key)
    if ws is None:
        ws = _WORK[key] = cp.zeros(8, dtype=np.uint32)
    return ws
