"""SciPy and NumPy habits on Matrix and Vector: ``@`` with arrays, element access, and
the conversions and comparisons that must not happen by accident.

What each does (attached to the classes when :mod:`gblas.core` is imported):

``A @ x``
    ``x`` a gb.Vector: ``mxv(A, x, "plus_times")``, a Vector (missing entries stay
    missing).  ``x`` a NumPy or CuPy array: SciPy's meaning, the product with missing
    entries read as 0, returned as an array of the same kind (1-D -> 1-D, 2-D -> 2-D),
    dtype ``np.result_type(A.dtype, x.dtype)``; the array must be on the Matrix's
    device.  ``x`` a gb.Matrix, a ``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix:
    ``mxm``, a gb.Matrix.  ``u @ A`` is the same from the left (``vxm``).
``np.asarray(A)``
    Refused with an error that names the explicit conversions (``A.to_dense(fill=0)``,
    ``A.to_scipy()``): a sparse object has no dense value where it has no entry, and
    NumPy would otherwise make an object array.  Arithmetic with NumPy arrays
    (``x + A``, NumPy ufuncs) is refused too (``__array_ufunc__ = None``), so that
    ``ndarray @ A`` comes here.
``A == B``
    Refused between gblas objects with an error pointing to ``A.isequal(B)`` (value
    equality), ``gb.ewise_mult(A, B, "eq")`` (elementwise) and ``A is B`` (identity);
    against anything else it is identity (``A == None`` is False).  Objects hash by
    identity, so they still work as dict keys and in sets.
``A[i, j]``, ``v[i]``
    The entry's value as a Python scalar, or None where there is no entry (as
    ``A.get(i, j)``; python-graphblas gives ``A[i, j].value``, None when missing);
    negative indices count from the end; an index out of range raises IndexOutOfBound
    naming the index and the shape.  Slices, index lists and arrays select with
    :func:`gblas.extract`: ``A[rows, cols]`` a Matrix, ``A[i, cols]`` / ``A[rows, j]``
    a Vector, ``v[indices]`` a Vector.

Examples
--------
>>> import numpy as np, gblas as gb
>>> A = gb.Matrix.from_coo([0, 1], [1, 2], [2.0, 3.0], shape=(3, 3))
>>> (A @ np.ones(3)).tolist()
[2.0, 3.0, 0.0]
>>> A[0, 1], A[0, 0], A[-2, -1]
(2.0, None, 3.0)
>>> A.isequal(A.dup())
True
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._device import device_of, is_cupy_array, xp_for
from ..backends.registry import VecData
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg
from ..formats import CSR
from ._check import check_index
from .matrix import Matrix, TransposedMatrix
from .operations import mxm, mxv, vxm
from .structure import extract
from .vector import Vector

__all__ = ["matmul", "rmatmul"]

_GB = (Matrix, TransposedMatrix, Vector)


def _is_sparse(x) -> bool:
    """A ``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix or array (no import)."""
    mod = type(x).__module__
    return mod.startswith("scipy.sparse") or mod.startswith("cupyx.scipy.sparse")


def _what(x) -> str:
    return f"{type(x).__module__.split('.')[0]}.{type(x).__name__}"


def _dense_as_matrix(X) -> Matrix:
    """A 2-D array (NumPy or CuPy) as a Matrix with every entry present, its CSR made
    straight from the array on its device."""
    xp = xp_for(device_of(X))
    k, n = X.shape
    nnz = k * n
    indptr = xp.arange(0, nnz + 1, max(n, 1), dtype=dtypes.index_dtype(nnz))[:k + 1]
    if n == 0:
        indptr = xp.zeros(k + 1, dtype=dtypes.index_dtype(0))
    indices = xp.tile(xp.arange(n, dtype=dtypes.index_dtype(n)), k)
    dt = dtypes.lookup(X.dtype, "A @ X")
    values = xp.ascontiguousarray(X.astype(dt, copy=True).reshape(-1))
    return Matrix(CSR((k, n), indptr, indices, values, dt, None, device_of(X)))


def _dense_product(A, X, call: str, left: bool):
    """``A @ X`` (or ``X @ A`` when ``left``) for a dense array ``X``: SciPy's product,
    missing entries read as 0, an array of ``X``'s kind."""
    dev = device_of(X)
    if dev != A.device:
        raise bad_arg(InvalidValue, call, "x", f"an array on the Matrix's device "
                      f"({A.device!r})", f"a {'CuPy' if dev == 'gpu' else 'NumPy'} array",
                      f"Move one of them: A.to({dev!r}), or the array to {A.device!r}.")
    if X.ndim not in (1, 2):
        raise bad_arg(DimensionMismatch, call, "x", "a 1-D or 2-D array",
                      f"shape {X.shape}")
    m, n = A.shape
    inner = m if left else n
    at = X.shape[-1] if left else X.shape[0]
    if at != inner:
        side = "columns" if left and X.ndim == 2 else "entries" if X.ndim == 1 else "rows"
        raise bad_arg(DimensionMismatch, call, "x", f"{inner} {side} (A is {m} x {n})",
                      f"shape {X.shape}")
    out_dt = np.result_type(A.dtype, X.dtype)
    if X.ndim == 1:
        x = Vector.from_dense(X)
        y = vxm(x, A, "plus_times") if left else mxv(A, x, "plus_times")
        return y.to_dense(fill=0).astype(out_dt, copy=False)
    if left:
        # X @ A = (A' X')'
        return _dense_product(A.T, X.T, call, False).T
    C = mxm(A, _dense_as_matrix(X), "plus_times")
    return C.to_dense(fill=0).astype(out_dt, copy=False)


