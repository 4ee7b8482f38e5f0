"""``gblas.algorithms`` on a DistMatrix: the LAGraph-style loops of products, run with the
distributed operations (each product a task per block and a reduce per grid row).

``gb.algorithms.bfs(D, s)`` (and ``pagerank``, ``connected_components``, ``sssp``,
``triangle_count``) hands over here when ``D`` is distributed (the functions are
``dispatchable``); the results are DistVectors (``.gather()`` collects them) and the
answers equal the single-process ones.  The compiled whole-algorithm kernels of one
process are not used: their state is the whole graph.

PageRank keeps its ranks where the segments live and fuses each iteration's reduce with
its vector step (one task per block, one per segment, one tiny sum); it saves the ranks
on the client every ``checkpoint_every`` iterations and, when a worker is lost, rebuilds
the matrix on the workers alive and resumes from the last checkpoint
(:mod:`gblas.distributed.checkpoint`).

Examples
--------
>>> sorted(ALGORITHMS)
['bfs', 'connected_components', 'pagerank', 'sssp', 'triangle_count']
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..exceptions import DimensionMismatch, InvalidObject, NoKernel, bad_arg
from . import exchange
from .checkpoint import Checkpoint, WorkerLost
from .matrix import DistMatrix, DistTransposed
from .operations import align, product_layout, wait
from .vector import DistVector, scatter_vector

__all__ = ["ALGORITHMS", "bfs", "pagerank", "connected_components", "sssp", "triangle_count"]


def _square(A, call: str) -> DistMatrix:
    if isinstance(A, DistTransposed):
        from .operations import materialize

        A = materialize(A)
    if not isinstance(A, DistMatrix):
        raise bad_arg(InvalidObject, call, "A", "a DistMatrix", type(A).__name__)
    if A.shape[0] != A.shape[1]:
        raise bad_arg(DimensionMismatch, call, "A", "a square adjacency matrix",
                      f"shape {A.shape[0]} x {A.shape[1]}")
    return A


def check_vertex(source, n: int, call: str) -> int:
    from ..algorithms.common import check_vertex as check

    return check(source, n, call, "source")


def _scatter(A: DistMatrix, vec, over: str) -> DistVector:
    """A local Vector sent to the layout of ``mxv(A, .)``'s output ("rows") or of
    ``mxv(A.T, .)``'s output ("columns")."""
    bounds, owners = A.row_vector_layout() if over == "rows" else A.col_vector_layout()
    return scatter_vector(A.client, vec, bounds, owners, A.timeout)


def _tier2(A: DistMatrix, algorithm: str) -> bool:
    """Whether the NCCL tier runs ``algorithm`` on ``A`` (GPU workers only)."""
    from .nccl import choose_tier

    return choose_tier(A, algorithm)[0] == "nccl"


def _no_option(call: str, arg: str, value, fix: str):
    raise bad_arg(NoKernel, call, arg, "its default on a distributed Matrix", repr(value), fix)


# ----------------------------------------------------------------------------- bfs

def bfs(A, source: int, *, parents: bool = False, progress: bool = False):
    """Distributed BFS: ``q<!v, replace> = A' any.pair q``, ``v<q> = depth`` per level."""
    import gblas as gb

    call = "bfs"
    A = _square(A, call)
    n = A.shape[0]
    source = check_vertex(source, n, call)
    if not parents and _tier2(A, call):
        from .nccl import bfs_levels, run_bfs

        got = bfs_levels(A, source)  # a column or row grid: the levels stay on the workers
        if got is not None:
            return got[0]
        lv, _ = run_bfs(A, source)
        reached = lv >= 0
        return _scatter(A, gb.Vector.from_dense(lv, present=reached), "columns")
    AT = A.T
    levels = _scatter(A, gb.Vector.from_coo([source], np.array([0], np.int64), n), "columns")
    if parents:
        ids = _scatter(A, gb.Vector.from_dense(np.arange(n, dtype=np.int64)), "columns")
        parent = _scatter(A, gb.Vector.from_coo([source], np.array([source], np.int64), n),
                          "columns")
        q = _scatter(A, gb.Vector.from_coo([source], np.array([source], np.int64), n),
                     "rows")
    else:
        q = _scatter(A, gb.Vector.from_coo([source], None, n), "rows")
    depth = 0
    while True:
        depth += 1
        if parents:
            q = gb.mxv(AT, q, "min_second", mask=~levels.S, replace=True)
        else:
            q = gb.mxv(AT, q, "any_pair", mask=~levels.S, replace=True)
        if q.nvals == 0:
            break
        gb.apply(q, "second", right=depth, mask=q.S, out=levels)
        if parents:
            gb.apply(q, "identity", mask=q.S, out=parent)
            q = gb.ewise_mult(q, ids, "second")
    return (levels, parent) if parents else levels


