"""The eigenvector of the largest eigenvalue of a symmetric operator by restarted Lanczos
iterations, for the power iterations whose two leading eigenvalues are close (HITS's
``A' A``; eigenvector centrality's ``A + I`` of an undirected graph, whose Perron root is
its largest eigenvalue).

A power iteration shrinks the error by ``lambda_2 / lambda_1`` per product; on meshes and
road networks that ratio is near 1 (delaunay-n16's ``A' A``: 0.981, so HITS needs about
1,200 iterations for an L1 change of 1e-10).  A Lanczos cycle of ``m`` products builds the
Krylov space of its start, whose best vector converges like the Chebyshev polynomial of
degree ``m``: about ``sqrt(lambda_1 / (lambda_1 - lambda_2))`` products per digit instead
of ``lambda_1 / (lambda_1 - lambda_2)``.

Each cycle keeps its ``m`` basis vectors (orthogonalized twice against all before them,
so no spurious copies of converged vectors appear), takes the Ritz vector of the largest
Ritz value as the next start, and stops on the power iteration's own rule: the L1 change
``|M y / |M y|_2 - y|_1`` of a unit vector ``y`` under one more product.  Device-agnostic:
``xp`` is NumPy or CuPy, and the operator is any function of a dense array.

Reference (ideas): Saad, "Numerical Methods for Large Eigenvalue Problems" (2011), ch. 6
(Lanczos with full reorthogonalization, explicit restarts).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["LANCZOS_BASIS_BYTES", "LANCZOS_STEPS", "cycle_steps", "dominant_eigenvector"]

#: Products per Lanczos cycle (its basis holds this many vectors of the operator's size) ...
LANCZOS_STEPS = 24
#: ... fewer where the basis would take more than this many bytes (at least 4 vectors).
LANCZOS_BASIS_BYTES = 1 << 30


def cycle_steps(n: int, steps: int = LANCZOS_STEPS) -> int:
    """Products per cycle for an operator of size ``n``: ``steps``, fewer where the basis
    of float64 vectors would exceed :data:`LANCZOS_BASIS_BYTES` (never below 4).

    Examples
    --------
    >>> cycle_steps(1_000), cycle_steps(2**25), cycle_steps(2**30)
    (24, 4, 4)
    """
    return max(4, min(steps, LANCZOS_BASIS_BYTES // (8 * max(n, 1))))


def _unit(v, xp):
    nrm = float(xp.sqrt((v * v).sum()))
    return v / (nrm or 1.0)


def dominant_eigenvector(apply: Callable, v0, *, tol: float, budget: int, xp,
                         steps: int | None = None) -> tuple:
    """The unit eigenvector of the largest (algebraic) eigenvalue of the symmetric
    operator ``apply``, from the start ``v0``.

    Parameters
    ----------
    apply : callable
        ``apply(v)`` returns ``M v`` as a new dense float64 array (``xp``'s).
    v0 : array
        The start (any nonzero vector; a power iteration's last iterate is a good one).
    tol : float
        Stop when a unit vector ``y`` moves by less than ``tol`` (L1) under one more
        normalized product: the power iteration's rule.
    budget : int
        Most products.
    xp : module
        NumPy or CuPy.
    steps : int, optional
        Products per cycle (default :func:`cycle_steps` of the operator's size).

    Returns
    -------
    (x, used, err)
        ``x`` the last normalized product ``M y / |M y|_2`` (its sum made non-negative),
        ``used`` the products spent, ``err`` the last L1 change (``err < tol`` when it
        converged within ``budget``).

    Examples
    --------
    >>> M = np.diag([3.0, 2.99, 1.0])
    >>> x, used, err = dominant_eigenvector(lambda v: M @ v, np.ones(3), tol=1e-12,
    ...                                     budget=50, xp=np)
    >>> np.round(x, 8).tolist(), err < 1e-12, used < 50
    ([1.0, 0.0, 0.0], True, True)
    """
    n = int(v0.shape[0])
    steps = cycle_steps(n) if steps is None else steps
    v = _unit(xp.asarray(v0, dtype=np.float64), xp)
    used, err = 0, math.inf
    while used < budget:
        m = max(1, min(steps, budget - used - 1, n))
        basis = xp.empty((m, n))
        basis[0] = v
        # alpha_j, beta_j stay on the device until the cycle ends (one read a cycle, not
        # two a product); past an invariant space (beta_j ~ 0) the basis is zeros
        alphas, betas = [], []
        for j in range(m):
            w = apply(basis[j])
            # w -= V V' w, twice (one pass leaves rounding along the converged vectors)
            c = basis[:j + 1] @ w
            w = w - c @ basis[:j + 1]
            c2 = basis[:j + 1] @ w
            w = w - c2 @ basis[:j + 1]
            alphas.append(c[j] + c2[j])
            betas.append(xp.sqrt((w * w).sum()))
            if j + 1 < m:
                ok = betas[j] > 1e-13 * xp.maximum(xp.abs(alphas[j]), 1e-300)
                basis[j + 1] = (w / xp.where(ok, betas[j], 1.0)) * ok
        alpha, beta = (np.asarray(xp.stack(t).tolist(), dtype=np.float64)
                       for t in (alphas, betas))
        small = np.nonzero(beta <= 1e-13 * np.maximum(np.abs(alpha), 1e-300))[0]
        k = int(small[0]) + 1 if small.size else m  # the space is invariant at k
        used += k  # (the products past it, on zeros, are not counted)
        # the Ritz vector of the largest Ritz value: T s = theta s, y = V s
        T = np.diag(alpha[:k]) + np.diag(beta[:k - 1], 1) + np.diag(beta[:k - 1], -1)
        _, vecs = np.linalg.eigh(T)
        y = _unit(xp.asarray(vecs[:, -1]) @ basis[:k], xp)
        if float(y.sum()) < 0:
            y = -y
        if used >= budget:
            return y, used, err
        # the power rule at y: one more normalized product
        z = _unit(apply(y), xp)
        used += 1
        err = float(xp.abs(z - y).sum())
        v = z
        if err < tol:
            break
    return v, used, err
