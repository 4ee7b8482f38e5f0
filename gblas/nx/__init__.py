"""NetworkX backend ``gblas``: NetworkX functions run by gblas' sparse kernels.

Installing gblas registers the backend (entry points ``networkx.backends`` and
``networkx.backend_info``); NetworkX then runs a supported function with gblas when asked::

    import networkx as nx
    nx.pagerank(G, backend="gblas")             # one call
    nx.config.backend_priority.algos = ["gblas"] # every supported call
    nx.config.backends.gblas.device = "gpu"      # matrices on the GPU (CuPy)

The graph is converted once to a :class:`GblasGraph` (NetworkX keeps the conversion in
``G.__networkx_cache__``); the results are NetworkX's (dicts keyed by node, generators of
sets, numbers).  ``import gblas`` does not import NetworkX; ``gblas.nx.interface`` does.
See ``docs/networkx.md`` for the functions and the options each one declines.

Examples
--------
>>> import networkx as nx
>>> G = nx.Graph([("a", "b"), ("b", "c")])
>>> nx.betweenness_centrality(G, backend="gblas")
{'a': 0.0, 'b': 1.0, 'c': 0.0}
"""

from __future__ import annotations

from .graph import GblasGraph, from_networkx

__all__ = ["FUNCTIONS", "GblasGraph", "from_networkx", "get_info"]

