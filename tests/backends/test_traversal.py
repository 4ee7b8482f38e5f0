"""The fused BFS on the CPU (the whole search in compiled code, push or pull per level)
against the loop of planned products and SciPy: the same levels, the same parents."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from graph_cases import bfs_graphs, uniform_digraph
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.cli import scipy_bfs_levels
from gblas.io import generators

_GRAPHS = bfs_graphs()


def _loop(A, s, parents):
    with gb.config(direction=None, format="csr"):  # a pinned format keeps the loop
        assert gb.explain(gb.algorithms.bfs, A, s).kernel == ""
        return gb.algorithms.bfs(A, s, parents=parents)


@pytest.mark.parametrize("name,S", _GRAPHS, ids=[g[0] for g in _GRAPHS])
@pytest.mark.parametrize("with_transpose", [False, True])
def test_fused_matches_loop_and_scipy(name, S, with_transpose):
    A = gb.Matrix.from_scipy(S)
    B = gb.Matrix.from_scipy(S)  # the loop's own Matrix (it may build the transpose)
    if with_transpose:
        A.csr(transposed=True)  # built: the fused kernel may pull
    n = S.shape[0]
    for s in sorted({0, n // 3, n - 1}):
        plan = gb.explain(gb.algorithms.bfs, A, s, parents=True)
        assert plan.kernel == "bfs/csr/cpu/levels"
        assert plan.details["pull"] == with_transpose
        levels, parents = gb.algorithms.bfs(A, s, parents=True)
        want_l, want_p = _loop(B, s, True)
        np.testing.assert_array_equal(levels.to_dense(fill=-1), want_l.to_dense(fill=-1))
        np.testing.assert_array_equal(levels.to_dense(fill=-1), scipy_bfs_levels(S, s))
        np.testing.assert_array_equal(parents.to_dense(fill=-1), want_p.to_dense(fill=-1))
        assert levels.dtype == np.int64 and parents.dtype == np.int64


def test_pull_levels_run_on_a_power_law_graph():
    from gblas.backends.cpu.traversal import bfs_levels

    A = generators.kronecker(12, 16, seed=1)
    S = A.to_scipy()
    src = int(np.argmax(np.diff(S.indptr)))
    level, _, stats = bfs_levels(A.csr(), lambda: A.csr(transposed=True), src, False)
    assert stats["pull"] > 0 and stats["push"] > 0
    np.testing.assert_array_equal(level, scipy_bfs_levels(S, src))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 80), st.integers(0, 900), st.integers(0, 2**32 - 1))
def test_levels_only_search_stores_through_a_select_on_sparse_graphs(n, m, seed):
    """Push-only levels without parents: the select store on graphs of few entries per
    vertex, the branch on denser ones; both give SciPy's levels."""
    from gblas.backends.cpu.traversal import SELECT_MAX_DEGREE, bfs_levels

    rng = np.random.default_rng(seed)
    S = uniform_digraph(rng, n, m)
    A = gb.Matrix.from_scipy(S)
    s = int(rng.integers(0, n))
    level, parent, stats = bfs_levels(A.csr(), None, s, False)
    assert parent is None
    assert (stats.get("store") == "select") == (S.nnz <= SELECT_MAX_DEGREE * n)
    want = scipy_bfs_levels(S, s)
    np.testing.assert_array_equal(level, want)
    assert stats["levels"] == want.max()
    np.testing.assert_array_equal(gb.algorithms.bfs(A, s).to_dense(fill=-1), want)


def _random_search(seed: int, n: int, m: int, transpose: bool):
    """A uniform random digraph of ``n`` vertices and ``m`` edges (SciPy, Matrix), its
    transpose's getter (None unless ``transpose``) and a random source."""
    rng = np.random.default_rng(seed)
    S = uniform_digraph(rng, n, m)
    A = gb.Matrix.from_scipy(S)
    get_AT = (lambda: A.csr(transposed=True)) if transpose else None
    return S, A, get_AT, int(rng.integers(0, n))


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 120), st.integers(0, 2000), st.integers(0, 2**32 - 1), st.booleans(),
       st.booleans())
