"""Structural operations: ``reduce``, ``extract``, ``assign``, ``transpose``."""

from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes
from .._device import all_true, array_sum, count_nonzero, extreme, to_numpy, xp_for
from ..backends.registry import VecData
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg
from ..formats import CSR
from ..planner import plan_elementwise
from ..semirings import monoid as resolve_monoid
from ..semirings.builtin import BINARY
from ..semirings.ops import Semiring
from . import hyper
from ._args import check_common
from ._check import as_index_array
from .arrays import compress, csr_from_keys, map_binary, union
from .dispatch import dispatchable
from .keys import entries, is_matrix
from .matrix import Matrix, TransposedMatrix, canonical
from .operations import prepare_mxv
from .vector import Vector
from .writeback import compress_csr, writeback_matrix, writeback_vector

_REDUCE_SEMIRINGS: dict = {}


def _reduce_semiring(m) -> Semiring:
    """``(monoid, first)``: ``mxv(A, ones, s)`` reduces each row of A with the monoid."""
    s = _REDUCE_SEMIRINGS.get(id(m))
    if s is None:
        s = Semiring(f"{m.name}_first", m, BINARY["first"])
        _REDUCE_SEMIRINGS[id(m)] = s
    return s


def _axis(axis, call):
    if axis in (None,):
        return None
    if axis in (1, "rows", "row"):
        return "rows"
    if axis in (0, "columns", "cols", "col"):
        return "columns"
    raise bad_arg(InvalidValue, call, "axis", "None, 'rows' (1) or 'columns' (0)", repr(axis))


@dispatchable
def reduce(u, monoid="plus", *, axis=None, mask=None, accum=None, out=None, replace=False):
    """Reduce entries with a monoid.

    A Vector (or a Matrix with ``axis=None``) reduces to a NumPy scalar (the monoid's
    identity when there are no entries).  A Matrix with ``axis="rows"`` (or 1) reduces each
    row to a Vector entry, ``axis="columns"`` (or 0) each column; empty rows have no
    entry.  Vector results take mask/accum/out/replace.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 2], [0, 1, 1], [1, 2, 5], shape=(3, 2))
    >>> int(gb.reduce(A))
    8
    >>> gb.reduce(A, "max", axis="rows").to_coo()[1].tolist()
    [2, 5]
    >>> int(gb.reduce(gb.Vector.from_dense([3, 1, 2]), "min"))
    1
    """
    plan, run = prepare_reduce(u, monoid, axis=axis, mask=mask, accum=accum, out=out,
                                replace=replace)
    return run()


def _check_scalar_reduce(u, axis, mask, accum, out, replace, call: str) -> None:
    """A reduction to a scalar takes no axis, mask, accum, out or replace: name the
    argument given."""
    what = "a Vector" if isinstance(u, Vector) else "a Matrix with axis=None"
    fix = ("reduce returns the scalar: s = gb.reduce(v, monoid)." if isinstance(u, Vector)
           else "To reduce each row or column into a Vector (which takes mask, accum, out "
           "and replace), pass axis='rows' or axis='columns'.")
    if axis is not None:
        raise bad_arg(InvalidValue, call, "axis", "None for a Vector (it reduces to a "
                      "scalar)", f"axis={axis!r}", "Leave axis out.")
    for arg, value in (("mask", mask), ("accum", accum), ("out", out)):
        if value is not None:
            raise bad_arg(InvalidValue, call, arg, f"None when reducing {what} to a scalar",
                          f"{arg}={type(value).__name__ if arg != 'accum' else repr(value)}",
                          fix)
    if replace is not False:
        raise bad_arg(InvalidValue, call, "replace", f"False when reducing {what} to a "
                      "scalar", f"replace={replace!r}", fix)


def _order_free(m, u) -> bool:
    """Whether reducing ``u``'s values with ``m`` gives the same result in any order."""
    code = m.code if m.op.code is not None else None
    return code in ("min", "max", "lor", "land") or (
        code in ("plus", "times") and np.dtype(u.dtype).kind in "biu")


