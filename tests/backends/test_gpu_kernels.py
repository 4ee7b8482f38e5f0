"""GPU (CuPy) kernels against plain NumPy / Python computations on small random inputs.

Every test here is marked ``gpu``; the module is skipped, with its reason, where CuPy or a
CUDA device is missing.  Inputs come from the suite's ``rng`` fixture (fresh every run,
replayable with ``GBLAS_TEST_SEED``).  The oracle applies each operator's Python function to NumPy
scalars and casts after every step, exactly as the kernel contracts define the types:
inputs cast to T, ``multiply`` gives M, cast to R, ``add`` on R.
"""

from __future__ import annotations

import numpy as np
import pytest

# skips this module where CuPy or a CUDA device is missing
from gpu_helpers import CLIP, USER, check_vec, cp, dense_result, dense_vec, sparse_frontier
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.backends.registry import VecData, get_kernel
from gblas.formats.csr import CSR
from gblas.semirings import builtin
from gblas.semirings.ops import BinaryOp, UnaryOp
from gblas.testing import oracle
from gblas.testing.oracle import (
    assert_matches,
    cast,
    close,
    rand_csr,
    rand_mask,
    rand_values,
    ref_mxm,
    ref_mxv,
)

pytestmark = pytest.mark.gpu

SEMIRINGS = {name: builtin.SEMIRINGS[name] for name in
             ("plus_times", "min_plus", "max_min", "any_pair", "lor_land", "plus_pair")}
SEMIRINGS["max_clip"] = USER
DTYPES = ["float32", "float64", "int8", "uint8", "bool", "int64"]


def pull_case(rng, sr, dt, masked):
    """``(A, x, xpres, allow, types)``: masked cases have iso values, int64 indices, x
    flags and a row mask; three long rows."""
    return oracle.mxv_case(rng, sr, dt, masked, long_rows=3, idx64=masked)


# ------------------------------------------------------------------------------- pull


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(SEMIRINGS))
@pytest.mark.parametrize("variant", ["plain", "masked"])
@pytest.mark.parametrize("mode", ["stream", "vector"])
def test_pull(name, dt, variant, mode, rng):
    sr = SEMIRINGS[name]
    masked = variant == "masked"
    A, x, xpres, allow, types = pull_case(rng, sr, dt, masked)
    f = get_kernel("mxv", "csr", "gpu", "pull")
    # the masked variant also sends rows over 16 entries to the long-row kernels
    y = f(A.to_device("gpu"), dense_vec(x, xpres),
          None if allow is None else cp.asarray(allow), sr, types, mode=mode,
          smax=16 if masked else None)
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], scaled=True)


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "lor_land"])
@pytest.mark.parametrize("knobs", [dict(mode="vector", group=1),
                                   dict(mode="vector", group=4),
                                   dict(mode="vector", group=32),
                                   dict(mode="stream", block=32, smax=16),
                                   dict(mode="stream", block=256, smax=48)])
def test_pull_long_rows_chunked(name, knobs, rng):
    """Rows of several chunks, combined across warps; mixed A / x dtypes."""
    sr = builtin.SEMIRINGS[name]
    A = rand_csr(rng, 90, 700, "int8", density=0.02, long_rows=6)
    x = rand_values(rng, 700, "float32")
    xpres = rng.random(700) < 0.8
    allow = rng.random(90) < 0.8
    types = sr.types(A.dtype, x.dtype)
    f = get_kernel("mxv", "csr", "gpu", "pull")
    y = f(A.to_device("gpu"), dense_vec(x, xpres), cp.asarray(allow), sr, types, chunk=64,
          **knobs)
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], scaled=True)


@pytest.mark.parametrize("knobs", [dict(mode="stream"), dict(mode="vector"),
                                   dict(mode="stream", block=512, smax=128)])
