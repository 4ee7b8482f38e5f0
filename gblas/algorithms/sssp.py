"""Single-source shortest paths over (min, +): delta-stepping, and Bellman-Ford.

Notation: ``A`` the adjacency matrix (``A(i, j)`` the weight of the edge ``i -> j``; a
bool matrix weighs every edge 1), ``d`` the distances found so far, ``f`` the frontier
(the vertices whose distance dropped in the last step, with their new distance), ``t``
the candidate distances.

Non-negative weights: delta-stepping (:func:`_buckets`).  ``d`` is dense (``inf`` where no
path is known yet) and the vertices are settled bucket by bucket: the bucket ``[lo, hi)``
holds the vertices with ``lo <= d < hi``, and inside it one step is

    t = f' min.+ A,   b = t < d,   d<b> = t,   f<b> = t<t < hi>

until no distance of the bucket drops (improvements at or beyond ``hi`` wait for their own
bucket); then every distance below ``hi`` is final and the next bucket is
``f = d<hi <= d < hi'>`` (or starts at the smallest distance not settled).  The buckets
grow geometrically, ``hi = lo * (1 + W)``, from the vertices at distance 0: power-law
graphs put their hubs at the smallest distances, where narrow buckets relax a vertex
about once.

Unlike the light/heavy formulation of Sridhar et al., every step relaxes all the edges of
its frontier: the split would need a select over the whole matrix on every call, which
costs more than the relaxations it saves.

Negative weights: frontier Bellman-Ford (:func:`relax`), one step

    t = f' min.+ A,   f = t<t < d or d has no entry>,   d<f> = f

i.e. only the vertices that improved relax their out-edges again; a step ``n`` that still
improves a distance proves a negative cycle reachable from the source.  The same loop runs
on a batch of sources at once, with ``D`` and ``F`` matrices (one row per source) and
``mxm`` instead of ``vxm``.

The shortest-path tree: a BFS from the source over the *tight* edges
(``d(i) + A(i, j) == d(j)``; zero-weight cycles make "any tight in-edge" cyclic).

References (ideas): LAGraph's ``LAGraph_BF_*`` Bellman-Ford variants; Meyer and Sanders,
"Delta-stepping: a parallelizable shortest path algorithm" (J. Algorithms 2003); Sridhar
et al., "Delta-Stepping SSSP: From Vertices and Edges to GraphBLAS Implementations"
(IPDPSW 2019), as in LAGraph's ``LAGr_SingleSourceShortestPath``.
"""

from __future__ import annotations

import weakref

import numpy as np

from .._device import extreme, to_device, xp_for
from ..backends.registry import VecData
from ..core.dispatch import dispatchable
from ..exceptions import BadWeight, InvalidValue
from ..formats.costing import summary
from ._progress import Progress
from .common import check_no_nan, check_vertex, diag, square_matrix

__all__ = ["delta_buckets", "sssp"]


class NegativeCycle(InvalidValue):
    """A negative cycle makes shortest paths undefined (an InvalidValue of ``A``)."""


def negative_cycle_error(call: str, where: str) -> InvalidValue:
    return NegativeCycle(
        f"{call}: argument `A` expected a graph without a negative cycle reachable from "
        f"{where}, got one (distances still dropped after n steps of Bellman-Ford). "
        "Shortest paths are undefined there.")


def relax(A, D, *, step, limit: float | None, call: str, where: str, report) -> int:
    """Run frontier Bellman-Ford in place on ``D`` (a Vector or a Matrix of distances).

    ``step(F)`` is the (min, +) product of the frontier with ``A``.  Returns the number of
    steps.  Candidates above ``limit`` are dropped (exact for non-negative weights).
    """
    from ..core import apply, ewise_mult, select

    n = A.shape[0]
    F = D.dup()
    it = 0
    while F.nvals:
        it += 1
        if it > n:
            raise negative_cycle_error(call, where)
        # t = F min.+ A: the distances offered through the frontier's out-edges
        t = step(F)
        if limit is not None:
            # t = t<t <= limit>: nothing beyond the search radius
            t = select(t, "valuele", limit)
        # F<!D> = t: vertices reached for the first time
        F = apply(t, "identity", mask=~D.S)
        # b = t < D: where an offer improves a known distance
        better = ewise_mult(t, D, "lt")
        # F<b> = t
        apply(t, "identity", mask=better.V, out=F)
        # D<F> = F
        apply(F, "identity", mask=F.S, out=D)
        if report.enabled:
            report.update(it, f"frontier {F.nvals:,}, reached {D.nvals:,}")
    return it


