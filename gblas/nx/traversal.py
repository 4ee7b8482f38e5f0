"""NetworkX's breadth-first functions run by gblas: the levels come from
:func:`gblas.algorithms.bfs` (one source) or a masked frontier loop (several sources);
the order NetworkX discovers the vertices in — level by level, each vertex from the
first vertex of the previous level that has it as a neighbour, in adjacency order — is
then rebuilt from the levels without another search (:func:`_discovery`)."""

from __future__ import annotations

import networkx as nx
import numpy as np

from .._device import unique
from ._common import device, graph, to_numpy
from .graph import GblasGraph

__all__ = ["ancestors", "bfs_edges", "bfs_layers", "bfs_predecessors", "bfs_successors",
           "bfs_tree", "descendants", "descendants_at_distance"]


def levels(G: GblasGraph, sources, transposed: bool = False,
           depth: int | None = None) -> np.ndarray:
    """BFS level of every vertex from the vertex ids ``sources`` (-1: not reached), at
    most ``depth`` levels (None: all); ``transposed`` follows the edges backwards."""
    from ..algorithms import bfs
    from ..core import Vector, apply, mxv

    A = G.pattern(device())
    A = A.T if transposed and G.is_directed() else A
    sources = unique(np.asarray(sources, dtype=np.int64))
    n = len(G)
    if sources.size == 1 and depth is None:
        return to_numpy(bfs(A, int(sources[0])).to_dense(fill=-1))
    # lv<sources> = 0;  q<sources> = true
    lv = Vector.from_coo(sources, np.zeros(sources.size, dtype=np.int64), n).to(A.device)
    q = Vector.from_coo(sources, np.ones(sources.size, dtype=bool), n).to(A.device)
    AT = A.T
    k = 0
    while q.nvals and (depth is None or k < depth):
        k += 1
        # q<!lv, replace> = A' any.pair q: the unvisited out-neighbours of the frontier
        q = mxv(AT, q, "any_pair", mask=~lv.S, replace=True)
        # lv<q> = k
        apply(q, "second", right=k, mask=q.S, out=lv)
    return to_numpy(lv.to_dense(fill=-1)).astype(np.int64)


def _discovery(G: GblasGraph, lv: np.ndarray, first: list):
    """NetworkX's BFS discovery order from the levels ``lv``: ``(order, parent)``,
    ``order`` the reached vertices level by level (``first`` — the sources, in the order
    given — then each vertex after those found before it), ``parent[i]`` the vertex
    ``order[i]`` was found from (-1 for the sources).

    A vertex of level ``L + 1`` is found from its neighbour of level ``L`` that comes
    first in ``order``, through the first such edge in adjacency order (the COO arrays
    keep NetworkX's adjacency order); the vertices of a level are found in the order of
    (their finder's position, that edge's position)."""
    rows, cols = G.rows, G.cols
    E = rows.size
    lr = lv[rows]
    tree = (lr >= 0) & (lv[cols] == lr + 1)
    eid = np.flatnonzero(tree)
    # the candidate edges grouped by the level of their tail
    eid = eid[np.argsort(lr[eid], kind="stable")]
    bounds = np.searchsorted(lr[eid], np.arange(int(lv.max(initial=0)) + 2))
    pos = np.full(lv.size, -1, dtype=np.int64)
    order = [np.asarray(first, dtype=np.int64)]
    pos[order[0]] = np.arange(order[0].size)
    parent = [np.full(order[0].size, -1, dtype=np.int64)]
    done = order[0].size
    for L in range(bounds.size - 1):
        e = eid[bounds[L]:bounds[L + 1]]
        if e.size == 0:
            break
        key = pos[rows[e]] * max(E, 1) + e
        srt = np.argsort(key, kind="stable")
        c = cols[e][srt]
        _, firsts = np.unique(c, return_index=True)  # each child's first finder edge
        firsts.sort()  # discovery order
        new = c[firsts]
        order.append(new)
        parent.append(rows[e][srt][firsts])
        pos[new] = done + np.arange(new.size)
        done += new.size
    return np.concatenate(order), np.concatenate(parent)


def _missing(G: GblasGraph, source) -> nx.NetworkXError:
    kind = "digraph" if G.is_directed() else "graph"
    return nx.NetworkXError(f"The node {source} is not in the {kind}.")


