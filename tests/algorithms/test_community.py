"""Louvain communities (:func:`gblas.algorithms.louvain` and the NetworkX backend's
``louvain_communities`` / ``louvain_partitions``) against NetworkX.

gblas makes NetworkX's decisions (visiting order from the seed, neighbour communities in
adjacency order, the same floating-point gains), so the partitions are compared exactly,
on hypothesis-drawn graphs (undirected and directed, weighted, self loops, parallel
edges) and classic ones.  Independent of that equality, the result is checked to be a
partition of all vertices, its modularity (computed by ``nx.community.modularity``) to
be NetworkX's, and disjoint cliques to come out as the cliques.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.exceptions import DimensionMismatch, InvalidValue

nx = pytest.importorskip("networkx")
from helpers import nx_backend_mark, nx_cache_note_silenced  # noqa: E402

pytestmark = nx_backend_mark(nx)

WEIGHTS = [1, 2, 3, 0.5, 0.1, 0.2, 0.3, 4.5]


@pytest.fixture(autouse=True)
def _quiet_cache():
    with nx_cache_note_silenced(nx):
        yield


@st.composite
def graphs(draw, max_nodes: int = 24):
    """A NetworkX graph of any kind: directed or not, multigraph or not, some weights,
    self loops, labels in a shuffled order."""
    directed = draw(st.booleans())
    multi = draw(st.integers(0, 3)) == 0
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[(directed, multi)]
    n = draw(st.integers(1, max_nodes))
    G = cls()
    G.add_nodes_from(draw(st.permutations(range(n))))
    # a few dense groups joined by sparse edges: graphs with communities to find
    groups = draw(st.integers(1, 4))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=5 * n))
    for i, j in pairs:
        if i == j and draw(st.integers(0, 4)):
            continue
        if i % groups != j % groups and draw(st.booleans()):
            continue
        attrs = {} if draw(st.integers(0, 5)) == 0 else {"weight": draw(
            st.sampled_from(WEIGHTS))}
        G.add_edge(i, j, **attrs)
    return G


def _same_partition(G, **kw):
    got = nx.community.louvain_communities(G, backend="gblas", **kw)
    want = nx.community.louvain_communities(G, backend="networkx", **kw)
    return got, want


def _modularity(G, parts, weight):
    return nx.community.modularity(G, parts, weight=weight)


@settings(max_examples=40, deadline=None)
@given(G=graphs(), seed=st.integers(0, 50), weight=st.sampled_from([None, "weight"]),
       resolution=st.sampled_from([1, 0.5, 2.0]))
def test_networkx_partition_for_the_same_seed(G, seed, weight, resolution):
    got, want = _same_partition(G, seed=seed, weight=weight, resolution=resolution)
    assert nx.community.is_partition(G, got)
    assert got == want
    if G.number_of_edges() and resolution == 1:
        # independent of the equality: the partition is as good as NetworkX's
        assert _modularity(G, got, weight) >= _modularity(G, want, weight) - 1e-12


@settings(max_examples=15, deadline=None)
@given(G=graphs(), seed=st.integers(0, 50))
def test_partitions_per_level_and_max_level(G, seed):
    got = list(nx.community.louvain_partitions(G, seed=seed, backend="gblas"))
    want = list(nx.community.louvain_partitions(G, seed=seed, backend="networkx"))
    assert got == want
    for level in range(1, len(want) + 1):
        assert nx.community.louvain_communities(G, seed=seed, max_level=level,
                                                backend="gblas") == want[level - 1]


@pytest.mark.parametrize("make", [
    nx.karate_club_graph,
    nx.les_miserables_graph,
    lambda: nx.random_partition_graph([20, 30, 25, 15], 0.5, 0.03, seed=3),
    lambda: nx.random_partition_graph([20, 30, 25, 15], 0.4, 0.05, seed=4, directed=True),
    lambda: nx.gn_graph(200, seed=1234),
])
def test_classic_graphs(make):
    G = make()
    for seed in (0, 2, 123):
        for weight in (None, "weight"):
            got, want = _same_partition(G, seed=seed, weight=weight)
            assert got == want
            assert _modularity(G, got, weight) >= _modularity(G, want, weight) - 1e-12


def test_disjoint_cliques_are_the_communities():
    sizes = [3, 5, 4, 6, 7]
    G = nx.disjoint_union_all([nx.complete_graph(s) for s in sizes])
    cliques = sorted(map(sorted, nx.connected_components(G)))
    for seed in range(5):
        got = nx.community.louvain_communities(G, seed=seed, backend="gblas")
        assert sorted(map(sorted, got)) == cliques
        # the same through the Matrix API: one label per clique
        A = gb.Matrix.from_scipy(nx.to_scipy_sparse_array(G, nodelist=range(len(G))))
        labels = gb.algorithms.louvain(A, seed=seed).to_dense()
        start = np.cumsum([0] + sizes)
        for a, b in zip(start[:-1], start[1:]):
            assert len(set(labels[a:b].tolist())) == 1
        assert len(set(labels.tolist())) == len(sizes)


def _graph_of(rows, cols, vals, n, directed):
    """The NetworkX graph whose adjacency lists are the CSR rows (columns ascending)."""
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    keep = np.ones(rows.size, bool) if directed else rows <= cols
    G.add_weighted_edges_from(zip(rows[keep].tolist(), cols[keep].tolist(),
                                  vals[keep].tolist()))
    return G


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 99), directed=st.booleans(),
       density=st.sampled_from([0.05, 0.15, 0.3]), data=st.data())
def test_matrix_api_equals_networkx(n, seed, directed, density, data):
    rnd = np.random.default_rng(seed)
    S = (rnd.random((n, n)) < density) * rnd.choice([1.0, 2.0, 0.5], size=(n, n))
    if not directed:
        S = np.triu(S) + np.triu(S, 1).T
    A = gb.Matrix.from_scipy(sp.csr_array(S))
    rows, cols, vals = A.to_coo()
    G = _graph_of(np.asarray(rows), np.asarray(cols), np.asarray(vals, float), n, directed)
    resolution = data.draw(st.sampled_from([1.0, 0.8]))
    labels = gb.algorithms.louvain(A, resolution=resolution, seed=seed,
                                   directed=directed).to_dense()
    want = nx.community.louvain_communities(G, resolution=resolution, seed=seed,
                                            backend="networkx")
    got = [set(np.flatnonzero(labels == c).tolist()) for c in range(labels.max() + 1)]
    assert got == want


def test_matrix_api_options_and_errors():
    G = nx.karate_club_graph()
    A = gb.Matrix.from_scipy(nx.to_scipy_sparse_array(G, weight=None))
    one = gb.algorithms.louvain(A, max_level=1, seed=3).to_dense()
    full = gb.algorithms.louvain(A, seed=3).to_dense()
    assert one.max() >= full.max()  # the first level has at least as many communities
    rng = random.Random(3)
    assert gb.algorithms.louvain(A, seed=rng).isequal(gb.algorithms.louvain(A, seed=3))
    # a large threshold stops after the first level
    assert gb.algorithms.louvain(A, threshold=1.0, seed=3).isequal(
        gb.algorithms.louvain(A, max_level=1, seed=3))
    with pytest.raises(InvalidValue, match="max_level"):
        gb.algorithms.louvain(A, max_level=0)
    with pytest.raises(InvalidValue, match="seed"):
        gb.algorithms.louvain(A, seed="x")
    with pytest.raises(DimensionMismatch):
        gb.algorithms.louvain(gb.Matrix.from_coo([0], [1], shape=(2, 3)))
    empty = gb.Matrix.from_coo([], [], shape=(4, 4))
    assert gb.algorithms.louvain(empty).to_dense().tolist() == [0, 1, 2, 3]


def test_networkx_errors_and_empty_graphs():
    with pytest.raises(ValueError, match="max_level"):
        nx.community.louvain_communities(nx.path_graph(3), max_level=0, backend="gblas")
    G = nx.empty_graph(5)
    assert nx.community.louvain_communities(G, backend="gblas") == [{i} for i in range(5)]
