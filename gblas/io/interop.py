"""Converters between gblas objects and the other ecosystems, each following its own
convention: python-graphblas (``graphblas.Matrix`` / ``Vector``), pydata/sparse
(``sparse.COO``), NetworkX graphs (node labels kept), and SciPy / CuPy (through
:meth:`gblas.Matrix.from_scipy`, :meth:`gblas.Matrix.to_scipy`,
:meth:`gblas.Vector.from_scipy`, :meth:`gblas.Matrix.to_cupy`).

The other libraries are imported only inside these functions (none of them is needed
to import gblas).  Every converter copies: later changes of one side do not show in
the other.

Examples
--------
>>> import networkx as nx
>>> from gblas.io import from_networkx, to_dict
>>> A, nodes = from_networkx(nx.path_graph(["a", "b", "c"]))
>>> nodes, A.nvals
(['a', 'b', 'c'], 4)
>>> import gblas as gb
>>> to_dict(gb.algorithms.bfs(A, nodes.index("a")), nodes)
{'a': 0, 'b': 1, 'c': 2}
"""

from __future__ import annotations

import numpy as np

from .._device import to_numpy
from ..core import Matrix, TransposedMatrix, Vector
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg

__all__ = ["from_graphblas", "from_networkx", "from_sparse", "to_dict", "to_graphblas",
           "to_networkx", "to_sparse"]


def _host_coo(A):
    """``(rows, cols, values)`` of a Matrix (or ``.T``) as NumPy arrays."""
    r, c, v = A.to_coo()
    return to_numpy(r), to_numpy(c), to_numpy(v)


# ---------------------------------------------------------------- python-graphblas
def from_graphblas(M):
    """A gblas Matrix or Vector from a python-graphblas ``Matrix`` or ``Vector``.

    The entries, the shape and the dtype carry over (explicit zeros are entries on both
    sides).

    Parameters
    ----------
    M : graphblas.Matrix or graphblas.Vector

    Returns
    -------
    gblas.Matrix or gblas.Vector

    Examples
    --------
    >>> import graphblas
    >>> from gblas.io import from_graphblas
    >>> G = graphblas.Matrix.from_coo([0, 1], [1, 0], [2.5, 3.0], nrows=2, ncols=3)
    >>> A = from_graphblas(G)
    >>> A.shape, A[1, 0], A.dtype.name
    ((2, 3), 3.0, 'float64')
    """
    call = "from_graphblas"
    mod = type(M).__module__
    if not mod.startswith("graphblas"):
        raise bad_arg(InvalidObject, call, "M", "a graphblas.Matrix or graphblas.Vector",
                      f"{mod.split('.')[0]}.{type(M).__name__}")
    dt = np.dtype(M.dtype.np_type)
    if hasattr(M, "nrows"):
        r, c, v = M.to_coo()
        return Matrix.from_coo(r, c, np.asarray(v, dtype=dt), shape=(M.nrows, M.ncols),
                               dup_op=None)
    idx, v = M.to_coo()
    return Vector.from_coo(idx, np.asarray(v, dtype=dt), size=M.size, dup_op=None)


def to_graphblas(A):
    """A python-graphblas ``Matrix`` or ``Vector`` holding the entries of ``A``.

    Parameters
    ----------
    A : gblas.Matrix, its ``.T``, or gblas.Vector
        Copied to the CPU if on the GPU.

    Returns
    -------
    graphblas.Matrix or graphblas.Vector
        Same shape, entries and dtype (a pattern Matrix becomes a BOOL matrix of True).

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.io import to_graphblas
    >>> G = to_graphblas(gb.Matrix.from_coo([0, 1], [1, 0], [2, 3], shape=(2, 2)))
    >>> G.nvals, G[1, 0].value, G.dtype.name
    (2, 3, 'INT64')
    """
    import graphblas

    call = "to_graphblas"
    if isinstance(A, Vector):
        idx, v = A.to("cpu").to_coo()
        return graphblas.Vector.from_coo(idx, v, size=A.size, dtype=A.dtype)
    if not isinstance(A, (Matrix, TransposedMatrix)):
        raise bad_arg(InvalidObject, call, "A", "a gb.Matrix or gb.Vector",
                      type(A).__name__)
    r, c, v = _host_coo(A)
    m, n = A.shape
    return graphblas.Matrix.from_coo(r, c, v, nrows=m, ncols=n, dtype=A.dtype)


