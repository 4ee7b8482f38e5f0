"""NetworkX's shortest-path lengths run by gblas: BFS levels for the unweighted ones,
:func:`gblas.algorithms.sssp` (delta-stepping, or frontier Bellman-Ford over ``min.+``
when a weight is negative) for Dijkstra and Bellman-Ford, a batched ``min.+`` relaxation
for several sources at once.  Integer weights give integer lengths, as in NetworkX;
parallel edges of a multigraph weigh their lightest."""

from __future__ import annotations

import networkx as nx
import numpy as np

from ._common import device, graph, length_dict, to_numpy
from .graph import GblasGraph
from .traversal import levels

__all__ = [
    "all_pairs_bellman_ford_path_length", "all_pairs_dijkstra_path_length",
    "all_pairs_shortest_path_length", "bellman_ford_path_length", "dijkstra_path_length",
    "has_path", "multi_source_dijkstra_path_length", "negative_edge_cycle",
    "single_source_bellman_ford_path_length", "single_source_dijkstra_path_length",
    "single_source_shortest_path_length", "single_target_shortest_path_length",
]


# --------------------------------------------------------------------------- unweighted
def _bfs_lengths(G: GblasGraph, s: int, cutoff, transposed: bool = False) -> dict:
    lv = levels(G, [s], transposed=transposed)
    keep = lv >= 0
    if cutoff is not None:
        keep &= (lv <= cutoff) | (lv == 0)
    return length_dict(G, lv, keep)


def single_source_shortest_path_length(G, source, cutoff=None):
    """``nx.single_source_shortest_path_length`` by :func:`gblas.algorithms.bfs`.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_shortest_path_length(nx.path_graph(4), 0, backend="gblas")
    {0: 0, 1: 1, 2: 2, 3: 3}
    """
    G = graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return _bfs_lengths(G, G.index[source], cutoff)


def single_target_shortest_path_length(G, target, cutoff=None):
    """``nx.single_target_shortest_path_length``: a BFS over the reversed edges.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1), (1, 2)])
    >>> nx.single_target_shortest_path_length(G, 2, backend="gblas")
    {2: 0, 1: 1, 0: 2}
    """
    G = graph(G)
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return _bfs_lengths(G, G.index[target], cutoff, transposed=True)


def all_pairs_shortest_path_length(G, cutoff=None):
    """``nx.all_pairs_shortest_path_length``: ``(node, lengths)`` pairs, one BFS each.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_shortest_path_length(nx.path_graph(2), backend="gblas"))
    {0: {0: 0, 1: 1}, 1: {1: 0, 0: 1}}
    """
    G = graph(G)
    for i, v in enumerate(G.nodes):
        yield v, _bfs_lengths(G, i, cutoff)


def has_path(G, source, target):
    """``nx.has_path``: whether ``target`` is reachable from ``source`` (one BFS).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.has_path(nx.DiGraph([(0, 1), (1, 2)]), 2, 0, backend="gblas")
    False
    """
    G = graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return bool(levels(G, [G.index[source]])[G.index[target]] >= 0)


# ----------------------------------------------------------------------------- weighted
def _checked_weights(G: GblasGraph, weight, negative_ok: bool) -> np.ndarray:
    w = G.weights(weight)
    if w.dtype.kind == "f" and np.isnan(w).any():
        raise NotImplementedError("NaN edge weights")
    if not negative_ok and w.size and w.min() < 0:
        raise NotImplementedError("negative edge weights: Dijkstra does not apply")
    return w


def _as_lengths(G: GblasGraph, d: np.ndarray, w: np.ndarray, cutoff, firsts) -> dict:
    """{node: length} from dense distances (inf: unreached): the vertices ``firsts`` (the
    sources, length int 0) first, then the others nearest first; ints for int weights."""
    keep = np.isfinite(d)
    if cutoff is not None:
        keep &= d <= cutoff
    if w.dtype.kind == "i":
        d = np.where(keep, d, 0).astype(np.int64)
    keep[firsts] = False
    nodes = G.nodes
    return {**{nodes[i]: 0 for i in firsts}, **length_dict(G, d, keep)}


def _sssp(G: GblasGraph, s: int, weight, cutoff, negative_ok: bool) -> dict:
    from ..algorithms import sssp
    from ..algorithms.sssp import NegativeCycle

    w = _checked_weights(G, weight, negative_ok)
    A = G.matrix(weight, "min", device=device())
    try:
        d = to_numpy(sssp(A, s).to_dense(fill=np.inf))
    except NegativeCycle:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    return _as_lengths(G, d, w, cutoff, [s])


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """``nx.single_source_dijkstra_path_length`` by :func:`gblas.algorithms.sssp`
    (parallel edges: the lightest counts).  Integer weights give integer lengths.

    Raises NotImplementedError on a negative weight (Dijkstra's answer is undefined
    there; NetworkX may or may not notice), so that NetworkX may run its own code.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph()
    >>> G.add_weighted_edges_from([("s", "a", 4), ("s", "b", 1), ("b", "a", 2)])
    >>> nx.single_source_dijkstra_path_length(G, "s", backend="gblas")
    {'s': 0, 'b': 1, 'a': 3}
    """
    G = graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    return _sssp(G, G.index[source], weight, cutoff, negative_ok=False)


