"""Graph algorithms against SciPy and NetworkX, and validators where answers are not unique.

Graphs: small random directed/undirected ones (isolated vertices, self loops, weighted
and unweighted), grids (road-like, long diameters), and two real graphs from
``../shared/data`` when that folder exists (skipped otherwise).
"""

from __future__ import annotations

import itertools
import random

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from graph_cases import min_weight_csr
from hypothesis import given
from hypothesis import strategies as st
from locations import DATA  # noqa: E402
from scipy.sparse import csgraph

import gblas as gb
from gblas.algorithms.betweenness import betweenness_centrality
from gblas.algorithms.collaborative_filtering import CFResult, collaborative_filtering
from gblas.algorithms.components import connected_components
from gblas.algorithms.kcore import core_number
from gblas.algorithms.label_propagation import label_propagation
from gblas.algorithms.sssp import sssp
from gblas.algorithms.triangles import triangle_count

# ------------------------------------------------------------------------------ graphs


def random_graph(rng, n, density, *, undirected=False, weighted=True, self_loops=True,
                 low=0.0, high=10.0, integer=True):
    """A SciPy CSR graph: weights in [low, high) (rounded when integer, zeros kept as
    explicit zero-weight edges), some isolated vertices, optional self loops."""
    nnz = int(density * n * n)
    r = rng.integers(0, n, nnz)
    c = rng.integers(0, n, nnz)
    if n > 3:  # leave the last vertex isolated
        keep = (r != n - 1) & (c != n - 1)
        r, c = r[keep], c[keep]
    if not self_loops:
        keep = r != c
        r, c = r[keep], c[keep]
    w = rng.uniform(low, high, r.size)
    if integer:
        w = np.floor(w)
    if not weighted:
        w = np.ones(r.size)
    return min_weight_csr(r, c, w, n, undirected=undirected)


def to_gb(S, dtype=None):
    return gb.Matrix.from_scipy(S if dtype is None else S.astype(dtype))


def nx_graph(S, directed):
    """NetworkX graph of a SciPy matrix (structure only, no self loops)."""
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(S.shape[0]))
    C = S.tocoo()
    G.add_edges_from((int(i), int(j)) for i, j in zip(C.row, C.col) if i != j)
    return G


def min_label(labels):
    """Relabel a partition by the smallest vertex of each part."""
    labels = np.asarray(labels)
    out = np.empty(labels.size, dtype=np.int64)
    for lab in np.unique(labels):
        m = labels == lab
        out[m] = np.flatnonzero(m).min()
    return out


def read_data(name):
    path = DATA / f"{name}.mtx.gz"
    if not path.exists():
        pytest.skip(f"{path.name} not found in ../shared/data")
    return gb.io.read_mm(path)


CASES = [  # (n, density, undirected)
    (1, 0.0, False), (2, 0.5, True), (7, 0.2, False), (12, 0.15, True), (30, 0.08, False),
    (40, 0.05, True), (60, 0.03, False),
]


# -------------------------------------------------------------------------------- sssp


def check_tree(S, source, dist, parent):
    """A shortest-path tree is valid iff every parent edge exists, is tight, and leads
    back to the source without a cycle."""
    S = sp.csr_array(S)
    n = S.shape[0]
    reached = np.isfinite(dist)
    assert parent[source] == source
    assert np.array_equal(parent >= 0, reached)
    for v in np.flatnonzero(reached):
        if v == source:
            continue
        p = parent[v]
        row = S.indices[S.indptr[p]:S.indptr[p + 1]]
        assert v in row, f"parent edge {p} -> {v} missing"
        w = S.data[S.indptr[p] + np.flatnonzero(row == v)[0]]
        assert dist[p] + w == pytest.approx(dist[v])
        seen, u = 0, v
        while u != source:
            u, seen = parent[u], seen + 1
            assert seen <= n, "cycle in the parent tree"


