"""Louvain community detection (CPU, Numba): the local-moving phase, the aggregation of
communities into vertices and the modularity of a partition, each making the decisions of
NetworkX's ``louvain_partitions`` (Blondel et al. 2008; directed modularity gain of
Dugué and Perez 2015), so that the same visiting order gives the same partition.

What is kept from NetworkX, and why it matters:

* A level's graph is a list of edges in NetworkX's ``G.edges()`` order and the adjacency
  built from it in insertion order (:func:`aggregate`): the neighbour communities of a
  vertex are tried in the order its neighbours appear there, and the first community
  with the largest gain wins (``gain > best``), so the order decides ties.
* The weights of parallel contributions are summed in the same sequence, and the gains
  are computed with the same floating-point operations in the same order (``m ** 2`` is
  computed by the caller, in Python, as NetworkX computes it).
* The vertex's own community, when none of its neighbours is in it, is tried last
  (NetworkX's ``defaultdict`` inserts it when the removal cost reads it).

The modularity (:func:`modularity`) sums in vertex order where NetworkX sums over Python
sets, so it can differ from NetworkX's in the last bits; it only decides whether a level's
gain exceeds the threshold.

Examples
--------
>>> import numpy as np
>>> src, dst = np.array([0, 0, 1, 2, 2, 3]), np.array([1, 2, 2, 3, 4, 4])
>>> g = aggregate(src, dst, np.ones(6), np.arange(5), 5, False)
>>> g.indptr.tolist(), g.indices.tolist()
([0, 2, 4, 8, 10, 12], [1, 2, 0, 2, 0, 1, 3, 4, 2, 4, 2, 3])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .jitcache import jit

__all__ = ["LevelGraph", "aggregate", "modularity", "move_nodes"]


@dataclass(frozen=True)
class LevelGraph:
    """One level's graph: ``k`` vertices; its edges in NetworkX's ``G.edges()`` order
    (``src``, ``dst``, ``weight``); the adjacency in insertion order as CSR
    (``indptr``, ``indices``, ``values``: the neighbours of an undirected graph, the
    successors of a directed one) and, directed, the predecessors (``pindptr``,
    ``pindices``, ``pvalues``)."""

    k: int
    directed: bool
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    pindptr: np.ndarray
    pindices: np.ndarray
    pvalues: np.ndarray


@jit()
def _merge(src, dst, wt, comm, k, directed):
    """The distinct community pairs of the edges, in order of first occurrence, with their
    weights summed in edge order: ``(a, b, w)``."""
    E = src.shape[0]
    key = np.empty(E, np.int64)
    for e in range(E):
        a = comm[src[e]]
        b = comm[dst[e]]
        if not directed and b < a:
            a, b = b, a
        key[e] = a * k + b
    srt = np.argsort(key, kind="mergesort")
    first = np.empty(E, np.int64)
    total = np.empty(E, np.float64)
    g = -1
    prev = -1
    for i in range(E):
        e = srt[i]
        if i == 0 or key[e] != prev:
            g += 1
            first[g] = e
            total[g] = wt[e]
            prev = key[e]
        else:
            total[g] = wt[e] + total[g]
    ng = g + 1
    order = np.argsort(first[:ng])
    a = np.empty(ng, np.int64)
    b = np.empty(ng, np.int64)
    w = np.empty(ng, np.float64)
    for j in range(ng):
        e = first[order[j]]
        a[j] = comm[src[e]]     # the orientation of the first edge
        b[j] = comm[dst[e]]
        w[j] = total[order[j]]
    return a, b, w


@jit()
def _adjacency(a, b, w, k, both):
    """CSR rows of ``a -> b`` (and ``b -> a`` when ``both``, a self loop once) in the
    order of the pairs."""
    cnt = np.zeros(k + 1, np.int64)
    for j in range(a.shape[0]):
        cnt[a[j] + 1] += 1
        if both and b[j] != a[j]:
            cnt[b[j] + 1] += 1
    for i in range(k):
        cnt[i + 1] += cnt[i]
    fill = cnt[:k].copy()
    idx = np.empty(cnt[k], np.int64)
    val = np.empty(cnt[k], np.float64)
    for j in range(a.shape[0]):
        p = fill[a[j]]
        idx[p] = b[j]
        val[p] = w[j]
        fill[a[j]] += 1
        if both and b[j] != a[j]:
            p = fill[b[j]]
            idx[p] = a[j]
            val[p] = w[j]
            fill[b[j]] += 1
    return cnt, idx, val


@jit()
def _upper_edges(indptr, indices, values):
    """``G.edges()`` of an undirected graph: each vertex's neighbours of no smaller id."""
    k = indptr.shape[0] - 1
    m = 0
    for u in range(k):
        for p in range(indptr[u], indptr[u + 1]):
            if indices[p] >= u:
                m += 1
    s = np.empty(m, np.int64)
    d = np.empty(m, np.int64)
    w = np.empty(m, np.float64)
    m = 0
    for u in range(k):
        for p in range(indptr[u], indptr[u + 1]):
            if indices[p] >= u:
                s[m] = u
                d[m] = indices[p]
                w[m] = values[p]
                m += 1
    return s, d, w


