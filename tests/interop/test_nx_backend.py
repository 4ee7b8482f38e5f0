"""The NetworkX backend ``gblas``: every function against NetworkX's own result.

Each function runs through NetworkX's dispatcher (``backend="gblas"``, the installed entry
points) on small graphs of every kind (undirected/directed, multigraph, weighted, string
and tuple labels, isolated vertices, self loops) and is compared with
``backend="networkx"``: exactly for integers, sets and dict keys, to 1e-12 for floats.
"""

from __future__ import annotations

import math
import random
import re
import subprocess
import sys

import pytest

nx = pytest.importorskip("networkx")
from helpers import nx_backend_mark  # noqa: E402

from gblas.nx import FUNCTIONS, GblasGraph, from_networkx  # noqa: E402
from gblas.nx.interface import EXPECTED_FAILURES, BackendInterface  # noqa: E402

pytestmark = nx_backend_mark(nx)


@pytest.fixture(autouse=True)
def _nx_config():
    """Silence the cache note and restore NetworkX's configuration after each test."""
    saved = (list(nx.config.backend_priority.algos), nx.config.fallback_to_nx,
             set(nx.config.warnings_to_ignore), nx.config.backends.gblas.device)
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.backend_priority.algos = saved[0]
    nx.config.fallback_to_nx = saved[1]
    nx.config.warnings_to_ignore = saved[2]
    nx.config.backends.gblas.device = saved[3]


# ------------------------------------------------------------------------------ graphs
def _weighted(G, seed, integer):
    rnd = random.Random(seed)
    for *_, d in G.edges(data=True):
        d["weight"] = rnd.randint(1, 9) if integer else rnd.uniform(0.1, 5.0)
    return G


def _undirected_graphs():
    out = {"karate": nx.karate_club_graph()}  # has "weight" attributes (ints)
    out["path_str"] = nx.relabel_nodes(nx.path_graph(7), {i: f"v{i}" for i in range(7)})
    out["grid_tuples"] = nx.grid_2d_graph(4, 5)
    G = nx.gnp_random_graph(40, 0.08, seed=3)
    G.add_nodes_from(["iso1", ("iso", 2)])  # isolated vertices, mixed labels
    out["gnp_isolated"] = _weighted(G, 1, integer=False)
    G = nx.connected_caveman_graph(4, 5)
    out["caveman_int_w"] = _weighted(G, 2, integer=True)
    G = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (4, 5)])  # self loop
    out["loop"] = G
    out["empty_edges"] = nx.empty_graph(4)
    return out


def _directed_graphs():
    out = {"gnp_dir": _weighted(nx.gnp_random_graph(35, 0.07, seed=5, directed=True), 3,
                                integer=False)}
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"),
                    ("e", "d"), ("f", "a")])
    G.add_node("g")
    out["dir_str"] = G
    G = nx.DiGraph()
    G.add_edges_from(((i, 0), (j, 1)) for i, j in [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)])
    out["dir_tuples"] = _weighted(G, 4, integer=True)
    out["scale_free"] = nx.DiGraph(nx.scale_free_graph(50, seed=7))
    return out


UNDIRECTED = _undirected_graphs()
DIRECTED = _directed_graphs()
ALL = {**UNDIRECTED, **DIRECTED}


def _multi():
    M = nx.MultiDiGraph()
    M.add_edge(0, 1, weight=2.0)
    M.add_edge(0, 1, weight=0.5)  # parallel edges: summed (pagerank), min (Dijkstra)
    M.add_edge(1, 2, weight=1.0)
    M.add_edge(2, 0, weight=3.0)
    M.add_edge(2, 3)
    return M


def _close(a, b, tol=1e-12):
    assert a.keys() == b.keys()
    for k in a:
        assert math.isclose(a[k], b[k], rel_tol=tol, abs_tol=tol), (k, a[k], b[k])


def _both(func, *args, **kwargs):
    return func(*args, backend="gblas", **kwargs), func(*args, backend="networkx", **kwargs)


def _first(G):
    return next(iter(G))


# ------------------------------------------------------------------------ registration
def test_entry_points_and_config():
    assert "gblas" in nx.utils.backends.backends
    info = nx.utils.backends.backend_info["gblas"]
    assert set(info["functions"]) == set(FUNCTIONS)
    assert "asyn_lpa_communities" not in info["functions"]
    assert nx.config.backends.gblas.device == "cpu"
    assert "gblas" in nx.pagerank.backends
    assert "gblas" in nx.pagerank.__doc__  # the Backends section of the docstring


