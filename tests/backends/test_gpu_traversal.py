"""The fused GPU BFS (one kernel per level, push or pull) against the CPU loop of planned
products: the same levels and the same parents (smallest id on the previous level)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

from gpu_helpers import cp  # noqa: E402  (skips the module without a GPU)
from graph_cases import bfs_graphs  # noqa: E402

import gblas as gb  # noqa: E402
from gblas.io import generators  # noqa: E402

_GRAPHS = bfs_graphs(sizes=((1, 0), (5, 0), (40, 60), (300, 900), (2000, 30000)), seed=7)


@pytest.mark.parametrize("name,S", _GRAPHS, ids=[g[0] for g in _GRAPHS])
@pytest.mark.parametrize("parents", [False, True])
@pytest.mark.parametrize("whole", [True, False], ids=["whole_block", "per_level"])
def test_fused_bfs_matches_cpu(name, S, parents, whole, monkeypatch):
    """Through ``gb.algorithms.bfs``: small graphs in one block (the plan for these), and
    with that route closed the kernels per level."""
    from gblas.planner import algorithms as planned

    if not whole:
        monkeypatch.setattr(planned, "GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES", -1)
    A = gb.Matrix.from_scipy(S)
    G = A.to("gpu")
    n = S.shape[0]
    sources = sorted({0, n // 2, n - 1})
    for s in sources:
        plan = gb.explain(gb.algorithms.bfs, G, s, parents=parents)
        assert plan.kernel == "bfs/csr/gpu/levels", plan
        assert plan.details.get("whole_block", False) == whole
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


def _road_like_graphs():
    """Graphs of many small frontiers: a path, a grid, a path into a hub of 500
    out-edges (a small frontier holding a vertex walked by a warp), a path into a dense
    random block (the block hands over to the grid's pull levels), and a directed cycle."""
    def sym(r, c, n):
        S = sp.coo_array((np.ones(len(r)), (r, c)), shape=(n, n)).tocsr()
        return (S + S.T).tocsr()

    n = 4000
    path = sym(np.arange(n - 1), np.arange(1, n), n)
    k = 70
    ids = np.arange(k * k).reshape(k, k)
    grid = sym(np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()],
               np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()], k * k)
    m = 300 + 1 + 500
    hub = sym(np.r_[np.arange(300), np.full(500, 300)],
              np.r_[np.arange(1, 301), np.arange(301, 801)], m)
    rng = np.random.default_rng(3)
    block = rng.integers(600, 2600, (2, 60000))
    broom = sym(np.r_[np.arange(600), block[0]], np.r_[np.arange(1, 601), block[1]], 2600)
    cycle = sp.coo_array((np.ones(3000), (np.arange(3000), (np.arange(3000) + 1) % 3000)),
                         shape=(3000, 3000)).tocsr()
    return [("path", path), ("grid", grid), ("hub", hub), ("broom", broom),
            ("cycle", cycle)]


@pytest.mark.parametrize("name,S", _road_like_graphs(), ids=lambda g: g if isinstance(g, str)
                         else "")
