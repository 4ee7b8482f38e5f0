"""Shortest paths by label setting (CPU, Numba): a binary-heap Dijkstra per source.

The (min, +) products of :mod:`gblas.algorithms.sssp` relax a whole frontier per call, so
their cost is a fixed overhead per step times the number of steps, and the steps follow
the graph's depth in hops: a road network ~1000 hops deep takes thousands of products
where a heap settles each vertex once.  Here every source runs Dijkstra's algorithm with
an indexed binary heap (decrease-key through a position array): ``O((m + n) log n)`` per
source, sources in parallel (``prange``) when there are several.

Distances are those of any label-correcting method (the least fixed point of
``d(v) = min_u d(u) + w(u, v)`` in floating point, the same numbers as SciPy's);
predecessors are the vertex whose relaxation last lowered a distance (a valid
shortest-path tree).  Weights must be ``>= 0`` (the caller checks); ``inf`` weights never
make a path.  :func:`bfs_depth` is the planner's probe: the depth in hops and the number
of vertices reached from one source, in ``O(n + m)``.

Examples
--------
>>> import numpy as np
>>> indptr, indices = np.array([0, 2, 3, 3]), np.array([1, 2, 2])
>>> d, p = dijkstra(indptr, indices, np.array([4.0, 1.0, 1.0]), np.array([0]))
>>> d.tolist(), p.tolist()
([[0.0, 4.0, 1.0]], [[-9999, 0, 0]])
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .jitcache import jit
from .operands import uindex
from .traversal import append_unvisited

__all__ = ["dijkstra", "bfs_depth", "NULL"]

#: SciPy's "no predecessor".
NULL = -9999


_NEVER = np.uint64(np.iinfo(np.uint64).max)
_SETTLED = np.uint64(np.iinfo(np.uint64).max - 1)


@jit(inline="always")
def _place(heap, pos, i, v):
    """Put vertex ``v`` in heap slot ``i``."""
    heap[i] = v
    pos[v] = i


@jit()
def _sift_up(heap, pos, key, i):
    v = heap[i]
    kv = key[v]
    one = np.uint64(1)
    while i > 0:
        parent = (i - one) >> one
        u = heap[parent]
        if key[u] <= kv:
            break
        _place(heap, pos, i, u)
        i = parent
    _place(heap, pos, i, v)


@jit()
def _sift_down(heap, pos, key, size, i):
    v = heap[i]
    kv = key[v]
    one = np.uint64(1)
    while True:
        c = i + i + one
        if c >= size:
            break
        r = c + one
        if r < size and key[heap[r]] < key[heap[c]]:
            c = r
        u = heap[c]
        if key[u] >= kv:
            break
        _place(heap, pos, i, u)
        i = c
    _place(heap, pos, i, v)


@jit()
def _one_source(indptr, indices, weights, s, limit, dist, pred):
    """Dijkstra from ``s`` into the rows ``dist`` (all ``inf``) and ``pred`` (``NULL``).

    ``indptr`` and ``indices`` are unsigned (no wrap-around checks on the hot reads)."""
    n = dist.shape[0]
    heap = np.empty(n, np.uint64)
    # SETTLED: settled, NEVER: never queued, else the heap slot
    pos = np.full(n, _NEVER, np.uint64)
    dist[s] = 0.0
    heap[0] = s
    pos[s] = 0
    size = np.uint64(1)
    one = np.uint64(1)
    while size > 0:
        u = heap[0]
        pos[u] = _SETTLED
        size -= one
        if size > 0:
            last = heap[size]
            heap[0] = last
            pos[last] = 0
            _sift_down(heap, pos, dist, size, np.uint64(0))
        du = dist[u]
        for p in range(indptr[u], indptr[u + one]):
            v = indices[p]
            pv = pos[v]
            if pv == _SETTLED:
                continue
            nd = du + weights[p]
            if nd < dist[v] and nd <= limit:
                dist[v] = nd
                pred[v] = u
                if pv == _NEVER:
                    heap[size] = v
                    pv = size
                    size += one
                _sift_up(heap, pos, dist, pv)


@jit()
def _many_seq(indptr, indices, weights, sources, limit, dist, pred):
    for b in range(sources.shape[0]):
        _one_source(indptr, indices, weights, sources[b], limit, dist[b], pred[b])


@jit(parallel=True)
def _many_par(indptr, indices, weights, sources, limit, dist, pred):
    for b in prange(sources.shape[0]):
        _one_source(indptr, indices, weights, sources[b], limit, dist[b], pred[b])


def dijkstra(indptr, indices, weights, sources, limit: float = np.inf):
    """Distances and predecessors from every source (CSR rows = out-edges, weights >= 0).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The graph's CSR pattern (row ``u`` lists the heads of ``u``'s out-edges).
    weights : numpy.ndarray of float64
        One weight per entry, ``>= 0`` (not checked here).
    sources : numpy.ndarray of int
        Source vertices.
    limit : float, default inf
        Distances above it are not recorded (``inf``, no predecessor).

    Returns
    -------
    dist : float64 array of shape ``(len(sources), n)``
        ``inf`` where unreached.
    pred : int32 array of the same shape
        ``NULL`` (-9999) for the sources and the unreached vertices.

    Examples
    --------
    >>> import numpy as np
    >>> d, p = dijkstra(np.array([0, 1, 1]), np.array([1]), np.array([2.0]),
    ...                 np.array([1, 0]))
    >>> d.tolist()
    [[inf, 0.0], [0.0, 2.0]]
    """
    n = indptr.shape[0] - 1
    src = np.ascontiguousarray(sources, dtype=np.int64)
    k = src.shape[0]
    dist = np.full((k, n), np.inf)
    pred = np.full((k, n), NULL, dtype=np.int32)
    if k == 0 or n == 0:
        return dist, pred
    w = np.ascontiguousarray(weights, dtype=np.float64)
    par = k > 1 and numba.get_num_threads() > 1
    (_many_par if par else _many_seq)(uindex(indptr), uindex(indices), w,
                                      src.view(np.uint64), float(limit), dist, pred)
    return dist, pred


@jit()
def _bfs_depth(indptr, indices, s, n):
    level = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    level[s] = 0
    queue[0] = s
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        tail = append_unvisited(indptr, indices, u, level, level[u] + 1, queue, tail)
    return level[queue[tail - 1]], tail


def bfs_depth(indptr, indices, source: int) -> tuple[int, int]:
    """``(depth, reached)``: the largest BFS level from ``source`` (in hops) and the number
    of vertices reached, including the source.

    Examples
    --------
    >>> import numpy as np
    >>> bfs_depth(np.array([0, 1, 2, 2]), np.array([1, 2]), 0)
    (2, 3)
    """
    n = indptr.shape[0] - 1
    d, r = _bfs_depth(uindex(indptr), uindex(indices), int(source), n)
    return int(d), int(r)


def _register() -> None:
    from ..registry import register

    register("sssp", "csr", "cpu", "heap")(dijkstra)
    register("bfs_depth", "csr", "cpu")(bfs_depth)


_register()