#: The NetworkX functions the backend implements -> what differs from NetworkX (shown in
#: the "Backends" section of their NetworkX docstrings).
FUNCTIONS = {
    # link analysis (gblas.nx.link_analysis)
    "pagerank": "Power iteration with NetworkX's stopping rule (L1 change < n * tol), so "
                "the iterates are NetworkX's. Declined: ``nstart``, ``dangling``, a "
                "callable ``weight``.",
    "hits": "Power iteration on the singular vectors (``a = A' h``, ``h = A a``) to 1e-13, "
            "continued by Lanczos cycles on ``A' A`` when the singular values are close, "
            "instead of ARPACK.",
    "eigenvector_centrality": "NetworkX's iteration over ``A + I`` and stopping rule.",
    "eigenvector_centrality_numpy": "Power iteration over ``A + I`` to 1e-13 (continued by "
                                    "Lanczos cycles on an undirected graph where it is "
                                    "slow) instead of ARPACK (declined when it does not "
                                    "converge).",
    "katz_centrality": "NetworkX's iteration and stopping rule.",
    "katz_centrality_numpy": "The Katz iteration to 1e-14 instead of a dense solve "
                             "(declined when ``alpha`` is too large to converge).",
    # centrality (gblas.nx.centrality)
    "degree_centrality": "",
    "in_degree_centrality": "",
    "out_degree_centrality": "",
    "average_neighbor_degree": "One ``mxv`` of the target degrees. Declined: multigraphs.",
    "betweenness_centrality": "A compiled BFS / Dijkstra per source, sources in "
                              "parallel, making NetworkX's decisions (on the GPU device, "
                              "unweighted without endpoints: batched Brandes, BFS from "
                              "many sources at once). The ``k`` sources are drawn as "
                              "NetworkX draws them.",
    "edge_betweenness_centrality": "A compiled BFS / Dijkstra per source (sources in "
                                   "parallel), scores accumulated per adjacency entry; "
                                   "``k`` sampled as NetworkX samples. Declined: "
                                   "multigraphs.",
    # traversal (gblas.nx.traversal)
    "bfs_edges": "Levels by BFS, then NetworkX's discovery order rebuilt from them. "
                 "Declined: ``reverse=True`` on a directed graph, ``sort_neighbors``.",
    "bfs_tree": "As ``bfs_edges``.",
    "bfs_predecessors": "As ``bfs_edges``.",
    "bfs_successors": "As ``bfs_edges``.",
    "bfs_layers": "A multi-source frontier loop (masked ``any.pair`` products).",
    "descendants": "One BFS.",
    "ancestors": "One BFS over the reversed edges.",
    "descendants_at_distance": "One BFS; the vertices at the given level.",
    # shortest paths (gblas.nx.shortest_paths)
    "single_source_shortest_path_length": "One BFS (push/pull chosen per level).",
    "single_target_shortest_path_length": "One BFS over the reversed edges.",
    "all_pairs_shortest_path_length": "One BFS per source.",
    "has_path": "One BFS.",
    "single_source_dijkstra_path_length": "Delta-stepping or a heap Dijkstra "
                                          "(planner's choice); integer weights give "
                                          "integer lengths. Declined: a callable "
                                          "``weight``, negative or NaN weights.",
    "dijkstra_path_length": "As ``single_source_dijkstra_path_length``.",
    "all_pairs_dijkstra_path_length": "One search per source.",
    "multi_source_dijkstra_path_length": "Batched ``min.+`` relaxation, one row per "
                                         "source, reduced by ``min``.",
    "single_source_bellman_ford_path_length": "Frontier Bellman-Ford over ``min.+``.",
    "bellman_ford_path_length": "As ``single_source_bellman_ford_path_length``.",
    "all_pairs_bellman_ford_path_length": "One search per source.",
    "negative_edge_cycle": "Bellman-Ford from a virtual source joined to every vertex.",
    # components (gblas.nx.components)
    "connected_components": "FastSV label propagation; the components come in "
                            "NetworkX's order (by first node).",
    "number_connected_components": "",
    "is_connected": "",
    "node_connected_component": "",
    "weakly_connected_components": "FastSV on the undirected graph.",
    "number_weakly_connected_components": "",
    "is_weakly_connected": "",
    "strongly_connected_components": "Trimming and coloring; the components come in "
                                     "reverse topological order, as NetworkX's (ties "
                                     "by first node, so the order may differ).",
    "number_strongly_connected_components": "",
    "is_strongly_connected": "",
    # clustering (gblas.nx.cluster)
    "triangles": "Every vertex at once by a masked plus.pair product.",
    "clustering": "Unweighted, undirected graphs only (declined otherwise).",
    "average_clustering": "Unweighted, undirected graphs only (declined otherwise).",
    "transitivity": "Undirected graphs only (declined otherwise).",
    "square_clustering": "From ``C = A plus.times A``: the squares through every vertex at "
                         "once. Undirected graphs only (declined otherwise).",
    # communities (gblas.nx.community)
    "label_propagation_communities": "NetworkX's semi-synchronous label propagation "
                                     "(greedy largest-first coloring, Prec-Max ties) in "
                                     "compiled sweeps: the same communities.",
    "louvain_communities": "Compiled local moving and aggregation making NetworkX's "
                           "decisions (visiting order shuffled by ``seed``, neighbour "
                           "communities in adjacency order, NetworkX's gain formulas): "
                           "the same partition for the same seed.",
    "louvain_partitions": "As ``louvain_communities``, one partition per level.",
    # cores (gblas.nx.cores)
    "core_number": "Level-synchronous peeling.",
    "k_core": "The core numbers' subgraph, attributes kept.",
    "k_shell": "As ``k_core``.",
    "k_crust": "As ``k_core``.",
    "k_corona": "As ``k_core``; the neighbour counts by one ``mxv``.",
    "k_truss": "Repeated masked support products ``T<S> = S plus.pair S``.",
    # structure (gblas.nx.structure)
    "reciprocity": "From ``A .* A'``. Declined: undirected graphs and multigraphs.",
    "overall_reciprocity": "From ``A .* A'``. Declined: undirected graphs and "
                           "multigraphs.",
    "is_isolate": "",
    "isolates": "",
    "number_of_isolates": "",
    "is_regular": "",
    "is_k_regular": "",
    "is_empty": "",
    "number_of_selfloops": "",
    "is_tree": "Edge count and one FastSV components run.",
    "is_forest": "Edge count and one FastSV components run.",
}


def get_info():
    """The ``networkx.backend_info`` entry point: the backend's name, its functions with
    their notes, and its configuration (``nx.config.backends.gblas``).

    Returns
    -------
    dict
        ``backend_name``, ``project``, ``package``, ``short_summary``,
        ``functions`` ({name: {"additional_docs": ...}}) and ``default_config``
        (``device``: ``"cpu"`` or ``"gpu"``).

    Examples
    --------
    >>> from gblas.nx import get_info
    >>> info = get_info()
    >>> info["backend_name"], info["default_config"]
    ('gblas', {'device': 'cpu'})
    >>> "pagerank" in info["functions"]
    True
    """
    return {
        "backend_name": "gblas",
        "project": "gblas",
        "package": "gblas",
        "short_summary": "GraphBLAS-style sparse linear algebra (Numba CPU or CuPy GPU "
                         "kernels).",
        "functions": {name: ({"additional_docs": doc} if doc else {})
                      for name, doc in FUNCTIONS.items()},
        "default_config": {"device": "cpu"},
    }