def test_pull_larger_graph_matches_scipy(knobs, rng):
    """A skewed 20000-row graph (many row blocks, chunks and long rows) against SciPy."""
    n = 20000
    deg = np.minimum((rng.pareto(1.2, n) * 4).astype(np.int64), 5000)
    rows = np.repeat(np.arange(n), deg)
    cols = rng.integers(0, n, rows.size)
    vals = rng.random(rows.size) + 0.5
    import scipy.sparse as sp

    S = sp.csr_array((vals, (rows, cols)), shape=(n, n))
    S.sum_duplicates()
    A = CSR.from_scipy(S).to_device("gpu")
    x = rng.random(n) + 0.5
    sr = builtin.SEMIRINGS["plus_times"]
    y = get_kernel("mxv", "csr", "gpu", "pull")(A, dense_vec(x), None, sr,
                                                 sr.types(A.dtype, x.dtype), **knobs)
    want = S @ x
    np.testing.assert_allclose(cp.asnumpy(y.values), want, rtol=1e-12)
    np.testing.assert_array_equal(cp.asnumpy(y.present), np.diff(S.indptr) > 0)


def _host_schedule_equals(sched, indptr: np.ndarray, m: int) -> None:
    """The device's :class:`PullSchedule` lists what ``_schedule_arrays`` computes with
    NumPy from the row pointers, array for array and dtype for dtype."""
    from gblas.backends.gpu import mxv as gmxv

    want = gmxv._schedule_arrays(np, indptr, m, sched.mode, sched.smax, sched.chunk,
                                 sched.block)
    for field, w in zip(("blk", "long_rows", "cptr", "cslot"), want, strict=True):
        got = getattr(sched, field)
        assert (got is None) == (w is None), field
        if w is not None:
            assert got.dtype == w.dtype, field
            np.testing.assert_array_equal(cp.asnumpy(got), w, err_msg=field)


@pytest.mark.parametrize("knobs", [dict(mode="stream"), dict(mode="vector"),
                                   dict(mode="stream", block=32, smax=16, chunk=64),
                                   dict(mode="vector", group=4, chunk=32)])
