"""Options users expect from the algorithms, checked against NetworkX: per-vertex
triangles and clustering coefficients, sampled betweenness (``k``, ``seed``), BFS levels
whose missing entries stay visible."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas.algorithms import (
    average_clustering,
    betweenness_centrality,
    bfs,
    clustering,
    transitivity,
    triangle_count,
    triangles,
)
from gblas.testing.strategies import graphs

nx = pytest.importorskip("networkx")


def _nx_graph(A, directed: bool):
    """The NetworkX graph of A's pattern, nodes 0..n-1 in order."""
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.shape[0]))
    r, c, _ = A.to_coo()
    G.add_edges_from(zip(r.tolist(), c.tolist()))
    return G


def _values(d: dict, n: int) -> list:
    return [d[i] for i in range(n)]


# ------------------------------------------------------------ triangles and clustering
@given(A=graphs(max_n=12, directed=False, self_loops=True))
def test_triangles_and_clustering_match_networkx(A):
    n = A.shape[0]
    G = _nx_graph(A, directed=False)
    t = triangles(A)
    assert t.dtype == np.int64 and t.nvals == n
    assert t.to_dense().tolist() == _values(nx.triangles(G), n)
    assert int(t.to_dense().sum()) == 3 * triangle_count(A)
    c = clustering(A)
    assert c.dtype == np.float64 and c.nvals == n
    np.testing.assert_allclose(c.to_dense(), _values(nx.clustering(G), n), rtol=1e-12)
    assert transitivity(A) == pytest.approx(nx.transitivity(G), rel=1e-12)
    if n:
        assert average_clustering(A) == pytest.approx(nx.average_clustering(G), rel=1e-12)
    nonzero = [v for v in nx.clustering(G).values() if v]
    if nonzero:
        assert average_clustering(A, count_zeros=False) == pytest.approx(
            nx.average_clustering(G, count_zeros=False), rel=1e-12)
    else:
        with pytest.raises(gb.InvalidValue, match="count_zeros=True"):
            average_clustering(A, count_zeros=False)


@given(A=graphs(max_n=30, directed=True, self_loops=True))
def test_per_vertex_triangles_kernel_matches_the_loop(A):
    """The compiled per-vertex count (the plan's) against the loop of operations (a
    pinned format keeps it), on the undirected graph of any matrix."""
    assert gb.explain(triangles, A).kernel == "triangles/csr/cpu/per_vertex"
    got = triangles(A, symmetrize=True).to_dense()
    with gb.config(format="csr"):
        assert gb.explain(triangles, A).kernel == ""
        want = triangles(A, symmetrize=True).to_dense()
    np.testing.assert_array_equal(got, want)
    assert int(got.sum()) == 3 * triangle_count(A)


@given(A=graphs(max_n=10, directed=True, self_loops=True))
def test_directed_input_is_refused_or_symmetrized(A):
    G = _nx_graph(A, directed=True)
    U = G.to_undirected()
    n = A.shape[0]
    symmetric = A.isequal(A.T, values=False)
    for f in (triangles, clustering, transitivity):
        if not symmetric:
            with pytest.raises(gb.InvalidValue, match="symmetrize=True"):
                f(A)
    assert triangles(A, symmetrize=True).to_dense().tolist() == _values(nx.triangles(U), n)
    np.testing.assert_allclose(clustering(A, symmetrize=True).to_dense(),
                               _values(nx.clustering(U), n), rtol=1e-12)
    assert transitivity(A, symmetrize=True) == pytest.approx(nx.transitivity(U), rel=1e-12)