def test_import_gblas_does_not_import_networkx():
    code = "import sys, gblas; print('networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- pagerank
@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("kw", [{}, {"alpha": 0.9, "weight": None}, {"tol": 1e-10},
                                {"personalization": "first"}])
def test_pagerank(name, kw):
    G = ALL[name]
    kw = dict(kw)
    if kw.get("personalization") == "first":
        nodes = list(G)
        kw["personalization"] = {nodes[0]: 1.0, nodes[-1]: 3.0}
    try:
        want = nx.pagerank(G, backend="networkx", **kw)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(nx.PowerIterationFailedConvergence):
            nx.pagerank(G, backend="gblas", **kw)
        return
    got = nx.pagerank(G, backend="gblas", **kw)
    _close(got, want)
    assert all(type(x) is float for x in got.values())


def test_pagerank_multigraph_and_empty():
    got, want = _both(nx.pagerank, _multi())
    _close(got, want)
    assert nx.pagerank(nx.DiGraph(), backend="gblas") == {}


def test_pagerank_errors_match():
    G = UNDIRECTED["karate"]
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=1, backend="gblas")
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={"absent": 1}, backend="gblas")


# -------------------------------------------------------------------------- traversal
@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("cutoff", [None, 2, 0])
def test_shortest_path_lengths(name, cutoff):
    G = ALL[name]
    for source in list(G)[:3]:
        got, want = _both(nx.single_source_shortest_path_length, G, source, cutoff=cutoff)
        assert got == want
        assert all(type(x) is int for x in got.values())
        got, want = _both(nx.single_target_shortest_path_length, G, source, cutoff=cutoff)
        assert got == want


@pytest.mark.parametrize("name", sorted(ALL))
def test_descendants_at_distance(name):
    G = ALL[name]
    s = _first(G)
    for distance in range(-1, 5):
        got, want = _both(nx.descendants_at_distance, G, s, distance)
        assert got == want


def test_traversal_missing_source():
    G = UNDIRECTED["path_str"]
    with pytest.raises(nx.NodeNotFound, match="Source x is not in G"):
        nx.single_source_shortest_path_length(G, "x", backend="gblas")
    with pytest.raises(nx.NetworkXError):
        nx.descendants_at_distance(G, "x", 1, backend="gblas")
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(G, "x", backend="gblas")


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("kw", [{}, {"weight": None}, {"cutoff": 4}])
def test_dijkstra_lengths(name, kw):
    G = ALL[name]
    for source in list(G)[:3]:
        got, want = _both(nx.single_source_dijkstra_path_length, G, source, **kw)
        assert got.keys() == want.keys()
        _close(got, want)
        for k in got:  # integer weights give integer lengths, as in NetworkX
            assert type(got[k]) is type(want[k]), (k, got[k], want[k])


def test_dijkstra_multigraph_and_negative():
    got, want = _both(nx.single_source_dijkstra_path_length, _multi(), 0)
    assert got == want == {0: 0, 1: 0.5, 2: 1.5, 3: 2.5}
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, -1.0)])
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(G, 0, backend="gblas")


# ------------------------------------------------------------------------- components
@pytest.mark.parametrize("name", sorted(UNDIRECTED))
def test_connected_components(name):
    G = UNDIRECTED[name]
    got, want = _both(nx.connected_components, G)
    assert list(got) == list(want)  # same sets, in NetworkX's order
    got, want = _both(nx.number_connected_components, G)
    assert got == want
    assert _both(nx.is_connected, G)[0] == _both(nx.is_connected, G)[1]
    s = _first(G)
    got, want = _both(nx.node_connected_component, G, s)
    assert got == want


@pytest.mark.parametrize("name", sorted(DIRECTED))
def test_directed_components(name):
    G = DIRECTED[name]
    got, want = _both(nx.strongly_connected_components, G)
    got = list(got)
    assert {frozenset(c) for c in got} == {frozenset(c) for c in want}
    # reverse topological order, as NetworkX's: an edge never leads to a later component
    where = {v: i for i, c in enumerate(got) for v in c}
    assert all(where[u] >= where[v] for u, v in G.edges)
    for func in (nx.number_strongly_connected_components, nx.is_strongly_connected,
                 nx.number_weakly_connected_components, nx.is_weakly_connected):
        got, want = _both(func, G)
        assert got == want, func.__name__
    got, want = _both(nx.weakly_connected_components, G)
    assert list(got) == list(want)


