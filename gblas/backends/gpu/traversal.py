"""GPU breadth-first levels: one fused kernel per level, switching push and pull.

One level of the BFS ``q<!v> = A' any.pair q; v<q> = depth`` is one kernel here:

* **push** (a small frontier): a warp per frontier vertex walks its out-edges (CSR of
  ``A``) and claims each unvisited neighbour with a compare-and-swap on its level, which
  appends it to the next frontier; a hub (more than 2048 out-edges) is walked by the whole
  grid in a second kernel instead of one warp;
* **pull** (a large frontier): each unvisited vertex scans its in-edges (CSR of ``A'``)
  and stops at the first in-neighbour on the previous level -- a thread per vertex of few
  in-edges, a warp per vertex of many (hubs would otherwise hold a thread for their whole
  in-list);
* **whole** (a small graph, where the planner asks for it: ``whole_block``): one block of
  :data:`LOCAL_THREADS` threads runs the whole search, push levels back to back, with
  the parents folded in as it goes (an atomic minimum per edge into the level being
  built): one launch and one read-back, where the kernels per level cost their launches
  and read-backs, and the transpose of a pull level, for a few microseconds of work;
* **local** (a run of small frontiers, as roads and meshes have for hundreds of levels):
  once a search is :data:`LOCAL_AFTER` levels deep, one block of :data:`LOCAL_THREADS`
  threads runs push levels back to back, a thread per frontier vertex, until a frontier
  holds more vertices than its threads or more than :data:`LOCAL_EDGES` out-edges, or
  should pull; one read-back for all its levels.

The kernel also sums the out-degrees of the vertices it found, so the only transfer per
level is two counters (frontier size, its edges), from which the direction of the next
level is chosen as Beamer et al. do (direction-optimizing BFS, SC 2012): pull once the
frontier's edges exceed the unvisited vertices' edges / :data:`ALPHA`, push again once the
frontier holds fewer than n / :data:`BETA` vertices.  As on the CPU, a frontier of fewer
than n / :data:`BETA` vertices never pulls: the last levels of a deep search leave few
unvisited edges, and pulling there would scan every vertex for a handful of them.

Parents, when asked for, come from one pass after the levels: a reached vertex's parent is
its smallest in-neighbour on the previous level (in-neighbours are sorted, so the first
match), the rule of the semiring loop (``min.second``).

Kernel contract (registered as ``("bfs", "csr", "gpu", "levels")``, the same as the CPU's):
``f(A: CSR, get_AT: callable, source: int, parents: bool) -> (level int32 array, parent
int64 array or None, stats dict)`` with ``level[i] = -1`` for unreached vertices;
``get_AT()`` returns the CSR of ``A'``, called at the first pull level (or for the
parents): a search that only pushes (a road network, a hub's small component) builds no
transpose.
"""

from __future__ import annotations

from typing import Any

import cupy as cp
import numpy as np

from ..registry import VecData, register
from .codegen import get_function, source
from .launch import blocks, dummy, sm_count

__all__ = ["ALPHA", "BETA", "LOCAL_AFTER", "LOCAL_EDGES", "LOCAL_ENTER", "LOCAL_THREADS",
           "bfs_levels", "bfs_source"]

#: Push -> pull once the frontier's out-edges exceed the unvisited edges / ALPHA.
ALPHA = 14
#: Pull -> push once the frontier holds fewer than n / BETA vertices.
BETA = 24

_THREADS = 256
#: One block of this many threads (LOCAL_MAX in bfs.cu, its launch bound) runs the levels
#: of at most as many frontier vertices...
LOCAL_THREADS = 1024
#: ... and at most this many out-edges, without a read-back between them.  It starts once
#: a search has run LOCAL_AFTER levels (power-law graphs finish before), on a push level of
#: at most LOCAL_ENTER vertices and LOCAL_EDGES / 2 out-edges (a frontier near the limits
#: would bounce between the block and the grid); one multiprocessor's edges per level
#: bound the gain (``benchmarks/results/end_to_end_gpu.md``).
LOCAL_EDGES = 1024
LOCAL_ENTER = 256
LOCAL_AFTER = 8


def bfs_source(ptr_dt: Any, idx_dt: Any) -> str:
    """CUDA source of the BFS kernels for index arrays of dtypes ``ptr_dt`` (row
    pointers, ``P``) and ``idx_dt`` (column indices, ``I``)."""
    return source("bfs.cu", names={"P": ptr_dt, "I": idx_dt})


