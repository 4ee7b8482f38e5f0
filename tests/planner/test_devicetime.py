"""Device time of large GPU calls measured as they run, and the GPU estimates that take it."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import two_processes

import gblas as gb
from gblas.planner import devicetime, hosttime

MODEL = {"csr": 1e-3, "gpu_segmented": 8e-4, "gpu_heavy_light": 4e-4}
#: Entries of a matrix large enough that measured calls apply.
BIG = hosttime.MAX_ENTRIES + 1


def test_the_model_until_enough_calls():
    assert devicetime.call_seconds(MODEL, "plus_times", nnz=BIG) == (MODEL, "model")
    for _ in range(hosttime.MIN_CALLS - 1):
        devicetime.record("csr", "plus_times", 2e-3, 1e-3)
    assert devicetime.call_seconds(MODEL, "plus_times", nnz=BIG)[0] == MODEL
    devicetime.record("csr", "plus_times", 2e-3, 1e-3)
    secs, source = devicetime.call_seconds(MODEL, "plus_times", nnz=BIG)
    assert secs["csr"] == pytest.approx(2e-3) and source == "csr x2 over 3 calls"
    assert secs["gpu_heavy_light"] == MODEL["gpu_heavy_light"]   # not measured: the model


def test_a_matrix_own_calls_then_the_ratio_then_any_semiring():
    own = {}
    for _ in range(3):
        devicetime.record("gpu_heavy_light", "plus_times", 6e-4, 4e-4, own)  # x1.5 here
        devicetime.record("gpu_heavy_light", "plus_times", 1.2e-3, 1e-3)    # x1.2 elsewhere
    mine, source = devicetime.call_seconds(MODEL, "plus_times", own, BIG)
    assert mine["gpu_heavy_light"] == pytest.approx(6e-4)
    assert "measured here over 3 calls" in source
    other, _ = devicetime.call_seconds(MODEL, "plus_times", {}, BIG)
    assert other["gpu_heavy_light"] == pytest.approx(4e-4 * np.median([1.5] * 3 + [1.2] * 3))
    # another semiring: the format's ratios over any semiring
    anysr, _ = devicetime.call_seconds(MODEL, "min_plus", {}, BIG)
    assert anysr["gpu_heavy_light"] == pytest.approx(other["gpu_heavy_light"])


def test_the_ratio_is_bounded_and_nonsense_is_ignored():
    for _ in range(3):
        devicetime.record("csr", "plus_times", 1.0, 1e-3)       # a stall: x1000
        devicetime.record("csr", "plus_times", -1.0, 1e-3)      # ignored
        devicetime.record("csr", "plus_times", 1e-3, 0.0)       # no model: no ratio
    secs, _ = devicetime.call_seconds(MODEL, "plus_times", nnz=BIG)
    assert secs["csr"] == pytest.approx(MODEL["csr"] * devicetime.SCALE_BOUNDS[1])


def test_a_call_without_a_model_is_kept_with_its_matrix_only():
    own = {}
    for _ in range(3):
        devicetime.record("gpu_segmented", "plus_times", 3e-3, 0.0, own)  # a pinned format
    assert devicetime.call_seconds(MODEL, "plus_times", nnz=BIG)[0] == MODEL
    assert devicetime.call_seconds(MODEL, "plus_times", own, BIG)[0]["gpu_segmented"] == 3e-3


def test_small_matrices_keep_the_model():
    for _ in range(3):
        devicetime.record("csr", "plus_times", 2e-3, 1e-3)
    assert devicetime.call_seconds(MODEL, "plus_times", nnz=hosttime.MAX_ENTRIES) == \
        (MODEL, "model")


def test_a_new_source_changes_the_generation():
    g = hosttime.generation()
    for _ in range(hosttime.MIN_CALLS):
        devicetime.record("csr", "plus_times", 1e-3, 1e-3)
    assert hosttime.generation() == g + 1


def test_the_gpu_pull_rule_takes_the_measured_device_time(monkeypatch):
    """With the device's facts stubbed (a host matrix), the GPU rule's csr estimate is the
    matrix's measured call time, and says so; the model stays in ``model_ms``."""
    from gblas import hardware
    from gblas.formats.costing import summary
    from gblas.planner import choose

    monkeypatch.setattr(hosttime, "MAX_ENTRIES", 100)   # this small matrix counts as large
    monkeypatch.setattr(hardware, "gpu_l2_bytes", lambda: 50 << 20)
    monkeypatch.setattr(hardware, "gpu_free_bytes", lambda: 1 << 40)
    A = gb.Matrix.from_scipy(sp.random(3000, 3000, density=0.003, format="csr",
                                       random_state=2))
    csr = A.get_format("csr")

    def details():
        return choose.choose_gpu_pull_format(A, csr, False, 8, 9, expected_uses=1000,
                                             semiring="plus_times")[2]

    before = details()
    assert before["device_from"] == "model"
    for _ in range(3):
        devicetime.record("csr", "plus_times", 0.01, before["model_ms"]["csr"] / 1e3,
                          summary(csr))
    after = details()
    assert "csr measured here" in after["device_from"]
    assert after["estimates_ms"]["csr"] == pytest.approx(10.0)
    assert after["model_ms"]["csr"] == before["model_ms"]["csr"]   # the model, kept