@pytest.mark.parametrize("n", [0, 1, 129, 3000])
def test_pull_schedule_equals_the_hosts(knobs, n, rng):
    """The schedule one launch computes on the device is the host's computation from
    the row pointers, and the product through it is SciPy's."""
    import scipy.sparse as sp

    from gblas.backends.gpu import mxv as gmxv

    deg = np.minimum((rng.pareto(1.0, n) * 3).astype(np.int64), 900)
    rows = np.repeat(np.arange(n), deg)
    nc = max(n, 1)
    key = np.unique(rows * nc + rng.integers(0, nc, rows.size))
    vals = rng.random(key.size)
    A = CSR.from_coo(key // nc, key % nc, vals, (n, nc)).to_device("gpu")
    sched = gmxv.pull_schedule(A, **knobs)
    _host_schedule_equals(sched, cp.asnumpy(A.indptr), n)
    x = rng.random(nc)
    sr = builtin.SEMIRINGS["plus_times"]
    y = get_kernel("mxv", "csr", "gpu", "pull")(A, dense_vec(x), None, sr,
                                                 sr.types(A.dtype, x.dtype), **knobs)
    S = sp.csr_array((vals, (key // nc, key % nc)), shape=(n, nc))
    present = cp.asnumpy(y.present)
    np.testing.assert_array_equal(present, np.diff(S.indptr) > 0)
    np.testing.assert_allclose(cp.asnumpy(y.values)[present], (S @ x)[present], rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 80_000), seed=st.integers(0, 2**32 - 1),
       long_share=st.floats(0, 0.05),
       mode=st.sampled_from(["stream", "vector"]), block=st.sampled_from([None, 32, 200]),
       wide=st.booleans())
def test_pull_schedule_of_many_blocks_equals_the_hosts(n, seed, long_share, mode, block,
                                                       wide):
    """Row pointers over many thread blocks of the schedule's grid (each placing its rows
    after the counts of those before it): row blocks cut by windows of entries, by long
    rows and every 128 rows, long rows of many chunks, empty rows."""
    from gblas.backends.gpu import mxv as gmxv

    r = np.random.default_rng(seed)
    deg = r.integers(0, 12, n)
    hub = r.random(n) < long_share
    deg[hub] = r.integers(60, 3000, int(hub.sum()))
    ip = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64 if wide else np.int32)
    nnz = int(ip[-1])
    A = CSR((n, n), cp.asarray(ip), cp.zeros(nnz, dtype=np.int32), None, np.dtype(np.bool_),
            True, "gpu")
    knobs = dict(mode=mode) if mode == "vector" or block is None else \
        dict(mode=mode, block=block, smax=24, chunk=128)
    _host_schedule_equals(gmxv.pull_schedule(A, **knobs), ip, n)


SMEM_CASES = [("plus_times", "float32"), ("plus_times", "float64"), ("min_plus", "int64"),
              ("any_pair", "int8"), ("lor_land", "bool"), ("max_clip", "float32"),
              ("max_min", "uint8")]


@pytest.mark.parametrize("name,dt", SMEM_CASES)
@pytest.mark.parametrize("variant", ["plain", "masked"])
@pytest.mark.parametrize("mode", ["stream", "vector"])
def test_pull_x_staged_in_shared_memory(name, dt, variant, mode, rng):
    """``smem_x=True``: x (and its flags) copied to shared memory, blocks looping."""
    from gblas.backends.gpu.mxv import smem_x_fits

    sr = SEMIRINGS[name]
    masked = variant == "masked"
    A, x, xpres, allow, types = pull_case(rng, sr, dt, masked)
    assert smem_x_fits(47, x.dtype, masked, types[2], 320)
    y = get_kernel("mxv", "csr", "gpu", "pull")(
        A.to_device("gpu"), dense_vec(x, xpres), None if allow is None else cp.asarray(allow),
        sr, types, mode=mode, smax=16 if masked else None, chunk=32, smem_x=True)
    check_vec(y, ref_mxv(A, x, xpres, allow, sr, types), sr, types[2], scaled=True)


@pytest.mark.parametrize("n", [20000, 200000])
@pytest.mark.parametrize("mode", ["stream", "vector"])
def test_pull_x_staged_larger_graphs(n, mode, rng):
    """Many more row blocks and chunks than thread blocks (the loops go round); an x too
    big for shared memory (n=200000) falls back to global gathers."""
    import scipy.sparse as sp

    deg = np.minimum((rng.pareto(1.2, n) * 4).astype(np.int64), 5000)
    rows = np.repeat(np.arange(n), deg)
    cols = rng.integers(0, n, rows.size)
    S = sp.csr_array((rng.random(rows.size).astype(np.float32) + 0.5, (rows, cols)),
                     shape=(n, n))
    S.sum_duplicates()
    A = CSR.from_scipy(S).to_device("gpu")
    x = (rng.random(n) + 0.5).astype(np.float32)
    pres = rng.random(n) < 0.9
    sr = builtin.SEMIRINGS["plus_times"]
    f = get_kernel("mxv", "csr", "gpu", "pull")
    types = sr.types(A.dtype, x.dtype)
    y = f(A, dense_vec(x, pres), None, sr, types, mode=mode, smem_x=True)
    yg = f(A, dense_vec(x, pres), None, sr, types, mode=mode)
    np.testing.assert_array_equal(cp.asnumpy(y.present), cp.asnumpy(yg.present))
    np.testing.assert_allclose(cp.asnumpy(y.values), cp.asnumpy(yg.values), rtol=2e-6)
    want = S @ np.where(pres, x, 0).astype(np.float64)
    keep = cp.asnumpy(y.present)
    np.testing.assert_allclose(cp.asnumpy(y.values)[keep], want[keep], rtol=1e-4)


def test_pull_any_times_value_is_a_product(rng):
    sr = builtin.SEMIRINGS["any_times"]
    A = rand_csr(rng, 80, 120, "float64", long_rows=4)
    x = rand_values(rng, 120, "float64")
    types = sr.types(A.dtype, x.dtype)
    y = get_kernel("mxv", "csr", "gpu", "pull")(A.to_device("gpu"), dense_vec(x), None, sr,
                                                 types)
    check_vec(y, ref_mxv(A, x, None, None, sr, types), sr, types[2], scaled=True)


def test_pull_empty_matrix(rng):
    A = CSR.empty((5, 4), np.float32, "gpu")
    sr = builtin.SEMIRINGS["plus_times"]
    x = dense_vec(np.ones(4, np.float32))
    y = get_kernel("mxv", "csr", "gpu", "pull")(A, x, None, sr, sr.types(A.dtype, np.float32))
    assert not cp.asnumpy(y.present).any()


# ------------------------------------------------------------------------------- push


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(SEMIRINGS) + ["times_plus", "lxor_pair", "max_first"])
def test_push(name, dt, rng):
    sr = SEMIRINGS.get(name) or builtin.SEMIRINGS[name]
    m, n = 53, 67
    A = rand_csr(rng, m, n, dt, long_rows=2, iso=(dt == "float64"))
    AT = A.transpose()
    xfull = rand_values(rng, n, dt)
    _, xpres, xs = sparse_frontier(rng, xfull, 25)
    allow = rng.random(m) < 0.7 if dt in ("int8", "bool") else None
    types = sr.types(A.dtype, xfull.dtype)
    f = get_kernel("mxv", "csr", "gpu", "push")
    y = f(AT.to_device("gpu"), xs, None if allow is None else cp.asarray(allow), sr, types, m)
    check_vec(y, ref_mxv(A, xfull, xpres, allow, sr, types), sr, types[2], scaled=True)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "max_clip"])
