"""The GPU's one-launch eigenvector centrality and HITS against the CPU's loops and the
GPU's loop of planned products: graphs with hubs (rows cut into several chunks), vertices
without edges, weights, unconverged runs, the plans, and the kernels' operand checks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from graph_cases import hub_graph
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.algorithms.pagerank import PowerIterationFailedConvergence

pytestmark = pytest.mark.gpu


def _runs(A, call: str, **kw):
    """``call``'s scores on the CPU, on the GPU (planned), and in the GPU's loop of
    products (a pinned format keeps it), as NumPy arrays (hubs then authorities)."""
    run = {"eigenvector": lambda M: [gb.algorithms.eigenvector_centrality(M, **kw)],
           "hits": lambda M: list(gb.algorithms.hits(M, **kw))}[call]
    G = A.to("gpu")
    cpu = [v.to_dense() for v in run(A)]
    gpu = [v.to("cpu").to_dense() for v in run(G)]
    with gb.config(format="csr"):
        loop = [v.to("cpu").to_dense() for v in run(G)]
    return G, cpu, gpu, loop


@pytest.mark.parametrize("kind", ["bool", "iso", "weights"])
@pytest.mark.parametrize("n", [1, 50, 3000])
@pytest.mark.parametrize("call", ["eigenvector", "hits"])
def test_one_launch_equals_the_loops(kind, n, call):
    A = hub_graph(kind, n, seed=3 * n + len(kind))
    kw = {"tol": 1e-11, "max_iter": 2000}
    G, cpu, gpu, loop = _runs(A, call, **kw)
    fn = {"eigenvector": gb.algorithms.eigenvector_centrality, "hits": gb.algorithms.hits}
    assert gb.explain(fn[call], G, **kw).kernel == f"{call}/csr/gpu/fused"
    for got, want, other in zip(gpu, cpu, loop, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-14)
        np.testing.assert_allclose(got, other, rtol=1e-9, atol=1e-14)
    # the sums fold in one fixed order: the same scores on every run
    again = _runs(A, call, **kw)[2]
    for got, rerun in zip(gpu, again, strict=True):
        np.testing.assert_array_equal(got, rerun)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 300), density=st.floats(0.0, 0.3), seed=st.integers(0, 2**32 - 1),
       weighted=st.booleans(), call=st.sampled_from(["eigenvector", "hits"]))
def test_random_graphs_against_the_cpu(n, density, seed, weighted, call):
    S = sp.random(n, n, density=density, format="csr", random_state=seed,
                  data_rvs=(lambda k: np.random.default_rng(seed).random(k) + 0.1)
                  if weighted else (lambda k: np.ones(k)))
    A = gb.Matrix.from_scipy(S) if weighted else gb.Matrix.from_scipy(S.astype(bool))
    kw = {"tol": 1e-10, "max_iter": 300}
    try:
        _, cpu, gpu, _ = _runs(A, call, **kw)
    except PowerIterationFailedConvergence:  # (e.g. a bipartite HITS) both must fail
        for M in (A, A.to("gpu")):
            with pytest.raises(PowerIterationFailedConvergence):
                (gb.algorithms.eigenvector_centrality if call == "eigenvector"
                 else gb.algorithms.hits)(M, **kw)
        return
    for got, want in zip(gpu, cpu, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("call", ["eigenvector", "hits"])
def test_unconverged_runs_raise_the_last_iterate(call):
    A = hub_graph("weights", 500, seed=9)
    fn = {"eigenvector": gb.algorithms.eigenvector_centrality, "hits": gb.algorithms.hits}
    got = []
    for M in (A, A.to("gpu")):
        with pytest.raises(PowerIterationFailedConvergence, match="max_iter=7") as e:
            fn[call](M, tol=0, max_iter=7)
        assert e.value.iterations == 7
        got.append(e.value.ranks.to("cpu").to_dense())
    np.testing.assert_allclose(got[1], got[0], rtol=1e-12, atol=1e-15)


def test_larger_graphs_keep_the_loop_of_products(monkeypatch):
    from gblas.planner import algorithms as plans

    G = gb.io.kronecker(8, 8, seed=2).to("gpu")
    monkeypatch.setattr(plans, "FUSED_PAGERANK_MAX_ENTRIES_GPU", G.nvals - 1)
    for fn in (gb.algorithms.eigenvector_centrality, gb.algorithms.hits):
        p = gb.explain(fn, G)
        assert p.key is None and "entries" in p.reason, p.reason


@pytest.mark.parametrize("kind", ["bool", "weights"])
def test_gram_product_of_the_lanczos_continuation(kind):
    """HITS's plan names the one-launch product of A' A as its step; it equals SciPy's
    A' (A v) on graphs with hubs (rows cut into chunks on both sides)."""
    import cupy as cp

    from gblas.algorithms.centrality import _pull_operands
    from gblas.backends.gpu.power_fused import gram_fused

    A = hub_graph(kind, 3000, seed=5)
    G = A.to("gpu")
    plan = gb.explain(gb.algorithms.hits, G)
    assert [str(k) for k in plan.steps] == ["gram/csr/gpu/fused"], plan
    S = A.to_scipy().astype(np.float64)
    v = np.random.default_rng(1).random(3000)
    AT, AA = (_pull_operands(G.csr(transposed=t), G.dtype) for t in (True, False))
    got = gram_fused(AT, AA, cp.asarray(v)).get()
    np.testing.assert_allclose(got, S.T @ (S @ v), rtol=1e-12)


