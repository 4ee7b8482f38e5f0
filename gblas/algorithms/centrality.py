"""Spectral centralities by power iteration: eigenvector, Katz and HITS, in gblas operations.

Notation: ``A`` the adjacency matrix (``A(i, j)`` for an edge ``i -> j``, its value the
edge weight; a bool matrix weighs every edge 1), ``x`` the current scores (dense),
``b`` Katz's per-vertex constant, ``h`` and ``a`` the HITS hub and authority scores.
Every product is a pull SpMV over ``A'`` (each vertex gathers from its in-neighbours),
``gb.mxv(A.T, x)``, so the planner picks format and kernel as for PageRank.

* Eigenvector centrality (NetworkX's iteration, over ``A + I`` so that a bipartite
  graph's ``-lambda`` does not make it oscillate)::

      x' = x + A' x;   x' = x' / |x'|_2;   stop when |x' - x|_1 < tol

* Katz centrality::

      x' = alpha A' x + b;   stop when |x' - x|_1 < tol;   then x' / |x'|_2 (normalized)

* HITS (Kleinberg's hubs and authorities: the dominant singular vectors of ``A``)::

      a' = A' h;   a' = a' / |a'|_2;   h = A a';   stop when |a' - a|_1 < tol

  and, when the changes predict more than :data:`KRYLOV_PREDICTED` iterations to go
  (close singular values: meshes, road networks), Lanczos cycles on ``A' A`` from the
  last iterate, to the same rule (:mod:`._krylov`).

The stopping rules are the plain L1 change; NetworkX's (``|x' - x|_1 < n * tol``) is
``tol * n`` here (the NetworkX backend passes that, so it reproduces NetworkX's iterates).
Each product is planned per iteration (``repeated_mxv``: the scores live in one dense
array, rewritten in place), and the vector work after it is one fused step
(``("power_step", "array", device)``: the sum, the norm, the division and the L1 change)
whose change is the iteration's one read back: on a GPU every score stays on the device.
On a GPU Matrix of up to 2^24 entries the planner runs the whole iteration in one
launch instead (``plan_eigenvector``, ``plan_hits``, ``plan_katz``), where the host time
of a planned product would dominate each iteration.
References (ideas): LAGraph's ``LAGr_PageRank`` loop structure; Kleinberg, "Authoritative
sources in a hyperlinked environment" (J. ACM 1999); Katz, "A new status index derived
from sociometric analysis" (Psychometrika 1953).
"""

from __future__ import annotations

import math

import numpy as np

from .._device import device_of, xp_for
from ..exceptions import InvalidValue, bad_arg
from ._lookahead import likely_last
from .common import is_symmetric, square_matrix
from .pagerank import PowerIterationFailedConvergence

__all__ = ["eigenvector_centrality", "hits", "katz_centrality"]

#: HITS checks the rate of its power iteration every 10 iterations from this one on ...
KRYLOV_CHECK_AFTER = 20
#: ... and continues with Lanczos cycles when the rate predicts more iterations than this.
KRYLOV_PREDICTED = 100


def _check(tol, max_iter, call: str) -> None:
    if not (isinstance(tol, (int, float, np.floating, np.integer)) and tol >= 0):
        raise bad_arg(InvalidValue, call, "tol", "a number >= 0", repr(tol))
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) \
            or max_iter < 0:
        raise bad_arg(InvalidValue, call, "max_iter", "an integer >= 0", repr(max_iter),
                      "Pass e.g. max_iter=100.")


def _mul(A) -> str:
    """The semiring of a product by ``A``: a pattern counts 1 per edge."""
    return "plus_second" if A.dtype == np.bool_ else "plus_times"


def _start(x, n: int, fill: float, call: str, arg: str, dev: str):
    """A dense float64 Vector: ``x`` (array_like of length n) or ``fill`` everywhere."""
    from ..core import Vector

    if x is None:
        return Vector.full(n, fill, device=dev)
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != (n,):
        raise bad_arg(InvalidValue, call, arg, f"an array of {n} numbers",
                      f"shape {arr.shape}")
    return Vector.from_dense(arr).to(dev)


