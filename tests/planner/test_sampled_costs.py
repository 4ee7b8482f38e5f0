"""The CPU cost model's simulated miss shares (formats/costing.py over the cache
simulator's sampled replay) and the estimates built on them."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.analysis import CacheConfig, pull_csr, simulate
from gblas.backends.cpu import cachesim
from gblas.formats import costing
from gblas.formats.costing import PullContext, sampled_miss
from gblas.hardware import Hardware
from gblas.planner import cost


def _csr(n=3000, density=0.004, seed=0):
    return pull_csr(sp.random(n, n, density=density, format="csr", random_state=seed))


def _full_x_miss(csr, cache_bytes, xb, yb):
    r = simulate(csr, cache=CacheConfig.single(cache_bytes), x_bytes=xb, y_bytes=yb)
    return r.served[-1, 0] / r.served[:, 0].sum()


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 50), lines=st.integers(16, 256))
def test_walked_whole_the_replay_is_the_full_simulation(seed, lines):
    # a matrix below min_entries is walked whole with every line simulated: the share is
    # the full simulation's, first touches of the product excluded
    csr = _csr(1500, 0.006, seed)
    cap = lines * 64
    got, simulated, walked = cachesim.sampled_x_miss(csr.indptr, csr.indices, csr.shape,
                                                     cap, 8, 9)
    assert simulated and walked == csr.nnz
    r = simulate(csr, cache=CacheConfig.single(cap), x_bytes=8, y_bytes=9)
    misses, acc = r.served[-1, 0], r.served[:, 0].sum()
    first = len(np.unique(csr.indices // 8))  # x lines touched: their first touch misses
    want = (misses - first) / (acc - first)
    assert got == pytest.approx(max(want, min(1.0, -(-1500 * 8 // 64) / csr.nnz)))


def test_sampled_share_tracks_the_full_simulation_on_a_large_matrix():
    rng = np.random.default_rng(3)
    n, nnz = 60000, 720000  # above min_entries: sampled windows, 1/16 of the lines
    S = sp.csr_array((np.ones(nnz), (rng.integers(0, n, nnz), rng.integers(0, n, nnz))),
                     shape=(n, n))
    csr = pull_csr(S)
    for cap in (64 << 10, 256 << 10):
        got = sampled_miss(csr, cap, 8, 9, 64)
        # within 0.15: each window warms up on 1/512 of the entries, less than a 256 KB
        # cache holds, so the sample sees fewer capacity misses than the whole product
        assert abs(got - _full_x_miss(csr, cap, 8, 9)) < 0.15
    assert sampled_miss(csr, 64 << 10, 8, 9, 64) > sampled_miss(csr, 256 << 10, 8, 9, 64)


def test_sampled_miss_is_cached_with_the_csr(monkeypatch):
    csr = _csr()
    first = sampled_miss(csr, 8192, 8, 9, 64)
    calls = []
    monkeypatch.setattr(cachesim, "sampled_x_miss", lambda *a: calls.append(a) or (9.0,))
    assert sampled_miss(csr, 8192, 8, 9, 64) == first and not calls
    assert sampled_miss(csr, 16384, 8, 9, 64) == 9.0 and len(calls) == 1


def _hw(l2, l3):
    return Hardware(32 << 10, l2, l3, 64, 2, "test")


def test_context_simulates_only_when_x_outgrows_its_share():
    csr = _csr()  # x: 3000 * 8 = 24 KB
    roomy = PullContext.of(csr, _hw(1 << 20, 32 << 20), 8, 9, 0)
    assert roomy.miss == 0.0 and roomy.miss_l2 == 0.0
    tight = PullContext.of(csr, _hw(16 << 10, 64 << 10), 8, 9, 0)  # share 16 KB < 24 KB
    assert tight.miss == pytest.approx(sampled_miss(csr, 16 << 10, 8, 9, 64))
    assert tight.miss_l2 == pytest.approx(sampled_miss(csr, 16 << 10, 8, 9, 64))
    assert 0.2 < tight.miss < 1.0  # x 24 KB and y 27 KB through 16 KB


def test_csr_estimate_is_the_model():
    csr = _csr()
    hw = _hw(16 << 10, 64 << 10)
    est = cost.pull_estimates(csr, hw, 8, 9, 0, 1.0, {"segment_size": 512,
                                                       "tile_cols": 512}, ["csr"])["csr"]
    ctx = PullContext.of(csr, hw, 8, 9, 0)
    m = csr.shape[0]
    ns = (costing.NS_EDGE_CACHED + ctx.miss_l2 * costing.NS_EDGE_L2_MISS
          + ctx.miss * costing.NS_EDGE_MISS)
    partial = np.count_nonzero(np.diff(csr.indptr)) < m
    want = ((csr.nnz * ns + m * costing.NS_ROW) * 1e-9 * ctx.imbalance / 2 + costing.CALL_S
            + (m * costing.NS_ROW_PARTIAL * 1e-9 if partial else 0.0))
    assert est.seconds == pytest.approx(want)
    # the misses cost: the same matrix with room in the caches is estimated faster
    fast = cost.pull_estimates(csr, _hw(1 << 20, 32 << 20), 8, 9, 0, 1.0,
                               {"segment_size": 4096, "tile_cols": 4096}, ["csr"])["csr"]
    assert fast.seconds < est.seconds


def test_grouped_formats_pay_their_merge_phase():
    csr = _csr()
    hw = _hw(1 << 20, 32 << 20)
    est = cost.pull_estimates(csr, hw, 8, 9, 0, 1.0, {"segment_size": 1 << 20,
                                                       "tile_cols": 1 << 20},
                              ["csr", "segmented", "heavy_light"])
    # one segment / panel: the same gathers as CSR, plus the merge and its call
    assert est["segmented"].seconds > est["csr"].seconds + costing.GROUPED_CALL_S / 2
    assert est["heavy_light"].seconds > costing.CALL_S + costing.GROUPED_CALL_S
