"""The linear-time build passes: the CPU transpose, column counts and the segmented
layout, checked against SciPy and against the grouping they replace."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas.backends.cpu import build
from gblas.formats import CSR
from gblas.formats.csr import known_column_counts
from gblas.formats.reorder import column_frequencies, resolve
from gblas.formats.segmented import SegmentedCSR

VALUE_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float32", "float64"]


def _random_csr(m: int, n: int, nnz: int, seed: int, dtype="float64",
                empty_rows: bool = True) -> sp.csr_array:
    """A random matrix with some empty rows and columns (and hub rows / columns)."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, max(m, 1), nnz)
    cols = rng.integers(0, max(n, 1), nnz)
    if empty_rows and m > 4 and n > 4:
        rows = rows[(rows % 5) != 1]          # every fifth row empty
        cols = cols[: rows.size]
        cols = np.where(cols % 7 == 3, 0, cols)  # column 0 a hub, cols 3 mod 7 empty
    vals = (rng.random(rows.size) * 100).astype(dtype) if m and n else np.zeros(0, dtype)
    S = sp.coo_array((vals, (rows, cols)), shape=(m, n)).tocsr()
    S.sum_duplicates()
    S.sort_indices()
    return S


@pytest.fixture(params=["serial", "blocks"])
def route(request, monkeypatch):
    """Both transpose routes on every size: the sequential counting sort and the
    parallel bucket passes (otherwise taken from ``build.SERIAL_ENTRIES`` entries on)."""
    monkeypatch.setattr(build, "SERIAL_ENTRIES", 1 << 62 if request.param == "serial" else 0)
    return request.param


def _scipy_transpose(S):
    T = S.T.tocsr()
    T.sort_indices()
    return T


@pytest.mark.parametrize("shape,nnz", [((0, 0), 0), ((0, 5), 0), ((5, 0), 0), ((1, 1), 1),
                                       ((7, 3), 12), ((60, 90), 400), ((3000, 2000), 90_000),
                                       ((500, 40_000), 100_000)])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_transpose_matches_scipy(shape, nnz, threads, route):
    S = _random_csr(*shape, nnz, seed=sum(shape) + threads)
    T = _scipy_transpose(S)
    ptr, idx, val = build.transpose(S.indptr, S.indices, S.data, shape[1], threads=threads)
    np.testing.assert_array_equal(ptr, T.indptr)
    np.testing.assert_array_equal(idx, T.indices)
    np.testing.assert_array_equal(val, T.data)


@pytest.mark.parametrize("bucket_bytes", [1, 64, 1 << 20])
def test_transpose_any_bucket_width(bucket_bytes, monkeypatch):
    monkeypatch.setattr(build, "BUCKET_BYTES", bucket_bytes)
    S = _random_csr(4000, 9000, 120_000, seed=3)
    T = _scipy_transpose(S)
    ptr, idx, val = build.transpose(S.indptr, S.indices, S.data, 9000, threads=2)
    np.testing.assert_array_equal(ptr, T.indptr)
    np.testing.assert_array_equal(idx, T.indices)
    np.testing.assert_array_equal(val, T.data)


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csr_transpose_every_value_dtype(dtype, route):
    S = _random_csr(2500, 1800, 80_000, seed=7, dtype=dtype)
    S.data[::3] = 0  # stored zeros: values that differ (an all-equal import is iso)
    A = CSR.from_scipy(S)
    assert A.values is not None
    At = A.transpose()
    At.check_invariants()
    T = _scipy_transpose(S)
    assert At.shape == (1800, 2500) and At.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(At.indptr, T.indptr)
    np.testing.assert_array_equal(At.indices, T.indices)
    np.testing.assert_array_equal(At.values, T.data)
    # index dtypes follow the entries (indptr) and the columns (indices) as before
    assert At.indptr.dtype == np.int32 and At.indices.dtype == np.int32


@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64])
def test_transpose_index_dtypes(idx_dtype, route):
    S = _random_csr(300, 500, 5000, seed=11)
    ptr, idx, val = build.transpose(S.indptr.astype(idx_dtype), S.indices.astype(idx_dtype),
                                    S.data, 500, threads=2)
    T = _scipy_transpose(S)
    np.testing.assert_array_equal(ptr, T.indptr)
    np.testing.assert_array_equal(idx, T.indices)
    np.testing.assert_array_equal(val, T.data)


