"""CPU triangle count in compiled passes over the CSR of ``A`` and of ``A^T``.

The undirected simple graph ``S = pattern(A + A^T)`` without the diagonal is merged row
by row from the two sorted patterns, each edge oriented from its end of lower
``(degree, id)`` to the higher one (out-degrees stay below ``sqrt(2m)``), and every
oriented edge ``u -> v`` closes ``|N+(u) & N+(v)|`` triangles, counted by a merge of the
two sorted lists: each triangle once, at its lowest vertex.  Three parallel passes over
the rows (degrees, orientation, counts); O(m^1.5) work at most.

The count marks ``N+(u)`` in a stamp array (``mark[w] = u + 1``, never cleared: each
vertex's stamp is its own) and walks each ``N+(v)``, ``v`` in ``N+(u)``, testing the
stamps: ``d+(u) + sum d+(v)`` reads per vertex, where a merge of the two lists reads
``u``'s list again for every ``v``.  The rows are cut into one block per
thread of equal work (``sum d+(v)``), each with its own stamp array; while the arrays
would pass :data:`MARK_BYTES` fewer blocks run.

Kernel contracts (registered as ``("triangle_count", "csr", "cpu")`` and
``("triangles", "csr", "cpu", "per_vertex")``): ``f(A: CSR, AT: CSR) -> int`` and
``f(A, AT) -> (triangles, degrees)`` per vertex, ``AT`` the CSR of ``A^T`` (``A`` itself
when symmetric).

Examples
--------
>>> import numpy as np
>>> from gblas.formats import CSR
>>> A = CSR.from_coo(np.array([0, 0, 1, 1, 2]), np.array([1, 2, 2, 3, 3]), None, (4, 4),
...                  iso_value=True)
>>> triangle_count(A, A.transpose())
2
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from ..registry import register
from .blocks import cost_bounds, num_threads
from .jitcache import jit

__all__ = ["MARK_BYTES", "triangle_count", "triangles_per_vertex"]

#: Most bytes of the count's stamp arrays (one int32 per vertex and block).
MARK_BYTES = 1 << 29


@jit(inline="always")
def _next(ap, ai, tp, ti, p, q, u):
    """The next neighbour of ``u`` in the merge of row ``u`` of A and of A^T from
    positions ``p``, ``q`` (-1 when both are done), and the positions after it."""
    pe, qe = ap[u + 1], tp[u + 1]
    if p < pe and (q >= qe or ai[p] <= ti[q]):
        v = np.int64(ai[p])
        p += 1
        if q < qe and np.int64(ti[q]) == v:
            q += 1
        return v, p, q
    if q < qe:
        return np.int64(ti[q]), p, q + 1
    return np.int64(-1), p, q


@jit(parallel=True)
def _degrees(ap, ai, tp, ti, deg):
    for u in prange(deg.size):
        c = 0
        p, q = ap[u], tp[u]
        while True:
            v, p, q = _next(ap, ai, tp, ti, p, q, u)
            if v < 0:
                break
            if v != u:
                c += 1
        deg[u] = c


@jit(inline="always")
def _before(deg, u, v):
    """Whether the edge ``u - v`` is oriented ``u -> v``: (degree, id) order."""
    return deg[u] < deg[v] or (deg[u] == deg[v] and u < v)


@jit(parallel=True)
def _orient(ap, ai, tp, ti, deg, start, slots, count):
    """Each vertex's oriented out-neighbours into its ``deg`` slots from ``start``
    (one merge of the rows of A and A^T), their number into ``count``."""
    for u in prange(deg.size):
        c = 0
        at = start[u]
        p, q = ap[u], tp[u]
        while True:
            v, p, q = _next(ap, ai, tp, ti, p, q, u)
            if v < 0:
                break
            if v != u and _before(deg, u, v):
                slots[at + c] = v
                c += 1
        count[u] = c


@jit(parallel=True)
def _compact(start, slots, optr, oidx):
    """The oriented rows from their slots into one CSR (``optr`` from the counts)."""
    for u in prange(optr.size - 1):
        a = start[u]
        for e in range(optr[u], optr[u + 1]):
            oidx[e] = slots[a + e - optr[u]]


@jit(parallel=True)
def _row_work(optr, oidx, work):
    """Each row's count work: ``d+(u) + sum d+(v)`` for ``v`` in ``N+(u)``."""
    for u in prange(work.size):
        c = optr[u + 1] - optr[u]
        for e in range(optr[u], optr[u + 1]):
            v = oidx[e]
            c += optr[v + 1] - optr[v]
        work[u] = c