def _scores(v, xp):
    """A new dense float64 array of Vector ``v``'s values (0 where it has no entry)."""
    return xp.array(v.to_dense(fill=0), dtype=np.float64)


def _wrap(arr, dev: str):
    """A Vector over the dense array ``arr`` (no copy: the loops rewrite ``arr``)."""
    from ..backends.registry import VecData
    from ..core import Vector

    return Vector(VecData(arr.shape[0], None, arr, None), np.dtype(np.float64), dev)


class _Power:
    """The fused vector steps of a power iteration on ``dev``."""

    def __init__(self, dev: str, n: int) -> None:
        from ..core import executor

        xp = xp_for(dev)
        self._step = executor.array_kernel("power_step", dev)
        self._read = executor.array_kernel("read_async", dev)
        self._z = xp.empty(n)

    def step(self, y, x, out, *, b=None, scale: float = 1.0, add_x: bool = False,
             normalize: bool = False, state=None, read: bool = True):
        """``out = [x +] scale y [+ b]`` (divided by its 2-norm when ``normalize``) from
        the product's VecData ``y``; returns the pending read of ``[|out - x|_1, |z|^2]``
        (into ``state``, a 2-array on the device, when given), or None without ``read``."""
        yv = y.values if y.values.dtype == np.float64 else y.values.astype(np.float64)
        st = self._step(yv, y.present, x, b, scale, add_x, normalize, self._z, out, state)
        return self._read(st) if read else None


def _buffers(first, xp, dev: str):
    """The scores ``x_k`` of a power iteration in two arrays (``x_k`` in ``[k % 2]``,
    ``first`` holding ``x_0``), and a Vector over each (their products' operands)."""
    bufs = [first, xp.empty_like(first)]
    return bufs, [_wrap(a, dev) for a in bufs]


def _changes(launch, max_iter: int, dev: str, tol: float):
    """``(k, |x_k - x_{k-1}|_1)`` for ``k = 1 .. max_iter`` from ``launch(k)``, which
    queues iteration ``k`` and returns the pending read of its change.  On a GPU
    iteration ``k + 1`` is queued before ``k``'s change is read, so that the one wait
    per iteration overlaps the next launch (the caller's ``x_k`` stays intact: it lives
    in the other buffer), except where ``k`` is predicted to be the last (its change
    below ``tol``, :func:`._lookahead.likely_last`)."""
    if max_iter < 1:
        return
    ahead = dev == "gpu"
    errs: list = []
    pending = launch(1)
    for k in range(1, max_iter + 1):
        following = launch(k + 1) if ahead and k < max_iter and not likely_last(
            errs, tol) else None
        err = float(pending.result()[0])
        errs.append(err)
        yield k, err
        if k < max_iter:
            pending = following if following is not None else launch(k + 1)


def _slow(errs: list, tol: float) -> bool:
    """Whether the power iteration's changes ``errs`` (every 10 iterations from
    :data:`KRYLOV_CHECK_AFTER` on) predict more than :data:`KRYLOV_PREDICTED` iterations
    to reach ``tol``: the last 10 changes' mean rate, extrapolated."""
    k = len(errs)
    if k < KRYLOV_CHECK_AFTER or k % 10 or not errs[-1] > tol or not tol > 0:
        return False  # (tol 0: only an exact fixed point stops, as the iteration has it)
    if not errs[-11] > 0 or not math.isfinite(errs[-1]):
        return False
    rate = (errs[-1] / errs[-11]) ** 0.1
    return rate >= 1.0 or math.log(tol / errs[-1]) / math.log(rate) > KRYLOV_PREDICTED