def tight_edges(A, d):
    """The edges on shortest paths: ``T(i, j)`` iff ``d(i) + A(i, j) == d(j)``."""
    from ..core import mxm, select

    Dd = diag(d)
    # C = diag(d) min.+ A: C(i, j) = d(i) + A(i, j) (one term per entry)
    C = mxm(Dd, A, "min_plus")
    # K = C any.- diag(d): K(i, j) = d(i) + A(i, j) - d(j), the slack of every edge
    K = mxm(C, Dd, "any_minus")
    # T = select(K == 0): the tight edges (exact: d(j) is one of these very sums)
    return select(K, "valueeq", 0)


def _check_source(A, source, call: str) -> int:
    return check_vertex(source, A.shape[0], call, "source")


# ------------------------------------------------------------------ delta-stepping

#: A bucket starting at ``lo`` ends at ``hi = lo * (1 + _WIDTH)``: narrower buckets take
#: more steps, wider ones relax more vertices again.
_WIDTH = 4.0


#: storage (a CSR) -> whether it holds a negative or a NaN value, while it lives: each
#: call would read all values again (a storage never changes; a Matrix written to takes
#: a new one).
_BAD_WEIGHT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _weights_csr(A):
    """The storage holding ``A``'s values (a transposed view holds its parent's)."""
    return getattr(A, "parent", A).csr()


def _known_bad_weight(A) -> bool | None:
    """Whether ``A`` holds a negative or NaN weight, where known without a pass over the
    values (its dtype, no entries, an iso value, or an earlier answer); else None."""
    if np.dtype(A.dtype).kind in "bu" or A.nvals == 0:
        return False
    csr = _weights_csr(A)
    if csr.values is None:
        return not float(csr.iso_value) >= 0
    return _BAD_WEIGHT.get(csr)


def _has_bad_weight(A) -> bool:
    """Whether ``A`` holds a negative or a NaN weight: the minimum of its stored values (a
    NaN propagates through the minimum), one pass and no product, once per storage."""
    bad = _known_bad_weight(A)
    if bad is None:
        csr = _weights_csr(A)
        bad = _BAD_WEIGHT[csr] = not float(csr.values.min()) >= 0
    return bad


def _heap_sssp(A, source: int, plan, progress: bool):
    """Distances by the plan's heap Dijkstra (weights ``>= 0`` on a graph many hops deep,
    where (min, +) products take a step per level of hops; on a device without one, the
    host's on a copy of ``A``), checking the weights it reads: None where it met a
    negative or NaN one."""
    from ..core import Vector
    from ._paths import heap_paths

    n = A.shape[0]

    with Progress("sssp", enabled=progress) as report:
        try:
            dist, _ = heap_paths(A, np.array([source], dtype=np.int64), device=plan.device,
                                 check=True)
        except BadWeight:
            report.close("a negative or NaN weight met: Bellman-Ford instead")
            return None
        row = dist[0]
        if plan.device != A.device:
            # the distances moved where A lives in one copy, their flags made there
            row = to_device(row, A.device)
        present = xp_for(A.device).isfinite(row)
        # the kernel's new arrays become the Vector's
        d = Vector(VecData(n, None, row, present), row.dtype, A.device, owned=True)
        if progress:
            where = "" if plan.device == A.device else f" on the {plan.device}"
            report.close(f"heap Dijkstra{where}, {int(present.sum()):,} reached")
    return d


