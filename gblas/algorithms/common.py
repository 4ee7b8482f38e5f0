"""Helpers the algorithms share: argument checks and the graph forms they build from a Matrix.

Examples
--------
>>> import gblas as gb
>>> from gblas.algorithms.common import undirected
>>> A = gb.Matrix.from_coo([0], [1], shape=(2, 2))
>>> undirected(A).nvals
2
"""

from __future__ import annotations

import numpy as np

from ..core.matrix import Matrix, TransposedMatrix
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue, bad_arg

__all__ = ["check_no_nan", "check_vertex", "coo", "diag", "host_csr", "is_symmetric",
           "on_device", "pattern", "square_matrix", "undirected", "vertex_ids"]


def square_matrix(A, call: str, arg: str = "A"):
    """The argument as a square gb.Matrix (a ``.T`` view or a SciPy matrix is accepted)."""
    if not isinstance(A, (Matrix, TransposedMatrix)):
        if hasattr(A, "tocsr") and hasattr(A, "shape"):
            A = Matrix.from_scipy(A)
        else:
            raise bad_arg(InvalidObject, call, arg, "a gb.Matrix (or a scipy.sparse matrix)",
                          type(A).__name__)
    if len(A.shape) != 2 or A.shape[0] != A.shape[1]:
        raise bad_arg(DimensionMismatch, call, arg, "a square adjacency matrix",
                      f"shape {A.shape[0]} x {A.shape[1]}")
    return A


def check_vertex(value, n: int, call: str, arg: str) -> int:
    """Validate a vertex id: an integer in ``[0, n)``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise bad_arg(InvalidValue, call, arg, "an integer vertex id", type(value).__name__)
    value = int(value)
    if value < 0:
        raise bad_arg(InvalidValue, call, arg, "a vertex id >= 0", str(value))
    if value >= n:
        raise bad_arg(IndexOutOfBound, call, arg, f"a vertex id in [0, {n})", str(value))
    return value


def host_csr(csr, device: str = "cpu", *, pinned: bool = False):
    """``csr`` on ``device``: itself there, else its copy kept with it, so that the calls
    reusing a Matrix pay the transfer once; a Matrix written to has a new storage, and a
    new copy.  ``pinned``: a GPU's copy on the host through page-locked memory (the heap
    Dijkstra's; the host routes of whole algorithms keep the pageable copy they made
    before: with pinned ones a run was 1-2 ms slower at Kronecker 12, within the spread
    the same code showed between runs)."""
    if csr.device == device:
        return csr
    from ..planner.cost import summary

    memo = summary(csr)
    key = ("host_copy", device, pinned)
    copy = memo.get(key)
    if copy is None:
        copy = memo[key] = csr.to_device(device, pinned=pinned)
    return copy


def on_device(A, device: str):
    """``A`` on ``device`` for a plan's host route: itself there, else a Matrix over
    :func:`host_csr`, kept with ``A``'s storage as well (its own derived formats, such as
    the transpose, are then built once).  A ``.T`` view and a hypersparse Matrix are
    moved as :meth:`Matrix.to` moves them, each call.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0], [1], shape=(2, 2))
    >>> on_device(A, "cpu") is A
    True
    """
    if A.device == device:
        return A
    if not isinstance(A, Matrix) or A.is_hypersparse:
        return A.to(device)
    from ..planner.cost import summary

    memo = summary(A.csr())
    M = memo.get(("host_matrix", device))
    if M is None:
        M = Matrix(host_csr(A.csr(), device))
        if A.known_symmetric:
            M = M._mark_symmetric()
        memo[("host_matrix", device)] = M
    return M


def vertex_ids(n: int, device: str = "cpu"):
    """``id(i) = i`` as a dense int64 Vector on ``device``."""
    from ..core import Vector

    return Vector.from_dense(np.arange(n, dtype=np.int64)).to(device)


def coo(A, no_diagonal: bool = False):
    """``(rows, cols)`` of A's entries as NumPy arrays (GrB_extractTuples)."""
    from .._device import to_numpy

    r, c, _ = A.to_coo()
    r, c = to_numpy(r), to_numpy(c)
    if no_diagonal:
        keep = r != c
        r, c = r[keep], c[keep]
    return r, c


def pattern(A, dtype=np.bool_, *, no_diagonal: bool = False):
    """The structure of ``A`` as an iso Matrix of ``dtype`` ones (GrB_build of A's tuples).

    Explicit zeros of ``A`` are entries, as everywhere in GraphBLAS.
    """
    r, c = coo(A, no_diagonal)
    value = True if np.dtype(dtype) == np.bool_ else np.dtype(dtype).type(1)
    return Matrix.from_coo(r, c, value, shape=A.shape, dtype=dtype).to(A.device)