def test_components_null_graph_and_direction_checks():
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_connected(nx.Graph(), backend="gblas")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_strongly_connected(nx.DiGraph(), backend="gblas")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.connected_components(nx.DiGraph([(0, 1)]), backend="gblas")
    assert list(nx.connected_components(nx.Graph(), backend="gblas")) == []


# ---------------------------------------------------------------- triangles, clustering
@pytest.mark.parametrize("name", sorted(UNDIRECTED))
def test_triangles_and_clustering(name):
    G = UNDIRECTED[name]
    nodes = list(G)
    for func in (nx.triangles, nx.clustering):
        assert _both(func, G)[0] == _both(func, G)[1]
        got, want = _both(func, G, nodes[::2])
        assert got == want
        got, want = _both(func, G, nodes[0])
        assert got == want and type(got) is type(want)
    got, want = _both(nx.transitivity, G)
    assert got == want
    got, want = _both(nx.average_clustering, G)
    assert math.isclose(got, want, rel_tol=1e-12)
    if any(nx.clustering(G).values()):
        got, want = _both(nx.average_clustering, G, count_zeros=False)
        assert math.isclose(got, want, rel_tol=1e-12)


def test_triangles_multigraph():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (2, 2)])
    assert nx.triangles(M, backend="gblas") == nx.triangles(M) == {0: 1, 1: 1, 2: 1}


# ------------------------------------------------------------------------ core number
@pytest.mark.parametrize("name", sorted(n for n in ALL if n != "loop"))
def test_core_number(name):
    G = ALL[name]
    if nx.number_of_selfloops(G):
        G = G.copy()
        G.remove_edges_from(list(nx.selfloop_edges(G)))
    got, want = _both(nx.core_number, G)
    assert got == want


def test_core_number_self_loops_refused():
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(UNDIRECTED["loop"], backend="gblas")


# ------------------------------------------------------------------------ betweenness
@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness(name, normalized):
    G = ALL[name]
    got, want = _both(nx.betweenness_centrality, G, normalized=normalized)
    _close(got, want, tol=1e-10)


@pytest.mark.parametrize("name", ["karate", "gnp_dir", "grid_tuples"])
@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_sampled_sources_match(name, normalized):
    G = ALL[name]
    for seed in (0, 42):
        got, want = _both(nx.betweenness_centrality, G, k=5, seed=seed,
                          normalized=normalized)
        _close(got, want, tol=1e-10)


# ------------------------------------------------------------- declining and dispatch
@pytest.mark.parametrize("name, kwargs", [
    ("pagerank", {"nstart": {0: 1.0}}),
    ("pagerank", {"dangling": {0: 1.0}}),
    ("betweenness_centrality", {"weight": lambda u, v, d: 1}),
    ("single_source_dijkstra_path_length", {"source": 0, "weight": lambda u, v, d: 1}),
    ("clustering", {"weight": "weight"}),
])
def test_can_run_declines(name, kwargs):
    G = nx.path_graph(4)
    reason = BackendInterface.can_run(name, (G,), kwargs)
    assert isinstance(reason, str) and reason
    func = getattr(nx, name)
    with pytest.raises(NotImplementedError):
        func(G, backend="gblas", **kwargs)
    # with gblas first in the priority list and the fallback on, NetworkX runs it
    nx.config.backend_priority.algos = ["gblas"]
    nx.config.fallback_to_nx = True
    assert func(G, **kwargs) == func(G, backend="networkx", **kwargs)


def test_can_run_declines_directed_clustering():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    assert isinstance(BackendInterface.can_run("clustering", (D,), {}), str)
    assert isinstance(BackendInterface.can_run("transitivity", (D,), {}), str)
    assert BackendInterface.can_run("clustering", (nx.Graph(D),), {}) is True
    assert isinstance(BackendInterface.can_run("label_propagation_communities", (D,), {}),
                      str)


