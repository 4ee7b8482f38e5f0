"""Input of :mod:`gblas.csgraph`: SciPy's graph conventions turned into a gb.Matrix.

Examples
--------
>>> import numpy as np
>>> from gblas.csgraph._input import as_graph
>>> A, kind = as_graph(np.array([[0, 2], [np.inf, 0]]), "example")
>>> A.nvals, kind
(1, 'array')
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError as _SciPyNegativeCycleError

from .._device import to_numpy
from ..algorithms.common import check_no_nan
from ..core.matrix import Matrix, TransposedMatrix
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg

NULL = -9999


class NegativeCycleError(InvalidValue, _SciPyNegativeCycleError):
    """A negative cycle makes the shortest paths undefined.

    Subclasses both :class:`gblas.InvalidValue` and SciPy's
    ``scipy.sparse.csgraph.NegativeCycleError``, so either ``except`` clause catches it.
    """




def as_graph(csgraph, call: str, *, directed: bool = True, unweighted: bool = False,
           check_nan: bool = True):
    """``(A, kind)``: the graph as a float64 gb.Matrix under SciPy's conventions, and
    the kind of input ("sparray", "spmatrix", "array" or "gblas"); ``check_nan``: NaN
    weights of sparse input raise (for the weighted searches)."""
    kind = "array"
    csgraph = from_pydata(csgraph, call)
    if isinstance(csgraph, TransposedMatrix):
        csgraph = csgraph.materialize()
    if isinstance(csgraph, Matrix):
        A = csgraph if csgraph.dtype == np.float64 else csgraph.dup(np.float64)
        kind = "gblas"
    elif sp.issparse(csgraph):
        kind = "spmatrix" if isinstance(csgraph, sp.spmatrix) else "sparray"
        if len(csgraph.shape) != 2 or csgraph.shape[0] != csgraph.shape[1]:
            raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                          f"shape {csgraph.shape}")
        A = Matrix.from_scipy(sp.csr_array(csgraph, dtype=np.float64))
    else:
        masked = np.ma.isMaskedArray(csgraph)
        try:
            arr = np.asarray(np.ma.getdata(csgraph) if masked else csgraph, dtype=np.float64)
        except (TypeError, ValueError):
            raise bad_arg(InvalidObject, call, "csgraph", "a sparse matrix, an array-like or "
                          "a gb.Matrix", type(csgraph).__name__) from None
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                          f"shape {arr.shape}")
        edge = (arr != 0) & np.isfinite(arr)
        if masked:
            edge &= ~np.ma.getmaskarray(csgraph)
        r, c = np.nonzero(edge)
        A = Matrix.from_coo(r, c, arr[r, c], shape=arr.shape)
    if A.shape[0] != A.shape[1]:
        raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                      f"shape {A.shape}")
    if check_nan:
        check_no_nan(A, call, "csgraph")
    return prepare_graph(A, directed=directed, unweighted=unweighted), kind


def is_pydata(x) -> bool:
    """Whether ``x`` is a pydata/sparse array (it has ``to_scipy_sparse`` and no
    SciPy sparse base)."""
    return not sp.issparse(x) and hasattr(x, "to_scipy_sparse") and hasattr(x, "fill_value")


def from_pydata(x, call: str):
    """A pydata/sparse graph as a SciPy COO array (its stored entries are the edges, as
    in SciPy, whose fill value may be 0, ``inf`` or ``NaN``); anything else as given."""
    if not is_pydata(x):
        return x
    fill = x.fill_value
    if not (fill == 0 or np.isinf(fill) and fill > 0 or np.isnan(fill)):
        raise bad_arg(InvalidValue, call, "csgraph", "a pydata/sparse array whose "
                      "fill_value is 0, inf or nan", f"fill_value={fill}",
                      "Set the fill value of the array, e.g. x.fill_value = 0.")
    c = x.tocoo() if hasattr(x, "tocoo") else x.asformat("coo")
    if c.ndim != 2:
        raise bad_arg(DimensionMismatch, call, "csgraph", "a square (N, N) graph",
                      f"shape {c.shape}")
    return sp.coo_array((np.asarray(c.data), (c.coords[0], c.coords[1])), shape=c.shape)


def prepare_graph(A, *, directed: bool, unweighted: bool):
    """Unit weights for ``unweighted``; both directions, the smaller weight, for
    ``directed=False`` (one GrB_build of the tuples of A and A', duplicates by min)."""
    if not unweighted and directed:
        return A
    r, c, v = (to_numpy(x) for x in A.to_coo())
    if unweighted:
        v = np.ones(r.size)
    if not directed:
        r, c, v = np.concatenate([r, c]), np.concatenate([c, r]), np.concatenate([v, v])
    return Matrix.from_coo(r, c, v, shape=A.shape, dup_op="min").to(A.device)


def source_indices(indices, n: int, call: str):
    """``(flat int64 array, output shape prefix)``; negative ids wrap as in SciPy."""
    if indices is None:
        return np.arange(n, dtype=np.int64), (n,)
    arr = np.asarray(indices)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0):
            arr = arr.astype(np.int64)
        else:
            raise bad_arg(InvalidValue, call, "indices", "vertex ids (integers)",
                          f"dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < -n or arr.max() >= n):
        raise bad_arg(InvalidValue, call, "indices", f"ids in [-{n}, {n}) (indices out of "
                      "range 0...N)", str(int(arr.max() if arr.max() >= n else arr.min())))
    shape = arr.shape
    flat = arr.ravel().copy()
    flat[flat < 0] += n
    return flat, shape


def check_vertex(i, n: int, call: str, arg: str) -> int:
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise bad_arg(InvalidValue, call, arg, "an integer vertex id", type(i).__name__)
    if not 0 <= int(i) < n:
        raise bad_arg(InvalidValue, call, arg, f"a vertex id in [0, {n})", str(int(i)))
    return int(i)


def has_negative_weights(A) -> bool:
    """Whether a weight is negative: the minimum of the values (one pass over them)."""
    from ..core import reduce

    if A.nvals == 0 or np.dtype(A.dtype).kind in "bu":
        return False
    return bool(reduce(A, "min") < 0)

