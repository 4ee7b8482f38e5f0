"""GPU cache-aware formats and kernels against a NumPy / Python oracle.

* ``gpu_segmented`` (TOCAB segments + hot segment + merge) pull SpMV;
* ``gpu_shards`` (Garaph replicated shards) pull SpMV;
* ``gpu_relabelled`` (the CSR with its columns by in-degree) pull SpMV;
* the load-balanced push SpMSpV of :mod:`gblas.backends.gpu.frontier`.

Every test is marked ``gpu``; the module is skipped, with its reason, where CuPy or a CUDA
device is missing.  The oracle applies each operator's Python function to NumPy scalars
and casts after every step (inputs to T, ``multiply`` to M, then R, ``add`` on R).
Formats are built with tiny segments, shards and merge ranges so that small matrices
exercise every path (several segments, hot columns, long rows, multi-item shards).
"""

from __future__ import annotations

import numpy as np
import pytest

# skips this module where CuPy or a CUDA device is missing
from gpu_helpers import (
    check_vec,
    cp,
    dense_result,
    dense_vec,
    larger_graph,
    semiring,
    sparse_frontier,
)

import gblas as gb
from gblas.backends.gpu import frontier
from gblas.backends.registry import VecData, get_kernel
from gblas.formats.csr import CSR
from gblas.formats.gpu_relabelled import GPURelabelled
from gblas.formats.gpu_segmented import GPUSegmented
from gblas.formats.gpu_shards import GPUShards
from gblas.semirings import builtin
from gblas.testing.oracle import mxv_case, rand_csr, rand_values, ref_mxv

pytestmark = pytest.mark.gpu


#: (semiring, dtype, masked): masked cases have iso values, x presence and a row mask.
CASES = [
    ("plus_times", "float32", False),
    ("plus_times", "float64", True),
    ("min_plus", "float32", True),
    ("min_plus", "int64", False),
    ("max_clip", "float32", False),
    ("max_clip", "float64", True),
    ("any_pair", "int8", True),
    ("lor_land", "bool", False),
    ("plus_times", "uint8", False),
    ("max_min", "int32", True),
    ("plus_pair", "int16", False),
    ("times_plus", "float64", False),
]


def skewed_csr(rng, m, n, dt, *, iso=False) -> CSR:
    """Random CSR with empty rows, a few long rows and a few hot (dense) columns."""
    return rand_csr(rng, m, n, dt, density=0.12, long_rows=3, hot_cols=4, iso=iso)


def inputs(rng, name, dt, masked, m=61, n=47):
    sr = semiring(name)
    return (sr, *mxv_case(rng, sr, dt, masked, m, n, density=0.12, long_rows=3, hot_cols=4))


# ------------------------------------------------------------------------- segmented


#: Row-kernel knobs: the default (the CSR kernels of mxv.py), the same with the hot
#: segment's x staged in shared memory, those with tiny
#: blocks and chunks, and this module's MLP-first kernels with tiny blocks (one entry per
#: lane, long rows from 5 entries) or default blocks (long rows from 33 entries).
KNOBS = [dict(), dict(hot_smem=True), dict(kernel="csr", mode="stream", smax=4, chunk=8),
         dict(kernel="csr", mode="vector", smax=8, group=2, chunk=8),
         dict(kernel="stream", block=16, smax=4), dict(kernel="stream")]


@pytest.mark.parametrize("knobs", range(len(KNOBS)))
@pytest.mark.parametrize("name,dt,masked", CASES)
def test_segmented_pull(name, dt, masked, knobs, rng):
    sr, A, x, xpres, allow, types = inputs(rng, name, dt, masked)
    S = GPUSegmented.from_csr(A.to_device("gpu"), segment_cols=7, hot=6, range_rows=8)
    S.check_invariants()
    assert S.nseg == 1 + 7 and S.n_hot == 6
    y = get_kernel("mxv", "gpu_segmented", "gpu", "pull")(
        S, dense_vec(x, xpres), None if allow is None else cp.asarray(allow), sr, types,
        **KNOBS[knobs])
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], loose=True)


