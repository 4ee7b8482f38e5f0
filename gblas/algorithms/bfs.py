"""Breadth-first search as repeated masked matrix-vector products (LAGraph style).

Notation: ``A`` is the adjacency matrix (``A(i, j)`` present for an edge ``i -> j``),
``q`` the frontier, ``v`` the visited set (the levels found so far), ``p`` the parents.
One step is one product ``q<!v> = A' q`` over a semiring: the unvisited out-neighbours of
the frontier.  The planner picks push (SpMSpV, sparse frontier) or pull (masked SpMV,
dense frontier) for every step: direction optimization comes with the API.  Unless a
format or direction is pinned, the planner (:func:`gblas.planner.algorithms.plan_bfs`) runs
the same two steps as one fused kernel per level instead, with nothing done on the host
inside a level; ``gb.explain(gb.algorithms.bfs, A, source)`` shows which.
"""

from __future__ import annotations

import functools

import numpy as np

from ..config import config
from ..core import Vector, apply, ewise_mult, executor, mxv
from ..core.dispatch import dispatchable
from ..planner.algorithms import plan_bfs
from ._progress import Progress
from .common import check_vertex, square_matrix

__all__ = ["bfs"]


@dispatchable  # a distributed Matrix takes the call (gblas.distributed)
def bfs(A, source: int, *, parents: bool = False, progress: bool = False):
    """Breadth-first search from ``source``: levels, and optionally a parent tree.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix; ``A[i, j]`` present means an edge ``i -> j`` (values are
        ignored).  Use a symmetric matrix for an undirected graph.
    source : int
        Starting vertex.
    parents : bool, default False
        Also return the BFS parent of every reached vertex (the smallest-id parent among
        those on the previous level, so the tree is deterministic).
    progress : bool, default False
        Report each level on stderr.

    Returns
    -------
    levels : gblas.Vector of int64
        ``levels[v]`` = number of edges on a shortest path from ``source``; the source has
        level 0; unreachable vertices have no entry (``levels[v]`` is None there).
        ``levels.to_dense()`` fills missing entries with 0, the source's level: ask
        for ``levels.to_dense(fill=-1)`` to see the unreached vertices.
    parents : gblas.Vector of int64
        Only with ``parents=True``: the parent of every reached vertex, the source being
        its own parent.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue, IndexOutOfBound
        ``source`` is not an integer, negative, or not below the number of vertices.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 1, 3], [1, 2, 3, 4], shape=(6, 6))
    >>> levels, parents = gb.algorithms.bfs(A, 0, parents=True)
    >>> levels.to_dense(fill=-1).tolist()   # -1: not reached (to_dense() would say 0)
    [0, 1, 2, 2, 3, -1]
    >>> levels[4], levels[5]
    (3, None)
    >>> parents.to_dense(fill=-1).tolist()
    [0, 0, 1, 1, 3, -1]
    """
    call = "bfs"
    A = square_matrix(A, call)
    n = A.shape[0]
    source = check_vertex(source, n, call, "source")
    plan = plan_bfs(A, parents, config.current())
    if plan.kernel:
        return _fused(A, source, parents, plan, progress)
    AT = A.T
    dev = A.device  # every vector lives where the matrix does
    # v(s) = 0: the visited set, holding each vertex's level
    levels = Vector.from_coo([source], np.array([0], dtype=np.int64), n).to(dev)
    if parents:
        # id(i) = i: the vertex ids, to turn a frontier into "my own id" values
        ids = Vector.from_dense(np.arange(n, dtype=np.int64)).to(dev)
        # p(s) = s: the source is its own parent
        parent = Vector.from_coo([source], np.array([source], dtype=np.int64), n).to(dev)
        # q(s) = s: the frontier carries the id of each of its vertices
        q = Vector.from_coo([source], np.array([source], dtype=np.int64), n).to(dev)
    else:
        # q(s) = true
        q = Vector.from_coo([source], None, n).to(dev)
    with Progress(call, enabled=progress) as report:
        depth = 0
        while True:
            depth += 1
            if parents:
                # q<!v, replace> = A' min.second q: each unvisited out-neighbour of the
                # frontier gets the smallest id among its frontier in-neighbours
                q = mxv(AT, q, "min_second", mask=~levels.S, replace=True)
            else:
                # q<!v, replace> = A' any.pair q: the unvisited out-neighbours of the frontier
                q = mxv(AT, q, "any_pair", mask=~levels.S, replace=True)
            nq = q.nvals
            if nq == 0:
                break
            # v<q> = depth: the new frontier is visited at this level
            apply(q, "second", right=depth, mask=q.S, out=levels)
            if parents:
                # p<q> = q: the parent ids just found
                apply(q, "identity", mask=q.S, out=parent)
                # q = q .second id: the next frontier carries its own ids
                q = ewise_mult(q, ids, "second")
            report.update(depth, f"frontier {nq:,}, visited {levels.nvals:,}")
        report.close(f"{depth - 1} levels, {levels.nvals:,} reached")
    return (levels, parent) if parents else levels


def _plan(A, source: int = 0, *, parents: bool = False, progress: bool = False):
    """The Plan of ``bfs(A, source, parents=...)`` (what ``gb.explain`` shows)."""
    return plan_bfs(square_matrix(A, "bfs"), parents, config.current())


bfs.__gblas_plan__ = _plan


def _fused(A, source: int, parents: bool, plan, progress: bool):
    """Levels (and parents) from the plan's fused kernel, as Vectors without the
    unreached vertices (its levels run in compiled code: progress reports the total)."""
    kernel = executor.kernel(plan)
    get_AT = (lambda: A.csr(transposed=True)) if plan.details["pull"] else None
    if plan.details.get("whole_block"):
        kernel = functools.partial(kernel, whole_block=True)
    # the kernel returns the Vectors' storage: new arrays, owned by them
    if not progress:
        level, parent, _ = kernel(A.csr(), get_AT, source, parents, vectors=True)
    else:
        with Progress("bfs") as report:
            level, parent, stats = kernel(A.csr(), get_AT, source, parents, vectors=True)
            report.close(f"{stats['levels']} levels ({stats['push']} push, "
                         f"{stats['pull']} pull) in one fused kernel")
    levels = Vector(level, np.int64, A.device, owned=True)
    if not parents:
        return levels
    return levels, Vector(parent, np.int64, A.device, owned=True)
