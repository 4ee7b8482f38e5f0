"""The fused CPU PageRank loop against the loop of planned products (the same
arithmetic: the same ranks to rounding) on drawn graphs, weights, personalization
and both stopping rules; and the planner's choice between them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.algorithms.pagerank import PowerIterationFailedConvergence


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(0, 4 * n))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    kind = draw(st.sampled_from(["bool", "iso", "weights", "int"]))
    if kind == "bool":
        return gb.Matrix.from_coo(rows, cols, None, shape=(n, n), dup_op="any"), n, seed
    if kind == "iso":
        vals = np.full(m, 2.5)
    elif kind == "int":
        vals = rng.integers(1, 5, m)
    else:
        vals = rng.random(m) + 0.01
    return gb.Matrix.from_coo(rows, cols, vals, shape=(n, n), dup_op="max"), n, seed


def _products(A, **kw):
    # a pinned format keeps the loop of planned products
    with gb.config(format="csr"):
        return gb.algorithms.pagerank(A, **kw)


@settings(max_examples=60, deadline=None)
@given(graphs(), st.sampled_from(["l1", "networkx"]), st.booleans())
def test_fused_loop_equals_the_products(g, criterion, personalized):
    A, n, seed = g
    kw = {"tol": 1e-9, "criterion": criterion, "max_iter": 300}
    if personalized:
        kw["personalization"] = np.random.default_rng(seed).random(n) + 0.1
    plan = gb.explain(gb.algorithms.pagerank, A, **kw)
    assert plan.kernel == "pagerank/csr/cpu/fused", plan
    got = gb.algorithms.pagerank(A, **kw).to_dense()
    want = _products(A, **kw).to_dense()
    # graphs this small run both loops on one thread: the sums fold in the same order
    np.testing.assert_array_equal(got, want)


def test_fused_loop_raises_like_the_products():
    A = gb.io.kronecker(8, 8, seed=1)
    with pytest.raises(PowerIterationFailedConvergence, match="max_iter=3") as fused:
        gb.algorithms.pagerank(A, max_iter=3)
    with pytest.raises(PowerIterationFailedConvergence) as loop:
        _products(A, max_iter=3)
    np.testing.assert_allclose(fused.value.ranks.to_dense(), loop.value.ranks.to_dense(),
                               atol=1e-15)


def test_planner_keeps_the_products_where_the_loop_must_see_iterations(monkeypatch):
    from gblas.planner import algorithms as plans

    A = gb.io.kronecker(6, 4, seed=2)
    assert gb.explain(gb.algorithms.pagerank, A).kernel == "pagerank/csr/cpu/fused"
    p = gb.explain(gb.algorithms.pagerank, A, callback=lambda s: True)
    assert p.key is None and "callback" in p.reason
    with gb.config(format="csr"):
        assert "pinned" in gb.explain(gb.algorithms.pagerank, A).reason
    monkeypatch.setattr(plans, "FUSED_PAGERANK_MAX_ENTRIES", A.nvals - 1)
    p = gb.explain(gb.algorithms.pagerank, A)
    assert p.key is None and "entries" in p.reason
    monkeypatch.undo()
    # a callback run and a fused run agree
    np.testing.assert_allclose(gb.algorithms.pagerank(A, callback=lambda s: True).to_dense(),
                               gb.algorithms.pagerank(A).to_dense(), atol=1e-15)