def _kernels(A: Any) -> tuple:
    src = bfs_source(np.dtype(A.indptr.dtype), np.dtype(A.indices.dtype))
    return (get_function(src, "gb_bfs_push"), get_function(src, "gb_bfs_push_big"),
            get_function(src, "gb_bfs_pull"), get_function(src, "gb_bfs_mark"),
            get_function(src, "gb_bfs_parents"), get_function(src, "gb_bfs_start"),
            get_function(src, "gb_bfs_local"), get_function(src, "gb_bfs_small"))


def _transpose_like(A: Any, get_AT) -> Any:
    """The CSR of ``A'`` with ``A``'s index dtypes (the kernels' one source)."""
    AT = get_AT()
    dts = (np.dtype(A.indptr.dtype), np.dtype(A.indices.dtype))
    if dts != (np.dtype(AT.indptr.dtype), np.dtype(AT.indices.dtype)):
        AT = _with_dtypes(AT, *dts)
    return AT


def _with_dtypes(csr: Any, ptr_dt: np.dtype, idx_dt: np.dtype) -> Any:
    """A CSR view with its index arrays cast to the given dtypes (for one kernel source)."""
    from types import SimpleNamespace

    return SimpleNamespace(indptr=csr.indptr.astype(ptr_dt, copy=False),
                           indices=csr.indices.astype(idx_dt, copy=False), shape=csr.shape)


