"""The format contract, run on every registered format and every device it declares.

The cases are generated from the registry (:data:`gblas.formats.FORMATS`), so a new
format is tested by registering it.  Capabilities come from the format's declarations and
the kernel registry: a round trip CSR -> format -> CSR for all; the pull product through
the public API, pinned with ``gb.config(format=...)``, where the device registers a pull
kernel; the format's own cost estimate where it is a pull candidate.  GPU cases carry the
``gpu`` mark (``make test-gpu``).  On the CPU the hardware is assumed tiny, so that small
matrices cut into many segments, tiles and parts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas import hardware
from gblas._device import gpu_available
from gblas.backends import reference as ref
from gblas.backends.registry import has_kernel
from gblas.formats import FORMATS, Format, FormatBase, pull_formats
from gblas.formats.costing import Estimate, PullContext
from gblas.testing import assert_equal, to_reference
from gblas.testing import strategies as gst

#: 1-column segments, 1-row merge blocks, tiny tiles, 3 parts
TINY = {"l1d": 16, "l2": 16, "l3": 16, "line": 4, "threads": 3}
MAX_DIM = 9
#: one (semiring, dtype of A, dtype of x) per family
CASES = [("plus_times", "float64", "float64"), ("min_plus", "int32", "int64"),
         ("any_pair", "float32", "float32"), ("lor_land", "bool", "bool")]


def _cases():
    for name, cls in sorted(FORMATS.items()):
        for device in cls.devices:
            marks = [pytest.mark.gpu] if device == "gpu" else []
            yield pytest.param(name, device, id=f"{name}-{device}", marks=marks)


FORMAT_DEVICES = list(_cases())


def _need(device: str) -> None:
    if device == "gpu" and not gpu_available():
        pytest.skip("no GPU: CuPy with a CUDA device was not found")


def _assume(device: str):
    return hardware.assume(**TINY) if device == "cpu" else hardware.assume()


def _entries(csr) -> tuple:
    """(keys, values) of a CSR on the host, sorted by key."""
    c = csr.to_device("cpu")
    keys = c.row_indices().astype(np.int64) * max(c.shape[1], 1) + c.indices.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    return keys[order], np.asarray(c.dense_values())[order]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_declarations(name):
    cls = FORMATS[name]
    assert cls.name == name
    assert issubclass(cls, FormatBase)
    assert cls.devices and set(cls.devices) <= {"cpu", "gpu"}
    assert cls.pull_rank is None or isinstance(cls.pull_rank, int)
    assert cls.build_ns_entry >= 0 and cls.build_overhead_s >= 0
    params = cls.build_params(hardware.detect())
    assert isinstance(params, dict)
    for attr in ("from_csr", "to_csr", "check_invariants", "to_device"):
        assert callable(getattr(cls, attr)), f"{name} lacks {attr}"


def test_pull_candidates_come_from_the_registry():
    ranks = [FORMATS[f].pull_rank for f in pull_formats()]
    assert ranks == sorted(ranks) and pull_formats()[0] == "csr"
    assert all("cpu" in FORMATS[f].devices for f in pull_formats("cpu"))


@pytest.mark.parametrize("name", pull_formats("cpu"))
@given(A=gst.matrices(max_dim=MAX_DIM, dtype="float64", iso=None))
@settings(max_examples=10, deadline=None)
def test_cpu_pull_estimate(name, A):
    csr = A.csr()
    hw = hardware.detect()
    ctx = PullContext.of(csr, hw, 8, 9, 0 if A.is_iso else 8, 1.0, {})
    e = FORMATS[name].pull_estimate(ctx)
    assert isinstance(e, Estimate) and e.format == name
    assert e.seconds >= 0 and e.build_seconds >= 0 and e.bytes >= 0


@pytest.mark.parametrize("name, device", FORMAT_DEVICES)
@given(A=gst.matrices(max_dim=MAX_DIM, iso=None), data=st.data())
@settings(max_examples=15, deadline=None)
def test_round_trip(name, device, A, data):
    _need(device)
    csr = A.csr().to_device(device)
    with _assume(device):
        F = FORMATS[name].from_csr(csr)
    assert isinstance(F, Format)
    assert F.shape == A.shape and F.device == device
    F.check_invariants()
    assert F.nbytes >= 0
    back = F.to_csr()
    assert back.shape == A.shape and back.dtype == A.dtype
    k0, v0 = _entries(csr)
    k1, v1 = _entries(back)
    np.testing.assert_array_equal(k1, k0)
    np.testing.assert_array_equal(v1, v0)
    if device == "gpu":
        host = F.to_device("cpu")
        assert host.device == "cpu"
        np.testing.assert_array_equal(_entries(host.to_csr())[0], k0)


@pytest.mark.parametrize("name, device", FORMAT_DEVICES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
@given(data=st.data())
@settings(max_examples=12, deadline=None)
def test_pinned_pull_product(name, device, case, data):
    _need(device)
    if not has_kernel("mxv", name, device, "pull"):
        pytest.skip(f"{name} has no pull kernel on {device}")
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices((m, n), adt, iso=None), label="A")
    x = data.draw(gst.vectors(n, xdt), label="x")
    mask = data.draw(gst.masks(m), label="mask")
    expected = ref.mxv(to_reference(A), to_reference(x), s,
                       mask=None if mask is None else to_reference(mask))
    A_dev, x_dev = A.to(device), x.to(device)
    mask_dev = None if mask is None else gst.make_mask(mask.parent.to(device), mask.kind)
    with _assume(device), gb.config(format=name, direction="pull"):
        plan = gb.explain(gb.mxv, A_dev, x_dev, s, mask=mask_dev)
        assert (plan.format, plan.direction, plan.device) == (name, "pull", device), plan
        y = gb.mxv(A_dev, x_dev, s, mask=mask_dev)
    assert A_dev.has_format(name)
    assert_equal(y.to("cpu"), expected)
