"""Brandes' betweenness by one search per source (CPU, Numba): vertex and edge scores,
unweighted (BFS) or weighted (Dijkstra), sources in parallel.

Each source runs the search NetworkX runs (``_single_source_shortest_path_basic`` and
``_single_source_dijkstra_path_basic``) with the same decisions, so the predecessor sets
and the path counts are NetworkX's also where floating point makes two path lengths
almost equal:

* BFS: ``w`` is a successor of ``v`` on a shortest path iff ``D[w] == D[v] + 1``; the
  stack is the queue order.
* Dijkstra: a vertex is settled in the order of its key ``(distance, push stamp)``, the
  order of NetworkX's heap of ``(distance, counter, pred, v)`` tuples (the stamp counts
  the pushes, and a lower distance found for a queued vertex pushes it again: here its
  key decreases in an indexed heap); an edge ``v -> w`` with ``d(v) + w(v, w)`` below
  the tentative distance of an unsettled ``w`` resets ``w``'s predecessors to ``v``;
  ``d(v) + w(v, w) == `` the tentative (or final) distance appends ``v``, compared
  exactly in floating point, as NetworkX compares them.  The path count of a settled
  vertex adds that of the vertex that last lowered its distance when it leaves the heap
  (NetworkX's ``sigma[v] += sigma[pred]``, which doubles the source's count: every
  count is doubled and the ratios are unchanged).

The dependencies are then accumulated in reverse settling order
(``delta[v] += sigma[v] / sigma[w] * (1 + delta[w])`` over the predecessor edges of
``w``), into the vertex scores (``endpoints`` adds NetworkX's endpoint terms) and, when
asked, into one score per adjacency entry (the edge ``v -> w`` at its CSR position).

Predecessors are kept as linked lists through the CSR positions of the edges that
reached a vertex (``head[w]``, ``nxt[p]``): one ``int64`` per entry per thread, no
allocation per source.  Sources are split into one contiguous chunk per thread; each
thread keeps its own scratch and partial scores, summed at the end.

Examples
--------
>>> import numpy as np
>>> indptr, indices = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])  # path 0 - 1 - 2
>>> bc, eb = brandes(indptr, indices, None, np.arange(3), edges=True)
>>> bc.tolist(), eb.tolist()
([0.0, 2.0, 0.0], [2.0, 2.0, 2.0, 2.0])
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .jitcache import jit

__all__ = ["brandes"]


@jit()
def _heap_less(dist, stamp, a, b):
    da = dist[a]
    db = dist[b]
    return da < db or (da == db and stamp[a] < stamp[b])


@jit()
def _heap_up(heap, pos, dist, stamp, i):
    v = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        u = heap[parent]
        if not _heap_less(dist, stamp, v, u):
            break
        heap[i] = u
        pos[u] = i
        i = parent
    heap[i] = v
    pos[v] = i


@jit()
def _heap_down(heap, pos, dist, stamp, size, i):
    v = heap[i]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        r = c + 1
        if r < size and _heap_less(dist, stamp, heap[r], heap[c]):
            c = r
        u = heap[c]
        if not _heap_less(dist, stamp, u, v):
            break
        heap[i] = u
        pos[u] = i
        i = c
    heap[i] = v
    pos[v] = i


@jit()
def _bfs(indptr, indices, s, dist, sigma, head, nxt, order):
    """NetworkX's BFS from ``s``; returns the number of vertices reached (``order``)."""
    dist[s] = 0.0
    sigma[s] = 1.0
    head[s] = -1
    order[0] = s
    front, tail = 0, 1
    while front < tail:
        v = order[front]
        front += 1
        dn = dist[v] + 1.0
        sv = sigma[v]
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if dist[w] < 0.0:
                dist[w] = dn
                head[w] = -1
                order[tail] = w
                tail += 1
            if dist[w] == dn:
                sigma[w] += sv
                nxt[p] = head[w]
                head[w] = p
    return tail


@jit()
def _dijkstra(indptr, indices, weights, s, dist, sigma, head, nxt, order, state, pred0,
              stamp, heap, pos):
    """NetworkX's Dijkstra from ``s`` (see the module notes); returns the number of
    vertices settled (``order``).  ``state``: 0 unseen, 1 queued, 2 settled."""
    count = 0
    dist[s] = 0.0
    sigma[s] = 1.0
    head[s] = -1
    pred0[s] = s
    stamp[s] = count
    count += 1
    state[s] = 1
    heap[0] = s
    pos[s] = 0
    size = 1
    done = 0
    while size > 0:
        v = heap[0]
        size -= 1
        if size > 0:
            heap[0] = heap[size]
            pos[heap[0]] = 0
            _heap_down(heap, pos, dist, stamp, size, 0)
        state[v] = 2
        sigma[v] += sigma[pred0[v]]
        order[done] = v
        done += 1
        dv = dist[v]
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            vw = dv + weights[p]
            sw = state[w]
            if sw != 2 and (sw == 0 or vw < dist[w]):
                dist[w] = vw
                stamp[w] = count
                count += 1
                pred0[w] = v
                sigma[w] = 0.0
                head[w] = p
                nxt[p] = -1
                if sw == 0:
                    state[w] = 1
                    heap[size] = w
                    size += 1
                    _heap_up(heap, pos, dist, stamp, size - 1)
                else:
                    _heap_up(heap, pos, dist, stamp, pos[w])
            elif sw != 0 and vw == dist[w]:
                sigma[w] += sigma[v]
                nxt[p] = head[w]
                head[w] = p
    return done


