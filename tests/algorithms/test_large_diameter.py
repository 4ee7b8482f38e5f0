"""Graphs many hops deep (grids, paths, meshes, road networks): the heap Dijkstra route of
the shortest paths against SciPy, the planner's rule for it, and betweenness against
NetworkX."""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scg

import gblas as gb
from gblas import csgraph
from gblas.io import generators
from gblas.planner import plan_shortest_paths

nx = pytest.importorskip("networkx")

from locations import DATA  # noqa: E402


def _weighted_grid(rng, m, n, zeros=False):
    r, c = generators.grid_coo(m, n)
    half = r.size // 2
    w = rng.random(half) + (0.0 if zeros else 0.1)
    if zeros:
        w[rng.random(half) < 0.2] = 0.0
    w = np.concatenate([w, w])
    return sp.csr_array((w, (r, c)), shape=(m * n, m * n))


def _valid_tree(S, dist, pred, sources):
    """Every predecessor edge exists and is tight; sources and unreached have none."""
    S = sp.csr_array(S)
    for b, s in enumerate(sources):
        d, p = dist[b], pred[b]
        assert p[s] == -9999
        has = np.flatnonzero(p != -9999)
        assert np.all(np.isfinite(d[has]))
        assert np.all(np.isinf(d[(p == -9999) & (np.arange(d.size) != s)]))
        w = np.asarray(S[p[has], has]).ravel()
        assert np.array_equal(d[p[has]] + w, d[has])


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("zeros", [False, True])
def test_heap_route_matches_scipy(rng, directed, zeros):
    S = _weighted_grid(rng, 15, 40, zeros)
    if directed:
        S = sp.csr_array(sp.triu(S) + sp.tril(S) * 2)
    src = np.array([0, 17, 599, 300])
    assert csgraph.paths_plan(gb.Matrix.from_scipy(S), src, False).direction == "heap"
    d, p = csgraph.dijkstra(S, directed=directed, indices=src, return_predecessors=True)
    d2 = scg.dijkstra(S, directed=directed, indices=src)
    assert np.array_equal(d, d2)
    Sd = S if directed else sp.csr_array(S.maximum(S.T))
    _valid_tree(Sd, d, p, src)
    sp_d = csgraph.shortest_path(S, directed=directed, indices=src)
    assert np.array_equal(sp_d, d2)


def test_heap_route_limit_unweighted_and_scalar_index(rng):
    S = _weighted_grid(rng, 10, 30)
    for limit in (0.0, 1.5, 4.0):
        d, p = csgraph.dijkstra(S, indices=[3, 50], limit=limit, return_predecessors=True)
        assert np.array_equal(d, scg.dijkstra(S, indices=[3, 50], limit=limit))
        assert np.all(p[np.isinf(d)] == -9999)
    d = csgraph.dijkstra(S, indices=7, unweighted=True)
    assert d.shape == (300,)
    assert np.array_equal(d, scg.dijkstra(S, indices=7, unweighted=True))


def test_path_graph_unreachable_and_inf_weights():
    n = 200
    r = np.arange(n - 1)
    w = np.ones(n - 1)
    w[150] = np.inf
    S = sp.csr_array((w, (r, r + 1)), shape=(n, n))
    d, p = csgraph.dijkstra(S, indices=[0, 199], return_predecessors=True)
    d2, p2 = scg.dijkstra(S, indices=[0, 199], return_predecessors=True)
    assert np.array_equal(d, d2) and np.array_equal(p, p2)


def test_negative_weights_keep_the_semiring_route():
    S = sp.csr_array(np.array([[0, 4.0, 1], [0, 0, 0], [0, -2, 0]]))
    assert csgraph.paths_plan(gb.Matrix.from_scipy(S), np.array([0]), True).direction == \
        "semiring"
    assert csgraph.dijkstra(S, indices=0).tolist() == [0.0, -1.0, 1.0]


