"""PageRank's stopping rule and default accuracy (against NetworkX and an exact power
iteration), the planner hint it gives, and the GPU iteration against the CPU one."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas import hardware
from gblas.algorithms import PowerIterationFailedConvergence, pagerank
from gblas.io.generators import kronecker_coo, uniform_coo


def pattern(rows, cols, n) -> gb.Matrix:
    S = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    S.sum_duplicates()
    S.data[:] = 1.0
    return gb.Matrix.from_scipy(S.astype(bool))


def _exact(A: gb.Matrix, alpha: float = 0.85) -> np.ndarray:
    """NetworkX's formulation iterated to an L1 change of 1e-15 (SciPy, float64)."""
    S = A.to_scipy().astype(np.float64)
    n = S.shape[0]
    out = np.asarray(S.sum(axis=1)).ravel()
    dang = out == 0
    inv = np.divide(alpha, out, out=np.zeros_like(out), where=~dang)
    P = sp.csr_array(S.T)
    r = np.full(n, 1.0 / n)
    for _ in range(5000):
        new = P @ (r * inv) + (alpha * r[dang].sum() + 1 - alpha) / n
        if np.abs(new - r).sum() < 1e-15:
            return new
        r = new
    return r


def _nx(A: gb.Matrix, **kw) -> np.ndarray:
    G = nx.from_scipy_sparse_array(A.to_scipy().astype(np.float64), create_using=nx.DiGraph)
    G.add_nodes_from(range(A.shape[0]))
    pr = nx.pagerank(G, **kw)
    return np.array([pr[i] for i in range(A.shape[0])])


def _graphs():
    rng = np.random.default_rng(5)
    n = 300
    # a sparse random digraph with dangling vertices: slow to converge
    r, c = rng.integers(0, n, 700), rng.integers(0, n, 700)
    yield "random-300", pattern(r, c, n)
    yield "kron-10", pattern(*kronecker_coo(10, 8, seed=3), 1 << 10)
    yield "cycle-50", pattern(np.arange(50), (np.arange(50) + 1) % 50, 50)


GRAPHS = dict(_graphs())


@pytest.mark.parametrize("name", list(GRAPHS))
def test_default_is_accurate_against_networkx(name):
    A = GRAPHS[name]
    ref = _nx(A, tol=1e-13, max_iter=5000)  # NetworkX to convergence
    got = pagerank(A).to_dense()
    assert np.abs(got - ref).max() < 1e-6
    assert abs(got.sum() - 1.0) < 1e-12


def test_default_is_accurate_on_a_large_graph():
    # 32K vertices: NetworkX's n * tol rule at tol=1e-4 would stop after one iteration
    A = pattern(*kronecker_coo(15, 8, seed=1), 1 << 15)
    exact = _exact(A)
    got = pagerank(A).to_dense()
    assert np.abs(got - exact).max() < 1e-6
    # the documented bound: L1 error at most alpha / (1 - alpha) * tol
    assert np.abs(got - exact).sum() <= 0.85 / 0.15 * 1e-6
    loose = pagerank(A, tol=1e-4, criterion="networkx").to_dense()
    assert np.abs(loose - exact).max() > 1e-5  # why the n * tol rule is not the default


@pytest.mark.parametrize("name", list(GRAPHS))
def test_networkx_criterion_gives_networkx_iterates(name):
    A = GRAPHS[name]
    for tol in (1e-3, 1e-6):
        got = pagerank(A, tol=tol, criterion="networkx").to_dense()
        assert np.allclose(got, _nx(A, tol=tol), rtol=0, atol=1e-12)


def test_tolerance_is_the_l1_change():
    A = GRAPHS["random-300"]
    exact = _exact(A)
    for tol in (1e-3, 1e-5, 1e-8):
        got = pagerank(A, tol=tol, max_iter=500).to_dense()
        assert np.abs(got - exact).sum() <= 0.85 / 0.15 * tol


def test_weighted_personalized_damped():
    rng = np.random.default_rng(2)
    n = 200
    r, c = rng.integers(0, n, 900), rng.integers(0, n, 900)
    W = gb.Matrix.from_coo(r, c, rng.random(900) + 0.1, shape=(n, n))
    pers = {i: float(i % 7) for i in range(0, n, 3)}
    ref = _nx(W, alpha=0.9, personalization=pers, tol=1e-13, max_iter=5000)
    got = pagerank(W, damping=0.9, personalization=pers).to_dense()
    assert np.abs(got - ref).max() < 1e-6


