"""Triangles through every vertex and clustering coefficients (LAGraph style).

Notation: ``S`` the simple undirected graph of ``A`` (its pattern without self loops,
int64 ones), ``d`` the degrees, ``C`` the masked product, ``t2`` twice the triangles
through every vertex::

    d    = S plus.pair 1            degrees (self loops excluded)
    C<S> = S plus.pair S            C(i, j): common neighbours of the edge i - j
    t2   = C plus.reduce (rows)     every triangle through i counted twice (via j, via k)

and, as NetworkX defines them for undirected graphs:

- ``triangles(v) = t2(v) / 2``;
- ``clustering(v) = t2(v) / (d(v) (d(v) - 1))`` (0 where ``t2(v) = 0``);
- ``average_clustering = mean(clustering)`` (over the vertices with a nonzero
  coefficient when ``count_zeros=False``);
- ``transitivity = sum(t2) / sum(d (d - 1))`` (0 without triangles).

Input rules: self loops and values are ignored (every entry is an edge, an explicit
zero too).  NetworkX defines these for undirected graphs (``nx.triangles`` refuses a
DiGraph), so a matrix whose pattern is not symmetric is refused with an error that
says how to proceed: ``symmetrize=True`` counts on its undirected graph (an edge
``i - j`` where ``A[i, j]`` or ``A[j, i]`` is present, as :func:`triangle_count` does).

Reference (ideas): LAGraph's ``LAGraph_TriangleCentrality`` / ``LAGr_TriangleCount``
(masked ``plus.pair`` products and row reductions).
"""

from __future__ import annotations

import numpy as np

from .._device import to_device, to_numpy, xp_for
from ..exceptions import InvalidValue, bad_arg
from .common import is_symmetric, on_device, pattern, square_matrix, undirected

__all__ = ["average_clustering", "clustering", "transitivity", "triangles"]


def _triangles_degrees(A, call: str, symmetrize: bool):
    """``(t2, d)``: twice the triangles through every vertex and the degrees, as dense
    int64 arrays on ``A``'s device."""
    from ..core import Vector, mxm, mxv, reduce

    A = square_matrix(A, call)
    if not isinstance(symmetrize, (bool, np.bool_)):
        raise bad_arg(InvalidValue, call, "symmetrize", "True or False", repr(symmetrize))
    if not symmetrize and not is_symmetric(A):
        raise bad_arg(InvalidValue, call, "A", "a matrix with a symmetric pattern (an "
                      "undirected graph: NetworkX defines this for undirected graphs)",
                      "a pattern that is not symmetric (a directed graph)",
                      "Pass symmetrize=True to use its undirected graph (an edge i - j "
                      "where A[i, j] or A[j, i] is present), as triangle_count does.")
    n = A.shape[0]
    xp = xp_for(A.device)
    if A.nvals == 0:
        z = xp.zeros(n, dtype=np.int64)
        return z, z.copy()
    plan = _plan(A)
    if plan.key is not None:
        from ..core import executor

        # compiled passes over the rows of A and A' (A's own when symmetric): each
        # triangle found once, by degree order, credited to its three vertices (on a
        # host copy of a small GPU Matrix, the counts moved back)
        G = on_device(A, plan.device)
        csr = G.csr()
        t, d = executor.kernel(plan)(csr, G.csr(transposed=True) if symmetrize else csr)
        return to_device(2 * t, A.device), to_device(d, A.device)
    # S = offdiag(pattern(A)) (or of pattern(A) + pattern(A)'): int64 ones, so that
    # plus.pair counts in int64
    S = (undirected(A, np.int64, no_diagonal=True) if symmetrize
         else pattern(A, np.int64, no_diagonal=True))
    # d = S plus.pair 1: the degrees
    d = mxv(S, Vector.full(n, 1, dtype=np.int64, device=S.device), "plus_pair")
    # C<S> = S plus.pair S: the common neighbours of the ends of every edge
    C = mxm(S, S, "plus_pair", mask=S.S)
    # t2 = C plus.reduce over each row: twice the triangles through every vertex
    t2 = reduce(C, "plus", axis="rows")
    return (t2.to_dense(fill=0).astype(np.int64, copy=False),
            d.to_dense(fill=0).astype(np.int64, copy=False))


def _plan(A, **_options):
    """The Plan of the per-vertex triangles (what ``gb.explain`` shows for
    :func:`triangles`, :func:`clustering`, :func:`average_clustering` and
    :func:`transitivity`, whatever their options)."""
    from ..config import config
    from ..planner.algorithms import plan_triangle_count

    return plan_triangle_count(square_matrix(A, "triangles"), config.current(),
                               per_vertex=True)


