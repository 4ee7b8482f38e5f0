"""A drop-in for ``scipy.sparse.csgraph``: every public name of it, computed with gblas
where that helps and delegated to SciPy where it does not.

Change one import and keep the code::

    import gblas.csgraph as csgraph            # was: from scipy.sparse import csgraph
    from gblas.csgraph import dijkstra, connected_components, minimum_spanning_tree

**Computed with gblas**: ``shortest_path``, ``dijkstra``, ``bellman_ford``, ``johnson``,
``floyd_warshall``, ``breadth_first_order``, ``breadth_first_tree`` and weak
``connected_components``.  **Delegated to SciPy** (same arguments, results, warnings and
errors; a :class:`gblas.Matrix` is accepted and converted): strong
``connected_components`` (its numbering is the order in which SciPy's depth-first search
closes the components, which only that search gives), ``depth_first_order``,
``depth_first_tree``, ``minimum_spanning_tree``, ``laplacian``, ``reconstruct_path``,
``construct_dist_matrix``, ``csgraph_from_dense``, ``csgraph_to_dense``,
``csgraph_masked_from_dense``, ``csgraph_from_masked``, ``csgraph_to_masked``,
``maximum_flow``, ``maximum_bipartite_matching``, ``min_weight_full_bipartite_matching``,
``structural_rank``, ``reverse_cuthill_mckee`` and ``yen`` (see
``gblas.csgraph._scipy`` for why).  SciPy's own csgraph test suite runs against this
module (``make test-scipy-csgraph``).

Every function takes what SciPy takes (a SciPy sparse matrix or array, a dense array or
array-like, a masked array, a pydata/sparse array, or a :class:`gblas.Matrix`) with
SciPy's conventions:

* dense input: zeros, ``inf`` and ``NaN`` (and masked entries) are non-edges;
* sparse input: every stored entry is an edge, explicit zeros being zero-weight edges;
* ``directed=False``: an edge either way, of the smaller weight when both exist;
* ``unweighted=True``: every edge weighs 1;

and returns what SciPy returns: float64 distances (``inf`` when unreachable), int32
predecessors (``-9999`` for none), int32 labels and orders, shapes following
``indices`` (a scalar gives 1-D rows).

Shortest paths on non-negative weights are a binary-heap Dijkstra per source where the
planner estimates it faster (graphs many hops deep: meshes, road networks; the rule is
``gblas.planner.plan_shortest_paths``, and :func:`paths_plan` shows its choice for
a call), else one batched Bellman-Ford over (min, +) for all the sources at once
(:mod:`gblas.algorithms.sssp`), or delta-stepping for a single source (what
``dijkstra(G, indices=i)`` usually asks); negative weights always take the (min, +)
path.  Weak components are FastSV or a compiled union-find
(``gblas.algorithms.components``); ``breadth_first_order`` a compiled queue over the
graph as SciPy stores it (no copy of a SciPy CSR input), else a sequence of masked
products.

Differences from SciPy (where its behaviour cannot or should not be matched):

* Predecessors of shortest paths: a valid shortest-path tree; where several shortest
  paths tie, the one chosen may differ from SciPy's.  ``breadth_first_order`` and
  ``breadth_first_tree`` match SciPy's order and predecessors exactly.
* ``dijkstra`` (and ``method="D"``) with negative weights: exact distances, or
  :class:`NegativeCycleError` when a negative cycle is reachable, where SciPy warns and
  may return wrong values.  ``directed=False`` with different weights in the two
  directions: the smaller weight is used for both (SciPy's ``D``/``J`` may be wrong).
* NaN weights in sparse input raise :class:`gblas.InvalidValue` in the shortest paths.
* Errors are gblas exceptions that subclass what SciPy raises (``ValueError``;
  :class:`NegativeCycleError` subclasses SciPy's).

Examples
--------
>>> import numpy as np
>>> from gblas.csgraph import dijkstra, connected_components, minimum_spanning_tree
>>> G = np.array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
>>> dijkstra(G, indices=0).tolist()
[0.0, 1.0, 2.0, 2.0]
>>> n, labels = connected_components(G, directed=True, connection="strong")
>>> int(n), labels.tolist()
(3, [2, 1, 2, 0])
>>> int(minimum_spanning_tree(G).sum())
4
"""

from __future__ import annotations

from ._input import NegativeCycleError
from ._paths import bellman_ford, dijkstra, floyd_warshall, johnson, paths_plan, shortest_path
from ._scipy import (
    DELEGATED,
    construct_dist_matrix,
    csgraph_from_dense,
    csgraph_from_masked,
    csgraph_masked_from_dense,
    csgraph_to_dense,
    csgraph_to_masked,
    depth_first_order,
    depth_first_tree,
    laplacian,
    maximum_bipartite_matching,
    maximum_flow,
    min_weight_full_bipartite_matching,
    minimum_spanning_tree,
    reconstruct_path,
    reverse_cuthill_mckee,
    structural_rank,
    yen,
)
from ._traversal import breadth_first_order, breadth_first_tree, connected_components

__all__ = [
    "DELEGATED", "NegativeCycleError", "bellman_ford", "breadth_first_order",
    "breadth_first_tree", "connected_components", "construct_dist_matrix",
    "csgraph_from_dense", "csgraph_from_masked", "csgraph_masked_from_dense",
    "csgraph_to_dense", "csgraph_to_masked", "depth_first_order", "depth_first_tree",
    "dijkstra", "floyd_warshall", "johnson", "laplacian", "maximum_bipartite_matching",
    "maximum_flow", "min_weight_full_bipartite_matching", "minimum_spanning_tree",
    "paths_plan", "reconstruct_path", "reverse_cuthill_mckee", "shortest_path",
    "structural_rank", "yen",
]
