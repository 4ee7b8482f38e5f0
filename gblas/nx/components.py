"""NetworkX's connected, weakly and strongly connected components run by gblas
(:func:`gblas.algorithms.connected_components`: FastSV for the weak components, trimming
and coloring for the strong ones), with NetworkX's orders and errors."""

from __future__ import annotations

import numpy as np

from .._device import unique
from ._common import device, graph, null_graph_check, to_numpy
from .graph import GblasGraph

__all__ = [
    "connected_components", "is_connected", "is_strongly_connected",
    "is_weakly_connected", "node_connected_component", "number_connected_components",
    "number_strongly_connected_components", "number_weakly_connected_components",
    "strongly_connected_components", "weakly_connected_components",
]


def component_labels(G: GblasGraph, connection: str) -> np.ndarray:
    from ..algorithms import connected_components as cc

    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    return to_numpy(cc(G.pattern(device()), connection).to_dense())


def component_count(G: GblasGraph, connection: str) -> int:
    """The number of ``connection`` ("weak" or "strong") components of ``G``.

    Examples
    --------
    >>> import networkx as nx
    >>> from gblas.nx import from_networkx
    >>> component_count(from_networkx(nx.DiGraph([(1, 2), (2, 1), (2, 3)])), "strong")
    2
    """
    return int(unique(component_labels(G, connection)).size)


def all_connected(G: GblasGraph, connection: str) -> bool:
    """Whether ``G`` is one ``connection`` ("weak" or "strong") component; the null graph
    raises ``NetworkXPointlessConcept``, as in NetworkX.

    Examples
    --------
    >>> import networkx as nx
    >>> from gblas.nx import from_networkx
    >>> all_connected(from_networkx(nx.DiGraph([(1, 2), (3, 2)])), "weak")
    True
    """
    null_graph_check(G)
    # a component is labelled by its smallest vertex id: one component, all labels 0
    return bool((component_labels(G, connection) == 0).all())


def _component_sets(G: GblasGraph, labels: np.ndarray):
    """Generator of the components (sets of nodes), by smallest vertex id: the order
    in which NetworkX finds them by scanning the nodes."""
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    nodes = G.nodes
    for part in np.split(order, cuts) if order.size else []:
        yield {nodes[i] for i in part.tolist()}


def connected_components(G):
    """``nx.connected_components`` (a generator of sets) by
    :func:`gblas.algorithms.connected_components`.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(1, 2), (3, 4)])
    >>> list(nx.connected_components(G, backend="gblas"))
    [{1, 2}, {3, 4}]
    """
    G = graph(G)
    return _component_sets(G, component_labels(G, "weak"))


def number_connected_components(G):
    """``nx.number_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_connected_components(nx.empty_graph(3), backend="gblas")
    3
    """
    return component_count(graph(G), "weak")


def is_connected(G):
    """``nx.is_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_connected(nx.path_graph(3), backend="gblas")
    True
    """
    return all_connected(graph(G), "weak")


def node_connected_component(G, n):
    """``nx.node_connected_component``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.node_connected_component(nx.Graph([(1, 2), (3, 4)]), 4, backend="gblas"))
    [3, 4]
    """
    G = graph(G)
    labels = component_labels(G, "weak")
    i = G.index[n]
    return {G.nodes[j] for j in np.flatnonzero(labels == labels[i]).tolist()}


def weakly_connected_components(G):
    """``nx.weakly_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.weakly_connected_components(nx.DiGraph([(1, 2), (3, 2), (4, 5)]),
    ...                                     backend="gblas"))
    [{1, 2, 3}, {4, 5}]
    """
    G = graph(G)
    return _component_sets(G, component_labels(G, "weak"))


def number_weakly_connected_components(G):
    """``nx.number_weakly_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_weakly_connected_components(nx.DiGraph([(1, 2), (3, 4)]),
    ...                                       backend="gblas")
    2
    """
    return component_count(graph(G), "weak")


def is_weakly_connected(G):
    """``nx.is_weakly_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_weakly_connected(nx.DiGraph([(1, 2), (3, 2)]), backend="gblas")
    True
    """
    return all_connected(graph(G), "weak")


def _sinks_first(G: GblasGraph, labels: np.ndarray) -> list:
    """The component labels in reverse topological order of the condensation (a
    component after every component it reaches; ties by smallest label), the order in
    which NetworkX's Tarjan search finishes them."""
    import heapq

    comp = unique(labels)
    pos = np.searchsorted(comp, labels)  # vertex -> component number
    a, b = pos[G.rows], pos[G.cols]
    cross = a != b
    k = comp.size
    edges = unique(a[cross] * k + b[cross])  # distinct condensation edges a -> b
    src, dst = edges // k, edges % k
    out = np.bincount(src, minlength=k).tolist()
    order = np.argsort(dst, kind="stable")
    start = np.searchsorted(dst[order], np.arange(k + 1)).tolist()
    preds = src[order].tolist()  # preds[start[c]:start[c + 1]]: components into c
    heap = [c for c in range(k) if out[c] == 0]
    heapq.heapify(heap)
    result = []
    while heap:
        c = heapq.heappop(heap)
        result.append(int(comp[c]))
        for p in preds[start[c]:start[c + 1]]:
            out[p] -= 1
            if out[p] == 0:
                heapq.heappush(heap, p)
    return result


def strongly_connected_components(G):
    """``nx.strongly_connected_components`` (a generator of sets) by
    :func:`gblas.algorithms.connected_components`; the components come in reverse
    topological order (a component after all those it reaches), as NetworkX's do, ties
    by first node.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(1, 2), (2, 1), (2, 3)])
    >>> list(nx.strongly_connected_components(G, backend="gblas"))
    [{3}, {1, 2}]
    """
    G = graph(G)
    labels = component_labels(G, "strong")
    # the sets come by label (each component's smallest vertex id)
    by_label = dict(zip(unique(labels).tolist(), _component_sets(G, labels)))
    for lab in _sinks_first(G, labels):
        yield by_label.pop(lab)


def number_strongly_connected_components(G):
    """``nx.number_strongly_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_strongly_connected_components(nx.DiGraph([(1, 2), (2, 1), (2, 3)]),
    ...                                         backend="gblas")
    2
    """
    return component_count(graph(G), "strong")


def is_strongly_connected(G):
    """``nx.is_strongly_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_strongly_connected(nx.DiGraph([(1, 2), (2, 1)]), backend="gblas")
    True
    """
    return all_connected(graph(G), "strong")


