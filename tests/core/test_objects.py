"""Vector and Matrix objects: constructors, round trips, views, masks, copies, devices."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas import dtypes
from gblas.backends import reference as ref
from gblas.exceptions import InvalidValue
from gblas.testing import assert_equal, to_reference
from gblas.testing import strategies as gst

ALL = [d.name for d in dtypes.SUPPORTED]


def _np(a):
    return np.asarray(a.get() if hasattr(a, "get") else a)


# ------------------------------------------------------------------- constructors


@pytest.mark.parametrize("dt", ALL)
@given(data=st.data())
def test_vector_coo_round_trip(dt, data):
    n = data.draw(st.integers(0, 12), label="size")
    idx = data.draw(st.lists(st.integers(0, max(n - 1, 0)), unique=True, max_size=n),
                    label="indices") if n else []
    vals = data.draw(st.lists(gst.scalars(dt), min_size=len(idx), max_size=len(idx)),
                     label="values")
    order = data.draw(st.permutations(range(len(idx))), label="order")
    i_in = np.array([idx[k] for k in order], dtype=np.int64)
    v_in = np.array([vals[k] for k in order], dtype=dt)
    v = gb.Vector.from_coo(i_in, v_in, n, dtype=dt)
    assert (v.size, v.nvals, v.dtype, v.device) == (n, len(idx), np.dtype(dt), "cpu")
    i_out, v_out = (_np(a) for a in v.to_coo())
    srt = np.argsort(i_in)
    np.testing.assert_array_equal(i_out, i_in[srt])
    np.testing.assert_array_equal(v_out, v_in[srt])
    assert i_out.dtype.kind in "iu" and v_out.dtype == np.dtype(dt)
    dense = _np(v.to_dense())
    expected = np.zeros(n, dtype=dt)
    expected[i_in] = v_in
    np.testing.assert_array_equal(dense, expected)
    assert dense.dtype == np.dtype(dt)
    w = gb.Vector.from_dense(dense)
    assert w.nvals == n and w.dtype == np.dtype(dt)
    np.testing.assert_array_equal(_np(w.to_dense()), dense)


@pytest.mark.parametrize("dt", ALL)
@given(data=st.data())
def test_matrix_coo_scipy_dense_round_trip(dt, data):
    R = data.draw(gst.matrices(None, dt, reference=True), label="A")
    keys = list(R.data)
    perm = data.draw(st.permutations(range(len(keys))), label="order")
    rows = np.array([keys[k][0] for k in perm], dtype=np.int64)
    cols = np.array([keys[k][1] for k in perm], dtype=np.int64)
    vals = np.array([R.data[keys[k]] for k in perm], dtype=dt)
    A = gb.Matrix.from_coo(rows, cols, vals, shape=R.shape, dtype=dt)
    assert (A.shape, A.nvals, A.dtype) == (R.shape, R.nvals, np.dtype(dt))
    r, c, v = (_np(a) for a in A.to_coo())
    order = np.lexsort((cols, rows))
    np.testing.assert_array_equal(r, rows[order])
    np.testing.assert_array_equal(c, cols[order])
    np.testing.assert_array_equal(v, vals[order])
    assert_equal(A, R)
    # scipy
    S = A.to_scipy()
    assert isinstance(S, sp.csr_array) and S.dtype == np.dtype(dt) and S.shape == R.shape
    assert_equal(gb.Matrix.from_scipy(S), R)
    assert_equal(to_reference(S), R)
    # dense
    D = _np(A.to_dense())
    np.testing.assert_array_equal(D, R.to_dense())
    assert_equal(gb.Matrix.from_dense(D), ref.RefMatrix.from_dense(D))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok"])
@pytest.mark.parametrize("kind", ["array", "matrix"])
def test_from_scipy_formats(fmt, kind):
    dense = np.array([[0, 2.5, 0], [1.0, 0, -3.0]], dtype=np.float32)
    S = (sp.csr_array if kind == "array" else sp.csr_matrix)(dense).asformat(fmt)
    A = gb.Matrix.from_scipy(S)
    assert A.dtype == np.float32 and A.nvals == 3
    np.testing.assert_array_equal(_np(A.to_dense()), dense)


def test_from_scipy_explicit_zeros_are_entries():
    S = sp.csr_array((np.array([0.0, 1.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    A = gb.Matrix.from_scipy(S)
    assert A.nvals == 2
    assert_equal(A, ref.RefMatrix.from_dict((1, 2), {(0, 0): 0.0, (0, 1): 1.0}, "float64"))


@pytest.mark.parametrize("dup_op, expected", [("plus", 6.0), ("max", 5.0), ("min", 1.0),
                                              ("first", None), ("times", 5.0)])
def test_duplicates_combine(dup_op, expected):
    v = gb.Vector.from_coo([2, 0, 2], [1.0, 3.0, 5.0], size=3, dup_op=dup_op)
    got = v.get(2)
    if expected is None:  # first of the duplicates in input order: any is acceptable
        assert got in (1.0, 5.0)
    else:
        assert got == expected
    A = gb.Matrix.from_coo([1, 1, 0], [0, 0, 0], [1.0, 5.0, 2.0], shape=(2, 1), dup_op=dup_op)
    assert A.nvals == 2


@pytest.mark.parametrize("dup_op, expected", [("plus", 5.0), ("times", 6.25), ("max", 2.5)])
def test_scalar_values_with_duplicates_follow_dup_op(dup_op, expected):
    """A scalar ``values`` means every entry has it; duplicates still combine with dup_op,
    exactly as with the equivalent array of values."""
    rows, cols = [0, 0, 1], [1, 1, 0]
    arr = gb.Matrix.from_coo(rows, cols, [2.5, 2.5, 2.5], shape=(2, 2), dup_op=dup_op)
    iso = gb.Matrix.from_coo(rows, cols, 2.5, shape=(2, 2), dup_op=dup_op)
    vec = gb.Vector.from_coo([1, 1, 0], 2.5, size=2, dup_op=dup_op)
    want = ref.RefMatrix.from_dict((2, 2), {(0, 1): expected, (1, 0): 2.5}, "float64")
    assert_equal(arr, want)
    assert vec.get(1) == expected
    assert_equal(iso, want)


def test_pattern_and_iso_constructors():
    v = gb.Vector.from_coo([0, 3], size=5)
    assert v.dtype == np.bool_ and v.nvals == 2
    A = gb.Matrix.from_coo([0, 1], [1, 0], shape=(2, 2))
    assert A.dtype == np.bool_
    assert_equal(A, ref.RefMatrix.from_dict((2, 2), {(0, 1): True, (1, 0): True}, "bool"))
    B = gb.Matrix.from_coo([0, 1], [1, 0], 2.5, shape=(2, 3))
    assert B.shape == (2, 3) and B.dtype == np.float64
    assert_equal(B, ref.RefMatrix.from_dict((2, 3), {(0, 1): 2.5, (1, 0): 2.5}, "float64"))
    C = gb.Matrix.from_coo([0], [0], shape=(1, 1), dtype="int8")
    assert C.dtype == np.int8 and _np(C.to_coo()[2]).tolist() == [1]


def test_empty_and_zero_size():
    for dt in ("bool", "int32", "float64"):
        e = gb.Vector.empty(4, dt)
        assert (e.size, e.nvals, e.dtype) == (4, 0, np.dtype(dt))
        assert _np(e.to_dense(fill=0)).tolist() == [0] * 4
    z = gb.Vector.empty(0, "float32")
    assert z.size == 0 and _np(z.to_coo()[0]).size == 0
    for shape in [(0, 0), (0, 3), (3, 0)]:
        A = gb.Matrix.from_coo([], [], np.zeros(0), shape=shape)
        assert A.shape == shape and A.nvals == 0
        assert A.T.shape == shape[::-1]
        assert _np(A.to_dense()).shape == shape
        assert A.to_scipy().shape == shape


def test_to_dense_fill():
    v = gb.Vector.from_coo([1], [2], size=3)
    assert _np(v.to_dense(fill=-1)).tolist() == [-1, 2, -1]
    f = _np(gb.Vector.from_coo([1], np.array([2], np.int32), size=2).to_dense(fill=np.nan))
    assert f.dtype.kind == "f" and np.isnan(f[0]) and f[1] == 2
    A = gb.Matrix.from_coo([0], [1], [5], shape=(2, 2))
    assert _np(A.to_dense(fill=7)).tolist() == [[7, 5], [7, 7]]


# ------------------------------------------------------------------- int64 indices


def test_int64_index_space():
    big = 2**31 + 10
    A = gb.Matrix.from_coo(np.array([0, 1], np.int64), np.array([5, 2**31 + 3], np.int64),
                           [1.0, 2.0], shape=(2, big))
    assert A.shape == (2, big) and A.nvals == 2
    assert A.csr().indices.dtype == np.int64
    r, c, v = (_np(a) for a in A.to_coo())
    assert r.tolist() == [0, 1] and c.tolist() == [5, 2**31 + 3] and v.tolist() == [1.0, 2.0]
    huge = 2**40
    u = gb.Vector.from_coo(np.array([huge - 1, 3], np.int64), [1.0, 2.0], size=huge)
    assert u.size == huge and u.nvals == 2
    i, w = (_np(a) for a in u.to_coo())
    assert i.tolist() == [3, huge - 1] and w.tolist() == [2.0, 1.0]


def test_get_on_a_huge_sparse_vector():
    # reading one entry must not materialize the vector densely (8 TiB here)
    huge = 2**40
    u = gb.Vector.from_coo(np.array([huge - 1, 3], np.int64), [1.0, 2.0], size=huge)
    assert u.get(huge - 1) == 1.0 and u.get(3) == 2.0 and u.get(4) is None


def test_small_matrices_use_int32_indices():
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))
    assert A.csr().indices.dtype == np.int32


# ----------------------------------------------------------------------- transpose


@given(A=gst.matrices(None, "int16", reference=False))
def test_transpose_view(A):
    R = to_reference(A)
    T = A.T
    assert T.shape == A.shape[::-1] and T.nvals == A.nvals and T.dtype == A.dtype
    assert T.T is A
    assert_equal(T, R.T)
    np.testing.assert_array_equal(_np(T.to_dense()), R.T.to_dense())
    assert_equal(gb.Matrix.from_scipy(T.to_scipy()), R.T)


# ------------------------------------------------------------------------- masks


@given(v=gst.vectors(None, "int8", small=True))
def test_vector_mask_views(v):
    R = to_reference(v)
    for kind in ("S", "V", "~S", "~V"):
        m = gst.make_mask(v, kind)
        assert m.kind == kind and m.shape == (v.size,)
        assert m.structural == kind.endswith("S") and m.complement == kind.startswith("~")
        rm = to_reference(m)
        assert rm.kind == kind
        allow = _np(m.allow())
        assert allow.tolist() == [rm(i) for i in range(v.size)]
        assert (~~m).kind == kind and (~m).kind != kind
        assert to_reference(m).obj.data == R.data


def test_matrix_mask_views():
    A = gb.Matrix.from_coo([0, 1], [1, 0], [0, 3], shape=(2, 2))
    assert A.S.kind == "S" and (~A.V).kind == "~V" and A.S.shape == (2, 2)
    assert A.S.parent is A
    rm = to_reference(~A.V)
    assert [rm((i, j)) for i in range(2) for j in range(2)] == [True, True, False, True]


# -------------------------------------------------------------- equality and copies


def test_isequal():
    a = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
    assert a.isequal(gb.Vector.from_coo([2, 0], [2.0, 1.0], size=3))
    assert not a.isequal(gb.Vector.from_coo([0, 1], [1.0, 2.0], size=3))  # pattern
    assert not a.isequal(gb.Vector.from_coo([0, 2], [1.0, 2.5], size=3))  # values
    assert not a.isequal(gb.Vector.from_coo([0, 2], [1.0, 2.0], size=4))  # size
    b = gb.Vector.from_coo([0, 2], np.array([1, 2], np.int64), size=3)
    assert a.isequal(b) and not a.isequal(b, check_dtype=True)
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], shape=(2, 2))
    assert A.isequal(A.T.T) and not A.isequal(A.T)
    assert A.isequal(gb.Matrix.from_coo([1, 0], [0, 1], [2, 1], shape=(2, 2)))
    assert not A.isequal(gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], shape=(2, 3)))


def test_copies_are_independent():
    v = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
    before = to_reference(v)
    c = v.dup()
    assert c is not v and c.isequal(v, check_dtype=True)
    gb.assign(c, 9.0, [0, 1])
    assert_equal(v, before)
    assert c.get(1) == 9.0
    i = v.dup("int16")
    assert i.dtype == np.int16 and _np(i.to_coo()[1]).tolist() == [1, 2]
    A = gb.Matrix.from_coo([0], [1], [4.0], shape=(2, 2))
    Ab = to_reference(A)
    B = A.copy()
    gb.assign(B, 1.0, [1], [0])
    assert_equal(A, Ab) and B.nvals == 2


def test_out_is_written_in_place():
    A = gb.Matrix.from_coo([0], [0], [2.0], shape=(1, 1))
    o = gb.Vector.empty(1, "float64")
    got = gb.ewise_add(gb.Vector.from_dense([1.0]), gb.Vector.from_dense([2.0]), out=o)
    assert got is o and o.get(0) == 3.0
    assert A.nvals == 1


def test_constructors_copy_their_input():
    arr = np.array([1.0, 2.0])
    v = gb.Vector.from_dense(arr)
    arr[0] = 99.0
    assert v.get(0) == 1.0
    vals = np.array([5, 6])
    A = gb.Matrix.from_coo([0, 1], [0, 1], vals, shape=(2, 2))
    vals[0] = 0
    assert _np(A.to_coo()[2]).tolist() == [5, 6], "Matrix.from_coo shares the caller's array"


@pytest.mark.parametrize("export", ["Vector.to_coo", "Vector.to_dense", "Matrix.to_coo",
                                    "Matrix.to_scipy", "Matrix.to_dense"])
def test_exported_arrays_are_copies(export):
    """Writing into an array a gblas object handed out must not change the object."""
    v = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
    A = gb.Matrix.from_coo([0, 1], [0, 1], [5.0, 6.0], shape=(2, 2))
    before_v, before_A = to_reference(v), to_reference(A)
    if export == "Vector.to_coo":
        v.to_coo()[1][0] = 99.0
    elif export == "Vector.to_dense":
        v.to_dense()[0] = 99.0
    elif export == "Matrix.to_coo":
        A.to_coo()[2][0] = 99.0
    elif export == "Matrix.to_scipy":
        A.to_scipy().data[0] = 99.0
    else:
        A.to_dense()[0, 0] = 99.0
    assert_equal(v, before_v)
    assert_equal(A, before_A)


# ----------------------------------------------------------------------- devices


def test_cpu_device_round_trip():
    A = gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 2))
    v = gb.Vector.from_dense([1, 2])
    assert A.device == "cpu" and v.device == "cpu"
    assert A.to("cpu") is A and v.to("cpu") is v
    with pytest.raises(InvalidValue):
        v.to("tpu")


@pytest.mark.gpu
@given(A=gst.matrices(None, "float32"), v=gst.vectors(None, "int64"))
def test_gpu_round_trip(A, v):
    Ag, vg = A.to("gpu"), v.to("gpu")
    assert Ag.device == "gpu" and vg.device == "gpu"
    assert Ag.dtype == A.dtype and vg.dtype == v.dtype
    assert_equal(Ag, to_reference(A))
    assert_equal(Ag.to("cpu"), to_reference(A))
    assert_equal(vg.to("cpu"), to_reference(v))
    assert Ag.to("cpu").device == "cpu"


def test_import_does_not_load_cupy_or_kernels():
    code = (
        "import sys, gblas as gb\n"
        "import numpy as np\n"
        "bad = [m for m in ('cupy', 'gblas.backends.cpu', 'gblas.backends.gpu') "
        "if m in sys.modules]\n"
        "assert not bad, bad\n"
        "A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))\n"
        "v = gb.Vector.from_dense(np.ones(2))\n"
        "gb.ewise_add(v, v)\n"
        "assert 'cupy' not in sys.modules, 'cupy imported by CPU work'\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_repr_names_the_object():
    assert "Matrix(shape=(2, 3)" in repr(gb.Matrix.from_coo([0], [0], [1], shape=(2, 3)))
    assert "Vector(size=4" in repr(gb.Vector.empty(4, "int8"))
    assert "Mask(~V" in repr(~gb.Vector.empty(4, "int8").V)


@pytest.mark.parametrize("dups", [False, True])
@pytest.mark.parametrize("shape", [(300, 5000), (40000, 7), (1, 70000)])
def test_large_unsorted_coo_matches_scipy(rng, dups, shape):
    """Inputs large enough for the counting-sort path, with and without duplicates."""
    m, n = shape
    nnz = 30000
    if dups:
        r = rng.integers(0, m, nnz)
        c = rng.integers(0, n, nnz)
    else:
        flat = rng.choice(m * n, size=min(nnz, m * n), replace=False)
        r, c = flat // n, flat % n
    v = rng.standard_normal(r.size)
    A = gb.Matrix.from_coo(r, c, v, shape=shape, dup_op="plus")
    ref = sp.coo_array((v, (r, c)), shape=shape).tocsr()
    ref.sum_duplicates()
    got = A.to_scipy().tocsr()
    np.testing.assert_array_equal(got.indptr, ref.indptr)
    np.testing.assert_array_equal(got.indices, ref.indices)
    np.testing.assert_allclose(got.data, ref.data, rtol=1e-12, atol=1e-12)
    P = gb.Matrix.from_coo(r, c, shape=shape, dup_op="any")
    assert P.nvals == ref.nnz
