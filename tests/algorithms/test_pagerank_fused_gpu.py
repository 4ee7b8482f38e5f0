"""The GPU's one-launch PageRank against the CPU's fused loop and the GPU's loop of planned
products: graphs with hubs (rows of ``A'`` cut into several chunks), dangling vertices,
weights, personalization, both stopping rules, a run out of iterations; and the plan."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas.algorithms.pagerank import PowerIterationFailedConvergence

pytestmark = pytest.mark.gpu


def _graph(kind: str, n: int, seed: int) -> gb.Matrix:
    """Random edges plus a few hubs of in-degree 40 to 2,000 (rows of ``A'`` longer than
    a short row and than one chunk), and vertices without out-edges."""
    rng = np.random.default_rng(seed)
    m = 4 * n
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    hubs = rng.choice(n, 4, replace=False) if n >= 4 else []
    for h, deg in zip(hubs, (40, 300, 700, 2000), strict=False):
        src = rng.choice(n, min(deg, n), replace=False)
        rows, cols = np.concatenate([rows, src]), np.concatenate([cols, np.full(src.size, h)])
    keep = rows % 17 != 3  # dangling vertices
    rows, cols = rows[keep], cols[keep]
    if kind == "bool":
        return gb.Matrix.from_coo(rows, cols, None, shape=(n, n), dup_op="any")
    vals = np.full(rows.size, 2.5) if kind == "iso" else rng.random(rows.size) + 0.01
    return gb.Matrix.from_coo(rows, cols, vals, shape=(n, n), dup_op="max")


@pytest.mark.parametrize("kind", ["bool", "iso", "weights"])
@pytest.mark.parametrize("n", [1, 50, 3000])
@pytest.mark.parametrize("criterion", ["l1", "networkx"])
@pytest.mark.parametrize("personalized", [False, True])
def test_one_launch_equals_the_cpu_loop_and_the_products(kind, n, criterion, personalized):
    A = _graph(kind, n, seed=n + len(kind))
    kw = {"tol": 1e-10, "criterion": criterion, "max_iter": 300}
    if personalized:
        kw["personalization"] = np.random.default_rng(n).random(n) + 0.1
    G = A.to("gpu")
    plan = gb.explain(gb.algorithms.pagerank, G, **kw)
    assert plan.kernel == "pagerank/csr/gpu/fused", plan
    got = gb.algorithms.pagerank(G, **kw)
    assert got.device == "gpu"
    got = got.to("cpu").to_dense()
    np.testing.assert_allclose(got, gb.algorithms.pagerank(A, **kw).to_dense(),
                               rtol=1e-11, atol=1e-15)
    with gb.config(format="csr"):  # the loop of products on the device
        loop = gb.algorithms.pagerank(G, **kw).to("cpu").to_dense()
    np.testing.assert_allclose(got, loop, rtol=1e-11, atol=1e-15)
    # the sums fold in one fixed order: the same ranks on every run
    np.testing.assert_array_equal(gb.algorithms.pagerank(G, **kw).to("cpu").to_dense(), got)


def test_one_launch_raises_like_the_products():
    G = gb.io.kronecker(10, 8, seed=1).to("gpu")
    with pytest.raises(PowerIterationFailedConvergence, match="max_iter=3") as fused:
        gb.algorithms.pagerank(G, max_iter=3)
    with gb.config(format="csr"), pytest.raises(PowerIterationFailedConvergence) as loop:
        gb.algorithms.pagerank(G, max_iter=3)
    np.testing.assert_allclose(fused.value.ranks.to("cpu").to_dense(),
                               loop.value.ranks.to("cpu").to_dense(), rtol=1e-12)


def test_larger_graphs_keep_the_loop_of_products(monkeypatch):
    from gblas.planner import algorithms as plans

    G = gb.io.kronecker(8, 8, seed=2).to("gpu")
    monkeypatch.setattr(plans, "FUSED_PAGERANK_MAX_ENTRIES_GPU", G.nvals - 1)
    p = gb.explain(gb.algorithms.pagerank, G)
    assert p.key is None and "entries" in p.reason, p.reason
