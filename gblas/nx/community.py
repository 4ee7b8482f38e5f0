"""NetworkX's Louvain community detection run by gblas
(:func:`gblas.algorithms.community.louvain_levels`: compiled local moving and aggregation
making NetworkX's decisions, so that a seed gives NetworkX's partition)."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from ._common import graph

__all__ = ["label_propagation_communities", "louvain_communities", "louvain_partitions"]


def _edges(G, weight):
    """``(src, dst, weight)`` in ``G.edges()`` order (an undirected edge once, every
    parallel edge), weights from attribute ``weight`` (None: 1)."""
    keep = np.ones(G.rows.size, bool) if G.is_directed() else G.rows <= G.cols
    w = np.asarray(G.weights(weight), dtype=np.float64)
    return G.rows[keep], G.cols[keep], w[keep]


def _communities(G, labels: np.ndarray) -> list:
    """NetworkX's list of sets from community labels ``0 .. c-1``."""
    out = [set() for _ in range(int(labels.max()) + 1 if labels.size else 0)]
    for node, c in zip(G.nodes, labels.tolist()):
        out[c].add(node)
    return out


def louvain_partitions(G, weight="weight", resolution=1, threshold=0.0000001, seed=None):
    """``nx.community.louvain_partitions``: the partition after each level (a list of
    sets), NetworkX's partitions for the same ``seed``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(3, 0)
    >>> list(nx.community.louvain_partitions(G, seed=1, backend="gblas"))
    [[{0, 1, 2}, {3, 4, 5}]]
    """
    from ..algorithms.community import louvain_levels

    G = graph(G)
    src, dst, w = _edges(G, weight)
    for labels in louvain_levels(len(G), src, dst, w, G.is_directed(), resolution,
                                 threshold, seed):
        yield _communities(G, labels)


def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001,
                        max_level=None, seed=None):
    """``nx.community.louvain_communities``: the last partition of
    :func:`louvain_partitions` (at most ``max_level`` levels).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.community.louvain_communities(nx.petersen_graph(), seed=123, backend="gblas")
    [{0, 4, 5, 7, 9}, {1, 2, 3, 6, 8}]
    """
    partitions = louvain_partitions(G, weight, resolution, threshold, seed)
    if max_level is not None:
        if max_level <= 0:
            raise ValueError("max_level argument must be a positive integer or None")
        partitions = itertools.islice(partitions, max_level)
    return deque(partitions, maxlen=1).pop()


def label_propagation_communities(G):
    """``nx.community.label_propagation_communities``: NetworkX's communities (the same
    coloring, sweeps and Prec-Max ties, compiled), as a ``dict_values`` of sets in
    NetworkX's order.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(4, 0)
    >>> sorted(map(sorted, nx.community.label_propagation_communities(G, backend="gblas")))
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """
    from ..algorithms.community import prec_max_propagation

    G = graph(G)
    n = len(G)
    # greedy_color's "largest_first": by degree, largest first, ties in node order
    order = np.argsort(-G.degree(), kind="stable")
    # a simple graph's adjacency: each neighbour once, rows in order
    labels = prec_max_propagation(n, G.rows, G.cols, order, distinct=not G.is_multigraph())
    clusters: dict = {}
    for node, lab in zip(G.nodes, labels.tolist()):
        clusters.setdefault(lab, set()).add(node)
    return clusters.values()
