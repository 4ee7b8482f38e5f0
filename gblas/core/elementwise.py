"""Elementwise operations: ``ewise_add``, ``ewise_mult``, ``apply``, ``select``.

Vectorized array code on the operands' device (NumPy or CuPy) plus the registered
``map_unary`` / ``map_binary`` kernels for the operators, then the common write-back.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._device import all_true, xp_for
from ..backends.registry import VecData
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg
from ..formats import CSR
from ..semirings import binary_op, unary_op
from . import hyper
from ._args import check_common
from .arrays import compress, intersect_positions, merge_kernel, union_positions, where
from .dispatch import dispatchable
from .executor import array_kernel, optional_kernel
from .keys import csr_of, entries, is_matrix, rebuild
from .matrix import Matrix, canonical
from .vector import Vector
from .writeback import writeback_matrix, writeback_vector


def _kind(obj, call: str, arg: str):
    if isinstance(obj, Vector):
        return Vector
    if is_matrix(obj):
        return Matrix
    raise bad_arg(InvalidObject, call, arg, "a gb.Vector or gb.Matrix", type(obj).__name__)


def _finish(like, kind, keys, values, dtype, device, mask, accum, out, replace):
    T = rebuild(like, keys, values, dtype, device)
    if kind is Vector:
        return writeback_vector(out, T, dtype, mask, accum, replace, device)
    return writeback_matrix(out, T, mask, accum, replace, device)


def _cast(a, dt):
    return a if a.dtype == dt else a.astype(dt)


def _ewise(call, u, v, op, default, combine, *, mask, accum, out, replace):
    ku, kv = _kind(u, call, "u"), _kind(v, call, "v")
    if ku is not kv:
        raise bad_arg(InvalidObject, call, "v", f"a gb.{ku.__name__} like `u`", kv.__name__)
    if tuple(u.shape) != tuple(v.shape):
        raise bad_arg(DimensionMismatch, call, "v", f"shape {tuple(u.shape)} (as u)",
                      f"shape {tuple(v.shape)}")
    op = binary_op(op if op is not None else default, call, "op")
    D = dtypes.unify(u.dtype, v.dtype)
    op.check_dtype(D, call)
    mask, accum, out, device = check_common(call, ku, tuple(u.shape), mask=mask, accum=accum,
                                            out=out, replace=replace, u=u, v=v)
    if ku is Matrix and hyper.involved(u, v, mask, out):  # over the rows/cols with entries
        return hyper.elementwise(
            lambda a, b: _ewise(call, a, b, op, default, combine, mask=None, accum=None,
                                out=None, replace=False),
            (u, v), tuple(u.shape), mask, accum, out, replace, device, writeback_matrix)
    xp = xp_for(device)
    R = op.output_dtype(D)
    fmap = array_kernel("map_binary", device)
    if (ku is Vector and combine is _intersect_values
            and u.is_dense_storage != v.is_dense_storage):
        # an intersection with a sparse side: read the dense side at its entries only
        T = _sparse_dense_mult(xp, op, fmap, u, v, D, R)
        return writeback_vector(out, T, R, mask, accum, replace, device)
    if ku is Vector and (u.is_dense_storage or v.is_dense_storage):
        # one side is O(n) already: presence arrays beat key merges
        T = _dense_ewise(xp, op, fmap, u.dense_data(), v.dense_data(), D, R,
                         union=combine is _union_values, device=device)
        return writeback_vector(out, T, R, mask, accum, replace, device)
    if ku is Matrix:
        merge = merge_kernel("merge_union" if combine is _union_values else "merge_intersect",
                             "csr", device)
        if merge is not None:
            T = _csr_ewise(xp, merge, op, fmap, csr_of(u), csr_of(v), D, R,
                           union=combine is _union_values)
            return writeback_matrix(out, T, mask, accum, replace, device)
    ak, av = entries(u, call, "u")
    bk, bv = entries(v, call, "v")
    keys, vals = combine(xp, op, fmap, ak, _cast(av, D), bk, _cast(bv, D), D, R)
    return _finish(u, ku, keys, vals, R, device, mask, accum, out, replace)


def _csr_ewise(xp, merge, op, fmap, ca: CSR, cb: CSR, D, R, union: bool) -> CSR:
    """ewise on two CSRs by the device's row-by-row merge of their patterns (linear in
    their entries: no key sort)."""
    m, n = ca.shape
    ptr, idx, pa, pb = merge(ca.indptr, ca.indices, cb.indptr, cb.indices,
                             dtypes.index_dtype(n))
    dev = ca.device
    fused = optional_kernel("merged_values", dev)
    if fused is not None:
        # gather, operate and cast in one pass over the merged entries
        vals = fused(op, ca.dense_values(), cb.dense_values(), pa, pb, D, R)
    else:
        vals = _combine(xp, op, fmap, _cast(ca.dense_values(), D),
                        _cast(cb.dense_values(), D), pa, pb, D, R, union)
    nnz = idx.shape[0]
    return CSR((m, n), ptr.astype(dtypes.index_dtype(nnz), copy=False), idx, vals,
               np.dtype(R), None, ca.device)


def _combine(xp, op, fmap, av, bv, pa, pb, D, R, union: bool):
    """The values of a merged pattern from the positions of its entries in ``a`` and
    ``b`` (``-1`` where absent): ``op`` where both have an entry, else the one present."""
    nnz = pa.shape[0]
    if not union:
        return (_cast(fmap(op, av[pa], bv[pb], D), R) if nnz else xp.empty(0, R))
    vals = xp.empty(nnz, R)
    only_a, only_b = pb < 0, pa < 0
    both = xp.flatnonzero(~(only_a | only_b))
    if both.shape[0] == nnz:
        return _cast(fmap(op, av[pa], bv[pb], D), R) if nnz else vals
    vals[only_a] = _cast(av[pa[only_a]], R)
    vals[only_b] = _cast(bv[pb[only_b]], R)
    if both.shape[0]:
        vals[both] = _cast(fmap(op, av[pa[both]], bv[pb[both]], D), R)
    return vals


#: Built-in binary operators that give a value (no error, no warning) for any operands
#: of their domain: dense paths may apply them to the values in the holes too (``div``
#: by zero gives inf, NaN or 0 silently, as everywhere in gblas).
_TOTAL_BINARY = frozenset({"first", "second", "any", "pair", "plus", "minus", "rminus",
                           "times", "div", "min", "max", "lor", "land", "lxor", "eq", "ne",
                           "gt", "lt", "ge", "le"})


def _dense_ewise(xp, op, fmap, ud, vd, D, R, union: bool, device: str) -> VecData:
    """ewise on two dense-stored vectors: presence arrays instead of key merges (O(n))."""
    n = ud.size
    av, bv = _cast(ud.values, D), _cast(vd.values, D)
    if ud.present is None and vd.present is None:
        return VecData(n, None, _cast(fmap(op, av, bv, D), R), None)
    ap = xp.ones(n, bool) if ud.present is None else ud.present
    bp = xp.ones(n, bool) if vd.present is None else vd.present
    both = ap & bp
    code = getattr(op, "code", None)
    if union and code in ("first", "any", "second"):
        # op(a, b) is a (first, any) or b (second): one select, no operator call
        a_wins = code != "second"
        vals = (where(ap, _cast(av, R), _cast(bv, R), device) if a_wins
                else where(bp, _cast(bv, R), _cast(av, R), device))
        present = ap | bp
        return VecData(n, None, vals, None if all_true(present) else present)
    if not union and code in _TOTAL_BINARY:
        # a built-in operator defined on any value: one pass over every position (the
        # values in the holes are never read), no index array, gather or scatter
        return VecData(n, None, _cast(fmap(op, av, bv, D), R),
                       None if all_true(both) else both)
    if union:
        vals = where(bp, _cast(bv, R), where(ap, _cast(av, R), R.type(0), device), device)
    else:
        vals = xp.zeros(n, R)
    idx = xp.flatnonzero(both)
    if idx.shape[0]:
        vals[idx] = _cast(fmap(op, av[idx], bv[idx], D), R)
    present = (ap | bp) if union else both
    # an all-True presence array is stored as None: later calls take the full fast path
    return VecData(n, None, vals, None if all_true(present) else present)


def _sparse_dense_mult(xp, op, fmap, u, v, D, R) -> VecData:
    """ewise_mult of a sparse-stored and a dense-stored vector in O(nvals of the sparse
    one): its entries where the dense one has an entry, ``op`` in the original order."""
    sparse, dense = (u, v) if v.is_dense_storage else (v, u)
    sd, dd = sparse.sparse_data(), dense.dense_data()
    idx = sd.indices
    if dd.present is None:
        keys, sv = idx, sd.values
    else:
        have = dd.present[idx]
        keys, sv = idx[have], sd.values[have]
    dv = dd.values[keys]
    a, b = (sv, dv) if sparse is u else (dv, sv)
    vals = fmap(op, _cast(a, D), _cast(b, D), D) if keys.shape[0] else xp.empty(0, R)
    return VecData(u.size, keys, _cast(xp.asarray(vals), R), None)


def _union_values(xp, op, fmap, ak, av, bk, bv, D, R):
    keys, pa, pb = union_positions(ak, bk, xp)
    return keys, _combine(xp, op, fmap, av, bv, pa, pb, D, R, True)


def _intersect_values(xp, op, fmap, ak, av, bk, bv, D, R):
    keys, pa, pb = intersect_positions(ak, bk, xp)
    return keys, _combine(xp, op, fmap, av, bv, pa, pb, D, R, False)


@dispatchable
def ewise_add(u, v, op="plus", *, mask=None, accum=None, out=None, replace=False):
    """Elementwise "addition": the union of the patterns.

    Where both have an entry, ``op(u, v)``; where one has, its value (cast to the
    result dtype).

    Examples
    --------
    >>> import gblas as gb
    >>> u = gb.Vector.from_coo([0, 1], [1.0, 2.0], size=3)
    >>> v = gb.Vector.from_coo([1, 2], [10.0, 20.0], size=3)
    >>> gb.ewise_add(u, v).to_dense().tolist()
    [1.0, 12.0, 20.0]
    """
    return _ewise("ewise_add", u, v, op, "plus", _union_values, mask=mask, accum=accum,
                  out=out, replace=replace)


@dispatchable
def ewise_mult(u, v, op="times", *, mask=None, accum=None, out=None, replace=False):
    """Elementwise "multiplication": the intersection of the patterns.

    Examples
    --------
    >>> import gblas as gb
    >>> u = gb.Vector.from_coo([0, 1], [1.0, 2.0], size=3)
    >>> v = gb.Vector.from_coo([1, 2], [10.0, 20.0], size=3)
    >>> gb.ewise_mult(u, v).to_coo()[1].tolist()
    [20.0]
    """
    return _ewise("ewise_mult", u, v, op, "times", _intersect_values, mask=mask, accum=accum,
                  out=out, replace=replace)


def _scalar_dtype(s, dt: np.dtype, call: str, arg: str) -> np.dtype:
    if isinstance(s, (np.ndarray,)) or not np.isscalar(s):
        raise bad_arg(InvalidValue, call, arg, "a scalar", type(s).__name__)
    return dtypes.lookup(np.result_type(dt, s), call, arg)


#: Built-in unary operators that give a value for any operand of their domain.
_TOTAL_UNARY = frozenset({"identity", "ainv", "abs", "one", "lnot"})


@dispatchable
def apply(u, op, *, left=None, right=None, mask=None, accum=None, out=None, replace=False):
    """Apply an operator to every entry: ``op(u)``, ``op(u, right)`` or ``op(left, u)``.

    Examples
    --------
    >>> import gblas as gb
    >>> u = gb.Vector.from_coo([0, 2], [1.0, -4.0], size=3)
    >>> gb.apply(u, "abs").to_coo()[1].tolist()
    [1.0, 4.0]
    >>> gb.apply(u, "times", right=2.0).to_coo()[1].tolist()
    [2.0, -8.0]
    """
    call = "apply"
    kind = _kind(u, call, "u")
    if left is not None and right is not None:
        raise bad_arg(InvalidValue, call, "left", "only one of left= and right=", "both")
    mask, accum, out, device = check_common(call, kind, tuple(u.shape), mask=mask, accum=accum,
                                            out=out, replace=replace, u=u)
    if kind is Matrix and hyper.involved(u, mask, out):  # over the rows/cols with entries
        return hyper.elementwise(lambda a: apply(a, op, left=left, right=right), (u,),
                                 tuple(u.shape), mask, accum, out, replace, device,
                                 writeback_matrix)
    xp = xp_for(device)
    if left is None and right is None:
        uop = unary_op(op, call, "op")
        uop.check_dtype(u.dtype, call)
        R = uop.output_dtype(u.dtype)
        total = uop.code in _TOTAL_UNARY
    else:
        bop = binary_op(op, call, "op")
        s = right if left is None else left
        D = _scalar_dtype(s, u.dtype, call, "right" if left is None else "left")
        bop.check_dtype(D, call)
        R = bop.output_dtype(D)
        total = bop.code in _TOTAL_BINARY
    dense = kind is Vector and u.is_dense_storage
    if dense:
        # a dense-stored Vector: map its values, no index array; an operator defined on
        # any value maps every position (holes included): no gather and scatter either
        dd = u.dense_data()
        at = None if dd.present is None or total else xp.flatnonzero(dd.present)
        keys, vals = None, (dd.values if at is None else dd.values[at])
    else:
        keys, vals = entries(u, call, "u")
    if left is None and right is None:
        if dense and uop.code == "identity" and vals.dtype == R:
            # no copy: Vectors may share arrays (in-place writes check ownership first)
            new = vals
        else:
            new = array_kernel("map_unary", device)(uop, vals, u.dtype)
    else:
        f = array_kernel("map_binary", device)
        sv = np.asarray(s).astype(D)[()]
        a = _cast(vals, D)
        new = f(bop, a, sv, D) if left is None else f(bop, sv, a, D)
    new = xp.asarray(new)
    if dense:
        if at is None:
            T = VecData(dd.size, None, _cast(new, R), dd.present)
        else:
            full = xp.zeros(dd.size, R)
            full[at] = new
            T = VecData(dd.size, None, full, dd.present)
        return writeback_vector(out, T, R, mask, accum, replace, device)
    return _finish(u, kind, keys, new, R, device, mask, accum, out, replace)


# ------------------------------------------------------------------------------ select

_INDEX_OPS = {
    "tril": lambda i, j, v, k: j <= i + k,
    "triu": lambda i, j, v, k: j >= i + k,
    "diag": lambda i, j, v, k: j == i + k,
    "offdiag": lambda i, j, v, k: j != i + k,
    "rowle": lambda i, j, v, k: i <= k,
    "rowgt": lambda i, j, v, k: i > k,
    "colle": lambda i, j, v, k: j <= k,
    "colgt": lambda i, j, v, k: j > k,
    "indexle": lambda i, j, v, k: i <= k,
    "indexgt": lambda i, j, v, k: i > k,
}
_VALUE_OPS = {
    "valueeq": lambda i, j, v, t: v == t,
    "valuene": lambda i, j, v, t: v != t,
    "valuegt": lambda i, j, v, t: v > t,
    "valuege": lambda i, j, v, t: v >= t,
    "valuelt": lambda i, j, v, t: v < t,
    "valuele": lambda i, j, v, t: v <= t,
}
def _reads_values_only(pred) -> bool:
    """Whether a select predicate is a built-in value test (it never reads indices)."""
    return any(pred is f for f in _VALUE_OPS.values())


_MATRIX_ONLY = ("tril", "triu", "diag", "offdiag", "colle", "colgt")


@dispatchable
def select(u, op, thunk=None, *, mask=None, accum=None, out=None, replace=False):
    """Keep the entries for which a predicate holds.

    ``op`` is one of ``tril, triu, diag, offdiag`` (``thunk`` = diagonal offset k,
    default 0: tril keeps ``j <= i + k``), ``rowle, rowgt, colle, colgt`` (``thunk`` = an
    index; on vectors ``rowle``/``rowgt`` or ``indexle``/``indexgt`` test the index),
    ``valueeq, valuene, valuegt, valuege, valuelt, valuele`` (``thunk`` = a value), or a
    callable ``f(rows, cols, values, thunk) -> bool array`` (vectorized; ``cols`` is None
    for vectors).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], [1, 2, 3], shape=(2, 2))
    >>> gb.select(A, "tril").to_coo()[2].tolist()
    [2, 3]
    >>> gb.select(A, "valuegt", 1).nvals
    2
    """
    call = "select"
    kind = _kind(u, call, "u")
    if callable(op):
        pred = op
    elif isinstance(op, str) and op.lower() in _INDEX_OPS:
        pred = _INDEX_OPS[op.lower()]
        if kind is Vector and op.lower() in _MATRIX_ONLY:
            raise bad_arg(InvalidValue, call, "op", "rowle, rowgt, indexle, indexgt or value* "
                          "for a Vector", repr(op))
        thunk = 0 if thunk is None else thunk
    elif isinstance(op, str) and op.lower() in _VALUE_OPS:
        pred = _VALUE_OPS[op.lower()]
        if thunk is None:
            raise bad_arg(InvalidValue, call, "thunk", f"a value to compare with for {op!r}",
                          "None")
        if isinstance(thunk, (str, bytes)) or not np.isscalar(thunk) \
                and np.ndim(thunk) != 0:
            raise bad_arg(InvalidValue, call, "thunk", f"a number to compare the values with "
                          f"for {op!r}", repr(thunk))
    else:
        names = ", ".join(list(_INDEX_OPS) + list(_VALUE_OPS))
        raise bad_arg(InvalidValue, call, "op", f"one of {names} or a callable", repr(op))
    mask, accum, out, device = check_common(call, kind, tuple(u.shape), mask=mask, accum=accum,
                                            out=out, replace=replace, u=u)
    if kind is not Vector and hyper.involved(u, mask, out):  # global ids, O(entries)
        return hyper.select(u, pred, thunk, _reads_values_only(pred), mask, accum, out,
                            replace, device, writeback_matrix)
    xp = xp_for(device)
    if kind is not Vector and mask is None and out is None:
        return _select_csr(u, pred, thunk, call)
    if kind is Vector and u.is_dense_storage and _reads_values_only(pred):
        # a value predicate on a dense-stored Vector: test the values, keep a sparse result
        d = u.dense_data()
        keep = xp.asarray(pred(None, None, d.values, thunk), dtype=bool)
        if d.present is not None:
            keep &= d.present
        idx = xp.flatnonzero(keep)
        T = VecData(u.size, idx, d.values[idx], None)
        return writeback_vector(out, T, u.dtype, mask, accum, replace, device)
    keys, vals = entries(u, call, "u")
    if kind is Vector:
        i, j = keys, None
    else:
        n = max(u.shape[1], 1)
        i = keys // n
        j = keys - i * n
    keep = xp.asarray(pred(i, j if j is not None else i, vals, thunk), dtype=bool)
    if keep.ndim == 0:
        keep = xp.full(keys.shape[0], bool(keep), dtype=bool)
    keys, vals = compress(keep, keys, vals, device=device)
    return _finish(u, kind, keys, vals, u.dtype, device, mask, accum, out, replace)


def _select_csr(u, pred, thunk, call):
    """``select`` of a Matrix into a new Matrix, straight on its CSR: the predicate sees
    each entry's row, column and value, and the kept entries keep their order (no linear
    keys, no re-sort)."""

    base, t = canonical(u, call, "u")
    csr = base.csr(transposed=t)
    xp = xp_for(csr.device)
    if _reads_values_only(pred):
        rows = cols = None  # value predicates read only the values
    else:
        rows = csr.row_indices()
        cols = csr.indices.astype(np.int64)
    keep = xp.asarray(pred(rows, cols, csr.dense_values(), thunk), dtype=bool)
    if keep.ndim == 0:  # a predicate of the value of an iso matrix
        keep = xp.full(csr.nnz, bool(keep), dtype=bool)
    # indptr: the kept entries before each row start (a prefix sum sampled at indptr)
    before = xp.zeros(csr.nnz + 1, dtype=np.int64)
    xp.cumsum(keep, out=before[1:])
    nnz = int(before[-1])
    indptr = before[csr.indptr.astype(np.int64)].astype(dtypes.index_dtype(nnz))
    values = None if csr.values is None else csr.values[keep]
    return Matrix(CSR(csr.shape, indptr, csr.indices[keep], values, csr.dtype, csr.iso_value,
                      csr.device))