# ---------------------------------------------------------------------- pydata/sparse
def from_sparse(S):
    """A gblas Matrix (2-D) or Vector (1-D) from a pydata/sparse array (``sparse.COO``,
    ``GCXS``, ...).

    pydata/sparse stores the entries that differ from ``S.fill_value``; they become the
    gblas entries.  A ``fill_value`` other than 0 is refused: gblas has no value where
    it has no entry.

    Examples
    --------
    >>> import sparse
    >>> from gblas.io import from_sparse
    >>> A = from_sparse(sparse.COO([[0, 1], [1, 0]], [2.0, 3.0], shape=(2, 2)))
    >>> A[0, 1], A[1, 0], A.nvals
    (2.0, 3.0, 2)
    """
    import sparse

    call = "from_sparse"
    if not isinstance(S, sparse.SparseArray):
        raise bad_arg(InvalidObject, call, "S", "a pydata/sparse array (sparse.COO, ...)",
                      type(S).__name__)
    fill = np.asarray(S.fill_value)
    if fill.size != 1 or bool(fill != 0):
        raise bad_arg(InvalidValue, call, "S", "an array whose fill_value is 0",
                      f"fill_value {S.fill_value}",
                      "Missing gblas entries have no value; convert with "
                      "sparse.COO(S.coords, S.data, S.shape) (fill 0) first.")
    C = sparse.COO(S) if not isinstance(S, sparse.COO) else S
    if C.ndim == 2:
        return Matrix.from_coo(C.coords[0], C.coords[1], np.asarray(C.data), shape=C.shape)
    if C.ndim == 1:
        return Vector.from_coo(C.coords[0], np.asarray(C.data), size=C.shape[0])
    raise bad_arg(DimensionMismatch, call, "S", "a 1-D or 2-D array", f"shape {C.shape}")


def to_sparse(A):
    """A pydata/sparse ``COO`` of ``A`` (fill value 0; explicit zeros stay stored).

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.io import to_sparse
    >>> S = to_sparse(gb.Matrix.from_coo([0], [1], [4.0], shape=(2, 2)))
    >>> S.todense().tolist(), S.nnz
    ([[0.0, 4.0], [0.0, 0.0]], 1)
    >>> to_sparse(gb.Vector.from_coo([2], [1], size=3)).todense().tolist()
    [0, 0, 1]
    """
    import sparse

    if isinstance(A, Vector):
        idx, v = A.to("cpu").to_coo()
        return sparse.COO(idx[None, :], v, shape=(A.size,), has_duplicates=False,
                          sorted=True)
    if not isinstance(A, (Matrix, TransposedMatrix)):
        raise bad_arg(InvalidObject, "to_sparse", "A", "a gb.Matrix or gb.Vector",
                      type(A).__name__)
    r, c, v = _host_coo(A)
    return sparse.COO(np.stack([r, c]), v, shape=A.shape, has_duplicates=False,
                      sorted=True)


# --------------------------------------------------------------------------- NetworkX
def from_networkx(G, weight: str | None = "weight", *, nodelist=None, dtype=None):
    """The adjacency Matrix of a NetworkX graph and its node list.

    As ``networkx.to_scipy_sparse_array``: ``A[i, j]`` is the edge ``nodes[i] ->
    nodes[j]`` (both directions for an undirected graph), its value the edge's
    ``weight`` attribute (1 where an edge lacks it; every edge 1 with ``weight=None``),
    parallel edges of a multigraph summed.  An edge of weight 0 is an entry.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    weight : str or None, default "weight"
        The edge attribute holding the values.
    nodelist : list, optional
        The nodes, in the order of the rows (default: ``list(G)``); nodes left out are
        left out of the matrix.
    dtype : optional
        Value dtype (default: NetworkX's, float64 for weights, int64 with
        ``weight=None``).

    Returns
    -------
    A : gblas.Matrix
    nodes : list
        ``nodes[i]`` is the label of row and column ``i``: map results back with
        :func:`to_dict`.

    Examples
    --------
    >>> import networkx as nx
    >>> from gblas.io import from_networkx
    >>> G = nx.DiGraph([("x", "y", {"weight": 2.5}), ("y", "z", {})])
    >>> A, nodes = from_networkx(G)
    >>> nodes, A[0, 1], A[1, 2], A[1, 0]
    (['x', 'y', 'z'], 2.5, 1.0, None)
    """
    import networkx as nx

    call = "from_networkx"
    if not isinstance(G, nx.Graph):
        raise bad_arg(InvalidObject, call, "G", "a NetworkX graph", type(G).__name__,
                      "Matrix.from_scipy takes SciPy matrices; from_graphblas, "
                      "from_sparse the other libraries' objects.")
    nodes = list(G) if nodelist is None else list(nodelist)
    if weight is None and dtype is None:
        dtype = np.int64
    if not nodes:  # NetworkX refuses to build the matrix of no node
        return Matrix.from_coo([], [], np.zeros(0, dtype or np.float64), shape=(0, 0)), nodes
    S = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, dtype=dtype,
                                 format="csr")
    return Matrix.from_scipy(S), nodes


