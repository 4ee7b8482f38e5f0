"""``repeated_mxv`` (an iterative algorithm's product, checked once and planned per call)
against ``gb.mxv`` on drawn matrices, semirings, dtypes and devices, with ``x`` rewritten
in place between calls, a pinned format or direction, and a sparse ``x``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas._device import xp_for
from gblas.core.operations import repeated_mxv
from gblas.testing import strategies as gst

CASES = [("plus_times", "float64", "float64"), ("plus_second", "bool", "float64"),
         ("min_plus", "float32", "float32"), ("plus_times", "int64", "int32"),
         ("any_pair", "float64", "float64"), ("lor_land", "bool", "bool"),
         (gst.USER_SEMIRINGS["max_clip"], "float64", "float64")]


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _same(got, vec: gb.Vector):
    """The kernel's VecData against the Vector gb.mxv returns: the same entries."""
    want = vec.dense_data()
    n = vec.size
    gp = np.ones(n, bool) if got.present is None else _host(got.present)
    wp = np.ones(n, bool) if want.present is None else _host(want.present)
    np.testing.assert_array_equal(gp, wp)
    gv = _host(got.values).astype(vec.dtype)
    np.testing.assert_array_equal(gv[gp], _host(want.values)[wp])


@settings(max_examples=25, deadline=None)
@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c[0]))
@given(data=st.data())
def test_repeated_mxv_equals_mxv(case, device, data):
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(7), label="shape")
    if data.draw(st.booleans(), label="A.T"):
        A = data.draw(gst.matrices((n, m), adt, iso=None, device=device), label="A^T").T
    else:
        A = data.draw(gst.matrices((m, n), adt, iso=None, device=device), label="A")
    xp = xp_for(device)
    x = gb.Vector.from_dense(xp.asarray(data.draw(gst.vectors(n, xdt, density=1.0),
                                                  label="x").to_dense()))
    pinned = data.draw(st.sampled_from([{}, {"format": "csr"}, {"direction": "push"}]),
                       label="config")
    with gb.config(**pinned):
        product = repeated_mxv(A, x, s)
        for _ in range(3):
            _same(product(), gb.mxv(A, x, s))
            # x rewritten in place, as an iteration does
            vals = x.dense_data().values
            vals[...] = xp.asarray(data.draw(gst.vectors(n, xdt, density=1.0),
                                             label="next x").to_dense())


def test_repeated_mxv_of_a_sparse_x_is_the_whole_call(device):
    xp = xp_for(device)
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 2], [2.0, 3.0, 4.0], shape=(2, 3)).to(device)
    x = gb.Vector.from_coo([2], [5.0], size=3).to(device)
    got = repeated_mxv(A, x)()
    assert _host(got.present).tolist() == [False, True]
    assert float(_host(got.values)[1]) == 20.0
    with pytest.raises(gb.exceptions.DimensionMismatch, match="mxv"):
        repeated_mxv(A, gb.Vector.from_dense(xp.ones(2)))


def test_each_product_counts_one_use(device):
    """A product, planned through ``planned()`` or called, counts one use of its format
    (the uses weigh the planner's builds): reading the format's operand layout is not a
    use."""
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], shape=(3, 3)).to(device)
    x = gb.Vector.from_dense(np.array([1.0, 2.0, 3.0])).to(device)
    product = repeated_mxv(A, x)
    for _ in range(3):
        product()
    layout, run = product.planned()
    assert layout is None
    run()
    assert A.uses("csr") == 4


def test_a_step_the_planned_kernel_cannot_run_is_refused(device):
    """``then=`` only where ``run.epilogues`` names the step (a format with an operand
    layout and a kernel that runs it): elsewhere a clear error, before any kernel runs,
    for the planned pull and for the whole call of a sparse ``x`` alike."""
    from gblas.backends.registry import PageRankStep

    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], shape=(3, 3)).to(device)
    x = gb.Vector.from_dense(np.array([1.0, 2.0, 3.0])).to(device)
    step = PageRankStep(*[None] * 10)
    layout, run = repeated_mxv(A, x).planned()
    assert layout is None and run.epilogues == ()
    with pytest.raises(ValueError, match="cannot run then=PageRankStep"):
        run(then=step)
    sparse = repeated_mxv(A, gb.Vector.from_coo([2], [5.0], size=3).to(device))
    assert sparse.planned()[1].epilogues == ()
    with pytest.raises(ValueError, match="no single pull kernel"):
        sparse(then=step)
