"""Whole algorithms on a GPU Matrix where the GPU has no compiled kernel and the loop of
products is known to be worse (label propagation, core numbers; connected components and
triangle counts up to a size): the CPU's kernel on a host copy, its result back on the
GPU, the same answer as the loop."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas.config import config
from gblas.planner import algorithms

PLANS = {"label_propagation": (lambda A, s: algorithms.plan_label_propagation(
                                   A, "semi-synchronous", s), "lpa/csr/cpu"),
         "core_number": (algorithms.plan_core_number, "core_number/csr/cpu"),
         "connected_components": (lambda A, s: algorithms.plan_components(A, "weak", s),
                                  "components/csr/cpu/weak"),
         "triangle_count": (algorithms.plan_triangle_count, "triangle_count/csr/cpu"),
         "triangles": (lambda A, s: algorithms.plan_triangle_count(A, s, per_vertex=True),
                       "triangles/csr/cpu/per_vertex")}


class _OnGPU:
    """What the planner reads of a GPU Matrix: its device and entries."""

    device = "gpu"
    nvals = 1000


@pytest.fixture
def gpu_without_kernels(monkeypatch):
    """The GPU backend (it registers none of these kernels) without loading CuPy."""
    registered = algorithms.has_kernel
    monkeypatch.setattr(algorithms, "has_kernel",
                        lambda *k: k[2] == "cpu" and registered(*k))
    monkeypatch.setattr(algorithms, "_COMPILED", {})


@pytest.mark.parametrize("alg", sorted(PLANS))
def test_the_plan_runs_on_a_host_copy(alg, gpu_without_kernels):
    plan_of, kernel = PLANS[alg]
    plan = plan_of(_OnGPU(), config.current())
    assert (plan.device, plan.kernel, plan.details["copied_from"]) == ("cpu", kernel, "gpu")
    assert "host copy" in plan.reason and all(k.device == "cpu" for k in plan.steps)
    with gb.config(format="csr"):  # a pinned format keeps the loop, on the GPU
        plan = plan_of(_OnGPU(), gb.config.current())
    assert plan.kernel == "" and plan.device == "gpu"
    # a CPU Matrix: its own kernel, nothing copied
    plan = plan_of(gb.Matrix.from_coo([0, 1], [1, 0], shape=(2, 2)), config.current())
    assert plan.kernel == kernel and "copied_from" not in plan.details


def test_large_components_stay_on_the_gpu(gpu_without_kernels):
    big = type("Big", (_OnGPU,), {"nvals": algorithms.HOST_COMPONENTS_MAX_ENTRIES + 1})()
    plan = algorithms.plan_components(big, "strong", config.current())
    assert plan.kernel == "" and plan.device == "gpu"
    plan = algorithms.plan_components(_OnGPU(), "strong", config.current())
    assert plan.kernel == "components/csr/cpu/strong" and plan.device == "cpu"


@pytest.mark.parametrize("per_vertex", [False, True])
def test_large_triangle_counts_stay_on_the_gpu(per_vertex, gpu_without_kernels):
    limit = (algorithms.HOST_TRIANGLES_PER_VERTEX_MAX_ENTRIES if per_vertex
             else algorithms.HOST_TRIANGLES_MAX_ENTRIES)
    for nvals, device in ((limit, "cpu"), (limit + 1, "gpu")):
        A = type("Sized", (_OnGPU,), {"nvals": nvals})()
        plan = algorithms.plan_triangle_count(A, config.current(), per_vertex=per_vertex)
        assert plan.device == device and (plan.kernel == "") == (device == "gpu")


@pytest.mark.gpu
@pytest.mark.parametrize("alg, kw", [("label_propagation", {"method": "synchronous"}),
                                     ("label_propagation", {}), ("core_number", {}),
                                     ("connected_components", {}),
                                     ("connected_components", {"connection": "strong"}),
                                     ("triangle_count", {}), ("triangles", {}),
                                     ("clustering", {})])
def test_gpu_results_equal_the_loop_on_the_gpu(alg, kw):
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("no GPU")
    f = getattr(gb.algorithms, alg)
    S = gb.io.kronecker(8, 8, seed=2, symmetric=alg != "connected_components").to_scipy()
    A = gb.Matrix.from_scipy(S).to("gpu")
    got = f(A, **kw)
    assert gb.explain(f, A, **kw).device == "cpu"
    with gb.config(format="csr"):  # the loop of products, on the GPU
        want = f(A, **kw)
    if alg == "triangle_count":
        assert isinstance(got, int) and got == want > 0
        return
    assert got.device == "gpu"
    np.testing.assert_allclose(got.to("cpu").to_dense(), want.to("cpu").to_dense())


@pytest.mark.gpu
def test_host_copy_kept_with_the_storage():
    """A GPU Matrix's host copy is made once for the host routes that reuse the Matrix
    (the transpose built on it too), and a Matrix written to gets a new one: its answer
    follows the write."""
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("no GPU")
    from gblas.algorithms.common import on_device
    from gblas.planner.cost import summary

    S = gb.io.kronecker(8, 8, seed=3, symmetric=True).to_scipy()
    A = gb.Matrix.from_scipy(S).to("gpu")
    first = gb.algorithms.triangle_count(A)
    host = summary(A.csr())[("host_matrix", "cpu")]
    assert on_device(A, "cpu") is host and host.device == "cpu"
    assert gb.algorithms.core_number(A).device == "gpu"
    assert on_device(A, "cpu") is host and host.has_format("csr", transposed=True)
    # an edge the graph lacks, both ways: the storage changes
    i, j = 0, int(np.flatnonzero(S.toarray()[0] == 0)[1])
    gb.assign(A, 1, [i], [j])
    gb.assign(A, 1, [j], [i])
    assert on_device(A, "cpu") is not host
    want = gb.algorithms.triangle_count(gb.Matrix.from_scipy(A.to("cpu").to_scipy()))
    assert gb.algorithms.triangle_count(A) == want and want >= first