def _fused_sssp(A, source: int, plan, progress: bool):
    """Distances by the plan's one launch of frontier rounds on the GPU: a Vector; None
    when the rounds ran out first; False when it read a negative or NaN weight."""
    from ..backends.registry import get_kernel
    from ..core import Vector

    csr = A.csr()
    iso = 0.0 if csr.values is not None else float(csr.iso_value)
    with Progress("sssp", enabled=progress) as report:
        dist, rounds, finished, bad = get_kernel(*plan.key)(
            csr.indptr, csr.indices, csr.values, iso, source, plan.details["max_rounds"])
        if bad or not finished:
            report.close("a negative or NaN weight met" if bad else
                         f"not done after {rounds} rounds: {plan.details['then'].reason}")
            return False if bad else None
        xp = xp_for(A.device)
        d = Vector(VecData(A.shape[0], None, dist, xp.isfinite(dist)), dist.dtype, A.device,
                   owned=True)
        if progress:
            report.close(f"{rounds} rounds in one launch, {d.nvals:,} reached")
    return d


def _bucket_end(lo: float) -> float:
    """``lo * (1 + _WIDTH)``, and at least the next float above ``lo``."""
    hi = lo + lo * _WIDTH
    return hi if hi > lo else float(np.nextafter(lo, np.inf))


def delta_buckets(A, depth: int, reached: int) -> int:
    """About how many non-empty buckets delta-stepping settles on ``A`` for a search
    ``depth`` hops deep that reaches ``reached`` vertices: the geometric buckets from the
    smallest positive weight up to ``depth`` times the largest, at most one per vertex
    reached, and the source's own.

    The weights' range is read once per storage.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1e-3, 1.0, 1.0], shape=(4, 4))
    >>> delta_buckets(A, 3, 100)    # distances from 1e-3 to 3: 5 buckets, and the source
    6
    >>> delta_buckets(A, 3, 4)      # no more than the vertices reached
    4
    """
    csr = _weights_csr(A)
    memo = summary(csr)
    span = memo.get("weight_span")
    if span is None:
        if csr.values is None:
            span = 1.0
        else:
            xp = xp_for(csr.device)
            v = csr.values
            lo = extreme(xp.where(v > 0, v, xp.inf), "min") if v.size else 1.0
            hi = float(extreme(v, "max")) if v.size else 1.0
            span = hi / lo if 0 < lo < float("inf") and hi > 0 else 1.0
        memo["weight_span"] = span
    ratio = max(1.0, depth * span)
    buckets = 1 + int(np.ceil(np.log(ratio) / np.log1p(_WIDTH)))
    return int(min(buckets, max(int(reached), 1)))


def _buckets(A, d, source: int, *, report) -> int:
    """Delta-stepping in place on ``d``: a dense Vector, ``inf`` where no path is known.

    Requires weights ``>= 0``.  Returns the number of steps (products).
    """
    from ..core import Vector, apply, ewise_mult, reduce, select, vxm

    inf = float("inf")
    # the first bucket holds the vertices at distance 0: f = {source: 0}
    lo, hi = 0.0, _bucket_end(0.0)
    f = Vector.from_coo([source], np.array([0.0]), d.size).to(d.device)
    steps = buckets = 0
    while True:
        buckets += 1
        while f.nvals:
            steps += 1
            # t = f min.+ A: the distances offered through the bucket's out-edges
            t = vxm(f, A, "min_plus")
            # b = t < d: where an offer improves the distance
            b = ewise_mult(t, d, "lt")
            # d<b> = t: the improvements (each below d, so no min is needed)
            apply(t, "identity", mask=b.V, out=d)
            # f<b> = t<t < hi>: improved inside the bucket, relaxed again
            f = select(t, "valuelt", hi, mask=b.V)
            if report.enabled:
                report.update(steps, f"bucket {buckets} [{lo:.3g}, {hi:.3g}), "
                              f"frontier {f.nvals:,}")
        # every distance below hi is final now: the next bucket starts at hi
        lo, hi = hi, _bucket_end(hi)
        # f = d<lo <= d < hi>: the values below hi (a short list), then those from lo
        f = select(select(d, "valuelt", hi), "valuege", lo)
        if f.nvals:
            continue
        # an empty bucket: jump to the smallest distance not settled
        # r = d<d >= lo>: the vertices not settled yet (those not reached hold inf)
        r = select(d, "valuege", lo)
        # lo = min(r)
        lo = float(reduce(r, "min"))
        if lo == inf:
            return steps
        hi = _bucket_end(lo)
        # f = r<r < hi>
        f = select(r, "valuelt", hi)