def test_push_listed_rows(name, dt, masked, rng):
    """Few products (at most one row in 16 reachable): the kernel lists the rows it
    reaches, one append per row however many frontier entries hit it (the long rows are
    hit by nearly every frontier entry, so their claims race within and across warps)."""
    sr = SEMIRINGS[name]
    m, n = 6000, 40
    A = rand_csr(rng, m, n, dt, density=0.001, long_rows=3, iso=(dt == "float32"))
    xfull = rand_values(rng, n, dt)
    idx, xpres, xs = sparse_frontier(rng, xfull, 12)
    allow = rng.random(m) < 0.6 if masked else None
    types = sr.types(A.dtype, xfull.dtype)
    AT = A.transpose()
    products = int(np.diff(AT.indptr)[idx].sum())
    assert 0 < products * 16 <= m  # the listed path
    y = get_kernel("mxv", "csr", "gpu", "push")(AT.to_device("gpu"), xs,
                                                 None if allow is None else cp.asarray(allow),
                                                 sr, types, m)
    assert y.indices is not None
    got = cp.asnumpy(y.indices)
    assert (np.diff(got) > 0).all()  # sorted, each row once
    check_vec(y, ref_mxv(A, xfull, xpres, allow, sr, types), sr, types[2], scaled=True)


def test_push_empty_frontier(rng):
    A = rand_csr(rng, 10, 12, "float32")
    sr = builtin.SEMIRINGS["min_plus"]
    xs = VecData(12, cp.zeros(0, np.int64), cp.zeros(0, np.float32))
    y = get_kernel("mxv", "csr", "gpu", "push")(A.transpose().to_device("gpu"), xs, None, sr,
                                                 sr.types(A.dtype, np.float32), 10)
    assert not cp.asnumpy(dense_result(y).present).any()


