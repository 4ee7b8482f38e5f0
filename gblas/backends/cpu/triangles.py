"""CPU triangle count in compiled passes over the CSR of ``A`` and of ``A^T``.

The undirected simple graph ``S = pattern(A + A^T)`` without the diagonal is merged row
by row from the two sorted patterns, each edge oriented from its end of lower
``(degree, id)`` to the higher one (out-degrees stay below ``sqrt(2m)``), and every
oriented edge ``u -> v`` closes ``|N+(u) & N+(v)|`` triangles, counted by a merge of the
two sorted lists: each triangle once, at its lowest vertex.  Three parallel passes over
the rows (degrees, orientation, counts); O(m^1.5) work at most.

Kernel contract (registered as ``("triangle_count", "csr", "cpu")``):
``f(A: CSR, AT: CSR) -> int``, ``AT`` the CSR of ``A^T`` (``A`` itself when symmetric).

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
from .jitcache import jit

__all__ = ["triangle_count"]


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
def _orient(ap, ai, tp, ti, deg, optr, oidx, count_only):
    n = deg.size
    for u in prange(n):
        c = 0
        at = optr[u]
        p, q = ap[u], tp[u]
        while True:
            v, p, q = _next(ap, ai, tp, ti, p, q, u)
            if v < 0:
                break
            if v != u and _before(deg, u, v):
                if not count_only:
                    oidx[at + c] = v
                c += 1
        if count_only:
            optr[u + 1] = c


@jit(parallel=True)
def _count(optr, oidx, per_vertex):
    for u in prange(per_vertex.size):
        c = 0
        for e in range(optr[u], optr[u + 1]):
            v = oidx[e]
            a, ae = optr[u], optr[u + 1]
            b, be = optr[v], optr[v + 1]
            while a < ae and b < be:
                x, y = oidx[a], oidx[b]
                if x < y:
                    a += 1
                elif y < x:
                    b += 1
                else:
                    c += 1
                    a += 1
                    b += 1
        per_vertex[u] = c


@register("triangle_count", "csr", "cpu")
def triangle_count(A: Any, AT: Any) -> int:
    """Triangles of the undirected graph of ``A`` (``AT``: the CSR of its transpose)."""
    n = A.shape[0]
    ap, ai = A.indptr.astype(np.int64, copy=False), A.indices
    tp, ti = AT.indptr.astype(np.int64, copy=False), AT.indices
    deg = np.empty(n, np.int64)
    _degrees(ap, ai, tp, ti, deg)
    optr = np.zeros(n + 1, np.int64)
    scratch = np.empty(0, np.int64)
    _orient(ap, ai, tp, ti, deg, optr, scratch, True)
    np.cumsum(optr, out=optr)
    oidx = np.empty(int(optr[n]), np.int64)
    _orient(ap, ai, tp, ti, deg, optr, oidx, False)
    per_vertex = np.empty(n, np.int64)
    _count(optr, oidx, per_vertex)
    return int(per_vertex.sum())
