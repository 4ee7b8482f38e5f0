"""NetworkX's structural queries run by gblas: reciprocity (``A .* A'``), isolates and
regularity (degrees), self loops, emptiness, trees and forests (component counts)."""

from __future__ import annotations

import networkx as nx
import numpy as np

from .._device import unique
from ._common import graph, node_subset, refuse_directed, to_numpy
from .components import component_count
from .graph import GblasGraph

__all__ = ["is_empty", "is_forest", "is_isolate", "is_k_regular", "is_regular", "is_tree",
           "isolates", "number_of_isolates", "number_of_selfloops", "overall_reciprocity",
           "reciprocity"]


def _mutual(G: GblasGraph) -> np.ndarray:
    """Per vertex, the neighbours that are both a successor and a predecessor."""
    from ..core import ewise_mult, reduce

    P = G.pattern()
    if P.nvals == 0:
        return np.zeros(len(G), dtype=np.int64)
    # M = P .* P': the reciprocated pairs; row counts
    M = ewise_mult(P, P.T, "pair")
    cnt = reduce(M, "plus", axis="rows") if M.nvals else None
    if cnt is None:
        return np.zeros(len(G), dtype=np.int64)
    return to_numpy(cnt.to_dense(fill=0)).astype(np.int64)


def reciprocity(G, nodes=None):
    """``nx.reciprocity`` of a directed graph: ``2 |pred & succ| / (|pred| + |succ|)``
    per node, from ``A .* A'``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.reciprocity(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), [0, 1], backend="gblas")
    {0: 1.0, 1: 0.6666666666666666}
    """
    G = graph(G)
    if nodes is None:
        return overall_reciprocity(G)
    r, c = _unique_edges(G)
    n = len(G)
    total = np.bincount(r, minlength=n) + np.bincount(c, minlength=n)
    mutual = _mutual(G)
    idx = node_subset(G, nodes)
    out = {G.nodes[i]: (None if total[i] == 0 else 2 * int(mutual[i]) / int(total[i]))
           for i in idx.tolist()}
    if nodes in G:
        if out[nodes] is None:
            raise nx.NetworkXError("Not defined for isolated nodes.")
        return out[nodes]
    return out


def _unique_edges(G: GblasGraph):
    n = len(G)
    flat = unique(G.rows * n + G.cols)
    return flat // max(n, 1), flat % max(n, 1)


def overall_reciprocity(G):
    """``nx.overall_reciprocity``: the share of edges that are reciprocated.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.overall_reciprocity(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), backend="gblas")
    0.6666666666666666
    """
    G = graph(G)
    n_all = G.number_of_edges()
    if n_all == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    loops = int(np.count_nonzero(G.rows == G.cols))
    mutual_pairs = (int(_mutual(G).sum()) - loops) // 2  # u <-> v pairs, u != v
    undirected = n_all - mutual_pairs
    return (n_all - undirected) * 2 / n_all


def is_isolate(G, n):
    """``nx.is_isolate``: degree 0.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_isolate(nx.Graph([(0, 1)]), 0, backend="gblas")
    False
    """
    G = graph(G)
    return bool(G.degree()[G.index[n]] == 0)


def isolates(G):
    """``nx.isolates``: an iterator over the nodes of degree 0.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1)]); G.add_node(2)
    >>> list(nx.isolates(G, backend="gblas"))
    [2]
    """
    G = graph(G)
    nodes = G.nodes
    return iter([nodes[i] for i in np.flatnonzero(G.degree() == 0).tolist()])


def number_of_isolates(G):
    """``nx.number_of_isolates``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_of_isolates(nx.empty_graph(3), backend="gblas")
    3
    """
    return int(np.count_nonzero(graph(G).degree() == 0))


def is_regular(G):
    """``nx.is_regular``: every degree equal (in- and out-degrees, if directed).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_regular(nx.cycle_graph(5), backend="gblas")
    True
    """
    G = graph(G)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Graph has no nodes.")
    if not G.is_directed():
        d = G.degree()
        return bool((d == d[0]).all())
    din, dout = G.in_degree(), G.out_degree()
    return bool((din == din[0]).all() and (dout == dout[0]).all())


def is_k_regular(G, k):
    """``nx.is_k_regular`` of an undirected graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_k_regular(nx.cycle_graph(5), 2, backend="gblas")
    True
    """
    G = graph(G)
    refuse_directed(G)
    return bool((G.degree() == k).all())


def is_empty(G):
    """``nx.is_empty``: no edges.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_empty(nx.empty_graph(3), backend="gblas")
    True
    """
    return graph(G).rows.size == 0


def number_of_selfloops(G):
    """``nx.number_of_selfloops`` (parallel loops of a multigraph counted).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_of_selfloops(nx.Graph([(0, 0), (0, 1)]), backend="gblas")
    1
    """
    G = graph(G)
    return int(np.count_nonzero(G.rows == G.cols))


def is_tree(G):
    """``nx.is_tree``: ``n - 1`` edges and (weakly) connected.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_tree(nx.path_graph(4), backend="gblas")
    True
    """
    G = graph(G)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return len(G) - 1 == G.number_of_edges() and component_count(G, "weak") == 1


def is_forest(G):
    """``nx.is_forest``: every (weak) component a tree, i.e. ``m = n - components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_forest(nx.Graph([(0, 1), (2, 3)]), backend="gblas")
    True
    """
    G = graph(G)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return G.number_of_edges() == len(G) - component_count(G, "weak")
