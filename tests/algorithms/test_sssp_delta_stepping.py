"""The delta-stepping path of ``sssp`` (non-negative weights) against SciPy's Dijkstra.

Random graphs with isolated vertices, self loops, zero weights (explicit zeros, zero-
weight cycles), integer, float32 and bool weights, ``inf`` weights, extreme magnitudes,
several bucket widths (the ``lo == 0`` bucket, one bucket for everything), Kronecker
graphs large enough for the parallel kernels and dense frontiers, and the switch to
Bellman-Ford (negative weights) and to the NaN error, which one SpMV decides.  A pinned
format keeps these products (the planner may otherwise take the heap Dijkstra:
``tests/algorithms/test_sssp_routes.py``).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp
from graph_cases import min_weight_csr
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import csgraph

import gblas as gb
from gblas.algorithms.sssp import sssp

SSSP = sys.modules["gblas.algorithms.sssp"]


@pytest.fixture(autouse=True)
def _products():
    """Every test here runs delta-stepping's products, not the heap kernel."""
    with gb.config(format="csr"):
        yield


def graph(seed, n, density, *, undirected=False, integer=False, zeros=0.0, self_loops=True,
          isolated=2, low=0.0, high=1.0):
    """SciPy CSR graph: uniform weights in [low, high), a share ``zeros`` of explicit
    zero weights, the last ``isolated`` vertices without edges, smallest duplicate kept."""
    rng = np.random.default_rng(seed)
    m = int(density * n * n) + 1
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if isolated and n > isolated + 1:
        keep = (r < n - isolated) & (c < n - isolated)
        r, c = r[keep], c[keep]
    if not self_loops:
        keep = r != c
        r, c = r[keep], c[keep]
    w = rng.uniform(low, high, r.size)
    if integer:
        w = np.floor(w)
    w[rng.random(r.size) < zeros] = 0.0
    return min_weight_csr(r, c, w, n, undirected=undirected)


def dijkstra(S, source):
    """SciPy's reference; explicit zeros of a csr_array are edges there too."""
    return csgraph.dijkstra(S, indices=source)


def check(S, source, dtype=None, *, parents=False):
    A = gb.Matrix.from_scipy(S if dtype is None else S.astype(dtype))
    ref = dijkstra(S if dtype is None else S.astype(dtype).astype(np.float64), source)
    out = sssp(A, source, parents=parents)
    d = out[0] if parents else out
    assert d.dtype == np.float64
    got = d.to_dense(fill=np.inf)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
    assert d.nvals == np.isfinite(ref).sum()
    if parents:
        check_tree(S, source, got, out[1].to_dense(fill=-1))
    return d


def check_tree(S, source, dist, parent):
    S = sp.csr_array(S)
    assert parent[source] == source
    assert np.array_equal(parent >= 0, np.isfinite(dist))
    for v in np.flatnonzero(np.isfinite(dist)):
        if v == source:
            continue
        p = parent[v]
        row = S.indices[S.indptr[p]:S.indptr[p + 1]]
        assert v in row
        w = S.data[S.indptr[p] + np.flatnonzero(row == v)[0]]
        assert dist[p] + w == dist[v]


@pytest.fixture
def width(request):
    """Run a test under another bucket width, restored afterwards."""
    old = SSSP._WIDTH
    SSSP._WIDTH = request.param
    yield request.param
    SSSP._WIDTH = old


# ------------------------------------------------------------------ random graphs


@given(n=st.integers(1, 40), density=st.floats(0.0, 0.4), seed=st.integers(0, 2**32 - 1),
       undirected=st.booleans(), integer=st.booleans(),
       zeros=st.sampled_from([0.0, 0.3, 1.0]), parents=st.booleans())
def test_matches_dijkstra(n, density, seed, undirected, integer, zeros, parents):
    S = graph(seed, n, density, undirected=undirected, integer=integer, zeros=zeros,
              high=10.0 if integer else 1.0)
    check(S, int(np.random.default_rng(seed).integers(0, n)), parents=parents)


