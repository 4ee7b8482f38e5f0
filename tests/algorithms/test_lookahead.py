"""The prediction of a power iteration's last iteration, and the GPU loops that use it to
queue no iteration past the converging one."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.algorithms._lookahead import likely_last
from gblas.core import executor


@settings(max_examples=200, deadline=None)
@given(first=st.floats(1e-12, 2.0), rate=st.floats(0.01, 0.999),
       limit=st.floats(1e-12, 1.0), k=st.integers(2, 30))
def test_a_geometric_sequence_is_predicted_exactly(first, rate, limit, k):
    """On changes that shrink by one ratio, the predicted next change is the true one:
    "last" exactly when it falls below the limit (away from the boundary)."""
    errs = [first * rate ** i for i in range(k)]
    nxt = errs[-1] * rate
    if not 0 < errs[-2] or abs(nxt - limit) <= 1e-9 * limit:
        return
    assert likely_last(errs, limit) == (nxt < limit)


@given(errs=st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6),
       limit=st.floats(1e-12, 1.0))
def test_no_prediction_from_too_little_or_growing_changes(errs, limit):
    """Fewer than two changes, a zero or non-finite one, or a growing pair: never "last"."""
    got = likely_last(errs, limit)
    if len(errs) < 2:
        assert got is False
        return
    a, b = errs[-2], errs[-1]
    if not (a > 0 and math.isfinite(a) and math.isfinite(b)) or b >= a:
        assert got is False
    else:
        assert got == (b * (b / a) < limit)


def _counting(monkeypatch, name: str) -> list:
    """Count the launches of the array kernel ``name`` (any device)."""
    calls = []
    real = executor.array_kernel

    def array_kernel(kname, dev):
        fn = real(kname, dev)
        if kname != name:
            return fn

        def counted(*args, **kwargs):
            calls.append(1)
            return fn(*args, **kwargs)
        return counted

    monkeypatch.setattr(executor, "array_kernel", array_kernel)
    return calls


def test_pagerank_loop_queues_no_step_past_the_last(device, monkeypatch):
    """The loop of products (a pinned format keeps it on every device) runs one vector
    step per iteration where the last one is predicted, and gives the ranks of the
    one-launch loop."""
    G = nx.gnp_random_graph(300, 0.03, seed=5, directed=True)
    S = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(300), weight=None))
    A = gb.Matrix.from_scipy(S).to(device)
    errs = []
    gb.algorithms.pagerank(A.to("cpu"), callback=lambda s: errs.append(s.delta) or True)
    predicted = any(likely_last(errs[:k], 1e-6) for k in range(len(errs)))
    assert predicted  # the graph is one where the prediction finds the last iteration
    calls = _counting(monkeypatch, "pagerank_step")
    with gb.config(format="csr"):
        got = gb.algorithms.pagerank(A)
    assert len(calls) == len(errs)
    want = gb.algorithms.pagerank(A.to("cpu"))
    np.testing.assert_allclose(np.asarray(got.to("cpu").to_dense()), want.to_dense(),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("call", ["eigenvector", "katz", "hits"])
def test_power_loops_queue_no_step_past_the_last(device, monkeypatch, call):
    """The spectral centralities' loops likewise: as many power steps per iteration as
    on the CPU (which never queues ahead) where the last iteration is predicted, and the
    CPU's scores."""
    from gblas.algorithms import centrality

    G = nx.gnp_random_graph(200, 0.05, seed=9, directed=True)
    S = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(200), weight=None))
    if call == "eigenvector":
        S = ((S + S.T) > 0).astype(np.float64)
    A = gb.Matrix.from_scipy(S)
    run = {"eigenvector": lambda M: gb.algorithms.eigenvector_centrality(M, tol=1e-9),
           "katz": lambda M: gb.algorithms.katz_centrality(M, alpha=0.02, tol=1e-9),
           "hits": lambda M: gb.algorithms.hits(M, tol=1e-9)}[call]
    seen = []
    real = centrality._changes

    def changes(launch, max_iter, dev, tol):
        for k, err in real(launch, max_iter, dev, tol):
            seen.append(err)
            yield k, err

    monkeypatch.setattr(centrality, "_changes", changes)
    calls = _counting(monkeypatch, "power_step")
    results, counts, errs = [], [], []
    for M in (A, A.to(device)):
        seen.clear()
        calls.clear()
        with gb.config(format="csr"):  # the loop of products on every device
            got = run(M)
        results.append(got if call != "hits" else got[1])
        counts.append(len(calls))
        errs.append(list(seen))
    assert len(errs[1]) == len(errs[0])
    if any(likely_last(errs[0][:k], 1e-9) for k in range(len(errs[0]))):
        assert counts[1] == counts[0]
    np.testing.assert_allclose(np.asarray(results[1].to("cpu").to_dense()),
                               np.asarray(results[0].to_dense()), rtol=1e-9, atol=1e-13)