@pytest.mark.parametrize("name,dt,masked", CASES)
def test_relabelled_pull(name, dt, masked, rng):
    sr, A, x, xpres, allow, types = inputs(rng, name, dt, masked)
    R = GPURelabelled.from_csr(A.to_device("gpu"))
    R.check_invariants()
    y = get_kernel("mxv", "gpu_relabelled", "gpu", "pull")(
        R, dense_vec(x, xpres), None if allow is None else cp.asarray(allow), sr, types)
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], loose=True)


def test_relabelled_larger_graph_matches_scipy_and_csr(rng):
    """A skewed 20000-vertex graph, built from its transpose (the in-degrees known) and
    from the CSR (counted): the same layout, SciPy's product, the CSR pull's min_plus."""
    S_ = larger_graph(rng)
    A = CSR.from_scipy(S_).to_device("gpu")
    R = GPURelabelled.from_csr(A)
    Rt = GPURelabelled.from_csr(A.transpose().transpose())
    R.check_invariants()
    assert np.array_equal(cp.asnumpy(R.col_order), cp.asnumpy(Rt.col_order))
    assert np.array_equal(cp.asnumpy(R.col_order), GPURelabelled.from_csr(
        CSR.from_scipy(S_)).col_order)
    x = rng.random(A.shape[1]) + 0.5
    sr = builtin.SEMIRINGS["plus_times"]
    types = sr.types(A.dtype, x.dtype)
    pull = get_kernel("mxv", "gpu_relabelled", "gpu", "pull")
    y = pull(R, dense_vec(x), None, sr, types)
    np.testing.assert_allclose(cp.asnumpy(y.values), S_ @ x, rtol=1e-12)
    np.testing.assert_array_equal(cp.asnumpy(y.present), np.diff(S_.indptr) > 0)
    mp = builtin.SEMIRINGS["min_plus"]
    pres = rng.random(A.shape[1]) < 0.5
    allow = cp.asarray(rng.random(A.shape[0]) < 0.5)
    yr = pull(R, dense_vec(x, pres), allow, mp, types)
    yc = get_kernel("mxv", "csr", "gpu", "pull")(A, dense_vec(x, pres), allow, mp, types)
    np.testing.assert_array_equal(cp.asnumpy(yr.present), cp.asnumpy(yc.present))
    np.testing.assert_array_equal(cp.asnumpy(yr.values), cp.asnumpy(yc.values))
    assert (R.to_csr().to_scipy() != S_).nnz == 0


def test_relabelled_sparse_x_and_empty_columns():
    """A sparse x is densified before the gather; a matrix without entries has no new
    ids, and its product no entries."""
    sr = builtin.SEMIRINGS["plus_times"]
    A = CSR.from_coo(np.array([0, 2]), np.array([3, 3]), np.array([2.0, 5.0]), (3, 5))
    R = GPURelabelled.from_csr(A.to_device("gpu"))
    x = VecData(5, cp.asarray([1, 3]), cp.asarray([10.0, 7.0]))
    y = get_kernel("mxv", "gpu_relabelled", "gpu", "pull")(R, x, None, sr,
                                                            sr.types(A.dtype, np.float64))
    assert cp.asnumpy(y.values)[[0, 2]].tolist() == [14.0, 35.0]
    assert cp.asnumpy(y.present).tolist() == [True, False, True]
    E = GPURelabelled.from_csr(CSR.from_coo(np.array([], dtype=np.int64),
                                            np.array([], dtype=np.int64), np.array([]),
                                            (3, 5)).to_device("gpu"))
    E.check_invariants()
    assert E.col_order.size == 0
    y = get_kernel("mxv", "gpu_relabelled", "gpu", "pull")(
        E, dense_vec(np.ones(5)), None, sr, sr.types(np.float64, np.float64))
    assert not bool(cp.asnumpy(y.present).any())


@pytest.mark.parametrize("params", [dict(hot=0, segment_cols=5, range_rows=3),
                                    dict(hot=None, segment_cols=1000, range_rows=4096),
                                    dict(hot=47, segment_cols=1, range_rows=1)])
