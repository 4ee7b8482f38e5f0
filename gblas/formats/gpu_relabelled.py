"""``gpu_relabelled``: a CSR whose columns are renumbered by decreasing in-degree.

A pull SpMV on the GPU spends its time gathering ``x``: each entry reads ``x`` at its
column, and a 32-byte sector comes from the L2 (or memory) for one value.  On a power-law
graph most entries point at a few hub columns; numbered by decreasing in-degree, the hubs'
values share sectors and stay in the L2 together, and the gathers of a row hit lines
that the other rows just read.  The matrix is the same CSR otherwise: the same row
pointers and values (shared with the CSR it was built from), new column ids, and ``x``
gathered into the new order once per call (the columns without entries get no id).

Cagra (section 3, "frequency-based clustering") renumbers vertices by degree for the same
reason on the CPU; the light panels of :mod:`.light_panels` do it within spans.  Here it
is the whole change, so the build is a sort of the columns by degree and a gather of the
entries' ids (no sort of the entries): on an H100 the product at Kronecker 24 (263M
entries, float64 ``plus_times``) took 2.77 ms against 4.24 ms for the CSR, 0.746
against 0.823 ms at 22 and 0.198 against 0.224 ms at 20, plus the gather of ``x``
(``benchmarks/results/relabelled_csr_gpu.md``).  A mesh or a road network, whose
neighbours are numbered close together already, loses that locality: the planner does not
estimate this format where the busiest 1% of the columns hold less than
:data:`MIN_HUB_SHARE` of the entries.

Layout:

* ``inner`` -- a CSR of shape ``(rows, ncols)``: the row pointers and values of the source
  CSR, each entry's column its new id (the rows' ids are no longer sorted within a row;
  a pull does not need them sorted);
* ``col_order`` -- new id -> original column id (int32 where it fits), the columns with
  entries by decreasing in-degree, ties by column id.

Examples
--------
>>> import numpy as np
>>> A = CSR.from_coo(np.array([0, 0, 1, 2]), np.array([1, 3, 3, 3]),
...                  np.array([1.0, 2.0, 3.0, 4.0]), (3, 4))
>>> R = GPURelabelled.from_csr(A)
>>> R.col_order.tolist(), R.inner.indices.tolist()   # column 3 (3 entries) is new id 0
([3, 1], [1, 0, 0, 0])
>>> bool((R.to_csr().to_scipy() != A.to_scipy()).nnz == 0)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from .._device import array_sum, bincount, count_nonzero, extreme, to_device, xp_for
from .base import FormatBase, register_format
from .csr import CSR, known_column_counts

__all__ = ["GPURelabelled", "MIN_HUB_SHARE", "hub_share"]

#: The format is estimated (a pull candidate) where the busiest 1% of the columns hold at
#: least this share of the entries: 50-62% on Kronecker graphs of scales 20-24, about
#: 1-3% on meshes and road networks, whose own numbering keeps neighbours together.
MIN_HUB_SHARE = 0.2
#: Share of the columns counted as hubs by :func:`hub_share`.
HUB_COLUMNS = 0.01


def hub_share(in_degree: Any) -> float:
    """Share of the entries held by the busiest :data:`HUB_COLUMNS` of the columns
    (``in_degree``: entries per column, NumPy or CuPy).

    Examples
    --------
    >>> hub_share(np.array([97, 1, 1, 1] + [0] * 96))   # 1 column of 100 holds 97%
    0.97
    """
    n = int(in_degree.size)
    whole = float(array_sum(in_degree)) if n else 0.0
    if whole == 0:
        return 0.0
    xp = xp_for("gpu" if not isinstance(in_degree, np.ndarray) else "cpu")
    k = max(1, int(math.ceil(n * HUB_COLUMNS)))
    top = xp.sort(in_degree.astype(np.int64))[-k:]
    return array_sum(top) / whole


@register_format
@dataclass(eq=False)
class GPURelabelled(FormatBase):
    """A CSR with its columns renumbered by decreasing in-degree (see the module
    documentation); build it with :meth:`from_csr`."""

    name: ClassVar[str] = "gpu_relabelled"
    devices: ClassVar[tuple[str, ...]] = ("gpu",)
    pull_rank: ClassVar[int | None] = 6
    #: The CSR pull's rates (``CSR.gpu_gbs``, ``CSR.gpu_miss_log``) with the hubs' share
    #: of the gathers served together: the bandwidth grows by ``1 + hub_gain * share``
    #: and only the other gathers slow as the vertex data outgrows the L2 (fitted to an
    #: H100 at Kronecker 20-24: within 10% of the measured products); the per-call
    #: gather of ``x`` runs at ``gather_gbs`` (16.7M float64 columns in 0.40 ms); host
    #: time of a call; the build (a sort of the columns, a gather of the entries' ids).
    hub_gain: ClassVar[float] = 0.25
    gather_gbs: ClassVar[float] = 840.0
    gpu_fixed_s: ClassVar[float] = 7.0e-5
    build_ns_entry: ClassVar[float] = 0.03
    build_overhead_s: ClassVar[float] = 0.001

    @classmethod
    def gpu_pull_estimate(cls, ctx):
        """The CSR pull's model with the hubs' gathers together, plus the gather of
        ``x``; None where the hubs hold too few entries (or their share is unknown)."""
        from .costing import Estimate, index_bytes

        hub = ctx.hub_share
        if hub is None or hub < MIN_HUB_SHARE:
            return None
        m, n = ctx.shape
        e = ctx.entries
        other = m * (4 + ctx.y_bytes) + n * ctx.x_bytes
        nbytes = e * (index_bytes(n) + ctx.a_val) + other
        slower = 1.0 + CSR.gpu_miss_log * (1.0 - hub) * math.log(max(1.0, ctx.vertex / ctx.l2))
        gather = n * (4 + 2 * ctx.x_bytes)
        t = ((e * (index_bytes(n) + ctx.weighted_value) + other) * slower
             / (CSR.gpu_gbs * (1.0 + cls.hub_gain * hub) * 1e9)
             + gather / (cls.gather_gbs * 1e9) + ctx.host(cls))
        build = cls.build_ns_entry * 1e-9 * ctx.nnz + cls.build_overhead_s
        return Estimate(cls.name, t, build, int(nbytes + gather),
                        f"columns by in-degree, the busiest 1% hold {100 * hub:.0f}%")

    shape: tuple[int, int]
    inner: CSR
    col_order: Any
    device: str = "cpu"

    @classmethod
    def from_csr(cls, csr: CSR) -> GPURelabelled:
        """Renumber the columns of ``csr`` (on its own device) by decreasing in-degree.

        Parameters
        ----------
        csr : CSR
            The matrix (NumPy or CuPy arrays).  Its row pointers and values are shared,
            not copied; its in-degrees are those a transpose recorded
            (:func:`~gblas.formats.csr.known_column_counts`), else counted.

        Returns
        -------
        GPURelabelled
            The new column ids of the entries (int32 where the columns fit) and the
            order of the columns with entries, ties by column id.

        Examples
        --------
        >>> A = CSR.from_coo(np.array([0, 1]), np.array([2, 2]), None, (2, 3),
        ...                  iso_value=1.0)
        >>> R = GPURelabelled.from_csr(A)
        >>> R.shape, R.inner.shape, R.col_order.tolist()   # columns 0 and 1 get no id
        ((2, 3), (2, 1), [2])
        """
        from .light_panels import stable_argsort

        xp = xp_for(csr.device)
        m, n = (int(s) for s in csr.shape)
        deg = known_column_counts(csr)
        if deg is None:
            deg = bincount(csr.indices, n)
        deg = deg.astype(np.int64, copy=False)
        top = int(extreme(deg, "max")) if n else 0
        order = stable_argsort(xp, top - deg, top)     # by decreasing degree, stable
        hit = count_nonzero(deg)                        # those with entries come first
        it = np.int32 if n <= np.iinfo(np.int32).max else np.int64
        rank = xp.empty(n, dtype=it)
        rank[order] = xp.arange(n, dtype=it)
        indices = rank[csr.indices] if csr.nnz else xp.zeros(0, dtype=it)
        inner = CSR((m, hit), csr.indptr, indices, csr.values, csr.dtype, csr.iso_value,
                    csr.device)
        return cls((m, n), inner, order[:hit].astype(it), csr.device)

    def to_csr(self) -> CSR:
        """The CSR this format was built from (entries sorted by row, then column)."""
        xp = xp_for(self.device)
        m, n = self.shape
        inner = self.inner
        cols = self.col_order.astype(np.int64)[inner.indices] if inner.nnz else \
            xp.zeros(0, dtype=np.int64)
        rows = inner.row_indices()
        order = xp.argsort(rows * max(n, 1) + cols)
        indices = cols[order].astype(dtypes.index_dtype(n))
        values = None if inner.values is None else inner.values[order]
        return CSR((m, n), inner.indptr.copy(), indices, values, inner.dtype,
                   inner.iso_value, self.device)

    @property
    def nbytes(self) -> int:
        """Bytes of the new column ids and their order (the row pointers and values are
        the source CSR's)."""
        return int(self.inner.indices.nbytes + self.col_order.nbytes)

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        xp = xp_for(self.device)
        m, n = self.shape
        inner = self.inner
        hit = int(self.col_order.size)
        assert inner.shape == (m, hit) and inner.indptr.shape == (m + 1,)
        assert inner.indices.shape == (inner.nnz,)
        if inner.nnz:
            assert int(inner.indices.min()) >= 0 and int(inner.indices.max()) < hit
        deg = xp.bincount(inner.indices, minlength=hit) if inner.nnz else \
            xp.zeros(hit, dtype=np.int64)
        assert bool(xp.all(deg > 0)), "every new id has entries"
        assert bool(xp.all(deg[1:] <= deg[:-1])), "new ids by decreasing in-degree"
        if hit:
            assert int(self.col_order.min()) >= 0 and int(self.col_order.max()) < n
            assert int(xp.unique(self.col_order).size) == hit, "column ids once each"

    def to_device(self, device: str) -> GPURelabelled:
        if device == self.device:
            return self
        i = self.inner
        inner = CSR(i.shape, to_device(i.indptr, device), to_device(i.indices, device),
                    None if i.values is None else to_device(i.values, device), i.dtype,
                    i.iso_value, device)
        return GPURelabelled(self.shape, inner, to_device(self.col_order, device), device)