def to_networkx(A, nodes=None, *, weight: str = "weight", directed: bool | None = None):
    """A NetworkX graph of the Matrix ``A``, its vertices labelled by ``nodes``.

    Parameters
    ----------
    A : gblas.Matrix
        Square: ``A[i, j]`` is the edge ``nodes[i] -> nodes[j]``.
    nodes : list, optional
        The labels (default: ``0 .. n-1``); every node is in the graph, with or without
        edges.
    weight : str, default "weight"
        The edge attribute that receives the values (a pattern Matrix, dtype bool,
        gives edges without attributes).
    directed : bool, optional
        ``True``: a DiGraph; ``False``: a Graph (entries ``(i, j)`` and ``(j, i)`` are
        one edge; the value of the one with ``i <= j`` is kept).  Default: a Graph when
        ``A`` equals its transpose (values included), else a DiGraph --
        ``networkx.from_scipy_sparse_array`` always makes a Graph, which would silently
        merge the two directions of a directed graph.

    Returns
    -------
    networkx.Graph or networkx.DiGraph

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.io import to_networkx
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], [0.5, 2.0], shape=(3, 3))
    >>> G = to_networkx(A, ["a", "b", "c"])
    >>> type(G).__name__, sorted(G.edges(data="weight"))
    ('DiGraph', [('a', 'b', 0.5), ('b', 'c', 2.0)])
    """
    import networkx as nx

    call = "to_networkx"
    if not isinstance(A, (Matrix, TransposedMatrix)):
        raise bad_arg(InvalidObject, call, "A", "a gb.Matrix", type(A).__name__)
    n = A.shape[0]
    if A.shape[0] != A.shape[1]:
        raise bad_arg(DimensionMismatch, call, "A", "a square adjacency matrix",
                      f"shape {A.shape}")
    labels = list(range(n)) if nodes is None else list(nodes)
    if len(labels) != n:
        raise bad_arg(DimensionMismatch, call, "nodes", f"{n} node labels (one per row)",
                      f"{len(labels)}")
    if len(set(labels)) != n:
        raise bad_arg(InvalidValue, call, "nodes", "distinct node labels", "duplicates")
    if directed is None:
        directed = not A.isequal(A.T)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(labels)
    r, c, v = _host_coo(A)
    if not directed:
        # every entry is an edge; where both (i, j) and (j, i) exist, the one with i <= j
        # is added last and its value stays
        order = np.argsort(r <= c, kind="stable")
        r, c, v = r[order], c[order], v[order]
    lab = np.empty(n, dtype=object)
    lab[:] = labels
    if A.dtype == np.bool_:
        G.add_edges_from(zip(lab[r].tolist(), lab[c].tolist()))
    else:
        G.add_weighted_edges_from(zip(lab[r].tolist(), lab[c].tolist(), v.tolist()),
                                  weight=weight)
    return G


def to_dict(v: Vector, nodes=None) -> dict:
    """A result Vector as a dict keyed by node labels, as NetworkX returns results;
    vertices without an entry are left out (a BFS's unreached vertices, ...).

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.io import to_dict
    >>> to_dict(gb.Vector.from_coo([0, 2], [1.5, 2.5], size=3), ["a", "b", "c"])
    {'a': 1.5, 'c': 2.5}
    """
    call = "to_dict"
    if not isinstance(v, Vector):
        raise bad_arg(InvalidObject, call, "v", "a gb.Vector", type(v).__name__)
    labels = list(range(v.size)) if nodes is None else list(nodes)
    if len(labels) != v.size:
        raise bad_arg(DimensionMismatch, call, "nodes", f"{v.size} node labels",
                      f"{len(labels)}")
    idx, vals = v.to("cpu").to_coo()
    return {labels[i]: x for i, x in zip(idx.tolist(), vals.tolist())}