def test_segmented_shapes_of_segmenting(params, rng):
    """No hot segment; one cold segment; every column hot; one-row merge ranges."""
    sr, A, x, xpres, allow, types = inputs(rng, "min_plus", "float32", True)
    S = GPUSegmented.from_csr(A.to_device("gpu"), **params)
    S.check_invariants()
    y = get_kernel("mxv", "gpu_segmented", "gpu", "pull")(
        S, dense_vec(x, xpres), cp.asarray(allow), sr, types)
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], loose=True)


def test_segmented_roundtrip_and_device_moves(rng):
    A = skewed_csr(rng, 80, 90, "float32")
    Sg = GPUSegmented.from_csr(A.to_device("gpu"), segment_cols=11, hot=9, range_rows=16)
    Sc = GPUSegmented.from_csr(A, segment_cols=11, hot=9, range_rows=16)
    for S in (Sg, Sc.to_device("gpu"), Sg.to_device("cpu")):
        S.check_invariants()
        assert (S.to_csr().to_scipy() != A.to_scipy()).nnz == 0
    assert np.array_equal(cp.asnumpy(Sg.rowmap), Sc.rowmap)
    assert Sg.nbytes == Sc.nbytes


@pytest.mark.parametrize("kernel", ["csr", "stream"])
@pytest.mark.parametrize("l2", [64 << 10, None])
def test_segmented_larger_graph_matches_scipy_and_csr(l2, kernel, rng):
    """Skewed 20000-vertex graph: many segments (a 64 KB "L2") or the device's L2."""
    S_ = larger_graph(rng)
    A = CSR.from_scipy(S_).to_device("gpu")
    Sg = GPUSegmented.from_csr(A, l2_bytes=l2, range_rows=1024)
    Sg.check_invariants()
    x = rng.random(A.shape[1]) + 0.5
    sr = builtin.SEMIRINGS["plus_times"]
    types = sr.types(A.dtype, x.dtype)
    seg = get_kernel("mxv", "gpu_segmented", "gpu", "pull")
    y = seg(Sg, dense_vec(x), None, sr, types, kernel=kernel)
    np.testing.assert_allclose(cp.asnumpy(y.values), S_ @ x, rtol=1e-12)
    np.testing.assert_array_equal(cp.asnumpy(y.present), np.diff(S_.indptr) > 0)
    mp = builtin.SEMIRINGS["min_plus"]
    pres = rng.random(A.shape[1]) < 0.5
    allow = cp.asarray(rng.random(A.shape[0]) < 0.5)
    ys = seg(Sg, dense_vec(x, pres), allow, mp, types, kernel=kernel)
    yc = get_kernel("mxv", "csr", "gpu", "pull")(A, dense_vec(x, pres), allow, mp, types)
    np.testing.assert_array_equal(cp.asnumpy(ys.present), cp.asnumpy(yc.present))
    np.testing.assert_array_equal(cp.asnumpy(ys.values), cp.asnumpy(yc.values))


@pytest.mark.parametrize("fmt", ["gpu_segmented", "gpu_shards"])
def test_formats_through_the_api(fmt, rng):
    """``gb.config(format=...)`` routes a GPU mxv through the format (built from the cache)."""
    S_ = larger_graph(rng, 3000)
    A = gb.Matrix.from_scipy(S_).to("gpu")
    xh = rng.random(3000)
    x = gb.Vector.from_dense(xh).to("gpu")
    m = gb.Vector.from_dense(rng.random(3000) < 0.5).to("gpu")
    with gb.config(format=fmt):
        y = gb.mxv(A, x, "plus_times", mask=m.V)
        assert gb.explain(gb.mxv, A, x, "plus_times", mask=m.V).format == fmt
    want = S_ @ xh
    keep = cp.asnumpy(m.to_dense()).astype(bool) & (np.diff(S_.indptr) > 0)
    idx, vals = (cp.asnumpy(a) for a in y.to_coo())
    assert set(idx.tolist()) == set(np.flatnonzero(keep).tolist())
    np.testing.assert_allclose(vals, want[idx], rtol=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "gpu_segmented", "gpu_shards", "gpu_heavy_light",
                                 "gpu_relabelled"])
