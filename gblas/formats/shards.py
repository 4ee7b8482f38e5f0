"""Replicated shards (Garaph): destination shards with replication factors, and
edge-balanced CPU partitions with replicated boundary rows.

Garaph (Ma et al., "Garaph: efficient GPU-accelerated graph processing on a single
machine with balanced replication", sections 3 and 4) splits the destinations into
**shards** and, on the GPU, gives every destination of shard ``S_i`` ``R_i`` replicas of
its accumulator to spread atomic conflicts, with ``R_i`` the power of two nearest the
shard's mean degree, at most 32 (equation 2: ``R_i = 2^min(ceil(log2(|E_i|/|V_i|) - 0.5),
5)``).  On the CPU it splits the **edges** into equal parts, one per thread; a vertex cut
at a part boundary is replicated (its partial goes to a replica slot) and the replicas
are aggregated afterwards by one thread, so that no atomics are needed and the threads
stay balanced whatever the degree skew (a hub row is shared by several threads).

This format keeps the CSR's arrays as they are (shared, not copied) and adds:

``shard_ptr``
    Row boundaries of the shards (``shard_rows`` destinations each).
``replication``
    ``R_i`` of every shard (uint8), recorded for GPU kernels.
``part_edges``, ``part_rows``
    The CPU partition: part p covers entries ``[part_edges[p], part_edges[p+1])`` and
    owns the rows whose first entry position is in that range (``[part_rows[p],
    part_rows[p+1])``); the row cut at its start (if any) is a replica.

``nbytes`` counts the bytes the format adds (the CSR arrays are shared).

Examples
--------
>>> import numpy as np
>>> from gblas.formats import CSR
>>> A = CSR.from_coo(np.array([0, 0, 0, 0, 1]), np.array([0, 1, 2, 3, 0]), None, (2, 4),
...                  iso_value=True)
>>> S = Shards.from_csr(A, threads=2, shard_rows=1)
>>> S.part_edges.tolist(), S.part_rows.tolist(), S.replication.tolist()
([0, 2, 5], [0, 1, 2], [4, 1])
>>> S.check_invariants()
>>> S.to_csr().indices.tolist()
[0, 1, 2, 3, 0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._device import to_device
from .base import FormatBase, register_format
from .common import machine
from .csr import CSR

__all__ = ["MAX_REPLICATION", "Shards", "replication_factors"]

#: Garaph: conflicts between the threads of a warp vanish at 32 replicas.
MAX_REPLICATION = 32


def replication_factors(shard_ptr: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Garaph's ``R_i``: the power of two nearest each shard's mean degree, in [1, 32].

    Parameters
    ----------
    shard_ptr : ndarray of int
        Row boundaries of the shards.
    indptr : ndarray of int
        CSR row pointers.

    Returns
    -------
    ndarray of uint8

    Examples
    --------
    >>> replication_factors(np.array([0, 2, 4, 5]), np.array([0, 3, 9, 10, 10, 200]))
    array([ 4,  1, 32], dtype=uint8)
    """
    shard_ptr = np.asarray(shard_ptr, dtype=np.int64)
    ends = np.asarray(indptr, dtype=np.int64)[shard_ptr]
    edges = np.diff(ends).astype(np.float64)
    rows = np.diff(shard_ptr).astype(np.float64)
    mean = np.divide(edges, rows, out=np.zeros_like(edges), where=rows > 0)
    with np.errstate(divide="ignore"):
        e = np.ceil(np.log2(np.where(mean > 0, mean, 1.0)) - 0.5)
    e = np.clip(e, 0, np.log2(MAX_REPLICATION))
    return (2 ** e).astype(np.uint8)


