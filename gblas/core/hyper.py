"""Operations over hypersparse operands: the compact problem.

A Matrix whose dimension is far above its entry count (:func:`~gblas.planner.choose.is_huge`,
stored hypersparse when its rows are: :func:`~gblas.planner.choose.choose_storage`) and a
sparse Vector of such a size are never given to a path that allocates per row, column or
position.  Every operation maps its operands onto the **compact problem** over the rows
and columns that hold entries (of an operand, a mask or ``out``): there each is an
ordinary small CSR or Vector, the operation runs with its usual planner, kernels, masks
and write-back, and the result is mapped back through the sorted id arrays.  Positions
outside the compact problem hold no entry in any operand, mask or ``out``, so the
GraphBLAS rules leave them empty whatever the mask, accumulator or ``replace``; the two
problems have the same result.  Memory and time are ``O(entries log entries)``.

The operations call in here when :func:`involved` says so (a few comparisons for
ordinary operands, whose code paths stay as they were).

Examples
--------
>>> import numpy as np, gblas as gb
>>> n = 2**40
>>> A = gb.Matrix.from_coo([3, 2**39], [2**39, 7], [2.0, 5.0], shape=(n, n))
>>> x = gb.Vector.from_coo([2**39], [10.0], size=n)
>>> y = gb.mxv(A, x)
>>> y.size == n, y.to_coo()[0].tolist(), y.to_coo()[1].tolist()
(True, [3], [20.0])
>>> gb.explain(gb.mxv, A, x).format
'hypersparse'
"""

from __future__ import annotations

import weakref

import numpy as np

from .._device import unique
from ..backends.registry import VecData
from ..exceptions import InvalidValue, OutOfMemory, bad_arg
from ..formats import CSR
from ..formats.hypersparse import Hypersparse, locate
from ..planner.choose import HYPER_MIN_DIM, choose_storage, is_huge, plan_hypersparse
from .keys import csr_of
from .mask import Mask
from .matrix import Matrix, TransposedMatrix, canonical
from .vector import Vector

__all__ = ["expand", "involved", "view"]

# --------------------------------------------------------------------- detection


def _huge_shape(shape, nnz: int) -> bool:
    m, n = int(shape[0]), int(shape[1])
    return (m > HYPER_MIN_DIM or n > HYPER_MIN_DIM) and is_huge(max(m, n), nnz)


def involved(*objs) -> bool:
    """Whether an operation on ``objs`` (Matrices, ``.T`` views, Vectors, masks, storage
    objects, None) must run as a compact problem: a hypersparse Matrix, a dimension far
    above its entries, or a sparse-stored Vector far larger than its entries.

    Examples
    --------
    >>> import gblas as gb
    >>> involved(gb.Matrix.from_coo([0], [1], shape=(2, 2)), None)
    False
    >>> involved(gb.Vector.from_coo([5], [1.0], size=2**50))
    True
    """
    for o in objs:
        if o is None:
            continue
        if isinstance(o, Mask):
            o = o.parent
        if isinstance(o, TransposedMatrix):
            o = o.parent
        if isinstance(o, Matrix):
            if o.is_hypersparse or _huge_shape(o.shape, o.nvals):
                return True
        elif isinstance(o, Vector):
            if o.size > HYPER_MIN_DIM and not o.is_dense_storage and is_huge(o.size, o.nvals):
                return True
        elif isinstance(o, Hypersparse):
            return True
        elif isinstance(o, CSR) and _huge_shape(o.shape, o.nnz):
            return True
    return False


def runs_as_csr(base: Matrix, device: str) -> bool:
    """Whether a product over ``base`` runs its ordinary plan although a dimension is far
    above its entries: on the GPU, where the compact problem is not built, a Matrix stored
    as CSR (its row pointers exist already) does; a Hypersparse one cannot."""
    return device != "cpu" and not base.is_hypersparse


def check_cpu(device: str, call: str) -> None:
    if device != "cpu":
        raise bad_arg(InvalidValue, call, "device", "'cpu' for hypersparse operands (a "
                      "dimension far above the entries)", repr(device),
                      "Move the operands with .to('cpu'), or extract the part you need.")


def storage_reason(base: Matrix) -> str:
    """Why a Matrix runs as a compact problem (the storage rule's words)."""
    if base.is_hypersparse:
        return choose_storage(base.shape, base.nvals)[1]
    m, n = base.shape
    return (f"{m:,} x {n:,} with {base.nvals:,} entries: a dimension far above the entries, "
            "run over the rows and columns with entries")


