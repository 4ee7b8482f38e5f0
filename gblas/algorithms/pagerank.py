"""PageRank by power iteration, as NetworkX defines it, in gblas operations.

Notation: ``A`` the adjacency matrix (``A(i, j)`` for an edge ``i -> j``, its value the
edge weight), ``d`` the weighted out-degree, ``r`` the ranks, ``p`` the personalization
(teleport) distribution, ``alpha`` the damping factor.  One iteration is

    r' = alpha * A' (r ./ d) + (alpha * sum(r over dangling) + 1 - alpha) * p

where the dangling vertices (no out-edge) give their rank back through ``p``, as NetworkX
does; it stops when ``|r' - r|_1 < n * tol`` (NetworkX's criterion).  The product over
``A'`` is a pull SpMV: each vertex gathers from its in-neighbours.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import DimensionMismatch, GraphBLASError, InvalidObject, InvalidValue, bad_arg
from ._progress import Progress
from .bfs import _square_matrix

__all__ = ["pagerank", "PowerIterationFailedConvergence"]


class PowerIterationFailedConvergence(GraphBLASError, RuntimeError):
    """The power iteration did not reach the tolerance within ``max_iter`` iterations.

    The last iterate is in ``.ranks`` and the iteration count in ``.iterations``.
    """

    def __init__(self, message: str, ranks=None, iterations: int = 0) -> None:
        super().__init__(message)
        self.ranks = ranks
        self.iterations = iterations


def _personalization(p, n: int, call: str) -> np.ndarray:
    """A dense, non-negative float64 array summing to 1 from a Vector, dict or array."""
    from .. import Vector

    if isinstance(p, Vector):
        if p.size != n:
            raise bad_arg(DimensionMismatch, call, "personalization",
                          f"a Vector of size {n}", f"size {p.size}")
        arr = np.asarray(p.to_dense(fill=0), dtype=np.float64)
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
            arr = np.asarray(p, dtype=np.float64)
        except (TypeError, ValueError):
            raise bad_arg(InvalidObject, call, "personalization",
                          "a gb.Vector, a dict {vertex: weight} or an array",
                          type(p).__name__) from None
        if arr.shape != (n,):
            raise bad_arg(DimensionMismatch, call, "personalization",
                          f"an array of shape ({n},)", f"shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise bad_arg(InvalidValue, call, "personalization", "finite weights >= 0",
                      "negative, NaN or infinite weights")
    total = arr.sum()
    if total <= 0:
        raise bad_arg(InvalidValue, call, "personalization", "weights with a positive sum",
                      "all zeros")
    return arr / total


def pagerank(A, damping: float = 0.85, tol: float = 1e-4, max_iter: int = 100,
             personalization=None, progress: bool = False):
    """PageRank of every vertex (NetworkX's definition and convergence criterion).

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix, ``A[i, j]`` for an edge ``i -> j``.  Values are edge
        weights (as NetworkX's ``weight`` attribute); a bool (pattern) matrix counts edges.
    damping : float, default 0.85
        Probability of following an edge (NetworkX's ``alpha``), in [0, 1].
    tol : float, default 1e-4
        Stop when the L1 change of the ranks is below ``n * tol`` (NetworkX's criterion;
        its default is ``tol=1e-6``).
    max_iter : int, default 100
        Most iterations before :class:`PowerIterationFailedConvergence` is raised.
    personalization : gblas.Vector, dict or array, optional
        Teleport distribution (normalized to sum 1; missing vertices weigh 0).  Dangling
        vertices also redistribute their rank along it, as in NetworkX.  Default uniform.
    progress : bool, default False
        Report each iteration's L1 change on stderr.

    Returns
    -------
    gblas.Vector of float64
        Dense ranks summing to 1.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square, or ``personalization`` has the wrong size.
    InvalidValue
        A parameter is out of range.
    PowerIterationFailedConvergence
        No convergence within ``max_iter`` iterations.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], shape=(4, 4))
    >>> r = gb.algorithms.pagerank(A)
    >>> [round(float(x), 4) for x in r.to_dense()]
    [0.3175, 0.3175, 0.3175, 0.0476]
    """
    from .. import Vector, apply, ewise_add, ewise_mult, mxv, reduce

    call = "pagerank"
    A = _square_matrix(A, call)
    n = A.shape[0]
    if isinstance(damping, bool) or not isinstance(damping, (int, float, np.floating)) \
            or not 0.0 <= float(damping) <= 1.0:
        raise bad_arg(InvalidValue, call, "damping", "a number in [0, 1]", repr(damping))
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) \
            or not float(tol) > 0.0:
        raise bad_arg(InvalidValue, call, "tol", "a number > 0", repr(tol))
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) \
            or max_iter < 1:
        raise bad_arg(InvalidValue, call, "max_iter", "an integer >= 1", repr(max_iter))
    alpha = float(damping)
    dev = A.device  # every vector lives where the matrix does
    if n == 0:
        return Vector.empty(0, np.float64, device=dev)
    # a pattern (bool) matrix multiplies by "1 per edge": the second operator skips A's
    # values; a valued matrix multiplies by its weights
    mul = "plus_second" if A.dtype == np.bool_ else "plus_times"
    ones = Vector.from_dense(np.ones(n, dtype=np.float64)).to(dev)
    # d = A (+.x) 1: the weighted out-degree (plus_pair, the entry count, for a pattern);
    # dangling vertices get no entry
    d = mxv(A, ones, "plus_pair" if A.dtype == np.bool_ else mul)
    # w<d> = alpha ./ d: the value mask leaves zero-weight rows dangling, as NetworkX does
    w = apply(d, "div", left=alpha, mask=d.V)
    dangling = w.nvals < n
    if dangling:
        zeros = apply(ones, "times", right=0.0)
        # z = 1 where a vertex is dangling, 0 elsewhere (full): m = r' z is their rank
        z = ewise_add(apply(ones, "identity", mask=~w.S), zeros, "first")
        # w = 0 at dangling vertices (full): s = r .* w below stays full, no index arrays
        w = ewise_add(w, zeros, "first")
    if personalization is None:
        p = Vector.from_dense(np.full(n, 1.0 / n)).to(dev)
    else:
        p = Vector.from_dense(_personalization(personalization, n, call)).to(dev)
    # r = 1/n (the uniform p itself: no operation writes into r)
    r = p if personalization is None else Vector.from_dense(np.full(n, 1.0 / n)).to(dev)
    AT = A.T
    err = np.inf
    with Progress(call, enabled=progress, total=max_iter) as report:
        for it in range(1, max_iter + 1):
            # s = r .* w: each vertex's damped rank split over its out-edges (dangling: 0)
            s = ewise_mult(r, w, "times")
            # m = sum(r .* z): the rank held by dangling vertices
            m = float(reduce(ewise_mult(r, z, "times"), "plus")) if dangling else 0.0
            # r' = (alpha m + 1 - alpha) p: teleport and dangling rank, spread along p
            new = apply(p, "times", right=alpha * m + 1.0 - alpha)
            # r' += A' (+.x) s: the pull SpMV, each vertex gathers from its in-neighbours
            mxv(AT, s, mul, accum="plus", out=new)
            # e = |r' - r|_1 (both dense: the intersection is every vertex)
            err = float(reduce(apply(ewise_mult(new, r, "minus"), "abs"), "plus"))
            r = new
            report.update(it, f"L1 change {err:.2e}")
            if err < n * tol:
                report.close(f"{it} iterations, L1 change {err:.2e}")
                return r
        report.close(f"no convergence, L1 change {err:.2e}")
    raise PowerIterationFailedConvergence(
        f"{call}: no convergence within max_iter={max_iter} iterations (L1 change {err:.3g}, "
        f"needed < n * tol = {n * tol:.3g}). Raise max_iter or tol.", r, max_iter)
