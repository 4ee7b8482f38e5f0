"""The GPU's one-launch shortest paths (frontier rounds) against the CPU's ``sssp``:
weighted, iso, integer and pattern graphs, zero and infinite weights, hubs; the fall
back when the rounds run out, negative and NaN weights, parents; and the plan."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb

pytestmark = pytest.mark.gpu


def _graph(kind: str, n: int, seed: int) -> gb.Matrix:
    rng = np.random.default_rng(seed)
    m = 5 * n
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    hub = np.full(min(n, 600), seed % n)  # a vertex of many out-edges
    rows = np.concatenate([rows, hub])
    cols = np.concatenate([cols, rng.choice(n, hub.size, replace=False)])
    if kind == "bool":
        return gb.Matrix.from_coo(rows, cols, None, shape=(n, n), dup_op="any")
    if kind == "iso":
        vals = np.full(rows.size, 0.5)
    elif kind == "int":
        vals = rng.integers(0, 9, rows.size)
    else:
        vals = rng.random(rows.size)
        vals[rng.random(rows.size) < 0.05] = 0.0
        vals[rng.random(rows.size) < 0.02] = np.inf
    return gb.Matrix.from_coo(rows, cols, vals, shape=(n, n), dup_op="min")


def _dense(v: gb.Vector) -> np.ndarray:
    return v.to("cpu").to_dense(fill=np.inf)


@pytest.mark.parametrize("kind", ["bool", "iso", "int", "weights"])
@pytest.mark.parametrize("n", [1, 40, 3000])
def test_one_launch_equals_the_cpu(kind, n):
    A = _graph(kind, n, seed=n + len(kind))
    G = A.to("gpu")
    for source in {0, n // 2, n - 1}:
        plan = gb.explain(gb.algorithms.sssp, G, source)
        assert plan.direction == "fused", plan
        got = gb.algorithms.sssp(G, source)
        assert got.device == "gpu"
        want = gb.algorithms.sssp(A, source)
        np.testing.assert_array_equal(got.to("cpu").to_dense(fill=-1.0) >= 0,
                                      want.to_dense(fill=-1.0) >= 0)  # the same reached
        np.testing.assert_allclose(_dense(got), _dense(want), rtol=1e-14)


def test_parents_from_the_one_launch():
    A = _graph("weights", 500, seed=3)
    d, p = gb.algorithms.sssp(A.to("gpu"), 7, parents=True)
    wd, wp = gb.algorithms.sssp(A, 7, parents=True)
    np.testing.assert_allclose(_dense(d), _dense(wd), rtol=1e-14)
    np.testing.assert_array_equal(p.to("cpu").to_dense(fill=-1), wp.to_dense(fill=-1))


def test_a_search_longer_than_the_rounds_finishes_by_the_planned_route(monkeypatch):
    from gblas.planner import paths

    n = 300  # a path: 299 rounds
    A = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), np.full(n - 1, 0.25),
                           shape=(n, n))
    monkeypatch.setattr(paths, "FUSED_SSSP_UNPROBED_ROUNDS", 16)  # (no probe: small)
    G = A.to("gpu")
    plan = gb.explain(gb.algorithms.sssp, G, 0)
    assert plan.direction == "fused" and plan.details["max_rounds"] == 16
    np.testing.assert_array_equal(_dense(gb.algorithms.sssp(G, 0)), np.arange(n) * 0.25)


def test_negative_and_nan_weights_take_the_products():
    A = gb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 3], [4.0, 1.0, -2.0, 1.0], shape=(5, 5))
    got = gb.algorithms.sssp(A.to("gpu"), 0)
    np.testing.assert_array_equal(_dense(got), [0.0, 4.0, 1.0, 2.0, np.inf])
    B = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, np.nan], shape=(3, 3))
    with pytest.raises(gb.InvalidValue):
        gb.algorithms.sssp(B.to("gpu"), 0)


def test_larger_or_deeper_graphs_keep_the_planned_route(monkeypatch):
    from gblas.planner import paths

    G = _graph("weights", 200, seed=1).to("gpu")
    monkeypatch.setattr(paths, "FUSED_SSSP_MAX_ENTRIES", G.nvals - 1)
    assert gb.explain(gb.algorithms.sssp, G, 0).direction in ("heap", "semiring")
    assert gb.explain(gb.algorithms.sssp, G.to("cpu"), 0).direction != "fused"
