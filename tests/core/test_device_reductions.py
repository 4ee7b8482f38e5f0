"""The device-neutral reductions of ``gblas._device`` on the host (the GPU's are in
``tests/backends/test_gpu_reductions.py``): the results NumPy gives, as host scalars."""

from __future__ import annotations

import numpy as np
import pytest

from gblas import _device


@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int64", "uint64", "float32"])
def test_host_reductions_match_numpy(dt):
    a = (np.arange(-5, 20) % 7).astype(dt)
    assert _device.count_nonzero(a) == np.count_nonzero(a)
    assert _device.all_true(a) == bool(a.all())
    s = _device.array_sum(a)
    assert s == a.sum(dtype=np.float64 if a.dtype.kind == "f" else None)
    assert isinstance(s, float if a.dtype.kind == "f" else int)
    assert _device.extreme(a, "max") == a.max() and _device.extreme(a, "min") == a.min()


def test_nan_is_skipped_and_all_nan_gives_nan():
    assert _device.extreme(np.array([np.nan, 1.0, -4.0]), "min") == -4.0
    assert np.isnan(_device.extreme(np.array([np.nan, np.nan]), "max"))


def test_bincount_keeps_the_length_and_int64():
    got = _device.bincount(np.array([1, 1, 3], dtype=np.int32), 6)
    assert got.dtype == np.int64 and got.tolist() == [0, 2, 0, 1, 0, 0]
    assert _device.bincount(np.array([], dtype=np.int64), 3).tolist() == [0, 0, 0]


def test_array_equal_as_numpy():
    a = np.array([1.0, 2.0, np.nan])
    assert _device.array_equal(a[:2], np.array([1, 2], dtype=np.int8))
    assert not _device.array_equal(a, a)  # NaN equals nothing
    assert not _device.array_equal(a[:2], a)