def _hits_krylov(A, mul: str, a0, tol: float, budget: int, call: str, max_iter: int,
                 dev: str, gram=None):
    """HITS's ``(h, a)`` Vectors by Lanczos cycles on ``A' A`` from ``a0`` within
    ``budget`` products of ``A' A`` (raises as the power iteration does past it);
    ``gram(v)``, when given, is that product (else two planned products)."""
    from ..core.operations import repeated_mxv
    from ._krylov import dominant_eigenvector

    xp = xp_for(dev)
    n = A.shape[0]
    ab, hb = xp.empty(n), xp.empty(n)  # the operands of the two products
    hubs = repeated_mxv(A, _wrap(ab, dev), mul)
    authorities = repeated_mxv(A.T, _wrap(hb, dev), mul)

    def planned(v):
        # A' (A v): the hubs of v, then the authorities of those hubs
        xp.copyto(ab, v)
        xp.copyto(hb, _values(hubs()))
        return _values(authorities())

    a, _, err = dominant_eigenvector(gram or planned, a0, tol=tol, budget=budget, xp=xp)
    if not err < tol:
        raise _failed(call, max_iter, err, tol, _wrap(a, dev))
    # h = A a
    xp.copyto(ab, a)
    return _wrap(_values(hubs()), dev), _wrap(a, dev)


def _eigen_krylov(A, x0, tol: float, budget: int, call: str, max_iter: int, dev: str):
    """Eigenvector centrality's Vector by Lanczos cycles on ``A + I`` (``A`` symmetric)
    from ``x0`` within ``budget`` products (raises as the power iteration does past it)."""
    from ..core.operations import repeated_mxv
    from ._krylov import dominant_eigenvector

    xp = xp_for(dev)
    xb = xp.empty(A.shape[0])
    product = repeated_mxv(A.T, _wrap(xb, dev), _mul(A))

    def apply(v):
        # (A + I) v = v + A' v
        xp.copyto(xb, v)
        return v + _values(product())

    x, _, err = dominant_eigenvector(apply, x0, tol=tol, budget=budget, xp=xp)
    if not err < tol:
        raise _failed(call, max_iter, err, tol, _wrap(x, dev))
    return _wrap(x, dev)


def _values(y):
    """A product's VecData as a new dense float64 array (0 where it has no entry; a
    select, not a masked store: on a GPU a boolean mask waits for the device)."""
    if y.present is None:
        return y.values.astype(np.float64, copy=True)
    xp = xp_for(device_of(y.values))
    return xp.where(y.present, y.values.astype(np.float64, copy=False), 0.0)


def _norm2(x) -> float:
    from ..core import ewise_mult, reduce

    # |x|_2 = sqrt(plus.reduce(x .* x))
    return math.sqrt(float(reduce(ewise_mult(x, x, "times"), "plus")))


def _failed(call: str, max_iter: int, err: float, tol: float, x):
    return PowerIterationFailedConvergence(
        f"{call}: no convergence within max_iter={max_iter} iterations (L1 change "
        f"{err:.3g}, needed < tol = {tol:.3g}). Raise max_iter or tol.", x, max_iter)