def prepare_reduce(u, monoid="plus", *, axis=None, mask=None, accum=None, out=None,
                    replace=False):
    call = "reduce"
    m = resolve_monoid(monoid, call)
    given_axis, axis = axis, _axis(axis, call)
    s = _reduce_semiring(m)
    if isinstance(u, Vector) or axis is None:
        if not isinstance(u, Vector) and not is_matrix(u):
            raise bad_arg(InvalidObject, call, "u", "a gb.Vector or gb.Matrix", type(u).__name__)
        _check_scalar_reduce(u, given_axis, mask, accum, out, replace, call)
        if isinstance(u, Vector) and u.is_dense_storage:
            d = u.dense_data()  # values only: no index array for a dense-stored Vector
            vals = d.values if d.present is None else compress(d.present, d.values, device=u.device)
        elif isinstance(u, Matrix) or (isinstance(u, TransposedMatrix) and _order_free(m, u)):
            # the stored values (row-major order of the stored matrix; a transpose's own
            # order matters only to float sums and products); no keys are built
            vals = canonical(u, call, "u")[0]._csr.dense_values()
        elif hyper.involved(u):  # a transpose's values in its order, O(entries)
            vals = hyper.coo(u)[2]
        else:
            _, vals = entries(u, call, "u")
        n = int(vals.shape[0])
        xp = xp_for(u.device)
        fast = _ufunc_reduce(m, vals, xp)
        if fast is not None:
            return plan_elementwise("reduce", u.device, "vectorized ufunc reduction"), fast
        row = CSR((1, n), xp.asarray(np.array([0, n], dtype=dtypes.index_dtype(n))),
                  xp.arange(n, dtype=dtypes.index_dtype(n)), vals, vals.dtype, None, u.device)
        ones = Vector(VecData(n, None, vals, None), vals.dtype, u.device)
        plan, run1 = prepare_mxv(Matrix(row), ones, s, _call="reduce")

        def run():
            y = run1()
            if y.nvals == 0:
                return m.identity_for(m.output_dtype(u.dtype))
            return to_numpy(y.dense_data().values)[0]

        return plan, run
    base, t = canonical(u, call, "u")
    if hyper.involved(base):  # each row of the compact view: no vector of ones per column
        mask, accum, out, device = check_common(call, Vector, (u.shape[0 if axis == "rows"
                                                else 1],), mask=mask, accum=accum, out=out,
                                                replace=replace, u=base)
        return hyper.prepare_reduce_axis(u if axis == "rows" else u.T, m, mask, accum, out,
                                         replace, device, prepare_reduce, writeback_vector)
    xp = xp_for(u.device)
    rows_axis = axis == "rows"
    n = u.shape[1] if rows_axis else u.shape[0]
    ones = Vector(VecData(n, None, xp.ones(n, u.dtype), None), u.dtype, u.device)
    A = u if rows_axis else (base if t else base.T)
    return prepare_mxv(A, ones, s, mask=mask, accum=accum, out=out, replace=replace,
                        _call="reduce")


def _ufunc_reduce(m, vals, xp):
    """A NumPy/CuPy reduction for built-in monoids whose ufunc has the same semantics."""
    dt = vals.dtype
    out_dt = m.output_dtype(dt)
    code = m.code if m.op.code is not None else None
    if vals.shape[0] == 0 or code is None:
        return None
    if dt.kind == "b" and code in ("plus", "max", "lor"):
        code = "lor"
    elif dt.kind == "b" and code in ("times", "min", "land"):
        code = "land"
    if dt.kind != "b" and code in ("plus", "times", "min", "max"):
        if code == "plus":
            f = lambda: xp.sum(vals, dtype=dt)  # noqa: E731
        elif code == "times":
            f = lambda: xp.prod(vals, dtype=dt)  # noqa: E731
        else:  # fmin/fmax on floats: NaN only when every value is NaN
            f = lambda: extreme(vals, code)  # noqa: E731

        def run():
            # inf + -inf = nan, integer wrap, all-NaN min: as defined, no warning
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                r = f()
            return dt.type(r.item() if hasattr(r, "item") else r)

        return run
    if code == "any":
        return lambda: dt.type(vals[0].item())
    if code == "lor":
        return lambda: out_dt.type(count_nonzero(vals) > 0)
    if code == "land":
        return lambda: out_dt.type(all_true(vals))
    return None


