"""Hypersparse storage: dimensions up to 2**60 in O(entries) memory.

Every operation is checked against the reference oracle by embedding: a small problem
drawn by hypothesis is computed by ``gblas.backends.reference``; the same problem is
embedded in huge dimensions (index ``i`` -> ``i * 2**36 + 3``, dimension ``d`` ->
``2**40 + d``), run by gblas, and its result mapped back must equal the oracle's.  The
embedding keeps the order of ids, so every rule of masks, accumulators and ``replace``
carries over; positions outside the embedded ids hold no entry on either side.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import draw_writeback, result_dtype
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.backends import reference as ref
from gblas.exceptions import DimensionMismatch, OutOfMemory
from gblas.formats import FORMATS
from gblas.formats.hypersparse import Hypersparse
from gblas.planner.choose import choose_storage
from gblas.testing import assert_equal, assert_scalar_equal, to_reference
from gblas.testing import strategies as gst

STRIDE, OFF, BASE = 2**36, 3, 2**40
MAX_DIM = 6
CASES = [("plus_times", "float64", "float64"), ("min_plus", "int32", "int64"),
         ("any_pair", "float32", "bool"), ("lor_land", "bool", "bool")]
EXAMPLES = settings(max_examples=25, deadline=None)


def big(d: int) -> int:
    return BASE + d


def up(i):
    return np.asarray(i, np.int64) * STRIDE + OFF


def down(i):
    i = np.asarray(i, np.int64) - OFF
    assert np.all(i % STRIDE == 0), "an id outside the embedding"
    return i // STRIDE


def embed(obj):
    """The small Vector / Matrix / .T / mask in huge dimensions."""
    if obj is None:
        return None
    if isinstance(obj, gb.Vector):
        i, v = obj.to_coo()
        return gb.Vector.from_coo(up(i), v, size=big(obj.size), dtype=obj.dtype, dup_op=None)
    if hasattr(obj, "structural"):
        return gst.make_mask(embed(obj.parent), obj.kind)
    if isinstance(obj, gb.Matrix):
        r, c, v = obj.to_coo()
        return gb.Matrix.from_coo(up(r), up(c), v, shape=(big(obj.shape[0]), big(obj.shape[1])),
                                  dtype=obj.dtype, dup_op=None)
    return embed(obj.parent).T  # a .T view


def shrink(obj):
    """A huge result mapped back to the small dimensions."""
    if isinstance(obj, gb.Vector):
        assert not obj.is_dense_storage, "a huge Vector must stay sparse"
        i, v = obj.to_coo()
        return gb.Vector.from_coo(down(i), v, size=obj.size - BASE, dtype=obj.dtype)
    r, c, v = obj.to_coo()
    return gb.Matrix.from_coo(down(r), down(c), v, shape=(obj.shape[0] - BASE,
                                                          obj.shape[1] - BASE), dtype=obj.dtype)


def check(gb_fn, ref_fn, args, kw, extra=None, ref_args=None):
    """The oracle on the small problem against gblas on the embedded one."""
    extra = extra or {}
    rkw = {k: (None if kw[k] is None else to_reference(kw[k])) for k in ("mask", "out")}
    rkw.update(accum=kw["accum"], replace=kw["replace"])
    expected = ref_fn(*(ref_args or [to_reference(a) for a in args]), **extra, **rkw)
    bkw = dict(kw, mask=embed(kw["mask"]), out=embed(kw["out"]))
    got = gb_fn(*[embed(a) for a in args], **extra, **bkw)
    if bkw["out"] is not None:
        assert got is bkw["out"]
    if isinstance(got, gb.Matrix):
        assert got.is_hypersparse
    assert_equal(shrink(got), expected)


# ------------------------------------------------------------------- storage rule


def test_storage_rule_and_format_contract():
    assert choose_storage((2**60, 2**60), 10)[0] == "hypersparse"
    assert choose_storage((1000, 1000), 10)[0] == "csr"
    assert choose_storage((2**21, 2**21), 2**17)[0] == "csr"
    assert "hypersparse" in FORMATS and FORMATS["hypersparse"].pull_rank is None
    A = gb.Matrix.from_coo([0, 2**59], [2**59, 1], [1.0, 2.0], shape=(2**60, 2**60))
    assert A.is_hypersparse and A.shape == (2**60, 2**60) and A.nvals == 2
    assert A.storage().nbytes < 200
    A.storage().check_invariants()
    A.storage(transposed=True).check_invariants()
    small = gb.Matrix.from_coo([0, 1], [1, 0], shape=(2, 2))
    assert not small.is_hypersparse


@given(A=gst.matrices(max_dim=MAX_DIM, iso=None))
@settings(max_examples=30, deadline=None)
def test_round_trips(A):
    H = embed(A)
    assert H.is_hypersparse
    r, c, v = A.to_coo()
    r2, c2, v2 = H.to_coo()
    np.testing.assert_array_equal(down(r2), r)
    np.testing.assert_array_equal(down(c2), c)
    np.testing.assert_array_equal(v2, v)
    assert H.dup().isequal(H) and H.T.T.isequal(H)
    assert shrink(H.T.materialize()).isequal(A.T.materialize(), check_dtype=True)
    S = Hypersparse.from_csr(A.csr())
    S.check_invariants()
    assert gb.Matrix(S.to_csr()).isequal(A, check_dtype=True)


def test_duplicates_combine_as_in_csr():
    n = 2**45
    A = gb.Matrix.from_coo([7, 7, 2**44], [1, 1, 3], [1, 2, 300], shape=(n, n),
                           dup_op="plus", dtype=np.int64)
    assert A.is_hypersparse and A.dtype == np.int64
    assert A.to_coo()[2].tolist() == [3, 300]
    with pytest.raises(gb.exceptions.InvalidValue):
        gb.Matrix.from_coo([7, 7], [1, 1], [1, 2], shape=(n, n), dup_op=None)


# ---------------------------------------------------------------------- products


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
@given(data=st.data())
@EXAMPLES
def test_mxv_vxm(case, data):
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    transposed = data.draw(st.booleans(), label="A.T")
    A = data.draw(gst.matrices((n, m) if transposed else (m, n), adt, iso=None), label="A")
    A = A.T if transposed else A
    x = data.draw(gst.vectors(n, xdt), label="x")
    kw = draw_writeback(data, m, result_dtype(s, adt, xdt))
    check(gb.mxv, ref.mxv, (A, x), kw, extra={"semiring": s})
    u = data.draw(gst.vectors(m, xdt), label="u")
    kw = draw_writeback(data, n, result_dtype(s, xdt, adt))
    check(gb.vxm, ref.vxm, (u, A), kw, extra={"semiring": s})


@pytest.mark.parametrize("case", CASES[:2], ids=lambda c: c[0])
@given(data=st.data())
@EXAMPLES
def test_mxm(case, data):
    s, adt, bdt = case
    m, k, n = (data.draw(st.integers(0, MAX_DIM), label=f"dim{i}") for i in range(3))
    ta, tb = data.draw(st.booleans(), label="A.T"), data.draw(st.booleans(), label="B.T")
    A = data.draw(gst.matrices((k, m) if ta else (m, k), adt, iso=None), label="A")
    B = data.draw(gst.matrices((n, k) if tb else (k, n), bdt, iso=None), label="B")
    A, B = (A.T if ta else A), (B.T if tb else B)
    kw = draw_writeback(data, (m, n), result_dtype(s, adt, bdt))
    check(gb.mxm, ref.mxm, (A, B), kw, extra={"semiring": s})


def test_explain_names_the_storage():
    n = 2**40
    A = gb.Matrix.from_coo([1, 2**39], [2**39, 5], [1.0, 2.0], shape=(n, n))
    x = gb.Vector.from_coo([2**39], [3.0], size=n)
    plan = gb.explain(gb.mxv, A, x)
    assert plan.format == "hypersparse" and "hypersparse storage" in plan.reason
    assert plan.details["compact_shape"] == (2, 2)
    assert gb.explain(gb.mxm, A, A).format == "hypersparse"
    assert gb.explain(gb.reduce, A, axis="rows").format == "hypersparse"
    small = gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 2))
    assert gb.explain(gb.mxv, small, gb.Vector.from_dense([1.0, 1.0])).format == "csr"


# ------------------------------------------------------------------- elementwise


@given(data=st.data(), union=st.booleans())
@EXAMPLES
def test_ewise_matrices(data, union):
    shape = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices(shape, "float64", iso=None), label="A")
    B = data.draw(gst.matrices(shape, "int32", iso=None), label="B")
    op = data.draw(st.sampled_from(["plus", "min", "first", "times"]), label="op")
    kw = draw_writeback(data, shape, np.dtype("float64"))
    gb_fn, ref_fn = (gb.ewise_add, ref.ewise_add) if union else (gb.ewise_mult, ref.ewise_mult)
    check(gb_fn, ref_fn, (A, B), kw, extra={"op": op})


@given(data=st.data())
@EXAMPLES
def test_vectors_stay_sparse(data):
    n = data.draw(st.integers(0, MAX_DIM), label="n")
    u = data.draw(gst.vectors(n, "float64"), label="u")
    v = data.draw(gst.vectors(n, "float64"), label="v")
    kw = draw_writeback(data, n, np.dtype("float64"))
    check(gb.ewise_add, ref.ewise_add, (u, v), kw, extra={"op": "plus"})
    kw = draw_writeback(data, n, np.dtype("float64"))
    check(gb.apply, ref.apply, (u,), kw, extra={"op": "ainv"})
    kw = draw_writeback(data, n, np.dtype("float64"))
    check(gb.select, ref.select, (u,), kw, extra={"op": "valuegt", "thunk": 0.0})


@given(data=st.data())
@EXAMPLES
def test_apply_select_transpose(data):
    shape = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices(shape, "int64", iso=None), label="A")
    kw = draw_writeback(data, shape, np.dtype("int64"))
    check(gb.apply, ref.apply, (A,), kw, extra={"op": "times", "right": 3})
    op, thunk = data.draw(st.sampled_from([("tril", 0), ("triu", 0), ("diag", 0),
                                           ("offdiag", 0), ("valuegt", 0)]), label="op")
    kw = draw_writeback(data, shape, np.dtype("int64"))
    check(gb.select, ref.select, (A,), kw, extra={"op": op, "thunk": thunk})
    kw = draw_writeback(data, shape[::-1], np.dtype("int64"))
    check(gb.transpose, ref.transpose, (A,), kw)


def test_select_sees_global_indices():
    n = 2**41
    A = gb.Matrix.from_coo([10, 2**40, 2**40], [2**40, 10, 2**40 + 5], [1, 2, 3], shape=(n, n))
    assert gb.select(A, "tril").to_coo()[2].tolist() == [2]
    assert gb.select(A, "triu", 5).to_coo()[2].tolist() == [1, 3]
    assert gb.select(A, "rowgt", 2**39).to_coo()[2].tolist() == [2, 3]


# ------------------------------------------------------------------------ reduce


@given(data=st.data())
@EXAMPLES
def test_reduce(data):
    shape = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices(shape, "int64", iso=None), label="A")
    transposed = data.draw(st.booleans(), label="A.T")
    A = A.T.materialize() if transposed else A
    monoid = data.draw(st.sampled_from(["plus", "min", "max"]), label="monoid")
    assert_scalar_equal(gb.reduce(embed(A), monoid), ref.reduce(to_reference(A), monoid))
    assert_scalar_equal(gb.reduce(embed(A).T, monoid), ref.reduce(to_reference(A), monoid))
    axis = data.draw(st.sampled_from(["rows", "columns"]), label="axis")
    size = A.shape[0] if axis == "rows" else A.shape[1]
    kw = draw_writeback(data, size, np.dtype("int64"))
    check(gb.reduce, ref.reduce, (A,), kw, extra={"monoid": monoid, "axis": axis})


# --------------------------------------------------------------- extract, assign


@given(data=st.data())
@EXAMPLES
def test_extract(data):
    m, n = data.draw(gst.shapes(MAX_DIM, min_dim=1), label="shape")
    A = data.draw(gst.matrices((m, n), "float64", iso=None), label="A")
    ri = data.draw(st.lists(st.integers(0, m - 1), max_size=5), label="rows")
    ci = data.draw(st.none() | st.lists(st.integers(0, n - 1), max_size=5), label="cols")
    expected = ref.extract(to_reference(A), ri, list(range(n)) if ci is None else ci)
    got = gb.extract(embed(A), up(ri), None if ci is None else up(ci))
    assert got.shape == (len(ri), big(n) if ci is None else len(ci))
    r, c, v = got.to_coo()
    c = down(c) if ci is None else c
    small = gb.Matrix.from_coo(r, c, v, shape=(len(ri), n if ci is None else len(ci)))
    assert_equal(small, expected)
    u = data.draw(gst.vectors(n, "int32"), label="u")
    idx = data.draw(st.lists(st.integers(0, n - 1), max_size=6), label="idx")
    got = gb.extract(embed(u), up(idx))
    assert got.size == len(idx)
    assert_equal(got, ref.extract(to_reference(u), idx))


@given(data=st.data())
@EXAMPLES
def test_assign(data):
    n = data.draw(st.integers(1, MAX_DIM), label="n")
    w = data.draw(gst.vectors(n, "float64"), label="w")
    idx = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=4), label="idx")
    scalar = data.draw(st.booleans(), label="scalar")
    value = 2.5 if scalar else data.draw(gst.vectors(len(idx), "float64"), label="value")
    mask = data.draw(gst.masks(n), label="mask")
    accum = data.draw(gst.accums(), label="accum")
    replace = data.draw(st.booleans(), label="replace")
    expected = ref.assign(to_reference(w), value if scalar else to_reference(value), idx,
                          mask=None if mask is None else to_reference(mask), accum=accum,
                          replace=replace)
    W = embed(w)
    got = gb.assign(W, value, up(idx), mask=embed(mask), accum=accum, replace=replace)
    assert got is W
    assert_equal(shrink(got), expected)
    m = data.draw(st.integers(1, MAX_DIM), label="m")
    A = data.draw(gst.matrices((m, n), "float64", iso=None), label="A")
    ri = data.draw(st.lists(st.integers(0, m - 1), unique=True, max_size=3), label="ri")
    ci = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=3), label="ci")
    value = 1.5 if scalar else data.draw(gst.matrices((len(ri), len(ci)), "float64"),
                                         label="V")
    expected = ref.assign(to_reference(A), value if scalar else to_reference(value), ri, ci,
                          accum=accum)
    H = embed(A)
    gb.assign(H, value, up(ri), up(ci), accum=accum)
    assert H.is_hypersparse
    assert_equal(shrink(H), expected)


def test_assign_whole_huge_dimension():
    n = 2**50
    w = gb.Vector.from_coo([3, 2**49], [1.0, 2.0], size=n)
    with pytest.raises(OutOfMemory, match="assign"):
        gb.assign(w, 1.0)
    v = gb.Vector.from_coo([2**49, 7], [5.0, 6.0], size=n)
    gb.assign(w, v, accum="plus")
    assert w.to_coo()[0].tolist() == [3, 7, 2**49] and w.to_coo()[1].tolist() == [1.0, 6.0, 7.0]
    with pytest.raises(DimensionMismatch):
        gb.assign(w, gb.Vector.from_coo([0], [1.0], size=5))


# ------------------------------------------------------------- errors and memory


def test_per_row_arrays_are_refused_clearly():
    n = 2**40
    A = gb.Matrix.from_coo([1, 2**39], [2**39, 5], [1.0, 2.0], shape=(n, n))
    for f in (A.csr, A.to_scipy, A.to_dense, A.stats, lambda: A.to("gpu")):
        with pytest.raises(OutOfMemory, match="hypersparse"):
            f()


def test_issue_repros_in_huge_dimensions():
    n = 2**31 + 10
    A = gb.Matrix.from_coo([0, 5, n - 1], [n - 1, 3, 0], [1.0, 2.0, 3.0], shape=(n, n))
    assert A.is_hypersparse and A.nvals == 3
    B = gb.Matrix.from_coo([0, 3, 7], [n - 1, 3, 0], [1.0, 2.0, 3.0], shape=(8, n))
    assert not B.is_hypersparse  # 8 rows: CSR, its columns handled by the compact problem
    x = gb.Vector.from_coo([0, 3, n - 1], [1.0, 1.0, 1.0], size=n)
    y = gb.mxv(B, x)
    assert y.to_coo()[0].tolist() == [0, 3, 7] and y.to_coo()[1].tolist() == [1.0, 2.0, 3.0]
    z = gb.mxv(A, x)
    assert z.to_coo()[0].tolist() == [0, 5, n - 1]


_MEMORY = textwrap.dedent("""
    import resource, tracemalloc, numpy as np, gblas as gb
    n, nnz = 2**40, {nnz}
    rng = np.random.default_rng(1)
    rows = rng.integers(0, n, nnz); cols = rng.integers(0, n, nnz)
    x_idx = np.unique(cols[:{nx}])
    A1 = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], shape=(n, n))
    x1 = gb.Vector.from_coo([1], [1.0], size=n)
    _ = gb.mxv(A1, x1), gb.vxm(x1, A1)   # kernels compiled or loaded before measuring
    def resident():  # bytes resident now (Linux), -1 elsewhere
        try:
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * resource.getpagesize()
        except OSError:
            return -1
    before = resident()
    tracemalloc.start()
    A = gb.Matrix.from_coo(rows, cols, np.ones(nnz), shape=(n, n))
    x = gb.Vector.from_coo(x_idx, np.ones(x_idx.size), size=n)
    y = gb.mxv(A, x)
    w = gb.vxm(x, A)
    peak = tracemalloc.get_traced_memory()[1]
    after = resident()
    print(A.is_hypersparse, y.nvals, w.nvals, peak, after - before if before >= 0 else -1)
