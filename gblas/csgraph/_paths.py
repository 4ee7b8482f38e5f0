"""Shortest paths of :mod:`gblas.csgraph`: ``shortest_path``, ``dijkstra``,
``bellman_ford``, ``johnson``, ``floyd_warshall`` (computed with gblas).

Examples
--------
>>> from gblas.csgraph import dijkstra
>>> dijkstra([[0, 1], [0, 0]], indices=0).tolist()
[0.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from .._device import to_numpy, unique
from ..algorithms._paths import BATCH_ENTRIES as _BATCH_ENTRIES
from ..algorithms._paths import heap_paths, shortest_paths_plan
from ..algorithms._progress import Progress
from ..algorithms.sssp import (
    NegativeCycle,
    bfs_forest,
    has_negative_cycle,
    nonnegative_sssp,
    relax,
    sssp_batch,
    tight_edges,
)
from ..exceptions import InvalidValue, bad_arg
from ._input import (
    NULL,
    NegativeCycleError,
    as_graph,
    has_negative_weights,
    prepare_graph,
    source_indices,
)


def _distances(A, sources: np.ndarray, call: str, limit: float | None = None,
               nonnegative: bool = False):
    """Dense ``len(sources) x N`` float64 distances (batched Bellman-Ford; delta-stepping
    for one source on non-negative weights), and the batches."""
    n = A.shape[0]
    k = sources.size
    dist = np.full((k, n), np.inf)
    rows = []
    if k == 1 and nonnegative:
        with Progress(call, enabled=False) as report:
            d, _ = nonnegative_sssp(A, int(sources[0]), report)
        cols, vals = (to_numpy(a) for a in d.to_coo())
        if limit is not None:
            keep = vals <= limit
            cols, vals = cols[keep], vals[keep]
        dist[0, cols] = vals
        return dist, [(cols, vals)]
    step = max(1, _BATCH_ENTRIES // max(n, 1))
    try:
        for lo in range(0, k, step):
            D = sssp_batch(A, sources[lo:lo + step], limit=limit, call=call)
            S = D.to_scipy()
            for b in range(S.shape[0]):
                cols = S.indices[S.indptr[b]:S.indptr[b + 1]]
                vals = S.data[S.indptr[b]:S.indptr[b + 1]]
                dist[lo + b, cols] = vals
                rows.append((cols, vals))
    except NegativeCycle:
        raise NegativeCycleError(f"{call}: negative cycle detected (reachable from the "
                                 "given indices): shortest paths are undefined.") from None
    return dist, rows


def _predecessors(A, sources: np.ndarray, rows) -> np.ndarray:
    """int32 predecessors: a BFS tree over the tight edges of every source's distances."""
    from ..core import Vector

    n = A.shape[0]
    pred = np.full((sources.size, n), NULL, dtype=np.int32)
    for b, s in enumerate(sources):
        cols, vals = rows[b]
        d = Vector.from_coo(cols, vals, n).to(A.device)
        p = bfs_forest(tight_edges(A, d), [int(s)])
        pi, pv = (np.asarray(x.get() if hasattr(x, "get") else x) for x in p.to_coo())
        pred[b, pi] = pv
        pred[b, s] = NULL
    return pred


def _shape(out: np.ndarray, prefix: tuple, n: int) -> np.ndarray:
    return out.reshape(prefix + (n,))


def paths_plan(A, sources: np.ndarray, negative: bool):
    """The planner's choice of method for shortest paths from ``sources`` on the
    prepared graph ``A`` (``gblas.planner.plan_shortest_paths``): ``"heap"`` (Dijkstra
    per source) or ``"semiring"`` (the (min, +) products of :mod:`gblas.algorithms.sssp`).

    The caller's probe, one BFS in hops from the first source (``O(n + m)``), gives the
    planner the graph's depth and the size of the reached part.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas import Matrix
    >>> from gblas.csgraph import paths_plan
    >>> A = Matrix.from_coo(np.arange(99), np.arange(1, 100), np.ones(99), shape=(100, 100))
    >>> paths_plan(A, np.array([0, 1, 2]), negative=False).direction
    'heap'
    """
    return shortest_paths_plan(A, sources, negative)


def _paths(A, call: str, *, indices, return_predecessors, unweighted, limit=None,
           global_check=False):
    """Distances (and predecessors) from ``indices`` on the prepared graph ``A``."""
    n = A.shape[0]
    src, prefix = source_indices(indices, n, call)
    negative = (not unweighted) and has_negative_weights(A)
    if global_check and negative and has_negative_cycle(A):
        raise NegativeCycleError(f"{call}: negative cycle detected in the graph.")
    plan = paths_plan(A, src, negative)
    if plan.direction == "heap":
        dist, pred = heap_paths(A, src, limit, device=plan.device)
        if not return_predecessors:
            return _shape(dist, prefix, n)
        return _shape(dist, prefix, n), _shape(pred, prefix, n)
    dist, rows = _distances(A, src, call, None if negative else limit,
                            nonnegative=not negative)
    if limit is not None and negative:
        dist[dist > limit] = np.inf
    if not return_predecessors:
        return _shape(dist, prefix, n)
    pred = _predecessors(A, src, rows)
    if limit is not None:
        pred[np.isinf(dist)] = NULL
    return _shape(dist, prefix, n), _shape(pred, prefix, n)