def eigenvector_centrality(A, tol: float = 1e-6, max_iter: int = 100, start=None, *,
                           krylov: bool = True):
    """Eigenvector centrality (left dominant eigenvector of ``A``) by power iteration
    over ``A + I``, as NetworkX iterates it.

    On a GPU Matrix of up to 2^24 entries the iteration runs in one kernel launch
    (``gb.explain(gb.algorithms.eigenvector_centrality, A)`` shows which route).  Where
    the iteration would be slow (close leading eigenvalues: meshes, road networks) and
    ``A`` is symmetric (:attr:`gblas.Matrix.known_symmetric`, or found so then: one
    comparison of ``A`` with ``A'``), it continues with Lanczos cycles from its last
    iterate, to the same rule and within the same ``max_iter`` (see :func:`hits`).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix (values are weights; a bool matrix weighs edges 1).
    tol : float, default 1e-6
        Stop when the L1 change of the unit-norm scores is below ``tol``
        (NetworkX's rule is ``tol = n * its tol``).
    max_iter : int, default 100
        Most iterations.
    start : array_like, optional
        Starting scores (scaled to sum 1); default all ones.
    krylov : bool, default True
        Allow the Lanczos cycles (False: NetworkX's iterates only, as its own call,
        which stops at ``max_iter`` where they are slow).  A matrix that is not
        symmetric keeps the power iteration.

    Returns
    -------
    gblas.Vector of float64
        Dense scores of unit 2-norm.

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence within ``max_iter`` iterations.
    InvalidValue
        ``start`` sums to 0, or ``tol`` / ``max_iter`` is out of range.

    Examples
    --------
    >>> import gblas as gb
    >>> r, c = [0, 1, 1, 2], [1, 0, 2, 1]
    >>> x = gb.algorithms.eigenvector_centrality(gb.Matrix.from_coo(r, c, shape=(3, 3)),
    ...                                         tol=1e-12, max_iter=200)
    >>> [round(float(v), 4) for v in x.to_dense()]
    [0.5, 0.7071, 0.5]
    """
    from ..core import reduce
    from ..core.operations import repeated_mxv

    call = "eigenvector_centrality"
    A = square_matrix(A, call)
    _check(tol, max_iter, call)
    n, dev = A.shape[0], A.device
    x = _start(start, n, 1.0, call, "start", dev)
    total = float(reduce(x, "plus"))
    if n and total == 0:
        raise bad_arg(InvalidValue, call, "start", "scores that do not sum to 0",
                      "a zero sum", "Pass positive starting scores or None.")
    if n == 0:
        return x
    xp = xp_for(dev)
    symmetric = _Symmetric(A) if krylov else None
    # x_0 = x / sum(x)
    x0 = _scores(x, xp) / total
    plan = _eigen_plan(A)
    if plan.key is not None:
        # the whole iteration in one launch (a GPU Matrix of up to 2^24 entries)
        return _eigen_fused(A, plan, x0, tol, max_iter, symmetric, call)
    bufs, vecs = _buffers(x0, xp, dev)
    products = [repeated_mxv(A.T, v, _mul(A)) for v in vecs]
    power, states = _Power(dev, n), [xp.empty(2), xp.empty(2)]

    def launch(k: int):
        src, dst = (k - 1) % 2, k % 2
        # y = A' x_{k-1}: every vertex sums its in-neighbours' scores
        y = products[src]()
        # x_k = (x_{k-1} + y) / |x_{k-1} + y|_2, the iteration over A + I (1 where the
        # norm is 0, as NetworkX); the change |x_k - x_{k-1}|_1
        return power.step(y, bufs[src], bufs[dst], add_x=True, normalize=True,
                          state=states[dst])

    err, errs = math.inf, []
    for k, err in _changes(launch, max_iter, dev, tol):
        if err < tol:
            return vecs[k % 2]
        errs.append(err)
        if symmetric is not None and _slow(errs, tol) and symmetric():
            # close leading eigenvalues: Lanczos cycles on A + I from x_k
            return _eigen_krylov(A, xp.array(bufs[k % 2]), tol, max_iter - k, call,
                                 max_iter, dev)
    raise _failed(call, max_iter, err, tol, vecs[max_iter % 2])


class _Symmetric:
    """Whether ``A`` (values included) equals ``A'`` (:func:`.common.is_symmetric`), asked
    on the first call (when the power iteration turns out slow) and kept."""

    def __init__(self, A) -> None:
        self.A, self.verdict = A, None

    def __call__(self) -> bool:
        if self.verdict is None:
            self.verdict = is_symmetric(self.A, values=self.A.dtype != np.bool_)
        return self.verdict