@pytest.mark.gpu
def test_gpu_calls_are_timed_by_events(monkeypatch):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("CuPy sees no CUDA device")
    monkeypatch.setattr(hosttime, "MAX_ENTRIES", 100)   # this small matrix counts as large
    S = sp.random(2000, 2000, density=0.01, format="csr", random_state=4, dtype=np.float32)
    A = gb.Matrix.from_scipy(S).to("gpu")
    x = gb.Vector.from_dense(np.ones(2000, np.float32)).to("gpu")
    ys = [gb.mxv(A, x, "plus_times") for _ in range(6)]
    cp.cuda.Device().synchronize()
    plan = gb.explain(gb.mxv, A, x, "plus_times")
    assert "measured here" in plan.details["device_from"], plan.details["device_from"]
    want = S @ np.ones(2000, np.float32)
    got = ys[-1].to_dense()
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=1e-5)


# ----------------------------------------------------------- earlier processes' ratios


def test_a_new_process_scales_the_model_by_the_saved_ratios(cache, as_new_process):
    own = {}
    for _ in range(3):
        devicetime.record("gpu_heavy_light", "plus_times", 6e-4, 4e-4, own)   # x1.5
    assert hosttime.save() is not None
    as_new_process()
    secs, source = devicetime.call_seconds(MODEL, "plus_times", {}, BIG)
    assert secs["gpu_heavy_light"] == pytest.approx(6e-4)
    assert source == "gpu_heavy_light x1.5 over 3 calls of earlier processes"
    assert secs["csr"] == MODEL["csr"]       # never measured: the model
    # this process's own ratios come first once there are enough of them
    for _ in range(3):
        devicetime.record("gpu_heavy_light", "plus_times", 4.4e-4, 4e-4)    # x1.1
    secs, source = devicetime.call_seconds(MODEL, "plus_times", {}, BIG)
    assert secs["gpu_heavy_light"] == pytest.approx(4.4e-4) and "earlier" not in source
    with devicetime.set_aside(prior=True):
        assert devicetime.call_seconds(MODEL, "plus_times", {}, BIG)[0]["gpu_heavy_light"] \
            == pytest.approx(6e-4)
    with devicetime.set_aside():
        assert devicetime.call_seconds(MODEL, "plus_times", {}, BIG) == (MODEL, "model")
    # host times and ratios share the file, each merged with the saved ones
    for _ in range(3):
        hosttime.record("csr", "plus_times", 1e-4)
    hosttime.save()
    as_new_process()
    assert hosttime.host_seconds({"csr": 5e-5}, "plus_times")[0]["csr"] == pytest.approx(1e-4)
    secs, _ = devicetime.call_seconds(MODEL, "plus_times", {}, BIG)
    assert secs["gpu_heavy_light"] == pytest.approx(4e-4 * np.median([1.5] * 3 + [1.1] * 3))


def test_saved_ratios_out_of_range_are_not_trusted(cache, as_new_process):
    import json

    path = cache / hosttime.FILE_NAME
    entry = {"saved": 1.0, "calls": {"csr|plus_times": [1e-4] * 3},
             "ratios": {"csr|plus_times": [1e9, -2.0, "x", True, 2.0],
                        "gpu_segmented|plus_times": [0.0, float("inf")],
                        "nonsense": [1.0] * 3}}
    path.write_text(json.dumps({"version": hosttime.FILE_VERSION,
                                "machines": {hosttime.machine_key(): entry}}))
    as_new_process()
    assert devicetime.call_seconds(MODEL, "plus_times", {}, BIG) == (MODEL, "model")
    devicetime.record("csr", "plus_times", 2e-3, 1e-3)
    devicetime.record("csr", "plus_times", 2e-3, 1e-3)
    # one valid saved ratio (2.0) and two of this process: three over the same format,
    # but this process's window comes first and holds two only
    secs, source = devicetime.call_seconds(MODEL, "plus_times", {}, BIG)
    assert secs == MODEL and source == "model"


def test_ratios_saved_at_exit_and_read_by_the_next_process(tmp_path):
    """Two real processes: the first records large calls' ratios and exits, the second
    estimates with them."""
    first = ("from gblas.planner import devicetime\n"
             "for _ in range(3): devicetime.record('gpu_segmented', 'plus_times', 3e-3, 2e-3)\n")
    second = ("from gblas.planner import devicetime\n"
              f"print(devicetime.call_seconds({MODEL!r}, 'plus_times', {{}}, {BIG}))\n")
    out = two_processes(tmp_path, first, second)
    assert "'gpu_segmented': 0.0012" in out and "x1.5 over 3 calls of earlier" in out, out