def test_schedules_are_kept_while_the_row_pointers_live():
    import cupy as cp

    from gblas.backends.gpu.pagerank_loop import _SCHEDULES, fused_schedule

    ip = cp.array([0, 2, 2, 40], dtype=np.int32)
    first = fused_schedule(ip, 3, 40)
    assert fused_schedule(ip, 3, 40) is first and id(ip) in _SCHEDULES
    key = id(ip)
    del ip, first
    assert key not in _SCHEDULES


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 70_000), seed=st.integers(0, 2**32 - 1),
       share=st.floats(0.0, 1.0), hub=st.integers(0, 6000),
       wide=st.sampled_from([np.int32, np.int64]))
def test_schedule_computed_on_the_device_equals_the_hosts(n, seed, share, hub, wide):
    """The grid's schedule (every block placing its share of the rows after the counts
    of the blocks before it, no wait on the device) lists the long rows, their first
    chunks and the chunks' rows as the host's computation does: rows on both sides of
    the short-row limit, rows of many chunks, empty rows, several tiles per block."""
    import cupy as cp

    from gblas.backends.gpu.mxv import _schedule_arrays
    from gblas.backends.gpu.pagerank_loop import _CHUNK, fused_schedule

    rng = np.random.default_rng(seed)
    deg = rng.integers(0, 40, n)
    long_ = rng.random(n) < share * 0.02
    deg[long_] = rng.integers(30, 30 + hub + 1, int(long_.sum()))
    ip = np.concatenate([[0], np.cumsum(deg)]).astype(wide)
    nnz = int(ip[-1])
    ip_gpu = cp.asarray(ip)
    sched = fused_schedule(ip_gpu, n, nnz)
    _, want_rows, want_cptr, want_cslot = _schedule_arrays(np, ip, n, "vector", sched.smax,
                                                           _CHUNK, 0)
    got = sched.arrays()
    for g, w in zip(got, (want_rows, want_cptr, want_cslot), strict=True):
        np.testing.assert_array_equal(g, w)


def test_a_fresh_schedule_gives_the_same_ranks_as_a_kept_one():
    """The first call over a CSR queues the schedule the later ones read: a PageRank on
    new row pointers and one on pointers whose schedule exists agree bit for bit."""
    import cupy as cp

    from gblas.backends.gpu.pagerank_loop import fused_schedule, pagerank_fused

    A = hub_graph("weights", 3000, seed=11).to_scipy().T.tocsr()
    ip, ix, vals = (cp.asarray(a) for a in (A.indptr, A.indices, A.data))
    deg = np.diff(A.tocsc().indptr)
    w = cp.asarray(np.where(deg > 0, 0.85 / np.maximum(deg, 1), 0.0))
    first = pagerank_fused(ip, ix, vals, 0.0, w, None, 0.85, 1e-12, 500)
    assert fused_schedule(ip, A.shape[0], A.nnz).queued
    again = pagerank_fused(ip, ix, vals, 0.0, w, None, 0.85, 1e-12, 500)
    assert first[1:] == again[1:]
    np.testing.assert_array_equal(first[0].get(), again[0].get())


def test_kernels_refuse_operands_of_another_length():
    import cupy as cp

    from gblas.backends.gpu.power_fused import eigenvector_fused, gram_fused, hits_fused

    csr = (cp.array([0, 1, 2], dtype=np.int32), cp.array([1, 0], dtype=np.int32), None, 1.0)
    with pytest.raises(ValueError, match="argument `x` expected shape"):
        eigenvector_fused(csr, cp.ones(3), 1e-9, 0, 5, cp.empty(5))
    with pytest.raises(ValueError, match=r"argument `csr\[0\] \(indptr\)` expected shape"):
        hits_fused(csr, (cp.array([0, 1, 2, 2], dtype=np.int32),) + csr[1:], cp.ones(2),
                   cp.zeros(2), 1e-9, 0, 5, cp.empty(5))
    with pytest.raises(ValueError, match="argument `errs`"):
        eigenvector_fused(csr, cp.ones(2), 1e-9, 0, 5, cp.empty(4))
    with pytest.raises(ValueError, match="argument `a` expected shape"):
        hits_fused(csr, csr, cp.ones(2), cp.zeros(1), 1e-9, 0, 5, cp.empty(5))
    wide = (csr[0].astype(np.int64), csr[1].astype(np.int64), None, 1.0)
    with pytest.raises(ValueError, match="index dtypes"):
        hits_fused(wide, csr, cp.ones(2), cp.zeros(2), 1e-9, 0, 5, cp.empty(5))
    with pytest.raises(ValueError, match="argument `out` expected shape"):
        gram_fused(csr, csr, cp.ones(2), cp.empty(3))
