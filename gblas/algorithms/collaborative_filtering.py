"""Collaborative filtering: low-rank factorization of a ratings matrix by gradient descent.

Notation: ``R`` the ``m x n`` ratings (``R(u, i)`` the rating of item ``i`` by user ``u``),
``U`` (``m x k``) and ``V`` (``n x k``) the factors (dense matrices), ``E`` the errors on
the ratings' pattern, ``du``/``di`` the numbers of ratings per user/item.  One iteration
(full-batch gradient descent, every factor's gradient averaged over its ratings)::

    P<R> = U plus.times V'                  # masked SpGEMM = SDDMM: predictions
    E = R - P
    U' = (1 - lr reg) U + lr diag(1/du) (E plus.times V)
    V' = (1 - lr reg) V + lr diag(1/di) (E' plus.times U)

The loss is ``sum (R - U V')^2`` plus ``reg`` times the squared norms; averaging each
gradient over the vertex's ratings (a per-vertex step) lets one ``lr`` work on any degree
distribution, and fitting ``R / s`` (``s`` the root mean square rating) on any rating
scale.  The factors start at ``c + N(0, c^2)`` with ``c^2 = mean(R / s) / rank`` (their
product is the mean rating on average; noise as large as the mean breaks the symmetry
between the factors).  The held-out RMSE is measured with the same masked product on
the held-out pattern.

Reference (ideas): the gradient-descent collaborative filtering of Cagra (Zhang et al.,
"Making caches work for graph analytics", 2017) and GraphMat.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg
from ._progress import Progress
from .common import check_no_nan

__all__ = ["CFResult", "collaborative_filtering"]


class CFResult(tuple):
    """``(user_factors, item_factors)``, with the RMSE history as attributes.

    Unpacks as a pair: ``U, V = collaborative_filtering(R)``.

    Attributes
    ----------
    user_factors, item_factors : numpy.ndarray
        ``m x rank`` and ``n x rank``; predictions are ``U @ V.T``.
    rmse : numpy.ndarray
        Held-out RMSE before the first iteration and after each one (empty without a
        holdout).
    train_rmse : numpy.ndarray
        Training RMSE, likewise.
    iterations : int
        Iterations run.
    """

    def __new__(cls, U, V, rmse, train_rmse, iterations):
        self = super().__new__(cls, (U, V))
        self.rmse = np.asarray(rmse, dtype=np.float64)
        self.train_rmse = np.asarray(train_rmse, dtype=np.float64)
        self.iterations = int(iterations)
        return self

    @property
    def user_factors(self) -> np.ndarray:
        return self[0]

    @property
    def item_factors(self) -> np.ndarray:
        return self[1]

    def __repr__(self) -> str:
        last = f"{self.rmse[-1]:.4f}" if self.rmse.size else "n/a"
        return (f"CFResult(rank={self[0].shape[1]}, iterations={self.iterations}, "
                f"held-out rmse={last})")


def _number(value, call: str, arg: str, low: float, *, strict: bool) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)) and np.isfinite(value)
    if not ok or (value <= low if strict else value < low):
        rel = ">" if strict else ">="
        raise bad_arg(InvalidValue, call, arg, f"a finite number {rel} {low:g}", repr(value))
    return float(value)


def _split(R, holdout, seed: int, call: str):
    """``(train, test)`` gb.Matrix pair (test None without a holdout)."""
    from .._device import to_numpy
    from ..core import Matrix

    if isinstance(holdout, Matrix):
        if holdout.shape != R.shape:
            raise bad_arg(DimensionMismatch, call, "holdout", f"a Matrix of shape {R.shape}",
                          f"shape {holdout.shape}")
        check_no_nan(holdout, call, "holdout")
        return R, (holdout if holdout.nvals else None)
    frac = _number(holdout, call, "holdout", 0.0, strict=False)
    if frac >= 1.0:
        raise bad_arg(InvalidValue, call, "holdout", "a fraction in [0, 1) or a gb.Matrix",
                      repr(holdout))
    if frac == 0.0:
        return R, None
    r, c, v = (to_numpy(a) for a in R.to_coo())
    rng = np.random.default_rng([seed, 7])
    test = rng.random(r.size) < frac
    if test.all():
        test[0] = False
    train = Matrix.from_coo(r[~test], c[~test], v[~test], shape=R.shape).to(R.device)
    if not test.any():
        return train, None
    held = Matrix.from_coo(r[test], c[test], v[test], shape=R.shape).to(R.device)
    return train, held


def _errors(R, U, V):
    """``E<R> = R - U V'`` (the masked product only computes R's pattern)."""
    from ..core import ewise_mult, mxm

    # P<R> = U plus.times V': predictions on the ratings' pattern (SDDMM)
    P = mxm(U, V.T, "plus_times", mask=R.S)
    # E = R - P
    return ewise_mult(R, P, "minus")


def _rmse(E) -> float:
    from ..core import ewise_mult, reduce

    if E.nvals == 0:
        return 0.0
    # sum(E .* E)
    return float(np.sqrt(float(reduce(ewise_mult(E, E, "times"), "plus")) / E.nvals))


def collaborative_filtering(R, rank: int = 16, *, lr: float = 0.5, reg: float = 0.05,
                            max_iter: int = 100, seed: int = 0, holdout=0.1,
                            tol: float = 0.0, progress: bool = False, callback=None,
                            resume=None) -> CFResult:
    """Factor a ratings matrix ``R ~ U V'`` by gradient descent (Cagra's CF benchmark).

    Parameters
    ----------
    R : gblas.Matrix
        ``m x n`` ratings: ``R[u, i]`` the rating of item ``i`` by user ``u`` (any numeric
        dtype; computed in float64).  Missing entries are unknown, not zero.
    rank : int, default 16
        Number of latent factors.
    lr : float, default 0.5
        Step size.  Each factor's gradient is averaged over its ratings, and the ratings
        are divided by their root mean square while fitting (the factors and RMSEs
        returned are in the original units), so the default suits any degree
        distribution and rating scale.
    reg : float, default 0.05
        L2 regularization weight (on the normalized problem).
    max_iter : int, default 100
        Iterations of full-batch gradient descent.
    seed : int, default 0
        Seed of the initial factors and of the holdout split.
    holdout : float or gblas.Matrix, default 0.1
        Fraction of the ratings held out (drawn with ``seed``) to measure the RMSE on, or
        an explicit Matrix of held-out ratings (then all of ``R`` trains).  0: none.
    tol : float, default 0
        Stop early when the training RMSE drops by less than ``tol`` in an iteration.
    progress : bool, default False
        Report every iteration's RMSE on stderr; the final line gives the iteration
        count (also in ``result.iterations``).
    callback : callable, optional
        Called after every iteration with a
        :class:`~gblas.algorithms.checkpoint.IterationState` (``iteration``, ``delta``:
        the training RMSE, ``converged``: the ``tol`` rule met, ``checkpoint()``);
        returning ``False`` stops the run, which returns the current factors.
    resume : Checkpoint, optional
        A ``state.checkpoint()`` of a run on the same ratings with the same arguments:
        the descent goes on from there and gives the uninterrupted run's factors and
        RMSE histories.

    Returns
    -------
    CFResult
        Unpacks as ``(user_factors, item_factors)`` (NumPy arrays ``m x rank`` and
        ``n x rank``); ``.rmse`` and ``.train_rmse`` hold the held-out and training RMSE
        before the first iteration and after each one.

    Raises
    ------
    InvalidObject
        ``R`` is not a gb.Matrix.
    InvalidValue
        NaN ratings or a bad parameter.

    Examples
    --------
    >>> import numpy as np, gblas as gb
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random((60, 3)) @ rng.random((3, 40))
    >>> keep = rng.random(truth.shape) < 0.5
    >>> r, c = np.nonzero(keep)
    >>> R = gb.Matrix.from_coo(r, c, truth[r, c], shape=truth.shape)
    >>> res = gb.algorithms.collaborative_filtering(R, rank=3, max_iter=50)
    >>> U, V = res
    >>> U.shape, V.shape, bool(res.rmse[-1] < res.rmse[0] / 2)
    ((60, 3), (40, 3), True)

    Twenty iterations, then thirty more from the checkpoint:

    >>> saved = []
    >>> def twenty(state):
    ...     saved.append(state.checkpoint())
    ...     return state.iteration < 20
    >>> _ = gb.algorithms.collaborative_filtering(R, rank=3, max_iter=50, callback=twenty)
    >>> again = gb.algorithms.collaborative_filtering(R, rank=3, max_iter=50, resume=saved[-1])
    >>> [bool(np.array_equal(a, b)) for a, b in zip(again, res)], again.iterations
    ([True, True], 50)
    >>> bool(np.array_equal(again.rmse, res.rmse))
    True
    """
    from .._device import to_numpy
    from ..core import Matrix, apply, ewise_add, mxm, reduce
    from .checkpoint import IterationState, check_callback, check_resume, keep_going
    from .common import diag

    call = "collaborative_filtering"
    if not isinstance(R, Matrix):
        if hasattr(R, "tocsr") and hasattr(R, "shape"):
            R = Matrix.from_scipy(R)
        else:
            raise bad_arg(InvalidObject, call, "R", "a gb.Matrix of ratings",
                          type(R).__name__)
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or rank < 1:
        raise bad_arg(InvalidValue, call, "rank", "an integer >= 1", repr(rank))
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) \
            or max_iter < 0:
        raise bad_arg(InvalidValue, call, "max_iter", "an integer >= 0", repr(max_iter))
    lr = _number(lr, call, "lr", 0.0, strict=True)
    reg = _number(reg, call, "reg", 0.0, strict=False)
    tol = _number(tol, call, "tol", 0.0, strict=False)
    check_no_nan(R, call, "R")
    if R.nvals == 0:
        raise bad_arg(InvalidValue, call, "R", "a ratings Matrix with at least one rating",
                      f"an empty {R.shape[0]} x {R.shape[1]} Matrix",
                      "There is nothing to factor: add ratings first.")
    check_callback(callback, call)
    params = {"shape": list(R.shape), "nvals": R.nvals, "rank": int(rank), "lr": lr,
              "reg": reg, "max_iter": int(max_iter), "seed": int(seed), "tol": tol,
              "holdout": (f"Matrix with {holdout.nvals} entries"
                          if isinstance(holdout, Matrix) else repr(holdout))}
    start = check_resume(resume, call, params, call)
    if R.dtype != np.float64:
        R = R.dup(np.float64)
    m, n = R.shape
    train, test = _split(R, holdout, seed, call)
    if test is not None and test.dtype != np.float64:
        test = test.dup(np.float64)
    device = R.device
    rng = np.random.default_rng(seed)
    # s = sqrt(mean(R .* R)): the factors fit R / s, so that one lr suits any rating scale
    scale = _rmse(train) or 1.0
    # Rn = R / s (and the held-out ratings likewise)
    train = apply(train, "times", right=1.0 / scale)
    if test is not None:
        test = apply(test, "times", right=1.0 / scale)
    mean = float(reduce(train, "plus")) / train.nvals if train.nvals else 0.0
    # U, V = c + N(0, c^2) with c = sqrt(|mean| / rank): E[U V'] = mean, and the noise as
    # large as the mean breaks the symmetry between the factors at once
    c = np.sqrt(abs(mean) / rank) if mean else 1.0 / np.sqrt(rank)
    U = Matrix.from_dense(c + rng.normal(scale=c, size=(m, rank))).to(device)
    V = Matrix.from_dense(c + rng.normal(scale=c, size=(n, rank))).to(device)
    # du, di: ratings per user and per item (vertices without ratings get no entry)
    du = reduce(_pattern_f64(train), "plus", axis="rows")
    di = reduce(_pattern_f64(train), "plus", axis="columns")
    # Du = diag(1 / du), Di = diag(1 / di)
    Du = diag(apply(du, "minv"))
    Di = diag(apply(di, "minv"))
    E = _errors(train, U, V)
    train_hist = [_rmse(E) * scale]
    test_hist = [_rmse(_errors(test, U, V)) * scale] if test is not None else []
    shrink = 1.0 - lr * reg
    it = 0
    if start is not None:
        # U, V and the histories after iteration k: the descent goes on with k + 1
        it = start.iteration
        U = Matrix.from_dense(start.arrays["U"]).to(device)
        V = Matrix.from_dense(start.arrays["V"]).to(device)
        E = _errors(train, U, V)
        train_hist = [float(x) for x in start.values["train_rmse"]]
        test_hist = [float(x) for x in start.values["rmse"]]
    done = start is not None and bool(start.values["converged"])
    first, last = it + 1, (it if done else max_iter)
    with Progress(call, enabled=progress, total=max_iter) as report:
        for it in range(first, last + 1):
            # gU = diag(1/du) (E plus.times V); gV = diag(1/di) (E' plus.times U)
            gU = mxm(Du, mxm(E, V, "plus_times"), "plus_times")
            gV = mxm(Di, mxm(E.T, U, "plus_times"), "plus_times")
            # U = (1 - lr reg) U + lr gU;  V likewise
            U = ewise_add(apply(U, "times", right=shrink), apply(gU, "times", right=lr), "plus")
            V = ewise_add(apply(V, "times", right=shrink), apply(gV, "times", right=lr), "plus")
            E = _errors(train, U, V)
            train_hist.append(_rmse(E) * scale)
            if test is not None:
                test_hist.append(_rmse(_errors(test, U, V)) * scale)
            held = f", held-out {test_hist[-1]:.4f}" if test_hist else ""
            report.update(it, f"rmse {train_hist[-1]:.4f}{held}")
            converged = bool(tol and train_hist[-2] - train_hist[-1] < tol)
            if callback is not None and not keep_going(callback, IterationState(
                    call, it, train_hist[-1], converged,
                    _saver(it, U, V, train_hist, test_hist, converged, params))):
                break
            if converged:
                break
        report.close(f"{it} iterations, rmse {train_hist[-1]:.4f}"
                     + (f", held-out {test_hist[-1]:.4f}" if test_hist else ""))
    # U V' = s Un Vn': each factor takes sqrt(s)
    Uh = to_numpy(U.to_dense()) * np.sqrt(scale)
    Vh = to_numpy(V.to_dense()) * np.sqrt(scale)
    return CFResult(Uh, Vh, test_hist, train_hist, it)


def _saver(it: int, U, V, train_hist: list, test_hist: list, converged: bool,
           params: dict):
    """The checkpoint maker of iteration ``it``."""
    from .checkpoint import Checkpoint, host

    return lambda: Checkpoint(
        "collaborative_filtering", it, {"U": host(U.to_dense()), "V": host(V.to_dense())},
        {"train_rmse": list(train_hist), "rmse": list(test_hist), "converged": converged},
        params)


def _pattern_f64(R):
    from .common import pattern

    return pattern(R, np.float64)
