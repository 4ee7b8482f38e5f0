"""Host time of GPU calls measured as they run, and the GPU estimates that take it."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import two_processes

import gblas as gb
from gblas.planner import hosttime

DEFAULTS = {"csr": 5e-5, "gpu_segmented": 1.2e-4, "gpu_heavy_light": 1e-4}


def test_constants_until_enough_calls():
    assert hosttime.host_seconds(DEFAULTS, "plus_times") == (DEFAULTS, "constants")
    for _ in range(hosttime.MIN_CALLS - 1):
        hosttime.record("csr", "plus_times", 1e-3)
    assert hosttime.host_seconds(DEFAULTS, "plus_times") == (DEFAULTS, "constants")
    hosttime.record("csr", "plus_times", 1e-3)
    secs, source = hosttime.host_seconds(DEFAULTS, "plus_times")
    assert secs["csr"] == pytest.approx(1e-3) and source.startswith("measured: csr over 3")


def test_median_of_the_last_window_resists_a_compile():
    hosttime.record("csr", "min_plus", 2.0)  # a first call that compiled its kernels
    for t in (7e-5, 8e-5, 9e-5):
        hosttime.record("csr", "min_plus", t)
    assert hosttime.host_seconds(DEFAULTS, "min_plus")[0]["csr"] == pytest.approx(8.5e-5)
    for _ in range(hosttime.WINDOW):
        hosttime.record("csr", "min_plus", 6e-5)
    assert hosttime.host_seconds(DEFAULTS, "min_plus")[0]["csr"] == pytest.approx(6e-5)


def test_semiring_first_then_any_semiring_then_scaled_constants():
    for t in (1e-4, 1e-4, 1e-4):
        hosttime.record("csr", "min_plus", t)
    for t in (6e-5, 6e-5, 6e-5):
        hosttime.record("csr", "plus_times", t)
    assert hosttime.host_seconds(DEFAULTS, "min_plus")[0]["csr"] == pytest.approx(1e-4)
    assert hosttime.host_seconds(DEFAULTS, "plus_times")[0]["csr"] == pytest.approx(6e-5)
    # a semiring never run: the format's calls over any semiring
    secs, _ = hosttime.host_seconds(DEFAULTS, "max_first")
    assert secs["csr"] == pytest.approx(np.median([1e-4] * 3 + [6e-5] * 3))
    # formats never run: their constants scaled as csr's measured against its constant
    scale = secs["csr"] / DEFAULTS["csr"]
    assert secs["gpu_segmented"] == pytest.approx(DEFAULTS["gpu_segmented"] * scale)
    hosttime.record("gpu_heavy_light", "plus_times", 1.0)
    hosttime.record("gpu_heavy_light", "plus_times", 1.0)
    hosttime.record("gpu_heavy_light", "plus_times", 1.0)
    secs, source = hosttime.host_seconds(DEFAULTS, "plus_times")
    lo, hi = hosttime.SCALE_BOUNDS
    # the scale is a median of ratios (here 1.2 and 1e4), bounded
    assert DEFAULTS["gpu_segmented"] * lo <= secs["gpu_segmented"] \
        <= DEFAULTS["gpu_segmented"] * hi
    assert "gpu_heavy_light over 3 calls" in source and "others scaled" in source


def test_the_gpu_pull_rule_adds_the_measured_host_time(monkeypatch):
    """With the device's facts stubbed (a host matrix), the GPU rule's estimates are its
    memoized device part plus the host time of this process's calls, and say so."""
    from gblas import hardware
    from gblas.planner import choose

    monkeypatch.setattr(hardware, "gpu_l2_bytes", lambda: 50 << 20)
    monkeypatch.setattr(hardware, "gpu_free_bytes", lambda: 1 << 40)
    A = gb.Matrix.from_scipy(sp.random(3000, 3000, density=0.003, format="csr",
                                       random_state=2))
    csr = A.get_format("csr")

    def estimates():
        _, _, details, _ = choose.choose_gpu_pull_format(
            A, csr, False, 8, 9, expected_uses=1000, semiring="plus_times")
        return details["estimates_ms"], details["host_us"]

    before, host = estimates()
    assert host["from"] == "constants" and host["csr"] == pytest.approx(55.0)
    for _ in range(3):
        hosttime.record("csr", "plus_times", 155e-6)
    after, host = estimates()
    assert host["from"].startswith("measured") and host["csr"] == pytest.approx(155.0)
    # every format's estimate moves by its host time's change (the device part is kept)
    for f in before:
        moved = (host[f] - 1e6 * choose.FORMATS[f].gpu_fixed_s) / 1e3
        assert after[f] == pytest.approx(before[f] + moved, abs=2e-3), f