@pytest.mark.parametrize("iso", [False, True])
def test_unmasked_plus_products_hold_zero_in_empty_rows(fmt, iso, rng):
    """Every GPU pull kernel stores ``have ? acc : 0``: without a mask the rows with no
    entry hold 0 (the plus monoid's identity) beside their False flags, which the NCCL
    tier's partial products rely on (no pass to zero them)."""
    S_ = larger_graph(rng, 3000)
    S_ = S_[:, :2000].tocsr()  # rows whose entries all fell in the cut columns: empty
    if iso:
        S_.data[:] = 1.0
    A = gb.Matrix.from_scipy(S_).to("gpu")
    xh = rng.random(2000)
    with gb.config(format=fmt):
        y = gb.mxv(A, gb.Vector.from_dense(xh).to("gpu"), "plus_times").dense_data()
    pres = np.diff(S_.indptr) > 0
    assert not pres.all()
    np.testing.assert_array_equal(cp.asnumpy(y.present), pres)
    vals = cp.asnumpy(y.values)
    assert (vals[~pres] == 0).all()
    np.testing.assert_allclose(vals, S_ @ xh, rtol=1e-12)


@pytest.mark.parametrize("fmt", ["gpu_segmented", "gpu_heavy_light", "gpu_relabelled"])
@pytest.mark.parametrize("iso", [False, True])
def test_planner_picks_a_gpu_format_once_it_pays(monkeypatch, iso, fmt, rng):
    """With free builds (and no fixed cost per call) the planner's GPU rule picks the
    format estimated fastest (the others' bandwidths made hopeless), its reason and
    estimates in the Plan, and the results equal the CSR pull's."""
    from gblas.formats import FORMATS, gpu_relabelled

    seg, panels = FORMATS["gpu_segmented"], FORMATS["gpu_heavy_light"]
    rel = FORMATS["gpu_relabelled"]
    for cls in (seg, panels, rel):
        monkeypatch.setattr(cls, "build_ns_entry", 0.0)
        monkeypatch.setattr(cls, "build_overhead_s", 0.0)
    for cls in (seg, panels, rel, FORMATS["csr"]):  # (a small graph: host time would decide)
        monkeypatch.setattr(cls, "gpu_fixed_s", 0.0)
    monkeypatch.setattr(gpu_relabelled, "MIN_HUB_SHARE", 0.0)  # estimated on any graph
    for cls in (seg, panels):
        if cls.name != fmt:
            monkeypatch.setattr(cls, "gpu_gbs", 1e-3)
    # gpu_relabelled's gather of x made hopeless, or free (on so small a graph it costs
    # more than the renumbering saves)
    monkeypatch.setattr(rel, "gather_gbs", 1e9 if fmt == "gpu_relabelled" else 1e-3)
    S_ = larger_graph(rng, 3000)
    if iso:
        S_.data[:] = 1.0
    A = gb.Matrix.from_scipy(S_).to("gpu") if not iso else gb.Matrix.from_coo(
        *S_.nonzero(), 1.0, shape=S_.shape).to("gpu")
    xh = rng.random(3000)
    x = gb.Vector.from_dense(xh).to("gpu")
    plan = gb.explain(gb.mxv, A, x, "plus_times")
    assert plan.format == fmt and plan.reason.count(fmt) >= 2, plan.reason
    # the light panels' runs are measured only where they could pay at their best
    assert "hot_share" in plan.details and "hub_share" in plan.details
    assert (plan.details["panel_runs"] is not None) == (fmt == "gpu_heavy_light")
    assert {"csr", "gpu_segmented", "gpu_relabelled", fmt} == set(
        plan.details["estimates_ms"])
    y = gb.mxv(A, x, "plus_times")
    assert A.has_format(fmt)
    with gb.config(format="csr"):
        yc = gb.mxv(A, x, "plus_times")
    np.testing.assert_allclose(cp.asnumpy(y.to_dense()), cp.asnumpy(yc.to_dense()),
                               rtol=1e-12)
    np.testing.assert_allclose(cp.asnumpy(y.to_dense()), S_ @ xh, rtol=1e-12)
    # transposed: the rule reads A's out-degrees
    yt = gb.mxv(A.T, x, "plus_times")
    np.testing.assert_allclose(cp.asnumpy(yt.to_dense()), S_.T @ xh, rtol=1e-12)