def test_criterion_errors_and_failure():
    A = GRAPHS["random-300"]
    with pytest.raises(gb.InvalidValue, match=r"pagerank: argument `criterion`.*'l1' or "
                       r"'networkx'.*'lagraph'"):
        pagerank(A, criterion="lagraph")
    with pytest.raises(PowerIterationFailedConvergence, match=r"needed < tol") as ei:
        pagerank(A, max_iter=3)
    assert ei.value.iterations == 3 and ei.value.ranks.size == A.shape[0]
    with pytest.raises(PowerIterationFailedConvergence, match=r"needed < n \* tol"):
        pagerank(A, max_iter=2, tol=1e-9, criterion="networkx")


def test_expected_uses_reaches_the_planner():
    A = pattern(*kronecker_coo(12, 16, seed=2), 1 << 12)
    x = gb.Vector.full(A.shape[0], 1.0)
    with pytest.raises(gb.InvalidValue, match=r"config: argument `expected_uses`"):
        gb.config(expected_uses=0)
    with hardware.assume(l3=1 << 14):  # vertex data far beyond the "cache"
        gb.mxv(A.T, x, "plus_second")  # the transposed CSR exists from here on
        plain = gb.explain(gb.mxv, A.T, x, "plus_second")
        assert plain.format == "csr" and "pays after" in plain.reason
        assert "expected_uses" not in plain.details
        with gb.config(expected_uses=10**6):
            hinted = gb.explain(gb.mxv, A.T, x, "plus_second")
        assert hinted.details["expected_uses"] == 10**6
        assert hinted.format != "csr" and "expected" in hinted.reason


def test_pagerank_gives_the_planner_its_iterations(monkeypatch):
    from gblas.core import operations
    from gblas.planner import algorithms as plans

    seen = []
    real = operations.plan_mxv

    def spy(A, transposed, x, mask, semiring, settings, *op):
        seen.append(settings.expected_uses)
        return real(A, transposed, x, mask, semiring, settings, *op)

    monkeypatch.setattr(operations, "plan_mxv", spy)
    # the loop of products (a graph this small would run in the fused loop)
    monkeypatch.setattr(plans, "FUSED_PAGERANK_MAX_ENTRIES", 0)
    monkeypatch.setattr(plans, "_ranks_fit", lambda A: False)
    pagerank(GRAPHS["random-300"])  # a pattern: its out-degree is read, not multiplied
    # the first two products plan without it, the rest with it
    assert seen[:2] == [None] * 2 and len(seen) > 3
    assert all(isinstance(k, int) and k >= 1 for k in seen[2:])
    # a weighted matrix's out-degree is a product, planned without it too (one whose
    # entries all hold one value reads its row pointers, as a pattern does)
    seen.clear()
    S = GRAPHS["random-300"].to_scipy().astype(np.float64)
    pagerank(gb.Matrix.from_scipy(S))
    assert seen[:2] == [None] * 2 and seen[2] is not None
    seen.clear()
    S.data = np.random.default_rng(3).random(S.nnz) + 0.5
    pagerank(gb.Matrix.from_scipy(S))
    assert seen[:3] == [None] * 3 and len(seen) > 4


# ------------------------------------------------------------------------------ GPU
@pytest.mark.gpu
@pytest.mark.parametrize("name", list(GRAPHS))
def test_gpu_pagerank_equals_cpu(name):
    A = GRAPHS[name]
    Ag = A.to("gpu")
    for kw in ({}, {"criterion": "networkx", "tol": 1e-6}, {"damping": 0.5},
               {"personalization": {0: 1.0, 3: 2.0}}):
        cpu = pagerank(A, **kw).to_dense()
        g = pagerank(Ag, **kw)
        assert g.device == "gpu" and type(g._data.values).__module__.startswith("cupy")
        # sums folded in another order may stop one iteration apart: within the L1 change
        np.testing.assert_allclose(g.to("cpu").to_dense(), cpu, rtol=0, atol=1e-6)


@pytest.mark.gpu
def test_gpu_pagerank_weighted_and_device_personalization():
    import cupy as cp

    rng = np.random.default_rng(4)
    n = 500
    r, c = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    W = gb.Matrix.from_coo(r, c, rng.random(3000) + 0.1, shape=(n, n))
    p = rng.random(n)
    cpu = pagerank(W, personalization=p).to_dense()
    for pg in (cp.asarray(p), gb.Vector.from_dense(cp.asarray(p)), p):
        got = pagerank(W.to("gpu"), personalization=pg).to("cpu").to_dense()
        np.testing.assert_allclose(got, cpu, rtol=0, atol=1e-6)


@pytest.mark.gpu
def test_gpu_pagerank_large_is_accurate():
    A = pattern(*uniform_coo(40_000, 400_000, seed=1), 40_000)
    exact = _exact(A)
    got = pagerank(A.to("gpu")).to("cpu").to_dense()
    assert np.abs(got - exact).max() < 1e-6