def test_transpose_iso_and_known_column_counts():
    A = gb.Matrix.from_coo([0, 0, 2, 2, 2], [1, 3, 0, 1, 3], shape=(4, 5))  # pattern
    At = A.csr(transposed=True)
    assert At.values is None and At.iso_value == np.bool_(True)
    ref = _scipy_transpose(A.to_scipy())
    np.testing.assert_array_equal(At.indptr, ref.indptr)
    np.testing.assert_array_equal(At.indices, ref.indices)
    # the transpose records its column counts: A's row counts
    np.testing.assert_array_equal(known_column_counts(At), [2, 0, 3, 0])
    np.testing.assert_array_equal(column_frequencies(At), [2, 0, 3, 0])
    assert A.T.isequal(gb.Matrix.from_scipy(ref.astype(bool)))


def test_duplicates_combined_before_the_transpose():
    # from_coo combines duplicates (dup_op) as before; the transpose keeps one entry each
    A = gb.Matrix.from_coo([0, 0, 1, 0], [2, 2, 0, 1], [1.0, 2.0, 3.0, 4.0], shape=(2, 3))
    r, c, v = A.T.to_coo()
    assert r.tolist() == [0, 1, 2] and c.tolist() == [1, 0, 0] and v.tolist() == [3.0, 4.0, 3.0]
    # a CSR with duplicate columns in a row (never built by gblas, but the kernel is
    # stable): both kept, in input order
    ptr, idx, val = build.transpose(np.array([0, 3]), np.array([1, 1, 0]),
                                    np.array([5.0, 6.0, 7.0]), 2, threads=1)
    assert ptr.tolist() == [0, 1, 3] and idx.tolist() == [0, 0, 0]
    assert val.tolist() == [7.0, 5.0, 6.0]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_column_counts(threads):
    S = _random_csr(3000, 7000, 150_000, seed=5)
    got = build.column_counts(S.indptr, S.indices, 7000, threads=threads)
    np.testing.assert_array_equal(got, np.bincount(S.indices, minlength=7000))
    assert got.dtype == np.int64


def _old_grouping(csr: CSR, W: int, reorder):
    """The layout as built before: relabel (resolve), then group by segment."""
    work, perm, _ = resolve(csr, reorder, 1 << 10, 4, 64)
    n = csr.shape[1]
    nseg = -(-n // W) if n else 0
    g = SegmentedCSR._group(work, csr.shape[0] or 1, W, np.arange(max(nseg, 1)), nseg, 2)
    return g, perm


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
@pytest.mark.parametrize("W", [1, 7, 64, 1024, 5000])
@pytest.mark.parametrize("reorder", [None, "frequency", "degree"])
def test_segmented_build_matches_previous_grouping(dtype, W, reorder):
    S = _random_csr(1500, 3000, 70_000, seed=W, dtype=dtype)
    A = CSR.from_scipy(S).transpose()  # the shape a pull over A^T builds from
    F = SegmentedCSR.from_csr(A, segment_size=W, reorder=reorder)
    F.check_invariants()
    g, perm = _old_grouping(A, W, reorder)
    for k in ("group_rows", "lptr", "rowmap", "indices"):
        np.testing.assert_array_equal(getattr(F, k), g[k], err_msg=k)
        assert getattr(F, k).dtype == g[k].dtype or k == "group_rows"
    np.testing.assert_array_equal(F.values, g["values"])
    if perm is None:
        assert F.col_perm is None
    else:
        np.testing.assert_array_equal(F.col_perm, perm)
    back = F.to_csr()
    np.testing.assert_array_equal(back.indptr, A.indptr)
    np.testing.assert_array_equal(back.indices, A.indices)
    np.testing.assert_array_equal(back.values, A.values)


def test_segmented_build_iso_and_empty():
    A = CSR.from_coo(np.array([0, 2, 2]), np.array([4, 0, 4]), None, (3, 6), iso_value=True)
    F = SegmentedCSR.from_csr(A, segment_size=2, reorder="frequency")
    F.check_invariants()
    # columns 4 and 0 are hot: new ids 0 and 1, one segment
    assert F.values is None and F.rowmap.tolist() == [0, 2] and F.indices.tolist() == [1, 0, 1]
    E = CSR.empty((4, 9), np.float64)
    G = SegmentedCSR.from_csr(E, segment_size=4)
    G.check_invariants()
    assert G.nlocal == 0 and G.nsegments == 3


@pytest.mark.parametrize("split_at_boundary", [False, True])
def test_segment_groups_two_runs(split_at_boundary):
    """A relabelling made of two increasing runs, the first ending inside a segment or
    at a segment boundary: every local row's new ids come out ascending."""
    rng = np.random.default_rng(1)
    n = 64
    hot = np.zeros(n, bool)
    hot[rng.choice(n, 16 if split_at_boundary else 13, replace=False)] = True
    perm = np.concatenate([np.flatnonzero(hot), np.flatnonzero(~hot)])
    inv = np.empty(n, np.int64)
    inv[perm] = np.arange(n)
    S = _random_csr(200, n, 3000, seed=2)
    g = build.segment_groups(S.indptr, S.indices, S.data, n, 8, inv, int(hot.sum()),
                             threads=2)
    ref = sp.csr_array((S.data, inv[S.indices], S.indptr), shape=S.shape)
    ref.has_sorted_indices = False
    ref.sort_indices()
    rows = np.repeat(g["rowmap"].astype(np.int64), np.diff(g["lptr"].astype(np.int64)))
    back = sp.csr_array((g["values"], (rows, g["indices"])), shape=S.shape)
    assert (back != ref).nnz == 0
    lp = g["lptr"].astype(np.int64)
    for r in range(g["rowmap"].size):
        seg = g["indices"][lp[r]:lp[r + 1]]
        assert np.all(np.diff(seg) > 0) and np.all(seg // 8 == seg[0] // 8)


def test_format_of_the_transpose_transposes_once(monkeypatch):
    """Building a derived format of A^T reuses the cached CSR of A^T: one transpose."""
    calls = []
    orig = CSR.transpose

    def counted(self):
        calls.append(self.nnz)
        return orig(self)

    monkeypatch.setattr(CSR, "transpose", counted)
    A = gb.Matrix.from_scipy(_random_csr(300, 300, 3000, seed=4))
    F = A.get_format("segmented", transposed=True, segment_size=64)
    assert len(calls) == 1
    A.get_format("segmented", transposed=True, segment_size=32)
    A.csr(transposed=True)
    assert len(calls) == 1
    back = F.to_csr()
    ref = _scipy_transpose(A.to_scipy())
    np.testing.assert_array_equal(back.indptr, ref.indptr)
    np.testing.assert_array_equal(back.indices, ref.indices)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("seed", range(6))
def test_rows_by_scan_equals_the_repeat(seed, dtype):
    """The GPU's row ids (a scan of each non-empty row's step, run here with NumPy)
    equal the repeat of the row ids, with empty first, last and middle rows."""
    from gblas.formats.csr import rows_by_scan

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 60))
    counts = rng.integers(0, 4, m) * (rng.random(m) < 0.6)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    got = rows_by_scan(np, indptr, int(indptr[-1]), dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.repeat(np.arange(m), counts))


