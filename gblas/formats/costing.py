"""The machinery of the formats' cost models: per-entry costs, cached statistics, the
context of one pull SpMV estimate.

Each format estimates its own pull SpMV (``cls.pull_estimate(ctx)``); the planner
compares the estimates.  Times are in seconds from per-thread costs measured on the
project's 2-core development machine (``benchmarks/results/formats_cpu.md``); they rank
the candidates, and the Plan shows them.

Examples
--------
>>> import numpy as np
>>> from gblas.formats import CSR
>>> from gblas.hardware import Hardware
>>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
>>> ctx = PullContext.of(A, Hardware(32 << 10, 1 << 20, 8 << 20, 64, 2, "x"), 4, 5, 0)
>>> ctx.entries, ctx.miss
(2.0, 0.0)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

NS = 1e-9

def index_bytes(n: int) -> int:
    return 4 if n <= 2**31 - 1 else 8


#: Share of the L3 that holds x's lines in a plain CSR pull (the streamed matrix, y and
#: the other cores take the rest): gathers beyond it miss (the segments are sized to it).
X_CACHE_SHARE = 0.25
#: ns per entry and thread when x is gathered from the cache (a segment's slice, or a
#: graph whose vertex data fits).
NS_EDGE_CACHED = 1.3
#: ns per entry and thread when x is gathered from a column panel's slice in the L2.
NS_EDGE_L2 = 1.2
#: extra ns per entry and thread for a gather that misses the LLC (scaled by the miss
#: fraction ``1 - X_CACHE_SHARE * L3 / x_bytes``).
NS_EDGE_MISS = 2.4
#: ns per row and thread: row pointer, output value and presence.
NS_ROW = 1.0
#: ns per local row and thread of a grouped format: partial written, read back, merged.
NS_LOCAL_ROW = 3.0


@dataclass(frozen=True)
class Estimate:
    """A candidate format's estimated time per call, build time and DRAM bytes."""

    format: str
    seconds: float
    build_seconds: float
    bytes: int
    note: str = ""


#: On the GPU the pull kernels are bound by their gathers of x more than by streaming the
#: matrix: value bytes count with this weight against the bandwidths of each format.
GPU_VALUE_WEIGHT = 0.25


class GpuPullContext(NamedTuple):
    """What every format's GPU pull estimate reads: the shape and entries of the matrix
    the pull reads, the value sizes, the GPU's L2 and the statistics the planner samples
    (hot-segment share, panel runs per entry, the monoid's fold)."""

    shape: tuple
    nnz: int
    a_val: int
    x_bytes: int
    y_bytes: int
    l2: int
    hot_share: float
    allowed_frac: float = 1.0
    runs_per_entry: float | None = None
    fold: str = "native"
    gathered: int = 0

    @property
    def entries(self) -> float:
        return self.nnz * self.allowed_frac

    @property
    def vertex(self) -> int:
        m, n = self.shape
        return n * self.x_bytes + m * self.y_bytes

    @property
    def weighted_value(self) -> float:
        return GPU_VALUE_WEIGHT * self.a_val


class PullContext(NamedTuple):
    """What every format's pull estimate reads: the CSR the pull reads, the machine, the
    value sizes and the shared statistics (computed once per call)."""

    csr: Any
    hw: Any
    threads: int
    entries: float        # entries the pull computes (nnz times the allowed fraction)
    x_bytes: int          # bytes per x value
    y_bytes: int          # bytes per y value with its presence flag
    a_val: int            # bytes per stored value (0 when iso)
    x_data: int           # bytes of x
    miss: float           # fraction of x gathers that miss the LLC in a plain CSR pull
    imbalance: float      # slowest row block over the ideal one
    stream: float         # bytes streamed: indices, values, row pointers, y
    sizes: dict           # build parameters of the candidates (segment_size, tile_cols)

    @classmethod
    def of(cls, csr, hw, x_bytes: int, y_bytes: int, a_val: int, allowed_frac: float = 1.0,
           sizes: dict | None = None) -> PullContext:
        m, n = csr.shape
        P = max(1, hw.threads)
        e = csr.nnz * allowed_frac
        x_data = n * x_bytes
        miss = max(0.0, 1.0 - hw.l3 * X_CACHE_SHARE / x_data) if x_data else 0.0
        stream = e * (index_bytes(n) + a_val) + m * (8 + y_bytes)
        return cls(csr, hw, P, e, x_bytes, y_bytes, a_val, x_data, miss,
                   row_imbalance(csr.indptr, P), stream, dict(sizes or {}))

    def build_seconds(self, ns_entry: float, overhead_s: float) -> float:
        """A build of ``ns_entry`` ns per entry and thread plus ``overhead_s``."""
        return ns_entry * NS * self.csr.nnz / self.threads + overhead_s

    def grouped_estimate(self, name: str, groups: int, ns_edge: float, build_s: float,
                         what: str, balanced: bool) -> Estimate:
        """A format that cuts the columns into ``groups`` ranges and merges local rows
        (Cagra's ``E + 2qV + V`` bytes, with ``q`` the expansion factor)."""
        m = self.csr.shape[0]
        q = expansion_factor(self.csr, groups)
        t = (self.entries * ns_edge + q * m * NS_LOCAL_ROW + m * NS_ROW) * NS / self.threads
        if not balanced:
            t *= self.imbalance
        nbytes = self.stream + self.x_data + int(q * m * (2 * self.y_bytes + 8))
        return Estimate(name, t, build_s, int(nbytes), f"{groups} {what}, q~{q:.2f}")


