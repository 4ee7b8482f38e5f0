"""gblas's GPU whole-array reductions (``backends/gpu/reductions.py``) against NumPy, on
random arrays of every supported dtype: counts, sums, min / max with NaN, histograms,
the bool count of ``Vector.nvals``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.gpu

from gpu_helpers import cp  # noqa: E402  (skips the module without a GPU)

from gblas import _device  # noqa: E402
from gblas.backends.gpu import reductions  # noqa: E402
from gblas.backends.registry import get_kernel  # noqa: E402

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float32", "float64"]
# sizes around the block (256), the grid's last partial block and the 1024-block cap
SIZES = [0, 1, 7, 255, 256, 1025, 4099, 300_001, 2_000_003]


def _random(rng, dt, n):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(n) < 0.3
    if dt.kind == "f":
        a = rng.standard_normal(n).astype(dt) * 100
        a[rng.random(n) < 0.2] = 0
        return a
    info = np.iinfo(dt)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    a = rng.integers(lo, hi, n, endpoint=True).astype(dt)
    a[rng.random(n) < 0.2] = 0
    return a


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_count_sum_min_max_match_numpy(dt, n):
    rng = np.random.default_rng(n * 31 + len(dt))
    a = _random(rng, dt, n)
    g = cp.asarray(a)
    assert reductions.count_nonzero(g) == np.count_nonzero(a)
    assert _device.all_true(g) == bool(a.all())
    if np.dtype(dt).kind in "biu":
        want = int(a.sum(dtype=np.uint64 if np.dtype(dt).kind == "u" else np.int64))
        assert reductions.total(g) == want
    else:
        np.testing.assert_allclose(reductions.total(g), a.astype(np.float64).sum(), rtol=1e-12,
                                   atol=1e-9)
    if n:
        for op in ("min", "max"):
            want = (a.min() if op == "min" else a.max()).item()
            assert reductions.extreme(g, op) == want


def test_sums_wrap_as_numpy_int64_and_stay_exact():
    big = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    assert reductions.total(cp.asarray(big)) == int(big.sum())   # wraps to negative
    u = np.array([2**63, 2**63 - 1], dtype=np.uint64)
    assert reductions.total(cp.asarray(u)) == int(u.sum())


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_min_max_skip_nan_and_all_nan_is_nan(dt):
    a = np.array([np.nan, 3.0, -2.0, np.nan], dtype=dt)
    assert reductions.extreme(cp.asarray(a), "min") == -2.0
    assert reductions.extreme(cp.asarray(a), "max") == 3.0
    assert np.isnan(reductions.extreme(cp.full(5000, np.nan, dtype=dt), "max"))
    assert reductions.count_nonzero(cp.asarray(a)) == 4   # NaN counts, as in NumPy
    with pytest.raises(ValueError, match="empty"):
        reductions.extreme(cp.empty(0, dtype=dt), "min")


def test_the_same_bits_every_call():
    a = cp.asarray(np.random.default_rng(3).standard_normal(3_000_001))
    assert len({reductions.total(a) for _ in range(5)}) == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 300), max_size=3000), st.integers(0, 50),
       st.sampled_from(["int32", "int64", "uint16"]))
def test_bincount_matches_numpy(values, extra, dt):
    a = np.array(values, dtype=dt)
    length = (int(a.max()) + 1 if a.size else 0) + extra
    got = reductions.bincount(cp.asarray(a), length)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(cp.asnumpy(got), np.bincount(a, minlength=length))


def test_bincount_never_writes_past_the_histogram():
    x = cp.asarray(np.array([0, 5, -1, 2, 2, 1 << 40], dtype=np.int64))
    guard = cp.full(64, 7, dtype=np.int64)   # the pool may place a neighbour right after
    got = reductions.bincount(x, 3)
    assert cp.asnumpy(got).tolist() == [1, 0, 2]
    assert bool((guard == 7).all())


def test_bincount_of_floats_is_refused():
    with pytest.raises(TypeError, match="integer values expected"):
        reductions.bincount(cp.zeros(3), 3)


@pytest.mark.parametrize("n", [0, 5, 8, 13, 4096, 100_003])
@pytest.mark.parametrize("offset", [0, 1, 3])
def test_count_true_words_and_tail(n, offset):
    rng = np.random.default_rng(n + offset)
    a = rng.random(n + offset) < 0.5
    g = cp.asarray(a)[offset:]    # unaligned starts take the byte count
    assert get_kernel("count_true", "array", "gpu", "")(g) == int(a[offset:].sum())


@pytest.mark.parametrize("dt", ["int32", "float64"])
def test_array_equal_matches_numpy(dt):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 5, 10_000).astype(dt)
    b = a.copy()
    assert _device.array_equal(cp.asarray(a), cp.asarray(b))
    assert _device.array_equal(cp.asarray(a), cp.asarray(b.astype(np.int64)))
    b[9_999] += 1
    assert not _device.array_equal(cp.asarray(a), cp.asarray(b))
    assert not _device.array_equal(cp.asarray(a), cp.asarray(a[:-1]))
    if dt == "float64":
        a[3] = np.nan
        assert not _device.array_equal(cp.asarray(a), cp.asarray(a))