def test_planner_rule_is_explicit():
    deep = plan_shortest_paths(114_599, 239_332, 3, depth=1000, reached=114_599,
                               negative=False, device="cpu", threads=2, batch=146)
    assert deep.direction == "heap" and "hops deep" in deep.reason
    assert deep.details["heap_s"] <= deep.details["semiring_s"]
    shallow = plan_shortest_paths(1 << 22, 1 << 28, 1, depth=3, reached=1 << 22,
                                  negative=False, device="cpu", threads=64, batch=4)
    assert shallow.direction == "semiring"
    assert "heap Dijkstra" in shallow.reason
    # unprobed on a GPU: a small graph's host heap beats even one device step; a large
    # one keeps the products
    small = plan_shortest_paths(100, 300, 2, depth=None, reached=None, negative=False,
                                device="gpu", threads=2, batch=10)
    assert (small.direction, small.device) == ("heap", "cpu")
    assert "no probe needed" in small.reason
    large = plan_shortest_paths(1 << 22, 1 << 26, 2, depth=None, reached=None,
                                negative=False, device="gpu", threads=2, batch=4)
    assert (large.direction, large.device) == ("semiring", "gpu")


def _nx_graph(A):
    r, c, _ = A.to_coo()
    G = nx.Graph()
    G.add_nodes_from(range(A.shape[0]))
    G.add_edges_from(zip(np.asarray(r).tolist(), np.asarray(c).tolist()))
    return G


def _path(n):
    r = np.arange(n - 1)
    return gb.Matrix.from_coo(np.concatenate([r, r + 1]), np.concatenate([r + 1, r]),
                              shape=(n, n))


@pytest.mark.parametrize("graph", ["grid", "path"])
@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_large_diameter_matches_networkx(graph, normalized):
    A = generators.grid(9, 13) if graph == "grid" else _path(60)
    G = _nx_graph(A)
    n = A.shape[0]
    ref = nx.betweenness_centrality(G, normalized=normalized)
    got = gb.algorithms.betweenness_centrality(A, normalized=normalized, batch_size=16)
    np.testing.assert_allclose(got.to_dense(), [ref[i] for i in range(n)], rtol=1e-10,
                               atol=1e-12)
    k = 11
    ref = nx.betweenness_centrality(G, k=k, normalized=normalized, seed=5)
    src = random.Random(5).sample(list(G.nodes()), k)
    got = gb.algorithms.betweenness_centrality(A, sources=src, normalized=normalized)
    np.testing.assert_allclose(got.to_dense(), [ref[i] for i in range(n)], rtol=1e-10,
                               atol=1e-12)


def test_betweenness_directed_path():
    n = 40
    r = np.arange(n - 1)
    A = gb.Matrix.from_coo(r, r + 1, shape=(n, n))
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(r.tolist(), (r + 1).tolist()))
    ref = nx.betweenness_centrality(G)
    got = gb.algorithms.betweenness_centrality(A, batch_size=7).to_dense()
    np.testing.assert_allclose(got, [ref[i] for i in range(n)], rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(not (DATA / "luxembourg-osm.mtx.gz").exists(),
                    reason="the real graphs folder is not present")
def test_road_network_against_scipy():
    S = sp.csr_array(gb.io.read_mm(DATA / "luxembourg-osm.mtx.gz").to_scipy(),
                     dtype=np.float64)
    S.data = np.random.default_rng(0).random(S.nnz)
    src = np.array([0, 1000, 77_777])
    d, p = csgraph.dijkstra(S, indices=src, return_predecessors=True)
    assert np.array_equal(d, scg.dijkstra(S, indices=src))
    _valid_tree(S, d, p, src)
    lv = gb.algorithms.bfs(gb.Matrix.from_scipy(S), 0).to_dense(fill=-1)
    ref = scg.shortest_path(S, indices=0, unweighted=True)
    assert np.array_equal(lv, np.where(np.isinf(ref), -1, ref).astype(np.int64))
