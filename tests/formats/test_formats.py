"""The cache-aware CPU formats, their orderings, the hardware facts and the planner rules.

* every format: exact ``from_csr`` / ``to_csr`` round trip (hypothesis, every dtype, iso
  and pattern matrices, random sizes and orderings), ``check_invariants``, ``nbytes``,
  ``to_device``; edge cases: empty rows and columns, one huge hub (row and column), 1x1,
  0xn and nx0 shapes, int64 index arrays (products included);
* orderings (frequency-based clustering, degree sort) and their relabelling;
* structure: segments and merge slices, heavy/light classification, Garaph's replication
  factors and replicated boundary rows;
* the planner: CSR when the vertex data fits the cache, a cache-aware format when it does
  not or when the row split is unbalanced, built only once it pays, the reason in the
  Plan, pins; ``gblas info`` shows the caches and the thresholds.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas import hardware
from gblas.backends import reference as ref
from gblas.backends.registry import VecData, get_kernel
from gblas.formats import FORMATS, reorder
from gblas.formats.csr import CSR
from gblas.formats.heavy_light import HeavyLight, default_tile_sizes
from gblas.formats.segmented import SegmentedCSR, default_segment_size
from gblas.formats.shards import Shards, replication_factors
from gblas.planner import cost
from gblas.semirings import semiring as resolve_semiring
from gblas.testing import assert_equal, to_reference
from gblas.testing import strategies as gst

FORMATS_CPU = ["segmented", "heavy_light", "shards"]
BUILD = {"segmented": SegmentedCSR, "heavy_light": HeavyLight, "shards": Shards}
SMALL = {"segmented": {"segment_size": 2, "block_size": 2, "reorder": None},
         "heavy_light": {"tile_rows": 2, "tile_cols": 2, "heavy_threshold": 2,
                         "reorder": None},
         "shards": {"threads": 3, "shard_rows": 2}}


def _same_csr(a: CSR, b: CSR) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.indptr.dtype == b.indptr.dtype and a.indices.dtype == b.indices.dtype
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    assert (a.values is None) == (b.values is None)
    if a.values is None:
        assert a.iso_value == b.iso_value
    else:
        assert np.array_equal(a.values, b.values, equal_nan=a.dtype.kind == "f")


def _product_check(F, csr, fmt):
    """F's pull kernel equals the CSR kernel (plus_times, dense x)."""
    s = resolve_semiring("plus_times")
    types = s.types(np.dtype("float64"), np.dtype("float64"))
    x = VecData(csr.shape[1], None, np.arange(csr.shape[1], dtype=np.float64) % 7 - 3, None)
    A = csr.astype(np.float64)
    F64 = BUILD[fmt].from_csr(A, **SMALL[fmt])
    want = get_kernel("mxv", "csr", "cpu", "pull")(A, x, None, s, types)
    got = get_kernel("mxv", fmt, "cpu", "pull")(F64, x, None, s, types)
    assert np.array_equal(got.present, want.present)
    assert np.array_equal(got.values[got.present], want.values[want.present])


# ---------------------------------------------------------------------- round trips


@pytest.mark.parametrize("fmt", FORMATS_CPU)
@given(data=st.data())
def test_round_trip(fmt, data):
    A = data.draw(gst.matrices(None, None, max_dim=10, iso=None), label="A")
    csr = A.csr()
    if fmt == "segmented":
        params = {"segment_size": data.draw(st.integers(1, 6)),
                  "block_size": data.draw(st.integers(1, 6)),
                  "reorder": data.draw(st.sampled_from([None, "frequency", "degree", "auto"])),
                  "threads": data.draw(st.integers(1, 4))}
    elif fmt == "heavy_light":
        params = {"tile_rows": data.draw(st.integers(1, 5)),
                  "tile_cols": data.draw(st.integers(1, 5)),
                  "heavy_threshold": data.draw(st.integers(1, 8)),
                  "reorder": data.draw(st.sampled_from([None, "frequency", "degree"])),
                  "threads": data.draw(st.integers(1, 4))}
    else:
        params = {"threads": data.draw(st.integers(1, 6)),
                  "shard_rows": data.draw(st.integers(1, 6))}
    F = BUILD[fmt].from_csr(csr, **params)
    assert F.name == fmt and F.shape == csr.shape and F.device == "cpu"
    F.check_invariants()
    _same_csr(F.to_csr(), csr)
    assert F.nbytes >= 0 and F.to_device("cpu") is F


@pytest.mark.parametrize("fmt", FORMATS_CPU)
def test_registered_and_default_sizes(fmt):
    assert fmt in FORMATS and FORMATS[fmt] is BUILD[fmt]
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], [1.0, 2.0, 3.0], shape=(2, 2))
    F = BUILD[fmt].from_csr(A.csr())  # sizes from the machine
    F.check_invariants()
    _same_csr(F.to_csr(), A.csr())


