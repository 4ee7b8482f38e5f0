"""Weak connected components: every path of the BFS-then-FastSV algorithm.

``connected_components(A, "weak")`` runs a BFS from a largest-out-degree vertex (forward,
then both directions when edges lead back into the reached set), gives up after
``_BFS_LEVELS`` levels, and labels the rest with FastSV: on an extracted sub-matrix when
at most ``n / _SUBGRAPH_FRACTION`` vertices are left, in place with a mask otherwise, and
over out-edges first (in-edges join when a ``max`` product finds labels still to merge).
The tests pin both constants to force each path and compare with SciPy, labels being the
smallest vertex id of each component.  A pinned format keeps this loop of products (the
planner otherwise runs the compiled union-find: ``tests/backends/test_components_kernels.py``).
"""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import csgraph

import gblas as gb
from gblas.algorithms import components
from gblas.algorithms.components import connected_components


@pytest.fixture(autouse=True)
def _loop_of_products():
    """Every test here runs the products, not the compiled kernel."""
    with gb.config(format="csr"):
        yield


# (BFS levels, sub-graph fraction): early stop or not, sub-matrix or in place
PATHS = [(32, 8), (32, 1), (32, 10**9), (1, 8), (2, 1), (0, 8)]


@contextmanager
def _paths(levels: int, fraction: int):
    with mock.patch.object(components, "_BFS_LEVELS", levels), \
            mock.patch.object(components, "_SUBGRAPH_FRACTION", fraction):
        yield


def _expected(n: int, rows, cols) -> np.ndarray:
    """SciPy's weak components, relabelled by the smallest vertex id."""
    S = sp.csr_array((np.ones(len(rows)), (np.asarray(rows, np.int64),
                                           np.asarray(cols, np.int64))), shape=(n, n))
    k, lab = csgraph.connected_components(S, directed=True, connection="weak")
    low = np.full(k, n, dtype=np.int64)
    np.minimum.at(low, lab, np.arange(n))
    return low[lab]


def _weak(n: int, rows, cols) -> np.ndarray:
    A = gb.Matrix.from_coo(np.asarray(rows, np.int64), np.asarray(cols, np.int64),
                           shape=(n, n), dup_op="any")
    got = connected_components(A, "weak").to_dense()
    assert got.dtype == np.int64 and got.shape == (n,)
    return got


@st.composite
def structured_graphs(draw, max_n: int = 70):
    """Random unions of paths, cycles, stars and dense blobs, with isolated vertices and
    self loops, vertex ids shuffled, each edge kept in one or both directions."""
    n = draw(st.integers(1, max_n))
    perm = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    rows, cols = [], []
    start = 0
    while start < n:
        size = draw(st.integers(1, max(1, n - start)))
        block = list(range(start, start + size))
        kind = draw(st.sampled_from(["path", "cycle", "star", "blob", "isolated"]))
        if kind == "path" or kind == "cycle":
            pairs = list(zip(block[:-1], block[1:]))
            if kind == "cycle" and size > 2:
                pairs.append((block[-1], block[0]))
        elif kind == "star":
            pairs = [(block[0], b) for b in block[1:]]
        elif kind == "blob":
            k = draw(st.integers(0, 3 * size))
            pairs = [(draw(st.sampled_from(block)), draw(st.sampled_from(block)))
                     for _ in range(k)]
        else:
            pairs = []
        for a, b in pairs:
            way = draw(st.sampled_from(["fwd", "back", "both"]))
            if way in ("fwd", "both"):
                rows.append(a)
                cols.append(b)
            if way in ("back", "both"):
                rows.append(b)
                cols.append(a)
        start += size
    loops = draw(st.lists(st.integers(0, n - 1), max_size=3))
    rows += loops
    cols += loops
    rows, cols = perm[np.array(rows, np.int64)], perm[np.array(cols, np.int64)]
    return n, rows, cols


@pytest.mark.parametrize("levels, fraction", PATHS)
@given(g=structured_graphs())
def test_weak_structured_graphs(levels, fraction, g):
    n, rows, cols = g
    with _paths(levels, fraction):
        np.testing.assert_array_equal(_weak(n, rows, cols), _expected(n, rows, cols))


