"""NetworkX's degree centralities, average neighbour degree, vertex and edge betweenness
centrality run by gblas (degrees from the adjacency, neighbour sums by one ``mxv``;
unweighted vertex betweenness by batched Brandes,
:func:`gblas.algorithms.betweenness_centrality`; weighted betweenness, the endpoint
variant and edge betweenness by one compiled search per source in NetworkX's own order,
:func:`gblas.backends.cpu.brandes.brandes`)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from ._common import device, graph, node_dict, node_subset, refuse_undirected, to_numpy

__all__ = ["average_neighbor_degree", "betweenness_centrality", "degree_centrality",
           "edge_betweenness_centrality", "in_degree_centrality", "out_degree_centrality"]


def _scaled_degrees(G, deg: np.ndarray) -> dict:
    n = len(G)
    if n <= 1:
        return dict.fromkeys(G.nodes, 1)
    return node_dict(G, deg * (1.0 / (n - 1)))


def degree_centrality(G):
    """``nx.degree_centrality``: the degree over ``n - 1``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.degree_centrality(nx.star_graph(2), backend="gblas")
    {0: 1.0, 1: 0.5, 2: 0.5}
    """
    G = graph(G)
    return _scaled_degrees(G, G.degree())


def in_degree_centrality(G):
    """``nx.in_degree_centrality`` of a directed graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.in_degree_centrality(nx.DiGraph([(0, 1), (2, 1)]), backend="gblas")
    {0: 0.0, 1: 1.0, 2: 0.0}
    """
    G = graph(G)
    refuse_undirected(G)
    return _scaled_degrees(G, G.in_degree())


def out_degree_centrality(G):
    """``nx.out_degree_centrality`` of a directed graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.out_degree_centrality(nx.DiGraph([(0, 1), (2, 1)]), backend="gblas")
    {0: 0.5, 1: 0.0, 2: 0.5}
    """
    G = graph(G)
    refuse_undirected(G)
    return _scaled_degrees(G, G.out_degree())


def average_neighbor_degree(G, source="out", target="out", nodes=None, weight=None):
    """``nx.average_neighbor_degree``: ``(A t) ./ s`` with ``t`` the target degrees and
    ``s`` the (weighted) source degrees; ``A`` the successors (``"out"``), ``A'`` the
    predecessors (``"in"``) or both, weighted when ``weight`` is given.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.average_neighbor_degree(nx.path_graph(3), backend="gblas")
    {0: 2.0, 1: 1.0, 2: 2.0}
    """
    from ..core import Vector, mxv

    G = graph(G)
    kinds = ("in", "out", "in+out")
    if G.is_directed():
        if source not in kinds:
            raise nx.NetworkXError(f"source argument {source} must be one of {kinds}")
        if target not in kinds:
            raise nx.NetworkXError(f"target argument {target} must be one of {kinds}")
    elif source != "out" or target != "out":
        raise nx.NetworkXError(f"source and target arguments are only supported for "
                               f"directed graphs, got source={source}, target={target}")
    if G.is_multigraph():
        raise NotImplementedError("average_neighbor_degree of a multigraph")
    deg = {"out": G.out_degree, "in": G.in_degree, "in+out": G.degree}
    if not G.is_directed():
        deg = dict.fromkeys(kinds, G.degree)
    t = Vector.from_dense(deg[target]().astype(np.float64)).to(device())
    w = G.weights(weight).astype(np.float64)
    A = G.matrix(weight, "plus", device=device())
    n = len(G)
    total = np.zeros(n)
    sdeg = np.zeros(n)
    loops = G.rows == G.cols
    # "out": y = A plus.times t (successors), "in": y = A' plus.times t (predecessors)
    if "out" in source or not G.is_directed():
        total += to_numpy(mxv(A, t, "plus_times").to_dense(fill=0))
        sdeg += np.bincount(G.rows, weights=w, minlength=n)
        if not G.is_directed():
            # a self loop counts twice in the degree, once among the neighbours
            sdeg += np.bincount(G.rows[loops], weights=w[loops], minlength=n)
    if "in" in source and G.is_directed():
        total += to_numpy(mxv(A.T, t, "plus_times").to_dense(fill=0))
        sdeg += np.bincount(G.cols, weights=w, minlength=n)
    idx = node_subset(G, nodes)
    if weight is None:
        sdeg = np.rint(sdeg).astype(np.int64)
    out = {}
    for i in idx.tolist():
        out[G.nodes[i]] = 0.0 if sdeg[i] == 0 else float(total[i] / sdeg[i])
    return out


def _sample(G, k, seed) -> list:
    """The ``k`` source nodes NetworkX draws (``seed.sample(list(G), k)``)."""
    if not hasattr(seed, "sample"):
        seed = nx.utils.create_py_random_state(seed)
    return seed.sample(list(G.nodes), k)


def _search_csr(G, weight):
    """``(indptr, indices, weights or None, entries)``: the out-neighbours of every
    vertex in NetworkX's order (``G[v]``), parallel edges of a multigraph merged into
    their first entry with the smallest weight (NetworkX's weight of a multigraph edge);
    ``entries[p]`` is the position in ``G.rows`` of CSR entry ``p``."""
    n = len(G)
    rows, cols = G.rows, G.cols
    w = None
    if weight is not None:
        w = np.asarray(G.weights(weight), dtype=np.float64)
        if np.isnan(w).any():
            raise NotImplementedError("NaN edge weights")
    entries = np.arange(rows.size)
    if rows.size > 1 and not bool((rows[1:] >= rows[:-1]).all()):
        entries = np.argsort(rows, kind="stable")    # rows in order, each row's kept
        rows, cols = rows[entries], cols[entries]
        w = None if w is None else w[entries]
    if G.is_multigraph() and rows.size:
        key = rows * n + cols
        srt = np.argsort(key, kind="stable")
        start = np.flatnonzero(np.r_[True, key[srt][1:] != key[srt][:-1]])
        first = srt[start]                           # each neighbour's first entry
        keep = np.argsort(first, kind="stable")      # back in adjacency order
        if w is not None:
            w = np.minimum.reduceat(w[srt], start)[keep]
        entries = entries[first[keep]]
        rows, cols = rows[first[keep]], cols[first[keep]]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols, w, entries


def _scales(n: int, k, normalized: bool, directed: bool, endpoints: bool):
    """NetworkX's ``_rescale`` factors: ``(sources, other vertices)``, or None when the
    sums are returned as they are (fewer than 2 pairs).  ``k`` None: every source."""
    N = n if endpoints else n - 1
    if N < 2:
        return None
    K = N if k is None else k
    if k is None or endpoints:
        if normalized:
            scale = 1 / (K * (N - 1))
        else:
            scale = N / (K * (1 if directed else 2))
        return scale, scale
    if normalized:
        src = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        return src, 1 / (K * (N - 1))
    correction = 1 if directed else 2
    src = N / ((K - 1) * correction) if K > 1 else math.nan
    return src, N / (K * correction)


def _brandes(G, k, seed, weight, endpoints: bool, edges: bool):
    """Brandes sums over every source or NetworkX's sample of ``k``:
    ``(vertex sums, sums per entry of G.rows, sampled source ids or None)``."""
    from ..backends.cpu.brandes import brandes

    n = len(G)
    src = None
    if k is not None:
        index = G.index
        src = np.array([index[v] for v in _sample(G, k, seed)], dtype=np.int64)
    indptr, indices, w, entries = _search_csr(G, weight)
    bc, eb = brandes(indptr, indices, w, np.arange(n) if src is None else src,
                     endpoints=endpoints, edges=edges)
    if eb is not None:
        full = np.zeros(G.rows.size)
        full[entries] = eb
        eb = full
    return bc, eb, src


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """``nx.betweenness_centrality``.

    On the CPU, and for weighted (Dijkstra) or ``endpoints=True`` calls on any device:
    one compiled search per source (:func:`gblas.backends.cpu.brandes.brandes`, sources
    in parallel) that makes NetworkX's decisions, equal path lengths compared exactly as
    NetworkX compares them (2-3x faster than the batched products on the CPU with 256
    sources).  Unweighted without endpoints on the GPU:
    :func:`gblas.algorithms.betweenness_centrality` (batched Brandes).  With ``k`` the
    sources are drawn as NetworkX draws them (``seed.sample(list(G), k)``), so a seed
    gives NetworkX's estimate.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.betweenness_centrality(nx.path_graph(["a", "b", "c"]), backend="gblas")
    {'a': 0.0, 'b': 1.0, 'c': 0.0}
    >>> G = nx.Graph([(0, 1, {"weight": 1}), (1, 2, {"weight": 1}), (0, 2, {"weight": 3})])
    >>> nx.betweenness_centrality(G, weight="weight", backend="gblas")
    {0: 0.0, 1: 1.0, 2: 0.0}
    """
    from ..algorithms import betweenness_centrality as gb_bc

    G = graph(G)
    n = len(G)
    if n == 0:
        return {}
    if k == n:
        k = None
    if weight is not None or endpoints or device() == "cpu":
        bc, _, src = _brandes(G, k, seed, weight, bool(endpoints), edges=False)
        scales = _scales(n, None if src is None else src.size, normalized,
                         G.is_directed(), bool(endpoints))
        if scales is not None:
            s_src, s_other = scales
            if s_src == s_other:
                bc = bc * s_src
            else:
                is_src = np.zeros(n, bool)
                is_src[src] = True
                bc = np.where(is_src, bc * s_src, bc * s_other)
        return dict(zip(G.nodes, bc.tolist()))
    sources = None
    if k == 0:
        # no source: NetworkX's rescaling divides by k = 0 (graphs of 3+ nodes)
        if n < 3:
            return dict.fromkeys(G.nodes, 0.0)
        raise ZeroDivisionError("float division by zero")
    if k is not None:
        index = G.index
        sources = np.array([index[v] for v in _sample(G, k, seed)], dtype=np.int64)
    bc = gb_bc(G.pattern(device()), sources, normalized=bool(normalized),
               directed=G.is_directed())
    return dict(zip(G.nodes, to_numpy(bc.to_dense()).tolist()))


def _undirected_edge_sums(G, eb: np.ndarray) -> np.ndarray:
    """Each undirected edge's score (both directions added), at its entry with
    ``rows <= cols`` (the order of ``G.edges``)."""
    n = max(len(G), 1)
    rows, cols = G.rows, G.cols
    up = np.flatnonzero(rows <= cols)
    low = np.flatnonzero(rows > cols)
    out = eb[up].copy()
    if low.size:
        key = rows[up] * n + cols[up]
        order = np.argsort(key, kind="stable")
        found = order[np.searchsorted(key, cols[low] * n + rows[low], sorter=order)]
        out[found] += eb[low]
    return out


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """``nx.edge_betweenness_centrality``: Brandes with one compiled search per source
    (BFS, or Dijkstra with ``weight``) in NetworkX's order, the fraction of paths through
    every adjacency entry accumulated at its position; an undirected edge adds its two
    directions.  The dict is keyed as NetworkX keys it (``G.edges()``, in that order).
    Multigraphs are declined (NetworkX keys their edges by edge key).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.edge_betweenness_centrality(nx.path_graph(3), backend="gblas")
    {(0, 1): 0.6666666666666666, (1, 2): 0.6666666666666666}
    """
    G = graph(G)
    if G.is_multigraph():
        raise NotImplementedError("edge betweenness of a multigraph (keyed edges)")
    n = len(G)
    if n == 0:
        return {}
    _, eb, src = _brandes(G, k, seed, weight, endpoints=False, edges=True)
    if not G.is_directed():
        eb = _undirected_edge_sums(G, eb)
    scales = _scales(n, None if src is None else src.size, normalized, G.is_directed(),
                     endpoints=True)
    if scales is not None and scales[0] != 1:
        eb = eb * scales[0]
    return dict(zip(G.edges, eb.tolist()))
