"""BFS and PageRank against SciPy / NetworkX, and their argument checks."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas.algorithms import PowerIterationFailedConvergence, bfs, pagerank
from gblas.cli import edges_exist, scipy_bfs_levels


def _graphs():
    yield "kron-directed", gb.io.kronecker(9, 8, seed=1, dtype=None)
    yield "kron-undirected", gb.io.kronecker(9, 4, seed=2, symmetric=True)
    yield "grid", gb.io.grid(12, 9)
    yield "uniform-sparse", gb.io.uniform(300, 350, seed=5, dtype="float64")
    yield "path", gb.Matrix.from_coo(np.arange(40), np.arange(1, 41), None, shape=(41, 41))


GRAPHS = dict(_graphs())


def _check_parent_tree(S, source, levels, parents):
    """Valid iff every parent edge exists and levels step by one along it."""
    lv = levels.to_dense(fill=-1)
    pi, pv = parents.to_coo()
    assert np.array_equal(np.sort(pi), np.flatnonzero(lv >= 0))  # same vertices reached
    assert lv[source] == 0 and parents.to_dense(fill=-1)[source] == source
    child = pi != source
    c, p = pi[child], np.asarray(pv)[child]
    assert np.all(lv[c] == lv[p] + 1)
    assert np.all(edges_exist(S, p, c))


@pytest.mark.parametrize("name", list(GRAPHS))
def test_bfs_levels_and_parents(name):
    A = GRAPHS[name]
    S = A.to_scipy()
    deg = np.diff(S.indptr)
    for source in {0, int(np.argmax(deg)), A.shape[0] - 1}:
        ref = scipy_bfs_levels(S, source)
        levels = bfs(A, source)
        assert levels.dtype == np.int64
        assert np.array_equal(levels.to_dense(fill=-1), ref)
        assert levels.nvals == int((ref >= 0).sum())
        lv2, parents = bfs(A, source, parents=True)
        assert np.array_equal(lv2.to_dense(fill=-1), ref)
        _check_parent_tree(S, source, lv2, parents)


def test_bfs_parents_are_smallest_id():
    # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3: vertex 3 has two candidate parents
    A = gb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], shape=(4, 4))
    _, parents = bfs(A, 0, parents=True)
    assert parents.to_dense(fill=-1).tolist() == [0, 0, 0, 1]


def test_bfs_isolated_source_and_scipy_input():
    A = gb.Matrix.from_coo([1], [2], shape=(4, 4))
    assert bfs(A, 0).to_coo()[0].tolist() == [0]
    S = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 2])), shape=(3, 3))
    assert bfs(S, 0).to_dense(fill=-1).tolist() == [0, 1, 2]


def test_bfs_bad_input():
    A = gb.Matrix.from_coo([0], [1], shape=(3, 3))
    with pytest.raises(gb.DimensionMismatch, match="bfs: argument `A`"):
        bfs(gb.Matrix.from_coo([0], [1], shape=(3, 4)), 0)
    with pytest.raises(gb.IndexOutOfBound, match="bfs: argument `source`"):
        bfs(A, 3)
    with pytest.raises(gb.InvalidValue, match="bfs: argument `source`.*>= 0"):
        bfs(A, -1)
    with pytest.raises(gb.InvalidValue, match="source"):
        bfs(A, 1.5)
    with pytest.raises(gb.InvalidObject, match="bfs: argument `A`"):
        bfs([[0, 1], [1, 0]], 0)


def _nx_pagerank(A, **kw):
    G = nx.from_scipy_sparse_array(A.to_scipy().astype(np.float64),
                                   create_using=nx.DiGraph)
    G.add_nodes_from(range(A.shape[0]))
    kw.setdefault("tol", 1e-12)  # the exact ranks (NetworkX's rule: L1 change < n * tol)
    kw.setdefault("max_iter", 1000)
    pr = nx.pagerank(G, **kw)
    return np.array([pr[i] for i in range(A.shape[0])])


@pytest.mark.parametrize("name", ["kron-directed", "uniform-sparse", "grid", "path"])
def test_pagerank_vs_networkx(name):
    A = GRAPHS[name]
    r = pagerank(A)
    assert r.nvals == A.shape[0] and r.dtype == np.float64
    got = r.to_dense()
    assert abs(got.sum() - 1) < 1e-9
    assert np.allclose(got, _nx_pagerank(A), rtol=0, atol=1e-6)
    # NetworkX's rule gives NetworkX's iterates
    nx_rule = pagerank(A, tol=1e-6, criterion="networkx").to_dense()
    assert np.allclose(nx_rule, _nx_pagerank(A, tol=1e-6), rtol=0, atol=1e-10)


def test_pagerank_dangling_and_weights():
    # 3 is dangling (no out-edge), 4 is isolated; weighted edges out of 0
    A = gb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 3], [1.0, 3.0, 1.0, 2.0], shape=(5, 5))
    got = pagerank(A, damping=0.9, tol=1e-8).to_dense()
    assert np.allclose(got, _nx_pagerank(A, alpha=0.9, tol=1e-8), atol=1e-6)


def test_pagerank_personalization():
    A = GRAPHS["kron-directed"]
    n = A.shape[0]
    pers = {0: 1.0, 5: 2.0, 17: 0.5}
    ref = _nx_pagerank(A, personalization=pers)
    for p in (pers, np.array([pers.get(i, 0.0) for i in range(n)]),
              gb.Vector.from_coo(list(pers), list(pers.values()), n)):
        assert np.allclose(pagerank(A, personalization=p).to_dense(), ref, rtol=0, atol=1e-6)


def test_pagerank_bad_input():
    A = gb.Matrix.from_coo([0], [1], shape=(3, 3))
    with pytest.raises(gb.DimensionMismatch, match="pagerank: argument `A`"):
        pagerank(gb.Matrix.from_coo([0], [1], shape=(2, 3)))
    with pytest.raises(gb.InvalidValue, match="damping"):
        pagerank(A, damping=1.5)
    with pytest.raises(gb.InvalidValue, match="tol"):
        pagerank(A, tol=0)
    with pytest.raises(gb.DimensionMismatch, match="personalization"):
        pagerank(A, personalization=np.ones(4))
    with pytest.raises(gb.InvalidValue, match="personalization"):
        pagerank(A, personalization={0: -1.0})
    with pytest.raises(PowerIterationFailedConvergence, match="max_iter=1"):
        pagerank(GRAPHS["kron-directed"], max_iter=1)


def test_progress_reports(capsys):
    A = GRAPHS["path"]
    bfs(A, 0, progress=True)
    pagerank(A, progress=True)
    err = capsys.readouterr().err
    assert "bfs: done" in err and "pagerank: done" in err
