"""gblas.algorithms.sssp by the heap route and by the (min, +) products: the same
distances (and parents) as each other and as SciPy, whichever the planner picks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


def _both(A, s, parents):
    planned = gb.algorithms.sssp(A, s, parents=parents)
    with gb.config(format="csr"):  # a pinned format keeps the products
        assert gb.explain(gb.algorithms.sssp, A, s).direction == "semiring"
        products = gb.algorithms.sssp(A, s, parents=parents)
    return planned, products


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 160), st.integers(0, 2**32 - 1),
       st.sampled_from(["float64", "float32", "int64"]))
def test_routes_agree_with_scipy(n, m, seed, dtype):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 9, m).astype(dtype)
    S = sp.csr_array((w, (r, c)), shape=(n, n))
    S.sum_duplicates()
    A = gb.Matrix.from_scipy(S)
    s = int(rng.integers(0, n))
    (d1, p1), (d2, p2) = _both(A, s, True)
    want = csg.dijkstra(S.astype(np.float64), indices=s)
    for d in (d1, d2):
        assert d.dtype == np.float64
        np.testing.assert_array_equal(d.to_dense(fill=np.inf), want)
    np.testing.assert_array_equal(p1.to_dense(fill=-1), p2.to_dense(fill=-1))


@pytest.mark.parametrize("n", [400])
def test_a_long_path_takes_the_heap(n):
    ids = np.arange(n - 1)
    S = sp.csr_array((np.full(n - 1, 2.0), (ids, ids + 1)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    assert gb.explain(gb.algorithms.sssp, A, 0).direction == "heap"
    planned, products = _both(A, 0, False)
    np.testing.assert_array_equal(planned.to_dense(fill=-1), 2.0 * np.arange(n))
    np.testing.assert_array_equal(products.to_dense(fill=-1), 2.0 * np.arange(n))
