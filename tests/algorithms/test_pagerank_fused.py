"""The fused CPU PageRank loop against the loop of planned products (the same
arithmetic: the same ranks to rounding) on drawn graphs, weights, personalization
and both stopping rules; and the planner's choice between them."""

from __future__ import annotations

import dataclasses

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
    # more entries than the limit: still fused while the ranks fit the cache ...
    p = gb.explain(gb.algorithms.pagerank, A)
    assert p.kernel == "pagerank/csr/cpu/fused" and "fit the cache" in p.reason, p.reason
    # ... and the loop once they do not (a machine of a 64-byte cache, here)
    from gblas import hardware

    hw = hardware.detect()
    monkeypatch.setattr(hardware, "detect", lambda: dataclasses.replace(hw, l3=64))
    p = gb.explain(gb.algorithms.pagerank, A)
    assert p.key is None and "entries" in p.reason and "beyond the cache" in p.reason
    monkeypatch.undo()
    # a callback run and a fused run agree
    np.testing.assert_allclose(gb.algorithms.pagerank(A, callback=lambda s: True).to_dense(),
                               gb.algorithms.pagerank(A).to_dense(), atol=1e-15)


def _dense_pagerank(W: np.ndarray, alpha: float = 0.85, tol: float = 1e-13) -> np.ndarray:
    """The power iteration on a dense weight matrix: zero-weight rows are dangling."""
    n = W.shape[0]
    d = W.sum(axis=1)
    P = np.divide(W, d[:, None], out=np.zeros_like(W), where=d[:, None] != 0)
    r = np.full(n, 1.0 / n)
    for _ in range(10_000):
        last = r
        r = alpha * (P.T @ r + r[d == 0].sum() / n) + (1 - alpha) / n
        if np.abs(r - last).sum() < tol:
            break
    return r


@pytest.mark.parametrize("value", [2.5, 0.1, 3, 0.0])
def test_iso_weights_read_the_out_degree_from_the_row_pointers(value):
    """A matrix whose entries all hold one value v: its weighted out-degree is v times
    the entries per row (no product), and the ranks are those of the weights (v = 0:
    every vertex dangling, uniform ranks)."""
    rng = np.random.default_rng(7)
    n, m = 40, 160
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    A = gb.Matrix.from_coo(rows, cols, value, shape=(n, n), dup_op="any")
    assert A.csr().values is None and A.dtype.kind in "if"
    W = np.zeros((n, n))
    W[rows, cols] = value
    got = gb.algorithms.pagerank(A, tol=1e-12).to_dense()
    np.testing.assert_allclose(got, _dense_pagerank(W), rtol=1e-9, atol=1e-14)
    with gb.config(format="csr"):  # the loop of products reads the same degrees
        np.testing.assert_allclose(gb.algorithms.pagerank(A, tol=1e-12).to_dense(), got,
                                   rtol=1e-12)