def test_parallel_push_levels(n, m, seed, transpose, parents):
    """Push levels on several threads (every level with an out-edge, the threshold
    lowered), between pull levels where the transpose is built: SciPy's levels, and with
    parents each vertex's least in-neighbour on the previous level, as the products give."""
    from gblas.backends.cpu import traversal
    from gblas.backends.cpu.blocks import num_threads

    S, A, get_AT, s = _random_search(seed, n, m, transpose)
    level, parent, stats = traversal.bfs_levels(A.csr(), get_AT, s, parents,
                                                parallel_edges=1)
    want = scipy_bfs_levels(S, s)
    np.testing.assert_array_equal(level, want)
    assert stats["levels"] == want.max()
    if parents:
        want_l, want_p = _loop(gb.Matrix.from_scipy(S), s, True)
        np.testing.assert_array_equal(level, want_l.to_dense(fill=-1))
        np.testing.assert_array_equal(parent, want_p.to_dense(fill=-1))
    # a second level with out-edges runs on threads, unless the search stores through
    # a select (sparse graphs, no pull, no parents: sequential) or pulls
    if (num_threads() > 1 and want.max() >= 2 and stats.get("store") != "select"
            and stats["pull"] == 0):
        assert stats.get("parallel", 0) >= 1


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(0, 300), st.integers(0, 2**32 - 1), st.booleans())
def test_random_graphs(n, m, seed, transpose):
    rng = np.random.default_rng(seed)
    S = uniform_digraph(rng, n, m)
    A = gb.Matrix.from_scipy(S)
    if transpose:
        A.csr(transposed=True)
    s = int(rng.integers(0, n))
    levels, parents = gb.algorithms.bfs(A, s, parents=True)
    want_l, want_p = _loop(gb.Matrix.from_scipy(S), s, True)
    np.testing.assert_array_equal(levels.to_dense(fill=-1), want_l.to_dense(fill=-1))
    np.testing.assert_array_equal(parents.to_dense(fill=-1), want_p.to_dense(fill=-1))


def test_transposed_view_pulls_from_its_parent():
    S = generators.kronecker(9, 8, seed=5).to_scipy()
    A = gb.Matrix.from_scipy(S)
    plan = gb.explain(gb.algorithms.bfs, A.T, 3)
    assert plan.details["pull"]
    got = gb.algorithms.bfs(A.T, 3)
    np.testing.assert_array_equal(got.to_dense(fill=-1), scipy_bfs_levels(S.T.tocsr(), 3))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 50), st.integers(0, 250), st.integers(0, 2**32 - 1), st.booleans())
def test_breadth_first_order_is_scipys(n, m, seed, directed):
    import scipy.sparse.csgraph as csg

    from gblas import csgraph

    rng = np.random.default_rng(seed)
    S = uniform_digraph(rng, n, m)
    S.sum_duplicates()
    s = int(rng.integers(0, n))
    want_o, want_p = csg.breadth_first_order(S, s, directed=directed)
    got_o, got_p = csgraph.breadth_first_order(S, s, directed=directed)
    np.testing.assert_array_equal(got_o, want_o)
    np.testing.assert_array_equal(got_p, want_p)
    with gb.config(format="csr"):  # the loop of products gives the same
        loop_o, loop_p = csgraph.breadth_first_order(S, s, directed=directed)
    np.testing.assert_array_equal(loop_o, want_o)
    np.testing.assert_array_equal(loop_p, want_p)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(0, 300), seed=st.integers(0, 2**32 - 1),
       directed=st.booleans(), from_vertices=st.sampled_from([0, 1 << 15]))
def test_queue_order_reading_ahead_is_scipys(n, m, seed, directed, from_vertices):
    """The queue search that asks for the rows further in its queue (every graph when
    the threshold is 0: queues shorter than the distance, empty last rows) keeps
    SciPy's order and predecessors; so does a road-like graph above the threshold."""
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csg

    from gblas import csgraph
    from gblas.backends.cpu import traversal

    rng = np.random.default_rng(seed)
    if from_vertices:  # a 200 x 200 grid with random shortcuts, ids shuffled
        side = 200
        path = sp.diags_array([1.0, 1.0], offsets=[-1, 1], shape=(side, side))
        grid = sp.kronsum(path, path)
        extra = sp.coo_array((np.ones(m), (rng.integers(0, side * side, m),
                                           rng.integers(0, side * side, m))),
                             shape=grid.shape)
        perm = rng.permutation(side * side)
        S = sp.csr_array((grid + extra).tocsr()[perm][:, perm])
        n = side * side
    else:
        S = uniform_digraph(rng, n, m)
    S.sum_duplicates()
    s = int(rng.integers(0, n))
    want_o, want_p = csg.breadth_first_order(S, s, directed=directed)
    kept = traversal.QUEUE_AHEAD_MIN_VERTICES
    traversal.QUEUE_AHEAD_MIN_VERTICES = from_vertices
    try:
        got_o, got_p = csgraph.breadth_first_order(S, s, directed=directed)
    finally:
        traversal.QUEUE_AHEAD_MIN_VERTICES = kept
    np.testing.assert_array_equal(got_o, want_o)
    np.testing.assert_array_equal(got_p, want_p)