def test_priority_dispatch_and_cache():
    G = nx.karate_club_graph()
    nx.config.backend_priority.algos = ["gblas"]
    r = nx.pagerank(G)
    _close(r, nx.pagerank(G, backend="networkx"))
    cache = G.__networkx_cache__["backends"]["gblas"]
    assert len(cache) == 1
    (H,) = cache.values()
    assert isinstance(H, GblasGraph)
    nx.pagerank(G, alpha=0.8)  # the cached conversion is used again
    nx.betweenness_centrality(G)  # a graph with more attributes serves fewer
    assert list(cache.values()) == [H]
    G.add_edge(0, 33, weight=5)  # a mutation clears the cache
    assert not G.__networkx_cache__.get("backends", {}).get("gblas")


def test_backend_graph_input_and_round_trip():
    G = DIRECTED["dir_tuples"]
    H = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert H.__networkx_backend__ == "gblas" and H.nodes == list(G)
    # a GblasGraph input dispatches to gblas without any configuration
    _close(nx.pagerank(H), nx.pagerank(G, backend="networkx"))
    assert nx.single_source_dijkstra_path_length(H, (0, 0)) == \
        nx.single_source_dijkstra_path_length(G, (0, 0), backend="networkx")
    back = BackendInterface.convert_to_nx(H)
    assert nx.utils.graphs_equal(back, G)
    M = _multi()
    back = from_networkx(M, preserve_edge_attrs=True).to_networkx()
    assert back.number_of_edges() == M.number_of_edges() == 5
    U = UNDIRECTED["loop"]
    assert nx.utils.edges_equal(from_networkx(U).to_networkx().edges, U.edges)


def test_direct_calls_accept_networkx_graphs():
    G = UNDIRECTED["karate"]
    _close(BackendInterface.pagerank(G), nx.pagerank(G, backend="networkx"))
    got = BackendInterface.betweenness_centrality(G, k=4, seed=1)
    _close(got, nx.betweenness_centrality(G, k=4, seed=1, backend="networkx"), tol=1e-10)


def test_device_option():
    nx.config.backends.gblas.device = "tpu"
    with pytest.raises(ValueError, match="device"):
        nx.pagerank(nx.path_graph(3), backend="gblas")


@pytest.mark.gpu
def test_device_gpu(device):
    if device != "gpu":
        pytest.skip("GPU case only")
    nx.config.backends.gblas.device = "gpu"
    G = UNDIRECTED["karate"]
    G = G.copy()  # fresh cache: the matrices are built on the GPU
    _close(nx.pagerank(G, backend="gblas"), nx.pagerank(G, backend="networkx"))
    assert list(nx.connected_components(G, backend="gblas")) == \
        list(nx.connected_components(G, backend="networkx"))


# ------------------------------------------------------- NetworkX's own tests, dispatched
NX_TEST_MODULES = [
    # the NetworkX test modules of every function the backend implements (the make
    # target test-networkx runs the same list)
    "networkx.algorithms.link_analysis.tests",
    "networkx.algorithms.centrality.tests.test_eigenvector_centrality",
    "networkx.algorithms.centrality.tests.test_katz_centrality",
    "networkx.algorithms.centrality.tests.test_degree_centrality",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.community.tests.test_louvain",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.shortest_paths.tests",
    "networkx.algorithms.components.tests",
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.tests.test_dag",
    "networkx.algorithms.tests.test_reciprocity",
    "networkx.algorithms.tests.test_isolate",
    "networkx.algorithms.tests.test_regular",
    "networkx.algorithms.assortativity.tests.test_neighbor_degree",
    "networkx.algorithms.tree.tests.test_recognition",
    "networkx.classes.tests.test_function",
]


def test_networkx_test_suite_with_backend(tmp_path):
    """NetworkX's tests of the covered functions, every dispatchable call converted to
    gblas (declined calls fall back to NetworkX): a few seconds."""
    import os

    env = dict(os.environ, NETWORKX_TEST_BACKEND="gblas", NETWORKX_FALLBACK_TO_NX="True")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
           "--pyargs", *NX_TEST_MODULES]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    # the expected failures declared in on_start_tests, and nothing else
    assert not re.search(r"\b\d+ failed", out.stdout.splitlines()[-1])
    assert f"{len(EXPECTED_FAILURES)} xfailed" in out.stdout.splitlines()[-1]
