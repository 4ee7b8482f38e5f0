"""The ``networkx.backends`` entry point: :class:`BackendInterface`.

NetworkX's dispatcher loads this object and calls, on it, ``convert_from_nx`` /
``convert_to_nx`` (graph conversion), ``can_run`` / ``should_run`` (whether gblas takes
a call) and the functions themselves, by their NetworkX names.
"""

from __future__ import annotations

import inspect

import networkx as nx

from . import FUNCTIONS
from . import algorithms as _algorithms
from .graph import GblasGraph, from_networkx

__all__ = ["EXPECTED_FAILURES", "BackendInterface"]


def _is_graph(G) -> bool:
    return isinstance(G, (nx.Graph, GblasGraph))


def _declined(name: str, bound: inspect.BoundArguments):
    """Why gblas does not run ``name`` with these arguments (a str), or None."""
    a = bound.arguments
    G = a.get("G")
    if G is not None and not _is_graph(G):
        return f"G is a {type(G).__name__}, not a graph"
    weight = a.get("weight")
    if callable(weight):
        return "weight functions are not supported (only edge attribute names)"
    if name == "pagerank":
        if a.get("nstart") is not None:
            return "nstart (a starting vector) is not supported"
        if a.get("dangling") is not None:
            return "dangling (a separate dangling distribution) is not supported"
    elif name == "edge_betweenness_centrality":
        if G is not None and G.is_multigraph():
            return "edge betweenness of a multigraph (edges keyed by edge key) is not " \
                   "supported"
    elif name in ("clustering", "average_clustering"):
        if weight is not None:
            return "weighted clustering is not supported (weight must be None)"
        if G is not None and G.is_directed():
            return "directed clustering is not supported"
    elif name in ("transitivity", "square_clustering", "label_propagation_communities"):
        if G is not None and G.is_directed():
            return f"{name} of a directed graph is not supported"
    elif name in ("bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors"):
        if a.get("sort_neighbors") is not None:
            return "sort_neighbors is not supported"
        if a.get("reverse") and G is not None and G.is_directed():
            return "reverse=True on a directed graph is not supported"
    elif name in ("reciprocity", "overall_reciprocity"):
        if G is not None and (not G.is_directed() or G.is_multigraph()):
            return f"{name} is supported for directed graphs without parallel edges"
    elif name == "average_neighbor_degree":
        if G is not None and G.is_multigraph():
            return "average_neighbor_degree of a multigraph is not supported"
    return None


#: NetworkX's own tests that fail with the backend on purpose: (test module, test) ->
#: why.  ``BackendInterface.on_start_tests`` marks them xfail (strict: a fixed one fails).
EXPECTED_FAILURES = {
    ("networkx.algorithms.link_analysis.tests.test_hits",
     "TestHITS.test_hits_not_convergent"):
        "nx.hits(G, max_iter=1) fails in NetworkX because ARPACK's svds gets one restart; "
        "gblas runs its own power iteration to 1e-13 (max_iter < 1 raises as NetworkX "
        "does) and converges on that path graph",
}


class BackendInterface:
    """NetworkX's view of the ``gblas`` backend.

    Besides the methods below, every function of :data:`gblas.nx.FUNCTIONS` is an
    attribute (a static method of :mod:`gblas.nx.algorithms`, with NetworkX's
    signature).

    Examples
    --------
    >>> import networkx as nx
    >>> from gblas.nx.interface import BackendInterface as gbx
    >>> G = nx.path_graph(3)
    >>> gbx.can_run("pagerank", (G,), {"nstart": {0: 1}})
    'nstart (a starting vector) is not supported'
    >>> gbx.can_run("pagerank", (G,), {"alpha": 0.9})
    True
    """

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None):
        """A :class:`~gblas.nx.GblasGraph` from the NetworkX graph ``G``.

        ``edge_attrs`` maps the attributes a function reads (``weight``) to their
        defaults; NetworkX caches the result in ``G.__networkx_cache__`` (when
        ``nx.config.cache_converted_graphs`` is on), so a graph is converted once per
        set of attributes.  ``name`` and ``graph_name`` (the calling function and the
        argument) do not change the conversion.

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx.interface import BackendInterface as gbx
        >>> gbx.convert_from_nx(nx.DiGraph([(1, 2)]))
        GblasGraph(DiGraph, 2 nodes, 1 edges)
        """
        if isinstance(G, GblasGraph):
            return G
        return from_networkx(G, edge_attrs=edge_attrs, node_attrs=node_attrs,
                             preserve_edge_attrs=preserve_edge_attrs,
                             preserve_node_attrs=preserve_node_attrs,
                             preserve_graph_attrs=preserve_graph_attrs)

    @staticmethod
    def convert_to_nx(result, *, name=None):
        """``result`` for NetworkX: a GblasGraph becomes a NetworkX graph; dicts, sets,
        generators and numbers (already keyed by node labels) pass through.

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx.interface import BackendInterface as gbx
        >>> H = gbx.convert_from_nx(nx.path_graph(3))
        >>> type(gbx.convert_to_nx(H)).__name__, gbx.convert_to_nx({0: 1.0})
        ('Graph', {0: 1.0})
        """
        if isinstance(result, GblasGraph):
            return result.to_networkx()
        return result

    @staticmethod
    def can_run(name, args, kwargs):
        """True when gblas implements ``name`` with these arguments; else a str saying
        which option it declines (NetworkX then tries the next backend, runs its own
        code when falling back, or raises ``NotImplementedError`` when
        ``backend="gblas"`` was asked for).

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx.interface import BackendInterface as gbx
        >>> gbx.can_run("betweenness_centrality", (nx.path_graph(3),), {"endpoints": True})
        True
        >>> gbx.can_run("edge_betweenness_centrality", (nx.MultiGraph([(0, 1)]),), {})
        'edge betweenness of a multigraph (edges keyed by edge key) is not supported'
        """
        func = getattr(_algorithms, name, None) if name in FUNCTIONS else None
        if func is None:
            return f"{name} is not implemented by gblas"
        try:
            bound = inspect.signature(func).bind(*args, **kwargs)
        except TypeError as exc:
            return f"unexpected arguments: {exc}"
        reason = _declined(name, bound)
        return True if reason is None else reason

    @staticmethod
    def on_start_tests(items):
        """NetworkX's test-suite hook (``NETWORKX_TEST_BACKEND=gblas``): mark the tests
        of :data:`EXPECTED_FAILURES` as expected failures, each with its reason.

        Examples
        --------
        >>> from gblas.nx.interface import BackendInterface as gbx
        >>> gbx.on_start_tests([])
        """
        import pytest

        for item in items:
            module = getattr(getattr(item, "module", None), "__name__", "")
            cls = getattr(item, "cls", None)
            test = f"{cls.__name__}.{item.name}" if cls is not None else item.name
            reason = EXPECTED_FAILURES.get((module, test))
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))

    @staticmethod
    def should_run(name, args, kwargs):
        """Whether gblas should take a call it can run: always (the conversion is cached
        on the graph, and the kernels are compiled once per machine).

        Examples
        --------
        >>> from gblas.nx.interface import BackendInterface as gbx
        >>> gbx.should_run("pagerank", (), {})
        True
        """
        return True


for _name in FUNCTIONS:
    setattr(BackendInterface, _name, staticmethod(getattr(_algorithms, _name)))
del _name
