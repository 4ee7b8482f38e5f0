"""``gpu_heavy_light`` (MultiGraphD heavy/light tiles) pull SpMV against the reference oracle.

Every test is marked ``gpu``; the module is skipped, with its reason, where CuPy or a CUDA
device is missing.  Results are compared with :func:`gblas.backends.reference.mxv` (the
oracle folds each row in Python, casting after every step) through
:func:`gblas.testing.assert_equal` (ANY-aware, float tolerance).  Formats are built with
tiny tiles, units and blocks so that small matrices have heavy and light tiles, several
units per tile, padding, and rows that span threads and warps of a unit.
"""

from __future__ import annotations

import numpy as np
import pytest

# skips this module where CuPy or a CUDA device is missing
from gpu_helpers import cp, larger_graph, semiring
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas import testing as gbt
from gblas.backends import reference as ref
from gblas.backends.registry import VecData, get_kernel
from gblas.formats import gpu_heavy_light as ghl
from gblas.formats import light_panels
from gblas.formats.csr import CSR
from gblas.formats.gpu_heavy_light import PAD, GPUHeavyLight
from gblas.semirings import builtin
from gblas.testing.oracle import rand_values

pytestmark = pytest.mark.gpu

#: Tiny tiles: 8-row by 32-column tiles, heavy from 10 entries, units of at most 100
#: entries over 64 threads (2 warps, up to 2 entries per thread); light panels of 16
#: columns by 8 rows in units of 256 entries (several groups of 128).
TINY = dict(tile_rows=8, tile_cols=32, heavy_threshold=10, unit_entries=100, block_threads=64,
            light_cols=16, light_rows=8, light_unit=256)
#: The light entries' kernels.
LIGHTS = ("panels", "csr")

#: (semiring, dtype, masked): masked cases have iso values, x presence and a row mask.
CASES = [
    ("plus_times", "float32", False),
    ("plus_times", "float64", True),
    ("plus_times", "int64", False),
    ("plus_times", "uint8", True),
    ("min_plus", "float32", True),
    ("min_plus", "int32", False),
    ("max_times", "float64", False),
    ("max_min", "int16", True),
    ("any_pair", "int8", True),
    ("any_second", "float32", False),
    ("lor_land", "bool", False),
    ("plus_pair", "int32", True),
    ("max_clip", "float32", False),
    ("max_clip", "float64", True),
    ("umax_times", "int64", True),
    ("plus_absdiff", "float32", False),
]


def pull():
    return get_kernel("mxv", "gpu_heavy_light", "gpu", "pull")


# --------------------------------------------------------------------------- inputs