@register("bfs", "csr", "gpu", "levels")
def bfs_levels(A: Any, get_AT, source: int, parents: bool, *,
               vectors: bool = False, max_levels: int | None = None,
               whole_block: bool = False) -> tuple[Any, Any, dict]:
    """Levels (and parents) of a BFS from ``source`` on the GPU.

    Parameters
    ----------
    A : CSR
        The CSR of the adjacency matrix (row i lists the j of edges i -> j), on the GPU.
    get_AT : callable or None
        Returns the CSR of its transpose, on the GPU; None: every level pushes (no
        parents then, but with ``whole_block``: they read the transpose).
    source : int
        The start vertex.
    parents : bool
        Also compute each reached vertex's smallest parent on the previous level.
    vectors : bool, default False
        Return the levels and parents as dense :class:`VecData` of int64 with the reached
        vertices present, the form a Vector takes.
    max_levels : int, optional
        Stop after this many levels (``stats["capped"]``: the last level found had
        vertices, not searched further; the search is at least that deep), for a probe
        that needs to know only whether the search goes that deep (levels run one
        launch each then, none in the single-block kernels).
    whole_block : bool, default False
        Run the whole search in one block, push only, parents included
        (``stats["whole_block"]``; the planner asks for it for small graphs:
        :data:`gblas.planner.algorithms.GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES`).

    Returns
    -------
    level : cupy.ndarray of int32
        The level of each vertex, -1 where unreached.
    parent : cupy.ndarray of int64 or None
        The parent of each vertex (the source its own), -1 where unreached.
    stats : dict
        ``levels``, ``push`` and ``pull`` counts of the levels run each way (and
        ``capped`` with ``max_levels``).
    """
    n = int(A.shape[0])
    push_k, big_k, pull_k, mark_k, par_k, start_k, local_k, small_k = _kernels(A)
    if whole_block and max_levels is None:
        return _whole_search(A, source, parents, vectors, small_k)
    if parents and get_AT is None:
        raise ValueError("bfs_levels: parents need get_AT (they read the transpose, except "
                         "in one block: whole_block=True)")
    AT = None  # asked for at the first pull (a search that only pushes never builds it)
    nnz = int(A.indices.size)
    level = cp.full(n, -1, dtype=np.int32)
    queue = cp.empty(max(n, 1), dtype=np.int32)
    nxt = cp.empty(max(n, 1), dtype=np.int32)
    start_k((1,), (32,), (level, queue, np.int64(source)))
    counters = cp.zeros(2, dtype=np.uint64)  # cumulative: no reset per level
    bits = cp.empty((n + 31) // 32, dtype=np.uint32)  # the frontier, for pull levels
    bigq = cp.empty(max(n, 1), dtype=np.int32)  # a push level's hubs, and their count
    bigc = cp.zeros(1, dtype=np.uint64)
    indptr = A.indptr
    nq = 1
    total = edges_total = 0  # the counters' values before the level
    m_f = 0  # the first level pushes from the source: its edges need no read-back
    m_u = nnz
    pull = False
    depth = 0
    stats = {"levels": 0, "push": 0, "pull": 0, "local": 0}
    cap = sm_count() * 16  # resident blocks enough to fill the GPU; loops stride beyond
    out = cp.empty(6, dtype=np.int64)
    # the fewest frontier vertices a pull level may have (more than n: never pull)
    pull_min = -(-n // BETA) if get_AT is not None else n + 1
    local = max_levels is None
    if not local:
        stats["capped"] = False
    while nq:
        if not local and depth >= max_levels:
            stats["capped"] = True
            break
        if (local and depth >= LOCAL_AFTER and not pull and nq <= LOCAL_ENTER
                and m_f <= LOCAL_EDGES // 2 and (m_f * ALPHA <= m_u or nq < pull_min)):
            # small frontiers: one block runs push levels until one is too big or would
            # pull, with one read-back for all of them
            local_k((1,), (LOCAL_THREADS,),
                    (indptr, A.indices, level, np.int32(depth + 1), queue, nxt, np.int64(nq),
                     np.int64(nnz), np.int64(ALPHA), np.int64(pull_min),
                     np.int64(LOCAL_EDGES), counters, out))
            run, flip, nq, m_f, total, edges_total = (int(v) for v in out.get())
            if run:
                depth += run
                stats["push"] += run
                stats["local"] += run
                stats["levels"] += run if nq else run - 1
                if flip:
                    queue, nxt = nxt, queue
                m_u = nnz - edges_total
                continue
        depth += 1
        # Beamer's switch: pull while the frontier is heavy, push while it is small
        if not pull and m_f > m_u / ALPHA and nq >= pull_min:
            pull = True
        elif pull and nq < n / BETA:
            pull = False
        if pull:
            if AT is None:
                AT = _transpose_like(A, get_AT)
            bits.fill(0)
            mark_k((min(blocks(nq, _THREADS), cap),), (_THREADS,), (queue, np.int64(nq), bits))
            pull_k((min(blocks(n, _THREADS), cap),), (_THREADS,),
                   (AT.indptr, AT.indices, indptr, np.int64(n), bits, level, np.int32(depth),
                    nxt, counters, np.uint64(total)))
            stats["pull"] += 1
        else:
            bigc.fill(0)
            push_k((min(blocks(nq * 32, _THREADS), cap),), (_THREADS,),
                   (indptr, A.indices, queue, np.int64(nq), level, np.int32(depth), nxt,
                    counters, np.uint64(total), bigq, bigc))
            big_k((cap,), (_THREADS,),
                  (indptr, A.indices, bigq, bigc, level, np.int32(depth), nxt, counters,
                   np.uint64(total)))
            stats["push"] += 1
        found, edges = (int(v) for v in counters.get())
        nq, m_f = found - total, edges - edges_total
        total, edges_total = found, edges
        stats["levels"] += 1 if nq else 0
        queue, nxt = nxt, queue
        m_u -= m_f
    parent = None
    if parents:
        if AT is None:
            AT = _transpose_like(A, get_AT)
        parent = cp.empty(n, dtype=np.int64)
        par_k((min(blocks(n, _THREADS), cap),), (_THREADS,),
              (AT.indptr, AT.indices, np.int64(n), level, parent))
    return _result(level, parent, stats, vectors)


def _whole_search(A: Any, source: int, parents: bool, vectors: bool,
                  small_k: Any) -> tuple[Any, Any, dict]:
    """:func:`bfs_levels` by one block in one launch (``gb_bfs_small``, which also sets
    up the arrays and writes the Vectors' storage)."""
    n = int(A.shape[0])
    level = cp.empty(n, dtype=np.int32)
    qa = cp.empty(n, dtype=np.int32)
    qb = cp.empty(n, dtype=np.int32)
    par = cp.empty(n, dtype=np.int32) if parents else dummy(np.int32)
    lv = cp.empty(n, dtype=np.int64) if vectors else dummy(np.int64)
    lp = cp.empty(n, dtype=np.bool_) if vectors else dummy()
    pv = cp.empty(n, dtype=np.int64) if vectors and parents else dummy(np.int64)
    pp = cp.empty(n, dtype=np.bool_) if vectors and parents else dummy()
    out = cp.empty(3, dtype=np.int64)
    small_k((1,), (LOCAL_THREADS,),
            (A.indptr, A.indices, np.int64(n), np.int64(source), level, par,
             np.int32(parents), qa, qb, np.int32(vectors), lv, lp, pv, pp, out))
    levels, _, runs = (int(v) for v in out.get())
    stats = {"levels": levels, "push": runs, "pull": 0, "local": 0, "whole_block": True}
    if vectors:
        return (VecData(n, None, lv, lp), VecData(n, None, pv, pp) if parents else None,
                stats)
    return level, par.astype(np.int64) if parents else None, stats


def _result(level: Any, parent: Any, stats: dict, vectors: bool) -> tuple[Any, Any, dict]:
    """:func:`bfs_levels`'s return: the arrays, or as the Vectors' storage."""
    if not vectors:
        return level, parent, stats
    n = level.size
    reached = level >= 0
    return (VecData(n, None, level.astype(np.int64), reached),
            None if parent is None else VecData(n, None, parent, reached.copy()), stats)
