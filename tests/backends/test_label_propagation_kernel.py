"""Label propagation by the compiled sweeps against the loop of products: the same labels,
for both schedules, directed and undirected graphs, several seeds."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 40), st.integers(0, 150), st.integers(0, 2**32 - 1),
       st.sampled_from(["semi-synchronous", "synchronous"]), st.booleans(),
       st.integers(0, 3))
def test_compiled_sweeps_equal_the_products(n, m, seed, method, undirected, lpa_seed):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if undirected:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    S = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    kw = {"method": method, "seed": lpa_seed, "max_iter": 7}
    assert gb.explain(gb.algorithms.label_propagation, A, **kw).kernel == "lpa/csr/cpu"
    got = gb.algorithms.label_propagation(A, **kw).to_dense()
    with gb.config(format="csr"):  # a pinned format keeps the products
        assert gb.explain(gb.algorithms.label_propagation, A, **kw).kernel == ""
        want = gb.algorithms.label_propagation(A, **kw).to_dense()
    np.testing.assert_array_equal(got, want)


def test_two_cliques():
    import itertools

    e = [p for q in (range(5), range(5, 10)) for p in itertools.combinations(q, 2)]
    r, c = zip(*(e + [(4, 5)]))
    A = gb.Matrix.from_coo(r + c, c + r, shape=(10, 10))
    assert gb.algorithms.label_propagation(A).to_dense().tolist() == [0] * 5 + [5] * 5



def _jpl_reference(S, w):
    """Jones-Plassmann-Luby rounds by whole-array steps: a round takes every uncolored
    vertex whose priority exceeds all its uncolored neighbours' (self loops ignored)."""
    n = S.shape[0]
    C = sp.coo_array(S)
    keep = C.row != C.col
    r, c = C.row[keep], C.col[keep]
    colored = np.zeros(n, bool)
    order, bounds = [], [0]
    while not colored.all():
        live = ~colored[r] & ~colored[c]
        beaten = np.zeros(n, bool)
        beaten[r[live & (w[c] > w[r])]] = True
        top = np.flatnonzero(~colored & ~beaten)
        order.extend(top.tolist())
        bounds.append(len(order))
        colored[top] = True
    return order, bounds


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 30_000), st.integers(0, 2**32 - 1))
def test_coloring_rounds_equal_the_reference(n, m, seed):
    """The compiled coloring (rows resumed at their last blocker, uncolored vertices
    only) gives the classes and order of the plain rounds, on graphs of many rounds."""
    from gblas.backends.cpu.communities import coloring

    rng = np.random.default_rng(seed)
    # skewed degrees: a few hubs that stay blocked for many rounds
    r = np.minimum(rng.zipf(1.6, m) - 1, n - 1)
    c = rng.integers(0, n, m)
    S = sp.csr_array((np.ones(2 * m), (np.concatenate([r, c]), np.concatenate([c, r]))),
                     shape=(n, n))
    S.sum_duplicates()
    w = rng.permutation(n).astype(np.int64) + 1
    order, class_ptr = coloring(gb.Matrix.from_scipy(S).csr(), w)
    want_order, want_bounds = _jpl_reference(S, w)
    assert order.tolist() == want_order and class_ptr.tolist() == want_bounds


def test_coloring_and_sweeps_share_one_signature(monkeypatch):
    """The coloring and the sweeps (both schedules) call one compiled kernel with one
    signature, so that a new process loads one entry of the kernel cache for both."""
    import numba

    from gblas.backends.cpu import communities

    real, seen = communities._lpa, []

    def recording(*args):
        seen.append(tuple(numba.typeof(a) for a in args))
        return real(*args)

    monkeypatch.setattr(communities, "_lpa", recording)
    A = gb.io.kronecker(6, 8, seed=2, symmetric=True)
    labels = gb.algorithms.label_propagation(A).to_dense()
    gb.algorithms.label_propagation(A, method="synchronous", max_iter=3)
    assert len(seen) == 3 and len(set(seen)) == 1
    monkeypatch.setattr(communities, "_lpa", real)
    with gb.config(format="csr"):  # the products give the same labels
        np.testing.assert_array_equal(gb.algorithms.label_propagation(A).to_dense(), labels)