def dijkstra_path_length(G, source, target, weight="weight"):
    """``nx.dijkstra_path_length``: one source's lengths, read at ``target``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 2}), (1, 2, {"weight": 3})])
    >>> nx.dijkstra_path_length(G, 0, 2, backend="gblas")
    5
    """
    G = graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    length = _sssp(G, G.index[source], weight, None, negative_ok=False)
    try:
        return length[target]
    except KeyError:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}") from None


def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """``nx.all_pairs_dijkstra_path_length``: ``(node, lengths)``, one search each.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 2})])
    >>> dict(nx.all_pairs_dijkstra_path_length(G, backend="gblas"))
    {0: {0: 0, 1: 2}, 1: {1: 0, 0: 2}}
    """
    G = graph(G)
    for i, v in enumerate(G.nodes):
        yield v, _sssp(G, i, weight, cutoff, negative_ok=False)


def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    """``nx.multi_source_dijkstra_path_length``: the distance from the nearest source,
    ``d = min.reduce`` over the columns of the batched ``min.+`` relaxation ``D`` (one
    row per source).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.multi_source_dijkstra_path_length(nx.path_graph(5), {0, 4}, backend="gblas")
    {0: 0, 4: 0, 1: 1, 3: 1, 2: 2}
    """
    from ..algorithms.sssp import sssp_batch
    from ..core import reduce

    G = graph(G)
    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in G:
            raise nx.NodeNotFound(f"Node {s} not found in graph")
    w = _checked_weights(G, weight, negative_ok=False)
    ids = list(dict.fromkeys(G.index[s] for s in sources))
    A = G.matrix(weight, "min", device=device())
    D = sssp_batch(A, np.array(ids, dtype=np.int64))
    # d = min.reduce(D) over the sources: each vertex's distance from its nearest source
    d = to_numpy(reduce(D, "min", axis="columns").to_dense(fill=np.inf))
    return _as_lengths(G, d, w, cutoff, ids)


def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """``nx.single_source_bellman_ford_path_length`` by :func:`gblas.algorithms.sssp`
    (frontier Bellman-Ford over ``min.+`` when a weight is negative); a negative cycle
    reachable from ``source`` raises ``NetworkXUnbounded``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1, {"weight": 4}), (0, 2, {"weight": 1}),
    ...                 (1, 2, {"weight": -5})])
    >>> nx.single_source_bellman_ford_path_length(G, 0, backend="gblas")
    {0: 0, 2: -1, 1: 4}
    """
    G = graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return _sssp(G, G.index[source], weight, None, negative_ok=True)


def bellman_ford_path_length(G, source, target, weight="weight"):
    """``nx.bellman_ford_path_length``: one source's lengths, read at ``target``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1, {"weight": 4}), (1, 2, {"weight": -5})])
    >>> nx.bellman_ford_path_length(G, 0, 2, backend="gblas")
    -1
    """
    G = graph(G)
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    length = _sssp(G, G.index[source], weight, None, negative_ok=True)
    try:
        return length[target]
    except KeyError:
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}") from None


def all_pairs_bellman_ford_path_length(G, weight="weight"):
    """``nx.all_pairs_bellman_ford_path_length``: ``(node, lengths)``, one search each.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1, {"weight": -1})])
    >>> dict(nx.all_pairs_bellman_ford_path_length(G, backend="gblas"))
    {0: {0: 0, 1: -1}, 1: {1: 0}}
    """
    G = graph(G)
    for i, v in enumerate(G.nodes):
        yield v, _sssp(G, i, weight, None, negative_ok=True)


def negative_edge_cycle(G, weight="weight", heuristic=True):
    """``nx.negative_edge_cycle``: Bellman-Ford from a virtual source joined to every
    vertex (over ``min.+``; an undirected negative edge is a negative cycle).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1, {"weight": 1}), (1, 0, {"weight": -2})])
    >>> nx.negative_edge_cycle(G, backend="gblas")
    True
    """
    from ..algorithms.sssp import has_negative_cycle

    G = graph(G)
    if G.number_of_edges() == 0:
        return False
    _checked_weights(G, weight, negative_ok=True)
    return bool(has_negative_cycle(G.matrix(weight, "min", device=device())))
