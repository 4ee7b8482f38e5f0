"""NetworkX functions run by gblas: each takes a :class:`~gblas.nx.GblasGraph` and NetworkX's
own arguments (same names, same order) and returns what NetworkX returns (dicts keyed by
node, generators of sets, numbers), with Python numbers in them.

The options gblas does not implement are declined beforehand by
:func:`gblas.nx.interface.BackendInterface.can_run` (NetworkX then runs its own code or
raises, as configured); the functions here assume they were accepted.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from .._device import to_numpy
from .graph import GblasGraph

__all__ = [
    "average_clustering", "betweenness_centrality", "clustering", "connected_components",
    "core_number", "descendants_at_distance", "is_connected", "is_strongly_connected",
    "is_weakly_connected", "node_connected_component", "number_connected_components",
    "number_strongly_connected_components", "number_weakly_connected_components",
    "pagerank", "single_source_dijkstra_path_length", "single_source_shortest_path_length",
    "single_target_shortest_path_length", "strongly_connected_components", "transitivity",
    "triangles", "weakly_connected_components",
]


def _device() -> str:
    """``nx.config.backends.gblas.device``: where the matrices go ("cpu" or "gpu")."""
    cfg = getattr(nx.config.backends, "gblas", None)
    device = getattr(cfg, "device", "cpu") if cfg is not None else "cpu"
    if device not in ("cpu", "gpu"):
        raise ValueError(f"nx.config.backends.gblas.device must be 'cpu' or 'gpu', "
                         f"got {device!r}")
    return device


def _graph(G) -> GblasGraph:
    """``G`` as a GblasGraph (a NetworkX graph is converted, e.g. in direct calls)."""
    if isinstance(G, GblasGraph):
        return G
    from .graph import from_networkx

    return from_networkx(G, preserve_edge_attrs=True)


def _null_graph_check(G) -> None:
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")


# ----------------------------------------------------------------------------- pagerank
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    """``nx.pagerank`` by :func:`gblas.algorithms.pagerank` with NetworkX's stopping rule.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")])
    >>> r = nx.pagerank(G, backend="gblas")
    >>> {v: round(x, 4) for v, x in r.items()}
    {'a': 0.3333, 'b': 0.3333, 'c': 0.3333}
    """
    from ..algorithms import PowerIterationFailedConvergence
    from ..algorithms import pagerank as gb_pagerank

    G = _graph(G)
    if len(G) == 0:
        return {}
    p = None
    if personalization is not None:
        p = np.array([personalization.get(v, 0) for v in G.nodes], dtype=np.float64)
        if p.sum() == 0:
            raise ZeroDivisionError
    if max_iter < 1:
        # NetworkX runs no iteration, so none converges
        raise nx.PowerIterationFailedConvergence(max_iter)
    # parallel edges of a multigraph add up, as in nx.to_scipy_sparse_array
    A = G.matrix(weight, "plus", device=_device())
    try:
        r = gb_pagerank(A, damping=alpha, tol=tol, max_iter=max_iter, personalization=p,
                        criterion="networkx")
    except PowerIterationFailedConvergence:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    return dict(zip(G.nodes, to_numpy(r.to_dense()).tolist()))


# -------------------------------------------------------------------- traversal, paths
def _levels(G: GblasGraph, source: int, transposed: bool = False) -> np.ndarray:
    """BFS level of every vertex from vertex ``source`` (-1: not reached)."""
    from ..algorithms import bfs

    A = G.pattern(_device())
    levels = bfs(A.T if transposed else A, source)
    return to_numpy(levels.to_dense(fill=-1))


def _length_dict(G: GblasGraph, dist: np.ndarray, reached: np.ndarray) -> dict:
    """{node: dist} over the reached vertices, nearest first (ties in node order)."""
    idx = np.flatnonzero(reached)
    idx = idx[np.argsort(dist[idx], kind="stable")]
    nodes = G.nodes
    return dict(zip((nodes[i] for i in idx.tolist()), dist[idx].tolist()))


def single_source_shortest_path_length(G, source, cutoff=None):
    """``nx.single_source_shortest_path_length`` by :func:`gblas.algorithms.bfs`.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_shortest_path_length(nx.path_graph(4), 0, backend="gblas")
    {0: 0, 1: 1, 2: 2, 3: 3}
    """
    G = _graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    lv = _levels(G, G.index[source])
    keep = lv >= 0
    if cutoff is not None:
        keep &= (lv <= cutoff) | (lv == 0)
    return _length_dict(G, lv, keep)


def single_target_shortest_path_length(G, target, cutoff=None):
    """``nx.single_target_shortest_path_length``: a BFS over the reversed edges.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1), (1, 2)])
    >>> nx.single_target_shortest_path_length(G, 2, backend="gblas")
    {2: 0, 1: 1, 0: 2}
    """
    G = _graph(G)
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    lv = _levels(G, G.index[target], transposed=G.is_directed())
    keep = lv >= 0
    if cutoff is not None:
        keep &= (lv <= cutoff) | (lv == 0)
    return _length_dict(G, lv, keep)


def descendants_at_distance(G, source, distance):
    """``nx.descendants_at_distance``: the vertices at BFS level ``distance``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.descendants_at_distance(nx.path_graph(5), 2, 2, backend="gblas"))
    [0, 4]
    """
    G = _graph(G)
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if distance < 0:
        return set()
    lv = _levels(G, G.index[source])
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(lv == distance).tolist()}


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
    from ..algorithms import sssp

    G = _graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    w = G.weights(weight)
    if w.size and w.min() < 0:
        raise NotImplementedError("negative edge weights: Dijkstra does not apply")
    if w.dtype.kind == "f" and np.isnan(w).any():
        raise NotImplementedError("NaN edge weights")
    A = G.matrix(weight, "min", device=_device())
    d = to_numpy(sssp(A, G.index[source]).to_dense(fill=np.inf))
    keep = np.isfinite(d)
    if cutoff is not None:
        keep &= d <= cutoff
    if w.dtype.kind == "i":
        d = np.where(keep, d, 0).astype(np.int64)
    keep[G.index[source]] = False
    # the source first, its length the int 0 whatever the weights (as in NetworkX)
    return {source: 0, **_length_dict(G, d, keep)}


# --------------------------------------------------------------------------- components
def _labels(G: GblasGraph, connection: str) -> np.ndarray:
    from ..algorithms import connected_components as cc

    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    return to_numpy(cc(G.pattern(_device()), connection).to_dense())


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
    G = _graph(G)
    return _component_sets(G, _labels(G, "weak"))


def number_connected_components(G):
    """``nx.number_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_connected_components(nx.empty_graph(3), backend="gblas")
    3
    """
    return int(np.unique(_labels(_graph(G), "weak")).size)


def is_connected(G):
    """``nx.is_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_connected(nx.path_graph(3), backend="gblas")
    True
    """
    G = _graph(G)
    _null_graph_check(G)
    return bool((_labels(G, "weak") == 0).all())


def node_connected_component(G, n):
    """``nx.node_connected_component``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.node_connected_component(nx.Graph([(1, 2), (3, 4)]), 4, backend="gblas"))
    [3, 4]
    """
    G = _graph(G)
    labels = _labels(G, "weak")
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
    G = _graph(G)
    return _component_sets(G, _labels(G, "weak"))


def number_weakly_connected_components(G):
    """``nx.number_weakly_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_weakly_connected_components(nx.DiGraph([(1, 2), (3, 4)]),
    ...                                       backend="gblas")
    2
    """
    return int(np.unique(_labels(_graph(G), "weak")).size)


def is_weakly_connected(G):
    """``nx.is_weakly_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_weakly_connected(nx.DiGraph([(1, 2), (3, 2)]), backend="gblas")
    True
    """
    G = _graph(G)
    _null_graph_check(G)
    return bool((_labels(G, "weak") == 0).all())


def _sinks_first(G: GblasGraph, labels: np.ndarray) -> list:
    """The component labels in reverse topological order of the condensation (a
    component after every component it reaches; ties by smallest label), the order in
    which NetworkX's Tarjan search finishes them."""
    import heapq

    comp = np.unique(labels)
    pos = np.searchsorted(comp, labels)  # vertex -> component number
    a, b = pos[G.rows], pos[G.cols]
    cross = a != b
    k = comp.size
    edges = np.unique(a[cross] * k + b[cross])  # distinct condensation edges a -> b
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
    G = _graph(G)
    labels = _labels(G, "strong")
    # the sets come by label (each component's smallest vertex id)
    by_label = dict(zip(np.unique(labels).tolist(), _component_sets(G, labels)))
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
    return int(np.unique(_labels(_graph(G), "strong")).size)


