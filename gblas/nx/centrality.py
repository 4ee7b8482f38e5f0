"""NetworkX's degree centralities, average neighbour degree and betweenness centrality
run by gblas (degrees from the adjacency, neighbour sums by one ``mxv``, betweenness by
batched Brandes: :func:`gblas.algorithms.betweenness_centrality`)."""

from __future__ import annotations

import networkx as nx
import numpy as np

from ._common import device, graph, node_dict, node_subset, refuse_undirected, to_numpy

__all__ = ["average_neighbor_degree", "betweenness_centrality", "degree_centrality",
           "in_degree_centrality", "out_degree_centrality"]


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


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """``nx.betweenness_centrality`` (unweighted, endpoints excluded) by
    :func:`gblas.algorithms.betweenness_centrality`; with ``k`` the sources are drawn
    as NetworkX draws them (``seed.sample(list(G), k)``), so a seed gives NetworkX's
    estimate.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.betweenness_centrality(nx.path_graph(["a", "b", "c"]), backend="gblas")
    {'a': 0.0, 'b': 1.0, 'c': 0.0}
    """
    from ..algorithms import betweenness_centrality as gb_bc

    G = graph(G)
    n = len(G)
    if n == 0:
        return {}
    if k == n:
        k = None
    sources = None
    if k == 0:
        # no source: NetworkX's rescaling divides by k = 0 (graphs of 3+ nodes)
        if n < 3:
            return dict.fromkeys(G.nodes, 0.0)
        raise ZeroDivisionError("float division by zero")
    if k is not None:
        if not hasattr(seed, "sample"):
            seed = nx.utils.create_py_random_state(seed)
        index = G.index
        sources = np.array([index[v] for v in seed.sample(list(G.nodes), k)],
                           dtype=np.int64)
    bc = gb_bc(G.pattern(device()), sources, normalized=bool(normalized),
               directed=G.is_directed())
    return dict(zip(G.nodes, to_numpy(bc.to_dense()).tolist()))
