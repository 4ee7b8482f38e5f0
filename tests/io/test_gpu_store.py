"""gb.io.save / load of GPU matrices with their GPU formats."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

from gpu_helpers import cp  # noqa: E402  (skips the module without a GPU)

import gblas as gb  # noqa: E402
from gblas.io import generators, load, save  # noqa: E402


@pytest.mark.parametrize("fmt", ["csr", "gpu_segmented", "gpu_heavy_light", "gpu_relabelled"])
def test_gpu_round_trip(tmp_path, fmt):
    S = generators.kronecker(12, 8, seed=2).to_scipy()
    A = gb.Matrix.from_scipy(sp.csr_array(S)).to("gpu")
    x = gb.Vector.from_dense(cp.ones(A.shape[1], dtype=np.float32))
    with gb.config(format=fmt):
        want = cp.asnumpy(gb.mxv(A.T, x, "plus_times").to_dense())
    save(tmp_path / "g.npz", A)
    B = load(tmp_path / "g.npz")
    assert B.device == "gpu" and B.isequal(A)
    assert set(B._cache) <= set(A._cache)
    with gb.config(format=fmt):
        got = cp.asnumpy(gb.mxv(B.T, x, "plus_times").to_dense())
    np.testing.assert_allclose(got, want, rtol=1e-6)
    C = load(tmp_path / "g.npz", device="cpu")  # GPU layouts are left out
    assert C.device == "cpu" and C.isequal(A.to("cpu"))
    assert not any(k[0].startswith("gpu_") for k in C._cache)