def shortest_path(csgraph, method: str = "auto", directed: bool = True,
                  return_predecessors: bool = False, unweighted: bool = False,
                  overwrite: bool = False, indices=None):
    """Shortest-path lengths (and predecessors), as ``scipy.sparse.csgraph.shortest_path``.

    ``method`` is validated and chooses the negative-cycle check as in SciPy ("FW" and
    "J", and "auto" on negative weights: any negative cycle raises; "BF": only those
    reachable from ``indices``); every method computes the same exact distances with the
    batched Bellman-Ford of :mod:`gblas.algorithms.sssp`.  ``overwrite`` is accepted and
    ignored.

    Parameters
    ----------
    csgraph : array_like, sparse matrix/array or gblas.Matrix
        ``N x N`` edge weights (see the module notes for the conventions).
    method : {"auto", "FW", "D", "BF", "J"}
    directed, return_predecessors, unweighted, overwrite, indices
        As in SciPy.

    Returns
    -------
    dist_matrix : numpy.ndarray of float64
    predecessors : numpy.ndarray of int32
        Only with ``return_predecessors=True``.

    Examples
    --------
    >>> from gblas.csgraph import shortest_path
    >>> G = [[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]]
    >>> d, p = shortest_path(G, directed=False, indices=0, return_predecessors=True)
    >>> d.tolist(), p.tolist()
    ([0.0, 1.0, 2.0, 2.0], [-9999, 0, 0, 1])
    """
    call = "shortest_path"
    if method not in ("auto", "FW", "D", "BF", "J"):
        raise bad_arg(InvalidValue, call, "method", "'auto', 'FW', 'D', 'BF' or 'J' "
                      f"(unrecognized method '{method}')", repr(method))
    if method == "FW" and indices is not None:
        raise bad_arg(InvalidValue, call, "indices", "None with method == 'FW' (Cannot "
                      "specify indices with method == 'FW')", repr(indices))
    A, _ = as_graph(csgraph, call)
    if method == "auto":
        # SciPy's rule: Floyd-Warshall for dense all-pairs, else Johnson on negative
        # weights and Dijkstra otherwise (it decides the negative-cycle check)
        dense = indices is None and A.nvals >= A.shape[0] ** 2 / 4
        method = "FW" if dense else ("J" if has_negative_weights(A) else "D")
    return _paths(prepare_graph(A, directed=directed, unweighted=unweighted), call,
                  indices=indices, return_predecessors=return_predecessors,
                  unweighted=unweighted, global_check=method in ("FW", "J"))


def dijkstra(csgraph, directed: bool = True, indices=None, return_predecessors: bool = False,
             unweighted: bool = False, limit: float = np.inf, min_only: bool = False):
    """Shortest paths from ``indices``, as ``scipy.sparse.csgraph.dijkstra``.

    One source on non-negative weights runs delta-stepping (:func:`gblas.algorithms.sssp`),
    several sources a batched Bellman-Ford.  Negative weights are handled exactly
    (Bellman-Ford; a reachable negative cycle raises :class:`NegativeCycleError`) where
    SciPy warns.  ``limit`` prunes the search (exact on
    non-negative weights; on negative ones the distances above it are dropped at the end).
    ``min_only=True`` gives the distance from the nearest of ``indices`` and, with
    ``return_predecessors``, the predecessors and the source of every vertex.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import dijkstra
    >>> G = np.array([[0, 1, 2, 0], [0, 0, 0, 1], [0, 0, 0, 3], [0, 0, 0, 0]])
    >>> dijkstra(G, indices=[0, 2]).tolist()
    [[0.0, 1.0, 2.0, 2.0], [inf, inf, 0.0, 3.0]]
    >>> d, p, s = dijkstra(G, indices=[0, 2], min_only=True, return_predecessors=True)
    >>> d.tolist(), p.tolist(), s.tolist()
    ([0.0, 1.0, 0.0, 2.0], [-9999, 0, -9999, 1], [0, 0, 2, 0])
    """
    call = "dijkstra"
    try:
        limit = float(limit)
    except (TypeError, ValueError):
        raise bad_arg(InvalidValue, call, "limit", "a number >= 0", repr(limit)) from None
    if not limit >= 0:
        raise bad_arg(InvalidValue, call, "limit", "a number >= 0 (limit must be >= 0)",
                      repr(limit))
    lim = None if np.isinf(limit) else limit
    if not min_only:
        A, _ = as_graph(csgraph, call, directed=directed, unweighted=unweighted)
        return _paths(A, call, indices=indices, return_predecessors=return_predecessors,
                      unweighted=unweighted, limit=lim)
    return _nearest(csgraph, call, directed, indices, return_predecessors, unweighted, lim)


