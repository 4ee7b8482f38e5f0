"""``gpu_shards``: Garaph's replicated shards for GPU pull SpMV.

The destinations (rows) are cut into *shards* of consecutive rows whose accumulators fit
one thread block's shared memory; a shard's entries are listed by increasing source
column (so that neighbouring threads read neighbouring ``x`` values) with a 16-bit local
destination.  Threads take consecutive entries (perfect balance whatever the degrees) and
accumulate into shared memory with atomics.  To spread the write conflicts of
high-degree destinations, every destination of shard ``i`` has ``R_i`` adjacent replicas
of its accumulator, thread ``t`` writing replica ``t mod R_i``; ``R_i`` is the power of
two closest to the shard's mean degree, at most 32 (Garaph, eq. 2), and the shard holds
``slots / R_i`` rows.

A shard's entries are cut into *work items* of at most ``item_edges`` entries, one thread
block each.  A shard of one item writes ``y`` directly; the items of a larger shard write
partial results that a second kernel folds.

Layout: ``dst`` (uint16 local destination), ``src`` (source column) and ``values`` per
entry, sorted by (shard, source); per shard ``sh_row`` (first row; ``nshards + 1``
entries, the last being ``nrows``), ``sh_rep`` (replicas) and ``sh_item`` (item offsets);
per item ``it_shard``, ``it_lo``, ``it_hi`` (entry range) and ``it_poff`` (offset of its
partial results, -1 when it writes ``y``); ``multi`` lists the shards of several items.
Shard-level arrays are built on the host (there are about ``nrows * R / slots`` shards),
entry-level ones on the CSR's device.

Slower than cuSPARSE and ``gpu_segmented`` on the graphs measured (10 bytes read per
entry, every item clears and folds its slots, ``x`` gathered at random):
``benchmarks/results/history_gpu.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from .._device import to_device, xp_for
from .base import FormatBase, register_format
from .csr import CSR

#: Accumulator slots per shard (replicas included): 8192 x (4-byte value + flag) = 40 KB.
DEFAULT_SLOTS = 8192
#: Most entries per work item (one thread block).
DEFAULT_ITEM_EDGES = 16384
#: Largest replication factor (one replica per lane of a warp).
MAX_REPLICAS = 32


def replication_factor(edges: np.ndarray, rows: np.ndarray, max_rep: int = MAX_REPLICAS
                       ) -> np.ndarray:
    """Garaph's replication factor: the power of two closest (in log scale) to the mean
    degree ``edges / rows``, in ``[1, max_rep]``.

    Examples
    --------
    >>> replication_factor(np.array([0, 10, 50, 3000]), np.array([4, 4, 4, 4])).tolist()
    [1, 2, 16, 32]
    """
    mean = np.asarray(edges, dtype=np.float64) / np.maximum(np.asarray(rows), 1)
    e = np.rint(np.log2(np.maximum(mean, 1.0)))
    return np.minimum(2 ** e.astype(np.int64), int(max_rep)).astype(np.int64)


@register_format
@dataclass(eq=False)
class GPUShards(FormatBase):
    """Replicated shards (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> A = CSR.from_coo(np.array([0, 0, 1, 2, 2]), np.array([2, 0, 1, 0, 2]),
    ...                  np.arange(5.0), (3, 3))
    >>> S = GPUShards.from_csr(A, slots=4, item_edges=2)
    >>> S.sh_row.tolist(), S.sh_rep.tolist(), S.src.tolist()
    ([0, 2, 3], [2, 2], [0, 1, 2, 0, 2])
    >>> bool((S.to_csr().to_scipy() != A.to_scipy()).nnz == 0)
    True
    """

    name: ClassVar[str] = "gpu_shards"
    devices: ClassVar[tuple[str, ...]] = ("gpu",)

    shape: tuple[int, int]
    dst: Any
    src: Any
    values: Any
    sh_row: Any
    sh_rep: Any
    sh_item: Any
    it_shard: Any
    it_lo: Any
    it_hi: Any
    it_poff: Any
    multi: Any
    npart: int
    slots: int
    dtype: np.dtype
    iso_value: Any = None
    device: str = "cpu"

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_csr(cls, csr: CSR, *, slots: int = DEFAULT_SLOTS,
                 item_edges: int = DEFAULT_ITEM_EDGES, max_rep: int = MAX_REPLICAS
                 ) -> GPUShards:
        """Shard ``csr`` (on its own device).

        Parameters
        ----------
        csr : CSR
            The matrix (rows are destinations).
        slots : int
            Accumulator slots per shard, replicas included (at most 65536: local
            destinations are 16-bit).
        item_edges : int
            Most entries per work item.
        max_rep : int
            Largest replication factor (a power of two up to 32; 1 disables replication).

        Returns
        -------
        GPUShards
        """
        slots, item_edges, max_rep = int(slots), int(item_edges), int(max_rep)
        if not 1 <= slots <= 1 << 16:
            raise ValueError(f"gpu_shards: slots must be in [1, 65536], got {slots}")
        if item_edges < 1:
            raise ValueError(f"gpu_shards: item_edges must be >= 1, got {item_edges}")
        if max_rep not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"gpu_shards: max_rep must be a power of two <= 32, got {max_rep}")
        return _build(csr, slots, item_edges, max_rep)

    def to_csr(self) -> CSR:
        """The CSR this format was built from."""
        xp = xp_for(self.device)
        m, n = self.shape
        nnz = self.nnz
        ip = self.entry_ptr()
        first = xp.asarray(np.asarray(to_device(self.sh_row, "cpu"))[:-1])
        pos = xp.arange(nnz, dtype=np.int64)
        shard = xp.searchsorted(xp.asarray(ip), pos, side="right") - 1
        rows = first[shard] + self.dst.astype(np.int64)
        cols = self.src.astype(np.int64)
        order = xp.argsort(rows * max(n, 1) + cols)
        indptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
        if nnz:
            xp.cumsum(xp.bincount(rows, minlength=m), out=indptr[1:])
        values = None if self.values is None else self.values[order]
        return CSR((m, n), indptr, cols[order].astype(dtypes.index_dtype(n)), values,
                   self.dtype, self.iso_value, self.device)

    # -------------------------------------------------------------------- properties
    @property
    def nnz(self) -> int:
        return int(self.src.shape[0])

    @property
    def nshards(self) -> int:
        return int(self.sh_rep.shape[0])

    @property
    def nitems(self) -> int:
        return int(self.it_shard.shape[0])

    def entry_ptr(self) -> np.ndarray:
        """Host int64 ``(nshards + 1,)``: entry offsets of the shards."""
        lo = np.asarray(to_device(self.it_lo, "cpu"))
        it = np.asarray(to_device(self.sh_item, "cpu"))
        out = np.empty(self.nshards + 1, dtype=np.int64)
        out[:-1] = lo[it[:-1]] if self.nitems else 0
        out[-1] = self.nnz
        return out

    @property
    def nbytes(self) -> int:
        arrs = (self.dst, self.src, self.values, self.sh_row, self.sh_rep, self.sh_item,
                self.it_shard, self.it_lo, self.it_hi, self.it_poff, self.multi)
        return int(sum(a.nbytes for a in arrs if a is not None))

    def stats(self) -> dict:
        """Sizes for reports: shards, items, mean replication, bytes per entry."""
        rep = np.asarray(to_device(self.sh_rep, "cpu"))
        rows = np.diff(np.asarray(to_device(self.sh_row, "cpu")))
        return {"nshards": self.nshards, "nitems": self.nitems,
                "multi_item_shards": int(self.multi.shape[0]),
                "mean_rep_per_row": float((rep * rows).sum() / max(rows.sum(), 1)),
                "bytes_per_nnz": self.nbytes / max(self.nnz, 1), "slots": self.slots}

    # ------------------------------------------------------------------- conversions
    def to_device(self, device: str) -> GPUShards:
        if device == self.device:
            return self
        mv = [to_device(a, device) for a in (self.dst, self.src, self.values, self.sh_row,
                                             self.sh_rep, self.sh_item, self.it_shard,
                                             self.it_lo, self.it_hi, self.it_poff,
                                             self.multi)]
        return GPUShards(self.shape, *mv, self.npart, self.slots, self.dtype, self.iso_value,
                         device)

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        m, n = self.shape
        row = np.asarray(to_device(self.sh_row, "cpu"))
        rep = np.asarray(to_device(self.sh_rep, "cpu"))
        item = np.asarray(to_device(self.sh_item, "cpu"))
        its = np.asarray(to_device(self.it_shard, "cpu"))
        lo = np.asarray(to_device(self.it_lo, "cpu"))
        hi = np.asarray(to_device(self.it_hi, "cpu"))
        poff = np.asarray(to_device(self.it_poff, "cpu"))
        assert row[0] == 0 and row[-1] == m and np.all(np.diff(row) > 0 if m else True)
        assert np.all((rep >= 1) & (rep <= MAX_REPLICAS) & ((rep & (rep - 1)) == 0))
        assert np.all(np.diff(row) * rep <= self.slots), "a shard's replicas fit its slots"
        assert item[0] == 0 and item[-1] == its.size and np.all(np.diff(item) >= 1)
        assert np.all(its == np.repeat(np.arange(self.nshards), np.diff(item)))
        assert np.all(hi >= lo) and (its.size == 0 or (lo[0] == 0 and hi[-1] == self.nnz))
        assert np.all(lo[1:] == hi[:-1]), "items tile the entries"
        multi = np.flatnonzero(np.diff(item) > 1)
        assert np.array_equal(np.asarray(to_device(self.multi, "cpu")), multi)
        single = np.diff(item)[its] == 1
        assert np.all(poff[single] == -1) and np.all(poff[~single] >= 0)
        if self.nnz:
            ip = self.entry_ptr()
            dst = np.asarray(to_device(self.dst, "cpu")).astype(np.int64)
            src = np.asarray(to_device(self.src, "cpu")).astype(np.int64)
            shard = np.searchsorted(ip, np.arange(self.nnz), side="right") - 1
            assert np.all(dst < np.diff(row)[shard]), "local destinations in their shard"
            assert src.min() >= 0 and src.max() < n
            key = shard * max(n, 1) + src
            assert np.all(key[1:] >= key[:-1]), "entries sorted by (shard, source)"


def _build(csr: CSR, slots: int, item_edges: int, max_rep: int) -> GPUShards:
    xp = xp_for(csr.device)
    m, n = (int(s) for s in csr.shape)
    ip = np.asarray(to_device(csr.indptr, "cpu"), dtype=np.int64)

    # --- shards: base blocks of `slots` rows, each split into R pieces of slots/R rows
    nb = -(-m // slots) if m else 0
    b_lo = np.arange(nb, dtype=np.int64) * slots
    b_hi = np.minimum(b_lo + slots, m)
    rep_b = replication_factor(ip[b_hi] - ip[b_lo], b_hi - b_lo,
                               min(max_rep, 1 << (slots.bit_length() - 1)))
    step = slots // rep_b
    nsub = -(-(b_hi - b_lo) // step)
    sub_b = np.repeat(np.arange(nb), nsub)
    first_sub = np.concatenate([[0], np.cumsum(nsub)])[:-1]
    k = np.arange(sub_b.size, dtype=np.int64) - first_sub[sub_b]
    sh_row = np.concatenate([b_lo[sub_b] + k * step[sub_b], [m]]).astype(np.int64)
    if m == 0:
        sh_row = np.zeros(1, dtype=np.int64)
    sh_rep = rep_b[sub_b].astype(np.int32)
    ns = sh_rep.size

    # --- work items: at most item_edges entries, at least one item per shard
    e_lo, e_hi = ip[sh_row[:-1]], ip[sh_row[1:]]
    nch = np.maximum(1, -(-(e_hi - e_lo) // item_edges))
    sh_item = np.concatenate([[0], np.cumsum(nch)]).astype(np.int64)
    it_shard = np.repeat(np.arange(ns, dtype=np.int64), nch)
    kk = np.arange(it_shard.size, dtype=np.int64) - sh_item[:-1][it_shard]
    it_lo = e_lo[it_shard] + kk * item_edges
    it_hi = np.minimum(it_lo + item_edges, e_hi[it_shard])
    multi = np.flatnonzero(nch > 1).astype(np.int32)
    is_multi = nch[it_shard] > 1
    rows_of_item = (sh_row[1:] - sh_row[:-1])[it_shard]
    it_poff = np.full(it_shard.size, -1, dtype=np.int64)
    sizes = np.where(is_multi, rows_of_item, 0)
    offs = np.concatenate([[0], np.cumsum(sizes)])
    it_poff[is_multi] = offs[:-1][is_multi]
    npart = int(offs[-1])

    # --- entries: shard of every entry, sorted by (shard, source)
    cols = csr.indices.astype(np.int64)
    rows = csr.row_indices()
    d_row = xp.asarray(sh_row)
    shard = xp.searchsorted(d_row, rows, side="right") - 1
    dst = (rows - d_row[shard]).astype(np.uint16)
    del rows
    order = xp.argsort(shard * max(n, 1) + cols)
    del shard
    dst = dst[order]
    src = cols[order].astype(dtypes.index_dtype(n))
    del cols
    values = None if csr.values is None else csr.values[order]
    del order

    def dev(a: np.ndarray) -> Any:
        return to_device(a, csr.device)

    return GPUShards((m, n), dst, src, values, dev(sh_row), dev(sh_rep), dev(sh_item),
                     dev(it_shard.astype(np.int32)), dev(it_lo), dev(it_hi), dev(it_poff),
                     dev(multi), npart, slots, np.dtype(csr.dtype), csr.iso_value,
                     csr.device)