def aggregate(src, dst, weight, comm, k: int, directed: bool) -> LevelGraph:
    """The graph of the communities (NetworkX's ``_gen_graph``; with ``comm`` the
    identity, the level-0 graph NetworkX rebuilds from ``G.edges(data=weight)``).

    Parameters
    ----------
    src, dst, weight : numpy.ndarray
        The edges in ``G.edges()`` order (an undirected edge once).
    comm : numpy.ndarray of int
        Community ``0 .. k-1`` of every vertex.
    k : int
        Number of communities.
    directed : bool
        Directed graph.

    Returns
    -------
    LevelGraph

    Examples
    --------
    >>> import numpy as np
    >>> g = aggregate(np.array([0, 1, 2]), np.array([1, 2, 3]), np.ones(3),
    ...               np.array([0, 0, 1, 1]), 2, False)
    >>> g.src.tolist(), g.dst.tolist(), g.weight.tolist()
    ([0, 0, 1], [0, 1, 1], [1.0, 1.0, 1.0])
    """
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    comm = np.ascontiguousarray(comm, dtype=np.int64)
    a, b, w = _merge(src, dst, np.ascontiguousarray(weight, dtype=np.float64), comm,
                     int(k), bool(directed))
    indptr, indices, values = _adjacency(a, b, w, int(k), not directed)
    if directed:
        pindptr, pindices, pvalues = _adjacency(b, a, w, int(k), False)
        s, d, ew = np.repeat(np.arange(k, dtype=np.int64), np.diff(indptr)), indices, values
    else:
        pindptr = pindices = np.zeros(0, np.int64)
        pvalues = np.zeros(0)
        s, d, ew = _upper_edges(indptr, indices, values)
    return LevelGraph(int(k), bool(directed), s, d, ew, indptr, indices, values,
                      pindptr, pindices, pvalues)


@jit()
def _row_sums(indptr, values):
    k = indptr.shape[0] - 1
    out = np.zeros(k)
    for u in range(k):
        s = 0.0
        for p in range(indptr[u], indptr[u + 1]):
            s += values[p]
        out[u] = s
    return out


@jit()
def _self_loops(indptr, indices, values):
    k = indptr.shape[0] - 1
    out = np.zeros(k)
    for u in range(k):
        for p in range(indptr[u], indptr[u + 1]):
            if indices[p] == u:
                out[u] = values[p]
    return out