def is_strongly_connected(G):
    """``nx.is_strongly_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_strongly_connected(nx.DiGraph([(1, 2), (2, 1)]), backend="gblas")
    True
    """
    G = _graph(G)
    _null_graph_check(G)
    return bool((_labels(G, "strong") == 0).all())


# ------------------------------------------------------------ triangles and clustering
def _triangles_degrees(G: GblasGraph):
    """(2 x triangles through every vertex, degree) of the simple undirected graph
    (self loops and parallel edges ignored), as int64 arrays."""
    from .. import Matrix, mxm, reduce

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
        S = S.to(_device()) if _device() != "cpu" else S
        # C<S> = S plus.pair S: C(i, j) = common neighbours of the edge i - j;
        # row sums count every triangle through i twice
        C = mxm(S, S, "plus_pair", mask=S.S)
        t2 = to_numpy(reduce(C, "plus", axis="rows").to_dense()).astype(np.int64)
    memo = G._memo["triangles"] = (t2, deg)
    return memo


def _refuse_multigraph(G) -> None:
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def _node_subset(G: GblasGraph, nodes):
    """The vertex ids of ``G.nbunch_iter(nodes)`` (NetworkX's rules)."""
    if nodes is None:
        return np.arange(len(G))
    if nodes in G:
        return np.array([G.index[nodes]])
    try:
        return np.array([G.index[v] for v in nodes if v in G], dtype=np.int64)
    except TypeError:
        raise nx.NetworkXError(
            f"nbunch is not a node or a sequence of nodes: {nodes!r}") from None


