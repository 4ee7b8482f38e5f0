"""``Matrix.from_scipy``'s one-pass import of a canonical SciPy CSR (indices copied, order
checked, iso values found) against SciPy's own route."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.backends.cpu.imports import canonical_copy

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint16", "float32", "float64"]


@st.composite
def scipy_csr(draw):
    m = draw(st.integers(0, 30))
    n = draw(st.integers(1, 30))
    nnz = draw(st.integers(0, 3 * max(m, 1)))
    seed = draw(st.integers(0, 2**31 - 1))
    dtype = draw(st.sampled_from(DTYPES))
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, max(m, 1), nnz) if m else np.zeros(0, np.int64)
    cols = rng.integers(0, n, rows.size)
    kind = draw(st.sampled_from(["iso", "random", "iso_but_one", "negative_zero"]))
    vals = np.ones(rows.size)
    if kind == "random":
        vals = rng.integers(-3, 4, rows.size).astype(float)
    elif kind == "iso_but_one" and rows.size:
        vals[rng.integers(0, rows.size)] = 2.0
    elif kind == "negative_zero":
        vals = np.where(rng.random(rows.size) < 0.5, 0.0, -0.0)
    S = sp.csr_array((vals.astype(dtype), (rows, cols)), shape=(m, n))
    if draw(st.booleans()):  # a CSR out of canonical order: duplicates, unsorted rows
        S = sp.csr_array((np.concatenate([S.data, S.data[:2]]),
                          np.concatenate([S.indices, S.indices[:2]]),
                          np.concatenate([S.indptr[:-1], [S.indptr[-1] + min(2, S.nnz)]])
                          if S.nnz and m else S.indptr), shape=(m, n))
        S.has_canonical_format = False
    return S


@settings(max_examples=150, deadline=None)
@given(scipy_csr())
def test_from_scipy_matches_scipy(S):
    want = S.copy()
    want.sum_duplicates()
    A = gb.Matrix.from_scipy(S)
    A.csr().check_invariants()
    got = A.to_scipy()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.nnz == want.nnz
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    # bit for bit: -0.0 and 0.0 are different values of an iso test
    assert got.data.tobytes() == want.data.astype(got.dtype).tobytes()
    c = A.csr()
    if c.values is None:
        assert np.unique(want.data.view(np.uint8).reshape(want.nnz, -1), axis=0).shape[0] == 1
    # the input is left untouched and not shared
    assert not np.shares_memory(c.indices, S.indices) and not np.shares_memory(
        c.indptr, S.indptr)


def test_canonical_copy_flags():
    indptr = np.array([0, 2, 4])
    got = canonical_copy(indptr, np.array([1, 0, 0, 1], dtype=np.int32), np.ones(4))
    assert not got.canonical and got.values is None  # row 0 out of order: not used
    got = canonical_copy(indptr, np.array([0, 1, 1, 1], dtype=np.int32), np.ones(4))
    assert not got.canonical  # a duplicate in row 1
    got = canonical_copy(indptr, np.array([0, 1, 0, 1], dtype=np.int32),
                         np.array([1.0, 1.0, 1.0, 2.0]))
    assert got.canonical and not got.iso and got.values.tolist() == [1.0, 1.0, 1.0, 2.0]
    got = canonical_copy(indptr, np.array([0, 1, 0, 1], dtype=np.int32),
                         np.array([1 + 1j] * 4))
    assert got.canonical and not got.iso  # no bit view of complex values: copied


def test_iso_import_keeps_products_exact():
    S = sp.random(60, 60, density=0.1, format="csr", random_state=3)
    S.data[:] = 2.5
    A = gb.Matrix.from_scipy(S)
    assert A.csr().values is None and A.csr().iso_value == 2.5
    x = np.arange(60.0)
    np.testing.assert_allclose(gb.mxv(A, gb.Vector.from_dense(x)).to_dense(), S @ x)
    np.testing.assert_allclose(gb.mxv(A.T, gb.Vector.from_dense(x)).to_dense(), S.T @ x)


@settings(max_examples=80, deadline=None)
@given(scipy_csr(), st.integers(2, 4))
def test_parallel_and_serial_imports_agree(S, threads):
    """The import's parallel route (blocks of rows, used from SERIAL_ENTRIES entries)
    gives what the one-thread route gives, flags included."""
    from gblas.backends.cpu import imports

    serial = canonical_copy(S.indptr, S.indices, S.data)
    saved = imports.SERIAL_ENTRIES
    imports.SERIAL_ENTRIES = 0
    try:
        par = canonical_copy(S.indptr, S.indices, S.data, threads=threads)
    finally:
        imports.SERIAL_ENTRIES = saved
    assert (par.canonical, par.iso) == (serial.canonical, serial.iso)
    np.testing.assert_array_equal(par.indices, serial.indices)
    if serial.canonical and not serial.iso:
        np.testing.assert_array_equal(par.values, serial.values)
    else:
        assert par.values is None and serial.values is None


@given(seed=st.integers(0, 2**31 - 1), sort=st.booleans())
@settings(max_examples=60, deadline=None)
def test_order_check_of_a_block_of_rows(seed, sort):
    """The block check (descents anywhere, less those at a row's first entry) against a
    row-by-row check, on blocks starting anywhere, with empty rows and repeated columns."""
    from gblas.backends.cpu.imports import _check_rows

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 25))
    lens = rng.integers(0, 5, m) * (rng.random(m) < 0.7)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    indices = rng.integers(0, 6, int(indptr[-1])).astype(np.int32)
    if sort:
        for i in range(m):
            indices[indptr[i]:indptr[i + 1]] = np.sort(indices[indptr[i]:indptr[i + 1]])
    r0 = int(rng.integers(0, m + 1))
    r1 = int(rng.integers(r0, m + 1))
    out = np.full(indices.size, -1, dtype=np.int32)
    want = any(np.any(np.diff(indices[indptr[i]:indptr[i + 1]]) <= 0) for i in range(r0, r1))
    assert _check_rows(r0, r1, indptr, indices, out) == int(want)
    lo, hi = indptr[r0], indptr[r1]
    np.testing.assert_array_equal(out[lo:hi], indices[lo:hi])
    assert (out[:lo] == -1).all() and (out[hi:] == -1).all()
