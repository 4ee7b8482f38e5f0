"""Shared by the GPU test modules: importing this skips the importing module where CuPy or
a CUDA device is missing (with the reason), and gives the device-side helpers they use
(the oracle and its random inputs are :mod:`gblas.testing.oracle`)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

cp = pytest.importorskip("cupy", reason="CuPy is not installed")

from gblas._device import gpu_available  # noqa: E402

if not gpu_available():
    pytest.skip("CuPy sees no CUDA device", allow_module_level=True)

from gblas.backends.registry import VecData  # noqa: E402
from gblas.semirings import builtin  # noqa: E402
from gblas.semirings.ops import BinaryOp, Semiring  # noqa: E402
from gblas.testing import oracle  # noqa: E402

#: A user-defined semiring: ``max`` of a Python ``clip(a * b)`` (compiled to CUDA).
CLIP = BinaryOp("clip", lambda a, b: min(a * b, 1.0))
USER = Semiring("max_clip", builtin.MONOIDS["max"], CLIP)

#: Float tolerances of the format tests (``check_vec(..., loose=True)``).
LOOSE = {"float32": 1e-4, "float64": 1e-10}


def semiring(name: str) -> Semiring:
    """A built-in semiring, ``max_clip`` (:data:`USER`) or one of the test kit's
    user-defined semirings, by name."""
    if name == "max_clip":
        return USER
    if name in builtin.SEMIRINGS:
        return builtin.SEMIRINGS[name]
    from gblas.testing.strategies import USER_SEMIRINGS

    return USER_SEMIRINGS[name]


def dense_vec(values, present=None) -> VecData:
    """A dense device VecData from host values (and presence flags)."""
    return VecData(len(values), None, cp.asarray(values),
                   None if present is None else cp.asarray(present))


def check_vec(y: VecData, ref: dict, sr, r, *, scaled: bool = False,
              loose: bool = False) -> None:
    """Assert that the kernel result ``y`` holds the oracle's ``ref``
    (:func:`gblas.testing.oracle.ref_mxv`): dtype, pattern and values."""
    y = dense_result(y)
    assert y.values.dtype == np.dtype(r)
    pres = None if y.present is None else cp.asnumpy(y.present)
    rtol = LOOSE.get(np.dtype(r).name) if loose else None
    oracle.assert_matches(oracle.vector_entries(cp.asnumpy(y.values), pres), ref, sr, r,
                          scaled=scaled, rtol=rtol)


def dense_result(y: VecData) -> VecData:
    """A kernel result as dense values + presence (push may return a sparse one)."""
    if y.indices is None:
        return y
    vals = cp.zeros(y.size, y.values.dtype)
    pres = cp.zeros(y.size, bool)
    vals[y.indices] = y.values
    pres[y.indices] = True
    return VecData(y.size, None, vals, pres)


def sparse_frontier(rng, xfull: np.ndarray, k: int):
    """``k`` random entries of the host array ``xfull``: their sorted indices, the
    presence array, and the sparse device VecData a push kernel takes."""
    n = xfull.shape[0]
    idx = np.sort(rng.choice(n, k, replace=False))
    xpres = np.zeros(n, bool)
    xpres[idx] = True
    return idx, xpres, VecData(n, cp.asarray(idx.astype(np.int64)), cp.asarray(xfull[idx]))


def larger_graph(rng, n: int = 20000):
    """A random SciPy CSR with power-law out-degrees (capped at 5000) and skewed
    in-degrees, values in [0.5, 1.5)."""
    deg = np.minimum((rng.pareto(1.2, n) * 4).astype(np.int64), 5000)
    rows = np.repeat(np.arange(n), deg)
    cols = (rng.pareto(1.0, rows.size) * 50).astype(np.int64) % n  # skewed in-degrees
    S = sp.csr_array((rng.random(rows.size) + 0.5, (rows, cols)), shape=(n, n))
    S.sum_duplicates()
    return S