def random_csr(rng, m, n, dt, *, iso=False, density=0.03, hubs=2, hot=3) -> CSR:
    """Random CSR (on the CPU) with a dense band of rows 0-7 (whose tiles need several
    units), ``hubs`` dense rows, ``hot`` dense columns, then empty rows and columns."""
    pat = rng.random((m, n)) < density
    pat[:8] |= rng.random((min(8, m), n)) < 0.8
    hub_rows = rng.choice(m, min(hubs, m), replace=False) if m else []
    hot_cols = rng.choice(n, min(hot, n), replace=False) if n else []
    for i in hub_rows:
        pat[i] = rng.random(n) < 0.9
    for j in hot_cols:
        pat[:, j] |= rng.random(m) < 0.7
    empty_rows = np.flatnonzero(rng.random(m) < 0.2)
    pat[np.setdiff1d(empty_rows[empty_rows >= 8], hub_rows)] = False
    pat[:, np.setdiff1d(np.flatnonzero(rng.random(n) < 0.1), hot_cols)] = False
    rows, cols = np.nonzero(pat)
    dt = np.dtype(dt)
    indptr = np.zeros(m + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(np.bincount(rows, minlength=m))
    if iso:
        value = np.asarray(True if dt.kind == "b" else 2).astype(dt)[()]
        return CSR((m, n), indptr, cols.astype(np.int32), None, dt, value, "cpu")
    return CSR((m, n), indptr, cols.astype(np.int32), rand_values(rng, rows.size, dt), dt,
               None, "cpu")


def expected(A: CSR, x, xpres, allow, sr) -> ref.RefVector:
    """The oracle's ``y = A x`` (rows outside ``allow`` dropped)."""
    rows, cols, vals = (np.asarray(a) for a in A.to_device("cpu").to_coo())
    RA = ref.RefMatrix.from_coo(rows, cols, vals, A.shape, A.dtype)
    idx = np.arange(len(x)) if xpres is None else np.flatnonzero(xpres)
    rx = ref.RefVector.from_coo(idx, np.asarray(x)[idx], len(x), np.asarray(x).dtype)
    y = ref.mxv(RA, rx, sr)
    if allow is not None:
        y.data = {i: v for i, v in y.data.items() if allow[i]}
    return y


def as_reference(y: VecData, r) -> ref.RefVector:
    pres = cp.asnumpy(y.present).astype(bool)
    idx = np.flatnonzero(pres)
    return ref.RefVector.from_coo(idx, cp.asnumpy(y.values)[idx], y.size, np.dtype(r))


def check(y: VecData, want: ref.RefVector, r) -> None:
    r = np.dtype(r)
    assert y.values.dtype == r and y.present.dtype == np.bool_
    tol = {"float32": 1e-4, "float64": 1e-10}.get(r.name)
    gbt.assert_equal(as_reference(y, r), want, rtol=tol, atol=tol)


def run(H, x, xpres=None, allow=None, sr=None, **knobs) -> VecData:
    xv = VecData(len(x), None, cp.asarray(x), None if xpres is None else cp.asarray(xpres))
    types = sr.types(H.dtype, np.asarray(x).dtype)
    return pull()(H, xv, None if allow is None else cp.asarray(allow), sr, types, **knobs)


# ---------------------------------------------------------------------------- tests


@pytest.mark.parametrize("name,dt,masked", CASES)
def test_pull_semirings(name, dt, masked, rng):
    sr = semiring(name)
    m, n = 61, 83
    A = random_csr(rng, m, n, dt, iso=masked)
    x = rand_values(rng, n, dt)
    xpres = rng.random(n) < 0.7 if masked else None
    allow = rng.random(m) < 0.6 if masked else None
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), **TINY, light_relabel=False)
    H.check_invariants()
    assert H.nunits > len(H.heavy_tiles) > 0 and H.light.nnz > 0, H.describe()
    assert H.light_panels.nunits > 1 and H.light_panels.n_row_panels > 1
    want = expected(A, x, xpres, allow, sr)
    for stage_x in (True, False):  # x slice in shared memory, or gathered from global
        for light in LIGHTS:
            y = run(H, x, xpres, allow, sr, stage_x=stage_x, light=light)
            check(y, want, sr.types(A.dtype, x.dtype)[2])
    # the light panels over columns relabelled by in-degree (x gathered per call)
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), **TINY, light_relabel=True)
    H.check_invariants()
    assert H.light_panels.col_order is not None
    check(run(H, x, xpres, allow, sr), want, sr.types(A.dtype, x.dtype)[2])


@pytest.mark.parametrize("name,dt", [("plus_times", "float32"), ("plus_times", "int64"),
                                     ("min_plus", "float32"), ("times_times", "float64"),
                                     ("max_clip", "float32"), ("lor_land", "bool")])
