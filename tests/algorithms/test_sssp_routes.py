"""gblas.algorithms.sssp by the heap route and by the (min, +) products: the same
distances (and parents) as each other and as SciPy, whichever the planner picks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


def _both(A, s, parents):
    planned = gb.algorithms.sssp(A, s, parents=parents)
    with gb.config(format="csr"):  # a pinned format keeps the products
        assert gb.explain(gb.algorithms.sssp, A, s).direction == "semiring"
        products = gb.algorithms.sssp(A, s, parents=parents)
    return planned, products


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 160), st.integers(0, 2**32 - 1),
       st.sampled_from(["float64", "float32", "int64"]))
def test_routes_agree_with_scipy(n, m, seed, dtype):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 9, m).astype(dtype)
    S = sp.csr_array((w, (r, c)), shape=(n, n))
    S.sum_duplicates()
    A = gb.Matrix.from_scipy(S)
    s = int(rng.integers(0, n))
    (d1, p1), (d2, p2) = _both(A, s, True)
    want = csg.dijkstra(S.astype(np.float64), indices=s)
    for d in (d1, d2):
        assert d.dtype == np.float64
        np.testing.assert_array_equal(d.to_dense(fill=np.inf), want)
    np.testing.assert_array_equal(p1.to_dense(fill=-1), p2.to_dense(fill=-1))


@pytest.mark.parametrize("n", [400])
def test_a_long_path_takes_the_heap(n):
    ids = np.arange(n - 1)
    S = sp.csr_array((np.full(n - 1, 2.0), (ids, ids + 1)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    assert gb.explain(gb.algorithms.sssp, A, 0).direction == "heap"
    planned, products = _both(A, 0, False)
    np.testing.assert_array_equal(planned.to_dense(fill=-1), 2.0 * np.arange(n))
    np.testing.assert_array_equal(products.to_dense(fill=-1), 2.0 * np.arange(n))


@pytest.mark.gpu
def test_gpu_matrix_many_hops_deep_takes_the_hosts_heap(monkeypatch):
    """On the GPU (no heap kernel there) a graph a thousand hops deep runs the host's heap
    Dijkstra on a copy, as the planner estimates and explain shows, and returns its
    distances on the GPU; a shallow graph keeps the device's (min, +) products, and a
    small one takes the host's heap without a probe."""
    pytest.importorskip("cupy")
    from gblas.planner import paths

    # (the device's one launch, for graphs this small, is left to the end)
    monkeypatch.setattr(paths, "FUSED_SSSP_MAX_ENTRIES", 0)
    n = 40_000  # its heap (everything reached) costs more than one device step: probed
    rng = np.random.default_rng(5)
    r = np.r_[np.arange(n - 1), np.arange(1, n)]
    c = np.r_[np.arange(1, n), np.arange(n - 1)]
    S = sp.csr_array((rng.uniform(0.5, 2.0, r.size), (r, c)), shape=(n, n))
    G = gb.Matrix.from_scipy(S).to("gpu")
    plan = gb.explain(gb.algorithms.sssp, G, 7)
    assert (plan.direction, plan.device) == ("heap", "cpu"), plan.reason
    # the probe stops at the depth that settles it (the path is n - 8 hops deep from 7)
    from gblas import hardware
    from gblas.algorithms._paths import BATCH_ENTRIES
    from gblas.planner.paths import probe_levels_cap

    cap = probe_levels_cap(n, S.nnz, 1, hardware.detect().threads, BATCH_ENTRIES // n)
    assert "host copy" in plan.reason and cap < n - 8
    assert (plan.details["depth"], plan.details["reached"]) == (cap, n)
    d, p = gb.algorithms.sssp(G, 7, parents=True)
    assert d.device == "gpu" and p.device == "gpu"
    np.testing.assert_allclose(d.to_dense(fill=np.inf).get(), csg.dijkstra(S, indices=7),
                               rtol=1e-12)
    want_p = gb.algorithms.sssp(gb.Matrix.from_scipy(S), 7, parents=True)[1].to_dense(fill=-1)
    np.testing.assert_array_equal(p.to_dense(fill=-1).get(), want_p)
    # the host copy is made once and kept with the storage; a write gives a new one
    from gblas.formats.costing import summary

    copy = summary(G.csr())[("host_copy", "cpu", True)]
    d2 = gb.algorithms.sssp(G, 7)
    assert summary(G.csr())[("host_copy", "cpu", True)] is copy
    np.testing.assert_array_equal(d2.to_dense(fill=np.inf).get(), d.to_dense(fill=np.inf).get())
    gb.apply(G, "times", right=2.0, out=G)
    np.testing.assert_allclose(gb.algorithms.sssp(G, 7).to_dense(fill=np.inf).get(),
                               2 * csg.dijkstra(S, indices=7), rtol=1e-12)
    assert summary(G.csr()).get(("host_copy", "cpu", True)) is not copy
    monkeypatch.setattr(paths, "FUSED_SSSP_MAX_ENTRIES", 1 << 21)
    small = gb.Matrix.from_scipy(S[:1500, :1500]).to("gpu")
    plan = gb.explain(gb.algorithms.sssp, small, 7)
    # small enough for the device's one launch, which stops after its rounds (the path is
    # deeper) and leaves the search to the host's heap
    assert plan.direction == "fused" and plan.details["depth"] is None, plan.reason
    then = plan.details["then"]
    assert (then.direction, then.device) == ("heap", "cpu") and "no probe needed" in then.reason
    np.testing.assert_allclose(gb.algorithms.sssp(small, 7).to_dense(fill=np.inf).get(),
                               csg.dijkstra(S[:1500, :1500], indices=7), rtol=1e-12)
    K = gb.io.kronecker(18, 16, seed=3)  # its top vertex reaches 149K vertices in 5 hops
    top = int(np.argmax(np.diff(K.csr().indptr)))
    plan = gb.explain(gb.algorithms.sssp, K.to("gpu"), top)
    assert (plan.direction, plan.device) == ("semiring", "gpu"), plan.reason


@pytest.mark.gpu
def test_gpu_host_heap_copies_the_part_reached(monkeypatch):
    """A GPU Matrix whose probe from one source reaches a small part has the host's heap
    copy that part's rows alone (kept for that source); a source reaching most of the
    graph gets the whole copy.  Distances as SciPy's either way."""
    pytest.importorskip("cupy")
    from gblas.formats.costing import summary
    from gblas.planner import paths

    rng = np.random.default_rng(11)
    n, small = 40_000, 1_000
    # a shallow small part (a star from 0 and random edges inside it) and a large one
    # (a cycle and random edges) that the small part never reaches
    r = [np.zeros(small - 1, dtype=np.int64), rng.integers(0, small, 5_000)]
    c = [np.arange(1, small), rng.integers(0, small, 5_000)]
    big = np.arange(small, n)
    r += [big, rng.integers(small, n, 200_000)]
    c += [np.roll(big, -1), rng.integers(small, n, 200_000)]
    r, c = np.concatenate(r), np.concatenate(c)
    S = sp.csr_array((rng.uniform(0.5, 2.0, r.size), (r, c)), shape=(n, n))
    S.sum_duplicates()
    G = gb.Matrix.from_scipy(S).to("gpu")
    # (a graph this small and shallow would run in the device's one launch)
    monkeypatch.setattr(paths, "FUSED_SSSP_MAX_ENTRIES", 0)
    plan = gb.explain(gb.algorithms.sssp, G, 0)
    assert (plan.direction, plan.device) == ("heap", "cpu"), plan.reason
    assert plan.details["reached"] == small
    d = gb.algorithms.sssp(G, 0)
    np.testing.assert_allclose(d.to_dense(fill=np.inf).get(), csg.dijkstra(S, indices=0),
                               rtol=1e-12)
    memo = summary(G.csr())
    assert ("host_copy", "cpu", True) not in memo
    source, part = memo[("host_copy_reached", "cpu")]
    assert source == 0 and part.nnz == int(S.indptr[small]) and part.shape == S.shape
    far = small + 5
    plan = gb.explain(gb.algorithms.sssp, G, far)
    assert plan.details["reached"] >= n - small  # n where the probe stopped at its cap
    if plan.device == "cpu":
        d = gb.algorithms.sssp(G, far)
        assert memo[("host_copy", "cpu", True)].nnz == S.nnz
    else:
        d = gb.algorithms.sssp(G, far)
    np.testing.assert_allclose(d.to_dense(fill=np.inf).get(), csg.dijkstra(S, indices=far),
                               rtol=1e-12)


def test_the_plan_is_kept_with_the_storage(monkeypatch):
    """The shortest-path plan is kept with the matrix's storage: a second call from the
    same source runs no probe, another source probes again, and a Matrix written to (a
    new storage) is planned afresh."""
    from gblas.algorithms import _paths

    probes = []
    real = _paths.get_kernel

    def counting(*key):
        if key[0] in ("bfs_depth", "bfs"):
            probes.append(key)
        return real(*key)

    monkeypatch.setattr(_paths, "get_kernel", counting)
    n = 2000
    ids = np.arange(n - 1)
    A = gb.Matrix.from_scipy(sp.csr_array((np.full(n - 1, 2.0), (ids, ids + 1)),
                                          shape=(n, n)))
    first = gb.explain(gb.algorithms.sssp, A, 0)
    assert first.direction == "heap" and len(probes) == 1
    assert gb.explain(gb.algorithms.sssp, A, 0) is first and len(probes) == 1
    np.testing.assert_array_equal(gb.algorithms.sssp(A, 0).to_dense(), 2.0 * np.arange(n))
    assert len(probes) == 1
    gb.explain(gb.algorithms.sssp, A, 5)
    assert len(probes) == 2
    gb.apply(A, "ainv", out=A)  # written to: a new storage, planned afresh
    assert gb.explain(gb.algorithms.sssp, A, 0) is not first
    with gb.config(format="csr"):  # pinned: the products, not the kept plan
        assert gb.explain(gb.algorithms.sssp, A, 0).direction == "semiring"


def test_delta_buckets_from_the_weights_range():
    """The bucket estimate reads the weights' range (positive ones) and is capped by the
    vertices reached."""
    from gblas.algorithms.sssp import delta_buckets

    pattern = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    assert delta_buckets(pattern, 4, 100) == 2  # one weight: distances 1..4, one bucket
    S = sp.csr_array(([0.0, 1e-4, 0.5, 1.0], ([0, 1, 2, 3], [1, 2, 3, 4])), shape=(5, 5))
    A = gb.Matrix.from_scipy(S)
    # distances from 1e-4 to 10: 5 ** 7 < 1e5 <= 5 ** 8, eight buckets and the source's
    assert delta_buckets(A, 10, 1000) == 9
    assert delta_buckets(A, 10, 3) == 3


@pytest.mark.gpu
def test_delta_buckets_on_the_gpu():
    pytest.importorskip("cupy")
    from gblas.algorithms.sssp import delta_buckets

    S = sp.csr_array(([0.0, 1e-4, 0.5, 1.0], ([0, 1, 2, 3], [1, 2, 3, 4])), shape=(5, 5))
    assert delta_buckets(gb.Matrix.from_scipy(S).to("gpu"), 10, 1000) == 9


def test_heap_route_checks_only_the_weights_it_reads():
    """On the heap route the weights are checked as the search reads them: a bad weight
    out of reach costs no pass over the values and changes nothing; a negative one in
    reach hands over to Bellman-Ford (same distances as SciPy's); a NaN one raises."""
    import importlib

    sssp_module = importlib.import_module("gblas.algorithms.sssp")
    n = 2000
    ids = np.arange(n - 1)
    w = np.full(n - 1, 2.0)
    w[-1] = -1.0  # the last edge: reached from 0, not from n - 1's side
    S = sp.csr_array((w, (ids, ids + 1)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    assert gb.explain(gb.algorithms.sssp, A, 0).direction == "heap"
    csr = A.csr()
    # from n - 1 nothing is reached: no pass over the values, nothing recorded
    assert gb.algorithms.sssp(A, n - 1).nvals == 1
    assert csr not in sssp_module._BAD_WEIGHT
    # from 0 the search meets the negative edge: Bellman-Ford, and it is recorded
    got = gb.algorithms.sssp(A, 0).to_dense(fill=np.inf)
    np.testing.assert_allclose(got, csg.bellman_ford(S, indices=0))
    assert sssp_module._BAD_WEIGHT[csr] is True
    w2 = np.full(n - 1, 2.0)
    w2[5] = np.nan
    S2 = sp.csr_array((w2, (ids, ids + 1)), shape=(n, n))
    with pytest.raises(gb.InvalidValue, match="NaN"):
        gb.algorithms.sssp(gb.Matrix.from_scipy(S2), 0)
    # out of reach of vertex 10 (a new Matrix: nothing known of its weights), the NaN
    # changes no distance
    np.testing.assert_array_equal(
        gb.algorithms.sssp(gb.Matrix.from_scipy(S2), 10).to_dense(fill=np.inf)[10:],
        2.0 * np.arange(n - 10))