# ----------------------------------------------------------------------------- extract


@dispatchable
def extract(u, indices=None, cols=None, *, mask=None, accum=None, out=None, replace=False):
    """Sub-vector ``u[indices]`` or sub-matrix ``A[rows, cols]`` (None = all).

    Index lists may repeat and come in any order; the result follows their order.

    Examples
    --------
    >>> import gblas as gb
    >>> u = gb.Vector.from_coo([1, 3], [10, 30], size=5)
    >>> gb.extract(u, [3, 0, 1]).to_dense().tolist()
    [30, 0, 10]
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], [5, 6], shape=(2, 3))
    >>> gb.extract(A, [1], [2, 1]).to_dense().tolist()
    [[6, 0]]
    """
    call = "extract"
    if isinstance(u, Vector):
        if cols is not None:
            raise bad_arg(InvalidValue, call, "cols", "None for a Vector", "an index array")
        if hyper.involved(u):  # a sparse Vector far larger than its entries
            idx = None if indices is None else as_index_array(indices, call, "indices", u.size)
            mask, accum, out, device = check_common(
                call, Vector, (u.size if idx is None else idx.size,), mask=mask, accum=accum,
                out=out, replace=replace, u=u)
            T = hyper.extract_vector(u, idx, call)
            return writeback_vector(out, T, u.dtype, mask, accum, replace, device)
        idx = (np.arange(u.size) if indices is None
               else as_index_array(indices, call, "indices", u.size))
        mask, accum, out, device = check_common(call, Vector, (idx.size,), mask=mask,
                                                accum=accum, out=out, replace=replace, u=u)
        xp = xp_for(device)
        d = u.dense_data()
        gi = xp.asarray(idx)
        present = None if d.present is None else d.present[gi]
        T = VecData(idx.size, None, d.values[gi], present)
        return writeback_vector(out, T, u.dtype, mask, accum, replace, device)
    base, t = canonical(u, call, "u")
    m, n = u.shape
    if hyper.involved(base):  # the entries in the index sets, O(entries log entries)
        ri = None if indices is None else as_index_array(indices, call, "indices", m)
        ci = None if cols is None else as_index_array(cols, call, "cols", n)
        shape = (m if ri is None else ri.size, n if ci is None else ci.size)
        mask, accum, out, device = check_common(call, Matrix, shape, mask=mask, accum=accum,
                                                out=out, replace=replace, u=base)
        hyper.check_cpu(device, call)
        T = hyper.extract_matrix(u, ri, ci, shape)
        return writeback_matrix(out, T, mask, accum, replace, device)
    ri = np.arange(m) if indices is None else as_index_array(indices, call, "indices", m)
    ci = None if cols is None else as_index_array(cols, call, "cols", n)
    shape = (ri.size, n if ci is None else ci.size)
    mask, accum, out, device = check_common(call, Matrix, shape, mask=mask, accum=accum,
                                            out=out, replace=replace, u=base)
    T = _extract_csr(base.csr(transposed=t), ri, ci, device)
    return writeback_matrix(out, T, mask, accum, replace, device)