@pytest.mark.parametrize("masked", [False, True])
def test_light_panels_relabelled_columns_and_cut_chunks(name, dt, masked, rng):
    """Columns relabelled by in-degree within spans (x, and its flags, gathered into that
    order per call) and chunks cut into pieces that several warps fold at once; each
    layout also with the kernels' knobs forced: phase 1 in blocks of 512 or 64 threads,
    with and without prefetching the next group, and phase 2 reading its chunk bounds
    from global memory or copying them to shared memory 1 or 5 at a time."""
    from gblas.backends.gpu.light_panels import light_panels_pull

    sr = semiring(name)
    m, n = 300, 700
    A = random_csr(rng, m, n, dt, iso=masked, density=0.05, hot=40)
    x = rand_values(rng, n, dt)
    xpres = rng.random(n) < 0.7 if masked else None
    allow = rng.random(m) < 0.6 if masked else None
    want = expected(A, x, xpres, allow, sr)
    types = sr.types(A.dtype, x.dtype)
    xv = VecData(n, None, cp.asarray(x), None if xpres is None else cp.asarray(xpres))
    for relabel, span, cut, group in ((True, 64, 3, 128), (True, 10 ** 6, 512, 256),
                                      (False, 64, 2, 256), (None, 64, 7, None)):
        L = light_panels.LightPanels.from_csr(A.to_device("gpu"), panel_cols=16,
                                              panel_rows=32, unit_entries=256,
                                              relabel=relabel, relabel_span=span,
                                              chunk_partials=cut, group=group)
        L.check_invariants()
        if relabel is not None:
            assert (L.col_order is not None) == relabel
        if L.col_order is not None:     # x gathered at the columns with entries only
            assert int(cp.count_nonzero(L.col_order >= 0)) == int(cp.count_nonzero(
                cp.bincount(cp.asarray(A.indices), minlength=n))) < n
        ch = cp.asnumpy(L.chunks)
        assert (ch[:, 1] - ch[:, 0]).max() == min(cut, 512) or cut == 512
        al = None if allow is None else cp.asarray(allow)
        check(light_panels_pull(L, xv, al, sr, types), want, types[2])
        for knobs in (dict(threads=512, prefetch=True, chunk_batch=0),
                      dict(threads=64, prefetch=False, chunk_batch=1),
                      dict(prefetch=L.group == 128, chunk_batch=5)):
            check(light_panels_pull(L, xv, al, sr, types, **knobs), want, types[2])


@pytest.mark.parametrize("name,dt", [("plus_times", "float64"), ("min_plus", "float32"),
                                     ("max_clip", "float32"), ("any_second", "int64"),
                                     ("lor_land", "bool"), ("plus_times", "int8"),
                                     ("times_plus", "int16"), ("max_min", "uint8"),
                                     ("plus_absdiff", "float32")])
def test_light_panels_long_rows(name, dt, rng):
    """Light entries only: rows of 1000 entries in one column panel cross many groups of
    128 (runs continue across lanes, warps and units); sparse rows elsewhere; x presence
    and a row mask; several units per panel and row panels."""
    sr = semiring(name) if name != "times_plus" else builtin.SEMIRINGS["times_plus"]
    m, n = 300, 2100
    pat = rng.random((m, n)) < 0.004
    pat[[5, 6, 250], :1000] = rng.random((3, 1000)) < 0.97
    pat[17] = True
    rows, cols = np.nonzero(pat)
    A = CSR.from_coo(rows, cols, rand_values(rng, rows.size, dt), (m, n))
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), heavy_threshold=10 ** 9,
                               light_cols=1024, light_rows=64, light_unit=384)
    H.check_invariants()
    L = H.light_panels
    assert H.nunits == 0 and L.nunits > 6 and L.npart < L.nnz
    x = rand_values(rng, n, dt)
    for xpres, allow in [(None, None), (rng.random(n) < 0.8, rng.random(m) < 0.7)]:
        y = run(H, x, xpres, allow, sr)
        check(y, expected(A, x, xpres, allow, sr), sr.types(A.dtype, x.dtype)[2])


@pytest.mark.parametrize("name,dt", [("plus_times", "float64"), ("min_plus", "int32"),
                                     ("max_clip", "float32"), ("any_second", "int64")])