def test_planner_gpu_rule_keeps_csr_without_reuse_or_memory(monkeypatch, rng):
    from gblas import hardware
    from gblas.formats import FORMATS

    S_ = larger_graph(rng, 3000)
    A = gb.Matrix.from_scipy(S_).to("gpu")
    x = gb.Vector.from_dense(rng.random(3000)).to("gpu")
    plan = gb.explain(gb.mxv, A, x, "plus_times")
    assert plan.format == "csr"  # a small graph: the build never pays
    for name in ("gpu_segmented", "gpu_heavy_light"):
        monkeypatch.setattr(FORMATS[name], "build_ns_entry", 0.0)
        monkeypatch.setattr(FORMATS[name], "build_overhead_s", 0.0)
    for name in ("csr", "gpu_segmented", "gpu_heavy_light"):  # a format faster than csr
        monkeypatch.setattr(FORMATS[name], "gpu_fixed_s", 0.0)
    monkeypatch.setattr(hardware, "gpu_free_bytes", lambda: 0)
    # a new Matrix: the first one's plan is kept with its CSR until its build would pay
    A = gb.Matrix.from_scipy(S_).to("gpu")
    plan = gb.explain(gb.mxv, A, x, "plus_times")
    assert plan.format == "csr" and "device memory" in plan.reason


# ---------------------------------------------------------------------------- shards


@pytest.mark.parametrize("name,dt,masked", CASES)
def test_shards_pull(name, dt, masked, rng):
    sr, A, x, xpres, allow, types = inputs(rng, name, dt, masked)
    S = GPUShards.from_csr(A.to_device("gpu"), slots=64, item_edges=40)
    S.check_invariants()
    assert int(S.multi.shape[0]) > 0, "some shards span several items"
    y = get_kernel("mxv", "gpu_shards", "gpu", "pull")(
        S, dense_vec(x, xpres), None if allow is None else cp.asarray(allow), sr, types)
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], loose=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_shards_larger_graph_default_slots(dt, rng):
    """Default 8192 slots (72 KB of shared memory for 8-byte results), replication."""
    S_ = larger_graph(rng).astype(dt)
    A = CSR.from_scipy(S_).to_device("gpu")
    Sg = GPUShards.from_csr(A)
    Sg.check_invariants()
    assert (Sg.to_csr().to_scipy() != S_).nnz == 0
    assert int(cp.asnumpy(Sg.sh_rep).max()) > 1
    x = (rng.random(A.shape[1]) + 0.5).astype(dt)
    sr = builtin.SEMIRINGS["plus_times"]
    y = get_kernel("mxv", "gpu_shards", "gpu", "pull")(Sg, dense_vec(x), None, sr,
                                                       sr.types(A.dtype, x.dtype))
    np.testing.assert_allclose(cp.asnumpy(y.values), S_ @ x,
                               rtol=1e-4 if dt == "float32" else 1e-12)
    np.testing.assert_array_equal(cp.asnumpy(y.present), np.diff(S_.indptr) > 0)


def test_shards_no_replication_and_empty(rng):
    sr = builtin.SEMIRINGS["min_plus"]
    A = skewed_csr(rng, 40, 30, "float32")
    S = GPUShards.from_csr(A.to_device("gpu"), slots=16, item_edges=7, max_rep=1)
    x = rand_values(rng, 30, "float32")
    types = sr.types(A.dtype, x.dtype)
    y = get_kernel("mxv", "gpu_shards", "gpu", "pull")(S, dense_vec(x), None, sr, types)
    check_vec(y, ref_mxv(A, x, None, None, sr, types), sr, types[2], loose=True)
    E = GPUShards.from_csr(CSR.empty((5, 4), np.float32, "gpu"))
    y = get_kernel("mxv", "gpu_shards", "gpu", "pull")(E, dense_vec(np.ones(4, np.float32)),
                                                       None, sr, types)
    assert not cp.asnumpy(y.present).any()


