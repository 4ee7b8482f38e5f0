"""gblas.csgraph against scipy.sparse.csgraph: same calls, same results.

Distances, orders and weak-component labels must be equal; predecessors valid shortest-path
trees (ties make them non-unique); component labels (weak and strong) equal.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from locations import DATA, REPO  # noqa: E402
from scipy.sparse import csgraph as ref

import gblas as gb
from gblas import csgraph as gc

SHORTEST = ["shortest_path", "dijkstra", "bellman_ford", "johnson"]


def graph(rng, n, density, *, negative=False, symmetric=False):
    """A weighted SciPy CSR graph with explicit zeros, self loops and isolated vertices."""
    S = sp.random(n, n, density=density, random_state=int(rng.integers(2**31)), format="csr")
    S.data = np.floor(S.data * 6)  # integer weights 0..5: explicit zeros included
    if negative:  # negative weights on a DAG only (no negative cycle)
        S = sp.triu(S, 1, format="csr")
        S.data -= 2
    if symmetric:
        S = sp.csr_array(S + S.T)
    return sp.csr_array(S)


def forms(S, kind):
    """The same graph as SciPy sparse array, sparse matrix, dense array or gb.Matrix."""
    return {"sparray": S, "spmatrix": sp.csr_matrix(S), "dense": S.toarray(),
            "gblas": gb.Matrix.from_scipy(S)}[kind]


def weights(G, directed):
    """(N, N) dense weights with inf for non-edges, following SciPy's input conventions."""
    if sp.issparse(G):
        W = np.full(G.shape, np.inf)
        C = sp.coo_array(G)
        W[C.row, C.col] = np.minimum(W[C.row, C.col], C.data)
    else:
        W = np.where((G != 0) & np.isfinite(G), G, np.inf).astype(float)
    if not directed:
        W = np.minimum(W, W.T)
    return W


def check_predecessors(W, dist, pred, sources):
    """Each predecessor edge exists and is tight; following them reaches the source."""
    dist, pred = np.atleast_2d(dist), np.atleast_2d(pred)
    n = W.shape[0]
    for b, s in enumerate(np.atleast_1d(sources)):
        for v in range(n):
            p = pred[b, v]
            if v == s or np.isinf(dist[b, v]):
                assert p == -9999
                continue
            assert np.isfinite(W[p, v]) and dist[b, p] + W[p, v] == pytest.approx(dist[b, v])
            steps, u = 0, v
            while u != s:
                u, steps = pred[b, u], steps + 1
                assert steps <= n


@pytest.fixture(scope="module")
def warn_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy's dijkstra warns on negative weights
        yield


@pytest.mark.parametrize("kind", ["sparray", "spmatrix", "dense", "gblas"])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("n, density", [(1, 0.0), (6, 0.3), (25, 0.1), (40, 0.04)])
def test_shortest_paths(rng, kind, directed, n, density):
    S = graph(rng, n, density)
    G = forms(S, kind)
    Gs = S.toarray() if kind == "dense" else S
    W = weights(Gs, directed)
    src = int(rng.integers(0, n))
    for name in SHORTEST:
        for indices in (None, src, [src, 0], np.array([[0], [src]])):
            want = getattr(ref, name)(Gs, directed=directed, indices=indices)
            got, pred = getattr(gc, name)(G, directed=directed, indices=indices,
                                          return_predecessors=True)
            assert got.shape == want.shape and got.dtype == np.float64
            np.testing.assert_allclose(got, want)
            assert pred.dtype == np.int32 and pred.shape == want.shape
            flat = np.arange(n) if indices is None else np.ravel(indices)
            check_predecessors(W, got.reshape(-1, n), pred.reshape(-1, n), flat)
    want = ref.floyd_warshall(Gs, directed=directed)
    got, pred = gc.floyd_warshall(G, directed=directed, return_predecessors=True)
    np.testing.assert_allclose(got, want)
    check_predecessors(W, got, pred, np.arange(n))
    np.testing.assert_allclose(gc.dijkstra(G, directed=directed, unweighted=True),
                               ref.dijkstra(Gs, directed=directed, unweighted=True))