""")


def test_mxv_on_a_2_40_matrix_runs_in_little_memory():
    nnz = 10**4
    res = subprocess.run([sys.executable, "-c", _MEMORY.format(nnz=nnz, nx=100)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    hyper, ynv, wnv, peak, grown = res.stdout.split()
    assert hyper == "True" and int(ynv) > 0
    # O(entries): well under 1 KB per entry for the build, both products and results
    # (NumPy's arrays are traced); the resident memory grows by far less than the 16 GiB
    # one row pointer array of 2^40 rows would take (a first run also compiles kernels,
    # so the process's peak is not the measure)
    assert int(peak) < 1000 * nnz, f"{int(peak):,} bytes traced"
    assert int(grown) < 2**29, f"resident memory grew by {int(grown):,} bytes"


# --------------------------------------------------------------------------- I/O


@given(A=gst.matrices(max_dim=MAX_DIM, iso=None))
@settings(max_examples=10, deadline=None)
def test_matrix_market_round_trip_in_2_60(tmp_path_factory, A):
    path = tmp_path_factory.mktemp("mm") / "h.mtx"
    r, c, v = A.to_coo()
    n = 2**60
    H = gb.Matrix.from_coo(up(r) * 2**20, up(c) * 2**20, v, shape=(n, n), dtype=A.dtype,
                           dup_op=None)
    gb.io.write_mm(path, H)
    B = gb.io.read_mm(path)
    assert B.is_hypersparse and B.shape == (n, n) and B.dtype == A.dtype
    assert B.isequal(H, check_dtype=True)
    w = gb.Vector.from_coo(up(r) * 2**20, v, size=n, dtype=A.dtype, dup_op="first")
    gb.io.write_mm(path, w)
    assert gb.io.read_mm_vector(path).isequal(w, check_dtype=True)


def test_positions_beyond_int64_keys():
    # 8 x 2**62: row * ncols + col overflows int64, so the ids are compacted first
    A = gb.Matrix.from_coo([0, 7, 7], [2**62 - 1, 5, 2**61], [1, 2, 3], shape=(8, 2**62))
    assert A.is_hypersparse
    assert A.to_coo()[1].tolist() == [2**62 - 1, 5, 2**61]
    x = gb.Vector.from_coo([5, 2**61], [1, 1], size=2**62)
    y = gb.mxv(A, x)
    assert y.to_coo()[0].tolist() == [7] and y.to_coo()[1].tolist() == [5]


def test_format_module_examples():
    import doctest

    from gblas.formats import hypersparse

    assert doctest.testmod(hypersparse).failed == 0