@pytest.mark.parametrize("n, density, undirected", CASES)
@pytest.mark.parametrize("weighted", [True, False])
def test_sssp_matches_dijkstra(rng, n, density, undirected, weighted):
    S = random_graph(rng, n, density, undirected=undirected, weighted=weighted)
    A = to_gb(S, None if weighted else bool)
    src = int(rng.integers(0, n))
    ref = csgraph.dijkstra(S, indices=src)
    d, p = sssp(A, src, parents=True)
    got = d.to_dense(fill=np.inf)
    np.testing.assert_allclose(got, ref)
    assert d.dtype == np.float64 and d.nvals == np.isfinite(ref).sum()
    check_tree(S, src, got, p.to_dense(fill=-1))


def test_sssp_grid_and_float32(rng):
    A = gb.io.grid(12, 9, weights="uniform", dtype="float32", seed=3)
    S = A.to_scipy()
    got = sssp(A, 5).to_dense(fill=np.inf)
    np.testing.assert_allclose(got, csgraph.dijkstra(S.astype(np.float64), indices=5),
                               rtol=1e-12)


@given(st.integers(2, 14), st.integers(0, 2**32 - 1))
def test_sssp_negative_weights_on_dags(n, seed):
    rng = np.random.default_rng(seed)
    # i -> j only for i < j: no cycle, any sign of weight
    S = random_graph(rng, n, 0.4, low=-5, high=5, self_loops=False)
    S = sp.triu(S, 1, format="csr")
    A = to_gb(S)
    d, p = sssp(A, 0, parents=True)
    ref = csgraph.bellman_ford(S, indices=0)
    np.testing.assert_allclose(d.to_dense(fill=np.inf), ref)
    check_tree(S, 0, d.to_dense(fill=np.inf), p.to_dense(fill=-1))


def test_sssp_zero_weight_cycle_gives_a_tree():
    # 0 -> 1 -> 2 -> 1 with zero weights: tight edges form a cycle, the tree must not
    S = sp.csr_array((np.array([1.0, 0.0, 0.0, 0.0]), ([0, 1, 2, 2], [1, 2, 1, 3])),
                     shape=(4, 4))
    d, p = sssp(to_gb(S), 0, parents=True)
    check_tree(S, 0, d.to_dense(fill=np.inf), p.to_dense(fill=-1))


def test_sssp_negative_cycle_raises():
    A = gb.Matrix.from_coo([0, 1, 2, 3], [1, 2, 1, 0], [1.0, -3.0, 1.0, 1.0], shape=(4, 4))
    with pytest.raises(gb.InvalidValue, match="negative cycle reachable from source 0"):
        sssp(A, 0)
    # unreachable from 3?  3 -> 0 -> 1 reaches it too; from a vertex that cannot reach it:
    B = gb.Matrix.from_coo([1, 2, 0], [2, 1, 3], [-1.0, -1.0, 2.0], shape=(4, 4))
    assert sssp(B, 0).to_dense(fill=np.inf).tolist() == [0.0, np.inf, np.inf, 2.0]
    with pytest.raises(gb.InvalidValue):
        sssp(gb.Matrix.from_coo([0], [0], [-1.0], shape=(1, 1)), 0)


@pytest.mark.parametrize("source, exc, text", [
    (-1, gb.InvalidValue, "sssp: argument `source` expected a vertex id >= 0"),
    (5, gb.IndexOutOfBound, "sssp: argument `source` expected a vertex id in"),
    (1.5, gb.InvalidValue, "sssp: argument `source` expected an integer"),
])
def test_sssp_bad_source(source, exc, text):
    A = gb.Matrix.from_coo([0], [1], [1.0], shape=(3, 3))
    with pytest.raises(exc, match=text.replace("`", ".")):
        sssp(A, source)


def test_sssp_bad_matrix():
    with pytest.raises(gb.DimensionMismatch, match="sssp: argument .A. expected a square"):
        sssp(gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 3)), 0)
    nan = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, np.nan], shape=(3, 3))
    with pytest.raises(gb.InvalidValue, match="sssp: argument .A. expected edge weights "
                                              "that are not NaN"):
        sssp(nan, 0)


def test_progress_reports_iterations(capsys):
    A = gb.io.grid(4, 4, dtype="float64")
    sssp(A, 0, progress=True)
    connected_components(A, progress=True)
    core_number(A, progress=True)
    label_propagation(A, progress=True)
    err = capsys.readouterr().err
    assert "sssp: done (heap Dijkstra, 16 reached)" in err  # a 4 x 4 grid: the heap
    assert "connected_components (weak): done (one compiled pass)" in err
    assert "core_number: done (" in err
    assert "label_propagation (semi-synchronous): done (" in err and "converged" in err


