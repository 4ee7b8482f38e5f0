"""Label propagation (community detection) with the mode computed by a semiring product.

Notation: ``M`` the undirected multigraph of ``A`` without self loops (``M(i, j)`` = 1, or 2
for a reciprocated edge of a directed graph: in- and out-neighbours both count, as in
LDBC Graphalytics' CDLP), ``l`` the labels, ``Lab`` the one-hot label matrix
(``Lab(j, l(j)) = 1``), ``C`` the label counts.  The most frequent neighbour labels come
from one product and a row-wise arg-max::

    C = M plus.first Lab          # C(i, l) = neighbours of i labelled l
    m = max-reduce the rows of C
    E = select(m(i) - C(i, l) == 0)   # the most frequent labels of every row
    best(i) = min { l : E(i, l) }     # ties to the smallest label

Two schedules:

* ``"semi-synchronous"`` (default; Cordasco and Gargano, "Community detection via
  semi-synchronous label propagation algorithms", 2010): the vertices are split into
  independent sets (a Jones-Plassmann-Luby coloring, itself a loop of ``max.second``
  products) updated one after the other; a vertex keeps its label when that label is
  among its most frequent ones, otherwise takes the smallest most frequent one.  Every
  change strictly increases the number of edges whose ends agree, so it **always
  converges**; it stops after the first sweep that changes nothing.
* ``"synchronous"`` (LDBC Graphalytics CDLP, LAGraph's ``LAGraph_cdlp``): every vertex
  takes the smallest most frequent label of the previous iteration.  It stops when
  nothing changes or after ``max_iter`` iterations; it **may oscillate** (e.g. on a
  bipartite graph, labels swap every iteration) and then returns the last iterate.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue, bad_arg
from ._progress import Progress
from .checkpoint import (
    Checkpoint,
    IterationState,
    check_callback,
    check_resume,
    host,
    keep_going,
)
from .common import on_device, square_matrix, undirected, vertex_ids

__all__ = ["label_propagation"]


def _one_hot(labels: np.ndarray, rows, n: int, device: str):
    """``Lab(r, labels(r)) = 1`` for the given rows (a pattern matrix)."""
    from ..core import Matrix

    return Matrix.from_coo(np.arange(rows.size) if rows is not None else np.arange(n),
                           labels if rows is None else labels[rows], None,
                           shape=(n if rows is None else rows.size, n)).to(device)


def _best_labels(Mc, Lab, ids_diag):
    """``(best, m)``: the smallest most frequent neighbour label of every row of ``Mc``."""
    from ..core import mxm, reduce, select
    from .common import diag

    # C = Mc plus.first Lab: C(i, l) = the neighbours of row i with label l
    C = mxm(Mc, Lab, "plus_first")
    # m = max over each row of C
    m = reduce(C, "max", axis="rows")
    # X = diag(m) any.- C: X(i, l) = m(i) - C(i, l)
    X = mxm(diag(m), C, "any_minus")
    # E = select(X == 0): the most frequent labels of every row
    E = select(X, "valueeq", 0)
    # best = min over each row of E any.second diag(id): the smallest of them
    best = reduce(mxm(E, ids_diag, "any_second"), "min", axis="rows")
    return best, E


def _coloring(M, seed: int):
    """Independent sets covering all vertices (Jones-Plassmann-Luby), as index arrays."""
    from .._device import to_numpy
    from ..core import Vector, apply, ewise_mult, mxv

    n = M.shape[0]
    rng = np.random.default_rng(seed)
    # w = distinct random priorities
    w = Vector.from_dense(rng.permutation(n).astype(np.int64) + 1).to(M.device)
    uncolored = w.dup()
    classes = []
    while uncolored.nvals:
        # m<u> = M max.second u: the largest priority among uncolored neighbours
        m = mxv(M, uncolored, "max_second", mask=uncolored.S)
        # s = u<u > m>: local maxima ...
        gt = ewise_mult(uncolored, m, "gt")
        sel = apply(uncolored, "identity", mask=gt.V)
        # s<!m> = u: ... and vertices without an uncolored neighbour
        apply(uncolored, "identity", mask=~m.S, out=sel)
        classes.append(to_numpy(sel.to_coo()[0]))
        # u<!s, replace> = u
        uncolored = apply(uncolored, "identity", mask=~sel.S)
    return classes


def label_propagation(A, max_iter: int = 100, *, method: str = "semi-synchronous",
                      seed: int = 0, progress: bool = False, callback=None, resume=None):
    """Community labels by label propagation (most frequent neighbour label).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix.  Values and self loops are ignored; for a directed
        graph in- and out-neighbours both count (a reciprocated pair twice), as in LDBC
        Graphalytics' CDLP; a symmetric matrix is an undirected graph.
    max_iter : int, default 100
        Most sweeps (semi-synchronous) or iterations (synchronous).
    method : {"semi-synchronous", "synchronous"}
        The update schedule (see the module notes).  Semi-synchronous always converges
        (usually in a few sweeps); synchronous may oscillate and then stops at
        ``max_iter``.
    seed : int, default 0
        Seed of the random priorities of the coloring (semi-synchronous only): the
        result is deterministic for a given seed.
    progress : bool, default False
        Report every sweep/iteration on stderr; the final line gives their count and
        whether the labels converged.
    callback : callable, optional
        Called after every sweep/iteration with a
        :class:`~gblas.algorithms.checkpoint.IterationState` (``iteration``, ``delta``:
        the labels changed, ``converged``, ``checkpoint()``); returning ``False`` stops
        the run, which returns the current labels.
    resume : Checkpoint, optional
        A ``state.checkpoint()`` of a run on the same graph with the same ``max_iter``,
        ``method`` and ``seed``: the sweeps go on from there and give the uninterrupted
        run's labels.

    Returns
    -------
    gblas.Vector of int64
        Dense labels; every label is a vertex id (initially each vertex is labelled
        with its own id).  Isolated vertices keep their own id.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue
        Bad ``max_iter`` or ``method``.

    Examples
    --------
    Two 4-cliques joined by the edge 3 - 4:

    >>> import itertools, gblas as gb
    >>> e = [p for q in (range(4), range(4, 8)) for p in itertools.combinations(q, 2)]
    >>> r, c = zip(*(e + [(3, 4)]))
    >>> A = gb.Matrix.from_coo(r + c, c + r, shape=(8, 8))
    >>> gb.algorithms.label_propagation(A).to_dense().tolist()
    [0, 0, 0, 0, 4, 4, 4, 4]

    One sweep, then the rest from its checkpoint:

    >>> saved = []
    >>> def one(state):
    ...     saved.append(state.checkpoint())
    ...     return False
    >>> _ = gb.algorithms.label_propagation(A, callback=one)
    >>> gb.algorithms.label_propagation(A, resume=saved[0]).to_dense().tolist()
    [0, 0, 0, 0, 4, 4, 4, 4]
    """
    from .._device import to_numpy
    from ..core import Vector, apply, assign, ewise_mult, reduce, select
    from .common import diag

    call = "label_propagation"
    A = square_matrix(A, call)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) \
            or max_iter < 1:
        raise bad_arg(InvalidValue, call, "max_iter", "an integer >= 1", repr(max_iter))
    if method not in ("semi-synchronous", "synchronous"):
        raise bad_arg(InvalidValue, call, "method", "'semi-synchronous' or 'synchronous'",
                      repr(method))
    n = A.shape[0]
    device = A.device
    check_callback(callback, call)
    params = {"n": n, "nvals": A.nvals, "max_iter": int(max_iter), "method": method,
              "seed": int(seed)}
    start = check_resume(resume, call, params, call)
    labels = vertex_ids(n, device)
    if n == 0 or A.nvals == 0:
        return labels
    plan = _plan(A, max_iter, method=method)
    if plan.kernel:
        # M = P + P' without self loops (a GPU Matrix without GPU sweeps: on a host copy)
        M = undirected(on_device(A, plan.device), np.int64, no_diagonal=True, multiplicity=True)
        labels = _compiled(M, plan, max_iter, method, seed, progress, callback, start,
                           params)
        return labels.to(device)
    # M = P + P' without self loops: neighbours, reciprocated edges counting twice
    M = undirected(A, np.int64, no_diagonal=True, multiplicity=True)
    ids_diag = diag(vertex_ids(n, device))
    converged = False
    it = first = 0
    if start is not None:
        labels = Vector.from_dense(start.arrays["labels"]).to(device)
        it, converged = start.iteration, bool(start.values["converged"])
        if converged or it >= max_iter:
            return labels
    first = it + 1

    def stop(it: int, nchanged: int, converged: bool) -> bool:
        """Whether the callback stops the run after sweep ``it``."""
        if callback is None:
            return False
        saved = _saver(it, lambda: labels.to_dense(), converged, params)
        return not keep_going(callback, IterationState(call, it, nchanged, converged, saved))

    with Progress(f"{call} ({method})", enabled=progress, total=max_iter) as report:
        if method == "synchronous":
            for it in range(first, max_iter + 1):
                lab = to_numpy(labels.to_dense())
                best, _ = _best_labels(M, _one_hot(lab, None, n, device), ids_diag)
                # d = best != l: the vertices whose label changes
                changed = ewise_mult(best, labels, "ne")
                nchanged = select(changed, "valueeq", True).nvals
                # l<best> = best (vertices without neighbours keep theirs)
                apply(best, "identity", mask=best.S, out=labels)
                report.update(it, f"{nchanged:,} labels changed")
                converged = nchanged == 0
                if stop(it, nchanged, converged) or converged:
                    break
        else:
            classes = _coloring(M, seed)
            from ..core import extract

            # Mc = M(class, :): the rows of every independent set
            parts = [(rows, extract(M, rows, None)) for rows in classes if rows.size]
            for it in range(first, max_iter + 1):
                nchanged = 0
                for rows, Mc in parts:
                    lab = to_numpy(labels.to_dense())
                    best, E = _best_labels(Mc, _one_hot(lab, None, n, device), ids_diag)
                    if best.nvals == 0:
                        continue
                    # cur = l(class); keep = rows whose current label is among the best
                    cur = Vector.from_dense(lab[rows]).to(device)
                    keep = reduce(ewise_mult(E, _one_hot(lab, rows, n, device), "pair"),
                                  "any", axis="rows")
                    # best<keep> = cur: Cordasco-Gargano's precedence of the current label
                    apply(cur, "identity", mask=keep.S, out=best)
                    # d = best != cur
                    nchanged += select(ewise_mult(best, cur, "ne"), "valueeq", True).nvals
                    # l(class) = best (accum "second": rows without neighbours keep theirs)
                    assign(labels, best, rows, accum="second")
                report.update(it, f"{nchanged:,} labels changed, {len(parts)} classes")
                converged = nchanged == 0
                if stop(it, nchanged, converged) or converged:
                    break
        report.close(f"{it} {'sweeps' if method != 'synchronous' else 'iterations'}, "
                     f"{'converged' if converged else 'not converged'}")
    return labels


def _plan(A, max_iter: int = 100, *, method: str = "semi-synchronous", seed: int = 0,
          progress: bool = False):
    """The Plan of ``label_propagation(A, ...)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_label_propagation

    return plan_label_propagation(square_matrix(A, "label_propagation"), method,
                                  config.current())


