"""k-core decomposition (core numbers) by synchronous peeling.

Notation: ``M`` the undirected multigraph of ``A`` without self loops (``M(i, j)`` = the
number of directions the edge exists in: 1 for an undirected graph), ``deg`` the degrees
inside the remaining graph, ``q`` the vertices peeled in a step.  For ``k = 0, 1, ...``::

    q = select(deg <= k)               # all remaining vertices of degree <= k
    core<q> = k;  remove q
    deg -= M plus.first q              # each neighbour loses one per edge to q

and when no vertex has degree ``<= k`` any more, ``k`` jumps to the smallest remaining
degree.  A vertex peeled at level ``k`` has core number ``k`` (the Batagelj-Zaversnik
peeling, done a whole level at a time as in LAGraph's ``LAGraph_KCore_All``).
"""

from __future__ import annotations

import numpy as np

from ._progress import Progress
from .common import coo, on_device, square_matrix, undirected

__all__ = ["core_number"]


def core_number(A, *, directed: bool | None = None, progress: bool = False):
    """Core number of every vertex, as ``networkx.core_number``.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix (values ignored).  **Self loops are ignored** (NetworkX
        refuses graphs that have them; remove them there to compare).
    directed : bool, optional
        ``False``: ``A`` is an undirected graph (use a symmetric matrix; ``A + A'`` is
        taken).  ``True``: a directed graph whose degree is in-degree plus out-degree, a
        reciprocated pair counting twice, as NetworkX does for a ``DiGraph``.  Default:
        undirected iff ``A``'s pattern is symmetric.
    progress : bool, default False
        Report every peeling step on stderr; the final line gives the number of steps.

    Returns
    -------
    gblas.Vector of int64
        Dense core numbers (0 for isolated vertices).

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.

    Examples
    --------
    >>> import gblas as gb
    >>> r, c = [0, 0, 1, 2], [1, 2, 2, 3]
    >>> A = gb.Matrix.from_coo(r + c, c + r, shape=(5, 5))
    >>> gb.algorithms.core_number(A).to_dense().tolist()
    [2, 2, 2, 1, 0]
    """
    from ..core import Vector, apply, mxv, reduce, select

    call = "core_number"
    A = square_matrix(A, call)
    n = A.shape[0]
    if n == 0:
        return Vector.empty(0, np.int64, A.device)
    plan = _plan(A)
    device = A.device
    # a GPU Matrix without GPU peeling: the whole run on a host copy
    G = on_device(A, plan.device) if plan.kernel else A
    # M = build(P + P', dup = plus) without self loops: a reciprocated edge counts 2
    M = undirected(G, np.int64, no_diagonal=True, multiplicity=True)
    if directed is None:
        # symmetric iff every edge came in both directions: nvals(M) = nvals(offdiag(A))
        r, _ = coo(G, no_diagonal=True)
        directed = M.nvals != r.size
    if not directed:
        # M = one(M): each undirected edge once
        M = apply(M, "one")
    if plan.kernel:
        from ..core import executor

        with Progress(call, enabled=progress) as report:
            core = executor.kernel(plan)(M.csr())
            report.close("one compiled pass")
        return Vector.from_dense(core).to(device)
    # deg = 0; deg += M plus.reduce: the degrees, isolated vertices included
    deg = Vector.from_dense(np.zeros(n, dtype=np.int64)).to(A.device)
    apply(reduce(M, "plus", axis="rows"), "identity", accum="plus", out=deg)
    core = Vector.empty(n, np.int64, A.device)
    k = 0
    steps = 0
    with Progress(call, enabled=progress) as report:
        while deg.nvals:
            steps += 1
            # q = select(deg <= k): the vertices peeled at level k
            q = select(deg, "valuele", k)
            if q.nvals == 0:
                # k = min(deg): the next level
                k = int(reduce(deg, "min"))
                continue
            # core<q> = k
            apply(q, "second", right=k, mask=q.S, out=core)
            # deg<!q, replace> = deg: remove the peeled vertices
            deg = apply(deg, "identity", mask=~q.S)
            if deg.nvals == 0:
                break
            # d<deg> = M plus.first q: edges from the remaining vertices into q
            dec = mxv(M, q, "plus_first", mask=deg.S)
            # deg -= d
            apply(dec, "identity", accum="minus", out=deg)
            report.update(steps, f"k = {k}, {n - deg.nvals:,} of {n:,} peeled")
        report.close(f"{steps} steps, max core {k}")
    return core


def _plan(A, *, directed: bool | None = None, progress: bool = False):
    """The Plan of ``core_number(A)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_core_number

    return plan_core_number(square_matrix(A, "core_number"), config.current())


core_number.__gblas_plan__ = _plan