# --------------------------------------------------------------------------- views

#: storage object -> (rows, cols, compact Matrix): the compact view, kept while the
#: storage lives (the compact Matrix keeps its own cache: transposes, statistics).
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def has_view(base: Matrix) -> bool:
    return base.storage() in _VIEWS


def view(base: Matrix, transposed: bool = False):
    """``(rows, cols, op)``: the sorted global ids of the rows and columns of ``base``
    (or of its transpose) that hold entries, and the compact operand (a Matrix, or the
    ``.T`` of one) over them."""
    check_cpu(base.device, "hypersparse operation")
    S = base.storage()
    got = _VIEWS.get(S)
    if got is None:
        H = S if isinstance(S, Hypersparse) else Hypersparse.from_csr(S)
        cols, local = H.compact()
        got = _VIEWS[S] = (H.rows, cols, Matrix(local))
    rows, cols, M = got
    return (cols, rows, M.T) if transposed else (rows, cols, M)


def coo(obj):
    """``(rows, cols, values)`` of a Matrix, ``.T`` view or storage object, global ids,
    sorted by (row, col), in ``O(entries)`` (no per-row array of a huge dimension)."""
    if isinstance(obj, (CSR, Hypersparse)):
        return obj.to_coo()
    base, t = canonical(obj, "hypersparse operation", "A")
    rows, cols, op = view(base, t)
    c = csr_of(op)
    return rows[c.row_indices()], cols[c.indices.astype(np.int64)], c.dense_values()


def expand(local: CSR, rows, cols, shape):
    """The global storage (Hypersparse or CSR by the storage rule) of the compact CSR
    ``local`` whose rows are ``rows`` and columns ``cols``."""
    H = Hypersparse.from_compact(rows, cols, local, shape)
    if choose_storage(shape, H.nnz)[0] == "hypersparse":
        return H
    return H.to_csr()


def _union(*arrays):
    parts = [np.asarray(a, np.int64) for a in arrays if a is not None]
    if not parts:
        return np.zeros(0, np.int64)
    return unique(np.concatenate(parts))


def _local_csr(r, c, v, R, C, dtype) -> CSR:
    """The CSR over ``len(R) x len(C)`` of sorted global entries whose ids are in R, C."""
    lr = np.searchsorted(R, r)
    lc = np.searchsorted(C, c)
    return CSR.from_coo(lr, lc, np.asarray(v).astype(dtype, copy=False), (R.size, C.size))


def common(objs, rows_extra=(), cols_extra=()):
    """``(R, C, locals)``: the union of the rows and columns of the matrices ``objs``
    (Matrices, views, storage objects or None) with the extra ids, and each one as a
    compact CSR over ``R x C`` (None stays None)."""
    coos = [None if o is None else coo(o) for o in objs]
    R = _union(*[e[0] for e in coos if e is not None], *rows_extra)
    C = _union(*[e[1] for e in coos if e is not None], *cols_extra)
    dts = [None if o is None else np.dtype(o.dtype) for o in objs]
    locs = [None if e is None else _local_csr(*e, R, C, dt) for e, dt in zip(coos, dts)]
    return R, C, locs


def vector_at(x: Vector, ids) -> Vector:
    """``x`` read at the sorted ``ids``: a Vector of ``len(ids)`` (sparse for a sparse
    ``x``, a gather for a dense one)."""
    ids = np.asarray(ids, np.int64)
    k = int(ids.size)
    if x.is_dense_storage:
        d = x.dense_data()
        present = None if d.present is None else d.present[ids]
        return Vector(VecData(k, None, d.values[ids], present), x.dtype, x.device)
    d = x.sparse_data()
    pos, hit = locate(ids, d.indices)
    return Vector(VecData(k, pos[hit], d.values[hit], None), x.dtype, x.device)


def vector_mask_at(mask: Mask | None, ids) -> Mask | None:
    """A vector mask read at the sorted ``ids``, as a value mask over ``len(ids)``."""
    if mask is None:
        return None
    allow = np.asarray(mask.allow_at(np.asarray(ids, np.int64)), bool)
    return Mask(Vector(VecData(allow.size, None, allow, None), np.bool_, "cpu"), False)


