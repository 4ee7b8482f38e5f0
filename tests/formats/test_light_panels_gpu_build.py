"""The light panels' GPU build (:mod:`gblas.formats.light_panels_gpu`) lays out every
matrix exactly as the array-at-a-time build, its definition (itself checked on the host in
``test_light_panels.py``): array for array, dtype for dtype, on random matrices of every
value type, with panels, groups, row panels, relabelling and bank order drawn, and sizes
that take many tiles of the counting sort."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.formats.csr import CSR
from gblas.formats.light_panels import GROUP, GROUP_WIDE, LightPanels, _build, panel_params

pytestmark = pytest.mark.gpu

FIELDS = ("ent", "val", "units", "gbase", "prow", "cptr", "chunks", "row_hit", "col_order")
VALUE_TYPES = (None, np.bool_, np.uint8, np.int16, np.float32, np.int64, np.float64,
               np.complex128)


def both_builds(A: CSR, **params) -> tuple[LightPanels, LightPanels]:
    W, RR, U = panel_params(params.pop("panel_cols"), params.pop("panel_rows"),
                            params.pop("unit_entries"))
    G = params.pop("group")
    U = -(-U // G) * G
    params["span"] = -(-params["span"] // W) * W      # as from_csr rounds it
    kernels = _build(A, W, RR, U, G, kernels=True, **params)
    arrays = _build(A, W, RR, U, G, kernels=False, **params)
    return kernels, arrays


def assert_same(a: LightPanels, b: LightPanels) -> None:
    import cupy as cp

    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.dtype == y.dtype and x.shape == y.shape, name
            assert bool(cp.array_equal(x, y)), name
    for name in ("nnz", "npart", "relabel_span", "panel_cols", "panel_rows", "group",
                 "unit_entries", "chunk_partials", "iso_value", "dtype", "shape"):
        assert getattr(a, name) == getattr(b, name), name


@st.composite
def matrices(draw, big: bool):
    m = draw(st.integers(1, 3000 if big else 60))
    n = draw(st.integers(1, 3000 if big else 60))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    target = draw(st.integers(0, 120_000 if big else 900))
    # a power law on the columns (hubs: one panel takes most entries) or uniform ones
    if draw(st.booleans()):
        w = 1.0 / np.arange(1, n + 1) ** draw(st.floats(0.5, 1.5))
        cols = rng.choice(n, size=target, p=w / w.sum())
    else:
        cols = rng.integers(0, n, size=target)
    rows = rng.integers(0, m, size=target)
    key = np.unique(rows.astype(np.int64) * n + cols)
    rows, cols = key // n, key % n
    vt = draw(st.sampled_from(VALUE_TYPES))
    if vt is None:
        A = CSR.from_coo(rows, cols, None, (m, n), iso_value=1.0)
    else:
        vals = (rng.integers(1, 100, size=rows.size) + (1j if vt is np.complex128 else 0))
        A = CSR.from_coo(rows, cols, vals.astype(vt), (m, n))
    params = dict(panel_cols=draw(st.sampled_from([1, 3, 64, 500, 16384])),
                  panel_rows=draw(st.sampled_from([1, 7, 256, 16384])),
                  unit_entries=draw(st.sampled_from([1, 300, 1 << 18])),
                  bank_order=draw(st.booleans()),
                  relabel=draw(st.sampled_from([None, True, False])),
                  span=draw(st.sampled_from([1, 64, 1 << 19])),
                  chunk_partials=draw(st.sampled_from([1, 5, 512])),
                  group=draw(st.sampled_from([GROUP, GROUP_WIDE])))
    return A.to_device("gpu"), params


@settings(max_examples=60, deadline=None)
@given(matrices(big=False))
def test_small_matrices_lay_out_as_the_definition(case):
    A, params = case
    fast, ref = both_builds(A, **params)
    assert_same(fast, ref)


@settings(max_examples=25, deadline=None)
@given(matrices(big=True))
def test_matrices_of_many_tiles_lay_out_as_the_definition(case):
    A, params = case
    fast, ref = both_builds(A, **params)
    assert_same(fast, ref)
    fast.check_invariants()


def test_too_many_panels_take_the_array_build():
    """More panels than a block's counters hold: the array-at-a-time build runs."""
    n = 70_000
    A = CSR.from_coo(np.arange(n) % 5, np.arange(n), None, (5, n), iso_value=1.0)
    A = A.to_device("gpu")
    fast, ref = both_builds(A, panel_cols=1, panel_rows=None, unit_entries=None,
                            group=GROUP_WIDE, relabel=False, bank_order=True,
                            span=1 << 19, chunk_partials=512)
    assert_same(fast, ref)


@settings(max_examples=15, deadline=None)
@given(matrices(big=True), st.sampled_from([1, 64, 1000]))
def test_the_relabelled_scatter_counts_the_plain_pairs(case, W):
    """The count pass of a relabelled build counts the (row, column panel) pairs of the
    columns' own ids: the relabelling's decision, without a pass of its own."""
    import cupy as cp

    from gblas.backends.gpu import panel_build as pb
    from gblas.formats.light_panels import panel_pairs

    A, _ = case
    if A.nnz == 0:
        return
    n = A.shape[1]
    rank = cp.asarray(np.random.default_rng(1).permutation(n).astype(np.int32))
    sl = pb.scatter(cp.ascontiguousarray(A.indices, dtype=np.int32), A.row_indices(np.int32),
                    None, rank, W, -(-n // W), GROUP_WIDE)
    assert sl.plain_pairs == panel_pairs(A, W)