def test_cpu_calls_record_nothing():
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))
    for _ in range(5):
        gb.mxv(A, gb.Vector.from_dense([1.0, 1.0]))
    assert hosttime.host_seconds(DEFAULTS, "plus_times") == (DEFAULTS, "constants")


@pytest.mark.gpu
def test_gpu_calls_are_recorded_and_explained():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("CuPy sees no CUDA device")
    S = sp.random(500, 500, density=0.01, format="csr", random_state=3, dtype=np.float32)
    A = gb.Matrix.from_scipy(S).to("gpu")
    x = gb.Vector.from_dense(np.ones(500, np.float32)).to("gpu")
    y = gb.mxv(A, x, "min_plus")  # builds nothing a pull needs but may compile
    for _ in range(4):
        y = gb.mxv(A, x, "min_plus")
    cp.cuda.Device().synchronize()
    secs, source = hosttime.host_seconds(DEFAULTS, "min_plus")
    assert source.startswith("measured: csr"), source
    assert 0 < secs["csr"] < 1.0
    plan = gb.explain(gb.mxv, A, x, "min_plus")
    assert plan.format == "csr" and plan.details["host_us"]["from"].startswith("measured")
    # the recording leaves the answer alone: y[i] = min over row i of (A[i, j] + 1)
    rows = np.flatnonzero(np.diff(S.indptr))
    want = [S.data[S.indptr[i]:S.indptr[i + 1]].min() + 1 for i in rows]
    idx, val = (np.asarray(a.get() if hasattr(a, "get") else a) for a in y.to_coo())
    assert idx.tolist() == rows.tolist() and np.allclose(val, want)


@pytest.mark.gpu
def test_only_steady_calls_are_recorded():
    """A matrix's first call (its plan not memoized yet) may compile kernels or measure
    statistics: it is not a host time to plan with."""
    pytest.importorskip("cupy", reason="CuPy is not installed")
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("CuPy sees no CUDA device")
    S = sp.random(400, 400, density=0.02, format="csr", random_state=5, dtype=np.float64)
    x = gb.Vector.from_dense(np.ones(400)).to("gpu")
    for _ in range(3):  # a new matrix per call: no steady call among them
        gb.mxv(gb.Matrix.from_scipy(S).to("gpu"), x, "max_plus")
    assert len(hosttime._calls.get(("csr", "max_plus"), ())) == 0
    A = gb.Matrix.from_scipy(S).to("gpu")
    for _ in range(3):
        gb.mxv(A, x, "max_plus")
    assert len(hosttime._calls[("csr", "max_plus")]) == 2


def test_zero_constants_are_not_scaled():
    """A format whose constant is 0 (as tests set it) gives no ratio to scale by."""
    for _ in range(3):
        hosttime.record("csr", "plus_times", 1e-4)
    secs, _ = hosttime.host_seconds({"csr": 0.0, "gpu_segmented": 2e-4}, "plus_times")
    assert secs == {"csr": pytest.approx(1e-4), "gpu_segmented": pytest.approx(2e-4)}


def test_a_matrix_own_calls_come_first():
    own = {}
    for _ in range(3):
        hosttime.record("csr", "plus_times", 3e-4, own)   # this graph's calls: slow
        hosttime.record("csr", "plus_times", 6e-5)        # other graphs' calls
    mine, source = hosttime.host_seconds(DEFAULTS, "plus_times", own)
    others, _ = hosttime.host_seconds(DEFAULTS, "plus_times", {})
    assert mine["csr"] == pytest.approx(3e-4) and "over 3 calls" in source
    assert others["csr"] == pytest.approx(np.median([3e-4] * 3 + [6e-5] * 3))


def test_a_new_source_of_host_time_changes_the_generation():
    g = hosttime.generation()
    for _ in range(hosttime.MIN_CALLS - 1):
        hosttime.record("csr", "plus_times", 1e-4)
    assert hosttime.generation() == g
    hosttime.record("csr", "plus_times", 1e-4)
    assert hosttime.generation() == g + 1
    hosttime.record("csr", "plus_times", 1e-4)
    assert hosttime.generation() == g + 1


# ----------------------------------------------------------- earlier processes' calls


def test_a_new_process_starts_from_the_saved_calls(cache, as_new_process):
    for _ in range(3):
        hosttime.record("csr", "plus_times", 2e-4)
    path = hosttime.save()
    assert path == cache / hosttime.FILE_NAME and path.is_file()
    as_new_process()
    secs, source = hosttime.host_seconds(DEFAULTS, "plus_times")
    assert secs["csr"] == pytest.approx(2e-4)
    assert "csr over 3 calls of earlier processes" in source
    # this process's own calls come first once there are enough of them
    for _ in range(3):
        hosttime.record("csr", "plus_times", 5e-5)
    secs, source = hosttime.host_seconds(DEFAULTS, "plus_times")
    assert secs["csr"] == pytest.approx(5e-5) and "earlier" not in source
    # set aside with prior=True: the earlier processes' calls alone
    with hosttime.set_aside(prior=True):
        assert hosttime.host_seconds(DEFAULTS, "plus_times")[0]["csr"] == pytest.approx(2e-4)
    with hosttime.set_aside():
        assert hosttime.host_seconds(DEFAULTS, "plus_times") == (DEFAULTS, "constants")


