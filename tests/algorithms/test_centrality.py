"""Katz, HITS and eigenvector centrality against NetworkX, and Katz's divergence, which
is reported as soon as it shows instead of after ``max_iter`` iterations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas.algorithms import PowerIterationFailedConvergence

nx = pytest.importorskip("networkx")


def _graph(seed: int, n: int = 30, p: float = 0.12):
    G = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    S = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(n), weight=None))
    return G, gb.Matrix.from_scipy(S)


def _close(vec, want: dict, n: int, tol: float = 1e-6):
    np.testing.assert_allclose(vec.to_dense(), [want[i] for i in range(n)], atol=tol)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_katz_matches_networkx(seed):
    G, A = _graph(seed)
    want = nx.katz_centrality(G, alpha=0.05, tol=1e-12, max_iter=5000)
    _close(gb.algorithms.katz_centrality(A, alpha=0.05, tol=1e-12), want, 30)


@pytest.mark.parametrize("seed", [1, 2])
def test_hits_and_eigenvector_match_networkx(seed):
    G, A = _graph(seed, p=0.25)
    hubs, auths = nx.hits(G, tol=1e-12, max_iter=10_000)
    h, a = gb.algorithms.hits(A, tol=1e-12, max_iter=10_000)
    _close(h, hubs, 30, 1e-5)
    _close(a, auths, 30, 1e-5)
    want = nx.eigenvector_centrality(G, tol=1e-10, max_iter=10_000)
    _close(gb.algorithms.eigenvector_centrality(A, tol=1e-10, max_iter=10_000), want, 30, 1e-5)


def test_katz_overflow_is_reported_at_once():
    # the complete graph on 10 vertices: lambda_max = 9, so alpha = 0.5 grows 4.5x a step
    A = gb.Matrix.from_dense(np.ones((10, 10)) - np.eye(10), missing=0)
    with pytest.raises(PowerIterationFailedConvergence, match="diverges after") as e:
        gb.algorithms.katz_centrality(A, alpha=0.5, max_iter=100_000)
    assert "Lower alpha" in str(e.value) and e.value.iterations < 1000


def test_katz_growth_within_max_iter_is_named():
    A = gb.Matrix.from_dense(np.ones((10, 10)) - np.eye(10), missing=0)
    with pytest.raises(PowerIterationFailedConvergence, match="diverges within max_iter=40"):
        gb.algorithms.katz_centrality(A, alpha=0.2, max_iter=40)  # 1.8x a step
    # converging, but too slowly for max_iter: the plain message
    with pytest.raises(PowerIterationFailedConvergence, match="Raise max_iter or tol"):
        gb.algorithms.katz_centrality(A, alpha=0.1, max_iter=3)


@pytest.mark.parametrize("dtype", [bool, np.int64, np.float64])
def test_centralities_same_on_every_device(device, dtype):
    """The fused steps on each device give NetworkX's iterates: the same iteration count
    and scores as NetworkX's own loops, on pattern, integer and weighted matrices (a
    dangling vertex and an isolated one included)."""
    G = nx.gnp_random_graph(40, 0.15, seed=7, directed=True)
    G.add_nodes_from([40, 41])
    G.add_edge(3, 40)  # 40: dangling; 41: isolated
    rng = np.random.default_rng(3)
    for u, v in G.edges:
        G[u][v]["weight"] = 1 if dtype is bool else int(rng.integers(1, 4))
    n = G.number_of_nodes()
    S = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(n), weight="weight"))
    A = gb.Matrix.from_scipy(S.astype(dtype)).to(device)
    katz = nx.katz_centrality(G, alpha=0.05, tol=1e-8, weight="weight")
    got = gb.algorithms.katz_centrality(A, alpha=0.05, tol=n * 1e-8)
    assert got.device == device
    _close(got.to("cpu"), katz, n, 1e-12)
    eig = nx.eigenvector_centrality(G.to_undirected(), tol=1e-8, weight="weight")
    U = gb.Matrix.from_scipy(sp.csr_array(nx.to_scipy_sparse_array(
        G.to_undirected(), nodelist=range(n), weight="weight")).astype(dtype)).to(device)
    _close(gb.algorithms.eigenvector_centrality(U, tol=n * 1e-8).to("cpu"), eig, n, 1e-12)
    h, a = gb.algorithms.hits(A, tol=1e-12)
    h0, a0 = gb.algorithms.hits(A.to("cpu"), tol=1e-12)
    assert h.device == a.device == device
    np.testing.assert_allclose(h.to("cpu").to_dense(), h0.to_dense(), rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(a.to("cpu").to_dense(), a0.to_dense(), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("call", ["eigenvector", "katz", "hits"])
@pytest.mark.parametrize("max_iter", [1, 2, 5])
def test_unconverged_scores_are_the_last_iterate(device, call, max_iter):
    """Stopped by max_iter, every device reports the scores of iteration max_iter (on a
    GPU the next iteration is already queued into the other buffer)."""
    G = nx.gnp_random_graph(50, 0.1, seed=11, directed=True)
    S = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(50), weight=None))
    A = gb.Matrix.from_scipy(S)
    run = {"eigenvector": lambda M: gb.algorithms.eigenvector_centrality(
               M, tol=0, max_iter=max_iter),
           "katz": lambda M: gb.algorithms.katz_centrality(M, alpha=0.05, tol=0,
                                                           max_iter=max_iter),
           "hits": lambda M: gb.algorithms.hits(M, tol=0, max_iter=max_iter)}[call]
    got = []
    for M in (A, A.to(device)):
        with pytest.raises(PowerIterationFailedConvergence) as e:
            run(M)
        assert e.value.iterations == max_iter
        got.append(np.asarray(e.value.ranks.to("cpu").to_dense()))
    np.testing.assert_allclose(got[1], got[0], rtol=1e-12, atol=1e-15)
    if call != "hits":  # the first iterate by hand: x_1 from x_0
        x0 = np.full(50, 1.0 / 50) if call == "eigenvector" else np.zeros(50)
        y = S.T @ x0
        x1 = (x0 + y) / np.linalg.norm(x0 + y) if call == "eigenvector" else 0.05 * y + 1
        if max_iter == 1:
            np.testing.assert_allclose(got[0], x1, rtol=1e-13)


def _mesh(rows: int, cols: int):
    """A grid with both diagonals of every other cell: close leading singular values, as
    in meshes and road networks."""
    G = nx.grid_2d_graph(rows, cols)
    for i in range(0, rows - 1, 2):
        for j in range(0, cols - 1, 2):
            G.add_edge((i, j), (i + 1, j + 1))
    G = nx.convert_node_labels_to_integers(G)
    n = G.number_of_nodes()
    return n, sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(n), weight=None))


def test_hits_close_singular_values_take_lanczos_cycles(device, monkeypatch):
    """On a mesh the power iteration would need thousands of iterations; HITS sees the
    rate and finishes with Lanczos cycles, within the default max_iter, to the SVD's
    answer."""
    import scipy.sparse.linalg as sla

    from gblas.algorithms import centrality

    n, S = _mesh(30, 40)
    # the power iteration's rate: (sigma_2 / sigma_1)^2 per iteration
    sig = np.sort(sla.svds(S.astype(float), k=2, return_singular_vectors=False))
    assert (sig[0] / sig[1]) ** 2 > 0.99
    taken = []
    real = centrality._hits_krylov
    monkeypatch.setattr(centrality, "_hits_krylov",
                        lambda *a, **k: taken.append(a[4]) or real(*a, **k))
    A = gb.Matrix.from_scipy(S).to(device)
    h, a = gb.algorithms.hits(A, tol=1e-12)
    assert taken and taken[0] < 1000  # switched, with the rest of the budget
    _, _, vt = sla.svds(S.astype(float), k=1, tol=1e-14)
    want = np.abs(vt.ravel())
    np.testing.assert_allclose(a.to("cpu").to_dense(), want / want.sum(), atol=1e-10)
    hw = S @ want
    np.testing.assert_allclose(h.to("cpu").to_dense(), hw / hw.sum(), atol=1e-10)


def test_hits_lanczos_budget_is_max_iter():
    n, S = _mesh(30, 40)
    with pytest.raises(PowerIterationFailedConvergence, match="max_iter=40") as e:
        gb.algorithms.hits(gb.Matrix.from_scipy(S), tol=1e-15, max_iter=40)
    assert e.value.iterations == 40 and e.value.ranks.size == n


def test_hits_fast_graphs_stay_on_the_power_iteration(monkeypatch):
    from gblas.algorithms import centrality

    monkeypatch.setattr(centrality, "_hits_krylov", None)  # would fail if called
    G, A = _graph(5, n=60, p=0.2)
    hubs, auths = nx.hits(G, tol=1e-12, max_iter=10_000)
    h, a = gb.algorithms.hits(A, tol=1e-12)
    _close(a, auths, 60, 1e-8)


def test_hits_tol_zero_keeps_the_power_iteration():
    """tol=0 stops only at an exact fixed point: no rate to extrapolate, no switch."""
    n, S = _mesh(6, 7)
    with pytest.raises(PowerIterationFailedConvergence, match="max_iter=60"):
        gb.algorithms.hits(gb.Matrix.from_scipy(S), tol=0, max_iter=60)


def test_eigenvector_on_a_symmetric_mesh_takes_lanczos_cycles(device, monkeypatch):
    """An undirected mesh: the power iteration's rate predicts hundreds of iterations,
    so it continues with Lanczos cycles on A + I, to eigsh's vector, whether the Matrix
    is known symmetric or found so when the iteration turns out slow; with weights that
    differ between the two directions, or with krylov=False, it stays NetworkX's
    iteration (and stops at max_iter)."""
    import scipy.sparse.linalg as sla

    from gblas.algorithms import centrality

    n, S = _mesh(30, 40)
    taken = []
    real = centrality._eigen_krylov
    monkeypatch.setattr(centrality, "_eigen_krylov",
                        lambda *a, **k: taken.append(a[3]) or real(*a, **k))
    _, vec = sla.eigsh(S.astype(float) + sp.eye(n), k=1, which="LA", tol=1e-15)
    want = np.abs(vec.ravel())
    known = gb.Matrix.from_scipy(S)._mark_symmetric().to(device)
    assert known.known_symmetric
    for M in (known, gb.Matrix.from_scipy(S).to(device)):
        x = gb.algorithms.eigenvector_centrality(M, tol=1e-12, max_iter=1000)
        assert taken and taken[-1] < 1000
        np.testing.assert_allclose(x.to("cpu").to_dense(), want, atol=1e-10)
    taken.clear()
    C = sp.triu(S.astype(float)).tocsr()
    C.data = C.data * 1.001  # one direction weighs a little more: A != A'
    uneven = gb.Matrix.from_scipy((C + sp.tril(S.astype(float))).tocsr()).to(device)
    for M, kw in ((uneven, {}), (known, {"krylov": False})):
        with pytest.raises(PowerIterationFailedConvergence, match="max_iter=150") as e:
            gb.algorithms.eigenvector_centrality(M, tol=1e-12, max_iter=150, **kw)
        assert e.value.iterations == 150
    assert not taken


def test_katz_plan_per_device(device):
    """On a GPU Matrix Katz runs in PageRank's fused loop (its plan says so), with the
    loop's answers; on the CPU NetworkX's loop.  A diverging alpha is named on both."""
    G, A = _graph(4, n=40, p=0.15)
    M = A.to(device)
    plan = gb.explain(gb.algorithms.katz_centrality, M, alpha=0.05)
    assert plan.kernel == ("pagerank/csr/gpu/fused" if device == "gpu" else "")
    got = gb.algorithms.katz_centrality(M, alpha=0.05, tol=1e-13)
    want = gb.algorithms.katz_centrality(A, alpha=0.05, tol=1e-13)
    np.testing.assert_allclose(got.to("cpu").to_dense(), want.to_dense(), rtol=1e-12)
    K = gb.Matrix.from_dense(np.ones((10, 10)) - np.eye(10), missing=0).to(device)
    with pytest.raises(PowerIterationFailedConvergence, match="the iteration diverges"):
        gb.algorithms.katz_centrality(K, alpha=0.5, max_iter=2000)