def _eigen_plan(A, tol: float = 1e-6, max_iter: int = 100, start=None, *,
                krylov: bool = True):
    """The Plan of ``eigenvector_centrality(A, ...)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_eigenvector

    return plan_eigenvector(square_matrix(A, "eigenvector_centrality"), config.current())


eigenvector_centrality.__gblas_plan__ = _eigen_plan


def _eigen_fused(A, plan, x, tol: float, max_iter: int, symmetric, call: str):
    """Eigenvector centrality in one launch per run of iterations (see
    :func:`~gblas.planner.algorithms.plan_eigenvector`), from ``x`` (``x_0``, rewritten),
    with the loop's Lanczos continuation where ``symmetric`` (a :class:`_Symmetric`, or
    None: never) holds once the iteration is found slow."""
    from ..core import executor

    dev, run = A.device, executor.kernel(plan)
    AT = _pull_operands(A.csr(transposed=True), A.dtype)
    xp = xp_for(dev)
    k, err, slow = _fused_run(lambda *steps: run(AT, x, tol, *steps), max_iter, tol,
                              symmetric is not None, xp)
    if slow and not symmetric():
        # slow, but no Lanczos for a matrix that is not symmetric: the power iteration
        # goes on from iteration k, the rate no longer checked
        slow = False
        if k < max_iter:
            k, err, _ = run(AT, x, tol, k, max_iter, xp.empty(max(max_iter, 1)), 0, 0.0)
    if err < tol:
        return _wrap(x, dev)
    if slow:
        # close leading eigenvalues: Lanczos cycles on A + I from x_k
        return _eigen_krylov(A, x.copy(), tol, max_iter - k, call, max_iter, dev)
    raise _failed(call, max_iter, err, tol, _wrap(x, dev))


def _pull_operands(csr, dtype) -> tuple:
    """``(indptr, indices, values or None, iso)`` of a CSR for the one-launch kernels (a
    pattern weighs every entry 1)."""
    values, iso = None, 1.0
    if dtype != np.bool_:
        values, iso = (None, float(csr.iso_value)) if csr.values is None else (csr.values, 0.0)
    return csr.indptr, csr.indices, values, iso


def _fused_run(run, max_iter: int, tol: float, switch: bool, xp):
    """Run a one-launch power iteration ``run(first, last, errs, check_after, predicted)
    -> (k, err, slow)`` up to ``max_iter``, where it may ``switch`` to Lanczos cycles with
    :func:`_slow`'s rule checked in the kernel.  Returns ``(k, err, slow)``."""
    errs = xp.empty(max(max_iter, 1))
    check = KRYLOV_CHECK_AFTER if switch and tol > 0 else 0  # (tol 0 never switches)
    return run(0, max_iter, errs, check, float(KRYLOV_PREDICTED))