# -------------------------------------------------------------------------- components


@pytest.mark.parametrize("n, density, undirected", CASES + [(200, 0.006, False)])
@pytest.mark.parametrize("connection", ["weak", "strong"])
@pytest.mark.parametrize("pinned", [None, "csr"], ids=["planned", "loop"])
def test_components_match_scipy(rng, n, density, undirected, connection, pinned):
    S = random_graph(rng, n, density, undirected=undirected, weighted=False)
    ncomp, ref = csgraph.connected_components(S, directed=True, connection=connection)
    with gb.config(format=pinned):  # a pinned format keeps the loop of products
        got = connected_components(to_gb(S, bool), connection).to_dense()
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, min_label(ref))


def test_components_long_paths_and_cycles():
    n = 300
    path = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), shape=(n, n))
    assert connected_components(path).to_dense().tolist() == [0] * n
    assert connected_components(path, "strong").to_dense().tolist() == list(range(n))
    ring = gb.Matrix.from_coo(np.arange(n), (np.arange(n) + 1) % n, shape=(n, n))
    assert connected_components(ring, "strong").to_dense().tolist() == [0] * n
    grid = gb.io.grid(20, 15, dtype=None)
    assert set(connected_components(grid).to_dense().tolist()) == {0}


def test_components_bad_connection():
    A = gb.Matrix.from_coo([0], [1], shape=(2, 2))
    with pytest.raises(gb.InvalidValue, match="connected_components: argument .connection."):
        connected_components(A, "medium")


# ------------------------------------------------------------------------ betweenness


@pytest.mark.parametrize("n, density, undirected", CASES)
@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_matches_networkx(rng, n, density, undirected, normalized):
    S = random_graph(rng, n, density, undirected=undirected, weighted=False)
    G = nx_graph(S, not undirected)
    ref = nx.betweenness_centrality(G, normalized=normalized)
    got = betweenness_centrality(to_gb(S), normalized=normalized,
                                 batch_size=int(rng.integers(1, 9))).to_dense()
    np.testing.assert_allclose(got, [ref[v] for v in range(n)], atol=1e-12)


@pytest.mark.parametrize("undirected", [True, False])
@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_sampled_sources(rng, undirected, normalized):
    n = 30
    S = random_graph(rng, n, 0.1, undirected=undirected, weighted=False)
    G = nx_graph(S, not undirected)
    for k in (1, 4, n):
        seed = int(rng.integers(0, 1000))
        ref = nx.betweenness_centrality(G, k=k, normalized=normalized, seed=seed)
        sources = random.Random(seed).sample(list(G.nodes()), k)
        got = betweenness_centrality(to_gb(S), sources, normalized=normalized).to_dense()
        np.testing.assert_allclose(got, [ref[v] for v in range(n)], atol=1e-12)


def test_betweenness_bad_sources():
    A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    with pytest.raises(gb.IndexOutOfBound, match="betweenness_centrality: argument .sources."):
        betweenness_centrality(A, [0, 3])
    with pytest.raises(gb.InvalidValue, match="distinct"):
        betweenness_centrality(A, [1, 1])
    with pytest.raises(gb.InvalidValue, match=">= 0"):
        betweenness_centrality(A, [-1])


# -------------------------------------------------------------- triangles and cores


@pytest.mark.parametrize("n, density, undirected", CASES + [(80, 0.1, True)])
def test_triangles_and_cores_match_networkx(rng, n, density, undirected):
    S = random_graph(rng, n, density, undirected=undirected, weighted=True)
    A = to_gb(S)
    Gu = nx_graph(S, False)
    ntri = sum(nx.triangles(Gu).values()) // 3
    assert triangle_count(A) == ntri
    assert triangle_count(A, presort=True) == ntri
    G = nx_graph(S, not undirected)
    ref = nx.core_number(G)
    # say which graph is meant: a small "directed" draw can come out symmetric, which the
    # default reads as undirected while NetworkX was given a DiGraph
    got = core_number(A, directed=not undirected).to_dense()
    np.testing.assert_array_equal(got, [ref[v] for v in range(n)])


