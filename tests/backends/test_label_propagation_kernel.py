"""Label propagation by the compiled sweeps against the loop of products: the same labels,
for both schedules, directed and undirected graphs, several seeds."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 40), st.integers(0, 150), st.integers(0, 2**32 - 1),
       st.sampled_from(["semi-synchronous", "synchronous"]), st.booleans(),
       st.integers(0, 3))
def test_compiled_sweeps_equal_the_products(n, m, seed, method, undirected, lpa_seed):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if undirected:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    S = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    kw = {"method": method, "seed": lpa_seed, "max_iter": 7}
    assert gb.explain(gb.algorithms.label_propagation, A, **kw).kernel == "lpa/csr/cpu"
    got = gb.algorithms.label_propagation(A, **kw).to_dense()
    with gb.config(format="csr"):  # a pinned format keeps the products
        assert gb.explain(gb.algorithms.label_propagation, A, **kw).kernel == ""
        want = gb.algorithms.label_propagation(A, **kw).to_dense()
    np.testing.assert_array_equal(got, want)


def test_two_cliques():
    import itertools

    e = [p for q in (range(5), range(5, 10)) for p in itertools.combinations(q, 2)]
    r, c = zip(*(e + [(4, 5)]))
    A = gb.Matrix.from_coo(r + c, c + r, shape=(10, 10))
    assert gb.algorithms.label_propagation(A).to_dense().tolist() == [0] * 5 + [5] * 5


class _OnGPU:
    """What the planner reads of a GPU Matrix: its device."""

    device = "gpu"


def test_a_gpu_matrix_is_swept_on_a_host_copy(monkeypatch):
    from gblas.config import config
    from gblas.planner import algorithms
    from gblas.planner.algorithms import plan_label_propagation

    # the GPU backend (it registers no sweeps) without loading CuPy
    cpu_only = algorithms.has_kernel
    monkeypatch.setattr(algorithms, "has_kernel", lambda *k: k[2] == "cpu" and cpu_only(*k))
    monkeypatch.setattr(algorithms, "_COMPILED", {})

    plan = plan_label_propagation(_OnGPU(), "semi-synchronous", config.current())
    assert (plan.device, plan.kernel, plan.details["copied_from"]) == ("cpu", "lpa/csr/cpu",
                                                                        "gpu")
    assert plan.steps[0].device == "cpu" and "host copy" in plan.reason
    with gb.config(format="csr"):  # a pinned format keeps the loop on the GPU
        plan = plan_label_propagation(_OnGPU(), "synchronous", gb.config.current())
    assert plan.kernel == "" and plan.device == "gpu"


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["semi-synchronous", "synchronous"])
def test_gpu_labels_equal_the_products_on_the_gpu(method):
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("no GPU")
    S = gb.io.kronecker(8, 8, seed=2, symmetric=True).to_scipy()
    A = gb.Matrix.from_scipy(S).to("gpu")
    got = gb.algorithms.label_propagation(A, method=method, max_iter=7)
    assert got.device == "gpu"
    assert gb.explain(gb.algorithms.label_propagation, A, method=method).device == "cpu"
    with gb.config(format="csr"):  # the loop of products, on the GPU
        want = gb.algorithms.label_propagation(A, method=method, max_iter=7)
    np.testing.assert_array_equal(got.to("cpu").to_dense(), want.to("cpu").to_dense())