@pytest.mark.parametrize("width", [0.0, 1e-3, 0.5, 4.0, 1e300], indirect=True)
@pytest.mark.parametrize("seed", range(4))
def test_any_bucket_width_is_exact(width, seed):
    # 0: one bucket per distinct distance; 1e300: a single bucket (plain Bellman-Ford)
    S = graph(seed, 60, 0.08, undirected=seed % 2 == 0, zeros=0.1)
    check(S, 0, parents=True)


@pytest.mark.parametrize("dtype", ["float32", "int8", "int64", "uint16", "bool"])
def test_dtypes(dtype):
    S = graph(3, 50, 0.1, integer=True, high=50.0)
    check(S, 1, dtype)


def test_zero_weight_cycles_and_zero_distances():
    # 0 -0-> 1 -0-> 2 -0-> 1, 2 -1-> 3, 3 -0-> 4: several vertices at distance 0 and 1
    S = sp.csr_array((np.array([0.0, 0.0, 0.0, 1.0, 0.0]),
                      ([0, 1, 2, 2, 3], [1, 2, 1, 3, 4])), shape=(6, 6))
    d = check(S, 0, parents=True)
    assert d.to_dense(fill=-1).tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, -1]


def test_negative_zero_weights():
    A = gb.Matrix.from_coo([0, 1], [1, 2], [-0.0, 2.0], shape=(3, 3))
    assert sssp(A, 0).to_dense().tolist() == [0.0, 0.0, 2.0]


@pytest.mark.parametrize("loop", [1.0, -1.0])
def test_inf_weights_make_no_path(loop):
    # loop -1 (behind the inf edge, so no negative cycle is reached): Bellman-Ford runs
    A = gb.Matrix.from_coo([0, 0, 1, 3], [1, 2, 3, 3], [np.inf, 1.0, 1.0, loop],
                           shape=(4, 4))
    d = sssp(A, 0)
    assert d.to_dense(fill=-1).tolist() == [0.0, -1, 1.0, -1]
    assert d.nvals == 2


@pytest.mark.parametrize("scale", [1e-300, 1e-10, 1.0, 1e10, 1e300])
def test_extreme_magnitudes(scale):
    S = graph(5, 40, 0.1, undirected=True)
    S.data *= scale
    check(S, 0)


@pytest.mark.parametrize("width", [0.0, 1e-3, 4.0], indirect=True)
def test_subnormal_weights(width):
    # lo * width underflows: every bucket still moves on by at least one float
    S = graph(6, 30, 0.15)
    S.data = np.where(S.data > 0.5, 5e-324, S.data * 1e-310)
    check(S, 2)


def test_source_without_edges_and_empty_graph():
    A = gb.Matrix.from_coo([0], [1], [1.0], shape=(3, 3))
    assert sssp(A, 2).to_coo()[0].tolist() == [2]
    E = gb.Matrix.from_coo([], [], np.zeros(0), shape=(4, 4))
    d, p = sssp(E, 3, parents=True)
    assert d.to_coo()[0].tolist() == [3] and p.to_coo()[1].tolist() == [3]


def test_transposed_view():
    S = graph(8, 40, 0.1)
    A = gb.Matrix.from_scipy(S)
    got = sssp(A.T, 4).to_dense(fill=np.inf)
    np.testing.assert_allclose(got, dijkstra(S.T.tocsr(), 4))


# ------------------------------------------------- the checks that pick the method


def test_negative_weight_falls_back_to_bellman_ford():
    S = graph(9, 30, 0.1, self_loops=False)
    S = sp.triu(S, 1, format="csr")
    S.data[::3] -= 2.0  # negative weights on a DAG: no negative cycle
    A = gb.Matrix.from_scipy(S)
    got = sssp(A, 0).to_dense(fill=np.inf)
    np.testing.assert_allclose(got, csgraph.bellman_ford(S, indices=0))


def test_negative_weight_anywhere_is_seen():
    # the negative edge is not reachable from 0: same distances either way
    A = gb.Matrix.from_coo([0, 2], [1, 3], [1.0, -1.0], shape=(4, 4))
    assert SSSP._has_bad_weight(A)
    assert sssp(A, 0).to_dense(fill=-1).tolist() == [0.0, 1.0, -1, -1]


