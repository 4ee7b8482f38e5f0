"""SciPy-like behaviour of Matrix / Vector and the converters of gblas.io.interop.

Oracles: SciPy (products, formats, indexing), NumPy, NetworkX, python-graphblas and
pydata/sparse; the device COO assembly is checked on the CPU against CSR.from_coo, and
on the GPU (tests marked ``gpu``) against the CPU Matrix.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas.core.devcoo import csr_arrays_from_coo
from gblas.formats import CSR
from gblas.semirings import binary_op
from gblas.testing.strategies import graphs, matrices, vectors

NUMERIC = ("int64", "int32", "float64", "float32", "bool")


def mats(dts=NUMERIC, **kw):
    """Matrices of a dtype drawn from ``dts``."""
    return st.sampled_from(dts).flatmap(lambda dt: matrices(dtype=dt, **kw))


def vecs(dts=NUMERIC, **kw):
    return st.sampled_from(dts).flatmap(lambda dt: vectors(dtype=dt, **kw))


def _entries(A) -> dict:
    r, c, v = A.to_coo()
    return {(int(i), int(j)): x for i, j, x in zip(r.tolist(), c.tolist(), v.tolist())}


# ------------------------------------------------------------------------ A @ arrays
@given(A=mats(("int64", "float64", "float32", "bool"), max_dim=7), data=st.data())
def test_matmul_dense_arrays_follow_scipy(A, data):
    m, n = A.shape
    S = A.to_scipy()
    xdt = data.draw(st.sampled_from([np.float64, np.int64, np.float32]))
    x = data.draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    x = np.array(x, dtype=xdt)
    y = A @ x
    want = S @ x
    assert isinstance(y, np.ndarray) and y.shape == (m,)
    assert y.dtype == want.dtype
    np.testing.assert_allclose(y, want, rtol=1e-6)
    k = data.draw(st.integers(0, 3))
    X = np.arange(n * k, dtype=xdt).reshape(n, k) % 5 - 2
    Y = A @ X
    assert isinstance(Y, np.ndarray) and Y.shape == (m, k) and Y.dtype == (S @ X).dtype
    np.testing.assert_allclose(Y, S @ X, rtol=1e-6)
    u = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=m, max_size=m)), dtype=xdt)
    np.testing.assert_allclose(u @ A, u @ S, rtol=1e-6)
    U = np.arange(k * m, dtype=xdt).reshape(k, m) % 3
    np.testing.assert_allclose(U @ A, U @ S, rtol=1e-6)
    # the transpose view, and a list as SciPy takes it
    np.testing.assert_allclose(A.T @ u, S.T @ u, rtol=1e-6)
    np.testing.assert_allclose(A @ x.tolist(), want, rtol=1e-6)


@given(A=matrices(dtype="float64", max_dim=6))
def test_matmul_sparse_operands_give_matrices(A):
    S = sp.random(A.shape[1], 3, density=0.5, format="csc", random_state=1)
    C = A @ S
    assert isinstance(C, gb.Matrix)
    np.testing.assert_allclose(C.to_dense(), (A.to_scipy() @ S).toarray())
    # a Vector keeps its GraphBLAS meaning: missing entries stay missing
    x = gb.Vector.from_coo([0], [1.0], size=A.shape[1]) if A.shape[1] else None
    if x is not None:
        y = A @ x
        assert isinstance(y, gb.Vector)
        assert y.nvals == int((A.to_coo()[1] == 0).sum())  # the rows with a column-0 entry


def test_matmul_errors_name_the_call_and_the_shapes():
    A = gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 3))
    with pytest.raises(gb.DimensionMismatch, match=r"A @ x.*3 entries.*2 x 3.*shape \(2,\)"):
        A @ np.ones(2)
    with pytest.raises(gb.DimensionMismatch, match=r"u @ A"):
        np.ones(3) @ A
    with pytest.raises(gb.InvalidObject, match="gb.Vector, gb.Matrix, NumPy or CuPy array"):
        A @ "x"
    with pytest.raises(gb.DimensionMismatch, match="1-D or 2-D"):
        A @ np.ones((3, 1, 1))


# --------------------------------------------------------------- no silent conversions
@given(A=matrices(max_dim=4), v=vectors(max_size=4))
def test_asarray_and_ufuncs_are_refused_with_the_explicit_ways(A, v):
    for obj, fix in ((A, "to_scipy"), (A.T, "to_scipy"), (v, "to_coo")):
        with pytest.raises(gb.InvalidObject, match=f"to_dense\\(fill=0\\).*{fix}"):
            np.asarray(obj)
        with pytest.raises(TypeError):
            np.array([obj])
        with pytest.raises(TypeError):
            np.ones(obj.shape) + obj
    assert A.to_dense().dtype != object


def test_equality_is_refused_between_gblas_objects_and_hash_is_identity():
    A = gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 2))
    B = A.dup()
    v = gb.Vector.from_dense([1, 2])
    for x, y in ((A, B), (A, A), (A.T, A), (v, v.dup()), (A, v)):
        with pytest.raises(gb.InvalidObject, match=r"isequal.*ewise_mult.*is B"):
            x == y  # noqa: B015
        with pytest.raises(gb.InvalidObject, match="isequal"):
            x != y  # noqa: B015
    assert A.isequal(B) and A is not B
    assert (A == None) is False and (A != None) is True  # noqa: E711
    assert (v == 3) is False
    # identity hashing: dicts, sets and identity membership keep working
    d = {A: "a", B: "b", v: "v"}
    assert d[A] == "a" and d[B] == "b" and d[v] == "v"
    assert len({A, B, A}) == 2 and A in {A} and A in [A]
    assert hash(A) != hash(B)


# ----------------------------------------------------------------------- element access
@given(A=matrices(max_dim=6, iso=None), data=st.data())
def test_getitem_scalars_match_the_entries(A, data):
    m, n = A.shape
    ent = _entries(A)
    for i in range(m):
        for j in range(n):
            want = ent.get((i, j))
            assert A[i, j] == want and A[i - m, j - n] == want and A.get(i, j) == want
            assert A.T[j, i] == want
            if want is None:
                assert A.get(i, j, default="none") == "none"
            else:
                assert type(A[i, j]) is type(np.zeros(1, A.dtype)[0].item())
    bad = data.draw(st.sampled_from([(m, 0), (0, n), (-m - 1, 0), (0, -n - 1)]))
    with pytest.raises(gb.IndexOutOfBound, match=re.escape(f"(shape {A.shape})")):
        A[bad]
    with pytest.raises(gb.InvalidObject, match="integer index"):
        A.get(0.5, 0)


def _ints(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@given(A=mats(max_dim=6), data=st.data())
def test_getitem_slices_and_arrays_extract(A, data):
    m, n = A.shape
    V = A.to_dense(fill=0)
    P = np.zeros(A.shape, bool)
    r, c, _ = A.to_coo()
    P[r, c] = True
    rows = data.draw(st.one_of(
        st.builds(slice, st.none() | st.integers(-m - 1, m + 1),
                  st.none() | st.integers(-m - 1, m + 1), st.sampled_from([None, 1, 2, -1])),
        st.lists(st.integers(-m, m - 1), max_size=4).map(_ints) if m else st.just(slice(0))))
    cols = data.draw(st.one_of(
        st.just(slice(None)),
        st.lists(st.booleans(), min_size=n, max_size=n).map(lambda b: np.array(b, bool)),
        st.lists(st.integers(-n, n - 1), max_size=4).map(_ints) if n else st.just([])))
    ri = np.arange(m)[rows]
    ci = np.arange(n)[cols if not isinstance(cols, list) else _ints(cols)]
    sub = A[rows, cols]
    assert isinstance(sub, gb.Matrix) and sub.shape == (ri.size, ci.size)
    got_p = np.zeros(sub.shape, bool)
    sr, sc, _ = sub.to_coo()
    got_p[sr, sc] = True
    np.testing.assert_array_equal(got_p, P[np.ix_(ri, ci)])
    np.testing.assert_array_equal(sub.to_dense(fill=0), V[np.ix_(ri, ci)])
    if m and n:
        i = data.draw(st.integers(-m, m - 1))
        row = A[i, cols]
        assert isinstance(row, gb.Vector) and row.size == ci.size
        np.testing.assert_array_equal(row.present_mask(), P[i, ci])
        np.testing.assert_array_equal(row.to_dense(fill=0), V[i, ci])
        col = A[rows, i % n]
        np.testing.assert_array_equal(col.present_mask(), P[ri, i % n])
        np.testing.assert_array_equal(A[i].to_dense(fill=0), V[i])


@given(v=vectors(max_size=8), data=st.data())
def test_vector_getitem(v, data):
    n = v.size
    idx, vals = v.to_coo()
    ent = dict(zip(idx.tolist(), vals.tolist()))
    for i in range(n):
        assert v[i] == ent.get(i) and v[i - n] == ent.get(i)
    with pytest.raises(gb.IndexOutOfBound, match=re.escape(f"(shape ({n},))")):
        v[n]
    sl = data.draw(st.builds(slice, st.none() | st.integers(-n, n),
                             st.none() | st.integers(-n, n), st.sampled_from([None, 2, -1])))
    sub = v[sl]
    want = np.arange(n)[sl]
    assert sub.size == want.size
    assert [sub[k] for k in range(sub.size)] == [ent.get(int(i)) for i in want]


# --------------------------------------------------------------------------- SciPy
@given(A=mats(max_dim=6, iso=None),
       fmt=st.sampled_from(["csr", "csc", "coo", "bsr", "dia", "dok", "lil"]))
def test_to_scipy_formats(A, fmt):
    S = A.to_scipy(format=fmt)
    assert S.format == fmt and S.dtype == A.dtype and S.shape == A.shape
    np.testing.assert_array_equal(S.toarray(), A.to_dense())
    St = A.T.to_scipy(fmt)
    assert St.format == fmt
    np.testing.assert_array_equal(St.toarray(), A.to_dense().T)
    back = gb.Matrix.from_scipy(S)
    if fmt in ("dia", "bsr"):
        # DIA and BSR store the zeros that pad their diagonals / blocks, and SciPy's DIA
        # drops stored zeros on conversion: only the values are compared, and every
        # nonzero entry of A comes back
        assert back.nvals >= int(np.count_nonzero(A.to_coo()[2]))
        np.testing.assert_array_equal(back.to_dense(), A.to_dense())
    else:
        assert back.isequal(A, check_dtype=True)


def test_to_scipy_refuses_an_unknown_format():
    A = gb.Matrix.from_coo([0], [0], [1], shape=(1, 1))
    with pytest.raises(gb.InvalidValue, match="Matrix.to_scipy.*'csr'.*got 'csx'"):
        A.to_scipy("csx")
    with pytest.raises(gb.DimensionMismatch, match="Vector.from_scipy"):
        gb.Matrix.from_scipy(sp.coo_array(([1.0], ([0],)), shape=(2,)))


@given(v=vecs(max_size=8), data=st.data())
def test_vector_scipy_round_trips(v, data):
    n = v.size
    idx, vals = v.to_coo()
    S1 = v.to_scipy()
    assert S1.shape == (n,) and S1.format == "coo"
    np.testing.assert_array_equal(S1.toarray(), v.to_dense())
    assert gb.Vector.from_scipy(S1).isequal(v, check_dtype=True)
    fmt = data.draw(st.sampled_from(["csr", "csc", "coo", "lil"]))
    col = v.to_scipy(fmt, ndim=2)
    assert col.shape == (n, 1) and col.format == fmt
    assert gb.Vector.from_scipy(col).isequal(v, check_dtype=True)
    row = sp.csr_matrix(col.T)  # a scipy.sparse *matrix* of one row
    assert gb.Vector.from_scipy(row).isequal(v, check_dtype=True)


def test_vector_from_scipy_sums_duplicates_and_keeps_explicit_zeros():
    S = sp.coo_array((np.array([1, 2, 0]), (np.array([0, 0, 0]), np.array([3, 3, 1]))),
                     shape=(1, 5))
    v = gb.Vector.from_scipy(S, dtype="float32")
    assert v.dtype == np.float32 and v.to_coo()[0].tolist() == [1, 3]
    assert v.to_coo()[1].tolist() == [0.0, 3.0]
    with pytest.raises(gb.DimensionMismatch, match=r"\(n,\), \(1, n\) or \(n, 1\).*\(2, 2\)"):
        gb.Vector.from_scipy(sp.eye(2))
    with pytest.raises(gb.InvalidValue, match="Vector.from_dense"):
        gb.Vector.from_scipy(np.ones(3))
    with pytest.raises(gb.InvalidValue, match="ndim=2"):
        gb.Vector.from_coo([0], [1], size=2).to_scipy("csc")


# ------------------------------------------------------------ device COO (CPU checks)
COO_CASE = dict(data=st.data(),
                dt=st.sampled_from(["int8", "int64", "uint16", "float64", "float32"]),
                op=st.sampled_from(["plus", "min", "max", "first", "second", "any", "times"]))


@given(**COO_CASE)
def test_device_coo_assembly_matches_the_cpu_build(data, dt, op):
    _check_coo_assembly(np, data, dt, op)


@pytest.mark.gpu
@given(**COO_CASE)
def test_gpu_coo_assembly_matches_the_cpu_build(data, dt, op):
    import cupy

    _check_coo_assembly(cupy, data, dt, op)


def _check_coo_assembly(xp, data, dt, op):
    m = data.draw(st.integers(0, 6))
    n = data.draw(st.integers(1, 6))
    k = data.draw(st.integers(0, 25)) if m else 0
    rows = np.array(data.draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k,
                                       max_size=k)), dtype=np.int64)
    cols = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)),
                    dtype=np.int64)
    vals = np.array(data.draw(st.lists(st.integers(-100, 100), min_size=k, max_size=k)))
    vals = vals.astype(dt)
    bop = binary_op(op, "test", "dup_op")
    indptr, indices, values = csr_arrays_from_coo(xp, xp.asarray(rows), xp.asarray(cols),
                                                  xp.asarray(vals), (m, n), bop)
    assert type(indptr) is type(xp.zeros(1)) and type(values) is type(xp.zeros(1))
    if xp is not np:
        indptr, indices, values = indptr.get(), indices.get(), values.get()
    want = CSR.from_coo(rows, cols, vals, (m, n), dup_op=bop)
    np.testing.assert_array_equal(indptr, want.indptr)
    np.testing.assert_array_equal(indices, want.indices)
    assert indptr.dtype == want.indptr.dtype and indices.dtype == want.indices.dtype
    np.testing.assert_array_equal(values, want.dense_values())
    assert values.dtype == want.dense_values().dtype


def test_device_coo_assembly_iso_and_duplicates_refused():
    from gblas.core.devcoo import DuplicateEntries

    r, c = np.array([1, 0, 1]), np.array([0, 0, 0])
    p, i, v = csr_arrays_from_coo(np, r, c, None, (2, 1), "plus", iso_value=np.int64(3))
    assert p.tolist() == [0, 1, 2] and v.tolist() == [3, 6]
    for pattern in (True, None):
        p, i, v = csr_arrays_from_coo(np, r, c, None, (2, 1), "plus", iso_value=pattern)
        assert v is None and i.tolist() == [0, 0] and p.tolist() == [0, 1, 2]
    with pytest.raises(DuplicateEntries):
        csr_arrays_from_coo(np, r, c, np.ones(3), (2, 1), None)


# ------------------------------------------------------------------ python-graphblas
@given(A=mats(max_dim=6, iso=None), v=vecs(max_size=6))
def test_graphblas_round_trip(A, v):
    graphblas = pytest.importorskip("graphblas")
    G = gb.io.to_graphblas(A)
    assert isinstance(G, graphblas.Matrix) and G.shape == A.shape
    assert np.dtype(G.dtype.np_type) == A.dtype and G.nvals == A.nvals
    r, c, vals = G.to_coo()
    ar, ac, av = A.to_coo()
    np.testing.assert_array_equal(r, ar)
    np.testing.assert_array_equal(c, ac)
    np.testing.assert_array_equal(vals, av)
    assert gb.io.from_graphblas(G).isequal(A, check_dtype=True)
    assert gb.io.from_graphblas(gb.io.to_graphblas(A.T)).isequal(A.T)
    w = gb.io.to_graphblas(v)
    assert isinstance(w, graphblas.Vector) and w.size == v.size and w.nvals == v.nvals
    assert gb.io.from_graphblas(w).isequal(v, check_dtype=True)


def test_graphblas_conversion_refuses_other_objects():
    with pytest.raises(gb.InvalidObject, match="graphblas.Matrix.*scipy.csr_array"):
        gb.io.from_graphblas(sp.csr_array(np.eye(2)))
    with pytest.raises(gb.InvalidObject, match="gb.Matrix or gb.Vector"):
        gb.io.to_graphblas(np.eye(2))


# ---------------------------------------------------------------------- pydata/sparse
@given(A=mats(max_dim=6), v=vecs(max_size=6))
def test_pydata_sparse_round_trip(A, v):
    sparse = pytest.importorskip("sparse")
    S = gb.io.to_sparse(A)
    assert isinstance(S, sparse.COO) and S.shape == A.shape and S.nnz == A.nvals
    np.testing.assert_array_equal(S.todense(), A.to_dense())
    assert gb.io.from_sparse(S).isequal(A, check_dtype=True)
    assert gb.io.from_sparse(sparse.GCXS(S)).isequal(A)
    s = gb.io.to_sparse(v)
    np.testing.assert_array_equal(s.todense(), v.to_dense())
    assert gb.io.from_sparse(s).isequal(v, check_dtype=True)


def test_pydata_sparse_fill_value_refused():
    sparse = pytest.importorskip("sparse")
    S = sparse.COO([[0], [1]], [2.0], shape=(2, 2), fill_value=1.0)
    with pytest.raises(gb.InvalidValue, match="fill_value is 0, got fill_value 1.0"):
        gb.io.from_sparse(S)


# -------------------------------------------------------------------------- NetworkX
@given(A=graphs(max_n=8, weighted=True, self_loops=True), directed=st.booleans())
def test_networkx_round_trip_keeps_labels(A, directed):
    nx = pytest.importorskip("networkx")
    n = A.shape[0]
    labels = [f"v{(7 * i) % 11}" for i in range(n)]
    G = gb.io.to_networkx(A, labels, directed=True)
    assert list(G.nodes) == labels and G.number_of_edges() == A.nvals
    B, nodes = gb.io.from_networkx(G)
    assert nodes == labels
    assert B.isequal(A)
    if n:
        want = nx.to_scipy_sparse_array(G, nodelist=labels, format="csr")
        np.testing.assert_array_equal(B.to_scipy().toarray(), want.toarray())
    H = gb.io.to_networkx(A, labels, directed=directed)
    assert H.is_directed() == directed
    if not directed and n:
        S = gb.Matrix.from_scipy(nx.to_scipy_sparse_array(H, nodelist=labels))
        r, c, _ = A.to_coo()
        assert S.nvals == len({(min(i, j), max(i, j)) for i, j in zip(r, c)}
                              | {(max(i, j), min(i, j)) for i, j in zip(r, c)})
    P, _ = gb.io.from_networkx(G, weight=None)
    assert P.dtype == np.int64 and P.isequal(A, values=False)


def test_networkx_undirected_default_and_results_by_label():
    nx = pytest.importorskip("networkx")
    G = nx.Graph([("a", "b"), ("b", "c"), ("d", "e")])
    A, nodes = gb.io.from_networkx(G)
    assert nodes == ["a", "b", "c", "d", "e"]
    H = gb.io.to_networkx(A, nodes)  # symmetric: a Graph
    assert not H.is_directed() and list(H.nodes) == nodes
    assert set(map(frozenset, H.edges)) == set(map(frozenset, G.edges))
    levels = gb.algorithms.bfs(A, nodes.index("a"))
    assert gb.io.to_dict(levels, nodes) == nx.single_source_shortest_path_length(G, "a")
    pattern = gb.Matrix.from_coo([0], [1], shape=(2, 2))
    assert list(gb.io.to_networkx(pattern).edges(data=True)) == [(0, 1, {})]
    with pytest.raises(gb.DimensionMismatch, match="5 node labels"):
        gb.io.to_dict(levels, ["a"])
    with pytest.raises(gb.InvalidValue, match="distinct node labels"):
        gb.io.to_networkx(A, ["a"] * 5)
    with pytest.raises(gb.InvalidObject, match="a NetworkX graph"):
        gb.io.from_networkx(A)


# ------------------------------------------------------------------------------- GPU
@pytest.mark.gpu
def test_gpu_from_coo_keeps_cupy_arrays_on_the_device():
    import cupy as cp

    r = np.array([2, 0, 2, 1, 0])
    c = np.array([1, 0, 1, 2, 0])
    v = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    for op in ("plus", "min", "first", "second"):
        want = gb.Matrix.from_coo(r, c, v, shape=(3, 3), dup_op=op)
        got = gb.Matrix.from_coo(cp.asarray(r), cp.asarray(c), cp.asarray(v), shape=(3, 3),
                                 dup_op=op)
        assert got.device == "gpu"
        assert type(got.csr().indices).__module__.startswith("cupy")
        assert got.isequal(want.to("gpu"), check_dtype=True), op
    ints = gb.Matrix.from_coo(cp.asarray(r), cp.asarray(c), cp.asarray([1, 2, 3, 4, 5]))
    assert ints.to("cpu").isequal(gb.Matrix.from_coo(r, c, [1, 2, 3, 4, 5]), check_dtype=True)
    pat = gb.Matrix.from_coo(cp.asarray(r), cp.asarray(c), shape=(3, 3))
    assert pat.device == "gpu" and pat.dtype == np.bool_ and pat.nvals == 3
    with pytest.raises(gb.IndexOutOfBound, match="indices in \\[0, 3\\)"):
        gb.Matrix.from_coo(cp.asarray([0, 3]), cp.asarray([0, 0]), shape=(3, 3))


@pytest.mark.gpu
def test_gpu_vector_from_coo_keeps_cupy_arrays_on_the_device():
    import cupy as cp

    idx = np.array([4, 0, 4, 2])
    vals = np.array([1.5, 2.0, 3.0, 4.0])
    for op in ("plus", "max", "first", "second"):
        got = gb.Vector.from_coo(cp.asarray(idx), cp.asarray(vals), size=6, dup_op=op)
        assert got.device == "gpu" and type(got.to_coo()[0]).__module__.startswith("cupy")
        assert got.to("cpu").isequal(gb.Vector.from_coo(idx, vals, 6, dup_op=op),
                                     check_dtype=True), op
    pat = gb.Vector.from_coo(cp.asarray([3, 1]))
    assert pat.device == "gpu" and pat.size == 4 and pat.dtype == np.bool_
    with pytest.raises(gb.InvalidValue, match="unique indices"):
        gb.Vector.from_coo(cp.asarray([1, 1]), cp.asarray([1, 2]), size=2, dup_op=None)


@pytest.mark.gpu
def test_gpu_cupyx_sparse_in_and_out():
    import cupy as cp
    import cupyx.scipy.sparse as cps

    S = sp.random(6, 5, density=0.4, format="csr", random_state=3)
    C = cps.csr_matrix(S)
    A = gb.Matrix.from_scipy(C)
    assert A.device == "gpu" and A.isequal(gb.Matrix.from_scipy(S).to("gpu"))
    coo = cps.coo_matrix((cp.asarray([1.0, 2.0]), (cp.asarray([0, 0]), cp.asarray([1, 1]))),
                         shape=(2, 2))
    assert gb.Matrix.from_scipy(coo).to("cpu").to_coo()[2].tolist() == [3.0]
    for fmt in ("csr", "csc", "coo"):
        out = A.to_cupy(fmt)
        assert out.format == fmt
        np.testing.assert_allclose(out.get().toarray(), S.toarray())
    Ai = gb.Matrix.from_coo([0, 1], [1, 0], [2, 3], shape=(2, 2)).to("gpu")
    assert Ai.to_cupy().dtype == np.float64
    np.testing.assert_array_equal(Ai.to_cupy().get().toarray(), [[0, 2], [3, 0]])
    v = gb.Vector.from_coo([1], [2.0], size=3)
    got = v.to_cupy(fill=-1)
    assert isinstance(got, cp.ndarray) and got.get().tolist() == [-1.0, 2.0, -1.0]
    w = gb.Vector.from_scipy(cps.csr_matrix(sp.csr_array(np.array([[0.0, 4.0]]))))
    assert w.device == "gpu" and w.to("cpu").to_coo()[0].tolist() == [1]


@pytest.mark.gpu
def test_gpu_matmul_with_cupy_arrays_returns_cupy_arrays():
    import cupy as cp

    S = sp.random(7, 5, density=0.5, format="csr", random_state=4)
    A = gb.Matrix.from_scipy(S).to("gpu")
    x = np.arange(5, dtype=np.float64)
    y = A @ cp.asarray(x)
    assert isinstance(y, cp.ndarray)
    np.testing.assert_allclose(y.get(), S @ x)
    X = np.arange(10, dtype=np.float64).reshape(5, 2)
    Y = A @ cp.asarray(X)
    assert isinstance(Y, cp.ndarray)
    np.testing.assert_allclose(Y.get(), S @ X)
    u = np.arange(7, dtype=np.float64)
    np.testing.assert_allclose((cp.asarray(u) @ A).get(), u @ S)
    with pytest.raises(gb.InvalidValue, match="Matrix's device"):
        A @ x
    B = gb.Matrix.from_scipy(S)
    assert all(A[i, j] == B[i, j] for i in range(7) for j in range(5))
