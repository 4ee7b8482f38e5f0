"""Weighted betweenness, the endpoint variant and edge betweenness of the NetworkX backend
against NetworkX itself (``backend="networkx"``) on hypothesis-drawn graphs: directed and
undirected, weights with many ties (and sums such as 0.1 + 0.2 that differ from 0.3 in
floating point, which NetworkX compares exactly), sampled sources with seeds,
``normalized`` both ways."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")
from helpers import nx_backend_mark, nx_cache_note_silenced  # noqa: E402

from gblas.backends.cpu.brandes import brandes  # noqa: E402
from gblas.nx.interface import BackendInterface  # noqa: E402

pytestmark = nx_backend_mark(nx)

WEIGHTS = [1, 2, 3, 0.1, 0.2, 0.3, 0.5, 1.5]


@pytest.fixture(autouse=True)
def _quiet_cache():
    with nx_cache_note_silenced(nx):
        yield


@st.composite
def weighted_graphs(draw, max_nodes: int = 14):
    """A graph (directed or not) with integer or string labels and weights from
    :data:`WEIGHTS` (an edge without one weighs 1, NetworkX's default)."""
    directed = draw(st.booleans())
    n = draw(st.integers(1, max_nodes))
    G = nx.DiGraph() if directed else nx.Graph()
    labels = draw(st.sampled_from(["int", "str"]))
    names = list(range(n)) if labels == "int" else [f"v{i}" for i in range(n)]
    order = draw(st.permutations(names))
    G.add_nodes_from(order)
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=4 * n))
    for i, j in pairs:
        if i == j and not draw(st.booleans()):
            continue
        attrs = {} if draw(st.integers(0, 9)) == 0 else {"weight": draw(
            st.sampled_from(WEIGHTS))}
        G.add_edge(names[i], names[j], **attrs)
    return G


def _close(got: dict, want: dict, tol: float = 1e-9) -> None:
    assert list(got) == list(want)
    for key, w in want.items():
        g = got[key]
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g), key
        else:
            assert g == pytest.approx(w, rel=tol, abs=tol), key


def _sampling(draw, G):
    k = draw(st.one_of(st.none(), st.integers(1, len(G))))
    seed = draw(st.integers(0, 10)) if k is not None else None
    return k, seed


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_betweenness_weighted_and_endpoints(data):
    G = data.draw(weighted_graphs())
    weight = data.draw(st.sampled_from([None, "weight"]))
    endpoints = data.draw(st.booleans())
    normalized = data.draw(st.booleans())
    k, seed = _sampling(data.draw, G)
    kw = dict(k=k, seed=seed, weight=weight, endpoints=endpoints, normalized=normalized)
    _close(nx.betweenness_centrality(G, backend="gblas", **kw),
           nx.betweenness_centrality(G, backend="networkx", **kw))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_edge_betweenness(data):
    G = data.draw(weighted_graphs())
    weight = data.draw(st.sampled_from([None, "weight"]))
    normalized = data.draw(st.booleans())
    k, seed = _sampling(data.draw, G)
    kw = dict(k=k, seed=seed, weight=weight, normalized=normalized)
    _close(nx.edge_betweenness_centrality(G, backend="gblas", **kw),
           nx.edge_betweenness_centrality(G, backend="networkx", **kw))


def test_classic_graphs():
    G = nx.karate_club_graph()  # integer weights
    for kw in ({"weight": "weight"}, {"endpoints": True}, {"weight": "weight", "k": 10,
                                                           "seed": 1}):
        _close(nx.betweenness_centrality(G, backend="gblas", **kw),
               nx.betweenness_centrality(G, backend="networkx", **kw))
    _close(nx.edge_betweenness_centrality(G, weight="weight", backend="gblas"),
           nx.edge_betweenness_centrality(G, weight="weight", backend="networkx"))
    D = nx.gn_graph(60, seed=3)
    _close(nx.edge_betweenness_centrality(D, k=20, seed=5, backend="gblas"),
           nx.edge_betweenness_centrality(D, k=20, seed=5, backend="networkx"))


def test_float_path_lengths_compared_exactly():
    # 0 -> 1 -> 3 has length 0.1 + 0.2 = 0.30000000000000004, 0 -> 2 -> 3 has 0.3:
    # NetworkX counts one shortest path, not two
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 0.1), (1, 3, 0.2), (0, 2, 0.15), (2, 3, 0.15)])
    got = nx.betweenness_centrality(G, weight="weight", normalized=False, backend="gblas")
    assert got == nx.betweenness_centrality(G, weight="weight", normalized=False,
                                            backend="networkx")
    assert got[1] != got[2]


def test_multigraph_weighted_betweenness_takes_the_lightest_parallel_edge():
    M = nx.MultiGraph([(0, 1, {"weight": 3}), (0, 1, {"weight": 1}), (1, 2, {"weight": 1}),
                       (0, 2, {"weight": 2.5}), (2, 3, {})])
    _close(nx.betweenness_centrality(M, weight="weight", backend="gblas"),
           nx.betweenness_centrality(M, weight="weight", backend="networkx"))


def test_declined_and_fallback():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    reason = BackendInterface.can_run("edge_betweenness_centrality", (M,), {})
    assert isinstance(reason, str) and "multigraph" in reason
    with pytest.raises(NotImplementedError):
        nx.edge_betweenness_centrality(M, backend="gblas")
    assert BackendInterface.can_run("betweenness_centrality", (M,),
                                    {"weight": "weight", "endpoints": True}) is True
    # NaN weights: the backend gives the call back (NetworkX's heap order is undefined)
    G = nx.Graph([(0, 1, {"weight": float("nan")}), (1, 2, {"weight": 1.0})])
    with pytest.raises(NotImplementedError) as info:
        nx.betweenness_centrality(G, weight="weight", backend="gblas")
    assert "NaN" in str(info.value.__cause__)


def test_empty_and_tiny_graphs():
    for G in (nx.Graph(), nx.empty_graph(1), nx.empty_graph(2), nx.DiGraph([(0, 1)])):
        for kw in ({"weight": "weight"}, {"endpoints": True}):
            assert nx.betweenness_centrality(G, backend="gblas", **kw) == \
                nx.betweenness_centrality(G, backend="networkx", **kw)
        assert nx.edge_betweenness_centrality(G, backend="gblas") == \
            nx.edge_betweenness_centrality(G, backend="networkx")
    G = nx.path_graph(4)
    with pytest.raises(ZeroDivisionError):
        nx.edge_betweenness_centrality(G, k=0, backend="gblas")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_kernel_threads_agree(threads):
    # the sums over chunks of sources do not depend on the split (up to rounding)
    G = nx.gnp_random_graph(50, 0.1, seed=7, directed=True)
    indptr = np.r_[0, np.cumsum([len(G[v]) for v in G])]
    indices = np.array([w for v in G for w in G[v]], dtype=np.int64)
    w = np.linspace(0.5, 2.0, indices.size)
    one = brandes(indptr, indices, w, np.arange(50), edges=True, threads=1)
    got = brandes(indptr, indices, w, np.arange(50), edges=True, threads=threads)
    np.testing.assert_allclose(got[0], one[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], one[1], rtol=1e-12)