def test_light_panels_every_run_length(name, dt, rng):
    """Rows of 1 to 140 entries in one column panel: the stretches of lanes without a run
    start take every length from 0 to 31, so the stream kernel's scan takes every number
    of steps from none (every lane starts a run) to five."""
    sr = semiring(name)
    lengths = np.concatenate([np.ones(200, dtype=np.int64), rng.permutation(np.repeat(
        np.arange(1, 141), 2))])
    m, n = lengths.size, 512
    rows = np.repeat(np.arange(m), lengths)
    cols = np.concatenate([np.sort(rng.choice(n, k, replace=False)) for k in lengths])
    A = CSR.from_coo(rows, cols, rand_values(rng, rows.size, dt), (m, n))
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), heavy_threshold=10 ** 9, light_cols=512,
                               light_rows=256, light_unit=1024)
    H.check_invariants()
    assert H.light_panels.nunits > 10
    x = rand_values(rng, n, dt)
    for xpres in (None, rng.random(n) < 0.9):
        y = run(H, x, xpres, None, sr)
        check(y, expected(A, x, xpres, None, sr), sr.types(A.dtype, x.dtype)[2])


@pytest.mark.parametrize("name,dt", [("times_times", "float32"), ("times_times", "float64"),
                                     ("times_times", "int32"), ("times_times", "int16"),
                                     ("umax_times", "int64"), ("umax_times", "uint8")])
def test_light_panels_exchange_fold_under_contention(name, dt, rng):
    """Monoids without a native atomic fold by atomic exchanges in phase 2: four dense
    rows have a partial in each of 64 column panels, which the warps of a block fold into
    the same accumulators at once.  Values of +-1 keep every ``times`` product exact."""
    sr = semiring(name)
    m, n = 700, 4096
    pat = rng.random((m, n)) < 0.002
    pat[[3, 4, 300, 699]] = True
    rows, cols = np.nonzero(pat)
    signs = rng.choice(np.array([-1, 1]), rows.size)
    vals = rand_values(rng, rows.size, dt) if name == "umax_times" else signs.astype(dt)
    A = CSR.from_coo(rows, cols, vals, (m, n))
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), heavy_threshold=10 ** 9, light_cols=64,
                               light_rows=256, light_unit=2048)
    H.check_invariants()
    L = H.light_panels
    assert L.nunits >= 64 and L.n_row_panels == 3
    x = rand_values(rng, n, dt) if name == "umax_times" else \
        rng.choice(np.array([-1, 1]), n).astype(dt)
    for xpres in (None, rng.random(n) < 0.9):
        for _ in range(3):   # the order of the updates changes between calls
            y = run(H, x, xpres, None, sr)
            check(y, expected(A, x, xpres, None, sr), sr.types(A.dtype, x.dtype)[2])


@pytest.mark.parametrize("dt", ["float32", "int64"])
def test_light_panels_rows_with_a_value(dt, rng):
    """With a dense x, phase 2 takes the rows with a value from the layout: a row whose
    products cancel to the identity (0) still has one, an empty row has none; with x
    flags, a row whose every x is missing has none."""
    m, n = 300, 64
    rows = np.repeat(np.arange(0, m, 3), 2)          # rows 1, 2, 4, 5, ... stay empty
    cols = np.tile([3, 40], m // 3)
    vals = np.tile(np.array([2, -2], dtype=dt), m // 3)
    A = CSR.from_coo(rows, cols, vals, (m, n))
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), heavy_threshold=10 ** 9, light_cols=32,
                               light_rows=64, light_unit=256)
    H.check_invariants()
    assert cp.asnumpy(H.light_panels.row_hit).tolist() == (np.arange(m) % 3 == 0).tolist()
    sr = builtin.SEMIRINGS["plus_times"]
    x = np.ones(n, dtype=dt)
    y = run(H, x, None, None, sr)
    assert cp.asnumpy(y.present).tolist() == (np.arange(m) % 3 == 0).tolist()
    assert not cp.asnumpy(y.values)[::3].any()       # 2 - 2 = 0, present
    xpres = np.ones(n, dtype=bool)
    xpres[[3, 40]] = False
    y = run(H, x, xpres, None, sr)
    assert not cp.asnumpy(y.present).any()
    check(y, expected(A, x, xpres, None, sr), dt)