def _extract_csr(csr: CSR, ri: np.ndarray, ci, device: str) -> CSR:
    xp = xp_for(device)
    rows = xp.asarray(ri)
    starts = csr.indptr[rows].astype(np.int64)
    counts = (csr.indptr[rows + 1] - csr.indptr[rows]).astype(np.int64)
    total = array_sum(counts)
    new_row = xp.repeat(xp.arange(ri.size, dtype=np.int64), counts)
    offs = xp.arange(total, dtype=np.int64) - xp.repeat(xp.cumsum(counts) - counts, counts)
    src = xp.repeat(starts, counts) + offs
    cols = csr.indices[src].astype(np.int64)
    vals = csr.dense_values()[src]
    ncols = csr.shape[1]
    if ci is not None:
        order = np.argsort(ci, kind="stable")
        sorted_ci = xp.asarray(ci[order])
        lo = xp.searchsorted(sorted_ci, cols, side="left")
        hi = xp.searchsorted(sorted_ci, cols, side="right")
        reps = hi - lo
        new_row = xp.repeat(new_row, reps)
        vals = xp.repeat(vals, reps)
        base = xp.repeat(lo, reps)
        k = xp.arange(base.shape[0], dtype=np.int64) - xp.repeat(xp.cumsum(reps) - reps, reps)
        cols = xp.asarray(order)[base + k]
        ncols = ci.size
    keys = new_row * max(ncols, 1) + cols
    srt = xp.argsort(keys)
    return csr_from_keys(keys[srt], vals[srt], (ri.size, ncols), csr.dtype, device)


# ------------------------------------------------------------------------------ assign