def _least_parents(S, level):
    """Each reached vertex's least in-neighbour on the previous level (the source its
    own), -1 where unreached: the ``min.second`` rule, from the edge list."""
    C = S.tocoo()
    u, v = C.row.astype(np.int64), C.col.astype(np.int64)
    keep = (level[u] >= 0) & (level[v] == level[u] + 1)
    want = np.full(level.size, np.iinfo(np.int64).max)
    np.minimum.at(want, v[keep], u[keep])
    want[level < 0] = -1
    want[level == 0] = np.flatnonzero(level == 0)
    return want


def _deep_graph(rng, kind, rows, cols, extra):
    """A graph of many levels with ties, its vertex ids shuffled (the order a level is
    found in is then not the order of its ids): a grid, a triangulated grid (a mesh), or
    layers of ``cols`` vertices each joined to every vertex of the next (dense)."""
    ids = np.arange(rows * cols).reshape(rows, cols)
    if kind == "layers":
        a = np.repeat(ids[:-1], cols, axis=1).ravel()
        b = np.tile(ids[1:], (1, cols)).ravel()
    else:
        pairs = [(ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :])]
        if kind == "mesh":
            pairs.append((ids[:-1, :-1], ids[1:, 1:]))
        a = np.concatenate([p.ravel() for p, _ in pairs])
        b = np.concatenate([q.ravel() for _, q in pairs])
    n = rows * cols
    a = np.concatenate([a, rng.integers(0, n, extra)])  # a few shortcuts
    b = np.concatenate([b, rng.integers(0, n, extra)])
    perm = rng.permutation(n)
    a, b = perm[a], perm[b]
    r, c = np.concatenate([a, b]), np.concatenate([b, a])
    return sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["grid", "mesh", "layers"]), st.integers(1, 60), st.integers(1, 12),
       st.integers(0, 3), st.integers(0, 2**32 - 1), st.booleans())
def test_parents_on_deep_graphs_are_the_least_on_the_previous_level(kind, rows, cols, extra,
                                                                   seed, transpose):
    """Searches of many small levels (the sequential packed levels, on sparse graphs
    through the select store, on the dense layers through the branch), ids shuffled so
    that a vertex's first discoverer is often not its least parent: each parent is the
    least in-neighbour on the previous level, from the kernel and from ``bfs``."""
    from gblas.backends.cpu import traversal

    rng = np.random.default_rng(seed)
    S = _deep_graph(rng, kind, rows, cols, extra)
    A = gb.Matrix.from_scipy(S)
    s = int(rng.integers(0, S.shape[0]))
    get_AT = (lambda: A.csr(transposed=True)) if transpose else None
    level, parent, stats = traversal.bfs_levels(A.csr(), get_AT, s, True)
    want = scipy_bfs_levels(S, s)
    np.testing.assert_array_equal(level, want)
    np.testing.assert_array_equal(parent, _least_parents(S, want))
    assert stats["packed"] >= 1 and stats["levels"] == want.max()
    if stats["pull"] == 0 and "parallel" not in stats:
        assert stats["packed"] == stats["push"]  # the whole search, one compiled call
    levels, parents = gb.algorithms.bfs(A, s, parents=True)
    np.testing.assert_array_equal(parents.to_dense(fill=-1), _least_parents(S, want))