@pytest.mark.usefixtures("warn_quiet")
@pytest.mark.parametrize("n", [5, 20])
def test_negative_weights(rng, n):
    S = graph(rng, n, 0.3, negative=True)
    W = weights(S, True)
    for name in ["bellman_ford", "johnson", "shortest_path", "dijkstra"]:
        got, pred = getattr(gc, name)(S, indices=0, return_predecessors=True)
        np.testing.assert_allclose(got, ref.bellman_ford(S, indices=0))
        check_predecessors(W, got, pred, [0])
    np.testing.assert_allclose(gc.floyd_warshall(S), ref.floyd_warshall(S))


def test_negative_cycles():
    # 2 <-> 3 is a negative cycle that vertex 0 cannot reach
    C = sp.csr_array((np.array([1.0, -2.0, 1.0]), ([0, 2, 3], [1, 3, 2])), shape=(4, 4))
    np.testing.assert_allclose(gc.bellman_ford(C, indices=0), ref.bellman_ford(C, indices=0))
    for call in (lambda: gc.johnson(C, indices=0), lambda: gc.floyd_warshall(C),
                 lambda: gc.shortest_path(C, indices=0), lambda: gc.bellman_ford(C),
                 lambda: gc.bellman_ford(C, indices=2), lambda: gc.dijkstra(C, indices=3)):
        with pytest.raises(ref.NegativeCycleError):
            call()
    with pytest.raises(gb.InvalidValue, match="negative cycle"):
        gc.johnson(C)
    # undirected: any negative edge is a negative cycle
    D = sp.csr_array((np.array([-1.0]), ([0], [1])), shape=(2, 2))
    with pytest.raises(gc.NegativeCycleError):
        gc.bellman_ford(D, directed=False, indices=0)


def test_dijkstra_limit_and_min_only(rng):
    S = graph(rng, 30, 0.12)
    idx = [0, 7, 7, 19]
    for limit in (0.0, 2.5, 4, np.inf):
        np.testing.assert_allclose(gc.dijkstra(S, indices=idx, limit=limit),
                                   ref.dijkstra(S, indices=idx, limit=limit))
        # one source: delta-stepping, the distances above the limit dropped afterwards
        d1, p1 = gc.dijkstra(S, indices=7, limit=limit, return_predecessors=True)
        np.testing.assert_allclose(d1, ref.dijkstra(S, indices=7, limit=limit))
        assert np.array_equal(p1 >= 0, np.isfinite(d1) & (np.arange(30) != 7))
        d, p, s = gc.dijkstra(S, indices=idx, limit=limit, min_only=True,
                              return_predecessors=True)
        dr, _, sr = ref.dijkstra(S, indices=idx, limit=limit, min_only=True,
                                 return_predecessors=True)
        np.testing.assert_allclose(d, dr)
        assert p.dtype == np.int32 and s.dtype == np.int32
        assert np.array_equal(s >= 0, sr >= 0)
        W = weights(S, True)
        for v in range(30):  # the source found is at distance d[v] from v
            if s[v] >= 0:
                assert ref.dijkstra(S, indices=int(s[v]))[v] == pytest.approx(d[v])
            if p[v] >= 0:
                assert d[p[v]] + W[p[v], v] == pytest.approx(d[v])
    with pytest.raises(ValueError, match="limit"):
        gc.dijkstra(S, limit=-1)


@pytest.mark.parametrize("kind", ["sparray", "spmatrix", "dense", "gblas"])
@pytest.mark.parametrize("directed", [True, False])
def test_breadth_first(rng, kind, directed):
    S = graph(rng, 40, 0.05)
    G = forms(S, kind)
    Gs = S.toarray() if kind == "dense" else S
    for start in (0, 5, 39):
        order, pred = gc.breadth_first_order(G, start, directed=directed)
        want_order, want_pred = ref.breadth_first_order(Gs, start, directed=directed)
        np.testing.assert_array_equal(order, want_order)
        np.testing.assert_array_equal(pred, want_pred)
        assert order.dtype == np.int32 and pred.dtype == np.int32
        only = gc.breadth_first_order(G, start, directed, return_predecessors=False)
        np.testing.assert_array_equal(only, want_order)
        tree = gc.breadth_first_tree(G, start, directed=directed)
        want = ref.breadth_first_tree(Gs, start, directed=directed)
        assert type(tree) is (sp.csr_matrix if kind == "spmatrix" else sp.csr_array)
        np.testing.assert_array_equal(tree.toarray(), want.toarray())