def degrees(g: LevelGraph):
    """NetworkX's weighted degrees of the level graph: undirected ``(degree, degree)``
    (a self loop twice), directed ``(in_degree, out_degree)``.

    Examples
    --------
    >>> import numpy as np
    >>> g = aggregate(np.array([0, 0]), np.array([0, 1]), np.array([2.0, 1.0]),
    ...               np.arange(2), 2, False)
    >>> degrees(g)[0].tolist()
    [5.0, 1.0]
    """
    if g.directed:
        return _row_sums(g.pindptr, g.pvalues), _row_sums(g.indptr, g.values)
    deg = _row_sums(g.indptr, g.values) + _self_loops(g.indptr, g.indices, g.values)
    return deg, deg


@jit()
def _neighbours(directed, indptr, indices, values, pindptr, pindices, pvalues):
    """NetworkX's ``nbrs``: every vertex's neighbours but itself with the weight towards
    them (a directed graph's out-weight plus in-weight), in first-seen order."""
    k = indptr.shape[0] - 1
    size = indptr[k] + (pindptr[k] if directed else 0)
    ptr = np.zeros(k + 1, np.int64)
    idx = np.empty(size, np.int64)
    val = np.empty(size, np.float64)
    slot = np.full(k, -1, np.int64)
    q = 0
    for u in range(k):
        start = q
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v == u:
                continue
            if directed:
                if slot[v] < 0:
                    slot[v] = q
                    idx[q] = v
                    val[q] = 0.0
                    q += 1
                val[slot[v]] += values[p]
            else:
                idx[q] = v
                val[q] = values[p]
                q += 1
        if directed:
            for p in range(pindptr[u], pindptr[u + 1]):
                v = pindices[p]
                if v == u:
                    continue
                if slot[v] < 0:
                    slot[v] = q
                    idx[q] = v
                    val[q] = 0.0
                    q += 1
                val[slot[v]] += pvalues[p]
            for t in range(start, q):
                slot[idx[t]] = -1
        ptr[u + 1] = q
    return ptr, idx[:q], val[:q]


@jit()
def _move(directed, ptr, idx, val, deg_in, deg_out, order, m, m2, two_m2, resolution,
          node2com):
    """NetworkX's ``_one_level`` moves: sweeps over ``order`` until one moves nothing;
    ``node2com`` updated in place; returns True when a vertex moved."""
    k = deg_in.shape[0]
    stot_in = deg_in.copy()
    stot_out = deg_out.copy()
    w2c = np.zeros(k)
    seen = np.zeros(k, np.bool_)
    coms = np.empty(k + 1, np.int64)
    improvement = False
    moves = 1
    while moves > 0:
        moves = 0
        for t in range(order.shape[0]):
            u = order[t]
            own = node2com[u]
            best_mod = 0.0
            best = own
            nc = 0
            for p in range(ptr[u], ptr[u + 1]):
                c = node2com[idx[p]]
                if not seen[c]:
                    seen[c] = True
                    w2c[c] = 0.0
                    coms[nc] = c
                    nc += 1
                w2c[c] += val[p]
            if not seen[own]:
                seen[own] = True
                w2c[own] = 0.0
                coms[nc] = own
                nc += 1
            if directed:
                din = deg_in[u]
                dout = deg_out[u]
                stot_in[own] -= din
                stot_out[own] -= dout
                remove = -w2c[own] / m + resolution * (
                    dout * stot_in[own] + din * stot_out[own]) / m2
            else:
                din = deg_in[u]
                dout = din
                stot_in[own] -= din
                remove = -w2c[own] / m + resolution * (stot_in[own] * din) / two_m2
            for j in range(nc):
                c = coms[j]
                if directed:
                    gain = remove + w2c[c] / m - resolution * (
                        dout * stot_in[c] + din * stot_out[c]) / m2
                else:
                    gain = remove + w2c[c] / m - resolution * (stot_in[c] * din) / two_m2
                if gain > best_mod:
                    best_mod = gain
                    best = c
            stot_in[best] += din
            if directed:
                stot_out[best] += dout
            for j in range(nc):
                seen[coms[j]] = False
            if best != own:
                node2com[u] = best
                improvement = True
                moves += 1
    return improvement


