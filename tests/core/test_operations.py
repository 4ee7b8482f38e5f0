"""Every operation against the reference oracle.

Representative combinations rather than the full cross product (each new (semiring,
dtype) kernel costs about a second of Numba compilation):

* products: each semiring family (plus_times, min_plus, max_min / max_times, any_pair /
  any_second, lor_land, plus_pair, user-defined) with its own dtype pair, mxv pinned to
  both directions, vxm, mxm with both methods;
* element-wise, apply, select, reduce, extract, assign, transpose with a few operators;
* every test draws the mask kind (none, S, V, ~S, ~V), accum (None, plus, min, second),
  replace and whether ``out`` is given, so a run covers the write-back broadly, and
  ``test_write_back_sweep_*`` runs the complete mask x accum x replace x out table on fixed
  data;
* operands are drawn with every storage: sparse and dense vectors, valued and iso
  (or pattern) matrices; NaN and infinities get their own test;
* each test runs on "cpu", and on "gpu" (marked ``gpu``) where one is found.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import draw_writeback, product_case_id, result_dtype
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas import formats
from gblas.backends import reference as ref
from gblas.backends.registry import has_kernel
from gblas.testing import assert_equal, assert_scalar_equal, to_reference
from gblas.testing import strategies as gst

USER = gst.USER_SEMIRINGS

# (semiring, dtype of A, dtype of x/B): one row per family member
PRODUCT_CASES = [
    ("plus_times", "float64", "float64"),
    ("plus_times", "int8", "int8"),  # wraps
    ("min_plus", "float32", "float32"),
    ("min_plus", "int32", "int64"),  # mixed dtypes: T = int64
    ("max_min", "uint8", "uint8"),
    ("max_times", "float64", "int16"),
    ("any_pair", "float64", "float64"),
    ("any_second", "int64", "int64"),
    ("lor_land", "bool", "bool"),
    ("plus_pair", "int64", "float64"),
    (USER["max_clip"], "float64", "float64"),
    (USER["plus_absdiff"], "int32", "int32"),
]
# a smaller set for the variants that compile their own kernels
SOME_PRODUCT_CASES = [PRODUCT_CASES[i] for i in (0, 2, 5, 7, 8, 10)]


MAX_DIM = 7


def check(gb_fn, ref_fn, args, kw, *, ref_args=None, extra=None, rtol=None):
    """Run the gblas call and the oracle on the same inputs; compare; check ``out``."""
    extra = extra or {}
    rkw = {
        "mask": None if kw["mask"] is None else to_reference(kw["mask"]),
        "accum": kw["accum"],
        "replace": kw["replace"],
        "out": None if kw["out"] is None else to_reference(kw["out"]),
    }
    expected = ref_fn(*(ref_args or [to_reference(a) for a in args]), **extra, **rkw)
    got = gb_fn(*args, **extra, **kw)
    if kw["out"] is not None:
        assert got is kw["out"], "with out=, the same object must be returned"
    assert_equal(got, expected, rtol=rtol)
    return got


# ----------------------------------------------------------------------------- mxv


@pytest.mark.parametrize("direction", ["pull", "push"])
@pytest.mark.parametrize("case", PRODUCT_CASES, ids=product_case_id)
@given(data=st.data())
def test_mxv(case, direction, device, data):
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    transposed = data.draw(st.booleans(), label="A.T")
    if transposed:
        A = data.draw(gst.matrices((n, m), adt, iso=None, device=device), label="A^T").T
    else:
        A = data.draw(gst.matrices((m, n), adt, iso=None, device=device), label="A")
    x = data.draw(gst.vectors(n, xdt, device=device), label="x")
    kw = draw_writeback(data, m, result_dtype(s, adt, xdt), device)
    with gb.config(direction=direction):
        plan = gb.explain(gb.mxv, A, x, s, mask=kw["mask"])
        assert plan.direction == direction
        check(gb.mxv, ref.mxv, (A, x), kw, extra={"semiring": s})


@pytest.mark.parametrize("case", SOME_PRODUCT_CASES, ids=product_case_id)
@given(data=st.data())
def test_mxv_planner_choice(case, device, data):
    """Whatever direction the planner picks (sparse or dense x), the result is the same."""
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices((m, n), adt, iso=None, device=device), label="A")
    x = data.draw(gst.vectors(n, xdt, device=device), label="x")
    kw = draw_writeback(data, m, result_dtype(s, adt, xdt), device)
    check(gb.mxv, ref.mxv, (A, x), kw, extra={"semiring": s})


def test_matmul_operator(device):
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], [2.0, 3.0, 4.0], shape=(2, 2)).to(device)
    x = gb.Vector.from_dense(np.array([1.0, 10.0])).to(device)
    expected = ref.mxv(to_reference(A), to_reference(x))
    assert_equal(A @ x, expected)
    assert_equal(A.T @ x, ref.mxv(to_reference(A).T, to_reference(x)))
    assert_equal(x @ A, ref.vxm(to_reference(x), to_reference(A)))
    assert_equal(A @ A.T, ref.mxm(to_reference(A), to_reference(A).T))


# ----------------------------------------------------------------------------- vxm


@pytest.mark.parametrize("case", SOME_PRODUCT_CASES + [PRODUCT_CASES[11]], ids=product_case_id)
@given(data=st.data())
def test_vxm(case, device, data):
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices((m, n), adt, iso=None, device=device), label="A")
    x = data.draw(gst.vectors(m, xdt, device=device), label="x")
    kw = draw_writeback(data, n, result_dtype(s, xdt, adt), device)
    check(gb.vxm, ref.vxm, (x, A), kw, extra={"semiring": s})


# ----------------------------------------------------------------------------- mxm


@pytest.mark.parametrize("method", ["saxpy", "dot"])
@pytest.mark.parametrize("case", SOME_PRODUCT_CASES, ids=product_case_id)
@given(data=st.data())
def test_mxm(case, method, device, data):
    s, adt, bdt = case
    m, k, n = (data.draw(st.integers(0, 6), label=d) for d in "mkn")
    ta, tb = data.draw(st.booleans(), label="A.T"), data.draw(st.booleans(), label="B.T")
    A = data.draw(gst.matrices((k, m) if ta else (m, k), adt, iso=None, device=device), label="A")
    B = data.draw(gst.matrices((n, k) if tb else (k, n), bdt, iso=None, device=device), label="B")
    A, B = (A.T if ta else A), (B.T if tb else B)
    # the dot method computes one entry per allowed position: it needs a plain mask
    kinds = ("S", "V") if method == "dot" else gst.MASK_KINDS
    kw = draw_writeback(data, (m, n), result_dtype(s, adt, bdt), device, mask_kinds=kinds)
    with gb.config(mxm_method=method):
        check(gb.mxm, ref.mxm, (A, B), kw, extra={"semiring": s})


# ---------------------------------------------------------------------- element-wise

# (op, dtype of u, dtype of v)
EWISE_CASES = [
    ("plus", "int64", "int64"),
    ("minus", "int8", "float32"),  # mixed: float32
    ("min", "float64", "float64"),
    ("times", "uint16", "uint16"),
    ("any", "float64", "float64"),
    ("lor", "int32", "int32"),  # bool output: one-sided values cast to bool
    ("lt", "float32", "float32"),
    ("first", "bool", "int16"),
    (gst.USER_MONOIDS["umax"].op, "int64", "int64"),
]


def _eid(case):
    op, a, b = case
    return f"{getattr(op, 'name', op)}-{a}-{b}"


@pytest.mark.parametrize("vector", [True, False], ids=["vector", "matrix"])
@pytest.mark.parametrize("union", [True, False], ids=["add", "mult"])
@pytest.mark.parametrize("case", EWISE_CASES, ids=_eid)
@given(data=st.data())
def test_ewise(case, union, vector, device, data):
    op, udt, vdt = case
    if vector:
        shape = data.draw(st.integers(0, 10), label="size")
        u = data.draw(gst.vectors(shape, udt, device=device), label="u")
        v = data.draw(gst.vectors(shape, vdt, device=device), label="v")
    else:
        shape = data.draw(gst.shapes(MAX_DIM), label="shape")
        u = data.draw(gst.matrices(shape, udt, iso=None, device=device), label="u")
        v = data.draw(gst.matrices(shape, vdt, iso=None, device=device), label="v")
    bop = gb.semirings.binary_op(op)
    t_dtype = bop.output_dtype(gb.dtypes.unify(np.dtype(udt), np.dtype(vdt)))
    kw = draw_writeback(data, shape, t_dtype, device)
    gb_fn, ref_fn = (gb.ewise_add, ref.ewise_add) if union else (gb.ewise_mult, ref.ewise_mult)
    check(gb_fn, ref_fn, (u, v), kw, extra={"op": op})


# ----------------------------------------------------------------------------- apply

# (op, dtype, left, right)
APPLY_CASES = [
    ("ainv", "int8", None, None),
    ("abs", "float32", None, None),
    ("lnot", "int64", None, None),
    ("minv", "float64", None, None),
    ("one", "uint32", None, None),
    ("sqrt", "float32", None, None),
    ("minus", "int16", None, 3),
    ("minus", "int16", 3, None),
    ("times", "int64", None, 0.5),  # float scalar: float64 result
    ("gt", "float64", None, 1.0),
    ("div", "float64", 1.0, None),
    ("max", "uint8", np.uint8(7), None),
]


@pytest.mark.parametrize("vector", [True, False], ids=["vector", "matrix"])
@pytest.mark.parametrize("case", APPLY_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
@given(data=st.data())
def test_apply(case, vector, device, data):
    op, dt, left, right = case
    positive = op in ("sqrt", "minv", "div")
    obj = _draw_operand(data, vector, dt, device, nonzero=positive)
    bound = {}
    if left is not None:
        bound["left"] = left
    if right is not None:
        bound["right"] = right
    T = ref.apply(to_reference(obj), op, **bound)
    kw = draw_writeback(data, _shape(obj), T.dtype, device)
    # float32 sqrt may round differently from float64-then-round: 1 ulp
    check(gb.apply, ref.apply, (obj,), kw, extra={"op": op, **bound},
          rtol=1e-6 if op == "sqrt" else None)


def _shape(obj):
    s = tuple(obj.shape)
    return s[0] if len(s) == 1 else s


def _draw_operand(data, vector, dt, device, nonzero=False):
    if vector:
        strat = gst.vectors(size=None, dtype=dt, device=device)
    else:
        strat = gst.matrices(None, dt, max_dim=MAX_DIM, iso=None, device=device)
    obj = data.draw(strat, label="u")
    if nonzero:  # positive values for sqrt/minv/div (no inf/nan from the data)
        obj = gb.apply(obj, "abs")
        obj = gb.select(obj, "valuegt", 0)
    return obj


# ---------------------------------------------------------------------------- select

SELECT_CASES = [
    ("tril", None), ("tril", -1), ("triu", None), ("triu", 2), ("diag", None), ("diag", 1),
    ("offdiag", None), ("rowle", 2), ("rowgt", 1), ("colle", 3), ("colgt", 0),
    ("valueeq", 1.0), ("valuene", 0.0), ("valuegt", 0.0), ("valuege", 2.0), ("valuelt", -1.0),
    ("valuele", 0.5),
]
VECTOR_SELECT = [c for c in SELECT_CASES if c[0].startswith(("row", "value"))]


@pytest.mark.parametrize("case", SELECT_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@given(data=st.data())
def test_select_matrix(case, device, data):
    op, thunk = case
    A = data.draw(gst.matrices(None, "float64", max_dim=MAX_DIM, iso=None, device=device),
                  label="A")
    kw = draw_writeback(data, tuple(A.shape), A.dtype, device)
    check(gb.select, ref.select, (A,), kw, extra={"op": op, "thunk": thunk})


@pytest.mark.parametrize("case", VECTOR_SELECT, ids=lambda c: f"{c[0]}-{c[1]}")
@given(data=st.data())
def test_select_vector(case, device, data):
    op, thunk = case
    dt = "int32" if op.startswith("value") else "float32"
    u = data.draw(gst.vectors(None, dt, small=True, device=device), label="u")
    thunk = int(thunk) if dt == "int32" else thunk
    kw = draw_writeback(data, u.size, u.dtype, device)
    check(gb.select, ref.select, (u,), kw, extra={"op": op, "thunk": thunk})


# ---------------------------------------------------------------------------- reduce

REDUCE_CASES = [
    ("plus", "int8"), ("plus", "float64"), ("times", "int64"), ("min", "float32"),
    ("max", "uint16"), ("any", "int64"), ("lor", "int32"), ("land", "bool"),
    ("lxor", "bool"), (gst.USER_MONOIDS["umax"], "float64"), (gst.USER_MONOIDS["bor"], "int16"),
]


def _rid(case):
    return f"{getattr(case[0], 'name', case[0])}-{case[1]}"


@pytest.mark.parametrize("vector", [True, False, "T"], ids=["vector", "matrix", "matrix.T"])
@pytest.mark.parametrize("case", REDUCE_CASES, ids=_rid)
@given(data=st.data())
def test_reduce_scalar(case, vector, device, data):
    """Vectors, matrices and transposes (an order-free monoid reads the stored values of a
    transpose, a float sum its entries in the transpose's order)."""
    monoid, dt = case
    u = _draw_operand(data, vector is True, dt, device)
    if vector == "T":
        u = u.T
    expected = ref.reduce(to_reference(u), monoid)
    got = gb.reduce(u, monoid)
    out_dt = gb.semirings.monoid(monoid).output_dtype(np.dtype(dt))
    assert np.ndim(got) == 0
    assert_scalar_equal(got, expected, dtype=out_dt, rtol=1e-12)
    assert np.asarray(got).dtype == out_dt


@pytest.mark.parametrize("axis", ["rows", "columns", 0, 1])
@pytest.mark.parametrize("case", REDUCE_CASES[:6] + REDUCE_CASES[9:10], ids=_rid)
@given(data=st.data())
def test_reduce_axis(case, axis, device, data):
    monoid, dt = case
    A = data.draw(gst.matrices(None, dt, max_dim=MAX_DIM, iso=None, device=device), label="A")
    size = A.shape[0] if axis in ("rows", 1) else A.shape[1]
    t_dtype = gb.semirings.monoid(monoid).output_dtype(np.dtype(dt))
    kw = draw_writeback(data, size, t_dtype, device)
    check(gb.reduce, ref.reduce, (A,), kw, extra={"monoid": monoid, "axis": axis})


# ---------------------------------------------------------------------------- extract


def _index_list(data, n, label, *, unique=False, allow_none=True):
    if allow_none and data.draw(st.booleans(), label=f"{label} is None"):
        return None
    if n == 0:
        return []
    elems = st.integers(0, n - 1)
    return data.draw(st.lists(elems, max_size=n + 2, unique=unique), label=label)


@pytest.mark.parametrize("vector", [True, False], ids=["vector", "matrix"])
@pytest.mark.parametrize("dt", ["int64", "float32"])
@given(data=st.data())
def test_extract(dt, vector, device, data):
    u = _draw_operand(data, vector, dt, device)
    if vector:
        idx = [_index_list(data, u.size, "indices")]
        shape = u.size if idx[0] is None else len(idx[0])
    else:
        idx = [_index_list(data, u.shape[0], "rows"), _index_list(data, u.shape[1], "cols")]
        shape = tuple(u.shape[d] if idx[d] is None else len(idx[d]) for d in range(2))
    kw = draw_writeback(data, shape, u.dtype, device)
    expected = ref.extract(to_reference(u), *idx, **_ref_kw(kw))
    got = gb.extract(u, *idx, **kw)
    if kw["out"] is not None:
        assert got is kw["out"]
    assert_equal(got, expected)


def _ref_kw(kw):
    return {"mask": None if kw["mask"] is None else to_reference(kw["mask"]),
            "accum": kw["accum"], "replace": kw["replace"],
            "out": None if kw["out"] is None else to_reference(kw["out"])}


# ----------------------------------------------------------------------------- assign


@pytest.mark.parametrize("scalar", [True, False], ids=["scalar", "object"])
@pytest.mark.parametrize("vector", [True, False], ids=["vector", "matrix"])
@pytest.mark.parametrize("dt", ["int32", "float64"])
@given(data=st.data())
def test_assign(dt, vector, scalar, device, data):
    out = _draw_operand(data, vector, dt, device)
    if vector:
        idx = [_index_list(data, out.size, "indices", unique=True)]
        region = (out.size if idx[0] is None else len(idx[0]),)
    else:
        idx = [_index_list(data, out.shape[0], "rows", unique=True),
               _index_list(data, out.shape[1], "cols", unique=True)]
        region = tuple(out.shape[d] if idx[d] is None else len(idx[d]) for d in range(2))
    if scalar:
        value = data.draw(gst.scalars(dt), label="value")
    elif vector:
        value = data.draw(gst.vectors(region[0], dt, device=device), label="value")
    else:
        value = data.draw(gst.matrices(region, dt, iso=None, device=device), label="value")
    mask = data.draw(gst.masks(_shape(out), device=device), label="mask")
    accum = data.draw(gst.accums(), label="accum")
    replace = data.draw(st.booleans(), label="replace")
    before = to_reference(out)
    rvalue = value if scalar else to_reference(value)
    expected = ref.assign(before, rvalue, *idx, mask=None if mask is None else to_reference(mask),
                          accum=accum, replace=replace)
    got = gb.assign(out, value, *idx, mask=mask, accum=accum, replace=replace)
    assert got is out
    assert_equal(out, expected)


@pytest.mark.parametrize("dt", ["bool", "int32", "float64"])
@given(data=st.data())
def test_assign_scalar_under_mask(dt, device, data):
    """``out<m> (+)= s`` over the whole vector scatters the scalar at the mask's positions
    (sparse- or dense-stored out and mask, structural or value mask); the mask may be
    ``out``'s own structure."""
    out = data.draw(gst.vectors(size=None, dtype=dt, device=device), label="out")
    if data.draw(st.booleans(), label="dense storage with presence flags"):
        idx, vals = out.to("cpu").to_coo()
        values, present = np.zeros(out.size, dtype=out.dtype), np.zeros(out.size, bool)
        values[idx], present[idx] = vals, True
        out = gb.Vector.from_dense(values, present=present).to(device)
    own = data.draw(st.booleans(), label="mask of out itself")
    kinds = ["S", "V"]
    mask = (gst.make_mask(out, data.draw(st.sampled_from(kinds), label="kind")) if own else
            data.draw(gst.masks(out.size, kinds=kinds, device=device), label="mask"))
    value = data.draw(gst.scalars(dt), label="value")
    accum = data.draw(gst.accums(), label="accum")
    before = to_reference(out)
    expected = ref.assign(before, value, None, mask=to_reference(mask), accum=accum,
                          replace=False)
    assert out.nvals == before.nvals  # (counted now: the scatter keeps the count)
    got = gb.assign(out, value, mask=mask, accum=accum)
    assert got is out
    assert_equal(out, expected)
    assert out.nvals == expected.nvals


@pytest.mark.parametrize("dt", ["bool", "int32", "float64"])
@given(data=st.data())
def test_assign_scalar_under_matrix_mask(dt, device, data):
    """``C<M> (+)= s`` over the whole matrix writes the scalar at the mask's entries only
    (structural or value mask, possibly ``C``'s own structure), in time linear in the
    entries, not in the matrix's positions."""
    out = data.draw(gst.matrices(None, dt, max_dim=MAX_DIM, iso=None, device=device),
                    label="out")
    kinds = ["S", "V"]
    mask = (gst.make_mask(out, data.draw(st.sampled_from(kinds), label="kind"))
            if data.draw(st.booleans(), label="mask of out itself") else
            data.draw(gst.masks(tuple(out.shape), kinds=kinds, device=device), label="mask"))
    value = data.draw(gst.scalars(dt), label="value")
    accum = data.draw(gst.accums(), label="accum")
    expected = ref.assign(to_reference(out), value, None, None, mask=to_reference(mask),
                          accum=accum, replace=False)
    got = gb.assign(out, value, mask=mask, accum=accum)
    assert got is out
    assert_equal(out, expected)


def test_assign_scalar_under_own_structure(device):
    """``C<C.S> = s`` sets every entry of C to s (cast to C's type), C's pattern kept."""
    C = gb.Matrix.from_coo([0, 1, 2], [2, 0, 1], [1.5, -2.0, 0.0], shape=(3, 4))
    C = C.to(device)
    assert gb.assign(C, 7, mask=C.S) is C
    rows, cols, vals = (np.asarray(a.get() if hasattr(a, "get") else a) for a in C.to_coo())
    assert rows.tolist() == [0, 1, 2] and cols.tolist() == [2, 0, 1]
    assert vals.tolist() == [7.0, 7.0, 7.0] and C.dtype == np.float64
    Ci = gb.Matrix.from_coo([0, 1], [1, 0], [3, 4], shape=(2, 2), dtype="int8").to(device)
    gb.assign(Ci, 2.9, mask=Ci.S)  # the scalar cast to int8, as the general assign does
    assert Ci.dtype == np.int8
    assert [int(v) for v in np.asarray(Ci.to("cpu").to_coo()[2])] == [2, 2]


# -------------------------------------------------------------------------- transpose


@pytest.mark.parametrize("dt", ["bool", "float64"])
@given(data=st.data())
def test_transpose(dt, device, data):
    A = data.draw(gst.matrices(None, dt, max_dim=MAX_DIM, iso=None, device=device), label="A")
    kw = draw_writeback(data, tuple(A.shape[::-1]), A.dtype, device)
    check(gb.transpose, ref.transpose, (A,), kw)
    # a transposed view materializes back to A
    assert_equal(gb.transpose(A.T), to_reference(A))


# ------------------------------------------------------------ the write-back table

FIXED_A = ref.RefMatrix.from_dict((5, 4), {(0, 0): 1.5, (0, 3): -2.0, (1, 1): 4.0,
                                           (2, 0): 0.25, (2, 2): 3.0, (4, 3): 1.0}, "float64")
FIXED_X = ref.RefVector.from_dict(4, {0: 2.0, 2: -1.0, 3: 0.5}, "float64")
FIXED_OUT = ref.RefVector.from_dict(5, {0: 10.0, 3: 7.0, 4: 0.0}, "float64")
FIXED_MASK = ref.RefVector.from_dict(5, {0: 1, 1: 0, 3: 2, 4: 1}, "int8")
SWEEP = [(k, a, r, o) for k in gst.MASK_KINDS for a in gst.ACCUMS for r in (False, True)
         for o in (False, True) if o or (a is None and not r)]


def _gb_vec(r, device):
    i = np.array(sorted(r.data), dtype=np.int64)
    v = np.array([r.data[k] for k in sorted(r.data)], dtype=r.dtype)
    return gb.Vector.from_coo(i, v, r.size, dtype=r.dtype).to(device)


def _gb_mat(r, device):
    keys = sorted(r.data)
    rows = np.array([k[0] for k in keys], dtype=np.int64)
    cols = np.array([k[1] for k in keys], dtype=np.int64)
    vals = np.array([r.data[k] for k in keys], dtype=r.dtype)
    return gb.Matrix.from_coo(rows, cols, vals, shape=r.shape, dtype=r.dtype).to(device)


@pytest.mark.parametrize("direction", ["pull", "push"])
def test_write_back_sweep_mxv(direction, device):
    A, x = _gb_mat(FIXED_A, device), _gb_vec(FIXED_X, device)
    for kind, accum, replace, with_out in SWEEP:
        out = _gb_vec(FIXED_OUT, device) if with_out else None
        mask = gst.make_mask(_gb_vec(FIXED_MASK, device), kind)
        rmask = gst.make_mask(FIXED_MASK, kind)
        expected = ref.mxv(FIXED_A, FIXED_X, "plus_times", mask=rmask, accum=accum,
                           out=FIXED_OUT if with_out else None, replace=replace)
        with gb.config(direction=direction):
            got = gb.mxv(A, x, "plus_times", mask=mask, accum=accum, out=out, replace=replace)
        try:
            assert_equal(got, expected)
        except AssertionError as e:
            raise AssertionError(f"mask={kind} accum={accum} replace={replace} "
                                 f"out={'given' if with_out else 'None'}: {e}") from None


def test_write_back_sweep_matrix(device):
    A = _gb_mat(FIXED_A, device)
    Mref = ref.RefMatrix.from_dict((5, 4), {(0, 0): 1, (0, 1): 0, (2, 2): 5, (3, 3): 1,
                                            (4, 3): 0}, "int8")
    Oref = ref.RefMatrix.from_dict((5, 4), {(0, 0): 9.0, (1, 1): 1.0, (3, 0): 2.0}, "float64")
    M = _gb_mat(Mref, device)
    for kind, accum, replace, with_out in SWEEP:
        out = _gb_mat(Oref, device) if with_out else None
        expected = ref.apply(FIXED_A, "ainv", mask=gst.make_mask(Mref, kind), accum=accum,
                             out=Oref if with_out else None, replace=replace)
        got = gb.apply(A, "ainv", mask=gst.make_mask(M, kind), accum=accum, out=out,
                       replace=replace)
        try:
            assert_equal(got, expected)
        except AssertionError as e:
            raise AssertionError(f"mask={kind} accum={accum} replace={replace} "
                                 f"out={'given' if with_out else 'None'}: {e}") from None


# ------------------------------------------------------------------ output casting


@pytest.mark.parametrize("out_dt", ["int32", "float32", "bool"])
def test_out_dtype_casts(out_dt, device):
    A, x = _gb_mat(FIXED_A, device), _gb_vec(FIXED_X, device)
    rout = ref.RefVector.from_dict(5, {0: 3, 2: 1}, out_dt)
    for accum in (None, "plus", "max"):
        out = _gb_vec(rout, device)
        expected = ref.mxv(FIXED_A, FIXED_X, out=rout, accum=accum)
        got = gb.mxv(A, x, out=out, accum=accum)
        assert got is out and got.dtype == np.dtype(out_dt)
        assert_equal(got, expected)


# ------------------------------------------------------------------ formats


def _mxv_formats():
    out = []
    for fmt in sorted(formats.FORMATS):
        for direction in ("pull", "push"):
            out.append(pytest.param(fmt, direction, id=f"{fmt}-{direction}"))
    return out


@pytest.mark.parametrize("fmt, direction", _mxv_formats())
@given(data=st.data())
def test_mxv_every_format(fmt, direction, device, data):
    if not has_kernel("mxv", fmt, device, direction):
        pytest.skip(f"no {direction} mxv kernel registered for format {fmt!r} on {device}")
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices((m, n), "float64", iso=None, device=device), label="A")
    x = data.draw(gst.vectors(n, "float64", device=device), label="x")
    kw = draw_writeback(data, m, np.dtype("float64"), device)
    with gb.config(format=fmt, direction=direction):
        check(gb.mxv, ref.mxv, (A, x), kw, extra={"semiring": "min_plus"})