@register_format
@dataclass(eq=False)
class Shards(FormatBase):
    """Garaph's replicated shards over a CSR (see the module documentation).

    Parameters of :meth:`from_csr`
    ------------------------------
    threads : int, optional
        CPU parts (default: the machine's threads).
    shard_rows : int, optional
        Destinations per shard (default: as many 4-byte accumulators as fill the L1d,
        12K for 48 KB: Garaph's shard fits a GPU block's 48 KB of shared memory).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
    >>> Shards.from_csr(A, threads=1).nshards
    1
    """

    name: ClassVar[str] = "shards"
    pull_rank: ClassVar[int | None] = 1
    build_overhead_s: ClassVar[float] = 1e-5

    @classmethod
    def pull_estimate(cls, ctx):
        """Garaph: the CSR kernel's work in edge-balanced parts (no slow row block)."""
        from .costing import NS, NS_ROW, Estimate

        m = ctx.csr.shape[0]
        P = ctx.threads
        t = (ctx.entries * ctx.ns_edge_csr + m * NS_ROW) * NS / P
        t = t * (1.0 + (P - 1) / max(m, 1)) + ctx.call_seconds
        nbytes = ctx.stream + ctx.x_data + int(ctx.miss * ctx.entries * ctx.hw.line)
        return Estimate(cls.name, t, ctx.build_seconds(0.0, cls.build_overhead_s),
                        int(nbytes), f"{P} edge-balanced parts")

    shape: tuple[int, int]
    indptr: Any
    indices: Any
    values: Any
    dtype: np.dtype
    iso_value: Any
    shard_rows: int
    shard_ptr: Any
    replication: Any
    part_edges: Any
    part_rows: Any
    device: str = "cpu"

    @classmethod
    def from_csr(cls, csr: CSR, *, threads: int | None = None,
                 shard_rows: int | None = None) -> Shards:
        """Build from a CSR (its arrays are shared, not copied)."""
        hw = machine()
        P = max(1, int(threads) if threads is not None else hw.threads)
        V = int(shard_rows) if shard_rows is not None else max(1, hw.l1d // 4)
        if V < 1:
            raise ValueError(f"shard_rows must be >= 1, got {shard_rows!r}")
        c = csr.to_device("cpu") if csr.device != "cpu" else csr
        m = c.shape[0]
        nnz = c.nnz
        shard_ptr = np.minimum(np.arange(0, m + V, V, dtype=np.int64), m) if m else \
            np.zeros(1, np.int64)
        if shard_ptr.size > 1 and shard_ptr[-1] == shard_ptr[-2]:
            shard_ptr = shard_ptr[:-1]
        part_edges = (np.arange(P + 1, dtype=np.int64) * nnz) // P
        starts = np.asarray(c.indptr[:m], dtype=np.int64)
        part_rows = np.searchsorted(starts, part_edges, side="left").astype(np.int64)
        part_rows[0], part_rows[-1] = 0, m
        return cls(csr.shape, csr.indptr, csr.indices, csr.values, csr.dtype, csr.iso_value, V,
                   to_device(shard_ptr, csr.device),
                   to_device(replication_factors(shard_ptr, c.indptr), csr.device),
                   to_device(part_edges, csr.device), to_device(part_rows, csr.device),
                   csr.device)

    # -------------------------------------------------------------------- properties
    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    @property
    def nshards(self) -> int:
        return int(self.shard_ptr.shape[0]) - 1

    @property
    def nparts(self) -> int:
        return int(self.part_edges.shape[0]) - 1

    @property
    def is_iso(self) -> bool:
        return self.values is None

    @property
    def nbytes(self) -> int:
        """Bytes the format adds to its CSR (whose arrays it shares)."""
        return int(sum(a.nbytes for a in (self.shard_ptr, self.replication, self.part_edges,
                                          self.part_rows)))

    def cut_rows(self) -> int:
        """Rows replicated at part boundaries (at most ``nparts - 1``).

        Examples
        --------
        >>> import numpy as np
        >>> from gblas.formats import CSR
        >>> A = CSR.from_coo(np.zeros(4, int), np.arange(4), None, (1, 4), iso_value=True)
        >>> Shards.from_csr(A, threads=3).cut_rows()
        2
        """
        pe = np.asarray(to_device(self.part_edges, "cpu"))
        pr = np.asarray(to_device(self.part_rows, "cpu"))
        ip = np.asarray(to_device(self.indptr, "cpu"))
        cut = 0
        for p in range(1, self.nparts):
            r = int(pr[p])
            cut += bool(r > 0 and int(ip[r]) > int(pe[p]) > int(ip[r - 1]))
        return cut

    def describe(self) -> str:
        """A short description for plans and benchmark tables.

        Examples
        --------
        >>> import numpy as np
        >>> from gblas.formats import CSR
        >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
        >>> Shards.from_csr(A, threads=2, shard_rows=1).describe()
        '2 shards of 1 rows (R 1..1), 2 edge-balanced parts, 0 rows replicated'
        """
        rep = np.asarray(to_device(self.replication, "cpu"))
        rr = f"R {int(rep.min())}..{int(rep.max())}" if rep.size else "R -"
        return (f"{self.nshards} shards of {self.shard_rows:,} rows ({rr}), {self.nparts} "
                f"edge-balanced parts, {self.cut_rows()} rows replicated")

    # ------------------------------------------------------------------- conversions
    def to_csr(self) -> CSR:
        """The CSR it was built from (the same arrays)."""
        return CSR(self.shape, self.indptr, self.indices, self.values, self.dtype,
                   self.iso_value, self.device)

    def to_device(self, device: str) -> Shards:
        if device == self.device:
            return self
        mv = lambda a: to_device(a, device)  # noqa: E731
        return Shards(self.shape, mv(self.indptr), mv(self.indices), mv(self.values),
                      self.dtype, self.iso_value, self.shard_rows, mv(self.shard_ptr),
                      mv(self.replication), mv(self.part_edges), mv(self.part_rows), device)

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        self.to_csr().check_invariants()
        c = self.to_device("cpu")
        m = self.shape[0]
        sp_ = np.asarray(c.shard_ptr)
        assert sp_[0] == 0 and sp_[-1] == m and np.all(np.diff(sp_) > 0)
        assert np.all(np.diff(sp_) <= self.shard_rows)
        rep = np.asarray(c.replication)
        assert rep.shape == (self.nshards,)
        assert np.all((rep >= 1) & (rep <= MAX_REPLICATION) & ((rep & (rep - 1)) == 0))
        assert np.array_equal(rep, replication_factors(sp_, c.indptr))
        pe, pr = np.asarray(c.part_edges), np.asarray(c.part_rows)
        assert pe[0] == 0 and pe[-1] == self.nnz and np.all(np.diff(pe) >= 0)
        sizes = np.diff(pe)
        assert sizes.size == 0 or sizes.max() - sizes.min() <= 1, "equal parts"
        assert pr[0] == 0 and pr[-1] == m and np.all(np.diff(pr) >= 0)
        starts = np.asarray(c.indptr[:m], dtype=np.int64)
        for p in range(1, self.nparts):
            # part p owns the rows whose first entry position is >= its first entry
            assert np.all(starts[: pr[p]] < pe[p]) and np.all(starts[pr[p]:] >= pe[p])
