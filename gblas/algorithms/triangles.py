"""Triangle counting: Sandia's ``L . L`` masked by ``L`` with the plus-pair semiring.

Notation: ``S`` the undirected structure of ``A`` (both directions, no self loops),
``L`` its strictly lower triangle in a total order of the vertices, ``C`` the masked
product.  Every triangle ``k < j < i`` (in that order) is counted exactly once, by the
entry ``C(i, k)`` of

    C<L> = L plus.pair L         ntri = sum(C)

``C(i, k)`` counts the wedges ``i - j - k`` with ``k < j < i``, kept only where the edge
``i - k`` closes them.  The order is the vertex ids, or on skewed degree distributions
the order by increasing degree (LAGraph's presort heuristic, applied as an orientation:
``L`` keeps each edge at its busier end, so the hubs' neighbours are walked from the
hubs' rows, never through them).

Reference (ideas): Wolf, Deveci, Berry, Hammond, Rajamanickam, "Fast linear algebra-based
triangle counting with KokkosKernels" (Sandia LL); Davis, "Graph algorithms via
SuiteSparse:GraphBLAS: triangle counting and K-truss" (2018); LAGraph's
``LAGr_TriangleCount``.
"""

from __future__ import annotations

import numpy as np

from .._device import to_device, to_numpy
from ..core.dispatch import dispatchable
from ..exceptions import InvalidValue, bad_arg
from .common import is_symmetric, on_device, square_matrix, undirected

__all__ = ["triangle_count"]


def _presort_wanted(deg: np.ndarray) -> bool:
    """LAGraph's rule: relabel when the largest degrees dwarf the mean degree."""
    n = deg.size
    if n < 1000 or deg.sum() == 0:
        return False
    top = np.partition(deg, n - min(n, 1000))[n - min(n, 1000):]
    return float(top.mean()) > 4.0 * float(deg.mean())


@dispatchable  # a distributed Matrix takes the call (gblas.distributed)
def triangle_count(A, *, presort: bool | None = None) -> int:
    """Number of triangles of the undirected graph of ``A``.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix.  Directions, values and self loops are ignored: an edge
        ``i - j`` exists when ``A[i, j]`` or ``A[j, i]`` is present.
    presort : bool, optional
        For the loop of operations (a pinned format, or a device without the compiled
        kernel): orient edges by increasing degree first (faster on skewed degree
        distributions).  Default: when the 1000 largest degrees average more than 4 times
        the mean degree (LAGraph's rule).  The compiled kernel always orients by degree.

    Returns
    -------
    int
        The number of triangles (each counted once), as
        ``sum(networkx.triangles(G).values()) // 3``.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 1, 1, 2], [1, 2, 2, 3, 3], shape=(4, 4))
    >>> gb.algorithms.triangle_count(A)
    2
    """
    from ..core import Vector, mxm, mxv, reduce, select

    call = "triangle_count"
    A = square_matrix(A, call)
    if presort is not None and not isinstance(presort, (bool, np.bool_)):
        raise bad_arg(InvalidValue, call, "presort", "True, False or None", repr(presort))
    n = A.shape[0]
    if A.nvals == 0:
        return 0
    plan = _plan(A)
    if plan.key is not None:
        from ..core import executor

        # one compiled pass: the rows of A and A' merged into the undirected graph (on
        # a host copy of a small GPU Matrix)
        G = on_device(A, plan.device)
        return executor.kernel(plan)(G.csr(), G.csr(transposed=True))
    if is_symmetric(A):
        # S = offdiag(A): already both directions of every edge
        S = select(A, "offdiag")
    else:
        # S = build(P + P', dup = any) without the diagonal: the undirected graph
        S = undirected(A, np.int64, no_diagonal=True)
    if S.nvals == 0:
        return 0
    if np.dtype(S.dtype) != np.int64:
        # S = int64(S): plus.pair counts in the matrix's type (bool would saturate)
        S = S.dup(np.int64)
    rank = None
    if presort is None or presort:
        # deg = S plus.pair 1: the degrees
        deg = to_numpy(mxv(S, Vector.from_dense(np.ones(n, dtype=np.int64)).to(S.device),
                           "plus_pair").to_dense())
        if presort or _presort_wanted(deg):
            # rank(v): v's place by increasing degree
            rank = np.empty(n, dtype=np.int64)
            rank[np.argsort(deg, kind="stable")] = np.arange(n, dtype=np.int64)
    if rank is None:
        # L = tril(S, -1): every edge once, from its larger id to its smaller
        L = select(S, "tril", -1)
    else:
        # L = select(S, rank(j) < rank(i)): every edge once, from its busier end (the
        # degree order of LAGraph's presort, as an orientation rather than a relabelling)
        L = select(S, _lower_rank, to_device(rank, S.device))
    # C<L> = L plus.pair L: wedges i -> j -> k down the order, closed by the edge (i, k)
    C = mxm(L, L, "plus_pair", mask=L.S)
    # ntri = sum(C)
    return int(reduce(C, "plus"))


def _plan(A, *, presort: bool | None = None):
    """The Plan of ``triangle_count(A)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_triangle_count

    return plan_triangle_count(square_matrix(A, "triangle_count"), config.current())


triangle_count.__gblas_plan__ = _plan


def _lower_rank(rows, cols, values, rank):
    """``select`` predicate: the entries (i, j) with ``rank(j) < rank(i)``."""
    return rank[cols] < rank[rows]
