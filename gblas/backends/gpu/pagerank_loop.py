"""``("pagerank", "csr", "gpu", "fused")``: PageRank's whole power iteration in one kernel
launch (``cuda/pagerank_fused.cu``), for graphs whose products leave the device idle
between launches: a loop of planned products costs ~0.15 ms of host time an iteration
(the plan, three or four launches, a read back), against a few microseconds of device
work at 10^5-10^6 entries.

The contract is the CPU module's (:mod:`gblas.backends.cpu.pagerank_loop`): the same
arithmetic in the same order per vertex, on the CSR of ``A'``; the L1 change and the
dangling rank are folded per thread, warp and block, then over the blocks in block order
(the same on every run).  The grid holds no more blocks than the multiprocessors hold at
once (the driver's occupancy), so that blocks can wait for each other twice an
iteration; the host reads back once, at the end.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

import cupy as cp
import numpy as np

from ..registry import register
from . import codegen, reductions
from .launch import MAX_BLOCKS_PER_SM, dummy, resident_blocks, sm_count
from .mxv import default_group, queue_row_schedule, schedule_bounds

__all__ = ["FusedSchedule", "fused_grid", "fused_schedule", "pagerank_fused",
           "pagerank_fused_source"]

#: Threads per block.
_BLOCK = 256
#: Entries of a long row summed by one warp per iteration.
_CHUNK = 256

#: id(indptr) -> (weak reference to indptr, its schedule): CuPy arrays are not hashable,
#: so a WeakKeyDictionary cannot hold them
_SCHEDULES: dict[int, tuple] = {}


@functools.lru_cache(maxsize=64)
def pagerank_fused_source(ip: Any, ix: Any, group: int, smax: int) -> str:
    """CUDA source of ``gb_pagerank_fused`` for index dtypes ``ip``, ``ix``, ``group`` lanes
    per short row and rows of more than ``smax`` entries cut into chunks (its registers
    capped so that a multiprocessor holds :data:`MAX_BLOCKS_PER_SM` blocks)."""
    return codegen.source("pagerank_fused.cu", names=dict(ip_t=ip, ix_t=ix),
                          flags=dict(GB_G=int(group), GB_SMAX=int(smax), GB_CHUNK=_CHUNK,
                                     GB_MINB=MAX_BLOCKS_PER_SM))


class FusedSchedule:
    """The long rows' schedule of one CSR for the one-launch kernels: short rows take
    ``group`` lanes each, rows of more than ``smax`` entries are cut into chunks of
    :data:`_CHUNK` entries (``long_rows``, ``cptr``, ``cslot`` as
    :func:`~gblas.backends.gpu.mxv.device_schedule` lists them in "vector" mode).

    Its launch (:func:`~gblas.backends.gpu.mxv.queue_row_schedule`) is queued before the
    first kernel that reads it, which takes the counts from the device: a fresh
    matrix's call never waits on the device for its schedule.

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> ip = cp.array([0, 2, 2, 300])  # doctest: +SKIP
    >>> [a.tolist() for a in fused_schedule(ip, 3, 300).arrays()]  # doctest: +SKIP
    [[2], [0, 2], [0, 0]]
    """

    __slots__ = ("group", "smax", "max_chunks", "bufs", "indptr", "n", "nnz", "__weakref__")

    def __init__(self, indptr: Any, n: int, nnz: int) -> None:
        # half the product's lanes per short row: more rows in flight per warp for the
        # gathers from the L2 (Kronecker 20 on an H100: 4.3 against 4.7 ms a call)
        self.group = max(2, default_group(n, nnz) // 2)
        self.smax = max(32, 4 * self.group)
        # the chunk buffer's length
        self.max_chunks = schedule_bounds(n, nnz, self.smax, _CHUNK)[1]
        self.bufs = None
        self.indptr, self.n, self.nnz = weakref.ref(indptr), n, nnz

    def args(self) -> tuple:
        """The kernels' arguments ``(long_rows, cptr, cslot, counts)``, the schedule's
        launch queued first if it has not been (on the current stream, as theirs)."""
        if self.bufs is None:
            indptr = self.indptr()
            if indptr is None:
                raise RuntimeError("FusedSchedule: its row pointers no longer exist")
            self.bufs = queue_row_schedule(indptr, self.n, self.nnz, self.smax, _CHUNK, 0)
        return self.bufs.long_rows, self.bufs.cptr, self.bufs.cslot, self.bufs.counts

    @property
    def queued(self) -> bool:
        """Whether the schedule's launch has been queued."""
        return self.bufs is not None

    def arrays(self) -> tuple:
        """``(long_rows, cptr, cslot)`` as NumPy arrays: for inspection and tests."""
        long_rows, cptr, cslot, counts = self.args()
        nlong, nchunks = (int(v) for v in counts[:2].get())
        return long_rows[:nlong].get(), cptr[:nlong + 1].get(), cslot[:nchunks].get()