# ---------------------------------------------------------------------------- sssp

def sssp(A, source: int, *, parents: bool = False, progress: bool = False):
    """Distributed Bellman-Ford: ``d<..> min= A' min.+ d`` until no distance drops."""
    import gblas as gb

    from ..algorithms.sssp import negative_cycle_error
    from ..exceptions import InvalidValue

    call = "sssp"
    A = _square(A, call)
    n = A.shape[0]
    source = check_vertex(source, n, call)
    if parents:
        _no_option(call, "parents", parents, "Gather the matrix for the parent tree: "
                   "gb.algorithms.sssp(D.gather(), s, parents=True).")
    if np.dtype(A.dtype).kind == "f" and math.isnan(float(gb.reduce(gb.apply(A, "abs")))):
        raise bad_arg(InvalidValue, call, "A", "weights that are not NaN", "a NaN weight",
                      "Drop those entries: gb.select(A, 'valuege', -inf).")
    d = _scatter(A, gb.Vector.from_coo([source], np.array([0.0]), n), "columns")
    AT = A.T
    for _ in range(n + 1):
        dn = gb.mxv(AT, d, "min_plus", accum="min", out=d.dup())
        grown = dn.nvals != d.nvals
        dropped = grown or bool(gb.reduce(gb.ewise_mult(dn, d, "ne"), "lor"))
        d = dn
        if not dropped:
            return d
    raise negative_cycle_error(call, f"vertex {source}")


# ---------------------------------------------------------------------- components

def connected_components(A, connection: str = "weak", *, progress: bool = False):
    """Distributed weak components: min-label propagation over both directions until no
    label drops (labels = the smallest vertex id of each component)."""
    import gblas as gb

    from ..algorithms.components import check_connection

    call = "connected_components"
    A = _square(A, call)
    kind = check_connection(connection, call)
    if kind != "weak":
        _no_option(call, "connection", connection, "Gather the matrix for strong "
                   "components: gb.algorithms.connected_components(D.gather(), 'strong').")
    n = A.shape[0]
    f = _scatter(A, gb.Vector.from_dense(np.arange(n, dtype=np.int64)), "rows")
    while True:
        fn = gb.mxv(A, f, "min_second", accum="min", out=f.dup())
        fn = gb.mxv(A.T, fn, "min_second", accum="min", out=fn)
        changed = bool(gb.reduce(gb.ewise_mult(fn, f, "ne"), "lor"))
        f = fn
        if not changed:
            return f


# ------------------------------------------------------------------------ triangles

def _lower_block(Aij, Aji, r0: int, c0: int):
    """Block ``(i, j)`` of ``L = tril(S, -1)``, ``S`` the undirected pattern of A
    (``A_ij`` and ``A_ji'``), as an int64 iso Matrix."""
    from ..core.matrix import Matrix

    r, c, _ = Aij.to("cpu").to_coo()
    rt, ct, _ = Aji.to("cpu").to_coo()
    rows = np.concatenate([np.asarray(r, np.int64), np.asarray(ct, np.int64)])
    cols = np.concatenate([np.asarray(c, np.int64), np.asarray(rt, np.int64)])
    keep = cols + c0 < rows + r0
    return Matrix.from_coo(rows[keep], cols[keep], np.int64(1), shape=Aij.shape,
                           dup_op="any", dtype=np.int64)


def triangle_count(A, *, presort=None) -> int:
    """Distributed triangle count: ``C<L> = L plus.pair L``, ``ntri = sum(C)`` with the 2D
    SpGEMM of :mod:`gblas.distributed.spgemm` (a square grid; another one is redistributed
    on the square grid of its smaller side first)."""
    import gblas as gb

    from .matrix import distribute

    call = "triangle_count"
    A = _square(A, call)
    g = A.grid
    if g.pr != g.pc:
        k = min(g.pr, g.pc)
        A = distribute(A.gather(), A.client, grid=(k, k), timeout=A.timeout)
        g = A.grid
    c = A.client
    blocks = [c.submit(_lower_block, A.block(i, j), A.block(j, i), int(g.row_bounds[i]),
                       int(g.col_bounds[j]), workers=[g.owner(i, j)], pure=False)
              for i in range(g.pr) for j in range(g.pc)]
    L = DistMatrix(c, g, blocks, A.shape, np.int64, A.device, timeout=A.timeout)
    C = gb.mxm(L, L, "plus_pair", mask=L.S)
    return int(gb.reduce(C, "plus"))


# ------------------------------------------------------------------------- pagerank