def katz_centrality(A, alpha: float = 0.1, beta=1.0, tol: float = 1e-6,
                    max_iter: int = 1000, start=None, normalized: bool = True):
    """Katz centrality ``x = alpha A' x + beta`` by fixed-point iteration.

    On the CPU NetworkX's iterates (a product and a fused step each); on a GPU Matrix of
    up to 2^24 entries the whole iteration in one launch of PageRank's fused kernel
    (``gb.explain(gb.algorithms.katz_centrality, A)`` shows which), where ``alpha``
    multiplies the scores before the sum (the same result to rounding), and a divergence
    is reported after ``max_iter`` iterations.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix (values are weights; a bool matrix weighs edges 1).
    alpha : float, default 0.1
        Attenuation factor (converges when below ``1 / lambda_max``).
    beta : float or array_like, default 1.0
        The constant added to every vertex (one number, or one per vertex).
    tol : float, default 1e-6
        Stop when the L1 change is below ``tol`` (NetworkX's rule: ``n * its tol``).
    max_iter : int, default 1000
        Most iterations.
    start : array_like, optional
        Starting scores; default 0.
    normalized : bool, default True
        Scale the result to unit 2-norm.

    Returns
    -------
    gblas.Vector of float64
        Dense scores.

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence within ``max_iter`` iterations, or the iteration diverges (``alpha``
        too large: raised as soon as the change overflows).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> x = gb.algorithms.katz_centrality(A, alpha=0.5, normalized=False)
    >>> x.to_dense().tolist()
    [1.0, 1.5, 1.75]

    An ``alpha`` above ``1 / lambda_max`` diverges, and (on the CPU) is told so at once:

    >>> K = gb.Matrix.from_coo([0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1], shape=(3, 3))
    >>> try:                                    # lambda_max = 2: alpha must be below 0.5
    ...     gb.algorithms.katz_centrality(K, alpha=5.0)
    ... except gb.algorithms.PowerIterationFailedConvergence as e:
    ...     print(e.iterations < 1000, str(e).split(": ")[1].split(" after")[0])
    True the iteration diverges
    """
    from ..core import apply
    from ..core.operations import repeated_mxv

    call = "katz_centrality"
    A = square_matrix(A, call)
    _check(tol, max_iter, call)
    n, dev = A.shape[0], A.device
    if np.ndim(beta) == 0:
        b = _start(None, n, float(beta), call, "beta", dev)
    else:
        b = _start(beta, n, 0.0, call, "beta", dev)
    x = _start(start, n, 0.0, call, "start", dev)
    if n == 0:
        return x
    xp = xp_for(dev)
    plan = _katz_plan(A)
    if plan.key is not None:
        # the whole iteration in one launch (a GPU Matrix of up to 2^24 entries)
        return _katz_fused(A, plan, _scores(x, xp), _scores(b, xp), float(alpha), tol,
                           max_iter, normalized, call)
    bufs, vecs = _buffers(_scores(x, xp), xp, dev)
    barr = _scores(b, xp)
    products = [repeated_mxv(A.T, v, _mul(A)) for v in vecs]
    power, states = _Power(dev, n), [xp.empty(2), xp.empty(2)]

    def launch(k: int):
        src, dst = (k - 1) % 2, k % 2
        # y = A' x_{k-1}: each vertex sums its in-neighbours' scores
        y = products[src]()
        # x_k = alpha y + b; the change |x_k - x_{k-1}|_1
        return power.step(y, bufs[src], bufs[dst], b=barr, scale=float(alpha),
                          state=states[dst])

    err, least = math.inf, math.inf
    for it, err in _changes(launch, max_iter, dev, tol):
        x = vecs[it % 2]
        if err < tol:
            if normalized:
                # x = x / |x|_2 (unchanged when the norm is 0)
                x = apply(x, "div", right=_norm2(x) or 1.0)
            return x
        if not math.isfinite(err):  # overflowed: every later iterate is inf or NaN
            raise _diverged(call, alpha, f"after {it} iterations (L1 change {err:.3g})", x,
                            it)
        least = min(least, err)
    x = vecs[max_iter % 2]
    if err > 10 * least:  # the change grew instead of shrinking
        raise _diverged(call, alpha, f"within max_iter={max_iter} iterations (L1 change "
                        f"{least:.3g} at its least, {err:.3g} at the end)", x, max_iter)
    raise _failed(call, max_iter, err, tol, x)