# ------------------------------------------------------------------- NaN and inf

NAN_CASES = [
    ("mxv", "min_plus"), ("mxv", "max_times"), ("mxv", "plus_times"), ("mxv", "max_min"),
    ("mxm", "min_plus"), ("vxm", "min_max"), ("ewise_add", "min"), ("ewise_mult", "max"),
    ("ewise_add", "plus"), ("reduce", "min"), ("reduce", "max"), ("reduce", "plus"),
    ("apply", "abs"), ("select", "valuegt"),
]


@pytest.mark.parametrize("case", NAN_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@given(data=st.data())
def test_nan_and_inf(case, device, data):
    """fmin/fmax ignore NaN (as SuiteSparse does); arithmetic propagates it."""
    func, op = case
    dt = data.draw(st.sampled_from(["float32", "float64"]), label="dtype")
    elems = gst.scalars(dt, allow_nan=True, allow_infinity=True)
    m, n = data.draw(gst.shapes(5), label="shape")
    A = data.draw(gst.matrices((m, n), dt, elements=elems, device=device), label="A")
    u = data.draw(gst.vectors(n, dt, elements=elems, device=device), label="u")
    w = data.draw(gst.vectors(m, dt, elements=elems, device=device), label="w")
    rA, ru, rw = to_reference(A), to_reference(u), to_reference(w)
    accum = data.draw(st.sampled_from([None, "min", "plus"]), label="accum")
    out = data.draw(gst.vectors(m, dt, elements=elems, device=device), label="out")
    rout = to_reference(out)
    if func == "mxv":
        got = gb.mxv(A, u, op, accum=accum, out=out)
        expected = ref.mxv(rA, ru, op, accum=accum, out=rout)
    elif func == "vxm":
        got = gb.vxm(w, A, op)
        expected = ref.vxm(rw, rA, op)
    elif func == "mxm":
        got = gb.mxm(A, A.T, op)
        expected = ref.mxm(rA, rA.T, op)
    elif func in ("ewise_add", "ewise_mult"):
        got = getattr(gb, func)(w, out, op)
        expected = getattr(ref, func)(rw, rout, op)
    elif func == "reduce":
        assert_scalar_equal(gb.reduce(A, op), ref.reduce(rA, op), dtype=dt)
        got = gb.reduce(A, op, axis="rows", accum=accum, out=out)
        expected = ref.reduce(rA, op, axis="rows", accum=accum, out=rout)
    elif func == "apply":
        got = gb.apply(A, op)
        expected = ref.apply(rA, op)
    else:
        got = gb.select(A, op, 0.0)
        expected = ref.select(rA, op, 0.0)
    assert_equal(got, expected)


# ------------------------------------------------------------------ aliasing


@pytest.mark.parametrize("what", ["mxv-out-is-x", "mxv-mask-is-out", "ewise-out-is-u",
                                  "apply-out-is-u", "mxm-out-is-A", "assign-mask-is-out"])
@given(data=st.data())
def test_out_aliases_an_input(what, device, data):
    """``out`` may also be an input (or the mask's parent): inputs are read before writing."""
    n = data.draw(st.integers(0, 7), label="n")
    A = data.draw(gst.matrices((n, n), "int64", iso=None, device=device), label="A")
    x = data.draw(gst.vectors(n, "int64", device=device), label="x")
    accum = data.draw(gst.accums(), label="accum")
    replace = data.draw(st.booleans(), label="replace")
    rA, rx = to_reference(A), to_reference(x)
    if what == "mxv-out-is-x":
        expected = ref.mxv(rA, rx, "plus_times", accum=accum, out=rx, replace=replace)
        got = gb.mxv(A, x, "plus_times", accum=accum, out=x, replace=replace)
    elif what == "mxv-mask-is-out":
        expected = ref.mxv(rA, rx, "min_plus", mask=~ref.RefMask(rx), accum=accum, out=rx,
                           replace=replace)
        got = gb.mxv(A, x, "min_plus", mask=~x.S, accum=accum, out=x, replace=replace)
    elif what == "ewise-out-is-u":
        expected = ref.ewise_add(rx, rx, "minus", mask=ref.RefMask(rx, False), accum=accum,
                                 out=rx, replace=replace)
        got = gb.ewise_add(x, x, "minus", mask=x.V, accum=accum, out=x, replace=replace)
    elif what == "apply-out-is-u":
        expected = ref.apply(rA, "ainv", accum=accum, out=rA, replace=replace)
        got = gb.apply(A, "ainv", accum=accum, out=A, replace=replace)
    elif what == "mxm-out-is-A":
        expected = ref.mxm(rA, rA, "plus_times", mask=ref.RefMask(rA), accum=accum, out=rA,
                           replace=replace)
        got = gb.mxm(A, A, "plus_times", mask=A.S, accum=accum, out=A, replace=replace)
    else:
        idx = list(range(0, n, 2))
        expected = ref.assign(rx, 5, idx, mask=~ref.RefMask(rx), accum=accum, replace=replace)
        got = gb.assign(x, 5, idx, mask=~x.S, accum=accum, replace=replace)
    assert_equal(got, expected)


# ---------------------------------------------------------- parallel kernel paths


@pytest.mark.parametrize("direction", ["pull", "push"])
@pytest.mark.parametrize("s, dt", [("plus_times", "float32"), ("min_plus", "uint8")])
def test_large_inputs_take_the_parallel_paths(s, dt, direction, device, rng):
    """Sizes above the kernels' parallel thresholds (the hypothesis tests stay below)."""
    n, nnz = 40_000, 120_000
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    vals = (rng.integers(-64, 64, nnz) / 4).astype(dt) if dt != "uint8" else \
        rng.integers(0, 255, nnz).astype(dt)
    A = gb.Matrix.from_coo(rows, cols, vals, shape=(n, n), dup_op="max").to(device)
    if direction == "pull":
        x = gb.Vector.from_dense(rng.integers(0, 8, n).astype(dt)).to(device)
    else:
        k = n // 3
        x = gb.Vector.from_coo(rng.choice(n, k, replace=False), rng.integers(0, 8, k),
                               size=n, dtype=dt).to(device)
    m = gb.Vector.from_coo(rng.choice(n, n // 2, replace=False), True, size=n).to(device)
    out = gb.Vector.from_coo(rng.choice(n, n // 4, replace=False), 1, size=n,
                             dtype=dt).to(device)
    rA, rx, rm, rout = (to_reference(o) for o in (A, x, m, out))
    with gb.config(direction=direction):
        got = gb.mxv(A, x, s, mask=~m.S, accum="plus", out=out)
    assert_equal(got, ref.mxv(rA, rx, s, mask=~ref.RefMask(rm), accum="plus", out=rout))


# ------------------------------------------------------------ chained results


@pytest.mark.parametrize("then", ["mxv-push", "mxv-pull", "vxm", "ewise_mult", "reduce",
                                  "extract", "assign", "mask", "select", "apply"])
@given(data=st.data())
def test_results_feed_further_operations(then, device, data):
    """A product's result (dense storage with holes) is a valid input to every call."""
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices((m, n), "float64", iso=None, device=device), label="A")
    x = data.draw(gst.vectors(n, "float64", device=device), label="x")
    with gb.config(direction="pull"):
        y = gb.mxv(A, x, "min_plus")
    rA, ry = to_reference(A), ref.mxv(to_reference(A), to_reference(x), "min_plus")
    assert_equal(y, ry)
    B = data.draw(gst.matrices((m, m), "float64", iso=None, device=device), label="B")
    rB = to_reference(B)
    if then.startswith("mxv"):
        with gb.config(direction=then[4:]):
            got, expected = gb.mxv(B, y, "plus_times"), ref.mxv(rB, ry, "plus_times")
    elif then == "vxm":
        got, expected = gb.vxm(y, A, "max_times"), ref.vxm(ry, rA, "max_times")
    elif then == "ewise_mult":
        got, expected = gb.ewise_mult(y, y, "plus"), ref.ewise_mult(ry, ry, "plus")
    elif then == "reduce":
        assert_scalar_equal(gb.reduce(y, "min"), ref.reduce(ry, "min"), dtype="float64")
        return
    elif then == "extract":
        idx = data.draw(st.lists(st.integers(0, max(m - 1, 0)), max_size=m), label="idx")
        idx = idx if m else []
        got, expected = gb.extract(y, idx), ref.extract(ry, idx)
    elif then == "assign":
        out = data.draw(gst.vectors(m, "float64", device=device), label="out")
        rout = to_reference(out)
        got = gb.assign(out, y, None, accum="min")
        expected = ref.assign(rout, ry, None, accum="min")
    elif then == "mask":
        kind = data.draw(st.sampled_from(["S", "V", "~S", "~V"]), label="kind")
        got = gb.mxv(B, y, "plus_times", mask=gst.make_mask(y, kind))
        expected = ref.mxv(rB, ry, "plus_times", mask=gst.make_mask(ry, kind))
    elif then == "select":
        got, expected = gb.select(y, "valuegt", 0.0), ref.select(ry, "valuegt", 0.0)
    else:
        got, expected = gb.apply(y, "minus", right=1.0), ref.apply(ry, "minus", right=1.0)
    assert_equal(got, expected)