def test_saving_merges_keeps_the_window_and_other_machines(cache, monkeypatch):
    import json

    path = cache / hosttime.FILE_NAME
    other = {"saved": 1.0, "calls": {"csr|plus_times": [9e-4] * 3}}
    path.write_text(json.dumps({"version": hosttime.FILE_VERSION,
                                "machines": {"another machine": other}}))
    for _ in range(hosttime.WINDOW - 2):
        hosttime.record("csr", "plus_times", 1e-4)
    hosttime.save()
    hosttime.clear()
    for _ in range(4):
        hosttime.record("csr", "plus_times", 3e-4)
    hosttime.save()
    machines = json.loads(path.read_text())["machines"]
    assert machines["another machine"] == other
    mine = machines[hosttime.machine_key()]["calls"]["csr|plus_times"]
    assert len(mine) == hosttime.WINDOW and mine[-4:] == [3e-4] * 4


def test_a_corrupt_or_malformed_file_is_ignored_then_replaced(cache, as_new_process):
    import json

    path = cache / hosttime.FILE_NAME
    key = hosttime.machine_key()
    bad = [
        "{not json",
        json.dumps({"version": 999, "machines": {}}),
        json.dumps({"version": hosttime.FILE_VERSION,
                    "machines": {key: {"calls": {"csr|plus_times": [-1.0, 5.0, "x"]}}}}),
    ]
    for text in bad:
        path.write_text(text)
        as_new_process()
        assert hosttime.host_seconds(DEFAULTS, "plus_times") == (DEFAULTS, "constants")
    for _ in range(3):
        hosttime.record("csr", "plus_times", 1e-4)
    hosttime.save()
    as_new_process()
    assert hosttime.host_seconds(DEFAULTS, "plus_times")[0]["csr"] == pytest.approx(1e-4)


def test_no_file_when_the_cache_is_off_or_saving_is_off(tmp_path, monkeypatch,
                                                       as_new_process):
    monkeypatch.setenv("GBLAS_CACHE_DIR", "off")
    for _ in range(3):
        hosttime.record("csr", "plus_times", 1e-4)
    assert hosttime.record_path() is None and hosttime.save() is None
    # the test suite's own setting: nothing read from an existing file
    monkeypatch.setenv("GBLAS_CACHE_DIR", str(tmp_path))
    hosttime.save()
    as_new_process()
    hosttime.persist(False)
    assert hosttime.host_seconds(DEFAULTS, "plus_times") == (DEFAULTS, "constants")


def test_saved_at_exit_and_read_by_the_next_process(tmp_path):
    """Two real processes: the first records calls and exits, the second plans with them."""
    first = ("from gblas.planner import hosttime\n"
             "for _ in range(3): hosttime.record('csr', 'min_plus', 3e-4)\n")
    second = ("from gblas.planner import hosttime\n"
              f"print(hosttime.host_seconds({DEFAULTS!r}, 'min_plus'))\n")
    out = two_processes(tmp_path, first, second)
    assert "'csr': 0.0003" in out and "earlier processes" in out, out


def test_large_matrices_keep_the_constants():
    """Above MAX_ENTRIES a call's host time overlaps the device's: the measured host time
    of small graphs is not added there."""
    for _ in range(3):
        hosttime.record("csr", "plus_times", 5e-4)
    small, _ = hosttime.host_seconds(DEFAULTS, "plus_times", nnz=hosttime.MAX_ENTRIES)
    large, source = hosttime.host_seconds(DEFAULTS, "plus_times",
                                          nnz=hosttime.MAX_ENTRIES + 1)
    assert small["csr"] == pytest.approx(5e-4)
    assert large == DEFAULTS and source.startswith("constants (over")


def test_the_file_keeps_a_bounded_number_of_records(cache, monkeypatch):
    import json

    monkeypatch.setattr(hosttime, "MAX_RECORDS", 4)
    for k in range(6):
        for _ in range(3):
            hosttime.record("csr", f"user_semiring_{k}", 1e-4)
    hosttime.save()
    calls = json.loads(hosttime.record_path().read_text())["machines"][
        hosttime.machine_key()]["calls"]
    assert sorted(calls) == [f"csr|user_semiring_{k}" for k in range(2, 6)]
