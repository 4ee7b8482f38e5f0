"""Traversal and components of :mod:`gblas.csgraph`: ``breadth_first_order``,
``breadth_first_tree``, ``connected_components``.

Examples
--------
>>> from gblas.csgraph import breadth_first_order
>>> breadth_first_order([[0, 1], [0, 0]], 0, return_predecessors=False).tolist()
[0, 1]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as _scipy_components

from ..algorithms.components import connected_components as _components
from ..config import config
from ..core import executor
from ..core.matrix import Matrix, TransposedMatrix
from ..exceptions import DimensionMismatch, InvalidValue, bad_arg
from ..planner.algorithms import plan_bfs_order
from ._input import NULL, as_graph, check_vertex, from_pydata, is_pydata


def _bfs_order(A, start: int, directed: bool):
    """SciPy's BFS order and predecessors: the queue kernel where the planner picks it
    (:func:`gblas.planner.algorithms.plan_bfs_order`), else the loop below."""
    plan = plan_bfs_order(A, directed, config.current())
    if not plan.kernel:
        return _bfs_order_loop(A, start, directed)
    AT = None if directed else A.csr(transposed=True)
    return _scipy_arrays(*executor.kernel(plan)(A.csr(), AT, start, NULL))


def _scipy_arrays(order: np.ndarray, pred: np.ndarray):
    """The kernel's order and predecessors (``NULL`` for none) as SciPy's int32."""
    return order.astype(np.int32, copy=False), pred.astype(np.int32, copy=False)


def _bfs_order_loop(A, start: int, directed: bool):
    """SciPy's BFS order and predecessors, one masked product (two if undirected) a level.

    SciPy visits the queue in order and appends each vertex's unvisited out-neighbours
    in index order (then, undirected, its in-neighbours): the children of a level sort by
    (position of their first parent, out before in, id).
    """
    from .._device import to_numpy
    from ..core import Vector, apply, mxv

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


class _Pattern:
    """A SciPy CSR graph as the queue kernel reads it (``shape``, ``indptr``,
    ``indices``, on the CPU): its arrays as stored, no copy and no value conversion."""

    device = "cpu"

    def __init__(self, S) -> None:
        self.shape = S.shape
        self.indptr = S.indptr
        self.indices = S.indices


def _sparse_input(csgraph, call: str):
    """SciPy sparse input (pydata/sparse converted) as SciPy's search reads it, checked
    square, else None."""
    S = from_pydata(csgraph, call)
    if not sp.issparse(S):
        return None
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                      f"shape {S.shape}")
    return S


def _order(csgraph, i_start, directed: bool, call: str):
    """``(order, pred, W, kind)``: SciPy's BFS order and predecessors from ``i_start``,
    the graph's weights (a SciPy CSR, for the tree) and the kind of input.

    SciPy sparse input goes to the queue kernel as stored (O(reached) work beyond two
    O(n) arrays, where the conversion to a gb.Matrix would touch every entry); other
    input through :func:`as_graph`."""
    S = _sparse_input(csgraph, call)
    if S is not None:
        if not directed and S.format == "csc":
            S = S.T  # as SciPy does: its transpose is a CSR without a copy
        S = S.tocsr()
        kind = "spmatrix" if isinstance(csgraph, sp.spmatrix) else \
            "pydata" if is_pydata(csgraph) else "sparray"
        start = check_vertex(i_start, S.shape[0], call, "i_start")
        G = _Pattern(S)
        plan = plan_bfs_order(G, directed, config.current())
        if plan.kernel:
            GT = None if directed else _Pattern(sp.csr_array(S.T))
            order, pred = _scipy_arrays(*executor.kernel(plan)(G, GT, start, NULL))
            return order, pred, S, kind
    if isinstance(csgraph, TransposedMatrix):
        csgraph = csgraph.materialize()
    if isinstance(csgraph, Matrix) and csgraph.shape[0] == csgraph.shape[1]:
        A, kind = csgraph, "gblas"  # the search reads the pattern only: no value pass
    else:
        A, kind = as_graph(csgraph, call, check_nan=False)
    start = check_vertex(i_start, A.shape[0], call, "i_start")
    order, pred = _bfs_order(A, start, directed)
    return order, pred, A, kind


def breadth_first_order(csgraph, i_start: int, directed: bool = True,
                        return_predecessors: bool = True):
    """Breadth-first order from ``i_start``, as ``scipy.sparse.csgraph.breadth_first_order``.

    Parameters
    ----------
    csgraph : array_like, sparse matrix/array or gblas.Matrix
        ``N x N`` graph (see :mod:`gblas.csgraph` for the conventions).
    i_start : int
        The first vertex.
    directed : bool, default True
        False: follow edges both ways.
    return_predecessors : bool, default True
        Also return each vertex's predecessor (``-9999`` for none).

    Returns
    -------
    node_array : numpy.ndarray of int32
        The vertices reached, in breadth-first order.
    predecessors : numpy.ndarray of int32
        Only with ``return_predecessors=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.csgraph import breadth_first_order
    >>> G = np.array([[0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]])
    >>> order, pred = breadth_first_order(G, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 3, 2], [-9999, 0, 1, 0])
    """
    order, pred, _, _ = _order(csgraph, i_start, bool(directed), "breadth_first_order")
    return (order, pred) if return_predecessors else order


def _weak_labels_of_sparse(csgraph, call: str):
    """Weak component labels (smallest vertex of each) of SciPy sparse input, from the
    planned compiled pass over its stored pattern (no copy, no float64 conversion: the
    values are never read), or None for other input or where the plan has no kernel."""
    from ..config import config
    from ..planner.algorithms import plan_components

    S = _sparse_input(csgraph, call)
    if S is None:
        return None
    # the weak components of A' are A's: a CSC's transpose is a CSR without a copy
    S = S.T if S.format == "csc" else S.tocsr()
    G = _Pattern(S)
    plan = plan_components(G, "weak", config.current())
    if not plan.kernel:
        return None
    from ..core import executor

    return executor.kernel(plan)(G)


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
    _, pred, W, kind = _order(csgraph, i_start, bool(directed), "breadth_first_tree")
    n = pred.shape[0]
    j = np.flatnonzero(pred >= 0)
    p = pred[j].astype(np.int64)
    W = sp.csr_array(W if sp.issparse(W) else W.to_scipy(), dtype=np.float64)
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
    if kind == "pydata":
        return type(csgraph).from_scipy_sparse(tree)
    return sp.csr_matrix(tree) if kind == "spmatrix" else tree


# -------------------------------------------------------------------------- components


def connected_components(csgraph, directed: bool = True, connection: str = "weak",
                         return_labels: bool = True):
    """Connected components, as ``scipy.sparse.csgraph.connected_components``.

    Weak components (and any with ``directed=False``) are computed with gblas
    (:func:`gblas.algorithms.connected_components`) and numbered in order of first
    appearance, as SciPy numbers them.  Strong components are delegated to SciPy: it
    numbers them in the order its depth-first search closes them, which only that search
    gives.

    Parameters
    ----------
    csgraph : array_like, sparse matrix/array or gblas.Matrix
        ``N x N`` graph (see :mod:`gblas.csgraph` for the conventions).
    directed : bool, default True
        False: edges count both ways (the components are weak).
    connection : {"weak", "strong"}
        For a directed graph.
    return_labels : bool, default True
        Also return each vertex's component.

    Returns
    -------
    n_components : int
    labels : numpy.ndarray of int32
        Only with ``return_labels=True``.

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
    if kind == "strong":
        if isinstance(csgraph, TransposedMatrix):
            csgraph = csgraph.materialize()
        if isinstance(csgraph, Matrix):
            csgraph = csgraph.to_scipy()
        return _scipy_components(csgraph, directed=True, connection="strong",
                                 return_labels=return_labels)
    lab = _weak_labels_of_sparse(csgraph, call)
    if lab is None:
        A, _ = as_graph(csgraph, call, check_nan=False)
        if A.shape[0] == 0:
            lab = np.zeros(0, dtype=np.int64)
        else:
            lab = _components(A, kind).to_dense()
            lab = np.asarray(lab.get() if hasattr(lab, "get") else lab)
    n = lab.size
    if n == 0:
        labels = np.zeros(0, dtype=np.int32)
        return (0, labels) if return_labels else 0
    # the labels are the smallest vertex of each component (a component's smallest vertex
    # is labelled by itself): ranking those numbers the components in order of first
    # appearance, in O(n)
    first = lab == np.arange(n)
    rank = np.cumsum(first, dtype=np.int64) - 1
    labels = rank[lab].astype(np.int32)
    count = int(rank[-1]) + 1
    return (count, labels) if return_labels else count

