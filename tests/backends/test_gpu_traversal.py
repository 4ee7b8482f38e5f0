"""The fused GPU BFS (one kernel per level, push or pull) against the CPU loop of planned
products: the same levels and the same parents (smallest id on the previous level)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

from gpu_helpers import cp  # noqa: E402  (skips the module without a GPU)
from graph_cases import bfs_graphs  # noqa: E402

import gblas as gb  # noqa: E402
from gblas.io import generators  # noqa: E402

_GRAPHS = bfs_graphs(sizes=((1, 0), (5, 0), (40, 60), (300, 900), (2000, 30000)), seed=7)


@pytest.mark.parametrize("name,S", _GRAPHS, ids=[g[0] for g in _GRAPHS])
@pytest.mark.parametrize("parents", [False, True])
def test_fused_bfs_matches_cpu(name, S, parents):
    A = gb.Matrix.from_scipy(S)
    G = A.to("gpu")
    n = S.shape[0]
    sources = sorted({0, n // 2, n - 1})
    for s in sources:
        plan = gb.explain(gb.algorithms.bfs, G, s, parents=parents)
        assert plan.kernel == "bfs/csr/gpu/levels", plan
        want = gb.algorithms.bfs(A, s, parents=parents)
        got = gb.algorithms.bfs(G, s, parents=parents)
        if not parents:
            want, got = (want,), (got,)
        for w, g in zip(want, got):
            assert g.device == "gpu"
            assert g.dtype == np.int64
            np.testing.assert_array_equal(cp.asnumpy(g.to_dense(fill=-1)), w.to_dense(fill=-1))


def test_pinned_direction_keeps_the_loop():
    G = gb.Matrix.from_scipy(generators.kronecker(8, 8, seed=1).to_scipy()).to("gpu")
    with gb.config(direction="pull"):
        plan = gb.explain(gb.algorithms.bfs, G, 0)
        assert plan.kernel == ""
        assert "pinned" in plan.reason
        got = gb.algorithms.bfs(G, 0)
    want = gb.algorithms.bfs(G, 0)
    np.testing.assert_array_equal(cp.asnumpy(got.to_dense(fill=-1)),
                                  cp.asnumpy(want.to_dense(fill=-1)))


def test_transposed_view():
    S = generators.kronecker(10, 8, seed=5).to_scipy()
    A = gb.Matrix.from_scipy(S)
    want = gb.algorithms.bfs(A.T, 3)
    got = gb.algorithms.bfs(A.to("gpu").T, 3)
    np.testing.assert_array_equal(cp.asnumpy(got.to_dense(fill=-1)), want.to_dense(fill=-1))