def nonnegative_sssp(A, source: int, report):
    """``(distances, steps)`` from ``source`` by delta-stepping (weights ``>= 0``); the
    vertices not reached have no entry."""
    from ..core import Vector, select

    init = np.full(A.shape[0], np.inf)
    init[source] = 0.0
    # d = inf, d(s) = 0
    d = Vector.from_dense(init).to(A.device)
    del init  # d's array is then d's alone: the write-backs update it in place
    steps = _buckets(A, d, source, report=report)
    # d = d<d < inf>: the vertices not reached have no entry
    return select(d, "valuelt", np.inf), steps


@dispatchable  # a distributed Matrix takes the call (gblas.distributed)
def sssp(A, source: int, *, parents: bool = False, progress: bool = False):
    """Shortest-path distances from ``source`` (delta-stepping; Bellman-Ford when a
    weight is negative).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix: ``A[i, j]`` is the weight of the edge ``i -> j`` (a bool
        matrix weighs every edge 1; explicit zeros are zero-weight edges).
    source : int
        Starting vertex.
    parents : bool, default False
        Also return a shortest-path tree: the parent of every reached vertex (the source
        is its own parent).  Among equal shortest paths the tree takes, level by level
        of a BFS over the tight edges, the smallest-id parent.
    progress : bool, default False
        Report every step (product) on stderr; the final line gives the number of
        steps, as for every iterative algorithm of :mod:`gblas.algorithms`.

    Returns
    -------
    distances : gblas.Vector of float64
        ``distances[v]``: the length of a shortest path ``source -> v``; unreachable
        vertices have no entry.
    parents : gblas.Vector of int64
        Only with ``parents=True``.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue, IndexOutOfBound
        ``source`` is not a vertex; a NaN weight (on the heap route: one the search
        reads; on the products' route: anywhere in ``A``); a negative cycle is reachable
        from ``source``.

    Notes
    -----
    Each step costs one (min, +) product of a frontier (push when it is sparse, pull
    when dense: the planner's choice).  With weights ``>= 0`` the vertices are settled
    by delta-stepping over geometric buckets (module documentation): on power-law graphs
    nearly every edge is relaxed once.  A graph many hops deep runs a heap Dijkstra
    instead (the planner's estimate), which checks each weight it reads; otherwise one
    pass over the values decides between the methods (a negative weight).  A NaN weight
    the search meets raises.  With a negative weight the
    frontier Bellman-Ford runs instead; it takes at most the number of edges of the
    longest shortest path (in edges) plus one steps, and ``n`` steps prove a negative
    cycle.  Weights of ``inf`` never make a path: such vertices have no entry.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 3], [4.0, 1.0, -2.0, 1.0],
    ...                        shape=(5, 5))
    >>> d, p = gb.algorithms.sssp(A, 0, parents=True)
    >>> d.to_dense(fill=float("inf")).tolist()
    [0.0, 4.0, 1.0, 2.0, inf]
    >>> p.to_dense(fill=-1).tolist()
    [0, 0, 0, 2, -1]
    """
    from ..core import Vector, select, vxm

    call = "sssp"
    A = square_matrix(A, call)
    source = _check_source(A, source, call)
    n = A.shape[0]
    d = None
    # a heap Dijkstra checks the weights it reads (those the distances depend on), so the
    # pass over all of them is needed only where it does not run
    bad = _known_bad_weight(A)
    plan = None if bad else _plan_checked(A, source)
    if plan is not None and plan.direction == "fused":
        d = _fused_sssp(A, source, plan, progress)
        if d is not None:  # finished, or met a negative or NaN weight (False)
            bad = d is False
            d = None if bad else d
        else:  # more rounds than the launch runs: the route planned without it
            plan = plan.details["then"]
    if d is None and not bad and plan.direction == "heap":
        d = _heap_sssp(A, source, plan, progress)
        bad = d is None
    elif d is None and bad is None:
        bad = _has_bad_weight(A)
    if bad:
        # a negative or NaN weight: known from now on, for this storage
        _BAD_WEIGHT[_weights_csr(A)] = True
        check_no_nan(A, call)
        # d(s) = 0
        d = Vector.from_coo([source], np.array([0.0]), n).to(A.device)
        with Progress(call, enabled=progress) as report:
            steps = relax(A, d, step=lambda f: vxm(f, A, "min_plus"), limit=None, call=call,
                           where=f"source {source}", report=report)
            # d = d<d < inf>: a path through an edge of weight inf is no path
            d = select(d, "valuelt", np.inf)
            if progress:  # (the count synchronizes a device: only when reported)
                report.close(f"{steps} steps, {d.nvals:,} reached")
    elif d is None:
        with Progress(call, enabled=progress) as report:
            d, steps = nonnegative_sssp(A, source, report)
            if progress:
                report.close(f"{steps} steps, {d.nvals:,} reached")
    if not parents:
        return d
    # p = the BFS parents over the tight edges
    return d, bfs_forest(tight_edges(A, d), [source])