def test_core_number_directed_flag(rng):
    S = random_graph(rng, 30, 0.1, undirected=True, weighted=False, self_loops=False)
    ref = nx.core_number(nx_graph(S, True))  # a symmetric DiGraph counts both directions
    got = core_number(to_gb(S), directed=True).to_dense()
    np.testing.assert_array_equal(got, [ref[v] for v in range(30)])


def test_triangle_count_of_cliques():
    n = 9
    r, c = zip(*itertools.permutations(range(n), 2))
    assert triangle_count(gb.Matrix.from_coo(r, c, shape=(n, n))) == n * (n - 1) * (n - 2) // 6
    assert triangle_count(gb.Matrix.from_coo([], [], shape=(3, 3))) == 0


# ------------------------------------------------------------------- label propagation


def check_stable(S, labels):
    """Every vertex carries one of the most frequent labels of its neighbours (in- and
    out-neighbours, a reciprocated edge counting twice, self loops ignored); isolated
    vertices keep their own id."""
    P = sp.csr_array(S, dtype=np.int64, copy=True)
    P.data[:] = 1  # the structure: explicit zeros are edges
    M = sp.csr_array(P + P.T)
    M.setdiag(0)
    M.eliminate_zeros()
    for i in range(M.shape[0]):
        nb = M.indices[M.indptr[i]:M.indptr[i + 1]]
        if nb.size == 0:
            assert labels[i] == i
            continue
        w = M.data[M.indptr[i]:M.indptr[i + 1]]
        counts = np.bincount(labels[nb], weights=w)
        assert counts[labels[i]] == counts.max(), f"vertex {i} not stable"


@pytest.mark.parametrize("n, density, undirected", CASES)
def test_label_propagation_converges_to_a_stable_labelling(rng, n, density, undirected):
    S = random_graph(rng, n, density, undirected=undirected, weighted=True)
    labels = label_propagation(to_gb(S)).to_dense()
    assert labels.dtype == np.int64
    check_stable(S, labels)


def test_label_propagation_communities():
    edges = [p for q in (range(5), range(5, 10)) for p in itertools.combinations(q, 2)]
    r, c = zip(*(edges + [(4, 5)]))
    A = gb.Matrix.from_coo(r + c, c + r, shape=(11, 11))
    for method in ("semi-synchronous", "synchronous"):
        lab = label_propagation(A, method=method).to_dense()
        assert len(set(lab[:5])) == 1 and len(set(lab[5:10])) == 1 and lab[0] != lab[9]
        assert lab[10] == 10  # isolated


def test_label_propagation_synchronous_oscillation_stops(capsys):
    # a bipartite star: synchronous updates swap the labels forever
    A = gb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 0, 0], shape=(3, 3))
    label_propagation(A, max_iter=7, method="synchronous", progress=True)
    assert "7 iterations, not converged" in capsys.readouterr().err
    check_stable(A.to_scipy(), label_propagation(A).to_dense())


def test_label_propagation_bad_arguments():
    A = gb.Matrix.from_coo([0], [1], shape=(2, 2))
    with pytest.raises(gb.InvalidValue, match="label_propagation: argument .max_iter."):
        label_propagation(A, max_iter=0)
    with pytest.raises(gb.InvalidValue, match="argument .method."):
        label_propagation(A, method="async")


# -------------------------------------------------------------- collaborative filtering


def ratings(rng, m=120, n=80, rank=4, density=0.25):
    truth = rng.normal(size=(m, rank)) @ rng.normal(size=(rank, n)) / np.sqrt(rank) + 3.0
    r, c = np.nonzero(rng.random((m, n)) < density)
    vals = truth[r, c] + rng.normal(scale=0.2, size=r.size)
    return gb.Matrix.from_coo(r, c, vals, shape=(m, n))


