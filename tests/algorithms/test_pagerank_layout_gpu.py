"""GPU PageRank whose products read ``s`` in the light panels' relabelled column order:
the vector step writes ``s`` there and the products skip their gather; the ranks equal
the CPU's, also when the layout changes between iterations (``s`` is put back in column
order first)."""

from __future__ import annotations

import numpy as np
import pytest
from graph_cases import hub_graph

import gblas as gb
from gblas.formats.base import OperandLayout

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")


def _relabelled(G):
    """Cache a ``gpu_heavy_light`` of ``G'`` whose light panels relabel their columns
    (small graphs do not pay for it by default), as the planner would find it built."""
    from gblas.formats.gpu_heavy_light import GPUHeavyLight

    H = GPUHeavyLight.from_csr(G.csr(transposed=True), light_cols=64, light_rows=64,
                               light_unit=512, light_relabel=True)
    assert H.operand_layout() is not None
    G._cache[("gpu_heavy_light", True, ())] = H
    return H


def _spy(monkeypatch, fused: list | None = None) -> list:
    """The ``x_layout`` of every light-panels product (and in ``fused`` whether it ran
    PageRank's step)."""
    from gblas.backends.gpu import heavy_light

    seen = []
    real = heavy_light.light_panels_pull

    def spy(*args, x_layout=False, then=None, **kw):
        seen.append(x_layout)
        if fused is not None:
            fused.append(then is not None)
        return real(*args, x_layout=x_layout, then=then, **kw)

    monkeypatch.setattr(heavy_light, "light_panels_pull", spy)
    return seen


@pytest.mark.parametrize("kind", ["bool", "weights"])
@pytest.mark.parametrize("personalized", [False, True])
def test_products_read_s_in_the_layout(kind, personalized, monkeypatch):
    A = hub_graph(kind, 3000, seed=4)
    kw = {"tol": 1e-10, "max_iter": 300}
    if personalized:
        kw["personalization"] = np.random.default_rng(1).random(3000) + 0.1
    G = A.to("gpu")
    _relabelled(G)
    fused: list = []
    seen = _spy(monkeypatch, fused)
    with gb.config(format="gpu_heavy_light"):
        got = gb.algorithms.pagerank(G, **kw).to("cpu").to_dense()
    # every product runs the vector step in its fold, which writes s into the layout:
    # the first reads s in column order, every later one in the layout (a weighted
    # matrix's out-degrees are a product too, before them)
    first = 1 if kind == "weights" else 0
    assert not any(seen[:first + 1]) and len(seen) > first + 3 and all(seen[first + 1:]), seen
    assert not any(fused[:first]) and all(fused[first:]), fused
    np.testing.assert_allclose(got, gb.algorithms.pagerank(A, **kw).to_dense(),
                               rtol=1e-11, atol=1e-15)


def test_a_layout_that_changes_puts_s_back_in_column_order(monkeypatch):
    """A new layout object at every plan (as after a rebuild of the format): each
    iteration puts s back in column order, its product reads it there, and its step
    writes s into the new layout; the ranks do not change."""
    from gblas.formats.gpu_heavy_light import GPUHeavyLight

    A = hub_graph("bool", 3000, seed=5)
    G = A.to("gpu")
    _relabelled(G)
    real = GPUHeavyLight.operand_layout

    def fresh(self):
        lay = real(self)
        return None if lay is None else OperandLayout(lay.positions.copy(), lay.size)

    monkeypatch.setattr(GPUHeavyLight, "operand_layout", fresh)
    fused: list = []
    seen = _spy(monkeypatch, fused)
    with gb.config(format="gpu_heavy_light"):
        got = gb.algorithms.pagerank(G, tol=1e-10).to("cpu").to_dense()
    assert len(seen) > 3 and not any(seen) and all(fused), (seen, fused)
    np.testing.assert_allclose(got, gb.algorithms.pagerank(A, tol=1e-10).to_dense(),
                               rtol=1e-11, atol=1e-15)


@pytest.mark.parametrize("personalized", [False, True])
def test_a_kernel_without_the_step_reads_the_layout_the_step_wrote(personalized,
                                                                     monkeypatch):
    """A product kernel that cannot run the step: the first product reads s in column
    order, the separate step writes s into the layout, and every later product reads it
    there without running the step."""
    import gblas.core.operations as operations

    A = hub_graph("bool", 3000, seed=7)
    kw = {"tol": 1e-10}
    if personalized:
        kw["personalization"] = np.random.default_rng(2).random(3000) + 0.1
    G = A.to("gpu")
    _relabelled(G)
    monkeypatch.setattr(operations, "epilogues", lambda kernel: ())
    fused: list = []
    seen = _spy(monkeypatch, fused)
    with gb.config(format="gpu_heavy_light"):
        got = gb.algorithms.pagerank(G, **kw).to("cpu").to_dense()
    assert not seen[0] and len(seen) > 3 and all(seen[1:]) and not any(fused), seen
    np.testing.assert_allclose(got, gb.algorithms.pagerank(A, **kw).to_dense(),
                               rtol=1e-11, atol=1e-15)


def test_a_callback_keeps_s_in_column_order(monkeypatch):
    """With a callback (its checkpoints hold s in column order) no product reads the
    layout."""
    A = hub_graph("bool", 3000, seed=6)
    G = A.to("gpu")
    _relabelled(G)
    seen = _spy(monkeypatch)
    with gb.config(format="gpu_heavy_light"):
        got = gb.algorithms.pagerank(G, callback=lambda s: True).to("cpu").to_dense()
    assert seen and not any(seen)
    np.testing.assert_allclose(got, gb.algorithms.pagerank(A).to_dense(), rtol=1e-11,
                               atol=1e-15)


def test_products_that_run_the_step_record_no_device_time(monkeypatch):
    """The planner weighs formats by their products' measured device time: a product
    that also ran the step is not recorded (the same loop without the step is)."""
    import gblas.core.operations as operations
    from gblas.planner import devicetime, hosttime

    A = hub_graph("bool", 3000, seed=8)
    G = A.to("gpu")
    _relabelled(G)
    monkeypatch.setattr(hosttime, "MAX_ENTRIES", 0)   # time products of any size
    ends: list = []
    real = devicetime.end
    monkeypatch.setattr(devicetime, "end", lambda *a, **k: (ends.append(1), real(*a, **k)))
    with gb.config(format="gpu_heavy_light"):
        gb.algorithms.pagerank(G, tol=1e-10)
        assert not ends
        monkeypatch.setattr(operations, "epilogues", lambda kernel: ())
        gb.algorithms.pagerank(G, tol=1e-10)
    assert len(ends) > 3
