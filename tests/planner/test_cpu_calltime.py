"""CPU pull calls over large matrices timed as they run, and the pull rule that takes them."""

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas import hardware
from gblas.formats.costing import summary
from gblas.planner import devicetime, hosttime


@pytest.fixture
def large(monkeypatch):
    """A matrix that counts as large (MAX_ENTRIES lowered) and whose vertex data exceeds
    the cache the rule allows (a 64 KB L3 assumed): the rule estimates every format."""
    monkeypatch.setattr(hosttime, "MAX_ENTRIES", 100)
    rng = np.random.default_rng(5)
    S = sp.csr_array((rng.random(200_000), (rng.integers(0, 20000, 200_000),
                                            rng.integers(0, 20000, 200_000))),
                     shape=(20000, 20000))
    S.sum_duplicates()
    A = gb.Matrix.from_scipy(S)
    x = gb.Vector.from_dense(np.ones(20000))
    with hardware.assume(l3=64 << 10):
        yield A, x, S


def test_cpu_calls_are_timed_and_replace_the_model(large):
    A, x, S = large
    before = gb.explain(gb.mxv, A, x, "plus_times")
    assert before.format == "csr" and "device_from" not in before.details
    for _ in range(hosttime.MIN_CALLS):
        y = gb.mxv(A, x, "plus_times")
    plan = gb.explain(gb.mxv, A, x, "plus_times")
    assert "csr measured here over 3 calls" in plan.details["device_from"]
    assert plan.details["model_ms"]["csr"] == before.details["estimates_ms"]["csr"]
    # the timing leaves the answer alone
    np.testing.assert_allclose(y.to_dense(), S @ np.ones(20000))


def test_a_slow_measured_csr_makes_a_build_pay(large):
    """CSR measured far slower than its model: the preferred format's build pays at once."""
    A, x, _ = large
    before = gb.explain(gb.mxv, A, x, "plus_times")
    assert before.format == "csr" and before.details.get("pending")
    for _ in range(hosttime.MIN_CALLS):
        devicetime.record("csr", "plus_times", 10.0, 0.0, summary(A.csr()))
    plan = gb.explain(gb.mxv, A, x, "plus_times")
    assert plan.details["estimates_ms"]["csr"] == pytest.approx(1e4)
    assert plan.format == before.details["pending"], plan.reason


def test_masked_and_small_calls_are_not_timed(monkeypatch):
    S = sp.random(300, 300, density=0.05, format="csr", random_state=6)
    A = gb.Matrix.from_scipy(S)
    x = gb.Vector.from_dense(np.ones(300))
    m = gb.Vector.from_dense(np.arange(300) % 2 == 0)
    for _ in range(4):
        gb.mxv(A, x, "plus_times")            # small: within MAX_ENTRIES
    monkeypatch.setattr(hosttime, "MAX_ENTRIES", 100)
    for _ in range(4):
        gb.mxv(A, x, "plus_times", mask=m.V)  # masked
    assert not any(k[0] == "device_s" for k in summary(A.csr()) if isinstance(k, tuple))