def _katz_plan(A, alpha: float = 0.1, beta=1.0, tol: float = 1e-6, max_iter: int = 1000,
               start=None, normalized: bool = True):
    """The Plan of ``katz_centrality(A, ...)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_katz

    return plan_katz(square_matrix(A, "katz_centrality"), config.current())


katz_centrality.__gblas_plan__ = _katz_plan


def _katz_fused(A, plan, x0, b, alpha: float, tol: float, max_iter: int, normalized: bool,
                call: str):
    """Katz's scores from PageRank's fused loop (see :func:`~gblas.planner.algorithms.
    plan_katz`): ``x' = A' (alpha x) + b`` until the L1 change is below ``tol``."""
    from ..core import apply, executor

    xp = xp_for(A.device)
    # row i of A': the in-neighbours of i
    indptr, indices, values, iso = _pull_operands(A.csr(transposed=True), A.dtype)
    w = xp.full(A.shape[0], alpha)
    r, it, err = executor.kernel(plan)(indptr, indices, values, iso, w, b, 0.0, tol,
                                       max_iter, r0=x0)
    x = _wrap(r, A.device)
    if err < tol:
        # x = x / |x|_2 (unchanged when the norm is 0)
        return apply(x, "div", right=_norm2(x) or 1.0) if normalized else x
    if not math.isfinite(err):
        raise _diverged(call, alpha, f"within max_iter={max_iter} iterations (L1 change "
                        f"{err:.3g})", x, max_iter)
    raise _failed(call, max_iter, err, tol, x)


def _diverged(call: str, alpha: float, where: str, x, iterations: int):
    return PowerIterationFailedConvergence(
        f"{call}: the iteration diverges {where}: alpha={alpha:g} is not below 1 / "
        "lambda_max of A (its largest eigenvalue). Lower alpha.", x, iterations)


def hits(A, tol: float = 1e-10, max_iter: int = 1000, start=None, normalized: bool = True):
    """HITS hubs and authorities: the dominant left and right singular vectors of ``A``.

    A power iteration (``a = A' h``, ``h = A a``; on a GPU Matrix of up to 2^24 entries
    in one kernel launch, as ``gb.explain`` shows).  Where its changes
    predict more than ``KRYLOV_PREDICTED`` (100) iterations to go (close singular values:
    meshes, road networks), it continues from its last iterate with Lanczos cycles on
    ``A' A``, to the same rule and within the same ``max_iter`` (each cycle's product
    counts as one iteration).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix (values are weights; a bool matrix weighs edges 1).
    tol : float, default 1e-10
        Stop when the L1 change of the unit-norm authorities is below ``tol``.
    max_iter : int, default 1000
        Most iterations.
    start : array_like, optional
        Starting hub scores (non-negative); default uniform.
    normalized : bool, default True
        Scale hubs and authorities to sum 1; else the authorities have unit 2-norm and
        the hubs are ``A a`` (the singular value times the unit hub vector).

    Returns
    -------
    hubs, authorities : gblas.Vector of float64
        Dense scores.

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence within ``max_iter`` iterations.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 1], [1, 2, 2], shape=(3, 3))
    >>> h, a = gb.algorithms.hits(A)
    >>> [round(float(v), 4) for v in h.to_dense()], [round(float(v), 4) for v in a.to_dense()]
    ([0.618, 0.382, 0.0], [0.0, 0.382, 0.618])

    On a 40 x 40 grid the power iteration alone would need thousands of iterations; the
    Lanczos cycles finish within the default ``max_iter``:

    >>> import numpy as np, scipy.sparse as sp
    >>> P = sp.diags([1.0, 1.0], [-1, 1], shape=(40, 40), dtype=float)
    >>> grid = gb.Matrix.from_scipy(sp.kronsum(P, P).tocsr())
    >>> h, a = gb.algorithms.hits(grid)               # the four middle cells lead
    >>> sorted(np.argsort(a.to_dense())[-4:].tolist())
    [779, 780, 819, 820]
    """
    from ..core import apply, reduce

    call = "hits"
    A = square_matrix(A, call)
    _check(tol, max_iter, call)
    n, dev = A.shape[0], A.device
    h = _start(start, n, 1.0 / max(n, 1), call, "start", dev)
    if n == 0:
        return h, h.dup()
    xp = xp_for(dev)
    plan = _hits_plan(A)
    if plan.key is not None:
        # the iteration in one launch per run of iterations (up to 2^24 entries, GPU)
        h, a = _hits_fused(A, plan, _scores(h, xp), tol, max_iter, call)
    else:
        h, a = _hits_loop(A, _scores(h, xp), tol, max_iter, call)
    if normalized:
        # h = h / sum(h);  a = a / sum(a)
        h = apply(h, "div", right=float(reduce(h, "plus")) or 1.0)
        a = apply(a, "div", right=float(reduce(a, "plus")) or 1.0)
    return h, a


def _hits_plan(A, tol: float = 1e-10, max_iter: int = 1000, start=None,
               normalized: bool = True):
    """The Plan of ``hits(A, ...)`` (what ``gb.explain`` shows)."""
    from ..config import config
    from ..planner.algorithms import plan_hits

    return plan_hits(square_matrix(A, "hits"), config.current())


hits.__gblas_plan__ = _hits_plan


def _hits_fused(A, plan, h, tol: float, max_iter: int, call: str):
    """HITS's ``(h, a)`` Vectors in one launch per run of iterations (see
    :func:`~gblas.planner.algorithms.plan_hits`) from the hub scores ``h`` (rewritten),
    with the loop's Lanczos continuation."""
    from ..core import executor

    dev, run = A.device, executor.kernel(plan)
    xp = xp_for(dev)
    a = xp.zeros(h.shape[0])
    AT, AA = (_pull_operands(A.csr(transposed=t), A.dtype) for t in (True, False))
    if (AT[0].dtype, AT[1].dtype) != (AA[0].dtype, AA[1].dtype):  # one kernel reads both
        AT, AA = ((p.astype(np.int64), i.astype(np.int64), v, w) for p, i, v, w in (AT, AA))
    k, err, slow = _fused_run(lambda *steps: run(AT, AA, h, a, tol, *steps), max_iter, tol,
                              True, xp)
    if err < tol:
        return _wrap(h, dev), _wrap(a, dev)
    if slow:
        # close singular values: Lanczos cycles from a_k for the rest of the budget, each
        # product of A' A one launch
        product = executor.kernel(plan, step=0)
        return _hits_krylov(A, _mul(A), a.copy(), tol, max_iter - k, call, max_iter, dev,
                            gram=lambda v: product(AT, AA, v))
    raise _failed(call, max_iter, err, tol, _wrap(a, dev))


