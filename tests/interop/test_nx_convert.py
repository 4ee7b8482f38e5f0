"""The conversion of NetworkX graphs to the ``gblas`` backend's GblasGraph.

Random graphs of the four NetworkX kinds (int, string, tuple and mixed node labels,
self loops, isolated nodes, parallel edges, a ``weight`` on some edges only, int or float
weights) are converted with :func:`gblas.nx.from_networkx` and checked against NetworkX
itself: the matrix against ``nx.to_scipy_sparse_array``, the coordinates against the
order of ``G.adj``, every aligned edge value against the edge's attribute dict.
"""

from __future__ import annotations

import functools
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from gblas.exceptions import InvalidValue  # noqa: E402
from gblas.nx import GblasGraph, from_networkx  # noqa: E402

KINDS = {"Graph": nx.Graph, "DiGraph": nx.DiGraph, "MultiGraph": nx.MultiGraph,
         "MultiDiGraph": nx.MultiDiGraph}
LABELS = {
    "range": lambda i: i,                      # 0..n-1: the labels are the ids
    "shifted": lambda i: i + 3,                # ints that are not the ids
    "scattered": lambda i: (-1) ** i * (i * 7919 % 101) - 50 * i,  # negative, unsorted ints
    "huge": lambda i: 2**70 + i if i % 2 else i,  # ints beyond int64: looked up by dict
    "bools": lambda i: bool(i) if i < 2 else i,  # True / False are not plain ints
    "str": lambda i: f"v{i}",
    "tuple": lambda i: (i % 3, f"{i}"),
    "mixed": lambda i: (i, "t") if i % 3 == 0 else (f"s{i}" if i % 3 == 1 else i * 10),
}


@st.composite
def graphs(draw):
    """A NetworkX graph, the nodes added in a drawn order, some edges weighted."""
    kind = draw(st.sampled_from(sorted(KINDS)))
    label = LABELS[draw(st.sampled_from(sorted(LABELS)))]
    n = draw(st.integers(0, 12))
    order = draw(st.permutations(range(n))) if draw(st.booleans()) else list(range(n))
    G = KINDS[kind]()
    G.add_nodes_from(label(i) for i in order)  # unused nodes stay isolated
    if n:
        weight = draw(st.sampled_from(["none", "some", "all"]))
        ints, floats = st.integers(-5, 9), st.floats(-4, 4, allow_nan=False)
        value = draw(st.sampled_from([ints, floats, st.one_of(floats, ints)]))
        edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                        value, st.booleans()), max_size=30))
        for i, j, w, has in edges:
            attrs = {}
            if weight == "all" or (weight == "some" and has):
                attrs["weight"] = w
            if has:
                attrs["other"] = 1.5  # an attribute the conversion is not asked for
            G.add_edge(label(i), label(j), **attrs)
    return G


def _entries(G):
    """The adjacency of ``G`` in NetworkX's order: ``(u, v, data)`` per entry."""
    if G.is_multigraph():
        return [(u, v, d) for u, nbrs in G.adj.items() for v, keyed in nbrs.items()
                for d in keyed.values()]
    return [(u, v, d) for u, nbrs in G.adj.items() for v, d in nbrs.items()]


@settings(max_examples=60)
@given(graphs())
def test_matrix_and_coordinates_match_networkx(G):
    nodes = list(G)
    H = from_networkx(G, edge_attrs={"weight": 1})
    assert H.nodes == nodes
    assert (H.is_directed(), H.is_multigraph()) == (G.is_directed(), G.is_multigraph())
    index = {v: i for i, v in enumerate(nodes)}
    entries = _entries(G)
    assert H.rows.tolist() == [index[u] for u, _, _ in entries]
    assert H.cols.tolist() == [index[v] for _, v, _ in entries]
    assert H.number_of_edges() == G.number_of_edges()

    want = [d.get("weight", 1) for *_, d in entries]
    got = H.weights("weight")
    assert got.tolist() == want
    all_int = all(type(x) is int for x in want)
    assert got.dtype == (np.int64 if all_int else np.float64)

    n = len(nodes)
    if n == 0:
        assert H.matrix("weight").shape == (0, 0)
        return
    for weight in ("weight", None):
        S = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, dtype=np.float64,
                                     format="csr")
        A = H.matrix(weight).to_scipy()
        assert A.shape == (n, n)
        # the same stored entries (NetworkX keeps a zero weight as an entry too)
        assert _stored(A) == _stored(S)
        if G.is_multigraph():  # parallel edges summed in another order
            np.testing.assert_allclose(A.toarray(), S.toarray(), rtol=1e-12, atol=1e-12)
        else:
            assert np.array_equal(A.toarray(), S.toarray())


def _stored(A) -> list:
    """The positions of a SciPy matrix's stored entries (zeros included), sorted."""
    a = A.tocoo()
    return sorted(zip(a.row.tolist(), a.col.tolist()))


@settings(max_examples=30)
@given(graphs())
def test_preserved_attributes_and_round_trip(G):
    H = from_networkx(G, preserve_edge_attrs=True)
    entries = _entries(G)
    if any("weight" in d for *_, d in entries):
        assert H.weights("weight").tolist() == [d.get("weight", 1) for *_, d in entries]
    else:
        assert H.weights("weight").tolist() == [1] * len(entries)  # NetworkX's default
    back = H.to_networkx()
    assert list(back) == list(G)
    assert sorted(map(repr, back.edges(data=True))) == sorted(map(repr, G.edges(data=True)))