class _PRState:
    """One segment's PageRank state on its worker: ranks, ``s = r .* w``, the L1 change
    and the dangling rank of the segment."""

    __slots__ = ("r", "s", "err", "dangling")

    def __init__(self, r, s, err: float, dangling: float) -> None:
        self.r, self.s, self.err, self.dangling = r, s, err, dangling

    def as_vector(self):
        from ..core.vector import Vector

        return Vector.from_dense(self.s)


def _pr_init(r, d, alpha: float):
    """Initial state of a segment from its ranks ``r`` (array) and out-degrees ``d``."""
    from ..core.vector import Vector

    dd = d.to("cpu").dense_data() if isinstance(d, Vector) else d
    dv = dd.values.astype(np.float64)
    ok = dv != 0 if dd.present is None else dd.present & (dv != 0)
    w = np.where(ok, alpha / np.where(ok, dv, 1.0), 0.0)
    r = np.asarray(r, dtype=np.float64)
    return w, _PRState(r, r * w, 0.0, float(r[w == 0].sum()))


def _pr_w(pair):
    return pair[0]


def _pr_state(pair):
    return pair[1]


def _pr_step(partials, state, w, p, total, n: int, alpha: float):
    """Reduce the grid row's partial ``y = A' s`` and take the step
    ``r' = y + (alpha m + 1 - alpha) p``, ``s' = r' .* w``."""
    from ..core.elementwise import ewise_add

    y = partials[0].to("cpu")  # the vector step runs on the host (tier 1)
    for q in partials[1:]:
        y = ewise_add(y, q.to("cpu"), "plus")
    yd = y.dense_data()
    yv = yd.values.astype(np.float64)
    if yd.present is not None:
        yv = np.where(yd.present, yv, 0.0)
    m = total[1]
    tele = alpha * m + 1.0 - alpha
    r = yv + tele * (1.0 / n if p is None else p)
    err = float(np.abs(r - state.r).sum())
    return _PRState(r, r * w, err, float(r[w == 0].sum()))


def _pr_total(states):
    return (float(sum(s.err for s in states)), float(sum(s.dangling for s in states)))


def _pr_ranks(state):
    return state.r


def _pr_as_vector(state):
    return state.as_vector()


def pagerank(A, damping: float = 0.85, tol: float = 1e-6, max_iter: int = 100,
             personalization=None, progress: bool = False, *, criterion: str = "l1",
             checkpoint_every: int = 5, max_restarts: int = 2,
             checkpoint: Checkpoint | None = None, callback=None, resume=None):
    """Distributed PageRank (the definition and stopping rules of
    :func:`gblas.algorithms.pagerank`), restarting from its last checkpoint when a
    worker is lost (at most ``max_restarts`` times).  ``checkpoint`` (a
    :class:`~gblas.distributed.checkpoint.Checkpoint`) replaces ``checkpoint_every`` and
    shows afterwards where the run saved and how often it restarted."""
    from ..algorithms.pagerank import (
        PowerIterationFailedConvergence,
        check_pagerank_args,
        personalization_vector,
    )

    call = "pagerank"
    A = _square(A, call)
    check_pagerank_args(damping, tol, max_iter, criterion, call)
    for arg, value in (("callback", callback), ("resume", resume)):
        if value is not None:
            _no_option(call, arg, value, "On a distributed Matrix the run checkpoints itself "
                       "(checkpoint_every=, checkpoint=Checkpoint(...)); or gather it.")
    n = A.shape[0]
    alpha = float(damping)
    limit = float(tol) * (n if criterion == "networkx" else 1)
    p = None if personalization is None else personalization_vector(personalization, n, call)
    if p is None and criterion == "l1" and _tier2(A, call):
        import gblas as gb

        from .nccl import run_pagerank

        ranks, stats = run_pagerank(A, alpha, limit, max_iter)
        r = _scatter(A, gb.Vector.from_dense(ranks), "columns")
        if stats["err"] >= limit:
            raise PowerIterationFailedConvergence(
                f"{call}: no convergence within max_iter={max_iter} iterations (L1 change "
                f"{stats['err']:.3g}, needed < {limit:.3g}). Raise max_iter or tol.", r,
                max_iter)
        return r
    ck = Checkpoint(checkpoint_every) if checkpoint is None else checkpoint
    while True:
        try:
            return _pagerank_run(A, alpha, limit, max_iter, p, ck, criterion, call, progress)
        except WorkerLost as e:
            if not A.can_rebuild or ck.restarts >= max_restarts:
                why = ("the matrix has no source to rebuild its blocks from"
                       if not A.can_rebuild else f"{ck.restarts} restart(s) already")
                raise WorkerLost(
                    f"{call}: a worker was lost after iteration {ck.iteration} (the last "
                    f"checkpoint) and the run cannot go on ({why}): {e}") from e
            ck.restarts += 1
            try:
                _rebuild(A)
            except Exception as e2:  # noqa: BLE001 - the cluster is not usable
                raise WorkerLost(f"{call}: rebuilding the matrix after a lost worker "
                                 f"failed ({type(e2).__name__}: {e2})") from e2
        except PowerIterationFailedConvergence:
            raise


