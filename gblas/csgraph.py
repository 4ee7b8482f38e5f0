"""A drop-in for ``scipy.sparse.csgraph`` computed with gblas graph algorithms.

Change one import and keep the code::

    from gblas.csgraph import dijkstra, connected_components   # was scipy.sparse.csgraph

Every function takes what SciPy takes (a SciPy sparse matrix or array, a dense array or
array-like, a masked array, or a :class:`gblas.Matrix`) with SciPy's conventions:

* dense input: zeros, ``inf`` and ``NaN`` (and masked entries) are non-edges;
* sparse input: every stored entry is an edge, explicit zeros being zero-weight edges;
* ``directed=False``: an edge either way, of the smaller weight when both exist;
* ``unweighted=True``: every edge weighs 1;

and returns what SciPy returns: float64 distances (``inf`` when unreachable), int32
predecessors (``-9999`` for none), int32 labels and orders, shapes following
``indices`` (a scalar gives 1-D rows).

Shortest paths on non-negative weights are a binary-heap Dijkstra per source where the
planner estimates it faster (graphs many hops deep: meshes, road networks; the rule is
:func:`gblas.planner.plan_shortest_paths`, and :func:`paths_plan` shows its choice for
a call), else one batched Bellman-Ford over (min, +) for all the sources at once
(:mod:`gblas.algorithms.sssp`), or delta-stepping for a single source (what
``dijkstra(G, indices=i)`` usually asks); negative weights always take the (min, +)
path.  Components FastSV or the
coloring SCC algorithm (:mod:`gblas.algorithms.components`), and the BFS a sequence of
masked products.

Differences from SciPy (where its behaviour cannot or should not be matched):

* ``connected_components(..., connection="strong")``: the same components, but numbered
  in order of first appearance (the component of vertex 0 is 0, the next vertex not in it
  starts component 1, ...), as for weak components; SciPy numbers strong components in
  the order its depth-first search closes them.  Compare partitions, not numbers.
* Predecessors: a valid shortest-path tree; where several shortest paths tie, the one
  chosen may differ from SciPy's.  ``breadth_first_order`` matches SciPy's order and
  predecessors exactly when the sparse input has sorted indices (SciPy's canonical
  format, and always for dense input).
* ``dijkstra`` (and ``method="D"``) with negative weights: exact distances, or
  :class:`NegativeCycleError` when a negative cycle is reachable, where SciPy warns and
  may return wrong values.  ``directed=False`` with different weights in the two
  directions: the smaller weight is used for both (SciPy's ``D``/``J`` may be wrong).
* NaN weights in sparse input raise :class:`gblas.InvalidValue`.
* Errors are gblas exceptions that subclass what SciPy raises (``ValueError``;
  :class:`NegativeCycleError` subclasses SciPy's).

Examples
--------
>>> import numpy as np
>>> from gblas.csgraph import dijkstra, connected_components
>>> G = np.array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
>>> dijkstra(G, indices=0).tolist()
[0.0, 1.0, 2.0, 2.0]
>>> n, labels = connected_components(G, directed=True, connection="strong")
>>> int(n), labels.tolist()
(3, [0, 1, 0, 2])
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError as _SciPyNegativeCycleError

from ._device import to_numpy
from .algorithms._paths import BATCH_ENTRIES as _BATCH_ENTRIES
from .algorithms._paths import heap_paths, shortest_paths_plan
from .algorithms._progress import Progress
from .algorithms.components import _check_no_nan
from .algorithms.components import connected_components as _components
from .algorithms.sssp import (
    NegativeCycle,
    _bfs_forest,
    _has_negative_cycle,
    _nonnegative_sssp,
    _relax,
    _sssp_batch,
    _tight_edges,
)
from .core.matrix import Matrix, TransposedMatrix
from .exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg

__all__ = [
    "NegativeCycleError", "bellman_ford", "breadth_first_order", "breadth_first_tree",
    "connected_components", "dijkstra", "floyd_warshall", "johnson", "paths_plan",
    "shortest_path",
]

NULL = -9999


class NegativeCycleError(InvalidValue, _SciPyNegativeCycleError):
    """A negative cycle makes the shortest paths undefined.

    Subclasses both :class:`gblas.InvalidValue` and SciPy's
    ``scipy.sparse.csgraph.NegativeCycleError``, so either ``except`` clause catches it.
    """


# ----------------------------------------------------------------------------- input


def _graph(csgraph, call: str, *, directed: bool = True, unweighted: bool = False):
    """``(A, kind)``: the graph as a float64 gb.Matrix under SciPy's conventions, and
    the kind of input ("sparray", "spmatrix", "array" or "gblas")."""
    kind = "array"
    if not sp.issparse(csgraph) and hasattr(csgraph, "to_scipy_sparse"):
        csgraph = sp.csr_array(csgraph.to_scipy_sparse())  # pydata sparse, as SciPy does
    if isinstance(csgraph, TransposedMatrix):
        csgraph = csgraph.materialize()
    if isinstance(csgraph, Matrix):
        A = csgraph if csgraph.dtype == np.float64 else csgraph.dup(np.float64)
        kind = "gblas"
    elif sp.issparse(csgraph):
        kind = "spmatrix" if isinstance(csgraph, sp.spmatrix) else "sparray"
        if len(csgraph.shape) != 2 or csgraph.shape[0] != csgraph.shape[1]:
            raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                          f"shape {csgraph.shape}")
        A = Matrix.from_scipy(sp.csr_array(csgraph, dtype=np.float64))
    else:
        masked = np.ma.isMaskedArray(csgraph)
        try:
            arr = np.asarray(np.ma.getdata(csgraph) if masked else csgraph, dtype=np.float64)
        except (TypeError, ValueError):
            raise bad_arg(InvalidObject, call, "csgraph", "a sparse matrix, an array-like or "
                          "a gb.Matrix", type(csgraph).__name__) from None
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                          f"shape {arr.shape}")
        edge = (arr != 0) & np.isfinite(arr)
        if masked:
            edge &= ~np.ma.getmaskarray(csgraph)
        r, c = np.nonzero(edge)
        A = Matrix.from_coo(r, c, arr[r, c], shape=arr.shape)
    if A.shape[0] != A.shape[1]:
        raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                      f"shape {A.shape}")
    _check_no_nan(A, call, "csgraph")
    return _prepare(A, directed=directed, unweighted=unweighted), kind


def _prepare(A, *, directed: bool, unweighted: bool):
    """Unit weights for ``unweighted``; both directions, the smaller weight, for
    ``directed=False`` (one GrB_build of the tuples of A and A', duplicates by min)."""
    if not unweighted and directed:
        return A
    from ._device import to_numpy

    r, c, v = (to_numpy(x) for x in A.to_coo())
    if unweighted:
        v = np.ones(r.size)
    if not directed:
        r, c, v = np.concatenate([r, c]), np.concatenate([c, r]), np.concatenate([v, v])
    return Matrix.from_coo(r, c, v, shape=A.shape, dup_op="min").to(A.device)


def _indices(indices, n: int, call: str):
    """``(flat int64 array, output shape prefix)``; negative ids wrap as in SciPy."""
    if indices is None:
        return np.arange(n, dtype=np.int64), (n,)
    arr = np.asarray(indices)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0):
            arr = arr.astype(np.int64)
        else:
            raise bad_arg(InvalidValue, call, "indices", "vertex ids (integers)",
                          f"dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < -n or arr.max() >= n):
        raise bad_arg(InvalidValue, call, "indices", f"ids in [-{n}, {n}) (indices out of "
                      "range 0...N)", str(int(arr.max() if arr.max() >= n else arr.min())))
    shape = arr.shape
    flat = arr.ravel().copy()
    flat[flat < 0] += n
    return flat, shape


def _vertex(i, n: int, call: str, arg: str) -> int:
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise bad_arg(InvalidValue, call, arg, "an integer vertex id", type(i).__name__)
    if not 0 <= int(i) < n:
        raise bad_arg(InvalidValue, call, arg, f"a vertex id in [0, {n})", str(int(i)))
    return int(i)


def _negative_weights(A) -> bool:
    """Whether a weight is negative: the minimum of the values (one pass over them)."""
    from . import reduce

    if A.nvals == 0 or np.dtype(A.dtype).kind in "bu":
        return False
    return bool(reduce(A, "min") < 0)


# ---------------------------------------------------------------------- shortest paths


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
            d, _ = _nonnegative_sssp(A, int(sources[0]), report)
        cols, vals = (to_numpy(a) for a in d.to_coo())
        if limit is not None:
            keep = vals <= limit
            cols, vals = cols[keep], vals[keep]
        dist[0, cols] = vals
        return dist, [(cols, vals)]
    step = max(1, _BATCH_ENTRIES // max(n, 1))
    try:
        for lo in range(0, k, step):
            D = _sssp_batch(A, sources[lo:lo + step], limit=limit, call=call)
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
    from . import Vector

    n = A.shape[0]
    pred = np.full((sources.size, n), NULL, dtype=np.int32)
    for b, s in enumerate(sources):
        cols, vals = rows[b]
        d = Vector.from_coo(cols, vals, n).to(A.device)
        p = _bfs_forest(_tight_edges(A, d), [int(s)])
        pi, pv = (np.asarray(x.get() if hasattr(x, "get") else x) for x in p.to_coo())
        pred[b, pi] = pv
        pred[b, s] = NULL
    return pred


def _shape(out: np.ndarray, prefix: tuple, n: int) -> np.ndarray:
    return out.reshape(prefix + (n,))


def paths_plan(A, sources: np.ndarray, negative: bool):
    """The planner's choice of method for shortest paths from ``sources`` on the
    prepared graph ``A`` (:func:`gblas.planner.plan_shortest_paths`): ``"heap"`` (Dijkstra
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
    src, prefix = _indices(indices, n, call)
    negative = (not unweighted) and _negative_weights(A)
    if global_check and negative and _has_negative_cycle(A):
        raise NegativeCycleError(f"{call}: negative cycle detected in the graph.")
    if paths_plan(A, src, negative).direction == "heap":
        dist, pred = heap_paths(A, src, limit)
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
    A, _ = _graph(csgraph, call)
    if method == "auto":
        # SciPy's rule: Floyd-Warshall for dense all-pairs, else Johnson on negative
        # weights and Dijkstra otherwise (it decides the negative-cycle check)
        dense = indices is None and A.nvals >= A.shape[0] ** 2 / 4
        method = "FW" if dense else ("J" if _negative_weights(A) else "D")
    return _paths(_prepare(A, directed=directed, unweighted=unweighted), call,
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
        A, _ = _graph(csgraph, call, directed=directed, unweighted=unweighted)
        return _paths(A, call, indices=indices, return_predecessors=return_predecessors,
                      unweighted=unweighted, limit=lim)
    return _nearest(csgraph, call, directed, indices, return_predecessors, unweighted, lim)


def _nearest(csgraph, call, directed, indices, return_predecessors, unweighted, limit):
    """``min_only=True``: one multi-source Bellman-Ford from all of ``indices`` at 0."""
    from . import Vector, vxm
    from .algorithms._progress import Progress

    A, _ = _graph(csgraph, call, directed=directed, unweighted=unweighted)
    n = A.shape[0]
    src, _ = _indices(indices, n, call)
    src = np.unique(src)
    negative = (not unweighted) and _negative_weights(A)
    # d(s) = 0 for every source
    d = Vector.from_coo(src, np.zeros(src.size), n).to(A.device)
    try:
        with Progress(call, enabled=False) as report:
            _relax(A, d, step=lambda f: vxm(f, A, "min_plus"),
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
    parent = _bfs_forest(_tight_edges(A, d), src)
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
    A, _ = _graph(csgraph, "bellman_ford", directed=directed, unweighted=unweighted)
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
    A, _ = _graph(csgraph, "johnson", directed=directed, unweighted=unweighted)
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
    A, _ = _graph(csgraph, "floyd_warshall", directed=directed, unweighted=unweighted)
    return _paths(A, "floyd_warshall", indices=None,
                  return_predecessors=return_predecessors, unweighted=unweighted,
                  global_check=True)


# --------------------------------------------------------------------------- traversal


def _bfs_order(A, start: int, directed: bool):
    """SciPy's BFS order and predecessors: the queue kernel where the planner picks it
    (:func:`gblas.planner.algorithms.plan_bfs_order`), else the loop below."""
    from .backends.registry import get_kernel
    from .config import config
    from .planner.algorithms import plan_bfs_order

    plan = plan_bfs_order(A, directed, config.current())
    if not plan.kernel:
        return _bfs_order_loop(A, start, directed)
    AT = None if directed else A.csr(transposed=True)
    order, pred = get_kernel(*plan.kernel_key)(A.csr(), AT, start)
    out = np.full(A.shape[0], NULL, dtype=np.int32)
    reached = pred >= 0
    out[reached] = pred[reached]
    return order.astype(np.int32), out


def _bfs_order_loop(A, start: int, directed: bool):
    """SciPy's BFS order and predecessors, one masked product (two if undirected) a level.

    SciPy visits the queue in order and appends each vertex's unvisited out-neighbours
    in index order (then, undirected, its in-neighbours): the children of a level sort by
    (position of their first parent, out before in, id).
    """
    from . import Vector, apply, mxv
    from ._device import to_numpy

    n = A.shape[0]
    AT = A.T
    order = np.array([start], dtype=np.int64)
    pred = np.full(n, NULL, dtype=np.int32)
    # v(s) = 0: the visited set, holding each vertex's position in the order
    visited = Vector.from_coo([start], np.array([0], dtype=np.int64), n).to(A.device)
    # q(s) = 0: the frontier carries positions
    q = visited.dup()
    none = np.iinfo(np.int64).max
    while True:
        # r1<!v> = A' min.second q: the first parent reaching j by an out-edge
        r1 = mxv(AT, q, "min_second", mask=~visited.S)
        j, parent = (to_numpy(x).astype(np.int64) for x in r1.to_coo())
        side = np.zeros(j.size, np.int64)
        if not directed:
            # r2<!v> = A min.second q: the first parent reaching j by an in-edge
            r2 = mxv(A, q, "min_second", mask=~visited.S)
            j2, p2 = (to_numpy(x).astype(np.int64) for x in r2.to_coo())
            jj = np.union1d(j, j2)
            a = np.full(jj.size, none)
            b = np.full(jj.size, none)
            a[np.searchsorted(jj, j)] = parent
            b[np.searchsorted(jj, j2)] = p2
            j, side, parent = jj, (b < a).astype(np.int64), np.minimum(a, b)
        if j.size == 0:
            break
        key = np.lexsort((j, side, parent))
        j, parent = j[key], parent[key]
        ranks = np.arange(order.size, order.size + j.size, dtype=np.int64)
        pred[j] = order[parent]
        order = np.concatenate([order, j])
        # q = the new level with its positions; v<q> = q
        q = Vector.from_coo(j, ranks, n).to(A.device)
        apply(q, "identity", mask=q.S, out=visited)
    return order.astype(np.int32), pred


def breadth_first_order(csgraph, i_start: int, directed: bool = True,
                        return_predecessors: bool = True):
    """Breadth-first order from ``i_start``, as ``scipy.sparse.csgraph.breadth_first_order``.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import breadth_first_order
    >>> G = np.array([[0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]])
    >>> order, pred = breadth_first_order(G, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 3, 2], [-9999, 0, 1, 0])
    """
    call = "breadth_first_order"
    A, _ = _graph(csgraph, call)
    start = _vertex(i_start, A.shape[0], call, "i_start")
    order, pred = _bfs_order(A, start, bool(directed))
    return (order, pred) if return_predecessors else order


def breadth_first_tree(csgraph, i_start: int, directed: bool = True):
    """The BFS tree from ``i_start``, as ``scipy.sparse.csgraph.breadth_first_tree``.

    A ``csr_matrix`` for ``spmatrix`` input, a ``csr_array`` otherwise; tree edges carry
    the graph's weights (undirected: the smaller non-zero weight of the two directions,
    ``inf`` when both are zero, as SciPy does).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import breadth_first_tree
    >>> G = np.array([[0, 1, 2, 0], [0, 0, 0, 1], [2, 0, 0, 3], [0, 0, 0, 0]])
    >>> breadth_first_tree(G, 0, directed=False).toarray().tolist()
    [[0.0, 1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    """
    call = "breadth_first_tree"
    A, kind = _graph(csgraph, call)
    n = A.shape[0]
    start = _vertex(i_start, n, call, "i_start")
    _, pred = _bfs_order(A, start, bool(directed))
    j = np.flatnonzero(pred >= 0)
    p = pred[j].astype(np.int64)
    W = A.to_scipy()
    w1 = np.asarray(W[p, j]).ravel() if j.size else np.zeros(0)
    if directed:
        data = w1
    else:
        w2 = np.asarray(W[j, p]).ravel() if j.size else np.zeros(0)
        w1 = np.where(w1 == 0, np.inf, w1)
        w2 = np.where(w2 == 0, np.inf, w2)
        data = np.minimum(w1, w2)
    tree = sp.csr_array((data, (p, j)), shape=(n, n))
    tree.sort_indices()
    return sp.csr_matrix(tree) if kind == "spmatrix" else tree


# -------------------------------------------------------------------------- components


def connected_components(csgraph, directed: bool = True, connection: str = "weak",
                         return_labels: bool = True):
    """Connected components, as ``scipy.sparse.csgraph.connected_components``.

    Labels are numbered in order of first appearance (SciPy's numbering for weak
    components; for strong ones SciPy numbers differently, see the module notes).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import connected_components
    >>> G = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    >>> n, labels = connected_components(G)
    >>> int(n), labels.tolist()
    (2, [0, 0, 1, 1])
    """
    call = "connected_components"
    if not isinstance(connection, str) or connection.lower() not in ("weak", "strong"):
        raise bad_arg(InvalidValue, call, "connection", "'weak' or 'strong' (connection "
                      "must be 'weak' or 'strong')", repr(connection))
    kind = connection.lower() if directed else "weak"
    A, _ = _graph(csgraph, call)
    n = A.shape[0]
    if n == 0:
        labels = np.zeros(0, dtype=np.int32)
        return (0, labels) if return_labels else 0
    lab = _components(A, kind).to_dense()
    lab = np.asarray(lab.get() if hasattr(lab, "get") else lab)
    # the labels are the smallest vertex of each component (a component's smallest vertex
    # is labelled by itself): ranking those numbers the components in order of first
    # appearance, in O(n)
    first = lab == np.arange(n)
    rank = np.cumsum(first, dtype=np.int64) - 1
    labels = rank[lab].astype(np.int32)
    count = int(rank[-1]) + 1
    return (count, labels) if return_labels else count