def test_parents_on_a_shuffled_mesh_of_hundreds_of_levels():
    """A 300 x 8 triangulated grid (about 300 levels, ties on every level), ids shuffled:
    the least parents, as the loop of ``min.second`` products gives them."""
    S = _deep_graph(np.random.default_rng(5), "mesh", 300, 8, 0)
    A = gb.Matrix.from_scipy(S)
    for s in (0, S.shape[0] // 2):
        levels, parents = gb.algorithms.bfs(A, s, parents=True)
        want_l, want_p = _loop(gb.Matrix.from_scipy(S), s, True)
        assert levels.to_dense(fill=-1).max() >= 150
        np.testing.assert_array_equal(levels.to_dense(fill=-1), want_l.to_dense(fill=-1))
        np.testing.assert_array_equal(parents.to_dense(fill=-1), want_p.to_dense(fill=-1))
        np.testing.assert_array_equal(parents.to_dense(fill=-1),
                                      _least_parents(S, want_l.to_dense(fill=-1)))


def test_parents_levels_run_on_threads_only_from_the_minimum_thread_count(monkeypatch):
    """By default a search with parents keeps every push level on one thread below
    ``PARENTS_PARALLEL_MIN_THREADS`` threads (its packed levels), on threads from there;
    the parents are the same."""
    from gblas.backends.cpu import traversal
    from gblas.backends.cpu.blocks import num_threads

    monkeypatch.setattr(traversal, "PUSH_PARALLEL_EDGES", 64)
    S = generators.kronecker(9, 8, seed=2, symmetric=True).to_scipy()
    A = gb.Matrix.from_scipy(S)
    src = int(np.argmax(np.diff(S.indptr)))
    level, parent, stats = traversal.bfs_levels(A.csr(), None, src, True)
    if num_threads() < traversal.PARENTS_PARALLEL_MIN_THREADS:
        assert "parallel" not in stats and stats["packed"] == stats["push"]
    else:
        assert stats["parallel"] >= 1
    want = scipy_bfs_levels(S, src)
    np.testing.assert_array_equal(level, want)
    np.testing.assert_array_equal(parent, _least_parents(S, want))
    _, parent_par, stats_par = traversal.bfs_levels(A.csr(), None, src, True,
                                                    parallel_edges=64)
    assert stats_par.get("parallel", 0) >= (num_threads() > 1)
    np.testing.assert_array_equal(parent_par, parent)


def _vec_dense(v, n):
    """A VecData (dense with flags, or sparse) as an array with -1 where absent."""
    out = np.full(n, -1, dtype=np.int64)
    if v.indices is not None:
        out[v.indices] = v.values
    elif v.present is None:
        out[:] = v.values
    else:
        out[v.present] = v.values[v.present]
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 400), st.integers(0, 600), st.integers(0, 2**32 - 1), st.booleans(),
       st.sampled_from([None, 1]), st.booleans())
def test_vectors_of_a_search_are_its_arrays_sparse_when_few_are_reached(
        n, m, seed, parents, parallel_edges, transpose):
    """Every route's Vector storage holds the levels (and parents) of its arrays; a
    search reaching fewer than n / SPARSE_RESULT_SHARE vertices returns them sparse, its
    reached ids sorted."""
    from gblas.backends.cpu import traversal
    from gblas.backends.cpu.reached import sparse_result

    _, A, get_AT, s = _random_search(seed, n, m, transpose)
    level, parent, stats = traversal.bfs_levels(A.csr(), get_AT, s, parents,
                                                parallel_edges=parallel_edges)
    lv, pv, _ = traversal.bfs_levels(A.csr(), get_AT, s, parents,
                                     parallel_edges=parallel_edges, vectors=True)
    np.testing.assert_array_equal(_vec_dense(lv, n), level)
    reached = int((level >= 0).sum())
    assert (lv.indices is not None) == sparse_result(reached, n)
    if lv.indices is not None:
        np.testing.assert_array_equal(lv.indices, np.flatnonzero(level >= 0))
    if parents:
        np.testing.assert_array_equal(_vec_dense(pv, n), parent)
        assert (pv.indices is None) == (lv.indices is None)
    else:
        assert pv is None


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 1 << 40), st.data())
def test_sorted_ids_is_a_sort(n, data):
    from gblas.backends.cpu.reached import sorted_ids

    k = data.draw(st.integers(0, min(n, 300)))
    ids = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k,
                                      unique=True)), dtype=np.int64)
    extra = data.draw(st.integers(0, 5))
    order = np.concatenate([ids, np.zeros(extra, dtype=np.int64)])  # past count: unread
    np.testing.assert_array_equal(sorted_ids(order, k, n), np.sort(ids))


def test_bfs_reaching_few_vertices_returns_sparse_vectors():
    """A Vector of the reached only: its storage is sparse, its entries are SciPy's."""
    n = 5000
    S = sp.csr_array((np.ones(40), (np.arange(40), np.arange(1, 41))), shape=(n, n))
    levels, parents = gb.algorithms.bfs(gb.Matrix.from_scipy(S), 0, parents=True)
    assert levels.nvals == parents.nvals == 41
    assert levels._data.indices is not None
    assert levels.to_dense(fill=-1)[:42].tolist() == list(range(41)) + [-1]
    assert parents.to_dense(fill=-1)[1:41].tolist() == list(range(40))
