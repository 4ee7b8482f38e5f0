"""Connected components through the compiled kernels (union-find, Tarjan) against SciPy
and against the loop of products, labels = smallest vertex id of each component."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from graph_cases import uniform_digraph
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


def _smallest_id_labels(labels: np.ndarray) -> np.ndarray:
    """SciPy's component numbers turned into each component's smallest vertex id."""
    n = labels.size
    first = np.full(labels.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n))
    return first[labels]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60), st.integers(0, 200), st.integers(0, 2**32 - 1),
       st.sampled_from(["weak", "strong"]), st.booleans())
def test_kernels_match_scipy_and_the_loop(n, m, seed, kind, view):
    rng = np.random.default_rng(seed)
    S = uniform_digraph(rng, n, m)
    A = gb.Matrix.from_scipy(S)
    M = A.T if view else A
    plan = gb.explain(gb.algorithms.connected_components, M, kind)
    assert plan.kernel == f"components/csr/cpu/{kind}"
    got = gb.algorithms.connected_components(M, kind).to_dense()
    _, lab = csg.connected_components(S.T if view else S, directed=True, connection=kind)
    np.testing.assert_array_equal(got, _smallest_id_labels(lab))
    with gb.config(format="csr"):  # the products give the same labels
        assert gb.explain(gb.algorithms.connected_components, M, kind).kernel == ""
        loop = gb.algorithms.connected_components(M, kind).to_dense()
    np.testing.assert_array_equal(got, loop)


def test_a_long_cycle_and_a_long_path():
    n = 20000  # deep enough to overflow a recursive Tarjan
    ids = np.arange(n)
    cycle = sp.csr_array((np.ones(n), (ids, (ids + 1) % n)), shape=(n, n))
    path = sp.csr_array((np.ones(n - 1), (ids[:-1], ids[1:])), shape=(n, n))
    assert (gb.algorithms.connected_components(gb.Matrix.from_scipy(cycle), "strong")
            .to_dense() == 0).all()
    np.testing.assert_array_equal(
        gb.algorithms.connected_components(gb.Matrix.from_scipy(path), "strong").to_dense(),
        ids)
    assert (gb.algorithms.connected_components(gb.Matrix.from_scipy(path)).to_dense()
            == 0).all()
