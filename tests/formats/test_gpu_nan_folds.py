"""Float ``min`` / ``max`` on the GPU keep the CPU's NaN rule in every mxv kernel.

A NaN product is ignored unless every product of the row is NaN; then the row is NaN (as
``np.fmin.reduce`` gives, and as SuiteSparse:GraphBLAS's ``fmin`` does).  The kernels
that fold into accumulators shared by threads (push, push_lb, shards, light panels)
started them at the identity (+inf for ``min``), which turned an all-NaN row into inf.
Each kernel runs on a matrix with NaN and -NaN entries and rows made only of NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

# skips this module where CuPy or a CUDA device is missing
from gpu_helpers import cp, dense_result, dense_vec, semiring

from gblas.backends.gpu import frontier
from gblas.backends.registry import VecData, get_kernel
from gblas.formats.csr import CSR
from gblas.formats.gpu_heavy_light import GPUHeavyLight
from gblas.formats.gpu_relabelled import GPURelabelled
from gblas.formats.gpu_segmented import GPUSegmented
from gblas.formats.gpu_shards import GPUShards
from gblas.testing.oracle import rand_csr

pytestmark = pytest.mark.gpu

#: The kernels, each given (CSR on the GPU, its transpose, dense or sparse x, semiring,
#: types, m) and with tiny parameters, so that small matrices take every path.
KERNELS = {
    "csr pull": lambda A, AT, xd, xs, sr, t, m: get_kernel("mxv", "csr", "gpu", "pull")(
        A, xd, None, sr, t),
    "csr push": lambda A, AT, xd, xs, sr, t, m: get_kernel("mxv", "csr", "gpu", "push")(
        AT, xs, None, sr, t, m),
    "push_lb": lambda A, AT, xd, xs, sr, t, m: frontier.mxv_push_lb(AT, xs, None, sr, t, m,
                                                                    epb=4),
    "gpu_segmented": lambda A, AT, xd, xs, sr, t, m: get_kernel(
        "mxv", "gpu_segmented", "gpu", "pull")(
        GPUSegmented.from_csr(A, segment_cols=7, hot=6, range_rows=8), xd, None, sr, t),
    "gpu_relabelled": lambda A, AT, xd, xs, sr, t, m: get_kernel(
        "mxv", "gpu_relabelled", "gpu", "pull")(GPURelabelled.from_csr(A), xd, None, sr, t),
    "gpu_shards": lambda A, AT, xd, xs, sr, t, m: get_kernel(
        "mxv", "gpu_shards", "gpu", "pull")(
        GPUShards.from_csr(A, slots=64, item_edges=40), xd, None, sr, t),
    "heavy tiles and light panels": lambda A, AT, xd, xs, sr, t, m: get_kernel(
        "mxv", "gpu_heavy_light", "gpu", "pull")(
        GPUHeavyLight.from_csr(A, tile_rows=8, tile_cols=32, heavy_threshold=10,
                               unit_entries=100, block_threads=64, light_cols=16,
                               light_rows=8, light_unit=256, light_relabel=False),
        xd, None, sr, t),
}


def nan_matrix(rng, dt):
    """A CSR with about a quarter of its values NaN (some with the sign bit), and every
    fifth non-empty row all NaN."""
    A = rand_csr(rng, 61, 83, dt, density=0.2, long_rows=2, hot_cols=3)
    vals = A.values.copy()
    vals[rng.random(vals.size) < 0.25] = np.nan
    vals[rng.random(vals.size) < 0.05] = -np.asarray(np.nan, dtype=dt)
    full = np.flatnonzero(np.diff(A.indptr) > 0)[::5]
    for i in full:
        vals[A.indptr[i]:A.indptr[i + 1]] = np.nan
    return CSR(A.shape, A.indptr, A.indices, vals, A.dtype, None, A.device)


def expected(A, x, xpres, name):
    """Per row: NaN-ignoring min / max of the products over present x, NaN when all are."""
    add = np.fmin if name.startswith("min") else np.fmax
    mul = np.add if name.endswith("plus") else np.multiply
    m = A.shape[0]
    vals = np.zeros(m, dtype=A.dtype)
    pres = np.zeros(m, dtype=bool)
    for i in range(m):
        s, e = A.indptr[i], A.indptr[i + 1]
        j = A.indices[s:e]
        keep = xpres[j]
        if keep.any():
            vals[i] = add.reduce(mul(A.values[s:e][keep], x[j[keep]]))
            pres[i] = True
    return vals, pres


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("name", ["min_plus", "max_times"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_all_nan_rows_stay_nan(kernel, name, dt, rng):
    sr = semiring(name)
    A = nan_matrix(rng, dt)
    x = (rng.random(A.shape[1]) + 0.5).astype(dt)
    push = kernel in ("csr push", "push_lb")
    xpres = rng.random(A.shape[1]) < (0.3 if push else 1.0)
    idx = np.flatnonzero(xpres)
    xs = VecData(len(x), cp.asarray(idx.astype(np.int64)), cp.asarray(x[idx]))
    Ag = A.to_device("gpu")
    types = sr.types(A.dtype, x.dtype)
    y = dense_result(KERNELS[kernel](Ag, Ag.transpose() if push else None,
                                     dense_vec(x, None if xpres.all() else xpres), xs, sr,
                                     types, A.shape[0]))
    want, wpres = expected(A, x, xpres, name)
    pres = np.ones(A.shape[0], bool) if y.present is None else cp.asnumpy(y.present)
    got = cp.asnumpy(y.values)
    np.testing.assert_array_equal(pres, wpres)
    nan_rows = wpres & np.isnan(want)
    assert nan_rows.any(), "the matrix has rows whose products are all NaN"
    # NaN where every product is NaN; elsewhere the same (exact: a min picks a product)
    np.testing.assert_array_equal(got[wpres], want[wpres])