@pytest.mark.parametrize("where", [0, 1])
def test_nan_anywhere_raises(where):
    # reachable (row 0) or not (row 2) from the source 0
    A = gb.Matrix.from_coo([0, 2], [1, 3], [np.nan, 1.0] if where == 0 else [1.0, np.nan],
                           shape=(4, 4))
    with pytest.raises(gb.InvalidValue, match="sssp: argument .A. expected edge weights "
                                              "that are not NaN"):
        sssp(A, 0)


def test_bad_weight_check_dtypes():
    assert not SSSP._has_bad_weight(gb.Matrix.from_coo([0], [1], shape=(2, 2)))  # bool
    assert not SSSP._has_bad_weight(gb.Matrix.from_coo([0], [1], [3], shape=(2, 2),
                                                       dtype="uint8"))
    assert SSSP._has_bad_weight(gb.Matrix.from_coo([0], [1], [-3], shape=(2, 2),
                                                   dtype="int16"))
    assert not SSSP._has_bad_weight(gb.Matrix.from_coo([0], [1], [np.inf], shape=(2, 2)))
    assert SSSP._has_bad_weight(gb.Matrix.from_coo([0], [1], [-np.inf], shape=(2, 2)))
    assert not SSSP._has_bad_weight(gb.Matrix.from_coo([], [], np.zeros(0), shape=(2, 2)))


# ------------------------------------------------------------- larger graphs


@pytest.mark.parametrize("seed", [0, 1])
def test_kronecker_large_frontiers(seed):
    # big enough for the parallel push, dense candidate vectors and pull products
    A = gb.io.kronecker(11, 16, seed=seed, dtype="float64", symmetric=True,
                        weights="uniform")
    S = A.to_scipy()
    source = int(np.argmax(np.diff(S.indptr)))
    got = sssp(A, source).to_dense(fill=np.inf)
    ref = dijkstra(S, source)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
    with gb.config(direction="pull"):
        np.testing.assert_array_equal(sssp(A, source).to_dense(fill=np.inf), got)


def test_grid_long_paths():
    A = gb.io.grid(40, 30, weights="uniform", dtype="float64", seed=1)
    S = A.to_scipy()
    d, p = sssp(A, 7, parents=True)
    got = d.to_dense(fill=np.inf)
    np.testing.assert_allclose(got, dijkstra(S, 7), rtol=1e-12, atol=0)
    check_tree(S, 7, got, p.to_dense(fill=-1))


def test_progress_counts_the_steps(capsys):
    A = gb.io.grid(5, 5, dtype="float64")
    sssp(A, 0, progress=True)
    err = capsys.readouterr().err
    assert "sssp: done (" in err and " steps, 25 reached" in err


def test_devices(device):
    # the same calls where the matrix lives: the check semiring, the range select, buckets
    S = graph(11, 300, 0.02, undirected=True, zeros=0.05)
    A = gb.Matrix.from_scipy(S).to(device)
    d, p = sssp(A, 3, parents=True)
    assert d.device == device
    got = d.to_dense(fill=np.inf)
    got = got.get() if hasattr(got, "get") else got
    np.testing.assert_allclose(got, dijkstra(S, 3), rtol=1e-12, atol=0)
    bad = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, -1.0], shape=(3, 3)).to(device)
    assert SSSP._has_bad_weight(bad)
    assert sssp(bad, 0).to_dense(fill=np.inf).tolist() == [0.0, 1.0, 0.0]
    nan = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, np.nan], shape=(3, 3)).to(device)
    with pytest.raises(gb.InvalidValue, match="not NaN"):
        sssp(nan, 0)


def test_weight_check_follows_a_matrix_written_to():
    """The negative-weight check is kept per storage: a Matrix written to (a new storage)
    is checked again, and Bellman-Ford takes its negative weights."""
    A = gb.Matrix.from_coo([0, 1], [1, 2], [2.0, 3.0], shape=(3, 3))
    assert gb.algorithms.sssp(A, 0).to_dense().tolist() == [0.0, 2.0, 5.0]
    gb.apply(A, "ainv", out=A)
    assert gb.algorithms.sssp(A, 0).to_dense().tolist() == [0.0, -2.0, -5.0]