def _hits_loop(A, h0, tol: float, max_iter: int, call: str):
    """HITS's ``(h, a)`` Vectors by the loop of planned products and fused steps, from the
    hub scores ``h0``."""
    from ..core.operations import repeated_mxv

    n, dev = A.shape[0], A.device
    xp = xp_for(dev)
    hb, hv = _buffers(h0, xp, dev)
    ab, av = _buffers(xp.zeros(n), xp, dev)
    mul, power = _mul(A), _Power(dev, n)
    authorities = [repeated_mxv(A.T, v, mul) for v in hv]
    hubs = [repeated_mxv(A, v, mul) for v in av]
    # the change of each iteration's authorities, and the hubs' step (its sums unread)
    states, scratch = [xp.empty(2), xp.empty(2)], xp.empty(2)

    def launch(k: int):
        src, dst = (k - 1) % 2, k % 2
        # a_k = A' h_{k-1} / |A' h_{k-1}|_2: authorities gather the hub scores of their
        # in-neighbours; the change |a_k - a_{k-1}|_1
        change = power.step(authorities[src](), ab[src], ab[dst], normalize=True,
                            state=states[dst])
        # h_k = A a_k: hubs gather the authority scores of their out-neighbours
        power.step(hubs[dst](), hb[dst], hb[dst], state=scratch, read=False)
        return change

    err, errs = math.inf, []
    for k, err in _changes(launch, max_iter, dev, tol):
        if err < tol:
            h, a = hv[k % 2], av[k % 2]
            break
        errs.append(err)
        if _slow(errs, tol):
            # close singular values: Lanczos cycles from a_k for the rest of the budget
            h, a = _hits_krylov(A, mul, xp.array(ab[k % 2]), tol, max_iter - k, call,
                                max_iter, dev)
            break
    else:
        raise _failed(call, max_iter, err, tol, av[max_iter % 2])
    return h, a
