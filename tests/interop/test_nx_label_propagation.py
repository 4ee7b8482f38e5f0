"""``label_propagation_communities`` through the gblas backend: NetworkX's communities,
in NetworkX's order, on random graphs of every kind the function accepts."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def _networkx(G):
    return list(nx.community.label_propagation_communities(G, backend="networkx"))


def _gblas(G):
    return list(nx.community.label_propagation_communities(G, backend="gblas"))


@settings(max_examples=120, deadline=None)
@given(n=st.integers(1, 40), edges=st.integers(0, 120), loops=st.booleans(),
       multi=st.booleans(), strings=st.booleans(), seed=st.integers(0, 2**31))
def test_same_communities_as_networkx(n, edges, loops, multi, strings, seed):
    rng = np.random.default_rng(seed)
    G = nx.MultiGraph() if multi else nx.Graph()
    nodes = [f"v{i}" for i in rng.permutation(n)] if strings else rng.permutation(n).tolist()
    G.add_nodes_from(nodes)
    for a, b in rng.integers(0, n, (edges, 2)):
        if a != b or loops:
            G.add_edge(nodes[a], nodes[b])
    assert _gblas(G) == _networkx(G)


@pytest.mark.parametrize("make", [nx.karate_club_graph, lambda: nx.barbell_graph(6, 2),
                                  lambda: nx.les_miserables_graph(),
                                  lambda: nx.gnm_random_graph(300, 1200, seed=4)])
def test_named_graphs(make):
    G = make()
    assert _gblas(G) == _networkx(G)


def test_directed_graphs_are_refused():
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.community.label_propagation_communities(nx.DiGraph([(0, 1)]), backend="gblas")
