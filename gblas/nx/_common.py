"""Helpers shared by the NetworkX backend's function modules: the configured device, the
graph argument, node subsets and NetworkX's errors."""

from __future__ import annotations

import networkx as nx
import numpy as np

from .._device import to_numpy
from .graph import GblasGraph

__all__ = ["device", "graph", "length_dict", "node_subset", "null_graph_check",
           "refuse_multigraph", "to_numpy"]


def device() -> str:
    """``nx.config.backends.gblas.device``: where the matrices go ("cpu" or "gpu")."""
    cfg = getattr(nx.config.backends, "gblas", None)
    dev = getattr(cfg, "device", "cpu") if cfg is not None else "cpu"
    if dev not in ("cpu", "gpu"):
        raise ValueError(f"nx.config.backends.gblas.device must be 'cpu' or 'gpu', "
                         f"got {dev!r}; set it with nx.config.backends.gblas.device = 'cpu'")
    return dev


def graph(G) -> GblasGraph:
    """``G`` as a GblasGraph (a NetworkX graph is converted, e.g. in direct calls)."""
    if isinstance(G, GblasGraph):
        return G
    from .graph import from_networkx

    return from_networkx(G, preserve_edge_attrs=True)


def null_graph_check(G) -> None:
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")


def refuse_multigraph(G) -> None:
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def refuse_directed(G) -> None:
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")


def refuse_undirected(G) -> None:
    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")


def length_dict(G: GblasGraph, dist: np.ndarray, reached: np.ndarray) -> dict:
    """{node: dist} over the reached vertices, nearest first (ties in node order)."""
    idx = np.flatnonzero(reached)
    idx = idx[np.argsort(dist[idx], kind="stable")]
    nodes = G.nodes
    return dict(zip((nodes[i] for i in idx.tolist()), dist[idx].tolist()))


def node_subset(G: GblasGraph, nodes):
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


def node_dict(G: GblasGraph, values, idx=None) -> dict:
    """{node: value} for the vertices ``idx`` (default all), Python numbers."""
    values = to_numpy(values)
    if idx is None:
        return dict(zip(G.nodes, values.tolist()))
    nodes = G.nodes
    return dict(zip((nodes[i] for i in idx.tolist()), values[idx].tolist()))
