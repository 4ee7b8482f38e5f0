"""NetworkX's core decomposition run by gblas: core numbers by synchronous peeling
(:func:`gblas.algorithms.core_number`), the k-core / shell / crust / corona subgraphs
from them, and the k-truss by masked support products."""

from __future__ import annotations

import networkx as nx
import numpy as np

from ._common import device, graph, refuse_directed, refuse_multigraph, to_numpy
from .graph import GblasGraph

__all__ = ["core_number", "k_core", "k_corona", "k_crust", "k_shell", "k_truss"]

_SELF_LOOPS = ("Input graph has self loops which is not permitted; "
               "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")


def _core_array(G: GblasGraph) -> np.ndarray:
    from ..algorithms import core_number as gb_core

    if np.any(G.rows == G.cols):
        raise nx.NetworkXNotImplemented(_SELF_LOOPS)
    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    core = gb_core(G.pattern(device()), directed=G.is_directed())
    return to_numpy(core.to_dense()).astype(np.int64)


def core_number(G):
    """``nx.core_number`` by :func:`gblas.algorithms.core_number` (a directed graph's
    degree is in-degree plus out-degree, as in NetworkX).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.core_number(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas")
    {0: 2, 1: 2, 2: 2, 3: 1}
    """
    G = graph(G)
    return dict(zip(G.nodes, _core_array(G).tolist()))


def _cores(G: GblasGraph, core_number) -> tuple[np.ndarray, np.ndarray]:
    """(core of every vertex, the vertices named by the core dict) — NetworkX filters
    the nodes of the ``core_number`` dict it is given, or computes one."""
    if core_number is None:
        return _core_array(G), np.ones(len(G), dtype=bool)
    core = np.full(len(G), np.iinfo(np.int64).min, dtype=np.int64)
    named = np.zeros(len(G), dtype=bool)
    index = G.index
    for v, c in core_number.items():
        i = index.get(v)
        if i is not None:
            core[i] = c
            named[i] = True
    return core, named


def _max_core(core: np.ndarray, named: np.ndarray) -> int:
    if not named.any():
        raise ValueError("max() arg is an empty sequence")
    return int(core[named].max())


def k_core(G, k=None, core_number=None):
    """``nx.k_core``: the subgraph of the vertices of core number ``>= k`` (default the
    largest), with all attributes.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.k_core(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas"))
    [0, 1, 2]
    """
    G = graph(G)
    refuse_multigraph(G)
    core, named = _cores(G, core_number)
    k = _max_core(core, named) if k is None else k
    return G.subgraph(named & (core >= k))


def k_shell(G, k=None, core_number=None):
    """``nx.k_shell``: the subgraph of the vertices of core number exactly ``k`` (default
    the largest).

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.k_shell(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), 1, backend="gblas"))
    [3]
    """
    G = graph(G)
    refuse_multigraph(G)
    core, named = _cores(G, core_number)
    k = _max_core(core, named) if k is None else k
    return G.subgraph(named & (core == k))


def k_crust(G, k=None, core_number=None):
    """``nx.k_crust``: the subgraph of the vertices of core number ``<= k`` (default one
    less than the largest).

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.k_crust(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), backend="gblas"))
    [3]
    """
    G = graph(G)
    refuse_multigraph(G)
    core, named = _cores(G, core_number)
    k = _max_core(core, named) - 1 if k is None else k
    return G.subgraph(named & (core <= k))


def k_corona(G, k, core_number=None):
    """``nx.k_corona``: the vertices of core number ``k`` with exactly ``k`` neighbours
    (successors, in a directed graph) of core number ``>= k``; the count is one product
    ``A plus.second [core >= k]``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.k_corona(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]), 1, backend="gblas"))
    [3]
    """
    from ..core import Vector, mxv

    G = graph(G)
    refuse_multigraph(G)
    core, named = _cores(G, core_number)
    n = len(G)
    if n == 0:
        return G.subgraph(named)
    dev = device()
    inner = Vector.from_dense((core >= k).astype(np.int64)).to(dev)
    # cnt = A plus.second [core >= k]: the neighbours in the k-core
    cnt = to_numpy(mxv(G.pattern(dev), inner, "plus_second").to_dense(fill=0))
    return G.subgraph(named & (core == k) & (cnt == k))


def k_truss(G, k):
    """``nx.k_truss`` of an undirected graph: the edges in at least ``k - 2`` triangles
    of what remains, by repeated masked products

        T<S> = S plus.pair S;   S = select(T >= k - 2)

    until no edge drops; the vertices left without an edge go too.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])
    >>> sorted(nx.k_truss(G, 3, backend="gblas").edges)
    [(0, 1), (0, 2), (1, 2)]
    """
    from ..core import Matrix, apply, mxm, select

    G = graph(G)
    refuse_directed(G)
    refuse_multigraph(G)
    if np.any(G.rows == G.cols):
        raise nx.NetworkXNotImplemented(_SELF_LOOPS)
    n = len(G)
    dev = device()
    # int64 values: the support counts of plus.pair are then integers, not bools
    S = Matrix.from_coo(G.rows, G.cols, np.ones(G.rows.size, dtype=np.int64), shape=(n, n))
    S = S.to(dev) if dev != "cpu" else S
    if k > 2:
        while S.nvals:
            # T<S> = S plus.pair S: the triangles through every remaining edge
            T = mxm(S, S, "plus_pair", mask=S.S)
            # S = one(select(T >= k - 2)): the edges with enough support
            kept = select(T, "valuege", k - 2)
            if kept.nvals == S.nvals:
                break
            S = apply(kept, "one")
    r, c, _ = S.to_coo()
    r, c = to_numpy(r).astype(np.int64), to_numpy(c).astype(np.int64)
    keep_edges = np.isin(G.rows * n + G.cols, r * n + c)
    keep_nodes = np.zeros(n, dtype=bool)
    keep_nodes[r] = True
    return G.subgraph(keep_nodes, keep_edges)
