"""A Matrix whose constructor knows it equals its transpose uses its CSR as its
transpose's (nothing built), and loses the mark when written to."""

import gzip

import networkx as nx
import numpy as np
import pytest

import gblas as gb
from gblas.algorithms.common import is_symmetric


def _same_as_transpose_built(A) -> None:
    """The CSR that stands for A' holds A' (checked against a transpose built here)."""
    r, c, v = A.to_coo()
    T = gb.Matrix.from_coo(c, r, v, shape=A.shape[::-1], dtype=A.dtype)
    got = A.csr(transposed=True)
    assert np.array_equal(got.indptr, T.csr().indptr)
    assert np.array_equal(got.indices, T.csr().indices)
    assert np.array_equal(got.dense_values(), T.csr().dense_values())


@pytest.mark.parametrize("weights", [None, "uniform"])
def test_symmetric_generator_shares_its_csr(weights):
    A = gb.io.generators.kronecker(6, 4, seed=3, symmetric=True, weights=weights)
    assert A.known_symmetric and is_symmetric(A)
    assert A.csr(transposed=True) is A.csr()
    _same_as_transpose_built(A)
    assert A.dup().known_symmetric and A.dup(np.int64).known_symmetric
    _same_as_transpose_built(A.dup(np.int64))
    D = gb.io.generators.kronecker(6, 4, seed=3, weights=weights)
    assert not D.known_symmetric and not D.dup().known_symmetric
    assert D.csr(transposed=True) is not D.csr()


def test_matrix_market_symmetric_file(tmp_path):
    path = tmp_path / "s.mtx.gz"
    with gzip.open(path, "wt") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 4.5\n3 1 -1\n"
                "3 3 2\n")
    A = gb.io.read_mm(path)
    assert A.known_symmetric
    _same_as_transpose_built(A)
    general = tmp_path / "g.mtx"
    general.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 4.5\n"
                       "1 2 4.5\n")
    assert not gb.io.read_mm(general).known_symmetric


def test_networkx_undirected_matrix():
    from gblas.nx import from_networkx

    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 3.0), (2, 2, 1.5), (3, 0, 0.5)])
    H = from_networkx(G, edge_attrs={"weight": 1})
    for A in (H.matrix("weight"), H.matrix(None), H.pattern()):
        assert A.known_symmetric
        _same_as_transpose_built(A)
    D = from_networkx(G.to_directed(), edge_attrs={"weight": 1})
    assert not D.matrix("weight").known_symmetric
    # PageRank through the shared CSR equals NetworkX's own
    want = nx.pagerank(G, backend="networkx")
    got = nx.pagerank(G, backend="gblas")
    assert max(abs(want[k] - got[k]) for k in want) < 1e-12


def test_a_write_drops_the_mark():
    A = gb.io.generators.kronecker(5, 4, seed=1, symmetric=True, dtype=np.float64)
    # A<A> += a non-symmetric matrix: a new storage, no longer known symmetric
    B = gb.Matrix.from_coo([0], [1], [7.0], shape=A.shape)
    gb.ewise_add(A, B, out=A)
    assert not A.known_symmetric
    _same_as_transpose_built(A)


def test_the_mark_is_saved(tmp_path):
    A = gb.io.generators.kronecker(5, 4, seed=2, symmetric=True)
    gb.io.save(tmp_path / "a.npz", A)
    B = gb.io.load(tmp_path / "a.npz")
    assert B.known_symmetric and B.isequal(A)
    C = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], shape=(2, 2))
    gb.io.save(tmp_path / "c.npz", C)
    assert not gb.io.load(tmp_path / "c.npz").known_symmetric


def test_plain_matrices_are_not_marked():
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], shape=(2, 2))
    assert not A.known_symmetric  # symmetric, but nothing said so: checked when needed
    assert is_symmetric(A)


@pytest.mark.gpu
def test_the_mark_moves_to_the_gpu():
    pytest.importorskip("cupy")
    A = gb.io.generators.kronecker(7, 8, seed=3, symmetric=True, dtype=np.float64)
    G = A.to("gpu")
    assert G.known_symmetric and G.csr(transposed=True) is G.csr()
    assert G.to("cpu").known_symmetric
    want = gb.algorithms.pagerank(gb.Matrix.from_scipy(A.to_scipy())).to_dense()
    got = gb.algorithms.pagerank(G).to_dense().get()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