@pytest.mark.parametrize("threads,unit", [(32, 10), (64, 1000), (128, 1000), (256, 4096)])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_clip", "any_second"])
def test_hub_row_heavier_than_a_tile(threads, unit, name, rng):
    """A hub row of 3000 entries spans many column panels, units, threads and warps; a
    dense corner makes multi-row units; the other rows are sparse."""
    sr = semiring(name)
    m, n = 40, 3000
    pat = rng.random((m, n)) < 0.01
    pat[7] = True                                    # the hub: every column
    pat[20:24, :600] = rng.random((4, 600)) < 0.95   # a dense corner
    pat[31] = False                                  # an empty row
    rows, cols = np.nonzero(pat)
    A = CSR.from_coo(rows, cols, rand_values(rng, rows.size, "float64"), (m, n))
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), tile_rows=16, tile_cols=1024,
                               heavy_threshold=200, unit_entries=unit, block_threads=threads)
    H.check_invariants()
    assert H.nunits >= 3 and H.light.nnz > 0
    x = rand_values(rng, n, "float64")
    xpres = rng.random(n) < 0.8
    allow = np.ones(m, bool)
    allow[[3, 21]] = False
    for xp_, al in [(None, None), (xpres, allow)]:
        for light in LIGHTS:
            y = run(H, x, xp_, al, sr, light=light)
            check(y, expected(A, x, xp_, al, sr), "float64")


@pytest.mark.parametrize("iso", [False, True])
def test_every_entry_heavy_or_light(iso, rng):
    """Only heavy tiles (threshold 1), then only light ones (threshold above every tile)."""
    sr = builtin.SEMIRINGS["min_plus"]
    A = random_csr(rng, 37, 29, "float32", iso=iso, density=0.2)
    x = rand_values(rng, 29, "float32")
    for thr, heavy in [(1, True), (10 ** 6, False)]:
        H = GPUHeavyLight.from_csr(A.to_device("gpu"), **{**TINY, "heavy_threshold": thr})
        H.check_invariants()
        assert (H.light.nnz == 0) == heavy and (H.nunits == 0) == (not heavy)
        check(run(H, x, None, None, sr), expected(A, x, None, None, sr), "float32")


@pytest.mark.parametrize("shape", [(0, 5), (4, 0), (0, 0), (1, 1), (6, 7)])
@pytest.mark.parametrize("filled", [False, True])
def test_degenerate_shapes(shape, filled, rng):
    """0xn, mx0, 1x1 and an all-empty matrix: no entry, or every position filled."""
    m, n = shape
    if filled and m * n:
        rows, cols = np.nonzero(np.ones(shape, bool))
        A = CSR.from_coo(rows, cols, rand_values(rng, m * n, "int64"), shape)
    else:
        A = CSR.empty(shape, np.int64, "cpu")
    sr = builtin.SEMIRINGS["plus_times"]
    x = rand_values(rng, n, "int64")
    for params in (TINY, dict(TINY, tile_rows=1, tile_cols=1, heavy_threshold=1,
                              block_threads=32)):
        H = GPUHeavyLight.from_csr(A.to_device("gpu"), **params)
        H.check_invariants()
        assert H.nnz == A.nnz
        y = run(H, x, None, None, sr)
        assert y.size == m
        check(y, expected(A, x, None, None, sr), "int64")
        assert (H.to_csr().to_scipy() != A.to_scipy()).nnz == 0