def _rebuild(A: DistMatrix) -> None:
    """Rebuild the blocks on the workers alive (after the nanny restarted the lost one,
    when it does, within a few seconds)."""
    want = len(set(A.grid.workers))
    try:
        A.client.wait_for_workers(want, timeout=10)
    except Exception:  # noqa: BLE001 - go on with the workers there are
        pass
    time.sleep(0.5)
    A.rebuild()


def _pagerank_run(A, alpha, limit, max_iter, p, ck: Checkpoint, criterion, call, progress):
    import gblas as gb

    from ..algorithms.pagerank import PowerIterationFailedConvergence

    c, n, timeout = A.client, A.shape[0], A.timeout
    mul = "plus_second" if A.dtype == np.bool_ else "plus_times"
    # d = A (+.x) 1: out-degrees over the rows, then cut like the ranks (the output of A')
    ones = _scatter(A, gb.Vector.full(n, 1.0), "columns")
    d = gb.mxv(A, ones, "plus_pair" if A.dtype == np.bool_ else mul)
    parent, t, mt, ob, oo, ib, io = product_layout(A.T, False)
    d = align(d, ob, oo, c, call, "A", timeout)
    if ck.state is None:
        r0 = [np.full(int(ob[k + 1] - ob[k]), 1.0 / n) for k in range(len(oo))]
        start = 0
    else:
        r0 = ck.state
        start = ck.iteration
    pieces = [c.submit(_pr_init, r0[k], d.parts[k], alpha, workers=[oo[k]], pure=False)
              for k in range(len(oo))]
    w = [c.submit(_pr_w, x, workers=[oo[k]], pure=False) for k, x in enumerate(pieces)]
    states = [c.submit(_pr_state, x, workers=[oo[k]], pure=False) for k, x in enumerate(pieces)]
    total = c.submit(_pr_total, states, workers=[oo[0]], pure=False)
    pp = (None if p is None else
          [c.scatter(p[int(ob[k]):int(ob[k + 1])], workers=[oo[k]], hash=False)
           for k in range(len(oo))])
    sem = "plus_times" if mul == "plus_times" else "plus_second"
    g = parent.grid
    square = len(ib) == len(ob) and bool(np.array_equal(ib, ob))
    err = math.inf
    for it in range(start + 1, max_iter + 1):
        if square:
            xs = states
        else:
            vecs = DistVector(c, ob, [c.submit(_pr_as_vector, s, workers=[oo[k]], pure=False)
                                      for k, s in enumerate(states)], oo, np.float64)
            xs = align(vecs, ib, io, c, call, "x", timeout).parts
        new = []
        for o in range(len(ob) - 1):
            parts = []
            for q in range(len(ib) - 1):
                i, j = (q, o) if mt else (o, q)
                parts.append(c.submit(exchange.block_product, parent.block(i, j), xs[q], sem,
                                      t, False, workers=[g.owner(i, j)], pure=False))
            new.append(c.submit(_pr_step, parts, states[o], w[o], None if pp is None else pp[o],
                                total, n, alpha, workers=[oo[o]], pure=False))
        states = new
        total = c.submit(_pr_total, states, workers=[oo[0]], pure=False)
        err = wait(c, [total], call, timeout)[0][0]
        if progress:
            import sys

            print(f"{call}: iteration {it}, L1 change {err:.2e}", file=sys.stderr)
        if ck.due(it) and err >= limit:
            ranks = wait(c, [c.submit(_pr_ranks, s, workers=[oo[k]], pure=False)
                             for k, s in enumerate(states)], call, timeout)
            ck.save(it, ranks)
        if err < limit:
            return _ranks_vector(c, states, ob, oo, timeout)
    rule = "n * tol" if criterion == "networkx" else "tol"
    raise PowerIterationFailedConvergence(
        f"{call}: no convergence within max_iter={max_iter} iterations (L1 change {err:.3g}, "
        f"needed < {rule} = {limit:.3g}). Raise max_iter or tol.",
        _ranks_vector(c, states, ob, oo, timeout), max_iter)


def _ranks_vector(c, states, ob, oo, timeout) -> DistVector:
    parts = [c.submit(_pr_dense, s, workers=[oo[k]], pure=False) for k, s in enumerate(states)]
    return DistVector(c, ob, parts, oo, np.float64, "cpu", timeout)


def _pr_dense(state):
    from ..core.vector import Vector

    return Vector.from_dense(state.r)


ALGORITHMS = {"bfs": bfs, "sssp": sssp, "connected_components": connected_components,
              "triangle_count": triangle_count, "pagerank": pagerank}
