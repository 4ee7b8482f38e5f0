"""``gpu_segmented``: GraphCage's throughput-oriented cache blocking (TOCAB) for GPU pull SpMV.

The columns (sources) of ``A`` are cut into *segments* whose slice of ``x`` fits the GPU's
L2 cache.  Every segment is stored as a CSR over only the rows that have entries in it
(*local rows*), with a local→global row map, so that a segment's partial results are
written contiguously (coalesced) by local ID.  A merge then combines the partial results
per range of destination rows, one thread block per range, through shared memory.

One extra segment, the *hot* one, is built first (Cagra's frequency-based clustering, used
here as a TOCAB segment): the ``hot`` columns of highest in-degree, relabelled ``0 ..
hot-1`` by decreasing in-degree.  A pull gathers ``x`` at these columns into a compact
buffer once per call, so that the most used values sit together in a few cache lines
(they stay in L1) and their column indices fit 16 bits.  The remaining (*cold*) columns
keep their ids and are cut into L2-sized segments.

Layout (``L`` local rows in all, hot segment first, then the cold segments in column
order; rows ascending within a segment):

* ``hot_csr`` -- CSR of shape ``(n_hot_rows, hot)``: local rows of the hot segment,
  column = hot rank (uint16 when ``hot <= 65536``);
* ``cold_csr`` -- CSR of shape ``(n_cold_rows, ncols)``: local rows of the cold segments,
  column = original column id;
* ``rowmap`` -- ``(L,)`` global row of every local row;
* ``seg_rows`` -- host int64 ``(nseg + 1,)`` local-row offsets of the segments;
* ``range_ptr`` -- ``(nseg, nranges + 1)`` int64: local rows of segment ``s`` whose global
  row lies in ``[r * range_rows, (r + 1) * range_rows)`` are
  ``range_ptr[s, r] .. range_ptr[s, r + 1]`` (what one merge block reads).

Built with NumPy or CuPy, on the device the CSR is on; the kernels are in
:mod:`gblas.backends.gpu.segmented`.

Timings against cuSPARSE and the CSR pull, and of the variants tried:
``benchmarks/results/history_gpu.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from .._device import array_sum, bincount, count_nonzero, to_device, xp_for
from .base import FormatBase, register_format
from .csr import CSR

#: L2 size assumed when the format is built off the GPU (bytes): an H100's.
DEFAULT_L2_BYTES = 50 << 20
#: Fraction of the L2 a cold segment's slice of ``x`` may take (the rest holds the
#: streamed matrix, partial results and the slices of the neighbouring segment, whose
#: blocks are in flight at the same time).  On an H100, Kronecker scale 24 / 25 ran
#: 2.23 / 4.80 ms with a quarter and 2.40 / 5.10 ms with half of the 50 MB (scale 22,
#: whose x fits, the same either way).
DEFAULT_L2_FRACTION = 0.25
#: Most hot columns (16-bit local column ids up to this).  On an H100 at Kronecker scale
#: 25 the 65,536 busiest columns hold 41% of the entries (49,152: 35%); the pull took
#: 4.79 ms either way, gathering the compact hot buffer through the L1.
DEFAULT_HOT = 1 << 16
#: The hot segment is kept (in automatic mode) only if its columns hold this share of the
#: entries.
HOT_MIN_SHARE = 0.1
#: Columns with fewer entries than this are never hot.
HOT_MIN_DEGREE = 2
#: Destination rows per merge block.
DEFAULT_RANGE_ROWS = 4096


def l2_bytes_of(device: str) -> int:
    """L2 cache size of the current GPU (``DEFAULT_L2_BYTES`` for ``"cpu"`` or when unknown)."""
    if device != "gpu":
        return DEFAULT_L2_BYTES
    try:
        import cupy

        return int(cupy.cuda.Device().attributes["L2CacheSize"])
    except Exception:  # pragma: no cover - no readable attribute
        return DEFAULT_L2_BYTES


def segment_width(l2_bytes: int, value_bytes: int, fraction: float) -> int:
    """Columns per cold segment: the ``x`` slice takes ``fraction`` of the L2.

    Examples
    --------
    >>> segment_width(50 << 20, 4, 0.5)
    6553600
    """
    return max(1, int(l2_bytes * fraction) // max(1, int(value_bytes)))


@register_format
@dataclass(eq=False)
class GPUSegmented(FormatBase):
    """TOCAB segmented CSR with local row ids, a hot segment and merge ranges.

    Build it with :meth:`from_csr`; see the module docstring for the layout.

    Examples
    --------
    >>> import numpy as np
    >>> A = CSR.from_coo(np.array([0, 0, 1, 2]), np.array([0, 3, 3, 1]),
    ...                  np.array([1.0, 2.0, 3.0, 4.0]), (3, 4))
    >>> S = GPUSegmented.from_csr(A, segment_cols=2, hot=1, range_rows=2)
    >>> S.nseg, S.hot_cols.tolist(), S.rowmap.tolist()
    (3, [3], [0, 1, 0, 2])
    >>> bool((S.to_csr().to_scipy() != A.to_scipy()).nnz == 0)
    True
    """

    name: ClassVar[str] = "gpu_segmented"
    devices: ClassVar[tuple[str, ...]] = ("gpu",)
    pull_rank: ClassVar[int | None] = 4
    #: bandwidth (GB/s of weighted bytes) whatever the vertex data (x in L2-sized
    #: segments), host time of a call (its two launches and the merge), local rows per
    #: entry, and the build's ns per entry (on the GPU: between an H200's and an H100's,
    #: ``benchmarks/results/gpu_estimates.md``)
    gpu_gbs: ClassVar[float] = 880.0
    gpu_fixed_s: ClassVar[float] = 1.2e-4
    local_rows_per_entry: ClassVar[float] = 0.1
    build_ns_entry: ClassVar[float] = 0.4
    build_overhead_s: ClassVar[float] = 0.003

    @classmethod
    def gpu_pull_estimate(cls, ctx):
        """GraphCage's segments: hot columns with 16-bit ids, local rows merged after."""
        from .costing import Estimate, index_bytes

        m, n = ctx.shape
        e = ctx.entries
        hot_idx = ctx.hot_share * 2 + (1 - ctx.hot_share) * index_bytes(n)
        local = cls.local_rows_per_entry * (8 + 2 * ctx.y_bytes)
        other = m * ctx.y_bytes + n * ctx.x_bytes
        nbytes = e * (hot_idx + ctx.a_val + local) + other
        t = (e * (hot_idx + ctx.weighted_value + local) + other) / (cls.gpu_gbs * 1e9) \
            + ctx.host(cls)
        build = cls.build_ns_entry * 1e-9 * ctx.nnz + cls.build_overhead_s
        return Estimate(cls.name, t, build, int(nbytes),
                        f"hot segment {100 * ctx.hot_share:.0f}% of entries")

    shape: tuple[int, int]
    hot_cols: Any
    hot_csr: CSR
    cold_csr: CSR
    rowmap: Any
    seg_rows: np.ndarray
    seg_cols: np.ndarray
    range_ptr: Any
    range_rows: int
    dtype: np.dtype
    iso_value: Any = None
    device: str = "cpu"

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_csr(cls, csr: CSR, *, segment_cols: int | None = None, hot: int | None = None,
                 range_rows: int = DEFAULT_RANGE_ROWS, l2_bytes: int | None = None,
                 l2_fraction: float = DEFAULT_L2_FRACTION,
                 value_bytes: int | None = None) -> GPUSegmented:
        """Segment ``csr`` (on its own device).

        Parameters
        ----------
        csr : CSR
            The matrix (rows are destinations).
        segment_cols : int, optional
            Columns per cold segment; default from the L2: ``l2_bytes * l2_fraction /
            value_bytes``.
        hot : int, optional
            Columns in the hot segment; default: up to :data:`DEFAULT_HOT` columns of
            in-degree >= :data:`HOT_MIN_DEGREE`, dropped when they hold less than
            :data:`HOT_MIN_SHARE` of the entries.  0 disables it.
        range_rows : int
            Destination rows per merge block (shared memory holds one value and one flag
            per row).
        l2_bytes : int, optional
            L2 size; default read from the current GPU (``L2CacheSize``).
        l2_fraction : float
            Share of the L2 for a segment's ``x`` slice.
        value_bytes : int, optional
            Bytes per ``x`` value; default ``max(4, csr.dtype.itemsize)``.

        Returns
        -------
        GPUSegmented
        """
        m, n = (int(s) for s in csr.shape)
        if range_rows < 1:
            raise ValueError(f"gpu_segmented: range_rows must be >= 1, got {range_rows}")
        if segment_cols is None:
            vb = value_bytes or max(4, np.dtype(csr.dtype).itemsize)
            segment_cols = segment_width(l2_bytes or l2_bytes_of(csr.device), vb, l2_fraction)
        segment_cols = max(1, int(segment_cols))
        return _build(csr, m, n, segment_cols, hot, int(range_rows))

    def to_csr(self) -> CSR:
        """The CSR this format was built from (entries re-sorted by row, then column)."""
        xp = xp_for(self.device)
        m, n = self.shape
        parts_r, parts_c, parts_v = [], [], []
        nhot = self.n_hot_rows
        for csr, lo, cols_of in ((self.hot_csr, 0, self.hot_cols),
                                 (self.cold_csr, nhot, None)):
            if csr.nnz == 0:
                continue
            local = csr.row_indices()
            parts_r.append(self.rowmap[lo + local].astype(np.int64))
            idx = csr.indices.astype(np.int64)
            parts_c.append(idx if cols_of is None else cols_of[idx].astype(np.int64))
            parts_v.append(csr.dense_values())
        nnz = self.nnz
        if nnz == 0:
            return CSR.empty((m, n), self.dtype, self.device) if self.iso_value is None else \
                CSR((m, n), xp.zeros(m + 1, np.int32), xp.zeros(0, dtypes.index_dtype(n)), None,
                    self.dtype, self.iso_value, self.device)
        rows = xp.concatenate(parts_r)
        cols = xp.concatenate(parts_c)
        order = xp.argsort(rows * max(n, 1) + cols)
        rows, cols = rows[order], cols[order]
        indptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
        xp.cumsum(bincount(rows, m), out=indptr[1:])
        values = None
        if self.iso_value is None:
            values = xp.concatenate(parts_v)[order]
        return CSR((m, n), indptr, cols.astype(dtypes.index_dtype(n)), values, self.dtype,
                   self.iso_value, self.device)

    # -------------------------------------------------------------------- properties
    @property
    def nnz(self) -> int:
        return self.hot_csr.nnz + self.cold_csr.nnz

    @property
    def nseg(self) -> int:
        """Number of segments (the hot one included)."""
        return int(self.seg_rows.size - 1)

    @property
    def n_hot(self) -> int:
        """Columns in the hot segment."""
        return int(self.hot_cols.size)

    @property
    def n_hot_rows(self) -> int:
        return int(self.hot_csr.shape[0])

    @property
    def n_local_rows(self) -> int:
        return int(self.rowmap.size)

    @property
    def nranges(self) -> int:
        return int(self.range_ptr.shape[1] - 1)

    @property
    def nbytes(self) -> int:
        return int(self.hot_csr.nbytes + self.cold_csr.nbytes + self.rowmap.nbytes
                   + self.range_ptr.nbytes + self.hot_cols.nbytes)

    def stats(self) -> dict:
        """Sizes for reports: segments, local rows per entry, hot share, bytes per entry."""
        nnz = max(self.nnz, 1)
        return {"nseg": self.nseg, "hot": self.n_hot, "hot_share": self.hot_csr.nnz / nnz,
                "local_rows": self.n_local_rows, "local_rows_per_nnz": self.n_local_rows / nnz,
                "bytes_per_nnz": self.nbytes / nnz, "range_rows": self.range_rows}

    # ------------------------------------------------------------------- conversions
    def to_device(self, device: str) -> GPUSegmented:
        if device == self.device:
            return self
        return GPUSegmented(self.shape, to_device(self.hot_cols, device),
                            self.hot_csr.to_device(device), self.cold_csr.to_device(device),
                            to_device(self.rowmap, device), self.seg_rows, self.seg_cols,
                            to_device(self.range_ptr, device), self.range_rows, self.dtype,
                            self.iso_value, device)

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        xp = xp_for(self.device)
        m, n = self.shape
        self.hot_csr.check_invariants()
        self.cold_csr.check_invariants()
        nh = self.n_hot_rows
        L = self.n_local_rows
        assert nh + self.cold_csr.shape[0] == L, "local rows = hot rows + cold rows"
        assert self.hot_csr.shape[1] == self.n_hot and self.cold_csr.shape[1] == n
        seg = np.asarray(self.seg_rows)
        assert seg[0] == 0 and seg[-1] == L and np.all(np.diff(seg) >= 0)
        if L:
            rm = self.rowmap.astype(np.int64)
            assert int(rm.min()) >= 0 and int(rm.max()) < m, "rowmap in range"
            for s in range(self.nseg):
                r = rm[seg[s]:seg[s + 1]]
                assert bool(xp.all(r[1:] > r[:-1])), "rows ascending and unique per segment"
            assert bool(xp.all(xp.diff(self.hot_csr.indptr) > 0)), "no empty local rows"
            assert bool(xp.all(xp.diff(self.cold_csr.indptr) > 0)), "no empty local rows"
        if self.cold_csr.nnz:
            # every cold entry lies in its segment's column range and is not hot
            local = self.cold_csr.row_indices() + nh
            sid = xp.asarray(np.searchsorted(seg, np.arange(L + 1), side="right") - 1)[local]
            cols = self.cold_csr.indices.astype(np.int64)
            lo = xp.asarray(self.seg_cols[:-1])[sid]
            hi = xp.asarray(self.seg_cols[1:])[sid]
            assert bool(xp.all((cols >= lo) & (cols < hi))), "cold entries in their segment"
            if self.n_hot:
                is_hot = xp.zeros(n, dtype=bool)
                is_hot[self.hot_cols] = True
                assert not bool(xp.any(is_hot[cols])), "hot columns only in the hot segment"
        rp = np.asarray(to_device(self.range_ptr, "cpu"))
        assert rp.shape == (self.nseg, -(-m // self.range_rows) + 1 if m else 1)
        assert np.all(rp[:, 0] == seg[:-1]) and np.all(rp[:, -1] == seg[1:])
        assert np.all(np.diff(rp, axis=1) >= 0)


def _build(csr: CSR, m: int, n: int, width: int, hot: int | None,
           range_rows: int) -> GPUSegmented:
    xp = xp_for(csr.device)
    nnz = csr.nnz
    iso = csr.values is None
    cols = csr.indices.astype(np.int64)

    # --- the hot segment: columns of highest in-degree, by decreasing in-degree
    k = 0
    hot_cols = xp.zeros(0, dtype=np.int64)
    if nnz and n and (hot is None or hot > 0):
        indeg = bincount(cols, n)
        want = min(DEFAULT_HOT if hot is None else int(hot), n)
        # by decreasing in-degree, ties by column: unique keys, the same order on any
        # device (the rank among distinct degrees, at most ~sqrt(2 nnz), times n fits)
        u = xp.unique(indeg)
        drank = (u.size - 1) - xp.searchsorted(u, indeg)
        order = xp.argsort(drank * n + xp.arange(n, dtype=np.int64))[:want]
        del u, drank
        if hot is None:
            keep = count_nonzero(indeg[order] >= HOT_MIN_DEGREE)
            order = order[:keep]
            share = array_sum(indeg[order]) / nnz if keep else 0.0
            if share < HOT_MIN_SHARE:
                order = order[:0]
        hot_cols = order.astype(np.int64)
        k = int(hot_cols.size)
        del indeg
    hot_cols = hot_cols.astype(dtypes.index_dtype(n))
    off = 1 if k else 0
    ncold = -(-n // width) if n else 0
    nseg = off + ncold
    seg_cols = np.concatenate([[0] if k else [], np.minimum(np.arange(ncold + 1) * width, n)]
                              ).astype(np.int64)

    # --- segment of every entry, then a stable partition by segment
    seg = cols // width + off
    if k:
        rank = xp.full(n, -1, dtype=np.int64)
        rank[hot_cols] = xp.arange(k, dtype=np.int64)
        erank = rank[cols]
        del rank
        seg[erank >= 0] = 0
    key = seg * max(nnz, 1) + xp.arange(nnz, dtype=np.int64)
    del seg
    key = xp.sort(key)
    sseg = key // max(nnz, 1)
    pos = key - sseg * max(nnz, 1)
    del key
    rows = csr.row_indices()
    srow = rows[pos]
    del rows
    lkey = sseg * max(m, 1) + srow
    if nnz:
        brk = xp.empty(nnz, dtype=bool)
        brk[0] = True
        xp.not_equal(lkey[1:], lkey[:-1], out=brk[1:])
        starts = xp.flatnonzero(brk)
        del brk
    else:
        starts = xp.zeros(0, dtype=np.int64)
    L = int(starts.size)
    rowmap = srow[starts].astype(dtypes.index_dtype(max(m - 1, 0)))
    hot_order = None
    if k:
        # hot entries sorted by rank within each row (CSR order of the hot part)
        n_hot_e = count_nonzero(erank >= 0)
        hot_order = xp.argsort(srow[:n_hot_e] * k + erank[pos[:n_hot_e]])
    lseg = sseg[starts]
    llkey = lkey[starts]
    del srow, lkey, sseg
    seg_rows = np.asarray(to_device(xp.searchsorted(lseg, xp.arange(nseg + 1), side="left"),
                                    "cpu"), dtype=np.int64)
    del lseg
    lptr = xp.concatenate([starts, xp.asarray([nnz], dtype=starts.dtype)]).astype(np.int64)
    del starts
    nh = int(seg_rows[1]) if k else 0
    e_hot = int(lptr[nh]) if nh else 0

    vals = None if iso else csr.values
    # hot part
    hp = lptr[:nh + 1]
    hot_idx_dt = np.uint16 if k <= (1 << 16) else np.int32
    hvals = None
    if k:
        hpos = pos[:e_hot][hot_order]
        hidx = erank[hpos].astype(hot_idx_dt)
        hvals = None if iso else vals[hpos]
        del hpos, hot_order
    else:
        hidx = xp.zeros(0, dtype=hot_idx_dt)
        hvals = None if iso else vals[:0]
    hot_csr = CSR((nh, k), hp.astype(dtypes.index_dtype(e_hot)), hidx, hvals, csr.dtype,
                  csr.iso_value, csr.device)
    # cold part
    cp_ = lptr[nh:] - e_hot
    cold_csr = CSR((L - nh, n), cp_.astype(dtypes.index_dtype(nnz - e_hot)),
                   cols[pos[e_hot:]].astype(dtypes.index_dtype(n)),
                   None if iso else vals[pos[e_hot:]], csr.dtype, csr.iso_value, csr.device)
    if k:
        del erank
    del pos, lptr

    # --- merge ranges: one searchsorted over the (segment, row) keys of the local rows
    nranges = -(-m // range_rows) if m else 0
    starts_r = np.minimum(np.arange(nranges + 1, dtype=np.int64) * range_rows, m)
    targets = (np.arange(nseg, dtype=np.int64)[:, None] * max(m, 1) + starts_r[None, :])
    range_ptr = xp.searchsorted(llkey, xp.asarray(targets.ravel()), side="left")
    range_ptr = range_ptr.astype(np.int64).reshape(nseg, nranges + 1)
    return GPUSegmented((m, n), hot_cols, hot_csr, cold_csr, rowmap, seg_rows, seg_cols,
                        range_ptr, range_rows, np.dtype(csr.dtype), csr.iso_value, csr.device)