def test_push_matches_pull_on_larger_graph(rng):
    n = 3000
    A = rand_csr(rng, n, n, "float32", density=0.004, long_rows=5)
    sr = builtin.SEMIRINGS["min_plus"]
    x = rand_values(rng, n, "float32")
    pres = rng.random(n) < 0.1
    types = sr.types(A.dtype, x.dtype)
    Ag = A.to_device("gpu")
    ATg = A.transpose().to_device("gpu")
    yp = get_kernel("mxv", "csr", "gpu", "pull")(Ag, dense_vec(x, pres), None, sr, types)
    idx = np.flatnonzero(pres)
    xs = VecData(n, cp.asarray(idx), cp.asarray(x[idx]))
    ys = dense_result(get_kernel("mxv", "csr", "gpu", "push")(ATg, xs, None, sr, types, n))
    pp, ps = cp.asnumpy(yp.present), cp.asnumpy(ys.present)
    assert (pp == ps).all()
    np.testing.assert_array_equal(cp.asnumpy(yp.values)[pp], cp.asnumpy(ys.values)[ps])


# -------------------------------------------------------------------------------- mxm


def check_csr(C, ref: dict, sr, r):
    C = CSR.from_data(C, "gpu")
    assert C.dtype == np.dtype(r) and C.values.dtype == np.dtype(r)
    Ch = C.to_device("cpu")
    Ch.check_invariants()
    got = {}
    for i in range(C.shape[0]):
        for p in range(Ch.indptr[i], Ch.indptr[i + 1]):
            got[(i, int(Ch.indices[p]))] = Ch.values[p]
    assert_matches(got, ref, sr, r)


@pytest.mark.parametrize("mask_kind", [None, "struct", "value_comp"])
@pytest.mark.parametrize("dt", ["float32", "int8", "bool"])
@pytest.mark.parametrize("name", list(SEMIRINGS))
def test_saxpy(name, dt, mask_kind, rng):
    sr = SEMIRINGS[name]
    A = rand_csr(rng, 23, 17, dt, density=0.25)
    B = rand_csr(rng, 17, 29, dt, density=0.25, iso=(mask_kind == "struct"))
    mask, allowed = rand_mask(rng, 23, 29, mask_kind, cp) if mask_kind else (None, None)
    types = sr.types(A.dtype, B.dtype)
    C = get_kernel("mxm", "csr", "gpu", "saxpy")(A.to_device("gpu"), B.to_device("gpu"),
                                                  mask, sr, types)
    assert C.shape == (23, 29)
    check_csr(C, ref_mxm(A, B, allowed, sr, types), sr, types[2])


def test_saxpy_batched(rng):
    """Several row batches give the same result as one."""
    sr = builtin.SEMIRINGS["plus_times"]
    A = rand_csr(rng, 40, 30, "float64", density=0.3)
    B = rand_csr(rng, 30, 35, "float64", density=0.3)
    types = sr.types(A.dtype, B.dtype)
    C = get_kernel("mxm", "csr", "gpu", "saxpy")(A.to_device("gpu"), B.to_device("gpu"),
                                                  None, sr, types, batch_products=97)
    check_csr(C, ref_mxm(A, B, None, sr, types), sr, types[2])


@pytest.mark.parametrize("mask_kind", ["struct", "value"])
@pytest.mark.parametrize("dt", ["float32", "int8", "bool"])
@pytest.mark.parametrize("name", list(SEMIRINGS))
def test_dot(name, dt, mask_kind, rng):
    sr = SEMIRINGS[name]
    A = rand_csr(rng, 21, 19, dt, density=0.3, iso=(mask_kind == "value"))
    B = rand_csr(rng, 19, 26, dt, density=0.3)
    mask, allowed = rand_mask(rng, 21, 26, mask_kind, cp)
    types = sr.types(A.dtype, B.dtype)
    C = get_kernel("mxm", "csr", "gpu", "dot")(A.to_device("gpu"),
                                                B.transpose().to_device("gpu"), mask, sr, types)
    check_csr(C, ref_mxm(A, B, allowed, sr, types), sr, types[2])


# ------------------------------------------------------------------------ element-wise

