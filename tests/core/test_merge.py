"""The linear-time pattern merges (``backends/cpu/merge.py``) against NumPy set
operations, and ewise_add / ewise_mult through them against the reference backend."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas.backends import reference as ref
from gblas.backends.cpu import merge
from gblas.testing import assert_equal, to_reference
from gblas.testing import strategies as gst

INDEX_DTYPES = [np.int32, np.uint32, np.int64, np.uint64]


def _sorted_unique(draw, max_value, max_size, dtype):
    vals = draw(st.lists(st.integers(0, max_value), max_size=max_size, unique=True))
    return np.array(sorted(vals), dtype=dtype)


@st.composite
def key_pairs(draw):
    da, db = draw(st.sampled_from(INDEX_DTYPES)), draw(st.sampled_from(INDEX_DTYPES))
    hi = draw(st.sampled_from([3, 50, 1000]))
    return (_sorted_unique(draw, hi, 60, da), _sorted_unique(draw, hi, 60, db))


def _check_positions(keys, pa, pb, a, b):
    assert np.array_equal(np.asarray(a)[pa[pa >= 0]], keys[pa >= 0])
    assert np.array_equal(np.asarray(b)[pb[pb >= 0]], keys[pb >= 0])


@given(key_pairs())
def test_sorted_union_intersect_member(pair):
    a, b = pair
    keys, pa, pb = merge.union_sorted(a, b)
    assert np.array_equal(keys, np.union1d(a.astype(np.int64), b.astype(np.int64)))
    assert ((pa >= 0) | (pb >= 0)).all()
    _check_positions(keys, pa, pb, a, b)
    keys, pa, pb = merge.intersect_sorted(a, b)
    assert np.array_equal(keys, np.intersect1d(a.astype(np.int64), b.astype(np.int64)))
    assert ((pa >= 0) & (pb >= 0)).all()
    _check_positions(keys, pa, pb, a, b)
    pos = merge.member_sorted(a, b)
    assert np.array_equal(pos >= 0, np.isin(a, b))
    assert np.array_equal(b[pos[pos >= 0]], a[pos >= 0])


def _random_csr(rng, m, n, density, dtype):
    import scipy.sparse as sp

    S = sp.random(m, n, density=density, format="csr", random_state=rng)
    S.sort_indices()
    return S.indptr.astype(np.int64), S.indices.astype(dtype)


@pytest.mark.parametrize("m,n,density", [(0, 5, 0.5), (7, 0, 0.5), (1, 40, 0.3),
                                         (30, 30, 0.0), (30, 30, 0.2), (200, 700, 0.02)])
@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_csr_merges_match_row_sets(rng, m, n, density, dtype):
    ap, ai = _random_csr(rng, m, n, density, dtype)
    bp, bi = _random_csr(rng, m, n, density * 1.5 if density else 0.1, np.int32)
    for fn, setop, keep in ((merge.csr_union, np.union1d, lambda x, y: (x >= 0) | (y >= 0)),
                            (merge.csr_intersect, np.intersect1d,
                             lambda x, y: (x >= 0) & (y >= 0))):
        ptr, idx, pa, pb = fn(ap, ai, bp, bi)
        assert ptr.shape[0] == m + 1 and keep(pa, pb).all()
        for r in range(m):
            want = setop(ai[ap[r]:ap[r + 1]].astype(np.int64),
                         bi[bp[r]:bp[r + 1]].astype(np.int64))
            assert np.array_equal(idx[ptr[r]:ptr[r + 1]].astype(np.int64), want)
        _check_positions(idx.astype(np.int64), pa, pb, ai.astype(np.int64),
                         bi.astype(np.int64))
    pos = merge.csr_member(ap, ai, bp, bi)
    for r in range(m):
        row_b = bi[bp[r]:bp[r + 1]]
        got = pos[ap[r]:ap[r + 1]]
        assert np.array_equal(got >= 0, np.isin(ai[ap[r]:ap[r + 1]], row_b))
        assert np.array_equal(bi[got[got >= 0]], ai[ap[r]:ap[r + 1]][got >= 0])


def test_parallel_paths_agree_with_sequential(rng, monkeypatch):
    ap, ai = _random_csr(rng, 300, 2000, 0.05, np.int32)
    bp, bi = _random_csr(rng, 300, 2000, 0.05, np.int32)
    seq = merge.csr_union(ap, ai, bp, bi)
    keys_a = np.unique(rng.integers(0, 1 << 40, 5000))
    keys_b = np.unique(rng.integers(0, 1 << 40, 7000))
    seq_k = merge.union_sorted(keys_a, keys_b)
    monkeypatch.setattr(merge, "PARALLEL_ENTRIES", 1)
    for got, want in ((merge.csr_union(ap, ai, bp, bi), seq),
                      (merge.union_sorted(keys_a, keys_b), seq_k)):
        for g, w in zip(got, want):
            assert np.array_equal(g, w)


def test_row_count_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match="same length"):
        merge.csr_union(np.array([0, 1]), np.array([0]), np.array([0, 0, 1]), np.array([0]))


@given(st.data(), st.booleans(), st.sampled_from([False, True]), st.sampled_from([False, True]))
def test_matrix_ewise_against_reference(data, union, ta, tb):
    dt = data.draw(gst.dtypes("biuf"))
    m, n = data.draw(gst.shapes(max_dim=9))
    A = data.draw(gst.matrices((n, m) if ta else (m, n), dt))
    B = data.draw(gst.matrices((n, m) if tb else (m, n), data.draw(gst.dtypes("biuf"))))
    op = data.draw(st.sampled_from(["plus", "min", "first", "second", "times"]))
    u, v = (A.T if ta else A), (B.T if tb else B)
    ru = to_reference(A).T if ta else to_reference(A)
    rv = to_reference(B).T if tb else to_reference(B)
    gb_fn, ref_fn = (gb.ewise_add, ref.ewise_add) if union else (gb.ewise_mult, ref.ewise_mult)
    assert_equal(gb_fn(u, v, op), ref_fn(ru, rv, op))


@given(st.data(), st.booleans())
def test_matrix_ewise_with_out_mask_accum(data, union):
    m, n = data.draw(gst.shapes(max_dim=8))
    A = data.draw(gst.matrices((m, n), np.float64))
    B = data.draw(gst.matrices((m, n), np.float64))
    C = data.draw(gst.matrices((m, n), np.float64))
    M = data.draw(gst.matrices((m, n), np.bool_))
    kind = data.draw(st.sampled_from(["S", "V", "~S", "~V", None]))
    accum = data.draw(st.sampled_from([None, "plus"]))
    replace = data.draw(st.booleans()) and kind is not None
    mask = None if kind is None else gst.make_mask(M, kind)
    rmask = None if mask is None else to_reference(mask)
    gb_fn, ref_fn = (gb.ewise_add, ref.ewise_add) if union else (gb.ewise_mult, ref.ewise_mult)
    out = C.dup()
    expected = ref_fn(to_reference(A), to_reference(B), "plus", mask=rmask, accum=accum,
                      out=to_reference(C), replace=replace)
    got = gb_fn(A, B, "plus", mask=mask, accum=accum, out=out, replace=replace)
    assert got is out
    assert_equal(got, expected)


@given(st.data(), st.booleans())
def test_sparse_vector_ewise_against_reference(data, union):
    size = data.draw(st.integers(0, 40))
    u = data.draw(gst.vectors(size, np.float64, density=0.3))
    v = data.draw(gst.vectors(size, np.int32, density=0.3))
    gb_fn, ref_fn = (gb.ewise_add, ref.ewise_add) if union else (gb.ewise_mult, ref.ewise_mult)
    assert_equal(gb_fn(u, v, "max"), ref_fn(to_reference(u), to_reference(v), "max"))


@pytest.mark.parametrize("out_dtype", [np.int32, np.int64, np.uint32])
@pytest.mark.parametrize("parallel", [False, True])
def test_merges_keep_the_output_dtype(rng, monkeypatch, out_dtype, parallel):
    """The merges (one kernel for both passes on either path) give the requested index
    dtype and the rows' union and intersection."""
    if parallel:
        monkeypatch.setattr(merge, "PARALLEL_ENTRIES", 1)
    ap, ai = _random_csr(rng, 50, 80, 0.1, np.int32)
    bp, bi = _random_csr(rng, 50, 80, 0.1, np.int32)
    ptr, idx, pa, pb = merge.csr_union(ap, ai, bp, bi, out_dtype=out_dtype)
    assert idx.dtype == out_dtype and ptr.dtype == np.int64
    ptr2, idx2, pa2, pb2 = merge.csr_intersect(ap, ai, bp, bi, out_dtype=out_dtype)
    assert idx2.dtype == out_dtype and ptr2[-1] == idx2.size
    for r in range(50):
        a, b = ai[ap[r]:ap[r + 1]], bi[bp[r]:bp[r + 1]]
        assert idx[ptr[r]:ptr[r + 1]].tolist() == np.union1d(a, b).tolist()
        assert idx2[ptr2[r]:ptr2[r + 1]].tolist() == np.intersect1d(a, b).tolist()
