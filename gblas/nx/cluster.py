"""NetworkX's triangle counts and clustering coefficients run by gblas: every vertex at
once from one masked ``plus.pair`` product (triangles), and ``A (A A)`` diagonals for the
square clustering."""

from __future__ import annotations

import numpy as np

from ._common import device, graph, node_dict, node_subset, refuse_multigraph, to_numpy
from .graph import GblasGraph

__all__ = ["average_clustering", "clustering", "square_clustering", "transitivity",
           "triangles"]


def _triangles_degrees(G: GblasGraph):
    """(2 x triangles through every vertex, degree) of the simple undirected graph
    (self loops and parallel edges ignored), as int64 arrays."""
    from ..core import Matrix, mxm, reduce

    memo = G._memo.get("triangles")
    if memo is not None:
        return memo
    n = len(G)
    r, c = G.undirected_pattern()
    deg = np.bincount(r, minlength=n).astype(np.int64)
    if r.size == 0:
        t2 = np.zeros(n, dtype=np.int64)
    else:
        S = Matrix.from_coo(r, c, np.ones(r.size, dtype=np.int64), shape=(n, n))
        S = S.to(device()) if device() != "cpu" else S
        # C<S> = S plus.pair S: C(i, j) = common neighbours of the edge i - j;
        # row sums count every triangle through i twice
        C = mxm(S, S, "plus_pair", mask=S.S)
        t2 = to_numpy(reduce(C, "plus", axis="rows").to_dense()).astype(np.int64)
    memo = G._memo["triangles"] = (t2, deg)
    return memo


def triangles(G, nodes=None):
    """``nx.triangles`` by a masked ``plus.pair`` product (every vertex at once).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.triangles(nx.complete_graph(["a", "b", "c"]), backend="gblas")
    {'a': 1, 'b': 1, 'c': 1}
    """
    G = graph(G)
    if nodes is not None:
        refuse_multigraph(G)
    t2, _ = _triangles_degrees(G)
    if nodes is not None and nodes in G:
        return int(t2[G.index[nodes]] // 2)
    return node_dict(G, t2 // 2, node_subset(G, nodes))


def clustering(G, nodes=None, weight=None):
    """``nx.clustering`` of an undirected, unweighted graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.clustering(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas")
    {0: 1.0, 1: 1.0, 2: 0.3333333333333333, 3: 0}
    """
    G = graph(G)
    refuse_multigraph(G)
    t2, deg = _triangles_degrees(G)
    idx = node_subset(G, nodes)
    out = {}
    for i, t, d in zip(idx.tolist(), t2[idx].tolist(), deg[idx].tolist()):
        out[G.nodes[i]] = 0 if t == 0 else t / (d * (d - 1))
    if nodes is not None and nodes in G:
        return out[nodes]
    return out


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """``nx.average_clustering`` of an undirected, unweighted graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.average_clustering(nx.complete_graph(4), backend="gblas")
    1.0
    """
    c = clustering(G, nodes, weight=weight)
    c = c.values() if isinstance(c, dict) else [c]
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    """``nx.transitivity`` of an undirected graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.transitivity(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas")
    0.6
    """
    G = graph(G)
    refuse_multigraph(G)
    if len(G) == 0:
        return 0
    t2, deg = _triangles_degrees(G)
    tri = int(t2.sum())
    contri = int((deg * (deg - 1)).sum())
    return 0 if tri == 0 else tri / contri




def square_clustering(G, nodes=None):
    """``nx.square_clustering`` of an undirected graph (self loops ignored, as NetworkX
    does) from ``C = A plus.times A`` (common neighbours of every pair):

        squares(v)   = ((C .* C) 1 - d.^2 - A d + d)(v) / 2
        potential(v) = (d - 1) .* (A d) - d .* (d - 1) - 2 t - squares

    with ``d`` the degrees and ``t`` the triangles.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.square_clustering(nx.cycle_graph(4), backend="gblas")
    {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
    """
    from ..core import Matrix, Vector, ewise_mult, mxm, mxv, reduce

    G = graph(G)
    if G.is_directed():
        raise NotImplementedError("square_clustering of a directed graph")
    n = len(G)
    t2, d = _triangles_degrees(G)
    r, c = G.undirected_pattern()
    if r.size:
        dev = device()
        S = Matrix.from_coo(r, c, np.ones(r.size, dtype=np.int64), shape=(n, n))
        S = S.to(dev) if dev != "cpu" else S
        # C = S plus.times S: C(v, x) = common neighbours of v and x (C(v, v) = d(v))
        C = mxm(S, S, "plus_times")
        # c2 = (C .* C) plus.reduce: sum over x of C(v, x)^2
        c2 = to_numpy(reduce(ewise_mult(C, C, "times"), "plus", axis="rows")
                      .to_dense()).astype(np.int64)
        # ad = S plus.times d: the degrees of the neighbours, summed
        ad = to_numpy(mxv(S, Vector.from_dense(d).to(dev), "plus_times")
                      .to_dense()).astype(np.int64)
    else:
        c2 = ad = np.zeros(n, dtype=np.int64)
    squares = (c2 - d * d - ad + d) // 2
    potential = (d - 1) * ad - d * (d - 1) - t2 - squares
    idx = node_subset(G, nodes)
    out = {}
    for i, s, p, dv in zip(idx.tolist(), squares[idx].tolist(), potential[idx].tolist(),
                           d[idx].tolist()):
        out[G.nodes[i]] = s / p if dv > 1 and p > 0 else 0
    if nodes is not None and nodes in G:
        return out[nodes]
    return out