@pytest.mark.parametrize("kind", ["sparray", "dense", "gblas"])
@pytest.mark.parametrize("n, density", [(1, 0.0), (12, 0.1), (60, 0.02), (150, 0.008)])
def test_connected_components(rng, kind, n, density):
    S = graph(rng, n, density)
    G = forms(S, kind)
    Gs = S.toarray() if kind == "dense" else S
    for directed in (True, False):
        for connection in ("weak", "strong", "Strong"):
            nc, lab = gc.connected_components(G, directed=directed, connection=connection)
            nr, want = ref.connected_components(Gs, directed=directed, connection=connection)
            assert nc == nr and lab.dtype == np.int32
            np.testing.assert_array_equal(lab, want)  # strong ones numbered as SciPy does
    assert gc.connected_components(G, return_labels=False) == \
        ref.connected_components(Gs, return_labels=False)


def test_input_conventions():
    # dense: 0, inf and nan are non-edges; masked entries too
    D = np.array([[0, 2, np.inf], [np.nan, 0, 1], [4, 0, 0]])
    np.testing.assert_allclose(gc.dijkstra(D), ref.dijkstra(D))
    M = np.ma.masked_array([[0, 2, 3], [1, 0, 1], [4, 9, 0]],
                           mask=[[0, 0, 1], [0, 0, 0], [0, 1, 0]])
    np.testing.assert_allclose(gc.dijkstra(M), ref.dijkstra(M))
    # lists; sparse explicit zeros are zero-weight edges
    np.testing.assert_allclose(gc.shortest_path([[0, 1], [1, 0]]), [[0, 1], [1, 0]])
    Z = sp.csr_array((np.array([0.0, 3.0]), ([0, 1], [1, 2])), shape=(3, 3))
    np.testing.assert_allclose(gc.dijkstra(Z, indices=0), [0.0, 0.0, 3.0])
    # directed=False takes the smaller weight of both directions
    B = sp.csr_array((np.array([5.0, 2.0]), ([0, 1], [1, 0])), shape=(2, 2))
    np.testing.assert_allclose(gc.dijkstra(B, directed=False), [[0, 2], [2, 0]])
    # negative indices wrap as in SciPy; a bool gb.Matrix weighs its edges 1
    np.testing.assert_allclose(gc.dijkstra(D, indices=-1), ref.dijkstra(D, indices=-1))
    A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    np.testing.assert_allclose(gc.dijkstra(A, indices=0), [0, 1, 2])
    np.testing.assert_allclose(gc.dijkstra(A.T, indices=2), [2, 1, 0])


def test_errors():
    D = np.ones((2, 3))
    with pytest.raises(ValueError, match="square"):
        gc.dijkstra(D)
    with pytest.raises(gb.DimensionMismatch, match="csgraph"):
        gc.connected_components(sp.csr_array(D))
    with pytest.raises(ValueError, match="unrecognized method 'X'"):
        gc.shortest_path(np.eye(2), method="X")
    with pytest.raises(ValueError, match="indices out of range"):
        gc.dijkstra(np.eye(3), indices=3)
    with pytest.raises(ValueError, match="Cannot specify indices"):
        gc.shortest_path(np.eye(3), method="FW", indices=0)
    with pytest.raises(ValueError, match="connection"):
        gc.connected_components(np.eye(3), connection="medium")
    with pytest.raises(ValueError, match="i_start"):
        gc.breadth_first_order(np.eye(3), 5)
    nan = sp.csr_array((np.array([np.nan]), ([0], [1])), shape=(2, 2))
    with pytest.raises(gb.InvalidValue, match="NaN"):
        gc.dijkstra(nan)