def _tree(G: GblasGraph, source, depth_limit):
    """(order, parent) of NetworkX's BFS from ``source`` (the node label)."""
    if source not in G:
        raise _missing(G, source)
    s = G.index[source]
    lv = levels(G, [s])
    if depth_limit is not None:
        lv = np.where(lv > max(depth_limit, 0), -1, lv)
    return _discovery(G, lv, [s])


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """``nx.bfs_edges``: the tree edges in NetworkX's discovery order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_edges(nx.path_graph(4), 1, backend="gblas"))
    [(1, 0), (1, 2), (2, 3)]
    """
    G = graph(G)
    if reverse and G.is_directed():
        raise NotImplementedError("reverse=True (predecessor order is not converted)")

    def edges():
        order, parent = _tree(G, source, depth_limit)
        nodes = G.nodes
        for p, v in zip(parent[1:].tolist(), order[1:].tolist()):
            yield nodes[p], nodes[v]

    return edges()


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """``nx.bfs_tree``: the BFS tree as a directed graph (nodes in discovery order).

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.bfs_tree(nx.path_graph(4), 1, backend="gblas").edges)
    [(1, 0), (1, 2), (2, 3)]
    """
    G = graph(G)
    if reverse and G.is_directed():
        raise NotImplementedError("reverse=True (predecessor order is not converted)")
    order, parent = _tree(G, source, depth_limit)
    nodes = G.nodes
    pos = np.empty(len(G), dtype=np.int64)
    pos[order] = np.arange(order.size)
    return GblasGraph([nodes[i] for i in order.tolist()], pos[parent[1:]], pos[order[1:]],
                      directed=True)


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """``nx.bfs_predecessors``: ``(vertex, its BFS parent)`` in discovery order.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.bfs_predecessors(nx.path_graph(3), 0, backend="gblas"))
    {1: 0, 2: 1}
    """
    for s, t in bfs_edges(G, source, depth_limit=depth_limit):
        yield t, s


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """``nx.bfs_successors``: ``(vertex, [its BFS children])`` in discovery order.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.bfs_successors(nx.star_graph(3), 0, backend="gblas"))
    {0: [1, 2, 3]}
    """
    parent = source
    children = []
    for p, c in bfs_edges(G, source, depth_limit=depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield parent, children
        children = [c]
        parent = p
    yield parent, children


def bfs_layers(G, sources):
    """``nx.bfs_layers``: the lists of vertices at each distance from ``sources`` (one
    node or several), each in NetworkX's discovery order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_layers(nx.path_graph(5), [0, 4], backend="gblas"))
    [[0, 4], [1, 3], [2]]
    """
    G = graph(G)
    if sources in G:
        sources = [sources]
    sources = list(sources)
    for s in sources:
        if s not in G:
            raise nx.NetworkXError(f"The node {s} is not in the graph.")

    def layers():
        if not sources:
            return
        ids = [G.index[s] for s in sources]
        uniq = list(dict.fromkeys(ids))
        lv = levels(G, uniq)
        order, _ = _discovery(G, lv, uniq)
        yield [G.nodes[i] for i in uniq]
        nodes = G.nodes
        cuts = np.flatnonzero(np.diff(lv[order])) + 1
        for part in np.split(order, cuts)[1:]:
            yield [nodes[i] for i in part.tolist()]

    return layers()


def _reach(G: GblasGraph, source, transposed: bool) -> set:
    if source not in G:
        raise _missing(G, source)
    s = G.index[source]
    lv = levels(G, [s], transposed=transposed)
    lv[s] = -1
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(lv >= 0).tolist()}


def descendants(G, source):
    """``nx.descendants``: every vertex reachable from ``source`` (one BFS).

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.descendants(nx.DiGraph([(0, 1), (1, 2), (3, 0)]), 0, backend="gblas"))
    [1, 2]
    """
    return _reach(graph(G), source, transposed=False)


def ancestors(G, source):
    """``nx.ancestors``: every vertex that reaches ``source`` (one BFS over ``A'``).

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.ancestors(nx.DiGraph([(0, 1), (1, 2), (3, 0)]), 1, backend="gblas"))
    [0, 3]
    """
    return _reach(graph(G), source, transposed=True)


def descendants_at_distance(G, source, distance):
    """``nx.descendants_at_distance``: the vertices at BFS level ``distance``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.descendants_at_distance(nx.path_graph(5), 2, 2, backend="gblas"))
    [0, 4]
    """
    G = graph(G)
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if distance < 0:
        return set()
    lv = levels(G, [G.index[source]])
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(lv == distance).tolist()}