@pytest.mark.gpu
@pytest.mark.parametrize("route", ["cusparse", "sort"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64", "int32",
                                   "pattern"])
def test_gpu_transpose_equals_scipy(monkeypatch, dtype, route):
    """Both GPU transposes (cuSPARSE's csr2cscEx2 where it takes the values, a stable sort
    by column alone otherwise; each forced here) against SciPy, with empty rows and
    columns, a hub column, valued and iso matrices, and the column counts recorded."""
    cp = pytest.importorskip("cupy")
    from gblas.backends.gpu import transpose as gpu_transpose

    if route == "sort":
        monkeypatch.setattr(gpu_transpose, "supports", lambda *a: False)
    elif dtype.startswith("int"):
        assert not gpu_transpose.supports((3, 3), 1, np.zeros(1, dtype))
        pytest.skip("integer values always take the sort")
    calls = []
    real = gpu_transpose.csr_transpose
    monkeypatch.setattr(gpu_transpose, "csr_transpose",
                        lambda *a: calls.append(1) or real(*a))
    for seed, (m, n, nnz) in enumerate([(1, 1, 1), (7, 3, 12), (300, 200, 3000),
                                         (50, 2000, 800), (40, 30, 0)]):
        S = _random_csr(m, n, nnz, seed, "float64" if dtype == "pattern" else dtype)
        A = CSR.from_scipy(S)
        if dtype == "pattern":
            A = CSR(A.shape, A.indptr, A.indices, None, np.dtype(np.float64), 2.5, "cpu")
            S = sp.csr_array((np.full(S.nnz, 2.5), S.indices, S.indptr), shape=S.shape)
        T = A.to_device("gpu").transpose()
        ref = S.T.tocsr()
        ref.sort_indices()
        np.testing.assert_array_equal(cp.asnumpy(T.indptr), ref.indptr)
        np.testing.assert_array_equal(cp.asnumpy(T.indices), ref.indices)
        np.testing.assert_array_equal(cp.asnumpy(T.dense_values()), ref.data)  # iso or not
        assert T.shape == (n, m) and T.dtype == A.dtype
        np.testing.assert_array_equal(cp.asnumpy(known_column_counts(T)), np.diff(S.indptr))
        T.check_invariants()
    assert bool(calls) == (route == "cusparse")