@jit(parallel=True)
def _count(optr, oidx, bounds, marks, per_block, per_vertex, each):
    """Triangles of each block into ``per_block``; with ``each``, also every triangle
    ``u -> v -> w`` (closed by ``u -> w``) credited to its three vertices, in the block's
    own row of ``per_vertex``."""
    for b in prange(bounds.size - 1):
        mark = marks[b]
        t = per_vertex[b]
        c = 0
        for u in range(bounds[b], bounds[b + 1]):
            a, ae = optr[u], optr[u + 1]
            if ae - a < 2:  # a triangle at u needs two out-neighbours
                continue
            stamp = u + 1
            for e in range(a, ae):
                mark[oidx[e]] = stamp
            for e in range(a, ae):
                v = oidx[e]
                for f in range(optr[v], optr[v + 1]):
                    w = oidx[f]
                    if mark[w] == stamp:
                        c += 1
                        if each:
                            t[u] += 1
                            t[v] += 1
                            t[w] += 1
        per_block[b] = c


def _oriented(A: Any, AT: Any) -> tuple:
    """``(deg, optr, oidx)``: the undirected degrees and the graph oriented by
    ``(degree, id)``, its ids in 32 bits while they fit."""
    n = A.shape[0]
    ap, ai = A.indptr.astype(np.int64, copy=False), A.indices
    tp, ti = AT.indptr.astype(np.int64, copy=False), AT.indices
    deg = np.empty(n, np.int64)
    _degrees(ap, ai, tp, ti, deg)
    small = n < np.iinfo(np.int32).max - 1  # ids and stamps in 32 bits
    dt = np.int32 if small else np.int64
    # a vertex orients at most its degree's edges: slots from the degrees' prefix sums,
    # filled by one more merge (not one to count and one to fill), then compacted
    start = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=start[1:])
    slots = np.empty(int(start[n]), dt)
    optr = np.zeros(n + 1, np.int64)
    _orient(ap, ai, tp, ti, deg, start, slots, optr[1:])
    np.cumsum(optr, out=optr)
    oidx = np.empty(int(optr[n]), dt)
    _compact(start, slots, optr, oidx)
    return deg, optr, oidx


def _blocks(optr, oidx, n: int, bytes_per_vertex: int) -> tuple:
    """The count's blocks (one per thread, fewer while their arrays of
    ``bytes_per_vertex`` per vertex would pass :data:`MARK_BYTES`) and stamp arrays."""
    parts = max(1, min(num_threads(), MARK_BYTES // (bytes_per_vertex * max(n, 1))))
    work = np.empty(n, np.int64)
    _row_work(optr, oidx, work)
    bounds = cost_bounds(work, parts=parts)
    return bounds, np.zeros((bounds.size - 1, n), oidx.dtype)


@register("triangle_count", "csr", "cpu")
def triangle_count(A: Any, AT: Any) -> int:
    """Triangles of the undirected graph of ``A`` (``AT``: the CSR of its transpose)."""
    n = A.shape[0]
    _, optr, oidx = _oriented(A, AT)
    bounds, marks = _blocks(optr, oidx, n, oidx.itemsize)
    per_block = np.zeros(bounds.size - 1, np.int64)
    _count(optr, oidx, bounds, marks, per_block, np.zeros((bounds.size - 1, 0), np.int64),
           False)
    return int(per_block.sum())


@register("triangles", "csr", "cpu", "per_vertex")
def triangles_per_vertex(A: Any, AT: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(triangles, degrees)`` of every vertex of the undirected simple graph of ``A``
    (``AT``: the CSR of its transpose, or ``A``'s own when its pattern is symmetric), as
    int64 arrays; each triangle counts once at each of its three vertices.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 0, 1, 1, 2]), np.array([1, 2, 2, 3, 3]), None,
    ...                  (4, 4), iso_value=True)
    >>> t, d = triangles_per_vertex(A, A.transpose())
    >>> t.tolist(), d.tolist()
    ([1, 2, 2, 1], [2, 3, 3, 2])
    """
    n = A.shape[0]
    deg, optr, oidx = _oriented(A, AT)
    bounds, marks = _blocks(optr, oidx, n, oidx.itemsize + 8)
    per_vertex = np.zeros((bounds.size - 1, n), np.int64)
    _count(optr, oidx, bounds, marks, np.zeros(bounds.size - 1, np.int64), per_vertex, True)
    return per_vertex.sum(axis=0), deg