# -------------------------------------------------------------------------- frontier


@pytest.mark.parametrize("name,dt,masked", CASES)
def test_push_lb(name, dt, masked, rng):
    sr = semiring(name)
    m, n = 53, 67
    A = skewed_csr(rng, m, n, dt, iso=masked)
    AT = A.transpose().to_device("gpu")
    xfull = rand_values(rng, n, dt)
    _, xpres, xs = sparse_frontier(rng, xfull, 25)
    allow = rng.random(m) < 0.7 if masked else None
    types = sr.types(A.dtype, xfull.dtype)
    for epb in (4, 64, 1024):  # many blocks, a few, one
        y = frontier.mxv_push_lb(AT, xs, None if allow is None else cp.asarray(allow), sr,
                                 types, m, epb=epb)
        check_vec(y, ref_mxv(A, xfull, xpres, allow, sr, types), sr, types[2], loose=True)


def test_push_lb_zero_degree_frontier_and_fallback(rng):
    """Frontier entries of degree 0 (a block range spanning more than epb + 1 entries
    searches global memory) and an empty frontier."""
    sr = builtin.SEMIRINGS["plus_times"]
    m = n = 200
    pat = np.zeros((m, n), bool)
    cols_on = [0, 60, 130, 199]  # only these columns have entries: zero-degree gaps
    pat[:, cols_on] = rng.random((m, len(cols_on))) < 0.5
    rows, cols = np.nonzero(pat)
    A = CSR.from_coo(rows, cols, rng.random(rows.size), (m, n))
    AT = A.transpose().to_device("gpu")
    idx = np.arange(n)
    x = rng.random(n)
    types = sr.types(A.dtype, x.dtype)
    xs = VecData(n, cp.asarray(idx), cp.asarray(x))
    for epb in (1, 3, 1024):
        y = frontier.mxv_push_lb(AT, xs, None, sr, types, m, epb=epb)
        check_vec(y, ref_mxv(A, x, None, None, sr, types), sr, types[2], loose=True)
    empty = VecData(n, cp.zeros(0, np.int64), cp.zeros(0, np.float64))
    assert not cp.asnumpy(frontier.mxv_push_lb(AT, empty, None, sr, types, m).present).any()


def test_push_lb_matches_push_on_larger_graph(rng):
    S_ = larger_graph(rng)
    A = CSR.from_scipy(S_)
    AT = A.transpose().to_device("gpu")
    n = A.shape[0]
    sr = builtin.SEMIRINGS["min_plus"]
    x = rng.random(n)
    types = sr.types(A.dtype, x.dtype)
    for frac in (0.001, 0.1, 1.0):
        idx = np.flatnonzero(rng.random(n) < frac)
        xs = VecData(n, cp.asarray(idx), cp.asarray(x[idx]))
        a = frontier.mxv_push_lb(AT, xs, None, sr, types, n)
        b = dense_result(get_kernel("mxv", "csr", "gpu", "push")(AT, xs, None, sr, types, n))
        pa, pb = cp.asnumpy(a.present), cp.asnumpy(b.present)
        np.testing.assert_array_equal(pa, pb)
        np.testing.assert_array_equal(cp.asnumpy(a.values)[pa], cp.asnumpy(b.values)[pb])


def test_planner_masked_mxm_prefers_dot_on_the_gpu(rng):
    """On the GPU a masked product weighs a dot merge at GPU_DOT_MERGE_COST saxpy flops."""
    S_ = larger_graph(rng, 2000)
    L = gb.select(gb.Matrix.from_scipy(S_), "tril", -1).to("gpu")
    plan = gb.explain(gb.mxm, L, L, "plus_pair", mask=L.S)
    assert "on gpu" in plan.reason
    P = (L.to("cpu").to_scipy() != 0).astype(np.int64)
    want = (P @ P).multiply(P)
    for method in ("dot", "saxpy"):
        with gb.config(mxm_method=method):
            C = gb.mxm(L, L, "plus_pair", mask=L.S)
        assert int(gb.reduce(C, "plus")) == int(want.sum())