def _nearest(csgraph, call, directed, indices, return_predecessors, unweighted, limit):
    """``min_only=True``: one multi-source Bellman-Ford from all of ``indices`` at 0."""
    from ..core import Vector, vxm

    A, _ = as_graph(csgraph, call, directed=directed, unweighted=unweighted)
    n = A.shape[0]
    src, _ = source_indices(indices, n, call)
    src = unique(src)
    negative = (not unweighted) and has_negative_weights(A)
    # d(s) = 0 for every source
    d = Vector.from_coo(src, np.zeros(src.size), n).to(A.device)
    try:
        with Progress(call, enabled=False) as report:
            relax(A, d, step=lambda f: vxm(f, A, "min_plus"),
                   limit=None if negative else limit, call=call, where="the indices",
                   report=report)
    except NegativeCycle:
        raise NegativeCycleError(f"{call}: negative cycle detected (reachable from the "
                                 "given indices).") from None
    di, dv = (np.asarray(x.get() if hasattr(x, "get") else x) for x in d.to_coo())
    dist = np.full(n, np.inf)
    dist[di] = dv
    if limit is not None:
        dist[dist > limit] = np.inf
    if not return_predecessors:
        return dist
    parent = bfs_forest(tight_edges(A, d), src)
    pi, pv = (np.asarray(x.get() if hasattr(x, "get") else x) for x in parent.to_coo())
    pred = np.full(n, NULL, dtype=np.int32)
    pred[pi] = pv
    # the source of every vertex: follow the parents up to a root (pointer jumping)
    root = np.full(n, NULL, dtype=np.int64)
    root[pi] = pv
    while True:
        ok = root >= 0
        nxt = root.copy()
        nxt[ok] = root[root[ok]]
        if np.array_equal(nxt, root):
            break
        root = nxt
    pred[src] = NULL
    root[np.isinf(dist)] = NULL
    pred[np.isinf(dist)] = NULL
    return dist, pred, root.astype(np.int32)


def bellman_ford(csgraph, directed: bool = True, indices=None,
                 return_predecessors: bool = False, unweighted: bool = False):
    """Shortest paths with negative weights, as ``scipy.sparse.csgraph.bellman_ford``.

    Raises :class:`NegativeCycleError` when a negative cycle is reachable from
    ``indices`` (as SciPy does).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import bellman_ford
    >>> G = np.array([[0, 4, 1], [0, 0, 0], [0, -2, 0]])
    >>> bellman_ford(G, indices=0).tolist()
    [0.0, -1.0, 1.0]
    """
    A, _ = as_graph(csgraph, "bellman_ford", directed=directed, unweighted=unweighted)
    return _paths(A, "bellman_ford", indices=indices,
                  return_predecessors=return_predecessors, unweighted=unweighted)


def johnson(csgraph, directed: bool = True, indices=None,
            return_predecessors: bool = False, unweighted: bool = False):
    """Shortest paths with negative weights, as ``scipy.sparse.csgraph.johnson``.

    Any negative cycle of the graph raises :class:`NegativeCycleError` (Johnson's virtual
    source reaches every vertex), reachable from ``indices`` or not.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import johnson
    >>> G = np.array([[0, 4, 1], [0, 0, 0], [0, -2, 0]])
    >>> johnson(G, indices=0).tolist()
    [0.0, -1.0, 1.0]
    """
    A, _ = as_graph(csgraph, "johnson", directed=directed, unweighted=unweighted)
    return _paths(A, "johnson", indices=indices, return_predecessors=return_predecessors,
                  unweighted=unweighted, global_check=True)


def floyd_warshall(csgraph, directed: bool = True, return_predecessors: bool = False,
                   unweighted: bool = False, overwrite: bool = False):
    """All-pairs shortest paths, as ``scipy.sparse.csgraph.floyd_warshall``.

    Computed as a batched Bellman-Ford from every vertex (O(N x edges) work instead of
    O(N^3)); any negative cycle raises :class:`NegativeCycleError`.  ``overwrite`` is
    accepted and ignored.

    Examples
    --------
    >>> from gblas.csgraph import floyd_warshall
    >>> G = [[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]]
    >>> floyd_warshall(G, directed=False).tolist()[3]
    [2.0, 1.0, 3.0, 0.0]
    """
    A, _ = as_graph(csgraph, "floyd_warshall", directed=directed, unweighted=unweighted)
    return _paths(A, "floyd_warshall", indices=None,
                  return_predecessors=return_predecessors, unweighted=unweighted,
                  global_check=True)

