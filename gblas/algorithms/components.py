"""Connected components (weak: BFS from a hub, then FastSV; strong: coloring with
forward/backward propagation).

Notation: ``A`` the adjacency matrix (``A(i, j)`` for an edge ``i -> j``; values are
never read), ``v`` the vertices a BFS reached, ``q`` its frontier, ``f`` the parent vector
of the FastSV forest, ``gp`` the grandparents ``f(f)``, ``mngp`` the minimum grandparent
of each vertex's neighbours, ``c`` the colors, ``id`` the vector ``id(i) = i``.

Both algorithms label every component with its **smallest vertex id**, so the labels are
deterministic and equal for equal partitions.

References (ideas, not code): Slota, Rajamanickam, Madduri, "BFS and coloring-based
parallel algorithms for strongly connected components and related problems" (IPDPS 2014:
the Multistep method, a BFS from the largest-degree vertex for the giant component first);
Sutton, Ben-Nun, Barak, "Optimizing parallel graph connectivity computation via subgraph
sampling" (IPDPS 2018: Afforest, which skips the largest component's edges); Zhang, Azad,
Hu, "FastSV: a distributed-memory connected component algorithm with fast convergence"
(SIAM PP 2020), as in LAGraph's ``LAGr_ConnectedComponents``; Orzan's coloring
algorithm for strongly connected components (forward min-color propagation, backward
closure per color, trimming of vertices without in- or out-edges), as in LAGraph's
``LAGraph_scc``.
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import dispatchable
from ..exceptions import InvalidValue, bad_arg
from ._progress import Progress
from .common import host_csr, is_symmetric, square_matrix, vertex_ids

__all__ = ["connected_components"]


# ------------------------------------------------------------------------ helpers
# (shared by the other algorithm modules of this package)


def _any_true(v) -> bool:
    """Whether a bool Vector/Matrix has a true entry."""
    from ..core import select

    return v.nvals > 0 and select(v, "valueeq", True).nvals > 0


def check_connection(connection, call: str) -> str:
    if not isinstance(connection, str) or connection.lower() not in ("weak", "strong"):
        raise bad_arg(InvalidValue, call, "connection", "'weak' or 'strong'", repr(connection))
    return connection.lower()


# ------------------------------------------------------- weak: BFS first, then FastSV

#: BFS levels the first phase may take before it gives up closing the seed's component
#: (graphs of large diameter: paths, grids, road networks); FastSV then does all the work.
_BFS_LEVELS = 32

#: The vertices left after the BFS are solved on their own sub-matrix when there are at
#: most ``n / _SUBGRAPH_FRACTION`` of them; otherwise in place, with a mask.
_SUBGRAPH_FRACTION = 8


def _fastsv(A, f, rows, both: bool, report, step: int) -> tuple:
    """FastSV hooking and shortcutting from the star forest ``f`` until nothing moves.

    Only the vertices of ``rows`` (all when None) hook; the others must be settled already
    (isolated, or in a component whose every vertex is labelled).  Unless ``both``, the
    products run over ``A``'s out-edges only; at their fixed point ``f(i) <= f(j)`` holds
    on every edge ``i -> j``, so one ``max`` product tells whether the labels are final
    (always for a symmetric pattern); if not, the in-edges (``A'``) join and the
    iteration goes on.  Returns ``(f, iterations)``.
    """
    from ..core import Matrix, apply, ewise_add, ewise_mult, extract, mxv

    n = A.shape[0]
    AT = A.T
    mask = None if rows is None else rows.S
    # gp = f(f) = f: the forest starts as stars
    gp = f.dup()
    # mngp = f: the running minimum grandparent over the closed neighbourhood
    mngp = f.dup()
    it = 0
    while True:
        it += 1
        # mngp<rows> min= A min.second gp: the smallest grandparent of the out-neighbours
        mxv(A, gp, "min_second", mask=mask, accum="min", out=mngp)
        if both:
            # mngp<rows> min= A' min.second gp: and of the in-neighbours
            mxv(AT, gp, "min_second", mask=mask, accum="min", out=mngp)
        # fr = f<rows>: the parents of the vertices that hook
        fr = f if rows is None else apply(f, "identity", mask=mask)
        pu, pf = fr.to_coo()
        # P'(f(u), u) = 1: the transposed parent matrix (one entry per column)
        PT = Matrix.from_coo(pf, pu, None, shape=(n, n)).to(A.device)
        # f min= P' min.second mngp: stochastic hooking f(f(u)) = min(f(f(u)), mngp(u)),
        # duplicate targets reduced by min (LAGraph's reduce-assign)
        mxv(PT, mngp, "min_second", accum="min", out=f)
        # f min= min(mngp, gp): aggressive hooking and shortcutting
        ewise_add(mngp, gp, "min", accum="min", out=f)
        # gp' = f(f): the new grandparents (GrB_extract with f's values as indices)
        new_gp = extract(f, f.to_dense())
        # moved = any(gp' != gp): a full iteration without change is a fixed point
        moved = _any_true(ewise_mult(new_gp, gp, "ne"))
        gp = new_gp
        report.update(step + it, "hooking" + (" (in- and out-edges)" if both else ""))
        if moved:
            continue
        if both:
            break
        # t<rows> = A max.second f: the largest label across an out-edge; at this fixed
        # point f(i) <= f(j) on every edge i -> j, so an edge still joins two labels iff
        # some t(i) > f(i) (never for a symmetric pattern)
        t = mxv(A, f, "max_second", mask=mask)
        # done = !any(t > f)
        if not _any_true(ewise_mult(t, f, "gt")):
            break
        both = True
    return f, it


def _directed(A, dout) -> bool:
    """Whether the out-degrees ``dout`` differ from the in-degrees: then A is surely not
    symmetric, and FastSV follows both directions from the start."""
    from ..core import ewise_add, mxv

    n = A.shape[0]
    # din = A' plus.pair id: the in-degrees
    din = mxv(A.T, vertex_ids(n, A.device), "plus_pair")
    # any(dout != din) over the union (a degree present on one side only counts)
    return _any_true(ewise_add(dout, din, "ne"))


def _weak(A, report) -> tuple:
    """Weakly connected components: a BFS from a hub closes the (usually giant) component
    of the hub with a few products; FastSV labels the rest, on its own sub-matrix when it
    is small (the Multistep method of Slota, Rajamanickam and Madduri, IPDPS 2014, in the
    spirit of Afforest's skipping of the largest component, Sutton et al. 2018).

    Returns ``(labels, steps)``: the dense labels (smallest vertex id of each component)
    and the number of BFS levels plus FastSV iterations.
    """
    from ..core import Vector, apply, assign, ewise_add, extract, mxv, reduce, select

    n = A.shape[0]
    device = A.device
    AT = A.T
    ids = vertex_ids(n, device)
    # d = A plus.pair id: the out-degrees (no entry without out-edges)
    dout = mxv(A, ids, "plus_pair")
    if dout.nvals == 0:
        # no edge at all: every vertex is its own component
        return ids, 0
    # s = min(select(d == max(d))): a vertex of largest out-degree, the BFS seed
    s = int(select(dout, "valueeq", reduce(dout, "max")).to_coo()[0][0])
    # ---- phase 1: v = the vertices reached from s, over out-edges first
    # v(s) = true; q(s) = true: the visited set and the frontier
    v = Vector.from_coo([s], None, n).to(device)
    q = v
    both = closed = False
    steps = 0
    while steps < _BFS_LEVELS:
        steps += 1
        # q<!v, replace> = A' any.pair q: the unvisited out-neighbours of the frontier
        nq = mxv(AT, q, "any_pair", mask=~v.S, replace=True)
        if both:
            # q<!v> any= A any.pair q: and the unvisited in-neighbours
            mxv(A, q, "any_pair", mask=~v.S, accum="any", out=nq)
        if nq.nvals == 0:
            # r = d<!v>: the vertices left that have an out-edge
            rout = apply(dout, "identity", mask=~v.S)
            # h = A' any.pair r: the heads of their edges
            heads = mxv(AT, rout, "any_pair")
            # closed when no edge leads into v: always once both directions were followed;
            # after the out-edges only, when no head is in v (h .* v, by GrB_extract)
            closed = both or extract(v, heads.to_coo()[0]).nvals == 0
            if closed:
                break
            both = True
            # q<!v, replace> = A any.pair v: the vertices with an edge into v
            nq = mxv(A, v, "any_pair", mask=~v.S, replace=True)
        # v(q) = true
        assign(v, True, nq.to_coo()[0])
        q = nq
        report.update(steps, f"BFS, {v.nvals:,} reached")
    # f = id; f(v) = min(v): the seed's component, labelled by its smallest id (the first
    # of v's sorted tuples); f stays a star forest
    reached = v.to_coo()[0]
    f = assign(ids.dup(), int(reached[0]), reached)
    if not closed:
        # the BFS stopped early: v is connected but may have edges out; FastSV over all
        # vertices, starting from the forest f
        f, it = _fastsv(A, f, None, both or _directed(A, dout), report, steps)
        return f, steps + it
    # ---- phase 2: the rest, where no edge leaves: rows = r + h, the vertices with an edge
    rows = ewise_add(rout, heads, "any")
    nr = rows.nvals
    if nr == 0:
        return f, steps
    if nr * _SUBGRAPH_FRACTION > n:
        # many left: FastSV in place, only the rows hooking
        f, it = _fastsv(A, f, rows, both or _directed(A, dout), report, steps)
        return f, steps + it
    ri = rows.to_coo()[0]
    # B = A(ri, ri): the sub-graph of the vertices left (GrB_extract)
    B = extract(A, ri, ri)
    # g = the labels of B, in B's local ids
    g, it = _fastsv(B, vertex_ids(nr, device), None, both, report, steps)
    # L = ri(g): local ids back to vertex ids (ri is ascending: minima stay minima)
    labels = extract(Vector.from_dense(ri), g.to_dense())
    # f(ri) = L
    assign(f, labels, ri)
    return f, steps + it


# -------------------------------------------------------------- strong: coloring (SCC)


def _min_fixpoint(M, x, mask_vec):
    """``x = min(x, M min.second x)`` on the entries of ``mask_vec`` until nothing changes.

    Only the entries that changed in a step are pushed in the next one (a frontier).
    Returns the number of products.
    """
    from ..core import apply, ewise_mult, mxv

    front = x
    steps = 0
    while front.nvals:
        steps += 1
        # t<m> = M min.second front: the smallest value offered by a changed neighbour
        t = mxv(M, front, "min_second", mask=mask_vec.S)
        # b = t < x: where the offer improves the current value
        better = ewise_mult(t, x, "lt")
        # front<b> = t: the improved entries, pushed in the next step
        front = apply(t, "identity", mask=better.V)
        # x<front> = front
        apply(front, "identity", mask=front.S, out=x)
    return steps


def _strong(A, report) -> tuple:
    from ..core import Vector, apply, ewise_add, ewise_mult, mxv, select

    n = A.shape[0]
    device = A.device
    # the products below never read A's values (pair, second): A and its cached
    # transpose serve as they are
    P, PT = A, A.T
    ids = vertex_ids(n, device)
    # labels: the SCC label (smallest member id) of every vertex found so far
    labels = Vector.empty(n, np.int64, device)
    # rem = all vertices: those not yet assigned to an SCC
    rem = ids.dup()
    zeros = Vector.from_dense(np.zeros(n, dtype=np.int64)).to(device)
    # din = 0 + P' plus.pair rem; dout = 0 + P plus.pair rem: in- and out-degrees in rem
    din = mxv(PT, rem, "plus_pair", accum="plus", out=zeros.dup())
    dout = mxv(P, rem, "plus_pair", accum="plus", out=zeros)

    def remove(gone):
        """Take ``gone`` out of rem; its neighbours in rem lose the edges to it."""
        nonlocal rem, din, dout
        # rem, din, dout <!gone, replace>
        rem = apply(rem, "identity", mask=~gone.S)
        din = apply(din, "identity", mask=~gone.S)
        dout = apply(dout, "identity", mask=~gone.S)
        # din<rem> -= P' plus.pair gone; dout<rem> -= P plus.pair gone
        mxv(PT, gone, "plus_pair", mask=rem.S, accum="minus", out=din)
        mxv(P, gone, "plus_pair", mask=rem.S, accum="minus", out=dout)

    rounds = 0
    while rem.nvals:
        rounds += 1
        # ---- trimming: a vertex without in- or out-edge inside rem is its own SCC (only
        # the neighbours of the trimmed vertices are touched: push products)
        while rem.nvals:
            # t = select(din == 0) + select(dout == 0)
            t = ewise_add(select(din, "valueeq", 0), select(dout, "valueeq", 0), "first")
            if t.nvals == 0:
                break
            # labels<t> = id: singleton SCCs
            apply(ids, "identity", mask=t.S, out=labels)
            remove(t)
        if rem.nvals == 0:
            break
        # ---- forward: c(v) = the smallest id in rem that reaches v inside rem
        color = rem.dup()
        _min_fixpoint(PT, color, rem)
        # r = (c == id): the roots, smallest vertex of their color and of their SCC
        is_root = ewise_mult(color, ids, "eq")
        front = apply(color, "identity", mask=is_root.V)
        # pending = c<!front>: colored vertices whose SCC is not known yet
        pending = apply(color, "identity", mask=~front.S)
        # found = front: the vertices labelled in this round
        found = front.dup()
        # ---- backward: u joins the SCC of color c(u) when an out-neighbour already has
        # it; out-neighbours' colors are <= c(u), so the max picks c(u) when present
        while front.nvals:
            # t<pending> = P max.second front
            t = mxv(P, front, "max_second", mask=pending.S)
            # ok = (t == c): the out-neighbour found is of the same color
            ok = ewise_mult(t, pending, "eq")
            front = apply(t, "identity", mask=ok.V)
            # found<front> = front; pending<!front> = pending
            apply(front, "identity", mask=front.S, out=found)
            pending = apply(pending, "identity", mask=~front.S)
        # labels<found> = found; drop the SCCs found from rem
        apply(found, "identity", mask=found.S, out=labels)
        remove(found)
        report.update(rounds, f"{labels.nvals:,} of {n:,} labelled")
    return labels, rounds


@dispatchable  # a distributed Matrix takes the call (gblas.distributed)
def connected_components(A, connection: str = "weak", *, progress: bool = False):
    """Connected components of a graph, labelled by their smallest vertex id.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix, ``A[i, j]`` present for an edge ``i -> j`` (values and
        self loops are ignored).
    connection : {"weak", "strong"}, default "weak"
        ``"weak"``: components of the undirected graph (edge directions ignored): a
        BFS from a largest-degree vertex labels its component (on power-law graphs the
        giant one) in a few products, then FastSV (min-label hooking and shortcutting,
        O(log n) iterations in practice) labels the rest, on its own sub-matrix when it
        is small.
        ``"strong"``: strongly connected components, by trimming and coloring (forward
        min-id propagation, then a backward closure of every color's root).
    progress : bool, default False
        Report every BFS level and FastSV iteration (weak) or round (strong) on stderr;
        the final line gives their count, as for every iterative algorithm of
        :mod:`gblas.algorithms`.

    Returns
    -------
    gblas.Vector of int64
        Dense: ``labels[v]`` is the smallest vertex id of ``v``'s component (so two
        vertices are in the same component iff their labels are equal).

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue
        ``connection`` is not "weak" or "strong".

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2, 4], [1, 2, 0, 3], shape=(6, 6))
    >>> gb.algorithms.connected_components(A).to_dense().tolist()
    [0, 0, 0, 3, 3, 5]
    >>> gb.algorithms.connected_components(A, "strong").to_dense().tolist()
    [0, 0, 0, 3, 4, 5]
    """
    call = "connected_components"
    A = square_matrix(A, call)
    kind = check_connection(connection, call)
    n = A.shape[0]
    from ..core import Vector

    if n == 0:
        return Vector.empty(0, np.int64, A.device)
    plan = _plan(A, kind)
    if plan.kernel:
        from ..core import executor

        # the components of A' are A's: a .T view reads its parent's own CSR
        csr = A.csr(transposed=True) if hasattr(A, "parent") else A.csr()
        with Progress(f"{call} ({kind})", enabled=progress) as report:
            # (a GPU Matrix without GPU passes: on a host copy)
            labels = executor.kernel(plan)(host_csr(csr, plan.device))
            report.close("one compiled pass")
        return Vector.from_dense(labels).to(A.device)
    with Progress(f"{call} ({kind})", enabled=progress) as report:
        # a symmetric pattern has the same strong and weak components
        if kind == "weak" or is_symmetric(A):
            labels, steps = _weak(A, report)
            report.close(f"{steps} iterations")
        else:
            labels, steps = _strong(A, report)
            report.close(f"{steps} rounds")
    return labels


def _plan(A, connection: str = "weak", *, progress: bool = False):
    """The Plan of ``connected_components(A, connection)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_components

    return plan_components(square_matrix(A, "connected_components"),
                           check_connection(connection, "connected_components"), config.current())


connected_components.__gblas_plan__ = _plan