def triangles(A, *, symmetrize: bool = False):
    """The number of triangles through every vertex (``networkx.triangles``).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix with a symmetric pattern (an undirected graph); values
        and self loops are ignored.
    symmetrize : bool, default False
        Use the undirected graph of a matrix whose pattern is not symmetric (refused
        otherwise, as NetworkX refuses directed graphs).

    Returns
    -------
    gblas.Vector of int64
        Every vertex present (0 where no triangle passes); its sum is three times
        :func:`triangle_count`.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue
        ``A``'s pattern is not symmetric and ``symmetrize`` is False.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2, 2, 0, 1, 3, 2], [1, 2, 0, 3, 2, 0, 2, 1],
    ...                        shape=(4, 4))
    >>> gb.algorithms.triangles(A).to_dense().tolist()
    [1, 1, 1, 0]
    >>> gb.explain(gb.algorithms.triangles, A).kernel   # the compiled per-vertex count
    'triangles/csr/cpu/per_vertex'
    """
    from ..core import Vector

    t2, _ = _triangles_degrees(A, "triangles", symmetrize)
    return Vector.from_dense(t2 // 2)


def _coefficients(t2, d, xp):
    """``t2 / (d (d - 1))``, 0 where ``t2 = 0`` (float64)."""
    pairs = (d * (d - 1)).astype(np.float64)
    out = xp.zeros(t2.shape[0], dtype=np.float64)
    has = t2 > 0
    out[has] = t2[has] / pairs[has]
    return out


def clustering(A, *, symmetrize: bool = False):
    """The clustering coefficient of every vertex (``networkx.clustering``, unweighted):
    the share of the pairs of its neighbours that are linked.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix with a symmetric pattern; values and self loops are
        ignored (a self loop is not a neighbour, as in NetworkX).
    symmetrize : bool, default False
        Use the undirected graph of a matrix whose pattern is not symmetric.

    Returns
    -------
    gblas.Vector of float64
        Every vertex present; 0 for vertices of degree below 2 or without triangles.

    Examples
    --------
    >>> import gblas as gb
    >>> # the triangle 0-1-2 and the edge 2-3, both directions of each
    >>> A = gb.Matrix.from_coo([0, 1, 2, 2, 0, 1, 3, 2], [1, 2, 0, 3, 2, 0, 2, 1],
    ...                        shape=(4, 4))
    >>> gb.algorithms.clustering(A).to_dense().round(4).tolist()
    [1.0, 1.0, 0.3333, 0.0]
    """
    from ..core import Vector

    t2, d = _triangles_degrees(A, "clustering", symmetrize)
    return Vector.from_dense(_coefficients(t2, d, xp_for(A.device)))


def average_clustering(A, *, count_zeros: bool = True, symmetrize: bool = False) -> float:
    """The mean clustering coefficient (``networkx.average_clustering``, unweighted).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix with a symmetric pattern, at least one vertex.
    count_zeros : bool, default True
        Include the vertices whose coefficient is 0 in the mean.
    symmetrize : bool, default False
        Use the undirected graph of a matrix whose pattern is not symmetric.

    Returns
    -------
    float

    Raises
    ------
    InvalidValue
        No vertex to average over (an empty matrix, or no nonzero coefficient with
        ``count_zeros=False``; NetworkX divides by zero there).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2, 2, 0, 1, 3, 2], [1, 2, 0, 3, 2, 0, 2, 1],
    ...                        shape=(4, 4))
    >>> round(gb.algorithms.average_clustering(A), 6)
    0.583333
    >>> round(gb.algorithms.average_clustering(A, count_zeros=False), 6)
    0.777778
    """
    call = "average_clustering"
    t2, d = _triangles_degrees(A, call, symmetrize)
    c = to_numpy(_coefficients(t2, d, xp_for(A.device)))
    if not count_zeros:
        c = c[np.abs(c) > 0]
    if c.size == 0:
        raise bad_arg(InvalidValue, call, "A", "at least one vertex to average over",
                      "none" if count_zeros else "no vertex with a nonzero coefficient",
                      None if count_zeros else "Pass count_zeros=True to include them.")
    return float(c.sum() / c.size)


def transitivity(A, *, symmetrize: bool = False) -> float:
    """The fraction of the connected triples that close a triangle
    (``networkx.transitivity``): ``3 x triangles / triads``.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix with a symmetric pattern; values and self loops ignored.
    symmetrize : bool, default False
        Use the undirected graph of a matrix whose pattern is not symmetric.

    Returns
    -------
    float
        0.0 when there is no triangle.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2, 2, 0, 1, 3, 2], [1, 2, 0, 3, 2, 0, 2, 1],
    ...                        shape=(4, 4))
    >>> gb.algorithms.transitivity(A)
    0.6
    """
    t2, d = _triangles_degrees(A, "transitivity", symmetrize)
    tri = int(to_numpy(t2).sum())
    if tri == 0:
        return 0.0
    return tri / int(to_numpy(d * (d - 1)).sum())


for _f in (triangles, clustering, average_clustering, transitivity):
    _f.__gblas_plan__ = _plan
del _f