def matmul(self, other):
    """``A @ x``: a Vector for a Vector (``mxv``), an array for an array (SciPy's
    product), a Matrix for a Matrix or a SciPy / CuPy sparse matrix (``mxm``); all over
    ``plus_times``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [2, 3], shape=(2, 2))
    >>> (A @ gb.Vector.from_dense([1, 1])).to_dense().tolist()
    [2, 3]
    >>> (A @ np.array([[1.0, 0.0], [0.0, 1.0]])).tolist()
    [[0.0, 2.0], [3.0, 0.0]]
    >>> (A @ sp.eye_array(2)).to_coo()[2].tolist()
    [2.0, 3.0]
    """
    call = "A @ x"
    if isinstance(other, (Matrix, TransposedMatrix)):
        return mxm(self, other, "plus_times")
    if isinstance(other, Vector):
        return mxv(self, other, "plus_times")
    if isinstance(other, np.ndarray) or is_cupy_array(other):
        return _dense_product(self, other, call, left=False)
    if _is_sparse(other):
        return mxm(self, Matrix.from_scipy(other), "plus_times")
    if isinstance(other, (list, tuple)):
        return _dense_product(self, np.asarray(other), call, left=False)
    raise bad_arg(InvalidObject, call, "x", "a gb.Vector, gb.Matrix, NumPy or CuPy array, "
                  "or scipy.sparse matrix", _what(other))


def rmatmul(self, other):
    """``u @ A``: a Vector for a Vector (``vxm``), an array for an array (SciPy's
    product), a Matrix for a sparse matrix.

    Examples
    --------
    >>> import numpy as np, gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [2, 3], shape=(2, 2))
    >>> (np.array([1, 10]) @ A).tolist()
    [30, 2]
    """
    call = "u @ A"
    if isinstance(other, Vector):
        return vxm(other, self, "plus_times")
    if isinstance(other, np.ndarray) or is_cupy_array(other):
        return _dense_product(self, other, call, left=True)
    if _is_sparse(other):
        return mxm(Matrix.from_scipy(other), self, "plus_times")
    if isinstance(other, (list, tuple)):
        return _dense_product(self, np.asarray(other), call, left=True)
    raise bad_arg(InvalidObject, call, "u", "a gb.Vector, NumPy or CuPy array, or "
                  "scipy.sparse matrix", _what(other))


def _refuse_array(self, dtype=None, copy=None):
    kind = type(self).__name__
    raise bad_arg(InvalidObject, "np.asarray", "a", "an array-like",
                  f"a gb.{kind}, which NumPy cannot convert implicitly (a sparse object "
                  "has no value where it has no entry)",
                  "Convert explicitly: .to_dense(fill=0) for a NumPy array"
                  + (", .to_scipy() for a SciPy sparse array." if kind != "Vector" else
                     " (fill is what missing entries become), .to_coo() for the entries."))


def _refuse_eq(self, other, op: str = "=="):
    if not isinstance(other, _GB):
        return NotImplemented
    kind = type(self).__name__
    raise bad_arg(InvalidObject, f"{kind}.__eq__" if op == "==" else f"{kind}.__ne__",
                  "other", "no comparison: `==` between gblas objects is not defined",
                  f"{kind} {op} {type(other).__name__}",
                  "Use A.isequal(B) for value equality, gb.ewise_mult(A, B, 'eq') (or "
                  "ewise_add) for an elementwise comparison, `A is B` for identity.")


