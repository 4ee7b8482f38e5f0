"""CSR.keep_rows: the kept rows' entries, the others empty, against SciPy's row scaling."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.formats import CSR


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), density=st.floats(0, 1), share=st.floats(0, 1),
       iso=st.booleans(), seed=st.integers(0, 2**31))
def test_keep_rows_matches_scipy(n, density, share, iso, seed):
    rng = np.random.default_rng(seed)
    S = sp.random(n, n, density=density, format="csr", random_state=seed)
    if iso:
        S.data[:] = 3.0
    A = CSR.from_scipy(S)
    keep = rng.random(n) < share
    B = A.keep_rows(keep)
    B.check_invariants()
    assert B.shape == A.shape and B.nnz == int(np.diff(S.indptr)[keep].sum())
    np.testing.assert_array_equal(B.to_scipy().toarray(), S.toarray() * keep[:, None])