label_propagation.__gblas_plan__ = _plan


def _saver(it: int, labels, converged: bool, params: dict):
    """The checkpoint maker of sweep ``it`` (``labels()`` gives the labels)."""
    return lambda: Checkpoint("label_propagation", it, {"labels": host(labels())},
                              {"converged": bool(converged)}, params)


def _compiled(M, plan, max_iter: int, method: str, seed: int, progress: bool,
              callback=None, start=None, params=None):
    """The same sweeps and coloring as the products, by the plan's compiled kernels
    (one call for the whole run, or one per sweep with a callback or a checkpoint: the
    kernel's only state between sweeps is the labels)."""
    from ..core import Vector, executor

    n = M.shape[0]
    csr = M.csr()
    labels = np.arange(n, dtype=np.int64)
    if start is not None:
        labels = np.array(start.arrays["labels"], dtype=np.int64)
    synchronous = method == "synchronous"
    with Progress(f"label_propagation ({method})", enabled=progress) as report:
        if synchronous:
            order, class_ptr = np.arange(n, dtype=np.int64), np.array([0, n], np.int64)
        else:
            # w = distinct random priorities, as _coloring draws them
            w = np.random.default_rng(seed).permutation(n).astype(np.int64) + 1
            order, class_ptr = executor.kernel(plan, step=0)(csr, w)
        run = executor.kernel(plan)
        if callback is None and start is None:
            it, converged = run(csr, labels, order, class_ptr, max_iter, synchronous)
        else:
            it = 0 if start is None else start.iteration
            converged = start is not None and bool(start.values["converged"])
            while not converged and it < max_iter:
                before = labels.copy() if callback is not None else None
                converged = run(csr, labels, order, class_ptr, 1, synchronous)[1]
                it += 1
                if callback is not None:
                    changed = int(np.count_nonzero(before != labels))
                    state = IterationState("label_propagation", it, changed, converged,
                                           _saver(it, lambda: labels, converged, params))
                    if not keep_going(callback, state):
                        break
        report.close(f"{it} {'iterations' if synchronous else 'sweeps'}, "
                     f"{'converged' if converged else 'not converged'}")
    return Vector.from_dense(labels)
