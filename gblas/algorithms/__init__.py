"""Graph algorithms written with the gblas API only (LAGraph style).

Each algorithm is a short loop of semiring products, masks and element-wise operations,
one mathematical comment per call; formats, directions and kernels are the planner's job.

Examples
--------
>>> import gblas as gb
>>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
>>> gb.algorithms.bfs(A, 0).to_dense(fill=-1).tolist()
[0, 1, 2]
"""

from .betweenness import betweenness_centrality
from .bfs import bfs
from .centrality import eigenvector_centrality, hits, katz_centrality
from .clustering import average_clustering, clustering, transitivity
from .clustering import triangles as _per_vertex_triangles
from .collaborative_filtering import collaborative_filtering
from .community import louvain
from .components import connected_components
from .kcore import core_number
from .label_propagation import label_propagation
from .pagerank import PowerIterationFailedConvergence, pagerank
from .sssp import sssp
from .triangles import triangle_count

# importing the submodule bound the name "triangles" on this package to the module: the
# per-vertex function takes the name (the module stays importable by its full name)
triangles = _per_vertex_triangles

__all__ = [
    "PowerIterationFailedConvergence", "betweenness_centrality", "bfs",
    "collaborative_filtering", "connected_components", "core_number", "label_propagation",
    "pagerank", "sssp", "triangle_count",
    "average_clustering", "clustering", "transitivity", "triangles",
    "eigenvector_centrality", "hits", "katz_centrality", "louvain",
]
