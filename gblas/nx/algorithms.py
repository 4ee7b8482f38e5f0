"""Every NetworkX function the ``gblas`` backend implements, gathered from the modules
of each family (link analysis, centrality, traversal, shortest paths, components,
clustering, cores, structure, communities).

Each function takes a :class:`~gblas.nx.GblasGraph` and NetworkX's own arguments (same
names, same order) and returns what NetworkX returns (dicts keyed by node, generators of
sets, numbers, graphs), with Python numbers in them.  The options gblas does not
implement are declined beforehand by
:meth:`gblas.nx.interface.BackendInterface.can_run` (NetworkX then runs its own code or
raises, as configured); the functions here assume they were accepted.
"""

from __future__ import annotations

from .centrality import (
    average_neighbor_degree,
    betweenness_centrality,
    degree_centrality,
    edge_betweenness_centrality,
    in_degree_centrality,
    out_degree_centrality,
)
from .cluster import average_clustering, clustering, square_clustering, transitivity, triangles
from .community import label_propagation_communities, louvain_communities, louvain_partitions
from .components import (
    connected_components,
    is_connected,
    is_strongly_connected,
    is_weakly_connected,
    node_connected_component,
    number_connected_components,
    number_strongly_connected_components,
    number_weakly_connected_components,
    strongly_connected_components,
    weakly_connected_components,
)
from .cores import core_number, k_core, k_corona, k_crust, k_shell, k_truss
from .link_analysis import (
    eigenvector_centrality,
    eigenvector_centrality_numpy,
    hits,
    katz_centrality,
    katz_centrality_numpy,
    pagerank,
)
from .shortest_paths import (
    all_pairs_bellman_ford_path_length,
    all_pairs_dijkstra_path_length,
    all_pairs_shortest_path_length,
    bellman_ford_path_length,
    dijkstra_path_length,
    has_path,
    multi_source_dijkstra_path_length,
    negative_edge_cycle,
    single_source_bellman_ford_path_length,
    single_source_dijkstra_path_length,
    single_source_shortest_path_length,
    single_target_shortest_path_length,
)
from .structure import (
    is_empty,
    is_forest,
    is_isolate,
    is_k_regular,
    is_regular,
    is_tree,
    isolates,
    number_of_isolates,
    number_of_selfloops,
    overall_reciprocity,
    reciprocity,
)
from .traversal import (
    ancestors,
    bfs_edges,
    bfs_layers,
    bfs_predecessors,
    bfs_successors,
    bfs_tree,
    descendants,
    descendants_at_distance,
)

__all__ = [
    "all_pairs_bellman_ford_path_length", "all_pairs_dijkstra_path_length",
    "all_pairs_shortest_path_length", "ancestors", "average_clustering",
    "average_neighbor_degree", "bellman_ford_path_length", "betweenness_centrality",
    "bfs_edges", "bfs_layers", "bfs_predecessors", "bfs_successors", "bfs_tree",
    "clustering", "connected_components", "core_number", "degree_centrality",
    "descendants", "descendants_at_distance", "dijkstra_path_length",
    "edge_betweenness_centrality", "eigenvector_centrality",
    "eigenvector_centrality_numpy", "has_path", "hits",
    "in_degree_centrality", "is_connected", "is_empty", "is_forest", "is_isolate",
    "is_k_regular", "is_regular", "is_strongly_connected", "is_tree",
    "is_weakly_connected", "isolates", "k_core", "k_corona", "k_crust", "k_shell",
    "k_truss", "katz_centrality", "katz_centrality_numpy", "label_propagation_communities",
    "louvain_communities",
    "louvain_partitions",
    "multi_source_dijkstra_path_length", "negative_edge_cycle", "node_connected_component",
    "number_connected_components", "number_of_isolates", "number_of_selfloops",
    "number_strongly_connected_components", "number_weakly_connected_components",
    "out_degree_centrality", "overall_reciprocity", "pagerank", "reciprocity",
    "single_source_bellman_ford_path_length", "single_source_dijkstra_path_length",
    "single_source_shortest_path_length", "single_target_shortest_path_length",
    "square_clustering", "strongly_connected_components", "transitivity", "triangles",
    "weakly_connected_components",
]