@settings(max_examples=20)
@given(graphs())
def test_pagerank_through_the_dispatcher(G):
    if "gblas" not in nx.utils.backends.backends:
        pytest.skip("the gblas NetworkX backend is not installed (pip install -e .)")
    if len(G) == 0 or any(d.get("weight", 1) < 0 for *_, d in _entries(G)):
        return  # NetworkX's pagerank needs non-negative weights
    try:
        want = nx.pagerank(G, backend="networkx")
    except (nx.PowerIterationFailedConvergence, ZeroDivisionError):
        return  # covered by test_nx_backend: the backends fail alike
    got = nx.pagerank(G, backend="gblas")
    assert got.keys() == want.keys()
    np.testing.assert_allclose([got[v] for v in G], [want[v] for v in G], rtol=1e-9,
                               atol=1e-12)


def test_undirected_values_read_once_and_mirrored():
    G = nx.Graph()
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("c", "a", weight=-1)
    G.add_edge("b", "b", weight=4)  # a self loop: one entry
    G.add_node("iso")
    H = from_networkx(G, edge_attrs={"weight": 1})
    assert H.weights("weight").tolist() == [2.5, -1.0, 2.5, 4.0, -1.0]
    A = H.matrix("weight").to_scipy().toarray()
    S = nx.to_scipy_sparse_array(G, nodelist=list(G), dtype=np.float64).toarray()
    assert np.array_equal(A, S)


def test_edges_without_attributes_weigh_one():
    G = nx.path_graph(["x", "y", "z"])
    H = from_networkx(G, edge_attrs={"weight": None, "cost": 7})
    assert H.weights("weight").tolist() == [1, 1, 1, 1]
    assert H.weights("cost").tolist() == [7, 7, 7, 7]
    assert H.weights("weight").dtype == np.int64


def test_attribute_dicts_of_a_custom_factory_are_not_changed():
    class Counting(nx.Graph):
        edge_attr_dict_factory = functools.partial(defaultdict, float)

    G = Counting()
    G.add_edge(0, 1, weight=3.0)
    G.add_edge(1, 2)
    H = from_networkx(G, edge_attrs={"weight": 1})
    assert H.weights("weight").tolist() == [3.0, 3.0, 1.0, 1.0]
    assert dict(G.edges[1, 2]) == {}  # reading the weight added no key


def test_non_numeric_attribute():
    G = nx.DiGraph([(0, 1, {"weight": "heavy", "w": 2})])
    with pytest.raises(TypeError, match="not numbers"):
        from_networkx(G, edge_attrs={"weight": 1})
    # the first value a float, a later one not a number
    F = nx.Graph([(0, 1, {"weight": 0.5}), (1, 2, {"weight": "heavy"})])
    with pytest.raises(TypeError, match="not numbers"):
        from_networkx(F, edge_attrs={"weight": 1})
    H = from_networkx(G, preserve_edge_attrs=True)  # kept whole, not as a column
    assert "weight" not in H.edge_values and H.weights("w").tolist() == [2]


def test_upper_values_checks():
    with pytest.raises(InvalidValue, match="upper_values"):
        GblasGraph([0, 1], [0], [1], directed=True, upper_values={"w": np.ones(1)})
    with pytest.raises(InvalidValue, match="2 values of 'w'"):
        GblasGraph([0, 1, 2], [0, 1], [1, 2], directed=False,
                   upper_values={"w": np.ones(3)})
    # (2, 1) has no (1, 2) to take its value from
    H = GblasGraph([0, 1, 2], [0, 0, 2], [1, 2, 1], directed=False,
                   upper_values={"w": np.array([1.0, 2.0])})
    with pytest.raises(InvalidValue, match="without"):
        H.weights("w")
    H = GblasGraph([0, 1], [1], [0], directed=False, upper_values={"w": np.ones(0)})
    with pytest.raises(InvalidValue, match="without"):
        H.weights("w")
    H = GblasGraph([0, 1, 2], [0, 1, 1, 2], [1, 0, 2, 1], directed=False,
                   upper_values={"w": np.array([1.0, 2.0])})
    assert H.weights("w").tolist() == [1.0, 1.0, 2.0, 2.0]


@pytest.mark.parametrize("scrambled", [False, True])
def test_undirected_weights_read_once_in_either_neighbour_order(scrambled):
    """An undirected graph's weights are read at one entry per edge: the tail of each
    row when neighbours come in increasing order, a per-entry selection otherwise; the
    matrix equals NetworkX's either way (and is marked symmetric)."""
    import networkx as nx

    from gblas.nx import from_networkx

    rng = np.random.default_rng(3)
    n = 60
    pairs = {(int(min(u, v)), int(max(u, v))) for u, v in rng.integers(0, n, (300, 2))}
    edges = sorted(pairs)
    if scrambled:
        edges = [edges[k] for k in rng.permutation(len(edges))]
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((u, v, float(rng.uniform(1, 9))) for u, v in edges)
    A = from_networkx(G, edge_attrs={"weight": 1}).matrix("weight")
    want = nx.to_scipy_sparse_array(G, nodelist=range(n), weight="weight").toarray()
    np.testing.assert_array_equal(A.to_scipy().toarray(), want)
    assert A.known_symmetric