def test_collaborative_filtering_heldout_rmse_decreases(rng):
    R = ratings(rng)
    res = collaborative_filtering(R, rank=8, max_iter=40, seed=1)
    U, V = res
    assert isinstance(res, CFResult) and res.iterations == 40
    assert U.shape == (120, 8) and V.shape == (80, 8)
    assert res.rmse.size == 41 and res.train_rmse.size == 41
    assert res.rmse[-1] < 0.8 * res.rmse[0]
    assert np.all(np.diff(res.train_rmse) < 0)
    assert np.all(np.diff(res.rmse[:20]) < 0)


def test_collaborative_filtering_explicit_holdout_and_errors(rng):
    R = ratings(rng, 40, 30)
    r, c, v = R.to_coo()
    test = gb.Matrix.from_coo(r[:50], c[:50], v[:50], shape=R.shape)
    train = gb.Matrix.from_coo(r[50:], c[50:], v[50:], shape=R.shape)
    res = collaborative_filtering(train, rank=4, max_iter=5, holdout=test, tol=1e9)
    assert res.iterations == 1 and res.rmse.size == 2
    with pytest.raises(gb.InvalidValue, match="collaborative_filtering: argument .rank."):
        collaborative_filtering(R, rank=0)
    with pytest.raises(gb.InvalidValue, match="argument .holdout."):
        collaborative_filtering(R, holdout=1.5)
    with pytest.raises(gb.InvalidObject, match="argument .R."):
        collaborative_filtering([[1.0]])


# ------------------------------------------------------------------------- real graphs


def test_real_facebook():
    A = read_data("facebook-combined")
    S = A.to_scipy()
    n = S.shape[0]
    assert connected_components(A).to_dense().tolist() == [0] * n
    L = sp.tril(S.astype(np.int64), -1, format="csr")
    assert triangle_count(A) == int((L @ L).multiply(L).sum())
    G = nx.from_scipy_sparse_array(S)
    ref = nx.core_number(G)
    np.testing.assert_array_equal(core_number(A).to_dense(), [ref[v] for v in range(n)])
    sources = random.Random(3).sample(range(n), 8)
    ref = nx.betweenness_centrality(G, k=8, seed=3)
    got = betweenness_centrality(A, sources).to_dense()
    np.testing.assert_allclose(got, [ref[v] for v in range(n)], atol=1e-12)


def test_real_wiki_vote():
    A = read_data("wiki-Vote")
    S = A.to_scipy().astype(np.float64)
    for conn in ("weak", "strong"):
        _, ref = csgraph.connected_components(S, connection=conn)
        np.testing.assert_array_equal(connected_components(A, conn).to_dense(), min_label(ref))
    d = sssp(A, 3).to_dense(fill=np.inf)
    np.testing.assert_allclose(d, csgraph.dijkstra(S, indices=3))


# ---------------------------------------------------------------------------- devices


def _host(v, fill=0):
    if isinstance(v, int):
        return v
    x = v.to_dense(fill=fill)
    return x.get() if hasattr(x, "get") else x


def test_algorithms_on_every_device(device):
    """The same gblas calls run where the matrix lives (the planner picks the kernels)."""
    A = gb.io.kronecker(8, 6, seed=1, dtype="float64", symmetric=True, weights="uniform")
    D = gb.io.kronecker(8, 6, seed=2, dtype=None)
    calls = {
        "sssp": lambda M: sssp(M, 3), "parents": lambda M: sssp(M, 3, parents=True)[1],
        "weak": connected_components, "strong": lambda M: connected_components(M, "strong"),
        "bc": lambda M: betweenness_centrality(M, list(range(10))),
        "triangles": triangle_count, "cores": core_number, "lpa": label_propagation,
    }
    for G in (A, D):
        Gd = G.to(device)
        for name, f in calls.items():
            got, want = f(Gd), f(G)
            if not isinstance(got, int):
                assert got.device == device, name
            fill = np.inf if name == "sssp" else 0
            np.testing.assert_allclose(_host(got, fill), _host(want, fill), err_msg=name)
    r = np.random.default_rng(0)
    R = gb.Matrix.from_coo(r.integers(0, 30, 300), r.integers(0, 20, 300), r.random(300) * 5,
                           shape=(30, 20))
    res = collaborative_filtering(R.to(device), rank=4, max_iter=5)
    assert res.rmse[-1] < res.rmse[0]

