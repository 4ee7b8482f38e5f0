"""Segmented CSR: Cagra's CSR segmenting with local-ID maps and a cache-aware merge.

On a graph whose vertex data does not fit the last-level cache, a CSR pull SpMV stalls
on random DRAM reads of ``x``.  CSR segmenting (Zhang et al., "Making caches work for
graph analytics", the Cagra paper, section III) cuts the **columns** (sources) into
segments whose slice of ``x`` fits the LLC; each segment keeps a CSR over only the rows
that have entries in it, with its local-to-global row map (``idxMap``).  An SpMV
processes one segment at a time with all threads (they share the segment's ``x`` slice in
the LLC), writing one partial per local row sequentially, then merges the partials with
a parallel, cache-aware merge over L1-sized blocks of destination rows (``blockStarts`` /
``blockEnds`` per segment).  Every DRAM access becomes sequential; the traffic is
``E + 2qV + V`` values, ``q`` being the expansion factor (local rows per vertex).

Layout (shared with :mod:`.heavy_light` through :class:`GroupedRows`)::

    group_rows[s] .. group_rows[s+1]   local rows of segment s (rows ascending)
    lptr[r] .. lptr[r+1]               entries of local row r (>= 1), columns ascending
    rowmap[r]                          its global row
    indices, values                    regrouped entries (column ids of the whole matrix)
    block_ptr, block_lo, block_hi      for merge block b: slices [lo, hi) of local rows
    phase_bounds[s]                    local rows of segment s split between threads
    col_perm                           frequency clustering of the columns (or None)

Sizes come from the machine (:mod:`gblas.hardware`): a segment's ``x`` slice
takes :data:`SEGMENT_CACHE_FRACTION` of the L3 at :data:`SEGMENT_VALUE_BYTES` per value
(a ``segment_size`` parameter overrides it), and merge blocks hold
``L1d / 16`` rows.  ``reorder="auto"`` applies Cagra's frequency-based clustering
(:mod:`.reorder`) when the hot columns are a scattered minority taking most reads; the
permutation is applied to ``x`` in the kernel and never shows in results.

The Numba build passes live beside the kernels in :mod:`gblas.backends.cpu.segmented`
and are imported on the first build (``import gblas`` does not import Numba).

Examples
--------
>>> import numpy as np
>>> from gblas.formats import CSR
>>> A = CSR.from_coo(np.array([0, 0, 1, 2]), np.array([0, 3, 1, 3]),
...                  np.array([1.0, 2.0, 3.0, 4.0]), (3, 4))
>>> S = SegmentedCSR.from_csr(A, segment_size=2, reorder=None)
>>> S.nsegments, S.rowmap.tolist(), S.indices.tolist()
(2, [0, 1, 0, 2], [0, 1, 3, 3])
>>> S.check_invariants()
>>> B = S.to_csr()
>>> B.indptr.tolist(), B.indices.tolist(), B.values.tolist()
([0, 2, 3, 4], [0, 3, 1, 3], [1.0, 2.0, 3.0, 4.0])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from .._device import to_device
from .base import FormatBase, register_format
from .common import build_kernels, grouped_kernels, machine, on_cpu, pow2_floor
from .costing import NS_EDGE_CACHED, NS_SEG_L2_MISS
from .csr import CSR
from .reorder import choose_ordering, inverse_permutation, relabel_columns, restore_columns

__all__ = ["GroupedRows", "SegmentedCSR", "SEGMENT_CACHE_FRACTION", "SEGMENT_VALUE_BYTES"]

#: Fraction of the L3 that a segment's slice of ``x`` may take (the rest holds the
#: streamed edges, the partials and the other threads' lines).
SEGMENT_CACHE_FRACTION = 0.25
#: Bytes per vertex value assumed when sizing segments (float32 ranks).
SEGMENT_VALUE_BYTES = 4


@dataclass(eq=False)
class GroupedRows(FormatBase):
    """Entries in groups of local rows with a local-to-global row map (see module doc).

    Not a format by itself: :class:`SegmentedCSR` (groups = column segments) and
    :class:`~gblas.formats.heavy_light.HeavyLight` (groups = tiles) derive from it and
    share its conversions, invariants and kernels.
    """

    name: ClassVar[str] = "grouped"

    shape: tuple[int, int]
    dtype: np.dtype
    iso_value: Any
    lptr: Any
    rowmap: Any
    indices: Any
    values: Any
    group_rows: Any
    block_size: int
    block_ptr: Any
    block_lo: Any
    block_hi: Any
    phase_bounds: Any
    merge_bounds: Any
    col_perm: Any = None
    index_dtypes: tuple = (np.dtype(np.int32), np.dtype(np.int32))
    device: str = "cpu"
    #: run-time state: the kernels' partial buffers (allocated on the first product, not
    #: counted in ``nbytes``: ``q * nrows`` values and flags)
    info: dict = field(default_factory=dict, compare=False, repr=False)

    # ---------------------------------------------------------------- building blocks
    @staticmethod
    def _group(csr: CSR, tile_rows: int, tile_cols: int, gtab: np.ndarray, ngroups: int,
               threads: int) -> dict:
        """Regroup ``csr``'s entries (see :func:`gblas.backends.cpu.segmented.build_groups`)."""
        k = grouped_kernels()
        m, _ = csr.shape
        g = k.build_groups(np.asarray(csr.indptr), np.asarray(csr.indices), max(1, tile_rows),
                           max(1, tile_cols), np.ascontiguousarray(gtab, dtype=np.int64),
                           int(ngroups), int(threads), csr.values is not None,
                           dtypes.index_dtype(csr.nnz), dtypes.index_dtype(max(m - 1, 0)))
        g["values"] = None if csr.values is None else csr.values[g.pop("take")]
        g.pop("take", None)
        return g

    @staticmethod
    def _merge_plan(group_rows, rowmap, lptr, nrows: int, block: int, threads: int):
        k = grouped_kernels()
        block_ptr, lo, hi = k.merge_slices(group_rows, rowmap, block, nrows)
        nblocks = block_ptr.size - 1
        seglen = np.zeros(lo.size + 1, dtype=np.int64)
        np.cumsum(hi - lo, out=seglen[1:])
        cost = seglen[block_ptr] + block * np.arange(nblocks + 1, dtype=np.int64)
        return block_ptr, lo, hi, k.split_cost(cost, threads)

    @staticmethod
    def _split_rows(lptr: np.ndarray, lo: int, hi: int, threads: int) -> np.ndarray:
        """Local rows [lo, hi) in ``threads`` ranges of equal cost (entries + rows)."""
        k = grouped_kernels()
        cost = lptr[lo:hi + 1].astype(np.int64) - int(lptr[lo]) + np.arange(hi - lo + 1)
        return lo + k.split_cost(cost, threads)

    # -------------------------------------------------------------------- properties
    @property
    def nlocal(self) -> int:
        """Local rows over all groups."""
        return int(self.rowmap.shape[0])

    @property
    def ngroups(self) -> int:
        return int(self.group_rows.shape[0]) - 1

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    @property
    def q(self) -> float:
        """Expansion factor: local rows per row (how many groups feed a row on average)."""
        return self.nlocal / self.shape[0] if self.shape[0] else 0.0

    @property
    def is_iso(self) -> bool:
        return self.values is None

    @property
    def nbytes(self) -> int:
        arrays = [getattr(self, f.name) for f in dataclasses.fields(self)]
        return int(sum(a.nbytes for a in arrays if hasattr(a, "nbytes") and
                       not isinstance(a, (np.dtype, np.generic))))

    # ------------------------------------------------------------------- conversions
    def to_csr(self) -> CSR:
        """The CSR this was built from (exactly: same arrays, dtypes and iso-ness)."""
        c = self.to_device("cpu")
        m, n = self.shape
        rows = np.repeat(c.rowmap.astype(np.int64), np.diff(c.lptr.astype(np.int64)))
        order = np.argsort(rows, kind="stable")  # groups are in column order
        ip_dt, ix_dt = self.index_dtypes
        indptr = np.zeros(m + 1, dtype=ip_dt)
        if rows.size:
            np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
        indices = c.indices[order].astype(ix_dt, copy=False)
        values = None if c.values is None else c.values[order]
        csr = CSR((m, n), indptr, indices, values, self.dtype, self.iso_value, "cpu")
        csr = restore_columns(csr, c.col_perm)
        return csr.to_device(self.device)

    def to_device(self, device: str):
        """The same structure with every array on ``device``."""
        if device == self.device:
            return self
        moved = {f.name: to_device(getattr(self, f.name), device)
                 for f in dataclasses.fields(self)
                 if isinstance(getattr(self, f.name), np.ndarray) or
                 type(getattr(self, f.name)).__module__.startswith("cupy")}
        return dataclasses.replace(self, device=device, info={}, **moved)

    def values_or_iso(self):
        """``(values, iso)`` as for CSR."""
        if self.values is not None:
            return self.values, False
        return np.full(1, self.iso_value, dtype=self.dtype), True

    # -------------------------------------------------------------------- invariants
    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        c = self.to_device("cpu")
        m, n = self.shape
        nl, nnz = c.nlocal, c.nnz
        lptr = c.lptr.astype(np.int64)
        assert lptr.shape == (nl + 1,) and lptr[0] == 0 and lptr[-1] == nnz
        assert np.all(np.diff(lptr) >= 1), "every local row has an entry"
        gr = np.asarray(c.group_rows, dtype=np.int64)
        assert gr[0] == 0 and gr[-1] == nl and np.all(np.diff(gr) >= 0)
        rm = c.rowmap.astype(np.int64)
        if nl:
            assert rm.min() >= 0 and rm.max() < m, "row map within the rows"
            inc = np.diff(rm) > 0
            cut = gr[1:-1] - 1  # a new group may restart the rows
            inc[cut[(cut >= 0) & (cut < nl - 1)]] = True
            assert np.all(inc), "rows ascending within a group"
        if nnz:
            idx = c.indices.astype(np.int64)
            assert idx.min() >= 0 and idx.max() < n
            step = np.diff(idx) > 0
            step[lptr[1:-1] - 1] = True
            assert np.all(step), "columns ascending within a local row"
        if c.values is not None:
            assert c.values.shape == (nnz,) and c.values.dtype == self.dtype
        else:
            assert self.iso_value is not None
        # the merge slices cover every local row once, inside their block
        bp = np.asarray(c.block_ptr, dtype=np.int64)
        nb = -(-m // self.block_size) if m else 0
        assert bp.shape == (nb + 1,) and bp[0] == 0 and np.all(np.diff(bp) >= 0)
        lo, hi = np.asarray(c.block_lo), np.asarray(c.block_hi)
        assert lo.size == hi.size == bp[-1] and np.all(hi > lo)
        covered = np.zeros(nl, dtype=np.int64)
        for b in range(nb):
            for q in range(bp[b], bp[b + 1]):
                covered[lo[q]:hi[q]] += 1
                rows = rm[lo[q]:hi[q]]
                assert np.all(rows // self.block_size == b), "slice inside its block"
        assert np.all(covered == 1), "every local row merged exactly once"
        for bounds in c.phase_bounds:
            assert np.all(np.diff(np.asarray(bounds)) >= 0)
        mb = np.asarray(c.merge_bounds)
        assert mb[0] == 0 and mb[-1] == nb and np.all(np.diff(mb) >= 0)
        if c.col_perm is not None:
            assert np.array_equal(np.sort(c.col_perm), np.arange(n)), "a permutation"


@register_format
@dataclass(eq=False)
class SegmentedCSR(GroupedRows):
    """Cagra's segmented CSR (see the module documentation).

    Parameters of :meth:`from_csr`
    ------------------------------
    segment_size : int, optional
        Columns per segment (default: from the L3, see :func:`default_segment_size`).
    reorder : {"auto", "frequency", "degree", None}
        Column ordering applied before segmenting ("auto": frequency clustering when
        :func:`~gblas.formats.reorder.clustering_pays` says so for the L2).
    block_size : int, optional
        Rows per merge block (default ``L1d / 16``, a power of two).
    threads : int, optional
        Threads the segments' rows and the merge blocks are split for (default: the
        machine's).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 1, 1]), np.array([2, 0, 2]), None, (2, 3),
    ...                  iso_value=True)
    >>> S = SegmentedCSR.from_csr(A, segment_size=2, reorder=None)
    >>> S.group_rows.tolist(), round(S.q, 2)
    ([0, 1, 3], 1.5)
    """

    name: ClassVar[str] = "segmented"
    pull_rank: ClassVar[int | None] = 2
    #: one count and one fill pass that relabel and group the entries (build.py); per
    #: entry and thread, measured 17-35 ns at Kronecker 20-22 on 2 threads (valued or not)
    build_ns_entry: ClassVar[float] = 30.0
    build_overhead_s: ClassVar[float] = 2e-3

    @classmethod
    def build_params(cls, hw) -> dict:
        return {"segment_size": default_segment_size(hw)}

    @classmethod
    def pull_estimate(cls, ctx):
        """Cagra: random reads confined to a segment's cached slice of x, local rows
        merged after (``E + 2qV + V`` bytes)."""
        n = ctx.csr.shape[1]
        size = ctx.sizes.get("segment_size") or cls.build_params(ctx.hw)["segment_size"]
        k = max(1, -(-n // max(1, size)))
        # the gathers stay in a segment's slice of x (no LLC miss); the L2 misses of a CSR
        # pull cost less within a slice
        ns_edge = NS_EDGE_CACHED + ctx.miss_l2 * NS_SEG_L2_MISS
        return ctx.grouped_estimate(cls.name, k, ns_edge, ctx.build_seconds(
            cls.build_ns_entry, cls.build_overhead_s), "segments", balanced=False)

    segment_size: int = 1
    reorder: str | None = None

    @classmethod
    def from_csr(cls, csr: CSR, *, segment_size: int | None = None, reorder: str | None = "auto",
                 block_size: int | None = None, threads: int | None = None) -> SegmentedCSR:
        """Build from a CSR (on any device; built on the CPU, returned on its device)."""
        device = csr.device
        csr = on_cpu(csr)
        hw = machine()
        m, n = csr.shape
        W = int(segment_size) if segment_size is not None else default_segment_size(hw)
        if W < 1:
            raise ValueError(f"segment_size must be >= 1, got {segment_size!r}")
        src_dtypes = (csr.indptr.dtype, csr.indices.dtype)
        perm, split, reorder = choose_ordering(csr, reorder, hw.l2, SEGMENT_VALUE_BYTES,
                                               hw.line)
        B = int(block_size) if block_size is not None else default_block_size(hw)
        P = int(threads) if threads is not None else hw.threads
        nseg = -(-n // W) if n else 0
        work, inv = csr, None
        if perm is not None and split is None:  # any permutation: relabelled (sorted) first
            work = relabel_columns(csr, perm)
        elif perm is not None:  # two increasing runs: relabelled while grouping
            inv = inverse_permutation(perm)
        # one count and one fill pass over the entries (values moved with them)
        g = build_kernels().segment_groups(
            np.asarray(work.indptr), np.asarray(work.indices), work.values, n, W, inv,
            split or 0, P, dtypes.index_dtype(csr.nnz), dtypes.index_dtype(max(m - 1, 0)))
        gr = g["group_rows"]
        phases = (np.stack([cls._split_rows(g["lptr"], int(gr[s]), int(gr[s + 1]), P)
                            for s in range(nseg)]) if nseg else np.zeros((0, 2), np.int64))
        block_ptr, lo, hi, merge_bounds = cls._merge_plan(gr, g["rowmap"], g["lptr"], m, B, P)
        S = cls(csr.shape, csr.dtype, csr.iso_value, g["lptr"], g["rowmap"], g["indices"],
                g["values"], gr, B, block_ptr, lo, hi, phases, merge_bounds, perm, src_dtypes,
                "cpu", segment_size=W, reorder=reorder)
        return S.to_device(device)

    @property
    def nsegments(self) -> int:
        return self.ngroups

    def describe(self) -> str:
        """A short description for plans and benchmark tables.

        Examples
        --------
        >>> import numpy as np
        >>> from gblas.formats import CSR
        >>> A = CSR.from_coo(np.array([0]), np.array([1]), None, (2, 2), iso_value=True)
        >>> SegmentedCSR.from_csr(A, segment_size=1, reorder=None).describe()
        '2 segments of 1 columns, q=0.5'
        """
        order = f", {self.reorder} ordering" if self.reorder else ""
        return f"{self.nsegments} segments of {self.segment_size:,} columns, q={self.q:.3g}{order}"

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        super().check_invariants()
        c = self.to_device("cpu")
        W = self.segment_size
        n = self.shape[1]
        assert self.nsegments == (-(-n // W) if n else 0)
        lptr = c.lptr.astype(np.int64)
        for s in range(self.nsegments):
            a, b = int(c.group_rows[s]), int(c.group_rows[s + 1])
            cols = c.indices[lptr[a]:lptr[b]].astype(np.int64)
            assert np.all(cols // W == s), "segment holds only its columns"
            pb = np.asarray(c.phase_bounds[s])
            assert pb[0] == a and pb[-1] == b


def default_segment_size(hw) -> int:
    """Columns per segment: :data:`SEGMENT_CACHE_FRACTION` of the L3 at
    :data:`SEGMENT_VALUE_BYTES` per value, a power of two.

    Examples
    --------
    >>> from gblas.hardware import Hardware
    >>> default_segment_size(Hardware(48 << 10, 1 << 20, 32 << 20, 64, 2, "sysfs"))
    2097152
    """
    return pow2_floor(max(1, int(hw.l3 * SEGMENT_CACHE_FRACTION) // SEGMENT_VALUE_BYTES))


def default_block_size(hw) -> int:
    """Destination rows per merge block: their output stays in the L1 (``L1d / 16``).

    Examples
    --------
    >>> from gblas.hardware import Hardware
    >>> default_block_size(Hardware(48 << 10, 1 << 20, 32 << 20, 64, 2, "sysfs"))
    2048
    """
    return pow2_floor(max(1, hw.l1d // 16))