def test_small_frontiers_run_in_one_block(name, S):
    """Runs of small frontiers go to the one-block kernel (counted in the stats) and give
    SciPy's levels and the CPU's parents, whatever hands over to the grid's kernels."""
    from gblas.backends.gpu.traversal import bfs_levels
    from gblas.cli import scipy_bfs_levels

    A = gb.Matrix.from_scipy(S)
    G = A.to("gpu")
    for s in (0, S.shape[0] // 2):
        level, parent, stats = bfs_levels(G.csr(), lambda: G.csr(transposed=True), s, True,
                                          whole_block=False)
        want = scipy_bfs_levels(S, s)
        np.testing.assert_array_equal(cp.asnumpy(level), want)
        assert stats["levels"] == want.max()
        assert stats["local"] > 0 and stats["local"] <= stats["push"]
        _, want_p = gb.algorithms.bfs(A, s, parents=True)
        np.testing.assert_array_equal(cp.asnumpy(parent), want_p.to_dense(fill=-1))
        if name == "broom" and s == 0:
            assert stats["pull"] > 0  # the block handed the dense part to the grid


@pytest.mark.parametrize("parents", [False, True])
def test_transpose_built_only_for_a_pull(parents):
    """A search that only pushes (a path) never asks for ``A'``; one with a heavy level
    (the leaves of an undirected star, all pointing back at the hub) asks once; parents
    ask for it too."""
    from gblas.backends.gpu.traversal import bfs_levels

    n = 300
    ids = np.arange(n - 1)
    path = gb.Matrix.from_coo(ids, ids + 1, shape=(n, n)).to("gpu")
    hub = np.zeros(n - 1, dtype=np.int64)
    star = gb.Matrix.from_coo(np.r_[hub, ids + 1], np.r_[ids + 1, hub], shape=(n, n)).to("gpu")
    for G, pulls in ((path, False), (star, True)):
        asked = []

        def get_AT(G=G, asked=asked):
            asked.append(1)
            return G.csr(transposed=True)

        level, parent, stats = bfs_levels(G.csr(), get_AT, 0, parents, whole_block=False)
        assert len(asked) == (1 if pulls or parents else 0), stats
        assert (stats["pull"] > 0) == pulls
        want = gb.algorithms.bfs(gb.Matrix.from_scipy(G.to("cpu").to_scipy()), 0)
        np.testing.assert_array_equal(cp.asnumpy(level), want.to_dense(fill=-1))


def test_push_only_capped_and_as_vectors():
    """``get_AT=None`` pushes every level (a star's leaves would pull) with SciPy's
    levels; ``max_levels`` stops the search there, flagged; ``vectors`` gives the
    Vectors' storage; parents without the transpose are refused."""
    from gblas.backends.gpu.traversal import bfs_levels
    from gblas.cli import scipy_bfs_levels

    n = 300
    ids = np.arange(n - 1)
    hub = np.zeros(n - 1, dtype=np.int64)
    star = gb.Matrix.from_coo(np.r_[hub, ids + 1], np.r_[ids + 1, hub], shape=(n, n))
    G = star.to("gpu")
    level, _, stats = bfs_levels(G.csr(), None, 5, False)
    np.testing.assert_array_equal(cp.asnumpy(level), scipy_bfs_levels(star.to_scipy(), 5))
    assert stats["pull"] == 0 and "capped" not in stats
    path = gb.Matrix.from_coo(ids, ids + 1, shape=(n, n))
    P = path.to("gpu")
    want = scipy_bfs_levels(path.to_scipy(), 0)
    for cap in (1, 7, n - 1, n + 5):
        level, _, stats = bfs_levels(P.csr(), None, 0, False, max_levels=cap)
        got = cp.asnumpy(level)
        assert stats["capped"] == (cap <= n - 1) and stats["local"] == 0
        np.testing.assert_array_equal(got, np.where(want <= cap, want, -1))
    lv, pv, _ = bfs_levels(G.csr(), lambda: G.csr(transposed=True), 5, True, vectors=True)
    level, parent, _ = bfs_levels(G.csr(), lambda: G.csr(transposed=True), 5, True)
    reached = cp.asnumpy(level) >= 0
    np.testing.assert_array_equal(cp.asnumpy(lv.present), reached)
    np.testing.assert_array_equal(cp.asnumpy(lv.values)[reached], cp.asnumpy(level)[reached])
    assert lv.values.dtype == np.int64
    np.testing.assert_array_equal(cp.asnumpy(pv.values)[reached], cp.asnumpy(parent)[reached])
    with pytest.raises(ValueError, match="parents need get_AT"):
        bfs_levels(G.csr(), None, 0, True)


@pytest.mark.parametrize("name,S", _road_like_graphs() + [
    ("kronecker", generators.kronecker(12, 16, seed=2).to_scipy()),
    ("random", sp.random_array((3000, 3000), density=0.03, random_state=4, format="csr"))],
    ids=lambda g: g if isinstance(g, str) else "")
def test_whole_search_in_one_block(name, S):
    """``whole_block``: one block runs every level (frontiers of thousands of vertices
    over its 32 warps, hubs of hundreds of out-edges, a 4000-level path) with the parents
    folded in by atomic minima: SciPy's levels and the CPU's least-id parents, the same
    as the kernels per level, and ``A'`` never asked for; the plan takes it up to
    ``GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES`` entries."""
    from gblas.backends.gpu.traversal import bfs_levels
    from gblas.cli import scipy_bfs_levels
    from gblas.planner.algorithms import GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES

    A = gb.Matrix.from_scipy(S)
    G = A.to("gpu")

    def no_transpose():
        raise AssertionError("the whole search in one block needs no transpose")

    for s in sorted({0, S.shape[0] // 2, S.shape[0] - 1}):
        want = scipy_bfs_levels(S, s)
        _, want_p = gb.algorithms.bfs(A, s, parents=True)
        for parents in (False, True):
            level, parent, stats = bfs_levels(G.csr(), no_transpose, s, parents,
                                              whole_block=True)
            np.testing.assert_array_equal(cp.asnumpy(level), want)
            assert stats["whole_block"] and stats["levels"] == want.max()
            assert stats["push"] == stats["levels"] + 1 and stats["pull"] == 0
            if parents:
                np.testing.assert_array_equal(cp.asnumpy(parent), want_p.to_dense(fill=-1))
            else:
                assert parent is None
        lv, pv, stats = bfs_levels(G.csr(), None, s, True, vectors=True, whole_block=True)
        assert stats["whole_block"]
        np.testing.assert_array_equal(cp.asnumpy(lv.values)[want >= 0], want[want >= 0])
        np.testing.assert_array_equal(cp.asnumpy(pv.present), want >= 0)
        np.testing.assert_array_equal(cp.asnumpy(pv.values)[want >= 0],
                                      want_p.to_dense(fill=-1)[want >= 0])
        plan = gb.explain(gb.algorithms.bfs, G, s)
        assert plan.details.get("whole_block", False) == (S.nnz <= GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES)