@jit()
def _accumulate(rowof, s, reached, sigma, delta, head, nxt, order, endpoints, edges, bc, eb):
    """Dependencies of one source into ``bc`` (vertices) and ``eb`` (entries)."""
    if endpoints:
        bc[s] += reached - 1
    for i in range(reached - 1, -1, -1):
        w = order[i]
        coeff = (1.0 + delta[w]) / sigma[w]
        p = head[w]
        while p >= 0:
            v = rowof[p]
            c = sigma[v] * coeff
            if edges:
                eb[p] += c
            delta[v] += c
            p = nxt[p]
        if w != s:
            if endpoints:
                bc[w] += delta[w] + 1.0
            else:
                bc[w] += delta[w]


@jit()
def _chunk(indptr, indices, weights, rowof, sources, lo, hi, weighted, endpoints, edges,
           bc, eb):
    n = indptr.shape[0] - 1
    nnz = indices.shape[0]
    dist = np.full(n, -1.0)
    sigma = np.zeros(n)
    delta = np.zeros(n)
    head = np.full(n, -1, np.int64)
    nxt = np.full(nnz, -1, np.int64)
    order = np.empty(n, np.int64)
    state = np.zeros(n if weighted else 0, np.int8)
    pred0 = np.zeros(n if weighted else 0, np.int64)
    stamp = np.zeros(n if weighted else 0, np.int64)
    heap = np.zeros(n if weighted else 0, np.int64)
    pos = np.zeros(n if weighted else 0, np.int64)
    for b in range(lo, hi):
        s = sources[b]
        if weighted:
            reached = _dijkstra(indptr, indices, weights, s, dist, sigma, head, nxt, order,
                                state, pred0, stamp, heap, pos)
        else:
            reached = _bfs(indptr, indices, s, dist, sigma, head, nxt, order)
        _accumulate(rowof, s, reached, sigma, delta, head, nxt, order, endpoints, edges,
                    bc, eb)
        for i in range(reached):
            v = order[i]
            dist[v] = -1.0
            sigma[v] = 0.0
            delta[v] = 0.0
            if weighted:
                state[v] = 0


@jit(parallel=True)
def _run(indptr, indices, weights, rowof, sources, bounds, weighted, endpoints, edges,
         bc, eb):
    for t in prange(bounds.shape[0] - 1):
        _chunk(indptr, indices, weights, rowof, sources, bounds[t], bounds[t + 1],
               weighted, endpoints, edges, bc[t], eb[t])


def brandes(indptr, indices, weights, sources, *, endpoints: bool = False,
            edges: bool = False, threads: int | None = None):
    """Unscaled Brandes sums over ``sources``: ``(vertex scores, entry scores)``.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The graph as CSR rows of out-neighbours, in the order NetworkX iterates them
        (``G[v]``); one entry per neighbour (no parallel entries).
    weights : numpy.ndarray of float64 or None
        One weight per entry (Dijkstra), or None for BFS (every edge 1).
    sources : numpy.ndarray of int
        The sources, in any order.
    endpoints : bool, default False
        Count the endpoints of the paths (NetworkX's ``endpoints=True``).
    edges : bool, default False
        Also return the score of every entry (``v -> w`` at its CSR position).
    threads : int, optional
        Chunks of sources run in parallel (default: Numba's thread count).

    Returns
    -------
    bc : numpy.ndarray of float64, shape ``(n,)``
        ``sum_s`` of the dependencies (NetworkX's sums before ``_rescale``).
    eb : numpy.ndarray of float64, shape ``(nnz,)``, or None
        With ``edges``: ``sum_s`` of the path fractions through each entry.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 2, 3, 4, 4]), np.array([1, 2, 3, 3])
    >>> w = np.array([1.0, 1.0, 1.0, 1.0])   # two shortest paths 0 -> 3
    >>> brandes(indptr, indices, w, np.arange(4))[0].tolist()
    [0.0, 0.5, 0.5, 0.0]
    """
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    n = indptr.shape[0] - 1
    nnz = indices.shape[0]
    src = np.ascontiguousarray(sources, dtype=np.int64)
    weighted = weights is not None
    w = (np.ascontiguousarray(weights, dtype=np.float64) if weighted
         else np.zeros(0, np.float64))
    t = numba.get_num_threads() if threads is None else int(threads)
    t = max(1, min(t, src.size))
    bounds = np.linspace(0, src.size, t + 1).astype(np.int64)
    bc = np.zeros((t, n))
    eb = np.zeros((t, nnz if edges else 0))
    if src.size and n:
        rowof = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        _run(indptr, indices, w, rowof, src, bounds, weighted, bool(endpoints), bool(edges),
             bc, eb)
    return bc.sum(axis=0), (eb.sum(axis=0) if edges else None)
