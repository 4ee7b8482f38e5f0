"""Core numbers by the compiled bucket peeling against the products and NetworkX."""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 150), st.integers(0, 2**32 - 1), st.booleans())
def test_bucket_peeling_equals_products_and_networkx(n, m, seed, undirected):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = r != c
    r, c = r[keep], c[keep]
    if undirected:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    S = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    assert gb.explain(gb.algorithms.core_number, A).kernel == "core_number/csr/cpu"
    got = gb.algorithms.core_number(A, directed=not undirected).to_dense()
    with gb.config(format="csr"):  # a pinned format keeps the products
        want = gb.algorithms.core_number(A, directed=not undirected).to_dense()
    np.testing.assert_array_equal(got, want)
    G = nx.from_scipy_sparse_array(S, create_using=nx.Graph if undirected else nx.DiGraph)
    ref = nx.core_number(G)
    np.testing.assert_array_equal(got, [ref[i] for i in range(n)])
