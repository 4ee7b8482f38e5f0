"""mxv / vxm through every cache-aware CPU format, against the reference oracle.

Each format (``segmented``, ``heavy_light``, ``shards``) is pinned with
``gb.config(format=...)`` and runs one product case per semiring family (plus_times,
min_plus, max_min, any_pair, lor_land, plus_pair, user-defined), with every mask kind,
accumulators, replace and ``out``, ``A`` or ``A.T``, and every storage of ``x`` (dense,
sparse).  The hardware is *assumed* tiny (:func:`gblas.hardware.assume`), so that
the formats built by the operations have one column per segment, 2x1 tiles, 3 edge parts
and one-row merge blocks: small matrices exercise many segments, tiles, replicas and
blocks.  Kernel-level checks with every ordering (none, frequency, degree) and explicit
sizes compare against the CSR kernel (itself checked against the oracle); one bigger
product per format runs the parallel drivers.

One (semiring, dtype) case per family keeps Numba's compile time down: the grouped-rows
kernels are shared by ``segmented`` and ``heavy_light``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import draw_writeback, product_case_id, result_dtype
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas import hardware
from gblas.backends import reference as ref
from gblas.backends.registry import VecData, get_kernel
from gblas.formats import FORMATS as REGISTERED
from gblas.formats import pull_formats
from gblas.semirings import semiring as resolve_semiring
from gblas.testing import assert_equal, to_reference
from gblas.testing import strategies as gst

#: the CPU pull formats other than CSR, from the registry
FORMATS = [f for f in pull_formats("cpu") if f != "csr"]
BUILD = {f: REGISTERED[f] for f in FORMATS}
USER = gst.USER_SEMIRINGS

# one (semiring, dtype of A, dtype of x) per family
CASES = [
    ("plus_times", "float64", "float64"),
    ("min_plus", "int32", "int64"),
    ("max_min", "uint8", "uint8"),
    ("any_pair", "float64", "float64"),
    ("lor_land", "bool", "bool"),
    ("plus_pair", "int64", "float64"),
    (USER["max_clip"], "float64", "float64"),
]

#: Tiny caches: 1-column segments, 1-row merge blocks, 2-column x 1-row tiles (heavy at
#: 2 entries), 4-row shards, 3 parts.
TINY = {"l1d": 16, "l2": 16, "l3": 16, "line": 4, "threads": 3}
MAX_DIM = 9


def _check(gb_fn, ref_fn, args, kw, semiring):
    rkw = {"mask": None if kw["mask"] is None else to_reference(kw["mask"]),
           "accum": kw["accum"], "replace": kw["replace"],
           "out": None if kw["out"] is None else to_reference(kw["out"])}
    expected = ref_fn(*[to_reference(a) for a in args], semiring, **rkw)
    got = gb_fn(*args, semiring, **kw)
    if kw["out"] is not None:
        assert got is kw["out"]
    assert_equal(got, expected)


# ------------------------------------------------------------------ through the API


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES, ids=product_case_id)
@given(data=st.data())
def test_mxv_pinned_format(fmt, case, data):
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    transposed = data.draw(st.booleans(), label="A.T")
    if transposed:
        A = data.draw(gst.matrices((n, m), adt, iso=None), label="A^T").T
    else:
        A = data.draw(gst.matrices((m, n), adt, iso=None), label="A")
    x = data.draw(gst.vectors(n, xdt), label="x")
    kw = draw_writeback(data, m, result_dtype(s, adt, xdt))
    with hardware.assume(**TINY), gb.config(format=fmt):
        plan = gb.explain(gb.mxv, A, x, s, mask=kw["mask"])
        assert (plan.format, plan.direction) == (fmt, "pull"), plan
        _check(gb.mxv, ref.mxv, (A, x), kw, s)
        base = A.parent if transposed else A
        assert base.has_format(fmt, transposed=transposed)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[6]], ids=product_case_id)
@given(data=st.data())
def test_vxm_pinned_format(fmt, case, data):
    s, adt, xdt = case
    m, n = data.draw(gst.shapes(MAX_DIM), label="shape")
    A = data.draw(gst.matrices((m, n), adt, iso=None), label="A")
    u = data.draw(gst.vectors(m, xdt), label="u")
    kw = draw_writeback(data, n, result_dtype(s, xdt, adt))
    with hardware.assume(**TINY), gb.config(format=fmt):
        _check(gb.vxm, ref.vxm, (u, A), kw, s)


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_is_built_once_and_reused(fmt):
    A = gb.Matrix.from_coo([0, 0, 1, 2, 3], [1, 3, 2, 0, 3], [1.0, 2.0, 3.0, 4.0, 5.0],
                           shape=(4, 4))
    x = gb.Vector.from_dense([1.0, 2.0, 3.0, 4.0])
    expected = ref.mxv(to_reference(A), to_reference(x))
    with hardware.assume(**TINY), gb.config(format=fmt):
        assert any(f"build {fmt}" in c for c in gb.explain(gb.mxv, A, x).conversions)
        y1 = gb.mxv(A, x)
        F = A.get_format(fmt)
        y2 = gb.mxv(A, x)
        assert A.get_format(fmt) is F
        assert not any("build" in c for c in gb.explain(gb.mxv, A, x).conversions)
    assert_equal(y1, expected)
    assert_equal(y2, expected)
    assert A.uses(fmt) >= 3


def test_memory_budget_keeps_no_format():
    A = gb.Matrix.from_coo([0, 1, 2], [2, 0, 1], [1.0, 2.0, 3.0], shape=(3, 3))
    x = gb.Vector.from_dense([1.0, 2.0, 3.0])
    with hardware.assume(**TINY), gb.config(format="segmented", memory_budget=0):
        y = gb.mxv(A, x)
        assert not A.has_format("segmented")
    assert_equal(y, ref.mxv(to_reference(A), to_reference(x)))


def test_auto_reorder_through_the_api():
    """A scattered hub set triggers frequency clustering; results are unpermuted."""
    n = 40
    hubs = [3, 17, 29, 36]
    rows, cols = [], []
    for i in range(n):
        for h in hubs:
            rows.append(i)
            cols.append(h)
        rows.append(i)
        cols.append((i * 7) % n)
    A = gb.Matrix.from_coo(rows, cols, np.arange(1, len(rows) + 1, dtype=np.float64),
                           shape=(n, n), dup_op="plus")
    x = gb.Vector.from_dense(np.arange(n, dtype=np.float64) / 4)
    mask = gb.Vector.from_coo(np.arange(0, n, 3), np.ones(len(range(0, n, 3)), bool), n)
    expected = ref.mxv(to_reference(A), to_reference(x), mask=to_reference(mask.S))
    for fmt in ("segmented", "heavy_light"):
        B = A.dup()
        with hardware.assume(l1d=16, l2=32, l3=64, line=64, threads=2), \
                gb.config(format=fmt):
            assert_equal(gb.mxv(B, x, mask=mask.S), expected)
        F = B.get_format(fmt)
        assert F.reorder == "frequency" and F.col_perm is not None
        F.check_invariants()


# ------------------------------------------------------------------- kernel level


def _kernel_case(data, dt):
    m, n = data.draw(gst.shapes(12), label="shape")
    A = data.draw(gst.matrices((m, n), dt, iso=None), label="A")
    xv = data.draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n), label="x")
    xv = np.array(xv, dtype=dt)
    present = data.draw(st.sampled_from([None, "some"]), label="presence")
    xp = None if present is None else np.array(
        data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="x present"), bool)
    allow = None
    if data.draw(st.booleans(), label="masked"):
        allow = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)), bool)
    return A.csr(), VecData(n, None, xv, xp), allow


def _build(fmt, csr, data):
    reorder = data.draw(st.sampled_from([None, "frequency", "degree"]), label="reorder")
    threads = data.draw(st.integers(1, 4), label="threads")
    if fmt == "segmented":
        return BUILD["segmented"].from_csr(csr, segment_size=data.draw(st.integers(1, 5)),
                                     block_size=data.draw(st.integers(1, 5)),
                                     reorder=reorder, threads=threads)
    if fmt == "heavy_light":
        return BUILD["heavy_light"].from_csr(csr, tile_rows=data.draw(st.integers(1, 4)),
                                   tile_cols=data.draw(st.integers(1, 4)),
                                   heavy_threshold=data.draw(st.integers(1, 6)),
                                   reorder=reorder, threads=threads)
    return BUILD["shards"].from_csr(csr, threads=threads, shard_rows=data.draw(st.integers(1, 4)))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("sname", ["plus_times", "min_plus", "any_pair"])
@given(data=st.data())
def test_kernel_matches_csr_kernel(fmt, sname, data):
    csr, x, allow = _kernel_case(data, "float64")
    F = _build(fmt, csr, data)
    F.check_invariants()
    s = resolve_semiring(sname)
    types = s.types(np.dtype("float64"), np.dtype("float64"))
    want = get_kernel("mxv", "csr", "cpu", "pull")(csr, x, allow, s, types)
    got = get_kernel("mxv", fmt, "cpu", "pull")(F, x, allow, s, types)
    assert np.array_equal(got.present, want.present)
    if sname != "any_pair":  # ANY may pick any product
        assert np.array_equal(got.values[got.present], want.values[want.present])


@pytest.mark.parametrize("fmt", FORMATS)
def test_parallel_path_matches_csr(fmt, rng):
    """A product big enough for the parallel drivers (one compile per format)."""
    n = 6000
    deg = rng.zipf(1.8, n).clip(1, 3000) + 10  # a few hubs of up to 3000 entries
    rows = np.repeat(np.arange(n), deg)
    cols = rng.integers(0, n, rows.size)
    A = gb.Matrix.from_coo(rows, cols, rng.integers(1, 5, rows.size).astype(np.float64),
                           shape=(n, n), dup_op="plus")
    assert A.nvals >= 1 << 16
    x = gb.Vector.from_dense(rng.integers(-4, 5, n).astype(np.float64))
    mask = gb.Vector.from_dense(rng.random(n) < 0.7)
    with gb.config(format="csr"):
        want = gb.mxv(A, x, mask=mask.V)
    with hardware.assume(l1d=1024, l2=4096, l3=8192, line=64, threads=2), \
            gb.config(format=fmt):
        got = gb.mxv(A, x, mask=mask.V)
    assert got.isequal(want)
