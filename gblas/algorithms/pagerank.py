"""PageRank by power iteration, as NetworkX defines it, in gblas operations.

Notation: ``A`` the adjacency matrix (``A(i, j)`` for an edge ``i -> j``, its value the
edge weight), ``d`` the weighted out-degree, ``r`` the ranks, ``p`` the personalization
(teleport) distribution, ``alpha`` the damping factor.  One iteration is

    r' = alpha * A' (r ./ d) + (alpha * sum(r over dangling) + 1 - alpha) * p

where the dangling vertices (no out-edge) give their rank back through ``p``, as NetworkX
does.  The product over ``A'`` is a pull SpMV (``gb.mxv`` over ``A.T``, so the planner
picks its format): each vertex gathers from its in-neighbours.  The rest of an iteration
is one fused pass over the vectors (``("pagerank_step", "array", device)``, in
``backends/cpu/vector_kernels.py`` and ``backends/gpu/vector_kernels.py``) that also
folds the L1 change and the dangling rank; on the GPU every vector stays on the device
and the L1 change is the only value read back (one synchronization per iteration).
Where the product's kernel can run that pass on its own result (the GPU light panels,
whose layout ``s`` is then kept in), it does, and ``y`` is never stored.

Stopping rule.  By default the iteration stops when ``|r' - r|_1 < tol`` (LAGraph's rule,
no factor ``n``).  The map is a contraction of factor ``alpha`` in the L1 norm, so the
answer is then within ``alpha / (1 - alpha) * tol`` of the fixed point in L1 (5.7e-6 at
the defaults, a bound on every entry's error too), on any graph size.
``criterion="networkx"`` stops when ``|r' - r|_1 < n * tol`` (NetworkX's rule): the
iterates then equal NetworkX's, but the error grows with ``n`` (one iteration, entries off
by up to 1e-2, on 37K-vertex email-Enron at ``tol=1e-4``).

Floor of one iteration: the product's kernel time plus the vector pass's bytes, 41 bytes
per vertex (read ``y`` with its flags, ``r``, ``w``; write ``r'``, ``s'``; 49 with a
personalization vector), and one 16-byte read back to the host.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from .._device import array_sum, device_of, to_device, xp_for
from ..core.dispatch import dispatchable
from ..exceptions import DimensionMismatch, GraphBLASError, InvalidObject, InvalidValue, bad_arg
from ._lookahead import likely_last
from ._progress import Progress
from .common import square_matrix

__all__ = ["pagerank", "PowerIterationFailedConvergence", "CRITERIA"]

#: Stopping rules of :func:`pagerank`: the L1 change of the ranks below ``tol``, or below
#: ``n * tol`` (NetworkX's).
CRITERIA = ("l1", "networkx")


class PowerIterationFailedConvergence(GraphBLASError, RuntimeError):
    """The power iteration did not reach the tolerance within ``max_iter`` iterations.

    The last iterate is in ``.ranks`` and the iteration count in ``.iterations``.
    """

    def __init__(self, message: str, ranks=None, iterations: int = 0) -> None:
        super().__init__(message)
        self.ranks = ranks
        self.iterations = iterations


def personalization_vector(p, n: int, call: str, device: str = "cpu"):
    """A dense, non-negative float64 array summing to 1 from a Vector, dict or array
    (NumPy or CuPy), on ``device``."""
    from ..core import Vector

    if isinstance(p, Vector):
        if p.size != n:
            raise bad_arg(DimensionMismatch, call, "personalization",
                          f"a Vector of size {n}", f"size {p.size}")
        arr = p.to_dense(fill=0)
    elif isinstance(p, dict):
        arr = np.zeros(n, dtype=np.float64)
        for k, v in p.items():
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) \
                    or not 0 <= int(k) < n:
                raise bad_arg(InvalidValue, call, "personalization",
                              f"vertex ids in [0, {n}) as keys", repr(k))
            arr[int(k)] = float(v)
    else:
        try:
            arr = p if device_of(p) == "gpu" else np.asarray(p, dtype=np.float64)
        except (TypeError, ValueError):
            raise bad_arg(InvalidObject, call, "personalization",
                          "a gb.Vector, a dict {vertex: weight} or an array",
                          type(p).__name__) from None
        if arr.shape != (n,):
            raise bad_arg(DimensionMismatch, call, "personalization",
                          f"an array of shape ({n},)", f"shape {arr.shape}")
    xp = xp_for(device)
    arr = xp.asarray(to_device(arr, device), dtype=np.float64)
    if not bool(xp.isfinite(arr).all()) or bool((arr < 0).any()):
        raise bad_arg(InvalidValue, call, "personalization", "finite weights >= 0",
                      "negative, NaN or infinite weights")
    total = float(arr.sum())
    if total <= 0:
        raise bad_arg(InvalidValue, call, "personalization", "weights with a positive sum",
                      "all zeros")
    return arr / total


def check_pagerank_args(damping, tol, max_iter, criterion, call: str) -> None:
    if isinstance(damping, bool) or not isinstance(damping, (int, float, np.floating)) \
            or not 0.0 <= float(damping) <= 1.0:
        raise bad_arg(InvalidValue, call, "damping", "a number in [0, 1]", repr(damping))
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) \
            or not float(tol) > 0.0:
        raise bad_arg(InvalidValue, call, "tol", "a number > 0", repr(tol))
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) \
            or max_iter < 1:
        raise bad_arg(InvalidValue, call, "max_iter", "an integer >= 1", repr(max_iter))
    if criterion not in CRITERIA:
        raise bad_arg(InvalidValue, call, "criterion", " or ".join(map(repr, CRITERIA)),
                      repr(criterion))


def _check_weights(A, call: str) -> None:
    """Refuse NaN, infinite or negative edge weights up front (one min and one max over
    the stored values): the iteration would otherwise run to ``max_iter`` on NaN ranks."""
    if np.dtype(A.dtype).kind in "bu" or A.nvals == 0:
        return
    csr = getattr(A, "parent", A).csr()  # a transposed view holds the same values
    if csr.values is None:  # iso: one value
        lo = hi = float(csr.iso_value)
    else:
        lo, hi = float(csr.values.min()), float(csr.values.max())
    if math.isnan(lo) or math.isnan(hi):
        bad = "a NaN weight"
    elif lo < 0:
        bad = f"a negative weight ({lo:g})"
    elif math.isinf(hi):
        bad = f"an infinite weight ({hi:g})"
    else:
        return
    raise bad_arg(InvalidValue, call, "A", "finite edge weights >= 0", bad,
                  "Fix or drop those entries: gb.select(A, 'valuege', 0.0) keeps the "
                  "weights >= 0 (NaN dropped).")


def _remaining(errs: list, limit: float, alpha: float, left: int) -> int:
    """Iterations still to run (this one included), from the contraction the last L1
    changes show (at worst ``alpha``, the map's factor), at most ``left``."""
    rate = min(errs[-1] / errs[-2], alpha) if errs[-2] > 0 else 0.0
    if errs[-1] < limit:
        return 1
    if not 0.0 < rate < 1.0:
        return left if rate >= 1.0 else 1
    return int(min(left, max(1, math.ceil(math.log(limit / errs[-1]) / math.log(rate)))))


@dispatchable  # a distributed Matrix takes the call (gblas.distributed)
def pagerank(A, damping: float = 0.85, tol: float = 1e-6, max_iter: int = 100,
             personalization=None, progress: bool = False, *, criterion: str = "l1",
             callback=None, resume=None):
    """PageRank of every vertex (NetworkX's definition), accurate by default.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix, ``A[i, j]`` for an edge ``i -> j``.  Values are edge
        weights (as NetworkX's ``weight`` attribute); a bool (pattern) matrix counts edges.
        On the GPU (``A.device == "gpu"``) every vector is made and kept there.
    damping : float, default 0.85
        Probability of following an edge (NetworkX's ``alpha``), in [0, 1].
    tol : float, default 1e-6
        Stop when the L1 change of the ranks is below ``tol`` (``criterion="l1"``; the
        answer is then within ``damping / (1 - damping) * tol`` of the exact ranks, in
        L1 and so in every entry, on any graph size), or below ``n * tol``
        (``criterion="networkx"``).
    max_iter : int, default 100
        Most iterations before :class:`PowerIterationFailedConvergence` is raised (at
        the defaults the ``"l1"`` rule needs at most 90: the L1 change shrinks by at
        least ``damping`` per iteration from at most 2).
    personalization : gblas.Vector, dict or array, optional
        Teleport distribution (normalized to sum 1; missing vertices weigh 0).  Dangling
        vertices also redistribute their rank along it, as in NetworkX.  Default uniform.
    progress : bool, default False
        Report each iteration's L1 change on stderr.
    criterion : {"l1", "networkx"}, default "l1"
        ``"l1"``: LAGraph's rule, ``|r' - r|_1 < tol``.  ``"networkx"``: NetworkX's rule,
        ``|r' - r|_1 < n * tol``, which gives NetworkX's iterates (same iteration count
        as ``nx.pagerank(G, tol=tol)``) but loosens with the graph's size: with
        NetworkX's ``tol=1e-6`` it stops after one iteration on a million vertices.
    callback : callable, optional
        Called after every iteration with a
        :class:`~gblas.algorithms.checkpoint.IterationState` (``iteration``, ``delta``:
        the L1 change, ``converged``, ``checkpoint()``); returning ``False`` stops the
        run, which returns the current ranks (no error).  On the GPU the next iteration
        is then not queued ahead of the read back.
    resume : Checkpoint, optional
        A ``state.checkpoint()`` of a run of the same graph with the same ``damping``,
        ``tol``, ``max_iter``, ``criterion`` and personalization: the iteration goes on
        from there and gives the uninterrupted run's ranks (bitwise on the CPU when the
        products run in the same formats).

    Returns
    -------
    gblas.Vector of float64
        Dense ranks summing to 1, on ``A``'s device.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square, or ``personalization`` has the wrong size.
    InvalidValue
        A parameter is out of range, or ``A`` holds a NaN, infinite or negative weight
        (checked before the first iteration).
    PowerIterationFailedConvergence
        No convergence within ``max_iter`` iterations.

    Notes
    -----
    While it iterates, pagerank tells the planner how many more products it expects
    (``gb.config(expected_uses=...)``, from the contraction of the L1 changes so far),
    so that a format whose build pays within this call is built at once.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], shape=(4, 4))
    >>> r = gb.algorithms.pagerank(A)
    >>> [round(float(x), 4) for x in r.to_dense()]
    [0.3175, 0.3175, 0.3175, 0.0476]
    >>> r = gb.algorithms.pagerank(A, tol=1e-6, criterion="networkx")

    Stopped after 3 iterations, then resumed:

    >>> saved = []
    >>> def stop(state):
    ...     saved.append(state.checkpoint())
    ...     return state.iteration < 3
    >>> _ = gb.algorithms.pagerank(A, callback=stop)
    >>> gb.algorithms.pagerank(A, resume=saved[-1]).isequal(gb.algorithms.pagerank(A))
    True
    """
    from ..backends.registry import PageRankStep, VecData
    from ..config import config
    from ..core import Matrix, Vector, executor, mxv
    from ..core.operations import repeated_mxv
    from ..planner.algorithms import plan_pagerank
    from .checkpoint import (
        Checkpoint,
        IterationState,
        check_callback,
        check_resume,
        host,
        keep_going,
    )

    call = "pagerank"
    A = square_matrix(A, call)
    n = A.shape[0]
    check_pagerank_args(damping, tol, max_iter, criterion, call)
    _check_weights(A, call)
    check_callback(callback, call)
    alpha = float(damping)
    dev = A.device  # every vector lives where the matrix does
    if n == 0:
        return Vector.empty(0, np.float64, device=dev)
    xp = xp_for(dev)
    f64 = np.dtype(np.float64)
    limit = float(tol) * (n if criterion == "networkx" else 1)
    # a pattern (bool) matrix multiplies by "1 per edge": the second operator skips A's
    # values; a valued matrix multiplies by its weights
    mul = "plus_second" if A.dtype == np.bool_ else "plus_times"
    csr = A.csr() if type(A) is Matrix and not A.is_hypersparse else None
    if csr is not None and (A.dtype == np.bool_ or (csr.values is None
                                                    and A.dtype.kind in "iuf")):
        # d = A (+.pair) 1, the out-degree of a pattern, or A (+.x) 1 of a matrix whose
        # entries all hold one value v, v times it: entries per row, read from the row
        # pointers (no product, no plan)
        degrees, present, from_indptr = csr.indptr, None, True
        scale = 1.0 if A.dtype == np.bool_ else float(csr.iso_value)
    else:
        # d = A (+.x) 1: the weighted out-degree (plus_pair, the entry count, for a
        # pattern); dangling vertices get no entry
        d = mxv(A, Vector.full(n, 1.0, device=dev), "plus_pair" if A.dtype == np.bool_ else mul)
        dd = d.dense_data()
        degrees, present, from_indptr, scale = dd.values, dd.present, False, 1.0
        del d, dd
    # w = alpha ./ d where d has a nonzero entry, 0 elsewhere: zero-weight rows are
    # dangling, as in NetworkX; w == 0 marks the dangling vertices below.  r_0 = 1/n;
    # s = r .* w (each vertex's damped rank per unit of out-weight); state_0 = [0, m_0],
    # m_0 the rank the dangling vertices hold (one pass, no read back)
    w, s, r0, state0 = executor.array_kernel("pagerank_start", dev)(
        degrees, present, from_indptr, scale, alpha)
    del degrees, present
    # p: the teleport distribution (None: uniform 1/n, read as a scalar)
    p = None if personalization is None else personalization_vector(personalization, n, call, dev)
    params = {"n": n, "nvals": A.nvals, "damping": alpha, "tol": float(tol),
              "max_iter": int(max_iter), "criterion": criterion,
              "personalization": None if p is None else _fingerprint(p, xp)}
    start = check_resume(resume, "pagerank", params, call)
    # the whole iteration in one compiled loop where the planner takes it
    plan = plan_pagerank(A, config.current(), callback=callback is not None,
                         resumed=start is not None)
    if plan.key is not None:
        return _fused(A, plan, w, p, alpha, limit, max_iter, criterion, call, progress)
    rbuf = [r0, xp.empty(n)]  # r_k lives in rbuf[k % 2]
    # state_k = [|r_k - r_{k-1}|_1, m_k]: m_k = sum(r_k over dangling), on the device
    sbuf = [state0, xp.empty(2)]
    errs, first = [], 1
    if start is not None:
        # r_k, s_k and state_k as saved: the iteration goes on with k + 1
        k0 = start.iteration
        rbuf[k0 % 2] = xp.array(start.arrays["r"], dtype=f64)
        s[:] = xp.asarray(start.arrays["s"])
        sbuf[k0 % 2] = xp.array(start.arrays["state"], dtype=f64)
        errs, first = [float(e) for e in start.values["errs"]], k0 + 1
        if errs and errs[-1] < limit or k0 >= max_iter:
            return Vector(VecData(n, None, rbuf[k0 % 2], None), f64, dev)
    s_vec = Vector(VecData(n, None, s, None), f64, dev)  # s is rewritten in place
    step = executor.array_kernel("pagerank_step", dev)
    read = executor.array_kernel("read_async", dev)
    # y = A' (+.x) s: the pull SpMV, each vertex gathers from its in-neighbours (planned
    # per call; checked once, no Vector per call)
    product = repeated_mxv(A.T, s_vec, mul)
    # where the product's format reads s in an order of its own (relabelled columns), the
    # step writes s in that order and the product skips its gather: laid = [the layout,
    # s in it] (not with a callback: a checkpoint holds s in column order)
    laid = [None, None]
    by_layout = callback is None

    def launch(k: int):
        """Queue iteration k (r_{k-1} -> r_k); returns the pending read of state_k."""
        layout, run = product.planned()
        layout = layout if by_layout else None
        xl = None
        if laid[0] is not None and layout is laid[0]:
            xl = VecData(layout.size, None, laid[1], None)
        elif laid[0] is not None:
            # the plan left that format: s back to column order (a column no entry
            # reads is a dangling vertex's, s = 0)
            pos = laid[0].positions
            s[:] = xp.where(pos >= 0, laid[1][xp.maximum(pos, 0)], 0.0)
            laid[:] = [None, None]
        if layout is not None and "pagerank_step" in run.epilogues:
            # the product's kernel runs the step below on y itself (y never stored) and
            # writes s' into the layout; s in column order (xl None) it gathers itself
            if xl is None:
                laid[:] = [layout, xp.zeros(layout.size)]  # (places no column takes: 0)
            run(xl, then=PageRankStep(p, 1.0 / n, rbuf[(k - 1) % 2], w, alpha,
                                      sbuf[(k - 1) % 2], rbuf[k % 2], laid[1], sbuf[k % 2],
                                      layout.positions))
            return read(sbuf[k % 2])
        y = run(xl)
        yv = y.values if y.values.dtype == f64 else y.values.astype(f64)
        if layout is not None and laid[0] is not layout:
            laid[:] = [layout, xp.zeros(layout.size)]  # (places no column takes: 0)
        # r_k = y + (alpha m + 1 - alpha) p; s = r_k .* w; state_k (one fused pass)
        step(yv, y.present, p, 1.0 / n, rbuf[(k - 1) % 2], w, alpha, sbuf[(k - 1) % 2],
             rbuf[k % 2], s if layout is None else laid[1], sbuf[k % 2],
             s_pos=None if layout is None else layout.positions)
        return read(sbuf[k % 2])

    # on the GPU iteration k+1 is queued before iteration k's L1 change is read (the
    # one wait per iteration then overlaps the next product's launch), except where k
    # is predicted to be the last; r_{k+1} goes to r_{k-1}'s buffer, so r_k is intact
    # when k is the last
    ahead = dev == "gpu" and callback is None
    err = math.inf

    def saver(k: int):
        return lambda: Checkpoint("pagerank", k, {"r": host(rbuf[k % 2]), "s": host(s),
                                                  "state": host(sbuf[k % 2])},
                                  {"errs": list(errs)}, params)

    with contextlib.ExitStack() as hint, \
            Progress(call, enabled=progress, total=max_iter) as report:
        if first > 2:  # the hint the uninterrupted run gave at iteration 2
            hint.enter_context(config(expected_uses=_remaining(
                errs[:2], limit, alpha, max_iter - 2)))
        pending = launch(first)
        for it in range(first, max_iter + 1):
            # (not ahead of the iteration predicted to converge: its successor is waste)
            following = launch(it + 1) if ahead and it < max_iter and not likely_last(
                errs, limit) else None
            err = float(pending.result()[0])  # the iteration's one read back
            errs.append(err)
            report.update(it, f"L1 change {err:.2e}")
            if callback is not None and not keep_going(
                    callback, IterationState(call, it, err, err < limit, saver(it))):
                report.close(f"stopped by the callback after {it} iterations")
                return Vector(VecData(n, None, rbuf[it % 2], None), f64, dev)
            if err < limit:
                report.close(f"{it} iterations, L1 change {err:.2e}")
                return Vector(VecData(n, None, rbuf[it % 2], None), f64, dev)
            if it == max_iter:
                break
            if it == 2:
                # the products still to come, told to the planner once (its plan memo
                # stays valid for the rest of the loop)
                left = _remaining(errs, limit, alpha, max_iter - it)
                hint.enter_context(config(expected_uses=left))
            pending = following if following is not None else launch(it + 1)
        report.close(f"no convergence, L1 change {err:.2e}")
    r = rbuf[max_iter % 2]
    rule = "n * tol" if criterion == "networkx" else "tol"
    raise PowerIterationFailedConvergence(
        f"{call}: no convergence within max_iter={max_iter} iterations (L1 change {err:.3g}, "
        f"needed < {rule} = {limit:.3g}). Raise max_iter or tol.",
        Vector(VecData(n, None, r, None), f64, dev), max_iter)


def _fingerprint(p, xp) -> float:
    """``sum_i i p_i`` to 12 significant digits: what a checkpoint keeps of a teleport
    distribution (the digits that a sum's order on either device leaves alone)."""
    return float(f"{array_sum(p * xp.arange(1, p.size + 1)):.12g}")


def _fused(A, plan, w, p, alpha: float, limit: float, max_iter: int, criterion: str,
           call: str, progress: bool):
    """The ranks from the plan's fused loop (every iteration in compiled code: progress
    reports the total)."""
    from ..backends.registry import VecData
    from ..core import Vector, executor

    n = A.shape[0]
    AT = A.csr(transposed=True)  # row i: the in-neighbours of i
    # the loop's product: plus_second on a pattern (entries count 1), else plus_times
    values, iso = None, 1.0
    if A.dtype != np.bool_:
        values, iso = (None, float(AT.iso_value)) if AT.values is None else (AT.values, 0.0)
    with Progress(call, enabled=progress, total=max_iter) as report:
        r, it, err = executor.kernel(plan)(AT.indptr, AT.indices, values, iso, w, p, alpha,
                                           limit, max_iter)
        ranks = Vector(VecData(n, None, r, None), np.dtype(np.float64), A.device)
        if err < limit:
            report.close(f"{it} iterations in one fused loop, L1 change {err:.2e}")
            return ranks
        report.close(f"no convergence, L1 change {err:.2e}")
    rule = "n * tol" if criterion == "networkx" else "tol"
    raise PowerIterationFailedConvergence(
        f"{call}: no convergence within max_iter={max_iter} iterations (L1 change {err:.3g}, "
        f"needed < {rule} = {limit:.3g}). Raise max_iter or tol.", ranks, max_iter)


def _plan(A, damping: float = 0.85, tol: float = 1e-6, max_iter: int = 100,
          personalization=None, progress: bool = False, *, criterion: str = "l1",
          callback=None, resume=None):
    """The Plan of ``pagerank(A, ...)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_pagerank

    return plan_pagerank(square_matrix(A, "pagerank"), config.current(),
                         callback=callback is not None, resumed=resume is not None)


pagerank.__gblas_plan__ = _plan