def _plan(A, source: int = 0, *, parents: bool = False, progress: bool = False):
    """The Plan of ``sssp(A, source)`` when its weights are ``>= 0``: ``direction`` "heap"
    (Dijkstra), "semiring" (delta-stepping over (min, +) products) or, on a small GPU
    Matrix, "fused" (frontier rounds in one launch); what ``gb.explain`` shows."""
    A = square_matrix(A, "sssp")
    return _plan_checked(A, _check_source(A, source, "sssp"))


def _plan_checked(A, source: int):
    """:func:`_plan` of a square ``A`` and a checked ``source``."""
    from ..planner.paths import plan_fused_sssp
    from ._paths import shortest_paths_plan

    return plan_fused_sssp(shortest_paths_plan(A, np.array([source]), False), A.nvals,
                           A.device)


sssp.__gblas_plan__ = _plan


def sssp_batch(A, sources, *, limit: float | None = None, call: str = "sssp",
                progress: bool = False):
    """Distances from every vertex of ``sources`` at once: a ``len(sources) x n`` Matrix.

    The frontier is a matrix (one row per source) and a step is one masked SpGEMM.
    """
    from ..core import Matrix, mxm

    n = A.shape[0]
    src = np.asarray(sources, dtype=np.int64)
    k = src.size
    if k == 0:
        return Matrix.from_coo([], [], np.zeros(0), shape=(0, n)).to(A.device)
    # D(b, s_b) = 0
    D = Matrix.from_coo(np.arange(k), src, np.zeros(k), shape=(k, n)).to(A.device)
    where = f"source {int(src[0])}" if k == 1 else "one of the sources"
    with Progress(call, enabled=progress) as report:
        steps = relax(A, D, step=lambda F: mxm(F, A, "min_plus"), limit=limit, call=call,
                       where=where, report=report)
        report.close(f"{steps} steps")
    return D


def has_negative_cycle(A) -> bool:
    """Whether ``A`` holds a negative cycle anywhere (Johnson's virtual source)."""
    from ..core import Vector, select, vxm

    n = A.shape[0]
    if n == 0 or np.dtype(A.dtype).kind in "bu":
        return False
    # no negative weight, no negative cycle
    if select(A, "valuelt", 0).nvals == 0:
        return False
    # d = 0: a virtual vertex with a zero-weight edge to every vertex
    d = Vector.from_dense(np.zeros(n)).to(A.device)
    try:
        with Progress("", enabled=False) as report:
            relax(A, d, step=lambda f: vxm(f, A, "min_plus"), limit=None, call="",
                   where="", report=report)
    except NegativeCycle:
        return True
    return False


def bfs_forest(T, roots):
    """BFS parents over ``T`` from several roots at once (each root its own parent)."""
    from ..core import Vector, apply, ewise_mult, mxv
    from .common import vertex_ids

    n = T.shape[0]
    roots = np.asarray(roots, dtype=np.int64)
    ids = vertex_ids(n, T.device)
    # p(r) = r; q(r) = r: the frontier carries the ids of its vertices
    parent = Vector.from_coo(roots, roots, n).to(T.device)
    q = parent.dup()
    TT = T.T
    while True:
        # q<!p, replace> = T' min.second q: unvisited out-neighbours, smallest parent id
        q = mxv(TT, q, "min_second", mask=~parent.S, replace=True)
        if q.nvals == 0:
            return parent
        # p<q> = q
        apply(q, "identity", mask=q.S, out=parent)
        # q = q .second id
        q = ewise_mult(q, ids, "second")