def matrix_mask_at(mask: Mask | None, R, C) -> Mask | None:
    """A matrix mask restricted to the rows ``R`` and columns ``C`` (sorted ids)."""
    if mask is None:
        return None
    r, c, v = coo(mask.parent)
    pr, hr = locate(R, r)
    pc, hc = locate(C, c)
    keep = hr & hc
    M = Matrix(CSR.from_coo(pr[keep], pc[keep], v[keep], (R.size, C.size)))
    return Mask(M, mask.structural, mask.complement)


# ---------------------------------------------------------------------- products


def vector_back(run1, rows, size: int, out, mask, accum, replace, device, writeback):
    """The run of a compact product or reduce whose output positions are the compact
    ``rows``: ``run1``'s vector mapped back to ``size`` global positions, then written
    (already masked) into ``out``.

    Examples
    --------
    >>> import numpy as np
    >>> import gblas as gb
    >>> def keep(out, T, dtype, *args, premasked):
    ...     return T.indices.tolist(), T.values.tolist()
    >>> y = gb.Vector.from_coo([0, 1], [5.0, 7.0], size=2)
    >>> run = vector_back(lambda: y, np.array([3, 8]), 10, None, None, None, False, "cpu",
    ...                   keep)
    >>> run()
    ([3, 8], [5.0, 7.0])
    """

    def run():
        y = run1()
        d = y.sparse_data()
        T = VecData(size, rows[np.asarray(d.indices, np.int64)], d.values, None)
        return writeback(out, T, y.dtype, mask, accum, replace, device, premasked=True)

    return run


def prepare_mxv(base, transposed, x, s, mask, accum, out, replace, device, call, prepare,
                writeback):
    """mxv / vxm of a hypersparse ``op(A)``: the compact ``k x c`` product over the rows
    and columns with entries, ``x`` and the mask read there, ``y`` mapped back."""
    check_cpu(device, call)
    built = has_view(base)
    rows, cols, op = view(base, transposed)
    nrows = base.shape[1] if transposed else base.shape[0]
    inner, run1 = prepare(op, vector_at(x, cols), s, mask=vector_mask_at(mask, rows),
                          _call=call)
    plan = plan_hypersparse(inner, call, storage_reason(base), op.shape, built)
    return plan, vector_back(run1, rows, nrows, out, mask, accum, replace, device, writeback)


def prepare_mxm(a, ta, b, tb, s, mask, accum, out, replace, device, prepare, writeback):
    """mxm with a hypersparse operand: A's compact rows and columns, B's rows at A's
    columns, the mask restricted to A's rows and B's columns."""
    check_cpu(device, "mxm")
    built = has_view(a) and has_view(b)
    ra, ca, A_op = view(a, ta)
    rb, cb, B_op = view(b, tb)
    Bp = Matrix(gather_rows(csr_of(B_op), *locate(rb, ca)))
    shape = (a.shape[1] if ta else a.shape[0], b.shape[0] if tb else b.shape[1])
    inner, run1 = prepare(A_op, Bp, s, mask=matrix_mask_at(mask, ra, cb))
    plan = plan_hypersparse(inner, "mxm", storage_reason(a if a.is_hypersparse else b),
                            (A_op.shape[0], Bp.shape[1]), built)

    def run():
        C = run1()
        return writeback(out, expand(C.csr(), ra, cb, shape), mask, accum, replace, device)

    return plan, run