@dispatchable
def assign(out, value, indices=None, cols=None, *, mask=None, accum=None, replace=False):
    """Assign into positions of ``out``: ``out<mask>(I) (+)= value`` (or ``(I, J)``).

    ``value`` is a scalar (every position in the index set) or a Vector/Matrix of the index
    set's shape.  Without accum, positions of the index set that ``value`` has no entry for
    lose their entry.  The mask has ``out``'s shape; ``replace`` applies to all of ``out``.

    Examples
    --------
    >>> import gblas as gb
    >>> w = gb.Vector.from_dense([1, 2, 3, 4])
    >>> gb.assign(w, 0, [1, 2]).to_dense().tolist()
    [1, 0, 0, 4]
    >>> gb.assign(w, 5, [0], accum="plus").to_dense().tolist()
    [6, 0, 0, 4]
    """
    call = "assign"
    if isinstance(out, (Vector, Matrix)) and hyper.involved(out):
        return _assign_hyper(out, value, indices, cols, mask, accum, replace)
    if isinstance(out, Vector):
        if cols is not None:
            raise bad_arg(InvalidValue, call, "cols", "None for a Vector", "an index array")
        idx = (None if indices is None
               else as_index_array(indices, call, "indices", out.size))
        region_shape = (out.size if idx is None else idx.size,)
    elif isinstance(out, Matrix):
        ri = (np.arange(out.shape[0]) if indices is None
              else as_index_array(indices, call, "indices", out.shape[0]))
        ci = (np.arange(out.shape[1]) if cols is None
              else as_index_array(cols, call, "cols", out.shape[1]))
        region_shape = (ri.size, ci.size)
    else:
        raise bad_arg(InvalidObject, call, "out", "a gb.Vector or gb.Matrix to assign into",
                      type(out).__name__)
    mask, accum, device = _check_assign(call, out, value, region_shape, mask, accum, replace)
    scalar = np.isscalar(value)
    # the value's type: a scalar's as combined with out's (an accumulator unifies them)
    vdt = (dtypes.lookup(np.result_type(out.dtype, value), call, "value") if scalar
           else value.dtype)
    xp = xp_for(device)
    if (isinstance(out, Vector) and scalar and indices is None and not replace
            and mask is not None):
        # out<mask> (+)= s over the whole vector: only the mask's positions can change,
        # so T is the scalar there alone (a scatter of O(mask) into out, not the passes
        # over every position below: a BFS's levels<frontier> = depth)
        pos = mask.allowed_indices()
        if pos is not None:
            T = VecData(out.size, pos, xp.full(pos.shape[0], value, dtype=vdt), None)
            return writeback_vector(out, T, vdt, mask, accum, False, device,
                                    premasked=True)
    if isinstance(out, Vector):
        idx = np.arange(out.size) if idx is None else idx
        if scalar:
            rk, rv = np.arange(idx.size), np.full(idx.size, value, dtype=vdt)
            rk, rv = xp.asarray(rk), xp.asarray(rv)
        else:
            rk, rv = value.sparse_data().indices, value.sparse_data().values
        gi = xp.asarray(idx)
        # Z = out outside I; inside I: value (with accum: out(I) accum value)
        od = out.dense_data()
        n = out.size
        zp = xp.ones(n, bool) if od.present is None else od.present.copy()
        zv = od.values.copy()
        region_p = xp.zeros(idx.size, bool)
        region_p[rk] = True
        region_v = xp.zeros(idx.size, out.dtype)
        region_v[rk] = rv.astype(out.dtype)
        if accum is not None:
            cd = dtypes.unify(out.dtype, vdt)
            old_p = zp[gi]
            both = region_p & old_p
            if count_nonzero(both):
                full = xp.zeros(idx.size, vdt)
                full[rk] = rv
                r = map_binary(accum, zv[gi][both].astype(cd), full[both].astype(cd), cd, device)
                region_v[both] = r.astype(out.dtype)
            keep_old = old_p & ~region_p
            region_v[keep_old] = zv[gi][keep_old]
            region_p = region_p | old_p
        zv[gi] = region_v
        zp[gi] = region_p
        T = VecData(n, None, zv, zp)
        return writeback_vector(out, T, out.dtype, mask, None, replace, device)
    if (scalar and indices is None and cols is None and not replace and mask is not None
            and not mask.complement and not hyper.involved(mask.parent)):
        # out<mask> (+)= s over the whole matrix: T is the scalar at the mask's entries
        # alone (its pattern, or the entries of true value), merged into out in linear
        # time; building Z by keys below lists every position of the matrix
        if mask.parent is out and mask.structural and accum is None:
            # C<C.S> = s: C's own pattern with every value s, the pattern shared
            oc = out.csr()
            s = np.asarray(value, dtype=vdt).astype(out.dtype)[()]
            out._replace_csr(CSR(oc.shape, oc.indptr, oc.indices, None, out.dtype, s, device))
            return out
        return writeback_matrix(out, _scalar_at(mask, value, vdt, device), mask, accum,
                                False, device)
    # matrix: build Z by keys
    oc = out.csr()
    m, n = out.shape
    okeys, ovals = entries(out, call, "out")
    gr, gc = xp.asarray(ri), xp.asarray(ci)
    if scalar:
        rr = xp.repeat(gr, ci.size)
        cc = xp.tile(gc, ri.size)
        rvals = xp.full(rr.shape[0], value, dtype=vdt)
    else:
        r_, c_, rvals = value.to_coo()
        rr, cc = gr[r_], gc[c_]
    rkeys = rr * max(n, 1) + cc
    srt = xp.argsort(rkeys)
    rkeys, rvals = rkeys[srt], rvals[srt]
    in_region = _region_member(okeys, gr, gc, n, xp)
    keep = ~in_region
    if accum is None:
        zk = xp.concatenate([okeys[keep], rkeys])
        zv = xp.concatenate([ovals[keep], rvals.astype(out.dtype)])
    else:
        old_k, old_v = okeys[in_region], ovals[in_region]
        keys, in_a, in_b = union(old_k, rkeys, xp)
        cd = dtypes.unify(out.dtype, vdt)
        vals = xp.zeros(keys.shape[0], out.dtype)
        ia, ib = xp.searchsorted(old_k, keys), xp.searchsorted(rkeys, keys)
        oa, ob, both = in_a & ~in_b, in_b & ~in_a, in_a & in_b
        vals[oa] = old_v[ia[oa]]
        vals[ob] = rvals[ib[ob]].astype(out.dtype)
        if count_nonzero(both):
            vals[both] = map_binary(accum, old_v[ia[both]].astype(cd),
                                    rvals[ib[both]].astype(cd), cd, device).astype(out.dtype)
        zk = xp.concatenate([okeys[keep], keys])
        zv = xp.concatenate([ovals[keep], vals])
    srt = xp.argsort(zk)
    del oc
    T = csr_from_keys(zk[srt], zv[srt], (m, n), out.dtype, device)
    return writeback_matrix(out, T, mask, None, replace, device)