def _edge_matrices():
    rng = np.random.default_rng(7)
    n = 30
    out = {}
    # empty rows and columns: only even rows, columns < 20
    r = np.repeat(np.arange(0, n, 2), 3)
    c = rng.integers(0, 20, r.size)
    out["empty-rows-cols"] = CSR.from_scipy(sp.csr_array((np.ones(r.size), (r, c)), (n, n)))
    # a single huge hub: row 5 has every column, column 11 every row
    r = np.r_[np.full(n, 5), np.arange(n)]
    c = np.r_[np.arange(n), np.full(n, 11)]
    out["hub"] = CSR.from_scipy(sp.csr_array((np.ones(r.size), (r, c)), (n, n)))
    out["1x1"] = CSR.from_coo(np.array([0]), np.array([0]), np.array([2.5]), (1, 1))
    out["1x1-empty"] = CSR.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), (1, 1))
    out["0xn"] = CSR.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), (0, 5))
    out["nx0"] = CSR.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), (4, 0))
    out["0x0"] = CSR.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0), (0, 0))
    h = out["hub"]
    out["int64-indices"] = CSR(h.shape, h.indptr.astype(np.int64), h.indices.astype(np.int64),
                               h.values.copy(), h.dtype, None, "cpu")
    out["int64-pattern"] = CSR(h.shape, h.indptr.astype(np.int64), h.indices.astype(np.int64),
                               None, np.dtype(bool), np.True_, "cpu")
    return out


EDGE = _edge_matrices()


@pytest.mark.parametrize("fmt", FORMATS_CPU)
@pytest.mark.parametrize("case", sorted(EDGE))
def test_edge_cases(fmt, case):
    csr = EDGE[case]
    for params in (SMALL[fmt], {}):
        F = BUILD[fmt].from_csr(csr, **params)
        F.check_invariants()
        _same_csr(F.to_csr(), csr)
        if fmt != "shards":
            assert F.lptr.dtype.kind == "i" and F.indices.dtype == csr.indices.dtype
    _product_check(F, csr, fmt)


@pytest.mark.parametrize("fmt", FORMATS_CPU)
def test_hub_through_the_api_with_masks(fmt):
    csr = EDGE["hub"]
    A = gb.Matrix.from_scipy(csr.to_scipy())
    x = gb.Vector.from_dense(np.arange(30, dtype=np.float64))
    m = gb.Vector.from_coo([0, 5, 11, 29], [1, 0, 2, 1], 30)
    for mask in (m.S, m.V, ~m.S, ~m.V):
        expected = ref.mxv(to_reference(A), to_reference(x), "min_plus",
                           mask=to_reference(mask))
        with hardware.assume(l1d=16, l2=16, l3=16, line=4, threads=3), gb.config(format=fmt):
            B = A.dup()
            assert_equal(gb.mxv(B, x, "min_plus", mask=mask), expected)


# ------------------------------------------------------------------------ orderings


def test_frequency_clustering_keeps_the_original_order():
    freq = np.array([0, 9, 1, 1, 8, 0, 7, 2])  # mean 3.5: vertices 1, 4, 6 are hot
    perm = reorder.frequency_clustering(freq)
    assert perm.tolist() == [1, 4, 6, 0, 2, 3, 5, 7]
    assert reorder.degree_sort(freq).tolist() == [1, 4, 6, 7, 2, 3, 0, 5]
    inv = reorder.inverse_permutation(perm)
    assert np.array_equal(inv[perm], np.arange(8))
    assert reorder.frequency_clustering(np.zeros(0, int)).size == 0


@given(data=st.data())
def test_relabel_columns_round_trip(data):
    A = data.draw(gst.matrices(None, "float64", max_dim=9), label="A").csr()
    how = data.draw(st.sampled_from(["frequency", "degree"]), label="ordering")
    B, perm = reorder.apply_ordering(A, how)
    # B = A P: column new of B is column perm[new] of A
    assert np.allclose(B.to_scipy().toarray(), A.to_scipy().toarray()[:, perm])
    _same_csr(reorder.restore_columns(B, perm), A)
    B.check_invariants()


def test_clustering_pays_only_for_scattered_skew():
    rng = np.random.default_rng(1)
    freq = np.where(rng.random(50_000) < 0.05, 300, 1)
    assert reorder.clustering_pays(freq, 16 << 10)
    assert not reorder.clustering_pays(freq, 1 << 30)  # fits: nothing to gain
    assert not reorder.clustering_pays(np.sort(freq)[::-1], 16 << 10)  # already clustered
    assert not reorder.clustering_pays(np.ones(50_000, int), 16 << 10)  # no skew


# ------------------------------------------------------------------------ structure