def gather_rows(csr: CSR, pos, hit) -> CSR:
    """The CSR whose row ``i`` is row ``pos[i]`` of ``csr`` where ``hit[i]``, else empty."""
    ptr = np.append(csr.indptr.astype(np.int64), csr.nnz)  # a last empty row for misses
    p = np.where(hit, pos, ptr.size - 2)
    counts = np.where(hit, ptr[p + 1] - ptr[p], 0)
    indptr = np.zeros(p.size + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    total = int(indptr[-1])
    src = np.repeat(ptr[p] - indptr[:-1], counts) + np.arange(total, dtype=np.int64)
    vals = None if csr.values is None else csr.values[src]
    return CSR((p.size, csr.shape[1]), indptr, csr.indices[src], vals, csr.dtype,
               csr.iso_value, "cpu")


# --------------------------------------------------------------------- write-back


def writeback_matrix(out, T, mask, accum, replace, device, plain):
    """``out<mask, replace> (+)= T`` over the compact union of the three patterns
    (``plain``: the write-back of ordinary matrices)."""
    check_cpu(device, "write-back")
    if out is None and mask is None:
        return Matrix(T)
    shape = T.shape
    R, C, (Tc, oc, mc) = common([T, out, None if mask is None else mask.parent])
    out_c = None if out is None else Matrix(oc)
    mask_c = None if mask is None else Mask(Matrix(mc), mask.structural, mask.complement)
    res = plain(out_c, Tc, mask_c, accum, replace, device)
    G = expand(res.csr(), R, C, shape)
    if out is None:
        return Matrix(G)
    out._replace_csr(G)
    return out


def writeback_vector(out, T: VecData, t_dtype, mask, accum, replace, device, premasked,
                     plain):
    """``out<mask, replace> (+)= T`` for a sparse ``out`` far larger than its entries:
    over the union of T's, out's and the mask's positions (``plain``: the ordinary
    write-back)."""
    check_cpu(device, "write-back")
    od = out.sparse_data()
    md = None if mask is None else mask.parent.sparse_data()
    U = _union(T.indices, od.indices, None if md is None else md.indices)
    Tc = VecData(U.size, np.searchsorted(U, T.indices), T.values, None)
    out_c = Vector(VecData(U.size, np.searchsorted(U, od.indices), od.values.copy(), None),
                   out.dtype, device)
    mask_c = None
    if mask is not None:
        mv = Vector(VecData(U.size, np.searchsorted(U, md.indices), md.values, None),
                    mask.parent.dtype, device)
        mask_c = Mask(mv, mask.structural, mask.complement)
    res = plain(out_c, Tc, t_dtype, mask_c, accum, replace, device, premasked)
    d = res.sparse_data()
    out._replace_data(VecData(out.size, U[np.asarray(d.indices, np.int64)],
                              np.ascontiguousarray(d.values), None))
    return out


def too_big(call: str, arg: str, size: int, fix: str) -> OutOfMemory:
    return OutOfMemory(f"{call}: `{arg}` would cover {size:,} positions of a hypersparse "
                       f"object (one value each). {fix}")


# ------------------------------------------------------------- elementwise, reduce


def oriented(A, transposed: bool = False):
    """The global storage of ``op(A)`` (a Matrix or ``.T`` view), through the compact
    view (no per-row array of a huge dimension)."""
    base, t = canonical(A, "hypersparse operation", "A")
    t = t != transposed
    rows, cols, op = view(base, t)
    shape = base.shape[::-1] if t else base.shape
    return expand(csr_of(op), rows, cols, shape)


def elementwise(fn, objs, shape, mask, accum, out, replace, device, writeback):
    """``fn`` (an operation without mask or out) on the matrices ``objs`` mapped onto the
    union of their rows and columns; the result mapped back and written into ``out``."""
    check_cpu(device, "elementwise operation")
    R, C, locs = common(objs)
    res = fn(*[Matrix(c) for c in locs])
    return writeback(out, expand(res.csr(), R, C, shape), mask, accum, replace, device)


def storage_from_coo(r, c, v, shape):
    """Sorted unique global entries as the storage the rule picks."""
    H = Hypersparse.from_coo(r, c, v, shape)
    return H if choose_storage(shape, H.nnz)[0] == "hypersparse" else H.to_csr()


def select(u, pred, thunk, values_only: bool, mask, accum, out, replace, device, writeback):
    """select on a hypersparse matrix: the predicate sees the global row and column ids."""
    check_cpu(device, "select")
    r, c, v = coo(u)
    keep = np.asarray(pred(None, None, v, thunk) if values_only else pred(r, c, v, thunk),
                      dtype=bool)
    if keep.ndim == 0:
        keep = np.full(v.shape[0], bool(keep))
    T = storage_from_coo(r[keep], c[keep], v[keep], tuple(u.shape))
    return writeback(out, T, mask, accum, replace, device)


def prepare_reduce_axis(A, monoid, mask, accum, out, replace, device, prepare, writeback):
    """Reduce each row of ``A`` (a Matrix or ``.T`` view, the rows the output's
    positions) over its compact view."""
    check_cpu(device, "reduce")
    base, t = canonical(A, "reduce", "u")
    built = has_view(base)
    rows, _, op = view(base, t)
    inner, run1 = prepare(op, monoid, axis="rows", mask=vector_mask_at(mask, rows))
    plan = plan_hypersparse(inner, "reduce", storage_reason(base), op.shape, built)
    size = A.shape[0]
    return plan, vector_back(run1, rows, size, out, mask, accum, replace, device, writeback)


# ---------------------------------------------------------------- extract, assign


def _pick(ids, wanted):
    """For entries at ``ids``, the positions ``p`` with ``wanted[p] == id`` (each entry
    once per such position): ``(entry, position)`` pairs as two arrays."""
    order = np.argsort(wanted, kind="stable")
    sw = wanted[order]
    lo = np.searchsorted(sw, ids, "left")
    reps = np.searchsorted(sw, ids, "right") - lo
    entry = np.repeat(np.arange(ids.size, dtype=np.int64), reps)
    start = np.repeat(np.cumsum(reps) - reps, reps)
    return entry, order[np.repeat(lo, reps) + np.arange(entry.size, dtype=np.int64) - start]


def extract_vector(u: Vector, idx, call: str):
    """The entries of the sparse ``u`` at the positions ``idx`` (None: all), as VecData."""
    d = u.sparse_data()
    if idx is None:
        return d
    pos, hit = locate(d.indices, idx)
    return VecData(idx.size, np.flatnonzero(hit).astype(np.int64), d.values[pos[hit]], None)


def extract_matrix(u, ri, ci, shape):
    """``u[ri, ci]`` (None: all) as global storage, in ``O(entries log entries)``."""
    r, c, v = coo(u)
    if ri is not None:
        e, r = _pick(r, ri)
        c, v = c[e], v[e]
    if ci is not None:
        e, c = _pick(c, ci)
        r, v = r[e], v[e]
    order = np.lexsort((c, r))
    return storage_from_coo(r[order], c[order], v[order], shape)


def assign_vector(out: Vector, value, idx, mask, accum, replace, fn):
    """``assign`` into a sparse ``out`` far larger than its entries: over the union of
    out's, the index list's, the value's and the mask's positions (``fn``: assign)."""
    check_cpu(out.device, "assign")
    scalar = np.isscalar(value)
    if idx is None and scalar:
        raise too_big("assign", "indices", out.size,
                      "Give the positions to assign as indices=[...].")
    md = None if mask is None else mask.parent.sparse_data()
    extra = value.sparse_data().indices if idx is None else idx
    U = _union(out.sparse_data().indices, extra, None if md is None else md.indices)
    out_c = vector_at(out, U)
    if idx is None:
        value_c, idx_c = vector_at(value, U), None
    else:
        value_c, idx_c = value, np.searchsorted(U, idx)
    mask_c = None
    if mask is not None:
        mask_c = Mask(vector_at(mask.parent, U), mask.structural, mask.complement)
    fn(out_c, value_c, idx_c, mask=mask_c, accum=accum, replace=replace)
    d = out_c.sparse_data()
    out._replace_data(VecData(out.size, U[np.asarray(d.indices, np.int64)],
                              np.ascontiguousarray(d.values), None))
    return out


def assign_matrix(out: Matrix, value, ri, ci, mask, accum, replace, fn):
    """``assign`` into a hypersparse ``out``: over the union of the rows and columns of
    out, the index lists, the value and the mask (``fn``: assign)."""
    check_cpu(out.device, "assign")
    m, n = out.shape
    scalar = np.isscalar(value)
    if scalar and (ri is None or ci is None):
        size = (m if ri is None else ri.size) * (n if ci is None else ci.size)
        raise too_big("assign", "indices" if ri is None else "cols", size,
                      "Give the rows and columns to assign as indices=[...], cols=[...].")
    vr = vc = vv = None
    if not scalar:
        vr, vc, vv = coo(value)
    orr, occ, ov = coo(out)
    mr = mc = None
    if mask is not None:
        mr, mc, _ = coo(mask.parent)
    R = _union(orr, ri if ri is not None else vr, mr)
    C = _union(occ, ci if ci is not None else vc, mc)
    out_c = Matrix(_local_csr(orr, occ, ov, R, C, out.dtype))
    ri_c = None if ri is None else np.searchsorted(R, ri)
    ci_c = None if ci is None else np.searchsorted(C, ci)
    value_c = value
    if not scalar:
        rr = vr if ri is not None else np.searchsorted(R, vr)
        cc = vc if ci is not None else np.searchsorted(C, vc)
        vshape = (ri.size if ri is not None else R.size, ci.size if ci is not None else C.size)
        value_c = Matrix(CSR.from_coo(rr, cc, vv, vshape))
    fn(out_c, value_c, ri_c, ci_c, mask=matrix_mask_at(mask, R, C), accum=accum,
       replace=replace)
    out._replace_csr(expand(out_c.csr(), R, C, (m, n)))
    return out