@pytest.mark.parametrize("kind", ["S", "V", "~S", "~V"])
def test_masks_through_the_api(kind, monkeypatch, rng):
    """``gb.config(format="gpu_heavy_light")`` routes a masked mxv through the format
    (built with tiny default tiles); structural, value and complemented masks; a sparse x."""
    monkeypatch.setattr(ghl, "DEFAULT_TILE_ROWS", 8)
    monkeypatch.setattr(ghl, "DEFAULT_TILE_COLS", 16)
    monkeypatch.setattr(ghl, "DEFAULT_HEAVY_THRESHOLD", 6)
    monkeypatch.setattr(ghl, "DEFAULT_UNIT_ENTRIES", 100)
    monkeypatch.setattr(ghl, "DEFAULT_BLOCK_THREADS", 32)
    monkeypatch.setattr(light_panels, "DEFAULT_PANEL_COLS", 8)
    monkeypatch.setattr(light_panels, "DEFAULT_PANEL_ROWS", 16)
    m, n = 70, 90
    C = random_csr(rng, m, n, "float64")
    A = gb.Matrix.from_scipy(C.to_scipy()).to("gpu")
    xi = np.flatnonzero(rng.random(n) < 0.8)
    x = gb.Vector.from_coo(xi, rng.random(xi.size) + 0.5, n).to("gpu")
    mi = np.flatnonzero(rng.random(m) < 0.6)
    mv = gb.Vector.from_coo(mi, rng.integers(0, 2, mi.size).astype(np.int8), m).to("gpu")
    mask = gbt.strategies.make_mask(mv, kind)
    with gb.config(format="gpu_heavy_light"):
        plan = gb.explain(gb.mxv, A, x, "plus_times", mask=mask)
        y = gb.mxv(A, x, "plus_times", mask=mask)
    assert plan.format == "gpu_heavy_light", plan.reason
    H = A.get_format("gpu_heavy_light")
    assert isinstance(H, GPUHeavyLight) and H.nunits > 0 and H.light.nnz > 0
    assert H.light_panels is not None and H.light_panels.n_row_panels > 1
    want = ref.mxv(gbt.to_reference(A), gbt.to_reference(x), "plus_times",
                   mask=gbt.to_reference(mask))
    gbt.assert_equal(y, want)


def test_roundtrip_and_device_moves(rng):
    for iso, dt in [(False, "float32"), (True, "int16"), (False, "bool")]:
        A = random_csr(rng, 80, 90, dt, iso=iso, density=0.1)
        Hg = GPUHeavyLight.from_csr(A.to_device("gpu"), **TINY)
        Hc = GPUHeavyLight.from_csr(A, **TINY)
        assert Hg.nunits > 0 and Hg.light.nnz > 0
        for H in (Hg, Hc.to_device("gpu"), Hg.to_device("cpu")):
            H.check_invariants()
            B = H.to_csr()
            assert B.dtype == A.dtype and B.is_iso == A.is_iso and B.iso_value == A.iso_value
            assert (B.to_scipy() != A.to_scipy()).nnz == 0 and B.nnz == A.nnz
        Lg, Lc = Hg.light_panels, Hc.light_panels
        for a, b in [(Hg.hrow, Hc.hrow), (Hg.hcol, Hc.hcol), (Hg.units, Hc.units),
                     (Hg.rp_units, Hc.rp_units), (Hg.col_perm, Hc.col_perm),
                     (Lg.ent, Lc.ent), (Lg.val, Lc.val), (Lg.units, Lc.units),
                     (Lg.gbase, Lc.gbase), (Lg.prow, Lc.prow), (Lg.chunks, Lc.chunks),
                     (Lg.cptr, Lc.cptr), (Lg.row_hit, Lc.row_hit)]:
            if a is None:
                assert b is None
                continue
            np.testing.assert_array_equal(cp.asnumpy(a), b)
        assert Hg.nbytes == Hc.nbytes > 0
        padding = int(cp.count_nonzero(Hg.hrow == PAD))
        assert padding == Hg.hrow.size - Hg.n_heavy