def test_segmented_structure():
    A = gb.io.kronecker(8, 8, seed=3, dtype="float32").csr()
    S = SegmentedCSR.from_csr(A, segment_size=64, block_size=16, reorder=None, threads=2)
    assert S.nsegments == 4 and 1.0 <= S.q <= 4.0
    assert "4 segments of 64 columns" in S.describe()
    lptr = S.lptr.astype(np.int64)
    for s in range(S.nsegments):  # each segment: rows with edges there, ascending
        rows = S.rowmap[S.group_rows[s]:S.group_rows[s + 1]]
        cols = S.indices[lptr[S.group_rows[s]]:lptr[S.group_rows[s + 1]]]
        assert np.all(np.diff(rows) > 0) and np.all(cols // 64 == s)
        want = np.unique(A.row_indices()[A.indices // 64 == s])
        assert np.array_equal(np.sort(rows), want)
    # blockStarts / blockEnds: block b lists one slice per segment touching it
    assert S.block_ptr.size == -(-A.shape[0] // 16) + 1
    F = SegmentedCSR.from_csr(A, segment_size=64, reorder="frequency")
    assert F.reorder == "frequency" and F.q <= S.q + 1e-9  # clustering shrinks q


def test_heavy_light_classification():
    rng = np.random.default_rng(2)
    dense = [(i, j) for i in range(8) for j in range(8)]  # one heavy tile
    sparse = [(int(i), int(j)) for i, j in rng.integers(8, 64, (40, 2))]
    r, c = np.array(dense + sparse).T
    A = gb.Matrix.from_coo(r, c, shape=(64, 64), dup_op="any").csr()
    H = HeavyLight.from_csr(A, tile_rows=8, tile_cols=8, heavy_threshold=20, reorder=None)
    H.check_invariants()
    assert H.tile_nnz[0, 0] == 64 and H.group_heavy[0] and H.group_panel[0] == 0
    assert int(np.count_nonzero(H.group_heavy)) == 1
    assert 0.5 < H.heavy_share < 1.0
    assert default_tile_sizes(hardware.Hardware(48 << 10, 1 << 20, 32 << 20, 64, 2, "x")) \
        == (65536, 131072, 8192)


def test_shards_replication_and_replicas():
    # rows of degree 1, 40 and 3; 4 parts: the hub row is cut by every boundary
    r = np.r_[0, np.full(40, 1), np.full(3, 2)]
    c = np.r_[0, np.arange(40), np.arange(3)]
    A = gb.Matrix.from_coo(r, c, np.ones(r.size), shape=(3, 40)).csr()
    S = Shards.from_csr(A, threads=4, shard_rows=1)
    S.check_invariants()
    assert S.replication.tolist() == [1, 32, 4]  # nearest powers of two of 1, 40, 3
    assert S.cut_rows() == 3 and np.diff(S.part_edges).tolist() == [11, 11, 11, 11]
    assert replication_factors(np.array([0, 1]), np.array([0, 6])).tolist() == [8]
    x = gb.Vector.from_dense(np.arange(40, dtype=np.float64))
    with hardware.assume(threads=4), gb.config(format="shards"):
        B = gb.Matrix._from_csr(A)
        y = gb.mxv(B, x)
    assert y.to_dense().tolist() == [0.0, float(sum(range(40))), 3.0]


def test_shards_share_the_csr_arrays():
    A = EDGE["hub"]
    S = Shards.from_csr(A, threads=2)
    assert S.indices is A.indices and S.nbytes < A.nbytes


# ------------------------------------------------------------------------- hardware


def test_hardware_detect_and_assume():
    hw = hardware.detect()
    assert hw.l3 >= hw.l1d > 0 and hw.line > 0 and hw.threads >= 1
    assert hardware.parse_size("48K") == 48 << 10 and hardware.parse_size("2 MiB") == 2 << 20
    with hardware.assume(l3=1 << 20) as h:
        assert h.l3 == 1 << 20 and hardware.detect().l3 == 1 << 20
        assert default_segment_size(h) == (1 << 20) // 4 // 4
    assert hardware.detect().l3 == hw.l3
    with pytest.raises(ValueError, match="unknown hardware fact"):
        with hardware.assume(l4=1):
            pass
    with pytest.raises(ValueError, match="positive integer"):
        with hardware.assume(l3=0):
            pass


# -------------------------------------------------------------------------- planner


def _graph(scale=11, edge_factor=32):
    return gb.io.kronecker(scale, edge_factor, seed=5, dtype="float32")


def _hub_graph(n=1 << 15):
    """Row 0 holds every column; every other row one entry: a row split is unbalanced."""
    r = np.r_[np.zeros(n, np.int64), np.arange(1, n)]
    c = np.r_[np.arange(n), (np.arange(1, n) * 7) % n]
    return gb.Matrix.from_coo(r, c, 1.0, shape=(n, n), dtype="float32", dup_op="any")


TINY_CACHES = {"l1d": 1 << 10, "l2": 4 << 10, "l3": 8 << 10, "line": 64, "threads": 2}


def test_planner_csr_when_the_vertex_data_fits():
    A = _graph()
    x = gb.Vector.from_dense(np.ones(A.ncols, np.float32))
    p = gb.explain(gb.mxv, A, x)
    assert p.format == "csr" and "fits" in p.reason, p
    assert p.details["vertex_bytes"] < p.details["cache_bytes"]


def test_planner_segments_once_it_pays():
    A = _graph()
    x = gb.Vector.from_dense(np.ones(A.ncols, np.float32))
    with hardware.assume(**TINY_CACHES):
        first = gb.explain(gb.mxv, A, x)
        assert first.format == "csr" and "pays after" in first.reason, first
        assert first.details["preferred"] == "segmented"
        need = int(first.reason.split("pays after ")[1].split()[0])
        again = gb.explain(gb.mxv, A, x)  # kept with the CSR until the build pays
        assert again.details.get("memoized") and again.format == "csr"
        assert A.uses("csr") == 0  # explain counts no use
        y0 = gb.mxv(A, x)
        for _ in range(need):
            y = gb.mxv(A, x)
        p = gb.explain(gb.mxv, A, x)
        assert p.format == "segmented" and "exceeds" in p.reason, p
        y = gb.mxv(A, x)
        assert A.has_format("segmented")
        assert "already built" in gb.explain(gb.mxv, A, x).reason
    assert np.allclose(y.to_dense(), y0.to_dense(), rtol=1e-6)
    with gb.config(format="csr"):
        p = gb.explain(gb.mxv, A, x)
        assert p.format == "csr" and "pinned" in p.reason


def test_planner_respects_the_memory_budget():
    A = _graph()
    x = gb.Vector.from_dense(np.ones(A.ncols, np.float32))
    with hardware.assume(**TINY_CACHES), gb.config(memory_budget=1024):
        for _ in range(3):
            p = gb.explain(gb.mxv, A, x)
            assert p.format == "csr" and "memory budget" in p.reason, p
            gb.mxv(A, x)


def test_stream_buffer_is_reused():
    A = _graph(8, 8)
    x = gb.Vector.from_dense(np.ones(A.ncols, np.float32))
    with hardware.assume(**TINY_CACHES), gb.config(format="heavy_light"):
        y1 = gb.mxv(A, x)
        F = A.get_format("heavy_light")
        buf = F.info["buffers"][np.dtype(np.float32)]
        y2 = gb.mxv(A, x)
        assert F.info["buffers"][np.dtype(np.float32)] is buf
    assert y1.isequal(y2)


def test_planner_balances_skewed_rows():
    """One row holds half the entries: on 8 threads a row-granular split is unbalanced."""
    A = _hub_graph()
    x = gb.Vector.from_dense(np.ones(A.ncols, np.float32))
    assert gb.explain(gb.mxv, A, x).format == "csr"  # 2 threads: the hub is a fair share
    with hardware.assume(threads=8):
        p = gb.explain(gb.mxv, A, x)
        assert p.format == "shards" and p.details["imbalance"] > cost.SKEW_IMBALANCE, p
        assert "shards" in p.reason and "imbalance" in p.reason
        y = gb.mxv(A, x)
        assert A.has_format("shards") and A.get_format("shards").nparts == 8
    with hardware.assume(**{**TINY_CACHES, "threads": 8}):
        p = gb.explain(gb.mxv, A, x)
        assert p.details["preferred"] == "heavy_light", p
    with gb.config(format="csr"):
        assert y.isequal(gb.mxv(A, x))


def test_planner_keeps_push_and_small_calls_on_csr():
    A = _graph()
    f = gb.Vector.from_coo([3], [1.0], size=A.ncols)
    with hardware.assume(**TINY_CACHES):
        p = gb.explain(gb.mxv, A, f, "plus_times")
    assert p.format == "csr"
    # A^T before its CSR exists: CSR (built by the call), other formats weighed later
    x = gb.Vector.from_dense(np.ones(A.nrows, np.float32))
    assert gb.explain(gb.mxv, A.T, x).format == "csr"


def test_cost_model_pieces():
    assert cost.row_imbalance(np.array([0, 5, 10]), 2) == pytest.approx(1.0)
    A = EDGE["hub"]
    assert cost.row_imbalance(A.indptr, 4) > 1.5
    assert 1.0 < cost.expansion_factor(A, 3) <= 3.0


def test_info_shows_caches_and_thresholds(capsys):
    from gblas.cli import main

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "caches (planner)" in out and "planner thresholds" in out
    assert "segment" in out and "L3" in out