def triangles(G, nodes=None):
    """``nx.triangles`` by a masked ``plus.pair`` product (every vertex at once).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.triangles(nx.complete_graph(["a", "b", "c"]), backend="gblas")
    {'a': 1, 'b': 1, 'c': 1}
    """
    G = _graph(G)
    if nodes is not None:
        _refuse_multigraph(G)
    t2, _ = _triangles_degrees(G)
    if nodes is not None and nodes in G:
        return int(t2[G.index[nodes]] // 2)
    idx = _node_subset(G, nodes)
    return dict(zip((G.nodes[i] for i in idx.tolist()), (t2[idx] // 2).tolist()))


def clustering(G, nodes=None, weight=None):
    """``nx.clustering`` of an undirected, unweighted graph.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.clustering(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas")
    {0: 1.0, 1: 1.0, 2: 0.3333333333333333, 3: 0}
    """
    G = _graph(G)
    _refuse_multigraph(G)
    t2, deg = _triangles_degrees(G)
    idx = _node_subset(G, nodes)
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
    G = _graph(G)
    _refuse_multigraph(G)
    if len(G) == 0:
        return 0
    t2, deg = _triangles_degrees(G)
    tri = int(t2.sum())
    contri = int((deg * (deg - 1)).sum())
    return 0 if tri == 0 else tri / contri


# --------------------------------------------------------------- cores and centrality
def core_number(G):
    """``nx.core_number`` by :func:`gblas.algorithms.core_number` (a directed graph's
    degree is in-degree plus out-degree, as in NetworkX).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.core_number(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas")
    {0: 2, 1: 2, 2: 2, 3: 1}
    """
    from ..algorithms import core_number as gb_core

    G = _graph(G)
    if np.any(G.rows == G.cols):
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    if len(G) == 0:
        return {}
    core = gb_core(G.pattern(_device()), directed=G.is_directed())
    return dict(zip(G.nodes, to_numpy(core.to_dense()).tolist()))


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

    G = _graph(G)
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
    bc = gb_bc(G.pattern(_device()), sources, normalized=bool(normalized),
               directed=G.is_directed())
    return dict(zip(G.nodes, to_numpy(bc.to_dense()).tolist()))
