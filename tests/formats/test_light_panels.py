"""The light column panel layout (:mod:`gblas.formats.light_panels`), on the host.

The GPU kernels are tested against the oracle in ``test_gpu_heavy_light.py``; here the
layout itself is checked on any machine: its invariants, that it decodes to the matrix it
was built from, and that folding it the way the kernels do (one partial per run of a
group, runs numbered from ``gbase``, partials reduced per row panel through ``chunks``)
gives ``A @ x``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.formats.csr import CSR
from gblas.formats.gpu_heavy_light import GPUHeavyLight
from gblas.formats.light_panels import GROUP, GROUP_WIDE, HEAD, LightPanels, panel_params


def fold_like_the_kernels(L: LightPanels, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``plus_times`` over the layout, following the kernels' partial numbering."""
    m = L.shape[0]
    ent = np.asarray(L.ent, dtype=np.int64)
    if L.col_order is not None:
        # the kernel's gather into the layout's order (-1: an unused id, a zero)
        order = np.asarray(L.col_order)
        x = np.where(order >= 0, x[np.maximum(order, 0)], 0)
    part = np.zeros(max(L.npart, 1))
    written = np.zeros(max(L.npart, 1), dtype=np.int64)
    for p, s, e in np.asarray(L.units):
        G = L.group
        for g0 in range(s, e, G):
            at = int(L.gbase[g0 // G]) - 1
            for k in range(g0, min(g0 + G, e)):
                if ent[k] & HEAD or k == g0:   # a run starts: the next partial
                    at += 1
                    written[at] += 1
                a = L.iso_value if L.val is None else L.val[k]
                part[at] += a * x[p * L.panel_cols + (ent[k] & (HEAD - 1))]
    assert np.all(written[:L.npart] == 1), "every partial written by exactly one run"
    y = np.zeros(m)
    pres = np.zeros(m, dtype=bool)
    RR = L.panel_rows
    for q in range(L.n_row_panels):
        for a, b in np.asarray(L.chunks)[L.cptr[q]:L.cptr[q + 1]]:
            rows = q * RR + np.asarray(L.prow[a:b], dtype=np.int64)
            np.add.at(y, rows, part[a:b])
            pres[rows] = True
    return y, pres


@st.composite
def layouts(draw):
    m = draw(st.integers(0, 40))
    n = draw(st.integers(0, 40))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    pat = rng.random((m, n)) < draw(st.floats(0, 0.6))
    if m and n and draw(st.booleans()):
        pat[rng.integers(m)] = True          # a long row across groups
    rows, cols = np.nonzero(pat)
    iso = draw(st.booleans())
    A = CSR.from_coo(rows, cols, None if iso else rng.random(rows.size) + 0.5, (m, n),
                     **({"iso_value": 2.0} if iso else {}))
    params = dict(panel_cols=draw(st.integers(1, 20)), panel_rows=draw(st.integers(1, 70)),
                  unit_entries=draw(st.integers(1, 400)), bank_order=draw(st.booleans()),
                  relabel=draw(st.sampled_from([None, True, False])),
                  relabel_span=draw(st.integers(1, 60)),
                  chunk_partials=draw(st.sampled_from([1, 3, 8, 512])),
                  group=draw(st.sampled_from([None, GROUP, GROUP_WIDE])))
    return A, params, rng.random(n)


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_layout_decodes_and_folds_to_the_product(case):
    A, params, x = case
    L = LightPanels.from_csr(A, **params)
    L.check_invariants()
    assert L.nnz == A.nnz and L.ent.size % L.group == 0
    want = params["group"] or GROUP_WIDE
    assert L.group == want and L.unit_entries % want == 0
    r, c, v = L.to_coo()
    o = np.lexsort((c, r))
    S = A.to_scipy()
    assert np.array_equal(r[o], A.row_indices()) and np.array_equal(c[o], A.indices)
    if v is not None:
        np.testing.assert_array_equal(v[o], A.values)
    y, pres = fold_like_the_kernels(L, x)
    np.testing.assert_allclose(y, S @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(pres, np.diff(S.indptr) > 0)


@settings(max_examples=20, deadline=None)
@given(layouts())
def test_the_64_bit_build_lays_out_the_same(case):
    """Matrices past 2^31 entries (or rows, columns) build with 64-bit entry indices: the
    same layout as the 32-bit build of smaller ones."""
    import gblas.formats.light_panels as lp

    A, params, _ = case
    narrow = LightPanels.from_csr(A, **params)
    old = lp.INT32_LIMIT
    lp.INT32_LIMIT = 0
    try:
        wide = LightPanels.from_csr(A, **params)
    finally:
        lp.INT32_LIMIT = old
    for name in ("ent", "val", "units", "gbase", "prow", "cptr", "chunks", "row_hit",
                 "col_order"):
        a, b = getattr(narrow, name), getattr(wide, name)
        assert (a is None) == (b is None), name
        if a is not None:
            np.testing.assert_array_equal(a, b, err_msg=name)
            assert a.dtype == b.dtype, name
    assert (narrow.npart, narrow.nnz) == (wide.npart, wide.nnz)


def _bank_loads(L: LightPanels) -> np.ndarray:
    """Lanes in the busiest shared-memory bank of every 32 consecutive partials of a chunk
    (one atomic instruction of phase 2)."""
    prow = np.asarray(L.prow, dtype=np.int64)
    return np.array([np.bincount(prow[k:min(k + 32, b)] % 32, minlength=32).max()
                     for a, b in np.asarray(L.chunks) for k in range(a, b, 32)])


def test_bank_order_interleaves_the_rows_of_a_chunk_by_bank():
    rng = np.random.default_rng(11)
    m, n = 40000, 8192                                 # about 500 rows of 4096 per chunk
    pat = np.unique(rng.integers(0, m * n, 40000))
    pat = np.union1d(pat, 7 * n + np.arange(3000))     # a long row: runs across groups
    rows, cols = pat // n, pat % n
    A = CSR.from_coo(rows, cols, rng.random(rows.size), (m, n))
    kw = dict(panel_cols=1024, panel_rows=4096, unit_entries=4096)
    by_row = LightPanels.from_csr(A, bank_order=False, **kw)
    by_bank = LightPanels.from_csr(A, bank_order=True, **kw)
    for L in (by_row, by_bank):
        L.check_invariants()
    r0, c0, v0 = by_row.to_coo()
    r1, c1, v1 = by_bank.to_coo()
    o0, o1 = np.lexsort((c0, r0)), np.lexsort((c1, r1))
    assert np.array_equal(r0[o0], r1[o1]) and np.array_equal(c0[o0], c1[o1])
    np.testing.assert_array_equal(v0[o0], v1[o1])
    assert by_bank.chunks.shape == by_row.chunks.shape
    x = rng.random(n)
    np.testing.assert_allclose(fold_like_the_kernels(by_bank, x)[0], A.to_scipy() @ x,
                               rtol=1e-12)
    # a chunk's first rows (row panel 1: no long row), one per bank, in bank order
    a, b = by_bank.chunks[int(by_bank.cptr[1])]
    first = np.asarray(by_bank.prow[a:a + 32], dtype=np.int64) % 32
    assert np.all(np.diff(first[:16]) > 0)
    rows_load, bank_load = _bank_loads(by_row).mean(), _bank_loads(by_bank).mean()
    assert rows_load > 2.5 and bank_load < 0.6 * rows_load


def test_runs_of_a_long_row():
    """One row of 300 entries in one panel: a run per group it touches (3 groups of 128)."""
    A = CSR.from_coo(np.zeros(300, np.int64), np.arange(300), np.ones(300), (1, 300))
    L = LightPanels.from_csr(A, panel_cols=512, panel_rows=4, group=GROUP)
    assert L.npart == 3 and L.gbase.tolist() == [0, 1, 2]
    assert L.chunks.tolist() == [[0, 3]] and L.units.tolist() == [[0, 0, 300]]
    assert int(np.count_nonzero(L.ent & HEAD)) == 1


def test_heavy_light_keeps_panels_of_its_light_entries():
    rng = np.random.default_rng(3)
    pat = rng.random((50, 60)) < 0.2
    pat[:8, :32] = True                       # a heavy corner
    rows, cols = np.nonzero(pat)
    A = CSR.from_coo(rows, cols, rng.random(rows.size), (50, 60))
    kw = dict(tile_rows=8, tile_cols=32, heavy_threshold=100, block_threads=32)
    H = GPUHeavyLight.from_csr(A, **kw, light_cols=16, light_rows=8)
    H.check_invariants()
    assert H.nunits > 0 and H.light_panels.nnz == H.light.nnz > 0
    assert "light in 16-column panels" in H.describe()
    assert H.nbytes > GPUHeavyLight.from_csr(A, **kw, light="csr").nbytes
    assert GPUHeavyLight.from_csr(A, **kw, light="csr").light_panels is None
    assert (H.to_device("cpu").to_csr().to_scipy() != A.to_scipy()).nnz == 0


@pytest.mark.parametrize("iso", [False, True])
def test_heavy_light_without_reachable_heavy_tiles_shares_the_csr(iso):
    """When no tile can reach the threshold (the default with light panels, or one above
    the tile size or the entry count), the light part is the CSR itself: no copy, no
    relabelling, no heavy unit; the panels are those of the CSR."""
    rng = np.random.default_rng(5)
    pat = rng.random((70, 90)) < 0.15
    pat[:8, :32] = True
    rows, cols = np.nonzero(pat)
    A = CSR.from_coo(rows, cols, None if iso else rng.random(rows.size), (70, 90))
    kw = dict(tile_rows=8, tile_cols=32, light_cols=16, light_rows=8)
    for thr in (None, 8 * 32 + 1, A.nnz + 1):
        H = GPUHeavyLight.from_csr(A, heavy_threshold=thr, **kw)
        H.check_invariants()
        assert H.light is A and H.nunits == 0 and H.n_heavy == 0 and H.col_perm is None
        assert H.reorder is None and (H.hval is None) == iso
        assert H.light_shared and H.nbytes < A.nbytes + H.light_panels.nbytes
        L = LightPanels.from_csr(A, panel_cols=16, panel_rows=8)
        assert np.array_equal(H.light_panels.ent, L.ent)
        assert (H.to_csr().to_scipy() != A.to_scipy()).nnz == 0
    # a reachable threshold tiles as before: the corner's 256 entries make a heavy tile
    H = GPUHeavyLight.from_csr(A, heavy_threshold=8 * 32, reorder=None, **kw)
    H.check_invariants()
    assert H.nunits > 0 and H.light is not A and H.light.nnz == A.nnz - 256
    assert not H.light_shared and H.nbytes > H.light.nbytes + H.light_panels.nbytes


@pytest.mark.parametrize("bad", [dict(panel_cols=0), dict(panel_cols=HEAD + 1),
                                 dict(panel_rows=0), dict(panel_rows=65537),
                                 dict(unit_entries=0), dict(group=64)])
def test_parameter_errors(bad):
    with pytest.raises(ValueError, match="light panels: .* must be"):
        LightPanels.from_csr(CSR.empty((2, 2), np.float64, "cpu"), **bad)
    assert panel_params(5, 6, 1) == (5, 6, GROUP)


def _hub_graph(m: int = 6000, n: int = 2048, seed: int = 5) -> CSR:
    """Every row's entries on a few hub columns spread over the column range, and one more
    at random: relabelling by in-degree gathers the hubs into one panel."""
    rng = np.random.default_rng(seed)
    hubs = rng.choice(n, 24, replace=False)
    rows = np.repeat(np.arange(m), 7)
    cols = np.concatenate([rng.choice(hubs, 6, replace=False).tolist()
                           + [int(rng.integers(n))] for _ in range(m)])
    key = np.unique(rows * n + cols)
    return CSR.from_coo(key // n, key % n, rng.random(key.size) + 0.5, (m, n))


def test_relabelling_by_in_degree_within_spans_cuts_the_partials():
    A = _hub_graph()
    kw = dict(panel_cols=64, panel_rows=128, unit_entries=256, chunk_partials=16)
    plain = LightPanels.from_csr(A, relabel=False, **kw)
    auto = LightPanels.from_csr(A, **kw)              # pays here: decided by cost
    spans = LightPanels.from_csr(A, relabel=True, relabel_span=1000, **kw)
    x = np.random.default_rng(1).random(A.shape[1])
    S = A.to_scipy()
    for L in (plain, auto, spans):
        L.check_invariants()
        y, pres = fold_like_the_kernels(L, x)
        np.testing.assert_allclose(y, S @ x, rtol=1e-12)
        r, c, _ = L.to_coo()
        o = np.lexsort((c, r))
        assert np.array_equal(c[o], A.indices)       # original column ids
    assert plain.col_order is None and plain.relabel_span == 0
    # spans are whole panels: the default (2^19) covers all columns here, 1000 -> 1024
    assert auto.relabel_span == 1 << 19 and spans.relabel_span == 1024
    order = np.asarray(auto.col_order)
    assert order.dtype == np.int32 and auto.stats()["light_relabel_span"] == 1 << 19
    # the hubs sit at the head of the column range: most rows need 2 partials, not 7
    assert auto.npart < 0.5 * plain.npart and spans.npart < 0.5 * plain.npart
    arrays = (auto.ent, auto.val, auto.units, auto.gbase, auto.prow, auto.cptr, auto.chunks,
              auto.row_hit, order)
    assert auto.nbytes == sum(a.nbytes for a in arrays)
    # chunks cut at 16 partials: several warps share a big (panel, row panel) pair
    ch = np.asarray(auto.chunks)
    assert (ch[:, 1] - ch[:, 0]).max() == 16


def test_relabelling_is_skipped_where_it_does_not_pay():
    # a band: the columns of a row are already in one or two panels
    m = 3000
    rows = np.repeat(np.arange(m), 3)
    cols = (rows + np.tile([0, 1, 2], m)) % m
    A = CSR.from_coo(rows, cols, None, (m, m), iso_value=1.0)
    L = LightPanels.from_csr(A, panel_cols=64)
    assert L.col_order is None and L.relabel_span == 0
    L.check_invariants()
    forced = LightPanels.from_csr(A, panel_cols=64, relabel=True)
    forced.check_invariants()
    assert forced.col_order is not None


def test_relabelled_layout_leaves_out_the_columns_without_entries():
    # every third column empty, a few hubs: the new ids cover only the columns hit, the
    # spans one after another, so the per-call gather and the panels shrink with them
    rng = np.random.default_rng(5)
    m, n = 500, 3000
    hit = np.flatnonzero(np.arange(n) % 3 != 0)
    cols = np.concatenate([hit, rng.choice(hit, 4000), np.repeat(hit[[10, 900, 1999]], m)])
    rows = np.concatenate([rng.integers(0, m, hit.size + 4000), np.tile(np.arange(m), 3)])
    key = np.unique(rows * n + cols)
    A = CSR.from_coo(key // n, key % n, rng.random(key.size) + 0.5, (m, n))
    kw = dict(panel_cols=64, panel_rows=128, relabel=True, relabel_span=1024)
    L = LightPanels.from_csr(A, **kw)
    L.check_invariants()
    full = np.asarray(L.col_order)
    order = full[full >= 0]
    used = np.flatnonzero(np.bincount(A.indices, minlength=n))
    assert np.array_equal(np.sort(order), used) and full.size < n
    assert np.all(np.diff(order // 1024) >= 0)               # span after span
    # each span starts a panel: 682, 683 and 635 columns with entries, 11, 11, 10 panels
    assert full.size == (11 + 11 + 10) * 64 and np.all(full[[0, 704, 1408]] // 1024 == [0, 1, 2])
    assert int(np.asarray(L.units)[:, 0].max()) < full.size // 64
    x = rng.random(n)
    y, _ = fold_like_the_kernels(L, x)
    np.testing.assert_allclose(y, A.to_scipy() @ x, rtol=1e-12)
    from gblas.formats.light_panels import relabelled_pairs_estimate
    assert relabelled_pairs_estimate(A, 64, span=1024)[1] == full.size


@pytest.mark.parametrize("dtype,cols,wide", [(np.bool_, 3000, True), (np.float64, 3000, True),
                                             (np.int64, 3000, True), (np.float32, 3000, False),
                                             (np.float64, 2000, False)])
def test_default_panel_width_follows_x(monkeypatch, dtype, cols, wide):
    """On the GPU a layout whose products read float64-sized ``x`` of more than twice the
    L2 takes the narrow panels; a 4-byte ``x``, a smaller one, or the CPU the default."""
    from types import SimpleNamespace

    from gblas import hardware
    from gblas.formats import light_panels as lpf

    monkeypatch.setattr(hardware, "gpu_l2_bytes", lambda: 10_000)  # 1,250 float64 values
    fake = SimpleNamespace(shape=(5, cols), dtype=np.dtype(dtype), device="gpu")
    want = lpf.WIDE_X_PANEL_COLS if wide else lpf.DEFAULT_PANEL_COLS
    assert lpf.default_panel_cols(fake) == want
    assert lpf.default_panel_cols(SimpleNamespace(shape=(5, cols), dtype=np.dtype(dtype),
                                                  device="cpu")) == lpf.DEFAULT_PANEL_COLS
