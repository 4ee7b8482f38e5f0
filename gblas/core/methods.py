"""Methods of Matrix that run operations: ``A.prepare(...)``; ``A @ x``, ``u @ A`` and
element access come from :mod:`gblas.core.interop`.

The operations import the Matrix class, so these live above both and are attached to the
class when :mod:`gblas.core` is imported.
"""

from __future__ import annotations

import numpy as np

from ..config import config
from ..exceptions import InvalidValue, bad_arg
from .explain import explain
from .interop import matmul, rmatmul  # attaches @, [], ==, np.asarray rules
from .matrix import Matrix
from .operations import mxv
from .vector import Vector

#: Most products :func:`prepare` runs per orientation.
PREPARE_PRODUCTS = 3


def prepare(self, products: int = 100, *, semiring="plus_times",
            directions: tuple[str, ...] = ("A", "A.T")) -> list:
    """Build ahead the formats the planner picks for ``products`` repeated products.

    An iterative algorithm's first products otherwise pay for the preprocessing of a
    faster layout, or stay on CSR when one run cannot pay it back.  ``prepare`` runs the
    product ``A @ ones`` (and ``A.T @ ones``: PageRank's and BFS's orientation) under
    ``gb.config(expected_uses=products)``, so the planner weighs each build against that
    many calls, builds what pays, and keeps it in this Matrix's cache.  A first product
    may only measure what the planner weighs and leave the build to the next call, so
    the product runs again while its plan names a build (at most ``PREPARE_PRODUCTS``,
    3, times per orientation).  Save the result with :func:`gblas.io.save` to pay it
    once for good.

    Parameters
    ----------
    products : int, default 100
        Products expected with this matrix.
    semiring : str or Semiring, default "plus_times"
        The semiring of those products (formats are chosen per value type).
    directions : tuple of {"A", "A.T"}
        The orientations to prepare.

    Returns
    -------
    list of Plan
        The plan of each prepared product (``gb.explain`` of it after preparing).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], shape=(2, 2))
    >>> [p.op for p in A.prepare(10)]
    ['mxv', 'mxv']
    >>> A.has_format("csr", transposed=True)
    True
    """
    call = "Matrix.prepare"
    if isinstance(products, bool) or not isinstance(products, (int, np.integer)) \
            or products < 1:
        raise bad_arg(InvalidValue, call, "products", "an integer >= 1", repr(products))
    bad = [d for d in directions if d not in ("A", "A.T")]
    if bad or not directions:
        raise bad_arg(InvalidValue, call, "directions", "'A' and/or 'A.T'",
                      repr(directions))
    plans = []
    with config(expected_uses=int(products)):
        for d in directions:
            M = self if d == "A" else self.T
            ones = Vector.full(M.shape[1], 1, dtype=self.dtype, device=self.device)
            # a first product may only measure what the planner weighs (the light
            # panels' runs) and plan the build for the next one: run it until the plan
            # builds nothing more (a few products at most)
            for _ in range(PREPARE_PRODUCTS):
                mxv(M, ones, semiring)
                plan = explain(mxv, M, ones, semiring)
                if not any(c.startswith("build ") for c in plan.conversions):
                    break
            plans.append(plan)
    if "A.T" in directions:
        self.csr(transposed=True)  # push over A, pull over A': both orientations
    return plans


Matrix.prepare = prepare

__all__ = ["matmul", "prepare", "rmatmul"]