def undirected(A, dtype=np.bool_, *, no_diagonal: bool = False, multiplicity=False):
    """``S = P + P'`` for the pattern ``P`` of A: the undirected graph of A.

    With ``multiplicity`` the values count the directions an edge exists in (1 or 2), as
    NetworkX counts a reciprocated edge of a DiGraph twice; otherwise every value is 1.
    A CPU Matrix adds the rows of ``P`` and of its transpose by merges, in linear time;
    otherwise one GrB_build of the tuples of both directions (a sort) combines them.
    """
    dt = np.dtype(dtype)
    if type(A) is Matrix and A.device == "cpu" and not A.is_hypersparse:
        return _undirected_by_merge(A, dt, no_diagonal, multiplicity)
    r, c = coo(A, no_diagonal)
    rows, cols = np.concatenate([r, c]), np.concatenate([c, r])
    if multiplicity:
        # S = build(P + P', dup = plus): 2 where both directions exist
        S = Matrix.from_coo(rows, cols, np.ones(rows.size, dtype=dt), shape=A.shape,
                            dup_op="plus")
    else:
        # S = build(P + P', dup = any): the union
        value = True if dt == np.bool_ else dt.type(1)
        S = Matrix.from_coo(rows, cols, value, shape=A.shape, dtype=dt, dup_op="any")
    return S.to(A.device)


def _undirected_by_merge(A, dt: np.dtype, no_diagonal: bool, multiplicity: bool):
    """``P + P'`` of a CPU Matrix: the rows of ``P`` and of its transpose merged (the
    registered CSR union), the multiplicity counted from the merge's positions."""
    from ..backends.registry import get_kernel
    from ..formats import CSR

    one = True if dt == np.bool_ else dt.type(1)
    csr = A.csr()
    ptr, idx = csr.indptr, csr.indices
    if no_diagonal:
        rows = csr.row_indices()
        keep = idx != rows
        if not keep.all():
            # P = offdiag(pattern(A))
            idx = idx[keep]
            ptr = np.zeros(A.shape[0] + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows[keep], minlength=A.shape[0]), out=ptr[1:])
    # P, iso ones (its arrays A's own where nothing is dropped: P is only read here)
    PT = Matrix(CSR(A.shape, ptr, idx, None, dt, one, "cpu")).csr(transposed=True)
    # S = P + P': the rows of P and P' merged; where both hold an entry it counts 2
    sptr, sidx, pa, pb = get_kernel("merge_union", "csr", "cpu")(ptr, idx, PT.indptr,
                                                                  PT.indices)
    if not multiplicity:
        return Matrix(CSR(A.shape, sptr, sidx, None, dt, one, "cpu"))
    values = (pa >= 0).astype(dt) + (pb >= 0).astype(dt)
    return Matrix(CSR(A.shape, sptr, sidx, values, dt, None, "cpu"))


def is_symmetric(A, values: bool = False) -> bool:
    """Whether the pattern of ``A`` (and its values, with ``values``) equals ``A'``'s."""
    if A.nvals == 0 or getattr(A, "known_symmetric", False):
        return True
    # A == A': the CSR of A against the (cached) CSR of A'
    return A.isequal(A.T, values=values)


def check_no_nan(A, call: str, arg: str = "A") -> None:
    """Raise InvalidValue when a float Matrix holds NaN values."""
    from ..core import reduce, select

    if np.dtype(A.dtype).kind != "f" or A.nvals == 0:
        return
    # total = sum(A): NaN when a value is NaN (or +inf meets -inf), a number otherwise;
    # one pass over the values screens out the common case
    if not np.isnan(reduce(A, "plus")):
        return
    # nan = select(A, v != v): the NaN entries
    nans = select(A, lambda i, j, v, t: v != v)
    if nans.nvals:
        r, c, _ = nans.to_coo()
        raise bad_arg(InvalidValue, call, arg, "edge weights that are not NaN",
                      f"{nans.nvals} NaN weight(s), e.g. at ({int(r[0])}, {int(c[0])})",
                      "Drop them first: gb.select(A, lambda i, j, v, t: v == v).")


def diag(d):
    """The diagonal matrix ``diag(d)`` of a Vector (entries only where ``d`` has them)."""
    from .._device import to_numpy
    idx, vals = d.to_coo()
    idx = to_numpy(idx)
    return Matrix.from_coo(idx, idx, to_numpy(vals), shape=(d.size, d.size)).to(d.device)
