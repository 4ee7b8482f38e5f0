"""``algorithms.common.undirected``: ``P + P'`` of a Matrix's pattern by merges (a CPU
Matrix) against SciPy, and against the tuple build that other inputs take, with self
loops, explicit zeros, reciprocated edges, bool and integer values."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.algorithms.common import undirected


def _reference(S, no_diagonal: bool, multiplicity: bool):
    P = sp.csr_array(S, copy=True)
    P.data = np.ones(P.nnz)  # the pattern: explicit zeros count
    if no_diagonal:
        P.setdiag(0)
        P.eliminate_zeros()
    M = sp.csr_array(P + P.T)
    M.sort_indices()
    if not multiplicity:
        M.data = np.ones(M.nnz)
    return M


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 200), st.integers(0, 2**32 - 1), st.booleans(),
       st.booleans(), st.sampled_from([np.bool_, np.int64]))
def test_merges_equal_scipy_and_the_build(n, m, seed, no_diagonal, multiplicity, dtype):
    if multiplicity and dtype == np.bool_:
        multiplicity = False  # a count needs a number type
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    v = rng.integers(0, 3, m).astype(np.float64)  # some explicit zeros
    S = sp.csr_array((v, (r, c)), shape=(n, n))
    S.sum_duplicates()
    A = gb.Matrix.from_scipy(S)
    got = undirected(A, dtype, no_diagonal=no_diagonal, multiplicity=multiplicity)
    want = _reference(S, no_diagonal, multiplicity)
    assert got.dtype == np.dtype(dtype)
    gr, gc, gv = got.to_coo()
    wr, wc = np.repeat(np.arange(n), np.diff(want.indptr)), want.indices
    assert gr.tolist() == wr.tolist() and gc.tolist() == wc.tolist()
    assert np.asarray(gv, dtype=np.int64).tolist() == want.data.astype(np.int64).tolist()
    # a transposed view takes the tuple build: P' + P is the same matrix
    built = undirected(A.T, dtype, no_diagonal=no_diagonal, multiplicity=multiplicity)
    assert built.isequal(got, check_dtype=True)