def _refuse_ne(self, other):
    return _refuse_eq(self, other, "!=")


def _index_array(key, n: int, call: str, arg: str, shape: tuple) -> np.ndarray:
    """A slice, list, NumPy integer or bool array as int64 indices (negative ones from
    the end)."""
    if isinstance(key, slice):
        return np.arange(*key.indices(n), dtype=np.int64)
    arr = np.asarray(key.get() if is_cupy_array(key) else key)
    if arr.dtype == np.bool_:
        if arr.shape != (n,):
            raise bad_arg(DimensionMismatch, call, arg, f"a bool array of length {n}",
                          f"shape {arr.shape}")
        return np.flatnonzero(arr).astype(np.int64)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise bad_arg(InvalidObject, call, arg, "an int, a slice, or a 1-D array of ints "
                      "or bools", f"dtype {arr.dtype}, shape {arr.shape}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < -n or arr.max() >= n):
        bad = int(arr.min()) if arr.min() < -n else int(arr.max())
        check_index(bad, n, call, arg, shape)
    return np.where(arr < 0, arr + n, arr)


def _vector_of(M: Matrix, along_rows: bool) -> Vector:
    """A 1 x k (``along_rows``) or k x 1 Matrix as a Vector of size k, on its device."""
    c = M.csr()
    size = M.shape[1] if along_rows else M.shape[0]
    idx = c.indices.astype(np.int64) if along_rows else c.row_indices()
    return Vector(VecData(size, idx, c.dense_values().copy(), None), M.dtype, M.device)


def matrix_getitem(self, key):
    """``A[i, j]``: a Python scalar or None; ``A[rows, cols]``: a Matrix; ``A[i, cols]``,
    ``A[rows, j]``: a Vector (slices, int lists or arrays, bool arrays).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 2], [5, 6, 7], shape=(2, 3))
    >>> A[1, 2], A[0, 0]
    (7, None)
    >>> A[1, :].to_dense().tolist(), A[:, 0].to_dense().tolist()
    ([6, 0, 7], [0, 6])
    >>> A[[1, 0], 1:].to_dense().tolist()
    [[0, 7], [5, 0]]
    """
    call = "A[i, j]"
    if not isinstance(key, tuple):
        key = (key, slice(None))
    if len(key) != 2:
        raise bad_arg(DimensionMismatch, call, "key", "two indices (row, column)",
                      f"{len(key)} indices")
    i, j = key
    m, n = self.shape
    i_int = isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
    j_int = isinstance(j, (int, np.integer)) and not isinstance(j, (bool, np.bool_))
    if i_int and j_int:
        base, t = (self, False) if isinstance(self, Matrix) else (self.parent, True)
        i = check_index(i, m, call, "i", self.shape)
        j = check_index(j, n, call, "j", self.shape)
        return base.get(j, i) if t else base.get(i, j)
    rows = (np.array([check_index(i, m, call, "i", self.shape)]) if i_int
            else _index_array(i, m, call, "i", self.shape))
    cols = (np.array([check_index(j, n, call, "j", self.shape)]) if j_int
            else _index_array(j, n, call, "j", self.shape))
    sub = extract(self, rows, cols)
    if i_int:
        return _vector_of(sub, along_rows=True)
    if j_int:
        return _vector_of(sub, along_rows=False)
    return sub


def vector_getitem(self, key):
    """``v[i]``: a Python scalar or None; ``v[indices]`` (a slice, int list or array, bool
    array): a Vector.

    Examples
    --------
    >>> import gblas as gb
    >>> v = gb.Vector.from_coo([1, 3], [10, 30], size=5)
    >>> v[1], v[0], v[-2]
    (10, None, 30)
    >>> v[1:4].to_dense(fill=-1).tolist()
    [10, -1, 30]
    """
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return self.get(check_index(key, self.size, "v[i]", "i", self.shape))
    return extract(self, _index_array(key, self.size, "v[i]", "i", self.shape))


for _cls in (Matrix, TransposedMatrix, Vector):
    _cls.__array__ = _refuse_array
    _cls.__array_ufunc__ = None
    _cls.__eq__ = _refuse_eq
    _cls.__ne__ = _refuse_ne
    _cls.__hash__ = object.__hash__  # identity hash, deliberately (see the module doc)
for _cls in (Matrix, TransposedMatrix):
    _cls.__matmul__ = matmul
    _cls.__rmatmul__ = rmatmul
    _cls.__getitem__ = matrix_getitem
Vector.__getitem__ = vector_getitem