def test_clustering_values_and_explicit_zeros():
    # weights are ignored; an explicit zero is an edge; a self loop is not a neighbour
    A = gb.Matrix.from_coo([0, 1, 1, 2, 2, 0, 2, 3, 3], [1, 0, 2, 1, 0, 2, 3, 2, 3],
                           [0.0, 0.0, 5.0, 5.0, 2.0, 2.0, 1.0, 1.0, 9.0], shape=(4, 4))
    assert triangles(A).to_dense().tolist() == [1, 1, 1, 0]
    np.testing.assert_allclose(clustering(A).to_dense(), [1.0, 1.0, 1 / 3, 0.0])
    assert transitivity(A) == pytest.approx(0.6)
    with pytest.raises(gb.InvalidValue, match="at least one vertex"):
        average_clustering(gb.Matrix.from_coo([], [], shape=(0, 0)))
    with pytest.raises(gb.DimensionMismatch, match="square"):
        triangles(gb.Matrix.from_coo([0], [1], shape=(2, 3)))
    with pytest.raises(gb.InvalidValue, match="symmetrize.*True or False"):
        clustering(A, symmetrize="yes")


# ------------------------------------------------------------------ sampled betweenness
@given(A=graphs(max_n=10, directed=True),
       directed=st.booleans(), normalized=st.booleans(), data=st.data())
def test_sampled_betweenness_matches_networkx_with_the_same_seed(A, directed, normalized,
                                                                  data):
    if not directed:
        A = gb.ewise_add(A, A.T, "any")
    n = A.shape[0]
    if n == 0:
        return
    G = _nx_graph(A, directed=directed)
    k = data.draw(st.integers(1, n))
    seed = data.draw(st.integers(0, 2**32 - 1))
    # told the graph's kind: a directed graph's pattern may be symmetric by chance (the
    # default reads a symmetric pattern as undirected, which halves unnormalized sums)
    got = betweenness_centrality(A, normalized=normalized, k=k, seed=seed,
                                 directed=directed).to_dense()
    want = _values(nx.betweenness_centrality(G, k=k, normalized=normalized, seed=seed), n)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)
    # the same seed draws the same sources; a random.Random is used as given
    again = betweenness_centrality(A, normalized=normalized, k=k, seed=random.Random(seed),
                                   directed=directed)
    np.testing.assert_array_equal(again.to_dense(), got)
    # the same sources given explicitly
    src = random.Random(seed).sample(range(n), k)
    np.testing.assert_array_equal(
        betweenness_centrality(A, src, normalized=normalized, directed=directed).to_dense(),
        got)


def test_sampled_betweenness_argument_errors():
    A = gb.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], shape=(3, 3))
    with pytest.raises(gb.InvalidValue, match=r"k.*\[1, 3\], got 4"):
        betweenness_centrality(A, k=4)
    with pytest.raises(gb.InvalidValue, match=r"k.*got 0.*k=None"):
        betweenness_centrality(A, k=0)
    with pytest.raises(gb.InvalidValue, match="either k"):
        betweenness_centrality(A, [0], k=1)
    with pytest.raises(gb.InvalidValue, match="seed.*random.Random"):
        betweenness_centrality(A, k=1, seed="abc")
    with pytest.raises(gb.InvalidValue, match="integer number of sources"):
        betweenness_centrality(A, k=1.5)
    exact = betweenness_centrality(A).to_dense()
    np.testing.assert_array_equal(betweenness_centrality(A, k=3, seed=0).to_dense(), exact)


# ---------------------------------------------------------------------------- BFS levels
@given(A=graphs(max_n=12, directed=True), data=st.data())
def test_bfs_unreached_vertices_are_missing_not_zero(A, data):
    n = A.shape[0]
    if n == 0:
        return
    s = data.draw(st.integers(0, n - 1))
    G = _nx_graph(A, directed=True)
    want = nx.single_source_shortest_path_length(G, s)
    levels = bfs(A, s)
    assert levels.nvals == len(want)
    assert levels.to_dense(fill=-1).tolist() == [want.get(v, -1) for v in range(n)]
    assert [levels[v] for v in range(n)] == [want.get(v) for v in range(n)]
    assert gb.io.to_dict(levels) == want