def _scalar_at(mask, value, vdt, device: str) -> CSR:
    """The CSR holding ``value`` (as ``vdt``) at each entry a (not complemented) matrix
    mask allows."""
    mm = mask.matmask()
    shape = tuple(mask.shape)
    iso = CSR(shape, mm.indptr, mm.indices, None, np.dtype(vdt), np.dtype(vdt).type(value),
              device)
    if mm.values is None:  # the mask's pattern
        return iso
    keep = mm.values.astype(bool)
    return compress_csr(iso, keep, iso.dense_values(), vdt, device)


def _check_assign(call: str, out, value, region: tuple, mask, accum, replace):
    """assign's checks of ``value`` (a scalar, or a Vector / Matrix as ``out`` is, of the
    index set's shape ``region``) and of the mask and accum: ``(mask, accum, device)``."""
    scalar = np.isscalar(value)
    if not scalar:
        vec = isinstance(out, Vector)
        kind = Vector if vec else Matrix
        if not (isinstance(value, Vector) if vec else is_matrix(value)):
            raise bad_arg(InvalidObject, call, "value", f"a scalar or a gb.{kind.__name__}",
                          type(value).__name__)
        if tuple(value.shape) != region:
            raise bad_arg(DimensionMismatch, call, "value", f"shape {region} (the index "
                          "set's)", f"shape {tuple(value.shape)}")
    mask, accum, _, device = check_common(call, type(out), tuple(out.shape), mask=mask,
                                          accum=accum, out=None, replace=replace, out_=out,
                                          value=None if scalar else value)
    return mask, accum, device


def _assign_hyper(out, value, indices, cols, mask, accum, replace):
    """assign into a hypersparse ``out``: the arguments checked as :func:`assign` does,
    then the compact problem (:func:`gblas.core.hyper.assign_vector` / ``assign_matrix``)."""
    call = "assign"
    vec = isinstance(out, Vector)
    if vec and cols is not None:
        raise bad_arg(InvalidValue, call, "cols", "None for a Vector", "an index array")
    dims = (out.size,) if vec else out.shape
    idx = [None if i is None else as_index_array(i, call, a, d)
           for i, a, d in zip((indices, cols), ("indices", "cols"), dims)]
    region = tuple(d if i is None else i.size for i, d in zip(idx, dims))
    mask, accum, device = _check_assign(call, out, value, region, mask, accum, replace)
    if vec:
        return hyper.assign_vector(out, value, idx[0], mask, accum, replace, assign)
    return hyper.assign_matrix(out, value, idx[0], idx[1], mask, accum, replace, assign)


def _region_member(keys, gr, gc, n, xp):
    """Whether each key lies in the index set rows x cols."""
    rows = keys // max(n, 1)
    cols = keys - rows * max(n, 1)
    rs, cs = xp.sort(gr), xp.sort(gc)
    rpos = xp.minimum(xp.searchsorted(rs, rows), max(rs.shape[0] - 1, 0))
    cpos = xp.minimum(xp.searchsorted(cs, cols), max(cs.shape[0] - 1, 0))
    if rs.shape[0] == 0 or cs.shape[0] == 0:
        return xp.zeros(keys.shape[0], bool)
    return (rs[rpos] == rows) & (cs[cpos] == cols)


# --------------------------------------------------------------------------- transpose


@dispatchable
def transpose(A, *, mask=None, accum=None, out=None, replace=False):
    """``out<mask> (+)= A^T`` (``A.T`` is the lazy view; this materializes it).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0], [1], [7], shape=(2, 3))
    >>> gb.transpose(A).shape
    (3, 2)
    """
    call = "transpose"
    base, t = canonical(A, call, "A")
    shape = tuple(A.shape[::-1])
    mask, accum, out, device = check_common(call, Matrix, shape, mask=mask, accum=accum,
                                            out=out, replace=replace, A=base)
    if hyper.involved(base, mask, out):  # the transposed DCSR, not a CSR per row
        hyper.check_cpu(device, call)
        return writeback_matrix(out, hyper.oriented(base, not t), mask, accum, replace, device)
    T = base.csr(transposed=not t)
    return writeback_matrix(out, T, mask, accum, replace, device)