def move_nodes(g: LevelGraph, order, m: float, resolution: float):
    """One level's local moving (NetworkX's ``_one_level``) from singletons.

    Parameters
    ----------
    g : LevelGraph
        The level's graph.
    order : numpy.ndarray of int
        The visiting order (NetworkX shuffles ``list(G)`` with its ``seed``).
    m : float
        NetworkX's ``m``: the level-0 graph's ``size(weight="weight")``.
    resolution : float
        The modularity's resolution.

    Returns
    -------
    node2com : numpy.ndarray of int64
        Every vertex's community: the id of one vertex of the level.
    improvement : bool
        A vertex moved.

    Examples
    --------
    >>> import numpy as np
    >>> g = aggregate(np.array([0, 2]), np.array([1, 3]), np.ones(2), np.arange(4), 4,
    ...               False)
    >>> move_nodes(g, np.arange(4), 2.0, 1.0)[0].tolist()
    [1, 1, 3, 3]
    """
    deg_in, deg_out = degrees(g)
    ptr, idx, val = _neighbours(g.directed, g.indptr, g.indices, g.values, g.pindptr,
                                g.pindices, g.pvalues)
    node2com = np.arange(g.k, dtype=np.int64)
    m = float(m)
    improvement = _move(g.directed, ptr, idx, val, deg_in, deg_out,
                        np.ascontiguousarray(order, dtype=np.int64), m, m ** 2,
                        2 * m ** 2, float(resolution), node2com)
    return node2com, bool(improvement)


@jit()
def _modularity(directed, src, dst, wt, deg_in, deg_out, labels, ncom, resolution):
    k = deg_in.shape[0]
    inner = np.zeros(ncom)
    sin = np.zeros(ncom)
    sout = np.zeros(ncom)
    for e in range(src.shape[0]):
        if labels[src[e]] == labels[dst[e]]:
            inner[labels[src[e]]] += wt[e]
    total = 0.0
    for u in range(k):
        sin[labels[u]] += deg_in[u]
        sout[labels[u]] += deg_out[u]
        total += deg_out[u]
    if directed:
        mm = total
        norm = 1.0 / (total * total)
    else:
        mm = total / 2
        norm = 1.0 / (total * total)
    q = 0.0
    for c in range(ncom):
        q += inner[c] / mm - resolution * sout[c] * sin[c] * norm
    return q


def modularity(g: LevelGraph, labels, resolution: float) -> float:
    """Modularity of the partition ``labels`` (community ids ``0 .. c-1``) of the level
    graph, as ``nx.community.modularity(G, communities, weight="weight")`` computes it
    (sums in vertex order).

    Examples
    --------
    >>> import numpy as np
    >>> g = aggregate(np.array([0, 2]), np.array([1, 3]), np.ones(2), np.arange(4), 4,
    ...               False)
    >>> modularity(g, np.array([0, 0, 1, 1]), 1.0)
    0.5
    """
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    deg_in, deg_out = degrees(g)
    ncom = int(labels.max()) + 1 if labels.size else 0
    return float(_modularity(g.directed, g.src, g.dst, g.weight, deg_in, deg_out, labels,
                             ncom, float(resolution)))


def size(g: LevelGraph) -> float:
    """NetworkX's ``G.size(weight="weight")``: the degrees (in + out) summed in vertex
    order, halved.

    Examples
    --------
    >>> import numpy as np
    >>> g = aggregate(np.array([0]), np.array([1]), np.array([2.5]), np.arange(2), 2, True)
    >>> size(g)
    2.5
    """
    deg_in, deg_out = degrees(g)
    if g.directed:
        return float(_sequential_sum(deg_in + deg_out)) / 2
    return float(_sequential_sum(deg_in)) / 2


@jit()
def _sequential_sum(a):
    s = 0.0
    for x in a:
        s += x
    return s