@pytest.mark.parametrize("levels, fraction", PATHS)
@given(data=st.data())
def test_weak_random_graphs(levels, fraction, data):
    n = data.draw(st.integers(1, 40))
    m = data.draw(st.integers(0, 2 * n))
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    cols = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    symmetric = data.draw(st.booleans())
    if symmetric:
        rows, cols = rows + cols, cols + rows
    with _paths(levels, fraction):
        np.testing.assert_array_equal(_weak(n, rows, cols), _expected(n, rows, cols))


@pytest.mark.parametrize("levels, fraction", PATHS)
def test_weak_many_components_and_isolated(rng, levels, fraction):
    # a giant component, many pairs and triangles, and isolated vertices, shuffled
    n = 3000
    perm = rng.permutation(n)
    r = list(rng.integers(0, 1000, 4000))
    c = list(rng.integers(0, 1000, 4000))
    for b in range(1000, 2000, 2):  # pairs
        r.append(b)
        c.append(b + 1)
    for b in range(2000, 2600, 3):  # directed triangles
        r += [b, b + 1, b + 2]
        c += [b + 1, b + 2, b]
    r, c = perm[np.array(r)], perm[np.array(c)]  # 2600..2999: isolated
    for rows, cols in ((r, c), (np.r_[r, c], np.r_[c, r])):
        with _paths(levels, fraction):
            np.testing.assert_array_equal(_weak(n, rows, cols), _expected(n, rows, cols))


def test_weak_in_edges_only():
    # every edge points into vertex 0: the forward BFS from the seed (vertex 1) stops at 0,
    # the back edges into the reached set must be followed
    n = 8
    rows, cols = np.arange(1, n), np.zeros(n - 1, np.int64)
    assert _weak(n, rows, cols).tolist() == [0] * n
    # and a second such star, plus an isolated vertex
    rows = np.r_[rows, [9, 10, 11]]
    cols = np.r_[cols, [12, 12, 12]]
    got = _weak(14, rows, cols)
    assert got.tolist() == [0] * 8 + [8, 9, 9, 9, 9, 13]


@pytest.mark.parametrize("directed", [True, False])
def test_weak_long_paths(rng, directed):
    # far longer than the BFS may run: the early stop hands everything to FastSV
    n = 400
    p = rng.permutation(n)
    rows, cols = p[:-1], p[1:]
    if not directed:
        rows, cols = np.r_[rows, cols], np.r_[cols, rows]
    assert _weak(n, rows, cols).tolist() == [0] * n
    # two long paths and a short one: several components left after the BFS
    rows = np.r_[np.arange(0, 199), np.arange(200, 389), [395]]
    cols = np.r_[np.arange(1, 200), np.arange(201, 390), [399]]
    np.testing.assert_array_equal(_weak(n, rows, cols), _expected(n, rows, cols))


def test_weak_no_edges_self_loops_and_tiny():
    assert _weak(1, [], []).tolist() == [0]
    assert _weak(5, [], []).tolist() == [0, 1, 2, 3, 4]
    assert _weak(5, [1, 3], [1, 3]).tolist() == [0, 1, 2, 3, 4]
    assert _weak(5, [4, 2, 2], [4, 2, 0]).tolist() == [0, 1, 0, 3, 4]
    A = gb.Matrix.from_coo([], [], shape=(0, 0))
    assert connected_components(A).nvals == 0


@pytest.mark.parametrize("symmetric", [True, False])
def test_weak_kronecker_matches_scipy(symmetric):
    A = gb.io.kronecker(10, 8, seed=3, dtype=None, symmetric=symmetric)
    r, c, _ = A.to_coo()
    want = _expected(A.shape[0], r, c)
    np.testing.assert_array_equal(connected_components(A).to_dense(), want)
    # the transposed view and a SciPy matrix give the same components
    np.testing.assert_array_equal(connected_components(A.T).to_dense(), want)
    np.testing.assert_array_equal(connected_components(A.to_scipy()).to_dense(), want)


def test_weak_values_are_ignored():
    # explicit zeros and negative weights are edges like any other
    A = gb.Matrix.from_coo([0, 2, 3], [1, 3, 4], [0.0, -1.0, 2.5], shape=(6, 6))
    assert connected_components(A).to_dense().tolist() == [0, 0, 2, 2, 2, 5]


def test_weak_progress_counts_bfs_and_hooking(capsys):
    A = gb.io.kronecker(8, 4, seed=1, dtype=None, symmetric=True)
    connected_components(A, progress=True)
    err = capsys.readouterr().err
    assert "connected_components (weak): done (" in err and "iterations" in err