UNARY_USER = UnaryOp("sq1", lambda x: x * x + 1)


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 4096, 100_003])
@pytest.mark.parametrize("offset", [0, 1, 3])
def test_bool_count_and_not(n, offset, rng):
    """The word-at-a-time bool kernels against NumPy, at lengths with and without a tail
    and on views that do not start on an 8-byte boundary (the element-wise fallback)."""
    host = rng.random(n + offset) < 0.3
    b = cp.asarray(host)[offset:]
    want = host[offset:]
    assert get_kernel("count_true", "array", "gpu")(b) == int(want.sum())
    got = get_kernel("logical_not", "array", "gpu")(b)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(cp.asnumpy(got), ~want)
    np.testing.assert_array_equal(cp.asnumpy(b), want)  # the input is left alone


def test_compress_several_arrays(rng):
    cond = rng.random(1000) < 0.4
    a, v = np.arange(1000), rng.random(1000)
    got = get_kernel("compress", "array", "gpu")(cp.asarray(cond), cp.asarray(a), cp.asarray(v))
    np.testing.assert_array_equal(cp.asnumpy(got[0]), a[cond])
    np.testing.assert_array_equal(cp.asnumpy(got[1]), v[cond])

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(builtin.UNARY) + ["sq1"])
def test_map_unary(name, dt, rng):
    op = UNARY_USER if name == "sq1" else builtin.UNARY[name]
    dt = np.dtype(dt)
    if op.float_only and dt.kind != "f":
        pytest.skip("float-only operator")
    v = rand_values(rng, 200, dt)
    if name in ("log", "sqrt", "minv"):
        v = np.abs(v) + dt.type(0.5)
    got = cp.asnumpy(get_kernel("map_unary", "array", "gpu")(op, cp.asarray(v), dt))
    odt = op.output_dtype(dt)
    assert got.dtype == odt
    try:
        with np.errstate(all="ignore"):
            want = [cast(op.func(cast(e, dt)), odt) for e in v]
    except TypeError:
        pytest.skip(f"NumPy does not define {name} on {dt.name} scalars")
    for g, w in zip(got, want):
        assert close(g, w, odt) if odt.kind != "f" else np.isclose(g, w, rtol=2e-6)


BIN_USER = BinaryOp("hyp", lambda a, b: a * a + b if a > b else b - a)


@pytest.mark.parametrize("scalar", [None, "a", "b"])
@pytest.mark.parametrize("dt", ["float32", "int8", "uint8", "bool", "int64"])
@pytest.mark.parametrize("name", ["plus", "minus", "rminus", "times", "div", "first",
                                  "second", "pair", "min", "max", "any", "lor", "land",
                                  "lxor", "eq", "lt", "ge", "hyp", "clip"])
def test_map_binary(name, dt, scalar, rng):
    op = {"hyp": BIN_USER, "clip": CLIP}.get(name) or builtin.BINARY[name]
    dt = np.dtype(dt)
    if op.float_only and dt.kind != "f":
        pytest.skip("float-only operator")
    a, b = rand_values(rng, 150, dt), rand_values(rng, 150, dt)
    if name == "div":
        b = np.where(b == 0, dt.type(1), b)
    ga, gb_ = cp.asarray(a), cp.asarray(b)
    if scalar == "a":
        a = np.full(150, a[3])
        ga = a[3].item()
    elif scalar == "b":
        b = np.full(150, b[3])
        gb_ = b[3]
    got = cp.asnumpy(get_kernel("map_binary", "array", "gpu")(op, ga, gb_, dt))
    odt = op.output_dtype(dt)
    assert got.dtype == odt and got.shape == (150,)
    try:
        with np.errstate(all="ignore"):
            want = [cast(op.func(cast(x, dt), cast(y, dt)), odt) for x, y in zip(a, b)]
    except TypeError:
        pytest.skip(f"NumPy does not define {name} on {dt.name} scalars")
    for g, w in zip(got, want):
        assert close(g, w, odt)
