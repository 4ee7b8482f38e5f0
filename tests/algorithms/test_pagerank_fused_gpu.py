"""The GPU's one-launch PageRank against the CPU's fused loop and the GPU's loop of planned
products: graphs with hubs (rows of ``A'`` cut into several chunks), dangling vertices,
weights, personalization, both stopping rules, a run out of iterations; and the plan."""

from __future__ import annotations

import numpy as np
import pytest
from graph_cases import hub_graph

import gblas as gb
from gblas.algorithms.pagerank import PowerIterationFailedConvergence

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("kind", ["bool", "iso", "weights"])
@pytest.mark.parametrize("n", [1, 50, 3000])
@pytest.mark.parametrize("criterion", ["l1", "networkx"])
@pytest.mark.parametrize("personalized", [False, True])
def test_one_launch_equals_the_cpu_loop_and_the_products(kind, n, criterion, personalized):
    A = hub_graph(kind, n, seed=n + len(kind))
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
