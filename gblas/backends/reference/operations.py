"""Reference operations: each computes the result ``T`` entry by entry, then writes it back
with :func:`write_back` (``out<mask, replace> (+)= T``, DESIGN §2).

These functions never modify their arguments: ``out`` is copied and the new output is
returned.  Operators, monoids and semirings are given as objects or names, as in the API.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ... import dtypes
from ...semirings import builtin
from .objects import RefMask, RefMatrix, RefVector
from .scalars import cast, eval_binary, eval_unary, monoid_fold, scalar_dtype, to_python

__all__ = [
    "SELECT_OPS",
    "apply",
    "assign",
    "ewise_add",
    "ewise_mult",
    "extract",
    "mxm",
    "mxv",
    "reduce",
    "select",
    "transpose",
    "vxm",
    "write_back",
]


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError("reference: " + msg)


# ------------------------------------------------------------------------- write-back


def write_back(out, T, mask: RefMask | None = None, accum=None, replace: bool = False):
    """``out<mask, replace> (+)= T`` (GraphBLAS C API 2.0 write-back), as a new object.

    1. ``Z = T`` without ``accum``, else ``Z = out (+) T`` on the union of patterns, where
       both are present computed in ``unify(out.dtype, T.dtype)``; Z is cast to out's dtype.
    2. Where the mask is true, ``out`` takes Z's entry or loses its own when Z has none.
    3. Where the mask is false, ``out`` keeps its entry, unless ``replace`` deletes it.

    ``out=None`` stands for a new empty object of T's shape and dtype.

    Examples
    --------
    >>> out = RefVector.from_dict(3, {0: 1, 1: 1}, "int64")
    >>> T = RefVector.from_dict(3, {1: 5, 2: 7}, "int64")
    >>> write_back(out, T, accum="plus").data
    {0: np.int64(1), 1: np.int64(6), 2: np.int64(7)}
    """
    if out is None:
        out = T.empty_like()
    _check(tuple(out.shape) == tuple(T.shape), f"out shape {out.shape} != result {T.shape}")
    if mask is not None:
        _check(tuple(mask.shape) == tuple(T.shape), "mask shape differs from the output")
    odt = out.dtype
    if accum is None:
        Z = {k: cast(v, odt) for k, v in T.data.items()}
    else:
        op = builtin.binary_op(accum, "reference", "accum")
        cdt = dtypes.unify(odt, T.dtype)
        Z = {}
        for k in set(out.data) | set(T.data):
            if k in out.data and k in T.data:
                z = eval_binary(op, cast(out.data[k], cdt), cast(T.data[k], cdt), cdt)
            elif k in out.data:
                z = out.data[k]
            else:
                z = T.data[k]
            Z[k] = cast(z, odt)
    result = {}
    for k in set(out.data) | set(Z):
        if mask is None or mask(k):
            if k in Z:
                result[k] = Z[k]
        elif not replace and k in out.data:
            result[k] = out.data[k]
    new = out.empty_like()
    new.data = dict(sorted(result.items()))
    return new


def _finish(T, mask, accum, out, replace):
    return write_back(out, T, mask=mask, accum=accum, replace=replace)


# --------------------------------------------------------------------------- products


def _semiring_dot(s, pairs, types):
    """``add_k mul(a_k, b_k)`` over ``pairs`` (in order), or None when there are none."""
    T, M, R = types
    terms = [cast(eval_binary(s.multiply, cast(a, T), cast(b, T), T), R) for a, b in pairs]
    return monoid_fold(s.add, terms, R) if terms else None


def _rows(A: RefMatrix) -> dict:
    rows = defaultdict(list)
    for (i, j), v in sorted(A.data.items()):
        rows[i].append((j, v))
    return rows


def mxv(A: RefMatrix, x: RefVector, semiring="plus_times", *, mask=None, accum=None,
        out=None, replace=False) -> RefVector:
    """``y[i] = add_k mul(A[i, k], x[k])`` over the k where both have an entry.

    Examples
    --------
    >>> A = RefMatrix.from_dict((2, 2), {(0, 0): 1, (0, 1): 2, (1, 1): 3}, "int64")
    >>> x = RefVector.from_dict(2, {1: 10}, "int64")
    >>> mxv(A, x).data
    {0: np.int64(20), 1: np.int64(30)}
    """
    s = builtin.semiring(semiring, "reference.mxv")
    _check(A.shape[1] == x.size, "mxv: A.ncols != x.size")
    T = _vector_product(s, _rows(A), x, A.shape[0], s.types(A.dtype, x.dtype), False)
    return _finish(T, mask, accum, out, replace)


def _vector_product(s, lines: dict, x: RefVector, n: int, types: tuple,
                    x_left: bool) -> RefVector:
    """``T[i] = add_k mul(line_i[k], x[k])`` over the lines of the matrix (rows for mxv;
    columns for vxm, where ``x`` is the left operand)."""
    T = RefVector(n, types[2])
    for i, line in sorted(lines.items()):
        pairs = [(x.data[k], a) if x_left else (a, x.data[k]) for k, a in line
                 if k in x.data]
        y = _semiring_dot(s, pairs, types)
        if y is not None:
            T.data[i] = y
    return T


def vxm(x: RefVector, A: RefMatrix, semiring="plus_times", *, mask=None, accum=None,
        out=None, replace=False) -> RefVector:
    """``y[j] = add_k mul(x[k], A[k, j])`` over the k where both have an entry.

    Examples
    --------
    >>> A = RefMatrix.from_dict((2, 2), {(0, 1): 2, (1, 1): 3}, "int64")
    >>> vxm(RefVector.from_dict(2, {0: 10}, "int64"), A).data
    {1: np.int64(20)}
    """
    s = builtin.semiring(semiring, "reference.vxm")
    _check(A.shape[0] == x.size, "vxm: x.size != A.nrows")
    T = _vector_product(s, _rows(A.transpose()), x, A.shape[1], s.types(x.dtype, A.dtype),
                        True)
    return _finish(T, mask, accum, out, replace)


def mxm(A: RefMatrix, B: RefMatrix, semiring="plus_times", *, mask=None, accum=None,
        out=None, replace=False) -> RefMatrix:
    """``C[i, j] = add_k mul(A[i, k], B[k, j])`` over the k where both have an entry.

    Examples
    --------
    >>> A = RefMatrix.from_dict((2, 2), {(0, 1): 2, (1, 0): 3}, "int64")
    >>> mxm(A, A, "min_plus").data
    {(0, 0): np.int64(5), (1, 1): np.int64(5)}
    """
    s = builtin.semiring(semiring, "reference.mxm")
    _check(A.shape[1] == B.shape[0], "mxm: A.ncols != B.nrows")
    types = s.types(A.dtype, B.dtype)
    arows = _rows(A)
    bcols = _rows(B.transpose())
    T = RefMatrix((A.shape[0], B.shape[1]), types[2])
    for i, row in sorted(arows.items()):
        rowd = dict(row)
        for j, col in sorted(bcols.items()):
            c = _semiring_dot(s, [(rowd[k], b) for k, b in col if k in rowd], types)
            if c is not None:
                T.data[(i, j)] = c
    return _finish(T, mask, accum, out, replace)


# -------------------------------------------------------------------- element-wise


def _ewise(u, v, op, union: bool, call: str):
    bop = builtin.binary_op(op, call, "op")
    _check(tuple(u.shape) == tuple(v.shape), f"{call}: shapes differ")
    D = dtypes.unify(u.dtype, v.dtype)
    odt = bop.output_dtype(D)
    T = u.empty_like(odt)
    keys = (set(u.data) | set(v.data)) if union else (set(u.data) & set(v.data))
    for k in sorted(keys):
        if k in u.data and k in v.data:
            T.data[k] = cast(eval_binary(bop, cast(u.data[k], D), cast(v.data[k], D), D), odt)
        else:
            T.data[k] = cast(u.data[k] if k in u.data else v.data[k], odt)
    return T


def ewise_add(u, v, op="plus", *, mask=None, accum=None, out=None, replace=False):
    """Union of patterns: ``op(u, v)`` where both have an entry, else the one present.

    Examples
    --------
    >>> u = RefVector.from_dict(3, {0: 1, 1: 2}, "int64")
    >>> v = RefVector.from_dict(3, {1: 10, 2: 20}, "int64")
    >>> ewise_add(u, v, "minus").data
    {0: np.int64(1), 1: np.int64(-8), 2: np.int64(20)}
    """
    return _finish(_ewise(u, v, op, True, "ewise_add"), mask, accum, out, replace)


def ewise_mult(u, v, op="times", *, mask=None, accum=None, out=None, replace=False):
    """Intersection of patterns: ``op(u, v)`` where both have an entry.

    Examples
    --------
    >>> u = RefVector.from_dict(3, {0: 2, 1: 3}, "int64")
    >>> ewise_mult(u, RefVector.from_dict(3, {1: 4, 2: 5}, "int64")).data
    {1: np.int64(12)}
    """
    return _finish(_ewise(u, v, op, False, "ewise_mult"), mask, accum, out, replace)


# -------------------------------------------------------------------- apply / select


def apply(u, op, *, left=None, right=None, mask=None, accum=None, out=None, replace=False):
    """``op(u)`` entry-wise; with a bound scalar, ``op(u, right)`` or ``op(left, u)``.

    The scalar's dtype follows ``scalars.scalar_dtype`` and is unified with u's.

    Examples
    --------
    >>> u = RefVector.from_dict(3, {0: 1, 2: -4}, "int8")
    >>> apply(u, "ainv").data
    {0: np.int8(-1), 2: np.int8(4)}
    >>> apply(u, "minus", left=10).data
    {0: np.int8(9), 2: np.int8(14)}
    """
    if left is None and right is None:
        uop = builtin.unary_op(op, "reference.apply")
        T = u.empty_like(uop.output_dtype(u.dtype))
        for k, v in sorted(u.data.items()):
            T.data[k] = eval_unary(uop, v, u.dtype)
    else:
        _check(left is None or right is None, "apply: give left or right, not both")
        bop = builtin.binary_op(op, "reference.apply")
        s = right if left is None else left
        D = dtypes.unify(u.dtype, scalar_dtype(s, u.dtype))
        sD = cast(s, D)
        T = u.empty_like(bop.output_dtype(D))
        for k, v in sorted(u.data.items()):
            a, b = (cast(v, D), sD) if left is None else (sD, cast(v, D))
            T.data[k] = eval_binary(bop, a, b, D)
    return _finish(T, mask, accum, out, replace)


def _val(v, dt):
    return to_python(v, dt)


SELECT_OPS = {
    "tril": lambda i, j, v, k: j <= i + k,
    "triu": lambda i, j, v, k: j >= i + k,
    "diag": lambda i, j, v, k: j == i + k,
    "offdiag": lambda i, j, v, k: j != i + k,
    "rowle": lambda i, j, v, k: i <= k,
    "rowgt": lambda i, j, v, k: i > k,
    "colle": lambda i, j, v, k: j <= k,
    "colgt": lambda i, j, v, k: j > k,
    "valueeq": lambda i, j, v, k: v == k,
    "valuene": lambda i, j, v, k: v != k,
    "valuegt": lambda i, j, v, k: v > k,
    "valuege": lambda i, j, v, k: v >= k,
    "valuelt": lambda i, j, v, k: v < k,
    "valuele": lambda i, j, v, k: v <= k,
}
"""Select predicates ``(i, j, value, thunk) -> keep``; a vector entry i is at ``(i, 0)``."""


def select(u, op, thunk=None, *, mask=None, accum=None, out=None, replace=False):
    """Keep the entries for which the predicate ``op`` holds (GraphBLAS meanings: ``tril``
    keeps ``j <= i + thunk``; positional thunks default to 0).

    Examples
    --------
    >>> A = RefMatrix.from_dict((2, 2), {(0, 0): 1, (0, 1): 2, (1, 0): 3}, "int64")
    >>> sorted(select(A, "tril").data)
    [(0, 0), (1, 0)]
    """
    name = op if isinstance(op, str) else getattr(op, "name", op)
    _check(name in SELECT_OPS, f"select: unknown op {op!r}")
    pred = SELECT_OPS[name]
    if thunk is None:
        _check(not name.startswith("value"), "select: value ops need a thunk")
        thunk = 0
    T = u.empty_like()
    for k, v in sorted(u.data.items()):
        i, j = (k, 0) if u.ndim == 1 else k
        if pred(i, j, _val(v, u.dtype), thunk):
            T.data[k] = v
    return _finish(T, mask, accum, out, replace)


# ---------------------------------------------------------------------------- reduce

_ROWS = ("rows", 1)
_COLS = ("columns", "cols", 0)


def reduce(u, monoid="plus", *, axis=None, mask=None, accum=None, out=None, replace=False):
    """Reduce with a monoid: a scalar (the identity when empty), or per row / column of a
    matrix (``axis="rows"`` or 1, ``axis="columns"`` or 0) as a vector with entries only
    where the row/column has one.

    Examples
    --------
    >>> A = RefMatrix.from_dict((3, 2), {(0, 0): 1, (0, 1): 2, (2, 1): 5}, "int64")
    >>> reduce(A), reduce(A, "max", axis="rows").data
    (np.int64(8), {0: np.int64(2), 2: np.int64(5)})
    """
    mon = builtin.monoid(monoid, "reference.reduce")
    odt = mon.output_dtype(u.dtype)
    if axis is None:
        _check(mask is None and accum is None and out is None, "reduce: scalar takes no mask")
        return monoid_fold(mon, [v for _, v in sorted(u.data.items())], u.dtype)
    _check(u.ndim == 2, "reduce: axis needs a matrix")
    if axis in _ROWS:
        groups = _rows(u)
        size = u.shape[0]
    elif axis in _COLS:
        groups = _rows(u.transpose())
        size = u.shape[1]
    else:
        raise ValueError(f"reference: reduce: bad axis {axis!r}")
    T = RefVector(size, odt)
    for i, entries in sorted(groups.items()):
        T.data[i] = monoid_fold(mon, [v for _, v in entries], u.dtype)
    return _finish(T, mask, accum, out, replace)


# -------------------------------------------------------------------- extract / assign


def _index_list(idx, n: int) -> list[int]:
    if idx is None:
        return list(range(n))
    out = [int(i) for i in np.asarray(idx).reshape(-1)]
    for i in out:
        _check(0 <= i < n, f"index {i} out of range [0, {n})")
    return out


def extract(u, *index, mask=None, accum=None, out=None, replace=False):
    """``w[k] = u[I[k]]`` / ``C[a, b] = A[I[a], J[b]]`` where present (None = all).

    Examples
    --------
    >>> u = RefVector.from_dict(4, {1: 5, 3: 7}, "int64")
    >>> extract(u, [3, 0, 1]).data
    {0: np.int64(7), 2: np.int64(5)}
    """
    if u.ndim == 1:
        _check(len(index) <= 1, "extract: a vector takes one index list")
        idx = _index_list(index[0] if index else None, u.size)
        T = RefVector(len(idx), u.dtype)
        for k, i in enumerate(idx):
            if i in u.data:
                T.data[k] = u.data[i]
    else:
        _check(len(index) <= 2, "extract: a matrix takes rows and cols")
        index = tuple(index) + (None,) * (2 - len(index))
        rows = _index_list(index[0], u.shape[0])
        cols = _index_list(index[1], u.shape[1])
        T = RefMatrix((len(rows), len(cols)), u.dtype)
        for a, i in enumerate(rows):
            for b, j in enumerate(cols):
                if (i, j) in u.data:
                    T.data[(a, b)] = u.data[(i, j)]
    return _finish(T, mask, accum, out, replace)


def assign(out, value, *index, mask=None, accum=None, replace=False):
    """GraphBLAS assign: ``out(I)<mask, replace> (+)= value`` with the mask over all of out.

    ``value`` is a scalar (every position of the region gets it) or an object of the
    region's shape (positions where it has no entry have no entry in the region).  Without
    accum, the region is overwritten and the rest of ``out`` kept; with accum, ``out`` and
    the region's entries are combined on their union.  Then the mask/replace write-back
    runs over the whole output.  Indices must be distinct.

    Examples
    --------
    >>> out = RefVector.from_dict(4, {0: 1, 1: 1}, "int64")
    >>> assign(out, 9, [1, 2]).data
    {0: np.int64(1), 1: np.int64(9), 2: np.int64(9)}
    >>> assign(out, RefVector.from_dict(2, {1: 5}, "int64"), [1, 2]).data
    {0: np.int64(1), 2: np.int64(5)}
    """
    if out.ndim == 1:
        idx = [_index_list(index[0] if index else None, out.size)]
    else:
        index = tuple(index) + (None,) * (2 - len(index))
        idx = [_index_list(index[0], out.shape[0]), _index_list(index[1], out.shape[1])]
    for ii in idx:
        _check(len(set(ii)) == len(ii), "assign: duplicate indices")
    region_shape = tuple(len(ii) for ii in idx)
    # region: output key -> value (scalar value: every position)
    region = {}
    positions = (
        [(i,) for i in idx[0]] if out.ndim == 1
        else [(i, j) for i in idx[0] for j in idx[1]]
    )
    region_keys = [k[0] if out.ndim == 1 else k for k in positions]
    if np.ndim(value) == 0 and not isinstance(value, (RefVector, RefMatrix)):
        vdt = scalar_dtype(value, out.dtype)
        for k in region_keys:
            region[k] = cast(value, vdt)
    else:
        _check(tuple(value.shape) == region_shape, "assign: value shape != region shape")
        vdt = value.dtype
        if out.ndim == 1:
            for a, i in enumerate(idx[0]):
                if a in value.data:
                    region[i] = value.data[a]
        else:
            for a, i in enumerate(idx[0]):
                for b, j in enumerate(idx[1]):
                    if (a, b) in value.data:
                        region[(i, j)] = value.data[(a, b)]
    T = out.empty_like(vdt)
    if accum is None:
        # Z = out outside the region, the region's entries inside it
        inside = set(region_keys)
        T = out.empty_like()
        for k, v in out.data.items():
            if k not in inside:
                T.data[k] = v
        T.data.update({k: cast(v, out.dtype) for k, v in region.items()})
        return write_back(out, T, mask=mask, accum=None, replace=replace)
    T.data = dict(region)
    return write_back(out, T, mask=mask, accum=accum, replace=replace)


def transpose(A: RefMatrix, *, mask=None, accum=None, out=None, replace=False) -> RefMatrix:
    """``A'`` written back through mask and accum.

    Examples
    --------
    >>> transpose(RefMatrix.from_dict((1, 2), {(0, 1): 7}, "int8")).data
    {(1, 0): np.int8(7)}
    """
    return _finish(A.transpose(), mask, accum, out, replace)
