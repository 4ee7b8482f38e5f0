"""CPU breadth-first levels: the whole search in compiled code, push or pull per level.

The level-synchronous BFS ``q<!v> = A' any.pair q; v<q> = depth`` runs here without a
return to Python per level (a large-diameter graph has hundreds to thousands of levels, and
a planned product per level has a fixed cost):

* **push** levels run in one sequential Numba loop: each frontier vertex's out-edges (CSR
  of ``A``) visit the unvisited neighbours, appended to the next frontier; a level whose
  frontier has :data:`PUSH_PARALLEL_EDGES` out-edges or more runs on every thread
  instead, the frontier cut into blocks of equal out-edges, each block claiming unvisited
  neighbours into its own buffer (two blocks may claim the same vertex: one pass after
  them keeps it once); with parents, a block also records a claimed vertex again for a
  smaller frontier vertex than the one it read, and the pass keeps the least record;
* a **pull** level (a heavy frontier, Beamer's switch: the frontier's out-edges above the
  unvisited edges / ``alpha``) runs in parallel over vertex blocks: an unvisited vertex scans
  its in-edges (CSR of ``A'``) to the first in-neighbour on the previous level.  The push
  loop returns to its caller when it wants to pull, so the caller can build the transpose
  on demand or decline (``has_t=False`` keeps pushing).

Parents are the smallest-id in-neighbour on the previous level, the rule of the semiring
loop (``min.second``): a push keeps the smallest frontier vertex reaching each new vertex,
a pull meets the in-neighbours in increasing order.  A search with parents runs its
sequential push levels with level and parent packed in one int64 per vertex
(:mod:`.traversal_seq`: one load and a minimum per edge) up to its first level that
pulls or runs on several threads; the arrays below take over from there.

Kernel contract (registered as ``("bfs", "csr", "cpu", "levels")``):
``f(A: CSR, get_AT: callable or None, source, parents) -> (level int32, parent int64 or
None, stats)``, ``level[i] = -1`` where unreached; ``get_AT()`` returns the CSR of ``A'``
(None: never pull).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from ..registry import VecData, register
from .blocks import cost_bounds, num_threads, row_bounds, run_blocks
from .jitcache import jit
from .operands import uindex
from .prefetch import prefetcher
from .reached import SPARSE_RESULT_SHARE, gather_levels, sorted_ids, sparse_result
from .traversal_seq import (
    STATE_SLOTS,
    UNVISITED,
    gather_packed,
    packed_entries,
    packed_push,
    save_state,
    stop_here,
    unpack,
)

__all__ = ["ALPHA", "BETA", "PARENTS_PARALLEL_MIN_THREADS", "PUSH_PARALLEL_EDGES",
           "append_unvisited", "bfs_levels", "bfs_order"]

#: Push -> pull once the frontier's out-edges exceed the unvisited edges / ALPHA.
ALPHA = 14
#: Pull -> push once the frontier holds fewer than n / BETA vertices.
BETA = 24

#: A pull level runs on several threads from this many entries of ``A'`` on: it stops at
#: each vertex's first hit, so it reads far fewer entries than a product, and a parallel
#: region's start costs more than that below.
PULL_PARALLEL_ENTRIES = 1 << 20

#: A push level without parents runs on several threads from this many frontier
#: out-edges on (below it a parallel region's start costs more than it saves).
PUSH_PARALLEL_EDGES = 1 << 18

#: A search with parents runs its push levels on several threads (by default) only from
#: this many threads on: on 2 threads its sequential levels with packed entries took
#: less time than the parallel levels at every size (Kronecker 16 to 20, ego-Twitter:
#: 5-40% less, more on a loaded machine).
PARENTS_PARALLEL_MIN_THREADS = 3

# state slots shared by the compiled loops (here and in traversal_seq) and their caller:
# the frontier is ``order[head:tail]`` (each level appended after the one before it)
_DEPTH, _HEAD, _TAIL, _MF, _MU, _WANT_PULL, _WANT_PAR = STATE_SLOTS
#: a vertex claimed by a parallel push level, before the pass that appends it once
_CLAIMED = -2
_INT32_MAX = int(np.iinfo(np.int32).max)
#: the parent array a search without parents passes (never read or written)
_NO_PARENTS = np.full(1, -1, dtype=np.int64)


@jit()
def _push_levels(ptr, idx, level, parent, order, state, alpha, beta, allow_pull,
                 par_edges):
    """Push levels from the frontier ``order[state[_HEAD]:state[_TAIL]]``, appending each
    new level after it, until the search ends (an empty frontier), a level should pull
    (``state[_WANT_PULL] = 1``) or should run on several threads (its frontier has
    ``par_edges`` out-edges or more, ``par_edges > 0``: ``state[_WANT_PAR] = 1``).
    ``parent``: None without parents (a type of its own: the search without them is
    compiled without their branches)."""
    n = level.size
    depth = state[_DEPTH]
    head = state[_HEAD]
    tail = state[_TAIL]
    m_f = state[_MF]
    m_u = state[_MU]
    count = allow_pull or par_edges > 0
    while tail > head:
        if stop_here(state, n, head, tail, m_f, m_u, alpha, beta, allow_pull, par_edges):
            break
        depth += 1
        end = tail
        edges = 0
        for q in range(head, end):
            k = order[q]
            for p in range(ptr[k], ptr[k + 1]):
                j = idx[p]
                lv = level[j]
                if lv < 0:
                    level[j] = depth
                    order[tail] = j
                    tail += 1
                    if count:  # the switches' edge count: a read of ptr per vertex
                        edges += np.int64(ptr[j + 1]) - np.int64(ptr[j])
                    if parent is not None:
                        parent[j] = k
                elif parent is not None:
                    if lv == depth and k < parent[j]:
                        parent[j] = k
        m_u -= edges
        m_f = edges
        head = end
    save_state(state, depth, head, tail, m_f, m_u)


#: A push-only search without parents stores each visit through a select instead of a
#: branch when the graph has at most this many entries per vertex: few neighbours are
#: visited already there, so the visited test's branch mispredicts often (25-35% less
#: time on road, mesh and peer-to-peer graphs), while on denser graphs most tests find a
#: visited vertex, a branch predicts well and the extra stores cost more.
SELECT_MAX_DEGREE = 8


@jit()
def _push_search(ptr, idx, source, select, vectors, order):
    """A whole push-only search without parents on one thread, in one compiled call (a
    small graph's search takes a few microseconds: the allocations, the calls and the
    pass to the Vector's form each cost as much).  ``select``: every neighbour's level is
    stored (itself, or ``depth`` when unvisited) and appended at the queue's tail, which
    moves on only for a new vertex; else a branch on the visited test.  ``order``: the
    queue of every level, ``n + 1`` slots (one more for the select's store after the
    last vertex), touched only as far as the search goes.  Returns (level int32, the
    levels as int64 and their flags when ``vectors``, else empty; the sorted reached ids
    when the levels are those of the reached only (:func:`.reached.sparse_result`),
    else empty; the depth, the vertices reached)."""
    n = ptr.size - 1
    level = np.full(n, -1, dtype=np.int32)
    level[source] = 0
    order[0] = source
    head = 0
    tail = 1
    depth = 0
    while tail > head:
        depth += 1
        end = tail
        for q in range(head, end):
            k = order[q]
            for p in range(ptr[k], ptr[k + 1]):
                j = idx[p]
                lv = level[j]
                if select:
                    new = lv < 0
                    level[j] = depth if new else lv
                    order[tail] = j
                    tail += new
                elif lv < 0:
                    level[j] = depth
                    order[tail] = j
                    tail += 1
        head = end
    ids = np.empty(0, dtype=np.int64)
    if vectors and tail * SPARSE_RESULT_SHARE < n:
        ids = sorted_ids(order, tail, n)
        val, present = gather_levels(level, ids), np.empty(0, dtype=np.bool_)
    elif vectors:
        val, present = _reached_entries(level)
    else:
        val, present = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.bool_)
    return level, val, present, ids, depth, tail


@jit()
def _claim_block(b, bounds, offsets, ptr, idx, level, order, found, counts, found_k):
    """Block ``b`` of a parallel push level: its frontier vertices' unvisited
    out-neighbours, claimed into ``found`` from ``offsets[b]``.  Without parents
    (``found_k`` None) a claim stores ``_CLAIMED``.  With them, a claim by frontier vertex
    ``k`` stores ``k - n - 3`` (below every level and -1) and records ``k`` in ``found_k``;
    a vertex already claimed in this level by a larger vertex (as read) is claimed again,
    recorded again.  The stores are plain: a record is kept for every value stored, so the
    least frontier vertex reaching a vertex is among its records whatever the race."""
    c = offsets[b]
    shift = level.size + 3
    for q in range(bounds[b], bounds[b + 1]):
        k = order[q]
        for p in range(ptr[k], ptr[k + 1]):
            j = idx[p]
            lv = level[j]
            if found_k is None:
                if lv == -1:
                    level[j] = _CLAIMED
                    found[c] = j
                    c += 1
            elif lv == -1 or (lv < -1 and k - shift < lv):
                level[j] = k - shift
                found[c] = j
                found_k[c] = k
                c += 1
    counts[b] = c - offsets[b]


@jit(parallel=True)
def _claim_blocks(bounds, offsets, ptr, idx, level, order, found, counts, found_k):
    for b in prange(bounds.size - 1):
        _claim_block(b, bounds, offsets, ptr, idx, level, order, found, counts, found_k)


@jit()
def _append_claimed(ptr, level, order, tail, depth, offsets, found, counts, found_k,
                    parent):
    """Append each claimed vertex once (a vertex two blocks claimed is in both buffers)
    at level ``depth``, with parents the least of its records (``found_k`` not None, see
    :func:`_claim_block`); returns (the new tail, the new frontier's out-edges)."""
    edges = 0
    for b in range(counts.size):
        for c in range(offsets[b], offsets[b] + counts[b]):
            j = found[c]
            if level[j] < -1:  # claimed in this level (_CLAIMED or a parent's code)
                level[j] = depth
                order[tail] = j
                tail += 1
                edges += np.int64(ptr[j + 1]) - np.int64(ptr[j])
                if found_k is not None:
                    parent[j] = found_k[c]
            elif found_k is not None and found_k[c] < parent[j]:
                parent[j] = found_k[c]  # another record of a vertex of this level
    return tail, edges


def _parallel_push_level(ptr, idx, level, order, state, threads: int, parent=None) -> None:
    """One push level on ``threads`` threads from the frontier of ``state``, which it
    advances as :func:`_push_levels` would (``parent``: the parents, or None)."""
    head, end = int(state[_HEAD]), int(state[_TAIL])
    depth = int(state[_DEPTH]) + 1
    # blocks of the frontier of about equal out-edges, each block's buffer holding as
    # many slots as its out-edges
    frontier = order[head:end]
    edges = ptr[frontier + 1].astype(np.int64) - ptr[frontier].astype(np.int64)
    rel = cost_bounds(edges, parts=threads)
    offsets = np.concatenate(([0], np.cumsum(edges)))[rel]
    bounds = head + rel
    found = np.empty(int(offsets[-1]), dtype=order.dtype)
    found_k = None if parent is None else np.empty(found.size, dtype=order.dtype)
    counts = np.zeros(rel.size - 1, dtype=np.int64)
    _claim_blocks(bounds, offsets, ptr, idx, level, order, found, counts, found_k)
    tail, edges = _append_claimed(ptr, level, order, end, depth, offsets, found, counts,
                                  found_k, parent)
    state[_DEPTH] = depth
    state[_HEAD] = end
    state[_TAIL] = tail
    state[_MU] -= edges
    state[_MF] = edges


@jit()
def _pull_rows(lo, hi, ptrT, idxT, level, parent, track, depth):
    """Unvisited vertices of ``[lo, hi)`` with an in-neighbour on level ``depth - 1``."""
    prev = depth - 1
    for i in range(lo, hi):
        if level[i] >= 0:
            continue
        for p in range(ptrT[i], ptrT[i + 1]):
            k = idxT[p]
            if level[k] == prev:
                level[i] = depth
                if track:
                    parent[i] = k
                break


@jit()
def _collect(ptr, level, depth, out, tail):
    """Append the vertices on level ``depth`` to ``out`` from ``tail`` on; returns (their
    count, their out-edges)."""
    cnt = 0
    edges = 0
    for i in range(level.size):
        if level[i] == depth:
            out[tail + cnt] = i
            cnt += 1
            edges += np.int64(ptr[i + 1]) - np.int64(ptr[i])
    return cnt, edges


@register("bfs", "csr", "cpu", "levels")
def bfs_levels(A: Any, get_AT, source: int, parents: bool,
               parallel_edges: int | None = None, *,
               vectors: bool = False) -> tuple[Any, Any, dict]:
    """Levels (and parents) of a BFS from ``source``.

    Parameters
    ----------
    A : CSR
        The adjacency matrix (row i lists the j of edges i -> j).
    get_AT : callable or None
        Returns the CSR of ``A'`` when a level wants to pull (called at most once); None
        keeps every level a push.
    source : int
        The start vertex.
    parents : bool
        Also return each reached vertex's smallest parent on the previous level.
    parallel_edges : int, optional
        Push levels with this many frontier out-edges or more run on several threads
        (default :data:`PUSH_PARALLEL_EDGES`, with parents only from
        :data:`PARENTS_PARALLEL_MIN_THREADS` threads on; never on one thread).
    vectors : bool, default False
        Return the levels and parents as dense :class:`VecData` of int64 with the reached
        vertices present, the form a Vector takes (one pass instead of NumPy's two).

    Returns
    -------
    level : ndarray of int32
        The level of each vertex, -1 where unreached.
    parent : ndarray of int64 or None
        Each reached vertex's parent (the source its own).
    stats : dict
        ``levels``, ``push`` and ``pull`` level counts (``parallel``: the push levels
        run on several threads; ``packed``: with parents, the first push levels, run
        on one thread with packed entries), ``reached`` the vertices reached.
    """
    n = int(A.shape[0])
    ptr, idx = uindex(A.indptr), uindex(A.indices)
    nnz = int(A.indices.size)
    # levels on several threads only where a level can have that many out-edges (the
    # count costs a read per vertex)
    par_edges = PUSH_PARALLEL_EDGES if parallel_edges is None else max(1, parallel_edges)
    # (with parents, a claimed vertex's level holds k - n - 3 in 32 bits)
    threads = num_threads() if nnz >= par_edges and (
        not parents or n <= _INT32_MAX - 3) else 1
    if parents and parallel_edges is None and threads < PARENTS_PARALLEL_MIN_THREADS:
        threads = 1  # the packed sequential levels take less time than a parallel level
    select = nnz <= SELECT_MAX_DEGREE * n
    if get_AT is None and not parents and (select or threads == 1):
        queue = np.empty(n + 1, dtype=np.int32 if n < _INT32_MAX else np.int64)
        level, val, present, ids, depth, tail = _push_search(ptr, idx, source, select,
                                                             vectors, queue)
        stats = {"levels": max(depth - 1, 0), "push": depth, "pull": 0, "reached": tail}
        if select:
            stats["store"] = "select"
        if not vectors:
            return level, None, stats
        if ids.size:
            return VecData(n, ids, val, None), None, stats
        return VecData(n, None, val, present), None, stats
    # the queue of every level, touched only as far as the search goes (one slot more
    # for the select's store after the last vertex)
    order = np.empty(n + 1, dtype=np.int32 if n < _INT32_MAX else np.int64)
    order[0] = source
    state = np.array([0, 0, 1, 0, nnz, 0, 0], dtype=np.int64)
    stats = {"levels": 0, "push": 0, "pull": 0}
    AT = None
    if threads == 1:
        par_edges = 0
    if parents and n <= _INT32_MAX:
        # the sequential levels with level and parent in one entry per vertex (one load
        # and a min per edge), up to a level that pulls or runs on several threads
        entry = np.full(n, UNVISITED, dtype=np.int64)
        entry[source] = source
        packed_push(ptr, idx, entry, order, state, ALPHA, BETA, get_AT is not None,
                    par_edges, select)
        stats["push"] = stats["packed"] = int(state[_DEPTH])
        if state[_TAIL] == state[_HEAD]:
            stats["levels"] = max(int(state[_DEPTH]) - 1, 0)
            stats["reached"] = int(state[_TAIL])
            if not vectors:
                level, parent = unpack(entry)
                return level, parent, stats
            if sparse_result(stats["reached"], n):
                ids = sorted_ids(order, stats["reached"], n)
                val, par = gather_packed(entry, ids)
                return VecData(n, ids, val, None), VecData(n, ids.copy(), par, None), stats
            val, par, present, present_p = packed_entries(entry)
            return VecData(n, None, val, present), VecData(n, None, par, present_p), stats
        level, parent = unpack(entry)
    else:
        level = np.full(n, -1, dtype=np.int32)
        parent = np.full(n, -1, dtype=np.int64) if parents else _NO_PARENTS
        level[source] = 0
        if parents:
            parent[source] = source
    while True:
        depth0 = int(state[_DEPTH])
        _push_levels(ptr, idx, level, parent if parents else None, order, state, ALPHA,
                     BETA, get_AT is not None, par_edges)
        stats["push"] += int(state[_DEPTH]) - depth0
        if state[_TAIL] == state[_HEAD]:
            break
        if state[_WANT_PAR]:
            state[_WANT_PAR] = 0
            _parallel_push_level(ptr, idx, level, order, state, threads,
                                 parent if parents else None)
            stats["push"] += 1
            stats["parallel"] = stats.get("parallel", 0) + 1
            if state[_TAIL] == state[_HEAD]:
                break
            continue
        # a pull level, then back to pushing (which tests the switch again)
        state[_WANT_PULL] = 0
        if AT is None:
            AT = get_AT()
            ptrT, idxT = uindex(AT.indptr), uindex(AT.indices)
            nnz_t = int(AT.indices.size)
            bounds = row_bounds(ptrT, nnz_t, parallel=nnz_t >= PULL_PARALLEL_ENTRIES)
        depth = int(state[_DEPTH]) + 1
        while True:
            run_blocks(_pull_rows, bounds, ptrT, idxT, level, parent, parents, depth)
            tail = int(state[_TAIL])
            cnt, edges = _collect(ptr, level, depth, order, tail)
            stats["pull"] += 1
            state[_DEPTH] = depth
            state[_HEAD] = tail
            state[_TAIL] = tail + cnt
            state[_MU] -= edges
            state[_MF] = edges
            if cnt == 0 or cnt * BETA < n:
                break
            depth += 1
        if state[_TAIL] == state[_HEAD]:
            break
    stats["levels"] = int(state[_DEPTH]) - (1 if stats["push"] + stats["pull"] else 0)
    return _result(level, parent if parents else None, order, state, stats, vectors)


def _result(level, parent, order, state, stats: dict, vectors: bool) -> tuple[Any, Any, dict]:
    """The search's outputs, as arrays or (``vectors``) as VecData of the reached
    (sparse when few: :func:`.reached.sparse_result`; ``order`` lists them)."""
    stats["reached"] = reached = int(state[_TAIL])
    if not vectors:
        return level, parent, stats
    n = level.size
    if sparse_result(reached, n):
        ids = sorted_ids(order, reached, n)
        return (VecData(n, ids, gather_levels(level, ids), None),
                None if parent is None else VecData(n, ids.copy(),
                                                     gather_levels(parent, ids), None),
                stats)
    val, present = _reached_entries(level)
    return (VecData(n, None, val, present),
            None if parent is None else VecData(n, None, parent, present.copy()), stats)


@jit()
def _reached_entries(level):
    """The levels as int64 and the reached flags, in one pass over ``level``."""
    n = level.size
    val = np.empty(n, dtype=np.int64)
    present = np.empty(n, dtype=np.bool_)
    for i in range(n):
        lv = level[i]
        val[i] = lv
        present[i] = lv >= 0
    return val, present


@jit(inline="always")
def append_unvisited(ptr, idx, u, mark, value, order, tail):
    """Append ``u``'s unvisited neighbours (``ptr``/``idx`` row ``u``; unvisited:
    ``mark[v] < 0``) to ``order`` from ``tail`` on, in index order, setting their ``mark``
    to ``value``; returns the new tail.

    Examples
    --------
    >>> mark = np.array([0, -1, -1]); order = np.array([0, 0, 0])
    >>> append_unvisited(np.array([0, 2, 2, 2]), np.array([1, 2]), 0, mark, 7, order, 1)
    3
    >>> mark.tolist(), order.tolist()
    ([0, 7, 7], [0, 1, 2])
    """
    for p in range(ptr[u], ptr[u + 1]):
        v = idx[p]
        if mark[v] < 0:
            mark[v] = value
            order[tail] = v
            tail += 1
    return tail


prefetch = prefetcher()
#: The queue search asks for the row start of the vertex this many places ahead in the
#: queue, and for the first edges of the one half as far (its row start asked before):
#: their lines come in while the vertices before them run.  On the 2-core machine
#: (``benchmarks/results/queue_order_cpu.md``) luxembourg-osm 1.36 -> 1.24 ms, delaunay-n16
#: 1.37 -> 1.31 ms; graphs under ``QUEUE_AHEAD_MIN_VERTICES`` vertices lost 4-7%.
QUEUE_AHEAD = 16
#: Vertices from which the queue search reads ahead.
QUEUE_AHEAD_MIN_VERTICES = 1 << 15


@jit()
def _queue_order(ptr, idx, start, order, pred, ahead):
    """A queue BFS: each dequeued vertex appends its unvisited out-neighbours in index
    order; returns the vertices reached.  ``ahead``: ask for the row start of the vertex
    :data:`QUEUE_AHEAD` places further in the queue and for the first edges of the one
    half as far.  (Written out here: as a helper function, inlined or not, the same
    requests made the search slower, not faster; with the undirected search's branch in
    its loop it took 12% longer on luxembourg-osm.)"""
    order[0] = start
    pred[start] = start  # marks it visited; reset by the caller
    head = 0
    tail = 1
    last = np.int64(idx.size) - 1
    while head < tail:
        if ahead:
            if head + QUEUE_AHEAD < tail:
                prefetch(ptr, order[head + QUEUE_AHEAD])
            if head + QUEUE_AHEAD // 2 < tail and last >= 0:
                prefetch(idx, min(np.int64(ptr[order[head + QUEUE_AHEAD // 2]]), last))
        u = order[head]
        head += 1
        tail = append_unvisited(ptr, idx, u, pred, u, order, tail)
    return tail


@jit()
def _queue_order_both_ways(ptr, idx, ptrT, idxT, start, order, pred, ahead):
    """:func:`_queue_order` following the in-edges (rows of ``ptrT``/``idxT``) after the
    out-edges of each vertex."""
    order[0] = start
    pred[start] = start
    head = 0
    tail = 1
    last, last_t = np.int64(idx.size) - 1, np.int64(idxT.size) - 1
    while head < tail:
        if ahead:
            if head + QUEUE_AHEAD < tail:
                w = order[head + QUEUE_AHEAD]
                prefetch(ptr, w)
                prefetch(ptrT, w)
            if head + QUEUE_AHEAD // 2 < tail:
                w = order[head + QUEUE_AHEAD // 2]
                if last >= 0:
                    prefetch(idx, min(np.int64(ptr[w]), last))
                if last_t >= 0:
                    prefetch(idxT, min(np.int64(ptrT[w]), last_t))
        u = order[head]
        head += 1
        tail = append_unvisited(ptr, idx, u, pred, u, order, tail)
        tail = append_unvisited(ptrT, idxT, u, pred, u, order, tail)
    return tail


@register("bfs_order", "csr", "cpu")
def bfs_order(A: Any, AT: Any, start: int, none: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """SciPy's ``breadth_first_order``: the visit order and each vertex's predecessor.

    Parameters
    ----------
    A : CSR
        The graph (row i lists the j of edges i -> j, indices sorted).
    AT : CSR or None
        Its transpose for an undirected search (in-edges are followed after out-edges);
        None for a directed one.
    start : int
        The first vertex.
    none : int, default -1
        The predecessor of the start and of unreached vertices (negative: it also marks
        a vertex unvisited during the search; SciPy's is -9999).

    Returns
    -------
    order : ndarray of int32 (int64 from 2**31 vertices)
        The vertices in the order they were reached.
    pred : ndarray, the dtype of ``order``
        Each reached vertex's predecessor, ``none`` for the start and unreached vertices.

    Examples
    --------
    >>> from gblas.formats.csr import CSR
    >>> A = CSR.from_coo(np.array([0, 0, 2]), np.array([2, 1, 3]), None, (4, 4),
    ...                  iso_value=True)
    >>> order, pred = bfs_order(A, None, 0, none=-9999)
    >>> order.tolist(), pred.tolist(), order.dtype.name
    ([0, 1, 2, 3], [-9999, 0, 0, 2], 'int32')
    """
    if none >= 0:
        raise ValueError(f"bfs_order: none must be negative, got {none}")
    n = int(A.shape[0])
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    order = np.empty(max(n, 1), dtype=dt)
    pred = np.full(n, none, dtype=dt)
    ptr, idx = uindex(A.indptr), uindex(A.indices)
    ahead = n >= QUEUE_AHEAD_MIN_VERTICES
    if AT is None:
        count = _queue_order(ptr, idx, np.int64(start), order, pred, ahead)
    else:
        count = _queue_order_both_ways(ptr, idx, uindex(AT.indptr), uindex(AT.indices),
                                       np.int64(start), order, pred, ahead)
    pred[start] = none
    return order[:count], pred