def test_parameter_errors():
    A = CSR.empty((3, 3), np.float32, "cpu")
    for bad in [dict(tile_rows=0), dict(tile_rows=40000), dict(tile_cols=70000),
                dict(heavy_threshold=0), dict(unit_entries=0), dict(block_threads=48),
                dict(block_threads=2048), dict(reorder="rcm"), dict(light="coo"),
                dict(light_cols=0), dict(light_cols=40000), dict(light_rows=70000),
                dict(light_unit=0)]:
        with pytest.raises(ValueError, match="gpu_heavy_light"):
            GPUHeavyLight.from_csr(A, **bad)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_larger_graph_matches_csr_pull(dt, rng):
    """A skewed 20000-vertex graph with the default units and blocks (256 threads, up to
    64 entries each): against SciPy (plus_times) and the CSR pull (min_plus, masked)."""
    S_ = larger_graph(rng).astype(dt)
    A = CSR.from_scipy(S_).to_device("gpu")
    H = GPUHeavyLight.from_csr(A, tile_rows=2048, tile_cols=1024, heavy_threshold=1024)
    H.check_invariants()
    assert 0.2 < H.heavy_share < 1 and H.block_threads == 256
    x = (rng.random(A.shape[1]) + 0.5).astype(dt)
    pt = builtin.SEMIRINGS["plus_times"]
    y = run(H, x, None, None, pt)
    np.testing.assert_allclose(cp.asnumpy(y.values), S_ @ x,
                               rtol=1e-4 if dt == "float32" else 1e-12)
    np.testing.assert_array_equal(cp.asnumpy(y.present), np.diff(S_.indptr) > 0)
    mp = builtin.SEMIRINGS["min_plus"]
    xpres = rng.random(A.shape[1]) < 0.5
    allow = rng.random(A.shape[0]) < 0.5
    ys = run(H, x, xpres, allow, mp)
    assert bool(cp.all(run(H, x, xpres, allow, mp, stage_x=False).values == ys.values))
    yc = get_kernel("mxv", "csr", "gpu", "pull")(
        A, VecData(len(x), None, cp.asarray(x), cp.asarray(xpres)), cp.asarray(allow), mp,
        mp.types(A.dtype, x.dtype))
    np.testing.assert_array_equal(cp.asnumpy(ys.present), cp.asnumpy(yc.present))
    np.testing.assert_array_equal(cp.asnumpy(ys.values), cp.asnumpy(yc.values))


#: (semiring, dtype) pairs the property test draws from.
PAIRS = [("plus_times", "float64"), ("min_plus", "int32"), ("max_times", "float32"),
         ("any_pair", "int64"), ("lor_land", "bool"), ("max_clip", "float64"),
         ("umax_times", "int16")]


@given(data=st.data())
def test_property_against_the_oracle(data):
    """Random small matrices, vectors, masks and tile parameters."""
    name, dt = data.draw(st.sampled_from(PAIRS))
    sr = semiring(name)
    RA = data.draw(gbt.strategies.matrices(dtype=dt, max_dim=14, iso=None, reference=True))
    m, n = RA.shape
    rx = data.draw(gbt.strategies.vectors(n, dt, reference=True))
    allow = np.asarray(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)), bool)
    params = dict(tile_rows=data.draw(st.integers(1, 5)),
                  tile_cols=data.draw(st.integers(1, 6)),
                  heavy_threshold=data.draw(st.integers(1, 4)),
                  unit_entries=data.draw(st.integers(1, 40)),
                  block_threads=data.draw(st.sampled_from([32, 64])),
                  reorder=data.draw(st.sampled_from(["degree", None])),
                  light_cols=data.draw(st.integers(1, 6)),
                  light_rows=data.draw(st.integers(1, 5)),
                  light_unit=data.draw(st.integers(1, 300)),
                  light_relabel=data.draw(st.sampled_from([None, True, False])))
    keys = sorted(RA.data)
    rows = np.array([k[0] for k in keys], dtype=np.int64)
    cols = np.array([k[1] for k in keys], dtype=np.int64)
    vals = np.array([RA.data[k] for k in keys], dtype=dt)
    A = CSR.from_coo(rows, cols, vals, (m, n))
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), **params)
    H.check_invariants()
    x = np.zeros(n, dt)
    xpres = np.zeros(n, bool)
    for k, v in rx.data.items():
        x[k], xpres[k] = v, True
    use_mask = data.draw(st.booleans())
    al = allow if use_mask else None
    want = ref.mxv(RA, rx, sr)
    if al is not None:
        want.data = {i: v for i, v in want.data.items() if al[i]}
    for light in LIGHTS:
        y = run(H, x, xpres, al, sr, light=light)
        check(y, want, sr.types(np.dtype(dt), np.dtype(dt))[2])