def test_gblas_matrix_on_every_device(device):
    A = gb.io.kronecker(8, 6, seed=1, dtype="float64", symmetric=True, weights="uniform")
    S, G = A.to_scipy(), A.to(device)
    for name in SHORTEST:
        np.testing.assert_allclose(getattr(gc, name)(G, indices=[0, 5]),
                                   getattr(ref, name)(S, indices=[0, 5]))
    d, p = gc.dijkstra(G, indices=3, return_predecessors=True)
    check_predecessors(weights(S, True), d, p, [3])
    for got, want in zip(gc.breadth_first_order(G, 2, directed=False),
                         ref.breadth_first_order(S, 2, directed=False)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(gc.connected_components(G)[1], ref.connected_components(S)[1])


def test_real_wiki_vote():
    path = DATA / "wiki-Vote.mtx.gz"
    if not path.exists():
        pytest.skip("wiki-Vote not found in ../shared/data")
    S = gb.io.read_mm(path).to_scipy().astype(np.float64)
    idx = [0, 17, 4000]
    np.testing.assert_allclose(gc.dijkstra(S, indices=idx), ref.dijkstra(S, indices=idx))
    np.testing.assert_allclose(gc.dijkstra(S, indices=idx, directed=False),
                               ref.dijkstra(S, indices=idx, directed=False))
    for conn in ("weak", "strong"):
        assert gc.connected_components(S, connection=conn)[0] == \
            ref.connected_components(S, connection=conn)[0]
    order, pred = gc.breadth_first_order(S, 3, directed=False)
    want_order, want_pred = ref.breadth_first_order(S, 3, directed=False)
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(pred, want_pred)


# ------------------------------------------------------------- the whole of SciPy's csgraph


def test_every_scipy_name_is_there():
    names = [n for n in dir(ref) if not n.startswith("_") and n != "test"]
    assert "yen" in names and "maximum_flow" in names
    missing = [n for n in names if not hasattr(gc, n)]
    assert not missing
    assert issubclass(gc.NegativeCycleError, ref.NegativeCycleError)


@pytest.mark.parametrize("kind", ["sparray", "spmatrix", "gblas"])
def test_delegated_match_scipy(rng, kind):
    S = graph(rng, 40, 0.08)
    G = forms(S, kind)
    Ss = sp.csr_matrix(S) if kind == "spmatrix" else S
    for name, args in [("depth_first_order", (3,)), ("depth_first_tree", (3,)),
                       ("minimum_spanning_tree", ()), ("reverse_cuthill_mckee", ()),
                       ("structural_rank", ()), ("maximum_bipartite_matching", ())]:
        got, want = getattr(gc, name)(G, *args), getattr(ref, name)(Ss, *args)
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            g, w = (x.toarray() if sp.issparse(x) else np.asarray(x) for x in (g, w))
            np.testing.assert_array_equal(g, w)
    np.testing.assert_allclose(gc.laplacian(S.toarray(), normed=True),
                               ref.laplacian(S.toarray(), normed=True))
    cap = sp.csr_array(S.astype(np.int32))
    assert gc.maximum_flow(cap, 0, 5).flow_value == ref.maximum_flow(cap, 0, 5).flow_value


def test_delegated_errors_and_negative_cycles():
    with pytest.raises(ValueError) as got:
        gc.maximum_flow(sp.csr_array(np.ones((2, 2))), 0, 1)  # float capacities
    with pytest.raises(ValueError) as want:
        ref.maximum_flow(sp.csr_array(np.ones((2, 2))), 0, 1)
    assert str(got.value) == str(want.value)
    cyc = np.array([[0, 1, 0], [0, 0, -3], [1, 0, 0]], dtype=float)
    with pytest.raises(gc.NegativeCycleError):
        gc.yen(cyc, 0, 2, K=2)
    with pytest.raises(ref.NegativeCycleError):  # SciPy's class catches it too
        gc.yen(cyc, 0, 2, K=2)


def test_breadth_first_order_unsorted_and_csc(rng):
    # SciPy visits neighbours in stored order: unsorted CSR input must give SciPy's order
    S = graph(rng, 80, 0.05, symmetric=True)
    perm = rng.permutation(S.indices.size)
    U = sp.csr_array((S.data.copy(), S.indices.copy(), S.indptr.copy()), shape=S.shape)
    for r in range(U.shape[0]):  # shuffle within each row
        lo, hi = U.indptr[r], U.indptr[r + 1]
        p = lo + rng.permutation(hi - lo)
        U.indices[lo:hi], U.data[lo:hi] = U.indices[p], U.data[p]
    U.has_sorted_indices = False
    del perm
    for G in (U, sp.csc_array(S), sp.coo_array(S), sp.csr_matrix(U)):
        for directed in (True, False):
            for got, want in zip(gc.breadth_first_order(G, 1, directed=directed),
                                 ref.breadth_first_order(G, 1, directed=directed)):
                np.testing.assert_array_equal(got, want)
            t, w = gc.breadth_first_tree(G, 1, directed), ref.breadth_first_tree(G, 1, directed)
            assert type(t) is type(w)
            np.testing.assert_array_equal(t.toarray(), w.toarray())


@pytest.mark.parametrize("n, density", [(1, 0.0), (30, 0.03), (200, 0.006)])
def test_weak_components_of_any_sparse_storage(rng, n, density):
    # SciPy input runs the compiled pass on its stored pattern as is: CSC through its
    # transpose, unsorted rows, duplicates, 64-bit indices and stored zeros included
    S = graph(rng, n, density)
    C = sp.coo_array(S)
    dup = sp.coo_array((np.r_[C.data, C.data], (np.r_[C.row, C.row], np.r_[C.col, C.col])),
                       shape=S.shape)
    U = sp.csr_array((S.data.copy(), S.indices.copy(), S.indptr.copy()), shape=S.shape)
    for r in range(n):  # each row's entries reversed: indices out of order
        lo, hi = U.indptr[r], U.indptr[r + 1]
        U.indices[lo:hi], U.data[lo:hi] = U.indices[lo:hi][::-1], U.data[lo:hi][::-1]
    U.has_sorted_indices = False
    W = sp.csr_array((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
                     shape=S.shape)
    for G in (S, sp.csc_array(S), C, dup, U, W, sp.csr_matrix(S), sp.csc_matrix(S)):
        for directed in (True, False):
            got = gc.connected_components(G, directed=directed, connection="weak")
            want = ref.connected_components(G, directed=directed, connection="weak")
            assert got[0] == want[0]
            np.testing.assert_array_equal(got[1], want[1])
    with pytest.raises(gb.DimensionMismatch, match="connected_components"):
        gc.connected_components(sp.csr_array((2, 3)))


def test_pydata_input():
    sparse = pytest.importorskip("sparse", reason="pydata/sparse is in the test extra")
    D = np.array([[0, 2, 0], [0, 0, 1], [4, 0, 0]], dtype=float)
    X = sparse.COO.from_numpy(D)
    np.testing.assert_allclose(gc.dijkstra(X), ref.dijkstra(D))
    X.fill_value = np.inf
    np.testing.assert_allclose(gc.shortest_path(X), ref.shortest_path(X))
    assert isinstance(gc.breadth_first_tree(sparse.COO.from_numpy(D), 0), sparse.COO)
    X.fill_value = 7.0
    with pytest.raises(ValueError, match="fill_value"):
        gc.dijkstra(X)


def test_scipy_suite_patch_replaces_scipy_names(monkeypatch):
    """The runner of SciPy's suite (make test-scipy-csgraph) replaces every name."""
    import importlib.util

    import scipy.sparse.csgraph._traversal as trav

    spec = importlib.util.spec_from_file_location(
        "scipy_csgraph_run", REPO / "tests" / "scipy_csgraph" / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    import scipy.sparse.csgraph as sc

    for mod in [sc] + [importlib.import_module(f"scipy.sparse.csgraph.{m}")
                       for m in run.SUBMODULES]:
        for name in run.replaced_names():
            if name in vars(mod):
                monkeypatch.setattr(mod, name, getattr(mod, name))  # restored afterwards
    names = run.patch()
    assert len(names) == len([n for n in dir(ref) if not n.startswith("_") and n != "test"])
    assert sc.NegativeCycleError is gc.NegativeCycleError
    assert sc.dijkstra.__wrapped__ is gc.dijkstra
    assert trav.depth_first_order.__wrapped__ is gc.depth_first_order