def fused_schedule(indptr: Any, n: int, nnz: int) -> FusedSchedule:
    """The :class:`FusedSchedule` of the CSR with these row pointers (``n`` rows, ``nnz``
    entries), kept while the array lives (HITS's Lanczos products ask once a product)."""
    key = id(indptr)
    hit = _SCHEDULES.get(key)
    if hit is not None and hit[0]() is indptr:
        return hit[1]
    got = FusedSchedule(indptr, n, nnz)
    try:
        ref = weakref.ref(indptr, lambda _, k=key: _SCHEDULES.pop(k, None))
    except TypeError:  # not weak-referenceable: computed per call
        return got
    _SCHEDULES[key] = (ref, got)
    return got


def fused_grid(fn: Any, n: int, group: int, nnz: int) -> int:
    """Blocks of a one-launch kernel ``fn``: as many as the multiprocessors hold at once
    (all resident: they wait for each other), and no more than the rows' lanes and the
    long rows' chunks fill (a warp per chunk; a function of the sizes alone, so the
    sums fold in the same order on every call)."""
    work = max(n * group, (nnz // _CHUNK + 1) * 32, 1)
    return max(1, min(sm_count() * resident_blocks(fn), -(-work // _BLOCK)))


@register("pagerank", "csr", "gpu", "fused")
def pagerank_fused(indptr, indices, values, iso: float, w, p, alpha: float, limit: float,
                   max_iter: int, r0=None):
    """Run PageRank's power iteration on the CSR of ``A'`` (on the GPU) until
    ``|r' - r|_1 < limit``, in one kernel launch.

    Parameters and returns as :func:`gblas.backends.cpu.pagerank_loop.pagerank_loop`
    (CuPy arrays in, the ranks a CuPy array out).

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> indptr = cp.array([0, 1, 2, 3, 3]); indices = cp.array([2, 0, 1])  # doctest: +SKIP
    >>> w = cp.array([0.85, 0.85, 0.85, 0.0])  # doctest: +SKIP
    >>> r, it, err = pagerank_fused(indptr, indices, None, 1.0, w, None, 0.85, 1e-10,
    ...                             100)  # doctest: +SKIP
    >>> [round(float(x), 4) for x in r.get()], err < 1e-10  # doctest: +SKIP
    ([0.3175, 0.3175, 0.3175, 0.0476], True)
    """
    n = int(w.shape[0])
    nnz = int(indices.size)
    dangling = w == 0.0
    if r0 is None:  # 1/n everywhere: the dangling rank as the loop counts it, on the device
        r, m = cp.full(n, 1.0 / n), cp.count_nonzero(dangling).reshape(1) / n
    else:
        r = cp.array(r0, dtype=np.float64)
        m = cp.full(1, reductions.total(r[dangling]), dtype=np.float64)
    sched = fused_schedule(indptr, n, nnz)
    fn = codegen.get_function(pagerank_fused_source(indptr.dtype, indices.dtype, sched.group,
                                                    sched.smax), "gb_pagerank_fused")
    nblocks = fused_grid(fn, n, sched.group, nnz)
    s = r * w
    r_b, s_b = cp.empty(n), cp.empty(n)
    part = cp.empty(sched.max_chunks)
    partials = cp.empty(4 * nblocks)
    barrier = cp.zeros(2, dtype=np.uint32)
    result = cp.empty(2)
    f64 = dummy(np.float64)
    vals = f64 if values is None else cp.ascontiguousarray(values, dtype=np.float64)
    pv = f64 if p is None else cp.ascontiguousarray(p, dtype=np.float64)
    fn((nblocks,), (_BLOCK,),
       (indptr, indices, vals, np.int32(values is not None), np.float64(iso), pv,
        np.int32(p is not None), np.float64(1.0 / n if n else 0.0),
        cp.ascontiguousarray(w, dtype=np.float64), np.float64(alpha), np.float64(limit),
        np.int32(max_iter), np.int64(n), m, *sched.args(), r, r_b, s, s_b, part, partials,
        barrier, result))
    it, err = (float(v) for v in result.get())
    # iteration k writes r_b when k is odd (the buffers swap after each)
    return (r_b if int(it) % 2 else r), int(it), err