@pytest.mark.parametrize("name,dt", [("plus_times", "float64"), ("min_plus", "int64"),
                                     ("plus_times", "float32")])
def test_light_row_panel_shared_by_blocks(name, dt, rng):
    """32768-row panels of 8-byte results do not fit one block's shared memory: two blocks
    share each panel (every row of both halves checked against the CSR pull)."""
    sr = builtin.SEMIRINGS[name]
    m, n = 70000, 50
    rows = np.repeat(np.arange(m), 3)
    cols = rng.integers(0, n, rows.size)
    keep = np.unique(rows * n + cols)
    rows, cols = keep // n, keep % n
    A = CSR.from_coo(rows, cols, rand_values(rng, rows.size, dt), (m, n)).to_device("gpu")
    H = GPUHeavyLight.from_csr(A, light_rows=32768)
    assert H.nunits == 0 and H.light_panels.n_row_panels == 3
    x = rand_values(rng, n, dt)
    xpres = rng.random(n) < 0.8
    allow = rng.random(m) < 0.9
    y = run(H, x, xpres, allow, sr)
    yc = get_kernel("mxv", "csr", "gpu", "pull")(
        A, VecData(n, None, cp.asarray(x), cp.asarray(xpres)), cp.asarray(allow), sr,
        sr.types(A.dtype, x.dtype))
    np.testing.assert_array_equal(cp.asnumpy(y.present), cp.asnumpy(yc.present))
    # float sums: the row's partials arrive in any order (atomic updates); mixed signs
    np.testing.assert_allclose(cp.asnumpy(y.values), cp.asnumpy(yc.values), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name,dt,masked", [("plus_times", "float64", False),
                                            ("min_plus", "float32", True),
                                            ("plus_second", "float64", False)])
def test_x_given_in_the_operand_layout(name, dt, masked, rng):
    """``x_layout=True``: ``x`` (and its flags) already in the light panels' relabelled
    order (:meth:`GPUHeavyLight.operand_layout`, zeros where no column goes) gives the
    product of ``x`` in column order; a format without that order refuses it."""
    sr = semiring(name)
    m, n = 61, 83
    A = random_csr(rng, m, n, dt, iso=masked)
    x = rand_values(rng, n, dt)
    xpres = rng.random(n) < 0.7 if masked else None
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), light_cols=16, light_rows=8,
                               light_unit=256, light_relabel=True)
    lay = H.operand_layout()
    assert lay is not None and H.operand_layout() is lay  # made once
    pos = cp.asnumpy(lay.positions)
    used = np.unique(np.asarray(A.to_device("cpu").indices))
    assert (pos[used] >= 0).all() and len(set(pos[pos >= 0])) == (pos >= 0).sum()
    xl = np.zeros(lay.size, dtype=np.asarray(x).dtype)
    xl[pos[pos >= 0]] = np.asarray(x)[pos >= 0]
    pl = None
    if xpres is not None:
        pl = np.zeros(lay.size, dtype=np.bool_)
        pl[pos[pos >= 0]] = xpres[pos >= 0]
    types = sr.types(H.dtype, np.asarray(x).dtype)
    xv = VecData(lay.size, None, cp.asarray(xl), None if pl is None else cp.asarray(pl))
    got = pull()(H, xv, None, sr, types, x_layout=True)
    check(got, expected(A, x, xpres, None, sr), types[2])
    plain = GPUHeavyLight.from_csr(A.to_device("gpu"), light_relabel=False)
    assert plain.operand_layout() is None
    with pytest.raises(ValueError, match="x_layout"):
        pull()(plain, xv, None, sr, types, x_layout=True)