#: id(csr) -> (weak reference to csr, dict): a plain dict (a WeakKeyDictionary lookup
#: creates a weak reference per call, and the planner asks on every product)
_SUMMARIES: dict[int, tuple] = {}


def summary(csr) -> dict:
    """A dict cached with ``csr`` (it goes when the CSR goes) for derived statistics.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0]), np.array([0]), None, (1, 1), iso_value=True)
    >>> summary(A)["x"] = 1
    >>> summary(A)
    {'x': 1}
    """
    k = id(csr)
    e = _SUMMARIES.get(k)
    if e is not None and e[0]() is csr:
        return e[1]
    d: dict = {}
    _SUMMARIES[k] = (weakref.ref(csr, lambda _, k=k: _SUMMARIES.pop(k, None)), d)
    return d


def row_imbalance(indptr, parts: int) -> float:
    """Slowest block over the ideal one when rows are split into ``parts`` blocks of equal
    cost ``entries + rows`` (the CSR kernel's split; a row is never cut).

    Binary searches over ``indptr`` only: O(parts log rows), no pass over the data.

    Examples
    --------
    >>> import numpy as np
    >>> row_imbalance(np.array([0, 1, 2, 3, 4]), 2)
    1.0
    >>> round(row_imbalance(np.array([0, 100, 101, 102]), 2), 2)   # one hub row
    1.92
    """
    m = len(indptr) - 1
    if parts <= 1 or m <= 0:
        return 1.0
    total = int(indptr[m]) + m
    if total == 0:
        return 1.0
    bounds = [0]
    for p in range(1, parts):
        target = total * p // parts
        lo, hi = 0, m
        while lo < hi:
            mid = (lo + hi) // 2
            if int(indptr[mid]) + mid < target:
                lo = mid + 1
            else:
                hi = mid
        bounds.append(lo)
    bounds.append(m)
    costs = [int(indptr[b]) + b for b in bounds]
    worst = max(costs[k + 1] - costs[k] for k in range(parts))
    return worst / (total / parts)


def expansion_factor(csr, groups: int) -> float:
    """Expected local rows per row when the columns are cut into ``groups`` ranges (the
    expansion factor ``q`` of Cagra, section III-D), assuming a row's entries spread
    evenly: ``mean_i k (1 - (1 - 1/k)^deg_i)``.  Cached per CSR object.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 0, 1]), np.array([0, 1, 0]), None, (2, 2),
    ...                  iso_value=True)
    >>> expansion_factor(A, 1), expansion_factor(A, 2)
    (1.0, 1.25)
    """
    if groups <= 1:
        nonempty = summary(csr).get("nonempty")
        if nonempty is None:
            nonempty = int(np.count_nonzero(np.diff(np.asarray(csr.indptr))))
            summary(csr)["nonempty"] = nonempty
        return nonempty / csr.shape[0] if csr.shape[0] else 0.0
    key = ("q", int(groups))
    s = summary(csr)
    if key not in s:
        deg = np.diff(np.asarray(csr.indptr)).astype(np.float64)
        k = float(groups)
        s[key] = float(np.mean(k * (1.0 - np.power(1.0 - 1.0 / k, deg)))) if deg.size else 0.0
    return s[key]
